"""Registry of named criteria, so that evaluation, the tuner and the CLI ask for them by name.

``METRICS`` maps a name to a :class:`Metric` (its function, whether greater is better,
and whether it scores multi-label 0/1 predictions, multi-label label scores,
single-label class vectors or multi-target class matrices); :func:`register_metric` adds
one. ``METRIC_SETS`` names groups of them (:func:`register_metric_set`); a set may name
its metrics as a tool shows them (:func:`get_metric_set`). :func:`set_scorer` resolves the
``scoring`` of a decision-rule search. The package's criteria are registered in the
modules that define them; the named sets of the papers and tools in ``_sets``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial

__all__ = [
    "METRICS",
    "METRIC_SETS",
    "Metric",
    "get_metric_set",
    "get_metrics",
    "register_metric",
    "register_metric_set",
    "set_scorer",
]

TASKS = ("multilabel", "multilabel_scores", "single_label", "multi_target")


@dataclass(frozen=True)
class Metric:
    """A named criterion.

    Attributes
    ----------
    name : str
        Registry key.
    function : callable
        ``function(y_true, y_pred) -> float``.
    greater_is_better : bool
        True for scores, False for losses.
    task : {"multilabel", "multilabel_scores", "single_label", "multi_target"}
        What the function scores: multi-label 0/1 predictions, multi-label label scores
        (``y_pred`` is an n x L matrix of real scores, higher = more likely; log loss
        needs probabilities), single-label class vectors, or multi-target class
        matrices (n x L arrays of class values of any dtype, one column per output).
    label : str
        Short display name for tables and plots.
    """

    name: str
    function: Callable
    greater_is_better: bool
    task: str
    label: str

    def __call__(self, y_true, y_pred):
        return self.function(y_true, y_pred)


METRICS: dict[str, Metric] = {}

METRIC_SETS: dict[str, tuple[str, ...]] = {}

# the names a set gives its metrics where they differ from the METRICS names
_SET_NAMES: dict[str, tuple[str, ...]] = {}


def register_metric(name, function=None, *, greater_is_better, task, label=None, replace=False):
    """Add a criterion to :data:`METRICS`; usable as a decorator.

    Parameters
    ----------
    name : str
        Its name in :data:`METRICS` (not the name of a set of :data:`METRIC_SETS`).
    function : callable, default=None
        ``function(y_true, y_pred) -> float``; None returns a decorator that registers
        the function it decorates.
    greater_is_better : bool
        True for a score, False for a loss.
    task : {"multilabel", "multilabel_scores", "single_label", "multi_target"}
        What the function scores (see :class:`Metric`).
    label : str, default=None
        Display name for tables and plots; default: ``name``.
    replace : bool, default=False
        Replace a metric of the same name instead of refusing it.

    Returns
    -------
    callable
        ``function`` (or the decorator).

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.metrics import METRICS, get_metrics, register_metric
    >>> @register_metric("label_count_error", greater_is_better=False, task="multilabel")
    ... def label_count_error(Y_true, Y_pred):
    ...     return float(np.mean(np.abs(np.sum(Y_true, 1) - np.sum(Y_pred, 1))))
    >>> get_metrics("label_count_error")["label_count_error"](np.eye(2), np.ones((2, 2)))
    1.0
    >>> _ = METRICS.pop("label_count_error")  # a doctest leaves the registry as it was
    """
    if function is None:
        return partial(
            register_metric,
            name,
            greater_is_better=greater_is_better,
            task=task,
            label=label,
            replace=replace,
        )
    if not isinstance(name, str) or not name:
        raise ValueError(f"register_metric: name must be a non-empty string, got {name!r}.")
    if not callable(function):
        raise TypeError(f"register_metric: function must be callable, got {function!r}.")
    if task not in TASKS:
        raise ValueError(f"register_metric: task must be one of {TASKS}, got {task!r}.")
    if not isinstance(greater_is_better, bool):
        raise TypeError(
            f"register_metric: greater_is_better must be True or False, got {greater_is_better!r}."
        )
    if name in METRIC_SETS:
        raise ValueError(f"register_metric: {name!r} is the name of a metric set; choose another.")
    if name in METRICS and not replace:
        raise ValueError(
            f"register_metric: a metric {name!r} is already registered; choose another name "
            "or pass replace=True."
        )
    METRICS[name] = Metric(name, function, greater_is_better, task, label or name)
    return function


def register_metric_set(name, metrics, *, replace=False):
    """Add a named group of registered metrics to :data:`METRIC_SETS`.

    Parameters
    ----------
    name : str
        The set's name (not the name of a metric of :data:`METRICS`).
    metrics : iterable of str, or mapping of str to str
        Names of :data:`METRICS`, in order; or ``{name in the set: name in METRICS}``,
        for a set that names its metrics as a tool shows them (see
        :func:`get_metric_set`).
    replace : bool, default=False
        Replace a set of the same name instead of refusing it.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"register_metric_set: name must be a non-empty string, got {name!r}.")
    if name in METRICS:
        raise ValueError(f"register_metric_set: {name!r} is the name of a metric; choose another.")
    if name in METRIC_SETS and not replace:
        raise ValueError(
            f"register_metric_set: a set {name!r} is already registered; choose another name "
            "or pass replace=True."
        )
    if isinstance(metrics, str) or not isinstance(metrics, Iterable):
        raise ValueError(
            f"register_metric_set: metrics must be a list of names or a mapping, got {metrics!r}."
        )
    pairs = list(metrics.items()) if isinstance(metrics, Mapping) else [(m, m) for m in metrics]
    unknown = [m for _, m in pairs if m not in METRICS]
    if not pairs or unknown:
        raise ValueError(
            f"register_metric_set: {name!r} must list registered metrics; unknown: {unknown}."
        )
    shown = tuple(s for s, _ in pairs)
    if len(set(shown)) != len(shown):
        raise ValueError(f"register_metric_set: {name!r} names two metrics alike: {shown}.")
    METRIC_SETS[name] = tuple(m for _, m in pairs)
    _SET_NAMES.pop(name, None)
    if shown != METRIC_SETS[name]:
        _SET_NAMES[name] = shown


def get_metric_set(name):
    """The metrics of set ``name``, keyed by the names the set gives them.

    Parameters
    ----------
    name : str
        A set of :data:`METRIC_SETS`.

    Returns
    -------
    dict of str to Metric
        In the set's order; keys are the :data:`METRICS` names unless the set was
        registered with its own names (``"text"``: ``"accuracy"`` for ``"sl_accuracy"``;
        ``"tuning"``: ``"accuracy"`` for ``"exact_match"``).
    """
    if name not in METRIC_SETS:
        raise ValueError(f"unknown metric set {name!r}; known sets {sorted(METRIC_SETS)}.")
    members = METRIC_SETS[name]
    shown = _SET_NAMES.get(name, members)
    if len(shown) != len(members):  # the tuple was replaced in METRIC_SETS directly
        shown = members
    return {s: METRICS[m] for s, m in zip(shown, members, strict=True)}


def get_metrics(names, *, task=None):
    """Resolve metric names or set names to an ordered ``{name: Metric}`` dict.

    Parameters
    ----------
    names : str or iterable of str
        Metric names of ``METRICS`` and/or set names of ``METRIC_SETS``.
    task : {"multilabel", "multilabel_scores", "single_label", "multi_target"}, default=None
        If given, every metric must score this target type (see :attr:`Metric.task`).

    Returns
    -------
    dict of str to Metric
    """
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, Iterable):
        raise ValueError(f"metrics must be a name or a list of names, got {names!r}.")
    out = {}
    for name in names:
        if name in METRIC_SETS:
            out.update((n, METRICS[n]) for n in METRIC_SETS[name])
        elif name in METRICS:
            out[name] = METRICS[name]
        else:
            raise ValueError(
                f"metrics: unknown name {name!r}; known sets "
                f"{sorted(METRIC_SETS)}, "
                f"known metrics {sorted(METRICS)}."
            )
    if not out:
        raise ValueError("metrics must name at least one metric.")
    if task is not None:
        wrong = [n for n, m in out.items() if m.task != task]
        if wrong:
            raise ValueError(f"metrics {wrong} do not score {task} targets.")
    return out


def one_minus(score, *args, **kwargs):
    """``1 - score(...)``: the loss of a score in [0, 1] (register it with ``partial``)."""
    return 1.0 - score(*args, **kwargs)


def _negated(function, Y_true, Y_pred):
    return -function(Y_true, Y_pred)


def set_scorer(scoring):
    """``scorer(Y_true, Y_pred) -> float``, greater is better, for 0/1 label matrices.

    Parameters
    ----------
    scoring : str or callable
        A callable (returned as is); a name of the ``"tuning"`` set (``"f1_micro"``,
        ``"jaccard_samples"``, ..., and ``"accuracy"``: subset accuracy, as scikit-learn
        names it; see :func:`get_metric_set`); or any other :data:`METRICS` name of task
        ``"multilabel"`` (a loss is negated, so that greater is better).

    Returns
    -------
    callable

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.metrics import set_scorer
    >>> Y, P = np.array([[1, 0], [1, 1]]), np.array([[1, 0], [0, 1]])
    >>> set_scorer("f1_micro")(Y, P)
    0.8
    >>> set_scorer("hamming")(Y, P)  # a loss, negated: greater is better
    -0.25
    """
    if callable(scoring):
        return scoring
    tuning = get_metric_set("tuning")
    if isinstance(scoring, str):
        if scoring in tuning:
            return tuning[scoring].function
        metric = METRICS.get(scoring)
        if metric is not None and metric.task == "multilabel":
            if metric.greater_is_better:
                return metric.function
            return partial(_negated, metric.function)
    names = {*tuning, *(n for n, m in METRICS.items() if m.task == "multilabel")}
    raise ValueError(
        f"scoring must be a callable (Y_true, Y_pred) -> float or one of {sorted(names)}; "
        f"got {scoring!r}"
    )
