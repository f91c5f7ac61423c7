"""Multi-label strategies that combine per-label Naive Bayes log-likelihoods."""

from ._base import CardinalityWarning, at_defaults, warn_cardinality
from ._knn_members import choose_neighbours
from ._resolution import (
    LABEL_TERMS,
    TUNED,
    WEAK_LABELS,
    candidate_events,
    chooses_settings,
    cross_fitted,
    finite_scores,
    is_tuned,
    wins_by_one_standard_error,
    with_chosen_settings,
)
from .bagging import BaggedBinaryRelevance
from .binary_relevance import BinaryRelevance
from .chain import ClassifierChain
from .dynamic import DynamicChain
from .dynamic_ensemble import DynamicChainEnsemble
from .ensemble import EnsembleClassifierChains
from .imlnb import IMLNB
from .knn_chain import KNNChain
from .naibx import CascadeSteps, NaiBX
from .neighbour_vote import IBLRML, BRkNN, MLkNN
from .order_ensembles import OOCC, GeneticChainEnsemble
from .powerset import LabelPowerset, RAkEL

__all__ = [
    "LABEL_TERMS",
    "WEAK_LABELS",
    "BaggedBinaryRelevance",
    "BinaryRelevance",
    "CardinalityWarning",
    "at_defaults",
    "CascadeSteps",
    "ClassifierChain",
    "DynamicChain",
    "DynamicChainEnsemble",
    "EnsembleClassifierChains",
    "GeneticChainEnsemble",
    "IBLRML",
    "IMLNB",
    "KNNChain",
    "LabelPowerset",
    "MLkNN",
    "BRkNN",
    "NaiBX",
    "OOCC",
    "RAkEL",
    "TUNED",
    "candidate_events",
    "cross_fitted",
    "choose_neighbours",
    "chooses_settings",
    "finite_scores",
    "is_tuned",
    "warn_cardinality",
    "wins_by_one_standard_error",
    "with_chosen_settings",
]
