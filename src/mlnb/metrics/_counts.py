"""Input validation and the counts every set-based metric is made of.

Each metric here is a function of three count vectors, per instance (axis=1) or per
label (axis=0): ``tp`` (true and predicted), ``n_true`` (true) and ``n_pred``
(predicted).  They are computed once, vectorised, and sparse inputs stay sparse.

:func:`set_score` and :func:`exact_match` are the fast scores of a decision-rule search,
which scores many candidate predictions of one label matrix: scikit-learn's F1, Jaccard,
precision and recall (``zero_division=0``) and subset accuracy, from the counts of one
pass over dense 0/1 matrices, without the 0/1 checks (they are registered in
:data:`~mlnb.metrics.METRICS` as ``"f1_micro"``, ``"jaccard_samples"``, ...).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import scipy.sparse as sp

from ._registry import register_metric

__all__ = [
    "check_indicators",
    "counts",
    "exact_match",
    "safe_ratio",
    "set_score",
    "unknown_cells",
]

SET_KINDS = ("f1", "jaccard", "precision", "recall")
SET_AVERAGES = ("micro", "macro", "samples", "weighted")


def _as_indicator(Y, name):
    """Return ``Y`` as a boolean ndarray or boolean CSR array, checking it is 0/1 and 2-D."""
    if sp.issparse(Y):
        Y = sp.csr_array(Y)
        if Y.ndim != 2:
            raise ValueError(f"{name} must be a 2-D n x L indicator matrix, got ndim={Y.ndim}.")
        Y.sum_duplicates()
        data = Y.data
        if data.dtype != bool and not np.all((data == 0) | (data == 1)):
            raise ValueError(f"{name} must contain only 0 and 1 (an indicator matrix).")
        Y = Y.astype(bool)
        Y.eliminate_zeros()
        return Y
    Y = np.asarray(Y)
    if Y.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D n x L indicator matrix, got an array of shape {Y.shape}; "
            "for single-label targets use the single_label_* functions."
        )
    if Y.dtype == bool:
        return Y
    if Y.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be numeric or boolean, got dtype {Y.dtype}.")
    if not np.all((Y == 0) | (Y == 1)):
        raise ValueError(f"{name} must contain only 0 and 1 (an indicator matrix).")
    return Y.astype(bool)


def check_indicators(Y_true, Y_pred):
    """Validate two n x L indicator matrices of any integer, boolean or sparse type.

    Returns both as boolean ndarrays, or both as boolean CSR arrays when either input is
    sparse (the dense one is converted; sparse is never densified). Unknown cells of
    ``Y_true`` (NaN, stored NaN of a sparse matrix, masked cells) are skipped: they are
    made false in both, so that no count (true or false positive, false negative) holds
    them; see :func:`unknown_cells`.
    """
    unknown = unknown_cells(Y_true)
    if unknown is not None:
        Y_true = _known_part(Y_true)
    Y_true = _as_indicator(Y_true, "Y_true")
    Y_pred = _as_indicator(Y_pred, "Y_pred")
    if Y_true.shape != Y_pred.shape:
        raise ValueError(
            f"Y_true and Y_pred must have the same shape, got {Y_true.shape} and {Y_pred.shape}."
        )
    if Y_true.shape[0] == 0 or Y_true.shape[1] == 0:
        raise ValueError(f"Y_true and Y_pred must be non-empty, got shape {Y_true.shape}.")
    if sp.issparse(Y_true) != sp.issparse(Y_pred):
        Y_true, Y_pred = sp.csr_array(Y_true), sp.csr_array(Y_pred)
    if unknown is not None:
        if sp.issparse(Y_pred):
            dropped = Y_pred.astype(np.int8) - Y_pred.multiply(sp.csr_array(unknown))
            Y_pred = sp.csr_array(dropped.astype(bool))
            Y_pred.eliminate_zeros()
        else:
            Y_pred = Y_pred & ~np.asarray(unknown.toarray() if sp.issparse(unknown) else unknown)
    return Y_true, Y_pred


def unknown_cells(Y_true):
    """The unknown cells of a true label matrix, or None if every cell is known.

    NaN in a float array, NaN stored in a sparse matrix, or the masked cells of a numpy
    masked array (the forms the estimators that learn from known cells take). Returns a
    boolean ndarray (dense input) or a boolean CSR array (sparse input).
    """
    if isinstance(Y_true, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(Y_true)
        data = np.ma.getdata(Y_true)
        if data.dtype.kind == "f":
            mask = mask | np.isnan(data)
        return mask if mask.any() else None
    if sp.issparse(Y_true):
        Y_true = sp.csr_array(Y_true)
        if Y_true.dtype.kind != "f" or not np.isnan(Y_true.data).any():
            return None
        mask = Y_true.copy()
        mask.data = np.isnan(mask.data)
        mask.eliminate_zeros()
        return mask.astype(bool)
    Y_true = np.asarray(Y_true)
    if Y_true.dtype.kind != "f":
        return None
    mask = np.isnan(Y_true)
    return mask if mask.any() else None


def _known_part(Y_true):
    """Y_true with its unknown cells 0."""
    if isinstance(Y_true, np.ma.MaskedArray):
        return np.nan_to_num(np.ma.filled(Y_true.astype(np.float64), 0.0), nan=0.0)
    if sp.issparse(Y_true):
        Y_true = sp.csr_array(Y_true, copy=True)
        Y_true.data = np.nan_to_num(Y_true.data, nan=0.0)
        Y_true.eliminate_zeros()
        return Y_true
    return np.nan_to_num(np.asarray(Y_true), nan=0.0)


def counts(Y_true, Y_pred, axis):
    """Return ``(tp, n_true, n_pred)`` summed along ``axis`` of validated indicators.

    ``axis=1`` gives one entry per instance (example-based), ``axis=0`` one per label
    (label-based) and ``axis=None`` the grand totals (micro-averaging).
    """
    if sp.issparse(Y_true):
        both = Y_true.multiply(Y_pred)

        def total(A):
            return np.asarray(A.sum(axis=axis), dtype=np.int64)

    else:
        both = Y_true & Y_pred

        def total(A):
            return np.asarray(np.count_nonzero(A, axis=axis), dtype=np.int64)

    return total(both), total(Y_true), total(Y_pred)


def safe_ratio(numerator, denominator, n_true, n_pred):
    """``numerator / denominator`` under the package's 0/0 convention.

    Where the denominator is zero the value is 1 if the true and the predicted sets are
    both empty (``n_true == n_pred == 0``: perfectly right) and 0 otherwise.
    """
    numerator = np.asarray(numerator, dtype=float)
    denominator = np.asarray(denominator, dtype=float)
    both_empty = (np.asarray(n_true) == 0) & (np.asarray(n_pred) == 0)
    out = np.where(both_empty, 1.0, 0.0)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _dense_pair(Y_true, Y_pred):
    """Both matrices as ndarrays (sparse ones densified), of the same shape."""
    Y_true = Y_true.toarray() if sp.issparse(Y_true) else np.asarray(Y_true)
    Y_pred = Y_pred.toarray() if sp.issparse(Y_pred) else np.asarray(Y_pred)
    if Y_true.shape != Y_pred.shape:
        raise ValueError(
            f"Y_true and Y_pred must have the same shape, got {Y_true.shape} and {Y_pred.shape}."
        )
    return Y_true, Y_pred


def set_score(kind, average, Y_true, Y_pred):
    """scikit-learn's F1, Jaccard, precision or recall of 0/1 matrices (``zero_division=0``).

    From the true positives, false positives and false negatives of one pass (nonzero
    entries are positive): a decision-rule search scores many predictions, and
    scikit-learn's label checks took half of a bibtex search (0.5 of 1.07 s).

    Parameters
    ----------
    kind : {"f1", "jaccard", "precision", "recall"}
        The score.
    average : {"micro", "macro", "samples", "weighted"}
        scikit-learn's averages ("weighted": by each label's true count).
    Y_true, Y_pred : array-like or sparse matrix of shape (n_samples, n_labels)
        0/1 label matrices (sparse ones are densified).

    Returns
    -------
    float
    """
    Y_true, Y_pred = _dense_pair(Y_true, Y_pred)
    axis = {"micro": None, "samples": 1}.get(average, 0)
    tp, n_true, n_pred = (
        np.asarray(c, dtype=np.float64) for c in counts(Y_true != 0, Y_pred != 0, axis)
    )
    fp, fn = n_pred - tp, n_true - tp
    numerator, denominator = {
        "f1": (2 * tp, 2 * tp + fp + fn),
        "jaccard": (tp, tp + fp + fn),
        "precision": (tp, tp + fp),
        "recall": (tp, tp + fn),
    }[kind]
    value = np.divide(numerator, denominator, out=np.zeros_like(tp), where=denominator > 0)
    if average == "weighted":
        support = tp + fn
        return float((value * support).sum() / support.sum()) if support.sum() else 0.0
    return float(np.mean(value))


def exact_match(Y_true, Y_pred):
    """Subset accuracy of label matrices, without checks: the share of rows predicted exactly.

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n_samples, n_labels)
        Label matrices (sparse ones are densified).

    Returns
    -------
    float
    """
    Y_true, Y_pred = _dense_pair(Y_true, Y_pred)
    return float(np.mean(np.all(Y_true == Y_pred, axis=1)))


# ---- the criteria this module registers in mlnb.metrics.METRICS ---------------------------------
def _criteria():
    """The fast scores of a decision-rule search: (name, function, greater is better, label)."""
    shown = {"f1": "F1", "jaccard": "Jaccard", "precision": "Precision", "recall": "Recall"}
    specs = [
        (f"{kind}_{avg}", partial(set_score, kind, avg), True, f"{shown[kind]} {avg} (sklearn)")
        for kind in SET_KINDS
        for avg in SET_AVERAGES
    ]
    return [*specs, ("exact_match", exact_match, True, "Exact match")]


for _name, _function, _greater, _label in _criteria():
    register_metric(_name, _function, greater_is_better=_greater, task="multilabel", label=_label)
