"""The fast path of ``partial_fit`` on a few rows: what it checks, and whose statistics
it may change in place.

A fitted model learning a stream row by row spent most of each call on checks sized for
large batches (scikit-learn's ``check_array``, the target's type, the hyper-parameters),
on grouping matrices built per call and on re-estimating every parameter. Here a call of
up to :data:`MAX_ROWS` rows, a numpy array or CSR matrix, is checked in proportion to its
size (:func:`check_rows`, :func:`check_weights`) and added to the statistics in place; the
parameters derived from them are dropped and re-estimated when next used. This module
holds what every such fast path shares and the single-label classifiers' own
(:func:`add_rows`: one group per row, :meth:`GroupStats.add_rows`, re-estimated by
``_BaseNB.__getattr__``); the multi-label one is :mod:`mlnb.multilabel._online_rows`.

Its errors are the full path's: rows it is not sure of (another type or shape, NaN where
the ``missing`` option refuses it, an unknown class, a bad weight, changed
hyper-parameters) take the full path, which raises its own errors, and the one check it
runs itself is the event model's ``prepare`` (the full path's), before anything changes.

Statistics are modified in place only when the estimator made them itself (its last full
``fit`` or ``partial_fit``: not statistics given to ``from_statistics``, nor those of a
copy or of a loaded model), see :func:`own`; otherwise the call takes the full path, which
makes them its own.
"""

from __future__ import annotations

import functools
import math
import weakref

import numpy as np

from .base.validation import FEW_ROWS, fitted_rows
from .events import BayesianGaussian, Gaussian
from .events.gaussian import MAX_ABS_VALUE, MIN_FEATURE_SCALE

__all__ = [
    "MAX_ROWS",
    "UNIT",
    "Record",
    "add_rows",
    "check_rows",
    "check_weights",
    "disown",
    "own",
    "owned",
]

#: The largest batch the fast path takes (larger ones gain little from it): the rows a
#: fitted estimator checks in proportion to their size.
MAX_ROWS = FEW_ROWS

# The estimators whose statistics are their own, with what was checked when they were
# made (a Record). Kept outside the estimators so that copies (pickled, deep-copied, or
# whose attributes were copied) are not in it.
_OWNED = weakref.WeakKeyDictionary()


class Record:
    """What an estimator's last full fit made and checked: its fitted attributes named
    ``fitted`` (the statistics; ``events_`` too), and its hyper-parameters then."""

    __slots__ = ("events", "gaussian", "recorded")

    def __init__(self, estimator, fitted):
        values = vars(estimator)
        names = (*fitted, "events_", *_param_names(type(estimator)))
        self.recorded = tuple((name, values.get(name)) for name in names)
        self.events = values["events_"]
        self.gaussian = type(self.events) in (Gaussian, BayesianGaussian)

    def holds(self, values):
        """Whether ``values`` (an estimator's attributes) are still as recorded (by
        identity: after ``set_params`` the full path checks the parameters again)."""
        return all(values.get(name) is value for name, value in self.recorded)


class _Record(Record):
    """A single-label classifier's record, with its classes and the index of each (a
    dictionary: a few rows' classes are found without numpy)."""

    __slots__ = ("class_list", "classes", "index")

    def __init__(self, estimator):
        super().__init__(estimator, ("stats_", "classes_"))
        self.classes = vars(estimator)["classes_"]
        self.class_list = self.classes.tolist()
        self.index = {value: i for i, value in enumerate(self.class_list)}


#: What :func:`check_weights` returns for rows given no weights (1 each).
UNIT = object()


@functools.cache
def _param_names(cls):
    return tuple(cls._get_param_names())


def own(estimator, record=None):
    """Record that ``estimator``'s statistics are its own, made under its validated
    hyper-parameters (call it after a full fit or ``partial_fit``); ``record``: what to
    keep, a single-label classifier's by default."""
    _OWNED[estimator] = _Record(estimator) if record is None else record


def disown(estimator):
    """Forget that ``estimator``'s statistics are its own (they are shared: e.g. copied by
    ``copy.copy``): its next ``partial_fit`` takes the full path, which makes new ones."""
    _OWNED.pop(estimator, None)


def owned(estimator):
    """The record of ``estimator``'s statistics if they are its own and nothing recorded
    has changed since; None otherwise (or if it was fitted on a DataFrame, whose columns
    the full path checks)."""
    fitted = vars(estimator)
    record = _OWNED.get(estimator)
    if record is None or "feature_names_in_" in fitted or not record.holds(fitted):
        return None
    return record


def check_rows(estimator, X, gaussian):
    """``(X, clean, checked)``: X as float64 rows of the fitted width (a dense array or
    CSR), whether it holds no NaN, and whether it certainly passes a ``gaussian`` model's
    ``prepare``; or None.

    The rows are those a fitted estimator's prediction checks in proportion to their
    size (:func:`mlnb.base.validation.fitted_rows`: type, width, at most
    :data:`MAX_ROWS`); infinity, and NaN unless ``missing="ignore"``, take the full
    path. ``checked`` is
    found for dense rows (and one CSR row) in a few operations instead of the dozen of
    :func:`mlnb.events.gaussian.check_range`, the same conditions on finite rows: no
    magnitude above ``MAX_ABS_VALUE`` (which also excludes NaN and infinity), and no
    feature whose largest magnitude is between 0 and ``MIN_FEATURE_SCALE``.
    """
    X = fitted_rows(estimator, X)
    if X is None:
        return None
    dense = type(X) is np.ndarray
    n_rows = X.shape[0]
    # one CSR row whose entries are of distinct features: each entry is its feature's
    one_sparse_row = not dense and n_rows == 1 and bool(np.all(np.diff(X.indices) > 0))
    if gaussian and (dense or one_sparse_row):
        magnitude = np.abs(X if dense else X.data)
        if magnitude.max(initial=0.0) <= MAX_ABS_VALUE:  # false for NaN
            largest = magnitude if n_rows == 1 or not dense else magnitude.max(axis=0)
            checked = largest.min(initial=np.inf) >= MIN_FEATURE_SCALE or not np.any(
                (largest > 0) & (largest < MIN_FEATURE_SCALE)
            )
            return X, True, checked
    values = X if dense else X.data
    if math.isfinite(values.sum()):
        return X, True, False
    if estimator.missing != "ignore" or not np.isfinite(values[~np.isnan(values)]).all():
        return None  # infinity, or NaN refused: the full path says so
    return X, False, False


def _known_classes(classes, record):
    """Whether ``classes`` (None, or an array or list) are the fitted classes, in order."""
    if classes is None or classes is record.classes:
        return True
    if not isinstance(classes, (np.ndarray, list, tuple)):
        return False
    classes = np.asarray(classes)
    if classes.ndim != 1 or classes.dtype.kind not in "iubfU":
        return False  # the full path checks them
    return classes.tolist() == record.class_list  # 1 == 1.0 == True, as numpy compares


def _class_indices(record, y, n_rows):
    """The index of each class of ``y`` (numbers or strings), a list; or None."""
    if not isinstance(y, (np.ndarray, list, tuple)):
        return None
    y = np.asarray(y)
    if y.shape != (n_rows,) or y.dtype.kind not in "iubfU":
        return None
    index = [record.index.get(value) for value in y.tolist()]
    return None if None in index else index


def check_weights(sample_weight, n_rows):
    """Valid row weights (finite, non-negative, not all zero), :data:`UNIT` if none are
    given, or None."""
    if sample_weight is None:
        return UNIT
    if not isinstance(sample_weight, (np.ndarray, list, tuple)):
        return None
    weights = np.asarray(sample_weight)
    if weights.shape != (n_rows,) or weights.dtype.kind not in "iuf":
        return None
    weights = weights.astype(np.float64)
    if not (np.isfinite(weights).all() and (weights >= 0).all() and weights.any()):
        return None
    return weights


def add_rows(estimator, X, y, classes, sample_weight):
    """Add the rows to a fitted single-label classifier by the fast path; whether it did.

    False means that nothing was done: the caller takes the full path. An error is raised
    only by the event model's ``prepare``, the full path's own check, before any change.
    """
    record = owned(estimator)
    if record is None or not _known_classes(classes, record):
        return False  # statistics not made here, or a DataFrame's columns to check
    rows = check_rows(estimator, X, record.gaussian)
    if rows is None:
        return False
    X, clean, checked = rows
    index = _class_indices(record, y, X.shape[0])
    weights = check_weights(sample_weight, X.shape[0])
    if index is None or weights is None:
        return False
    estimator._check_hyper_parameters()
    if not checked:
        X = estimator._bound_events().prepare(X, caller=type(estimator).__name__)
    fitted = vars(estimator)
    if "params_" in fitted:
        for name in estimator._DERIVED:
            fitted.pop(name, None)  # re-estimated when next used
    stats = estimator.stats_
    one_row = clean and type(X) is np.ndarray and X.shape == (1, stats.n_features)
    if one_row and not stats.has_missing:
        weight = 1.0 if weights is UNIT else float(weights[0])
        stats._add_one(index[0], X[0], weight)  # the common case, directly
    else:
        weights = np.ones(len(index)) if weights is UNIT else weights
        stats.add_rows(np.asarray(index), X, weights)
    return True
