"""The methods the ``mlnb`` command knows, by name, and how to build them.

Two kinds of method: single-label classifiers (one class per row: the text corpora) and
multi-label methods (a set of labels per row: the ARFF data sets and the generated sets),
in :data:`METHODS`. ``mlnb evaluate --multi-target`` (a class per target) gives some of the
multi-label names their multi-target form, in :data:`MULTI_TARGET_METHODS`. Every
estimator class exported by :mod:`mlnb` has at least one name here (a test checks it).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from numbers import Integral, Real

__all__ = [
    "METHODS",
    "MULTI_TARGET_METHODS",
    "build",
    "describe_methods",
    "estimator_class",
    "is_single_label",
    "parse_params",
]

SINGLE_LABEL_MODULE = "mlnb.naive_bayes"

# name: (module, class, fixed keyword arguments, description)
METHODS = {
    # single-label classifiers: one class per row (text corpora)
    "mnb": (SINGLE_LABEL_MODULE, "MultinomialNB", {}, "multinomial NB on word counts"),
    "bnb": (SINGLE_LABEL_MODULE, "BernoulliNB", {}, "Bernoulli NB on word presence"),
    "gnb": (SINGLE_LABEL_MODULE, "GaussianNB", {}, "Gaussian NB (text: on the paper's TF-IDF)"),
    "cnb": (
        SINGLE_LABEL_MODULE,
        "ComplementNB",
        {},
        "complement NB on word counts (Rennie et al. 2003)",
    ),
    "catnb": (
        SINGLE_LABEL_MODULE,
        "CategoricalNB",
        {"max_categories": 64},
        "categorical NB: every count (0..63) a category of its own",
    ),
    "bayes-mnb": (
        SINGLE_LABEL_MODULE,
        "BayesianMultinomialNB",
        {},
        "Bayesian multinomial NB (Dirichlet priors, Xu 2018, eqs. 19-20)",
    ),
    "bayes-bnb": (
        SINGLE_LABEL_MODULE,
        "BayesianBernoulliNB",
        {},
        "Bayesian Bernoulli NB (Beta prior, Xu 2018, eq. 21)",
    ),
    "bayes-gnb": (
        SINGLE_LABEL_MODULE,
        "BayesianGaussianNB",
        {},
        "Bayesian Gaussian NB (Normal-Gamma prior, Xu 2018, eq. 17; text: TF-IDF)",
    ),
    "mixed-nb": (
        SINGLE_LABEL_MODULE,
        "MixedNB",
        {},
        "event model per column block (-p blocks=...; default all Gaussian)",
    ),
    # multi-label methods: a set of labels per row
    "br": ("mlnb.multilabel", "BinaryRelevance", {}, "binary relevance (MLNB)"),
    "bagged-br": (
        "mlnb.multilabel",
        "BaggedBinaryRelevance",
        {},
        "10 binary-relevance models on 66 % samples (ECC's), majority vote",
    ),
    "cc": ("mlnb.multilabel", "ClassifierChain", {}, "classifier chain, greedy"),
    "pcc": (
        "mlnb.multilabel",
        "ClassifierChain",
        {"inference": "beam"},
        "probabilistic chain, beam search",
    ),
    "ecc": ("mlnb.multilabel", "EnsembleClassifierChains", {}, "ensemble of 10 chains"),
    "dc": ("mlnb.multilabel", "DynamicChain", {}, "dynamic chain: order per instance"),
    "dce": (
        "mlnb.multilabel",
        "DynamicChainEnsemble",
        {},
        "dynamic chain ensemble: 20 chains, order per instance",
    ),
    "knn-cc": ("mlnb.multilabel", "KNNChain", {}, "kNN chain, fixed order"),
    "oocc": ("mlnb.multilabel", "OOCC", {}, "OOCC: orders of the nearest validation rows"),
    "ga-cc": ("mlnb.multilabel", "GeneticChainEnsemble", {}, "orders chosen by a GA"),
    "knn-dc": ("mlnb.multilabel", "KNNChain", {"order": "local_f1"}, "kNN chain, dynamic order"),
    "mlknn": ("mlnb.multilabel", "MLkNN", {}, "ML-kNN: posterior from the k nearest rows' labels"),
    "brknn": ("mlnb.multilabel", "BRkNN", {}, "BR-kNN: share of the k nearest rows per label"),
    "brknn-a": ("mlnb.multilabel", "BRkNN", {"extension": "a"}, "BR-kNN-a: at least one label"),
    "brknn-b": ("mlnb.multilabel", "BRkNN", {"extension": "b"}, "BR-kNN-b: neighbours' set size"),
    "iblr-ml": (
        "mlnb.multilabel",
        "IBLRML",
        {},
        "IBLR-ML: logistic regression on the k nearest rows' label shares",
    ),
    "ecc-pre": (
        "mlnb.multilabel",
        "DynamicChainEnsemble",
        {"order": "random"},
        "ECC with the dynamic ensemble's undersampling and feature selection",
    ),
    "knn-dce": (
        "mlnb.multilabel",
        "DynamicChainEnsemble",
        {"base": "knn"},
        "dynamic chain ensemble of kNN chains",
    ),
    "knn-ecc": (
        "mlnb.multilabel",
        "DynamicChainEnsemble",
        {"base": "knn", "order": "random"},
        "ECC of kNN chains, with undersampling and feature selection",
    ),
    "knn-oocc": ("mlnb.multilabel", "OOCC", {"base": "knn"}, "OOCC of kNN chains"),
    "knn-ga-cc": (
        "mlnb.multilabel",
        "GeneticChainEnsemble",
        {"base": "knn"},
        "kNN chain orders chosen by a GA",
    ),
    "lp": ("mlnb.multilabel", "LabelPowerset", {}, "label powerset"),
    "rakel": ("mlnb.multilabel", "RAkEL", {}, "RAkEL-o, k = 3, m = 10"),
    "naibx": ("mlnb.multilabel.naibx", "NaiBX", {}, "NaiBX cascade: size, then labels"),
    "imlnb": ("mlnb.multilabel.imlnb", "IMLNB", {}, "iMLNB: BR with correlated labels"),
    # the decision rule chosen on out-of-fold scores (fold subtraction: one statistics pass)
    "br-tuned": (
        "mlnb.selection",
        "TunedThresholdsCV",
        {"estimator": ("mlnb.multilabel", "BinaryRelevance")},
        "binary relevance, event model and decision rule (PCut, RCut, ...) tuned by 5-fold CV",
    ),
    "cc-tuned": (
        "mlnb.selection",
        "TunedThresholdsCV",
        {"estimator": ("mlnb.multilabel", "ClassifierChain")},
        "classifier chain, event model and decision rule tuned by 5-fold CV",
    ),
}


# --multi-target: the multi-label names whose methods have a form for a class per target
MULTI_TARGET_METHODS = {
    "br": (
        "mlnb.multitarget",
        "MultiTargetRelevance",
        {},
        "class relevance: one NB per target",
    ),
    "cc": (
        "mlnb.multitarget",
        "MultiTargetChain",
        {},
        "chain over the targets' classes (-p inference=greedy|beam|exact)",
    ),
    "pcc": (
        "mlnb.multitarget",
        "MultiTargetChain",
        {"inference": "beam"},
        "chain over the targets' classes, beam search",
    ),
    "lp": (
        "mlnb.multitarget",
        "MultiTargetPowerset",
        {},
        "powerset: one NB over the class combinations seen",
    ),
}


def _table(multi_target):
    return MULTI_TARGET_METHODS if multi_target else METHODS


def estimator_class(name, *, multi_target=False):
    """The class behind method ``name`` (imported on first use); ``multi_target``: its
    multi-target form (:data:`MULTI_TARGET_METHODS`)."""
    module, cls, _, _ = _table(multi_target)[name]
    return getattr(importlib.import_module(module), cls)


def is_single_label(name):
    """Whether method ``name`` is a single-label classifier (one class per row)."""
    return METHODS[name][0] == SINGLE_LABEL_MODULE


def describe_methods(*, multi_target=False):
    """The methods, grouped by kind, one ``name  description`` line each; ``multi_target``:
    also the multi-target forms of ``mlnb evaluate --multi-target``."""
    names = list(METHODS)
    width = max(map(len, names))
    single = [n for n in names if is_single_label(n)]
    multi = [n for n in names if not is_single_label(n)]
    lines = ["Single-label classifiers (text corpora):"]
    lines += [f"  {n:{width}s}  {METHODS[n][3]}" for n in single]
    lines += ["Multi-label methods:"]
    lines += [f"  {n:{width}s}  {METHODS[n][3]}" for n in multi]
    if multi_target:
        lines += ["Multi-target methods (--multi-target: a class per target):"]
        lines += [f"  {n:{width}s}  {d}" for n, (*_, d) in MULTI_TARGET_METHODS.items()]
    return "\n".join(lines)


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


def build(name, X=None, params=None, *, random_state=0, multi_target=False):
    """The estimator called ``name``, with ``params`` (the rest at the estimator's defaults).

    The command adds no rule of its own: a multi-label method's event model is what the
    estimator chooses at its defaults (``events="tuned"``: by cross-validation on the
    training rows), so the command and ``Method()`` in Python give the same model. ``X`` is
    not used (kept for the callers). ``multi_target``: the method's multi-target form
    (:data:`MULTI_TARGET_METHODS`).
    """
    table = _table(multi_target)
    if name not in table:
        raise ValueError(f"unknown method {name!r}; known methods: {', '.join(table)}")
    _, _, fixed, _ = table[name]
    # a (module, class) value is an inner estimator, made afresh for every build
    fixed = {
        key: getattr(importlib.import_module(value[0]), value[1])()
        if isinstance(value, tuple)
        else value
        for key, value in fixed.items()
    }
    estimator = estimator_class(name, multi_target=multi_target)(**fixed)
    defaults = {}
    named = bool({"events", "estimator__events"} & set(params or {}))
    if "param_grid" in estimator.get_params() and not named:
        # a tuned method without a named event model chooses it with its decision rule
        defaults["param_grid"] = "auto"
    if "random_state" in estimator.get_params():
        defaults["random_state"] = random_state
    params = dict(params or {})
    inner = set(estimator.get_params()) - set(estimator.get_params(deep=False))
    for key in list(params):  # a wrapped method: -p alpha=... is the inner model's
        if key not in estimator.get_params() and f"estimator__{key}" in inner:
            params[f"estimator__{key}"] = params.pop(key)
    settings = {**defaults, **params}
    unknown = sorted(set(settings) - set(estimator.get_params()))
    if unknown:
        raise ValueError(
            f"{name} has no parameter {', '.join(unknown)}; its parameters: "
            f"{', '.join(sorted(estimator.get_params()))}"
        )
    estimator.set_params(**settings)
    check_params(name, estimator, params)
    return estimator


def _nested(estimator, prefix=""):
    """``(prefix, estimator)`` for ``estimator`` and every estimator among its parameters."""
    yield prefix, estimator
    for key, value in estimator.get_params(deep=False).items():
        if hasattr(value, "get_params") and not isinstance(value, type):
            yield from _nested(value, f"{prefix}{key}__")


def _shown(key, value):
    return f"-p {key}={value if isinstance(value, str) else repr(value)}"


def check_params(name, estimator, given):
    """Check the parameters against each (nested) estimator's declared types, before fitting.

    Uses scikit-learn's validation of ``_parameter_constraints``; a class without them gets
    a check of integer and real parameters against its defaults' types. ``given``: the -p
    settings (their keys as the estimator knows them), named in the message.

    Raises
    ------
    ValueError
        Naming the -p setting, the method and what the parameter expects.
    """
    from sklearn.utils._param_validation import InvalidParameterError

    given = dict(given or {})
    for prefix, part in _nested(estimator):
        if hasattr(type(part), "_parameter_constraints"):
            try:
                part._validate_params()
            except InvalidParameterError as error:
                raise ValueError(_message(name, prefix, str(error), given)) from None
            continue
        defaults = inspect.signature(type(part)).parameters
        for key, value in part.get_params(deep=False).items():
            default = defaults[key].default if key in defaults else None
            if f"{prefix}{key}" not in given or value is None or isinstance(default, bool):
                continue
            if isinstance(default, Integral) and not _is_int(value):
                expected = "an int"
            elif isinstance(default, Real) and not (_is_int(value) or isinstance(value, Real)):
                expected = "a number"
            else:
                continue
            raise ValueError(
                f"{_shown(f'{prefix}{key}', value)}: {name}'s parameter {key} must be "
                f"{expected}; got {value!r}"
            )


def _is_int(value):
    return isinstance(value, Integral) and not isinstance(value, bool)


def _message(name, prefix, text, given):
    """scikit-learn's InvalidParameterError text, as one line naming the -p setting."""
    match = re.match(r"The '(\w+)' parameter of \w+ must be (.*)\. Got (.*) instead\.$", text)
    if match is None:
        return f"{name}: {text}"
    key, expected, got = match.groups()
    full = f"{prefix}{key}"
    head = _shown(full, given[full]) + ": " if full in given else ""
    return f"{head}{name}'s parameter {key} must be {expected}; got {got}"
