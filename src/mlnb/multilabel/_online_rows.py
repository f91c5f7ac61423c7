"""The fast path of a multi-label Naive Bayes' ``partial_fit`` on a few rows.

The multi-label form of :mod:`mlnb._online_rows` (which holds the checks it shares): a
call of up to :data:`~mlnb._online_rows.MAX_ROWS` rows of a fitted model (a numpy array
or CSR matrix, with a 0/1 label matrix of the fitted labels) is checked in proportion to
its size and added to the statistics in place, a row to every group it belongs to (each
label it holds, its label-set size) and to the totals; the parameters derived from the
statistics are dropped and derived again when next used.

An estimator takes part by declaring, next to the ``_install`` that derives its
parameters:

- ``_ONLINE_STATISTICS``: ``(attribute, rows, groups)`` of each statistics the rows add
  to, ``rows`` ``"X"`` (the prepared features) or ``"Y"`` (the labels) and ``groups``
  ``"labels"`` (the labels the row holds) or ``"sizes"`` (its number of labels);
- ``_DERIVED``: the attributes derived from them, dropped here (and :data:`DROPPED` set,
  which travels with the other attributes, e.g. to the estimator a stream was fitted
  for); the estimator derives them again when they are read (``MultiLabelNB.__getattr__``)
  and before it is saved or copied (its ``_refresh_fitted``, which removes the mark).

A class whose ``_install`` derives more than the ``_DERIVED`` declared with or below it
(a subclass of a declaring class that overrides ``_install``) always takes the full path.

Rows the fast path is not sure of (another type or shape, NaN, labels not 0/1 or new
labels, a label-set size never seen, a bad weight, changed hyper-parameters, statistics
not its own or not held as dense arrays) take the full path, which raises its own errors;
the one check it runs itself is the event model's ``prepare`` (the full path's), before
anything changes.
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.sparse as sp

from .. import _online_rows as online

__all__ = ["DROPPED", "add_rows", "own"]

#: The attribute that marks an estimator whose derived attributes were dropped.
DROPPED = "_derived_dropped"

#: A sparse row with second moments is made dense up to this many features (4 MB).
_DENSE_ENTRIES = 1 << 19


@functools.cache
def _takes_part(cls):
    """Whether ``cls`` declares what its ``_install`` derives (see the module docstring)."""

    def owner(name):
        return next((c for c in cls.__mro__ if name in vars(c)), None)

    declared = owner("_DERIVED")
    return (
        owner("_ONLINE_STATISTICS") is not None
        and declared is not None
        and issubclass(declared, owner("_install"))
    )


def own(estimator):
    """Record that ``estimator``'s statistics are its own (call it after a full
    ``partial_fit``); nothing for a class that does not take part."""
    vars(estimator).pop(DROPPED, None)  # the full path derived everything
    if _takes_part(type(estimator)):
        names = [name for name, _, _ in type(estimator)._ONLINE_STATISTICS]
        online.own(estimator, online.Record(estimator, names))


def add_rows(estimator, X, Y, sample_weight):
    """Add the rows to a fitted multi-label Naive Bayes by the fast path; whether it did.

    False means that nothing was done: the caller takes the full path. An error is raised
    only by the event model's ``prepare``, the full path's own check, before any change.
    """
    record = online.owned(estimator)
    if record is None or getattr(estimator, "unknown_stats_", None) is not None:
        return False  # (unknown label cells learnt: the full path keeps every part's totals)
    rows = online.check_rows(estimator, X, record.gaussian)
    if rows is None or not rows[1]:
        return False  # missing entries: the full path
    X, _, checked = rows
    n_rows = X.shape[0]
    labels = _label_rows(Y, n_rows, estimator.n_labels_)
    weights = online.check_weights(sample_weight, n_rows)
    if labels is None or weights is None:
        return False
    targets = _targets(estimator, labels)
    if targets is None:
        return False
    if not checked:
        X = estimator._bound_events().prepare(X, caller=type(estimator).__name__)
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        if n_rows == 1 and any(rows == "X" and stats.second_moments for stats, rows, _ in targets):
            if X.shape[1] > _DENSE_ENTRIES:
                return False  # too wide to make dense: the full path
            X = X.toarray()  # Welford's update moves every feature's mean
    if any(rows == "X" and stats.n_features != X.shape[1] for stats, rows, _ in targets):
        return False  # not the width the statistics were made of: the full path says why
    weights = np.ones(n_rows) if weights is online.UNIT else weights
    fitted = vars(estimator)
    for name in type(estimator)._DERIVED:
        fitted.pop(name, None)  # derived again when next read
    fitted[DROPPED] = True
    for stats, rows, groups in targets:
        stats.add_grouped(X if rows == "X" else labels, groups, weights)
    return True


def _label_rows(Y, n_rows, n_labels):
    """The rows' labels as a dense float64 0/1 array of the fitted labels, or None."""
    if sp.issparse(Y):
        if Y.shape != (n_rows, n_labels):
            return None
        Y = Y.toarray()
    elif type(Y) is not np.ndarray:
        return None  # lists and frames: the full path checks them
    if Y.shape != (n_rows, n_labels) or Y.dtype.kind not in "biuf":
        return None
    labels = Y.astype(np.float64)
    if not ((labels == 0) | (labels == 1)).all():
        return None
    return labels


def _targets(estimator, labels):
    """``[(statistics, rows, grouping matrix)]`` that the rows add to; None if one of
    them is not held as dense arrays (compact sums, missing entries) or a row's number of
    labels has no group yet."""
    fitted = vars(estimator)
    sizes = None
    targets = []
    for name, rows, groups in type(estimator)._ONLINE_STATISTICS:
        stats = fitted.get(name)
        if stats is None:
            continue  # not kept (binary relevance's label pairs, NaiBX's sizes at fixed_size)
        if type(stats.sums) is not np.ndarray or stats.has_missing:
            return None
        if groups == "sizes":
            if sizes is None:
                sizes = labels.sum(axis=1).astype(np.intp)
            if sizes.max() >= stats.n_groups:
                return None  # a new size: the full path adds its group
            grouping = np.zeros((len(sizes), stats.n_groups))
            grouping[np.arange(len(sizes)), sizes] = 1.0
        else:
            grouping = labels
        targets.append((stats, rows, grouping))
    return targets
