"""The methods the ``mlnb`` command knows, by name, and how to build them."""

from __future__ import annotations

import ast
import importlib

import scipy.sparse as sp

__all__ = ["METHODS", "build", "parse_params"]

# name: (module, class, fixed keyword arguments, description)
METHODS = {
    "br": ("mlnb.multilabel", "BinaryRelevance", {}, "binary relevance (MLNB)"),
    "cc": ("mlnb.multilabel", "ClassifierChain", {}, "classifier chain, greedy"),
    "pcc": (
        "mlnb.multilabel",
        "ClassifierChain",
        {"inference": "beam"},
        "probabilistic chain, beam search",
    ),
    "ecc": ("mlnb.multilabel", "EnsembleClassifierChains", {}, "ensemble of 10 chains"),
    "dc": ("mlnb.multilabel", "DynamicChain", {}, "dynamic chain: order per instance"),
    "knn-cc": ("mlnb.multilabel", "KNNChain", {}, "kNN chain, fixed order"),
    "oocc": ("mlnb.multilabel", "OOCC", {}, "OOCC: orders of the nearest validation rows"),
    "ga-cc": ("mlnb.multilabel", "GeneticChainEnsemble", {}, "orders chosen by a GA"),
    "knn-dc": ("mlnb.multilabel", "KNNChain", {"order": "local_f1"}, "kNN chain, dynamic order"),
    "lp": ("mlnb.multilabel", "LabelPowerset", {}, "label powerset"),
    "rakel": ("mlnb.multilabel", "RAkEL", {}, "RAkEL-o, k = 3, m = 10"),
    "naibx": ("mlnb.multilabel.naibx", "NaiBX", {}, "NaiBX cascade: size, then labels"),
    "imlnb": ("mlnb.multilabel.imlnb", "IMLNB", {}, "iMLNB: BR with correlated labels"),
}


def available():
    """Names of the methods whose code is installed."""
    names = []
    for name, (module, cls, _, _) in METHODS.items():
        try:
            getattr(importlib.import_module(module), cls)
        except (ImportError, AttributeError):
            continue
        names.append(name)
    return names


def parse_params(pairs):
    """``["alpha=0.5", "events=multinomial"]`` -> ``{"alpha": 0.5, "events": "multinomial"}``."""
    params = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--param expects KEY=VALUE, got {pair!r}")
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text  # a plain word: a string
        params[key.strip()] = value
    return params


def build(name, X, params=None, *, random_state=0):
    """The estimator called ``name``, with ``params``; events default to the data's kind.

    Sparse, non-negative data (bags of words) get the multinomial event model, other data
    the Gaussian one, unless ``params`` says otherwise.
    """
    known = available()
    if name not in METHODS or name not in known:
        raise ValueError(f"unknown method {name!r}; known methods: {', '.join(known)}")
    module, cls, fixed, _ = METHODS[name]
    estimator_class = getattr(importlib.import_module(module), cls)
    estimator = estimator_class(**fixed)
    defaults = {}
    if "events" in estimator.get_params():
        values = X.data if sp.issparse(X) else X
        counts = sp.issparse(X) and (values.size == 0 or values.min() >= 0)
        defaults["events"] = "multinomial" if counts else "gaussian"
    if "random_state" in estimator.get_params():
        defaults["random_state"] = random_state
    settings = {**defaults, **(params or {})}
    unknown = sorted(set(settings) - set(estimator.get_params()))
    if unknown:
        raise ValueError(
            f"{name} has no parameter {', '.join(unknown)}; its parameters: "
            f"{', '.join(sorted(estimator.get_params()))}"
        )
    return estimator.set_params(**settings)
