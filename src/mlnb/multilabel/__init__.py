"""Multi-label strategies that combine per-label Naive Bayes log-likelihoods."""

from .binary_relevance import BinaryRelevance
from .chain import ClassifierChain
from .ensemble import EnsembleClassifierChains

__all__ = ["BinaryRelevance", "ClassifierChain", "EnsembleClassifierChains"]
