"""Multi-label strategies that combine per-label Naive Bayes log-likelihoods."""

from .binary_relevance import BinaryRelevance
from .chain import ClassifierChain
from .dynamic import DynamicChain
from .ensemble import EnsembleClassifierChains
from .imlnb import IMLNB
from .knn_chain import KNNChain
from .order_ensembles import OOCC, GeneticChainEnsemble
from .powerset import LabelPowerset, RAkEL

__all__ = [
    "BinaryRelevance",
    "ClassifierChain",
    "DynamicChain",
    "EnsembleClassifierChains",
    "GeneticChainEnsemble",
    "IMLNB",
    "KNNChain",
    "LabelPowerset",
    "OOCC",
    "RAkEL",
]
