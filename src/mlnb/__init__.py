"""mlnb: Naive Bayes for single-label and multi-label classification.

Every model is a function of additive sufficient statistics (:mod:`mlnb.stats`), turned into
log-likelihoods by event models (:mod:`mlnb.events`).
"""

from .multilabel import (
    IMLNB,
    OOCC,
    BinaryRelevance,
    ClassifierChain,
    DynamicChain,
    DynamicChainEnsemble,
    EnsembleClassifierChains,
    GeneticChainEnsemble,
    KNNChain,
    LabelPowerset,
    NaiBX,
    RAkEL,
)
from .naive_bayes import (
    BayesianBernoulliNB,
    BayesianGaussianNB,
    BayesianMultinomialNB,
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MixedNB,
    MultinomialNB,
)
from .thresholds import TunedThresholdsCV

__version__ = "0.1.0.dev0"

__all__ = [
    "BayesianBernoulliNB",
    "BayesianGaussianNB",
    "BayesianMultinomialNB",
    "BernoulliNB",
    "BinaryRelevance",
    "CategoricalNB",
    "ClassifierChain",
    "ComplementNB",
    "DynamicChain",
    "DynamicChainEnsemble",
    "EnsembleClassifierChains",
    "GaussianNB",
    "GeneticChainEnsemble",
    "IMLNB",
    "KNNChain",
    "LabelPowerset",
    "MixedNB",
    "MultinomialNB",
    "NaiBX",
    "OOCC",
    "RAkEL",
    "TunedThresholdsCV",
    "__version__",
]
