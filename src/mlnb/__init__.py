"""mlnb: Naive Bayes for single-label, multi-label and multi-target classification.

Every model is a function of additive sufficient statistics (:mod:`mlnb.stats`), turned into
log-likelihoods by event models (:mod:`mlnb.events`).
"""

import importlib

#: The estimators, by the module that defines them: imported on first use (PEP 562), so
#: that ``import mlnb`` (and ``mlnb --version``) does not load scikit-learn.
_ESTIMATORS = {
    "mlnb.multilabel": (
        "IMLNB",
        "OOCC",
        "BaggedBinaryRelevance",
        "BinaryRelevance",
        "ClassifierChain",
        "DynamicChain",
        "DynamicChainEnsemble",
        "EnsembleClassifierChains",
        "GeneticChainEnsemble",
        "KNNChain",
        "LabelPowerset",
        "MLkNN",
        "BRkNN",
        "IBLRML",
        "NaiBX",
        "RAkEL",
    ),
    "mlnb.multitarget": ("MultiTargetChain", "MultiTargetPowerset", "MultiTargetRelevance"),
    "mlnb.naive_bayes": (
        "BayesianBernoulliNB",
        "BayesianGaussianNB",
        "BayesianMultinomialNB",
        "BernoulliNB",
        "CategoricalNB",
        "ComplementNB",
        "GaussianNB",
        "MixedNB",
        "MultinomialNB",
    ),
    "mlnb.selection": ("TunedThresholdsCV",),
}
_HOME = {name: module for module, names in _ESTIMATORS.items() for name in names}
_SUBMODULES = (
    "base",
    "cli",
    "datasets",
    "decision_rules",
    "distributed",
    "estimators",
    "evaluation",
    "events",
    "forgetting",
    "io",
    "labels",
    "limits",
    "metrics",
    "missing",
    "multilabel",
    "multitarget",
    "naive_bayes",
    "selection",
    "stats",
    "streaming",
    "text",
    "thresholds",
    "tuning",
)


def __getattr__(name):
    if name in _HOME:
        value = getattr(importlib.import_module(_HOME[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_HOME) | set(_SUBMODULES))


__version__ = "0.1.0.dev0"

__all__ = [
    "BaggedBinaryRelevance",
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
    "IBLRML",
    "IMLNB",
    "KNNChain",
    "LabelPowerset",
    "MLkNN",
    "BRkNN",
    "MixedNB",
    "MultiTargetChain",
    "MultiTargetPowerset",
    "MultiTargetRelevance",
    "MultinomialNB",
    "NaiBX",
    "OOCC",
    "RAkEL",
    "TunedThresholdsCV",
    "__version__",
]
