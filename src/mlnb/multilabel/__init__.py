"""Multi-label strategies that combine per-label Naive Bayes log-likelihoods."""

from ._knn_members import choose_neighbours
from .bagging import BaggedBinaryRelevance
from .binary_relevance import BinaryRelevance
from .chain import ClassifierChain
from .dynamic import DynamicChain
from .dynamic_ensemble import DynamicChainEnsemble
from .ensemble import EnsembleClassifierChains
from .imlnb import IMLNB
from .knn_chain import KNNChain
from .naibx import CascadeSteps, NaiBX
from .order_ensembles import OOCC, GeneticChainEnsemble
from .powerset import LabelPowerset, RAkEL

__all__ = [
    "BaggedBinaryRelevance",
    "BinaryRelevance",
    "CascadeSteps",
    "ClassifierChain",
    "DynamicChain",
    "DynamicChainEnsemble",
    "EnsembleClassifierChains",
    "GeneticChainEnsemble",
    "IMLNB",
    "KNNChain",
    "LabelPowerset",
    "NaiBX",
    "OOCC",
    "RAkEL",
    "choose_neighbours",
]
