"""Multi-label metrics: example-based and label-based (macro and micro) criteria.

Definitions follow Tsoumakas et al., "Mining multi-label data" (2010) and Luaces et al.
(2012), the criteria of the dynamic-chains paper (Trajdos and Kurzynski, "Dynamic
classifier chains for multi-label learning").  For an instance (row) or a label (column)
with ``tp`` true positives, ``n_true`` true and ``n_pred`` predicted labels: precision
``tp / n_pred``, recall ``tp / n_true``, F1 ``2 tp / (n_true + n_pred)``, Jaccard
``tp / (n_true + n_pred - tp)``.  A zero denominator follows the one convention of
:mod:`mlnb.metrics`: 1 when the true and the predicted sets are both empty, else 0.

``average`` selects the group: ``"samples"`` (example-based: mean over instances),
``"macro"`` (mean over labels), ``"micro"`` (ratio of the counts summed over all cells)
or ``None`` (the per-label values, an array of length L).

*Unknown cells.* A true label matrix may hold unknown cells (NaN, or masked; what
binary relevance learns around): every criterion here skips them, counting each row and
label over its known cells only (an instance or label with no known cell is then an empty
truth against an empty prediction).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ._counts import check_indicators, counts, safe_ratio, unknown_cells
from ._registry import one_minus, register_metric

__all__ = [
    "fdr",
    "f1_score",
    "fnr",
    "hamming_loss",
    "jaccard_score",
    "precision_score",
    "recall_score",
    "subset_accuracy",
    "zero_one_loss",
]

_AVERAGES = ("samples", "macro", "micro", None)
_AXIS = {"samples": 1, "macro": 0, "micro": None, None: 0}


def _averaged(ratio, Y_true, Y_pred, average):
    """Apply ``ratio(tp, n_true, n_pred)`` per unit of ``average`` and average it."""
    if average not in _AVERAGES:
        raise ValueError(f"average must be one of {_AVERAGES}, got {average!r}.")
    Y_true, Y_pred = check_indicators(Y_true, Y_pred)
    values = ratio(*counts(Y_true, Y_pred, _AXIS[average]))
    if average is None:
        return values
    return float(np.mean(values))


def _precision(tp, n_true, n_pred):
    return safe_ratio(tp, n_pred, n_true, n_pred)


def _recall(tp, n_true, n_pred):
    return safe_ratio(tp, n_true, n_true, n_pred)


def _f1(tp, n_true, n_pred):
    return safe_ratio(2 * tp, n_true + n_pred, n_true, n_pred)


def _jaccard(tp, n_true, n_pred):
    return safe_ratio(tp, n_true + n_pred - tp, n_true, n_pred)


def hamming_loss(Y_true, Y_pred):
    """Hamming loss: the fraction of wrong instance-label cells (lower is better).

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrices (any integer or boolean dtype, dense or sparse).

    Returns
    -------
    float
        ``(FP + FN) / (n L)``, over the known cells when ``Y_true`` has unknown ones (NaN
        or masked: skipped, as by every set-based criterion); 0 if none is known.
    """
    unknown = unknown_cells(Y_true)
    Y_true, Y_pred = check_indicators(Y_true, Y_pred)
    tp, n_true, n_pred = counts(Y_true, Y_pred, None)
    n, n_labels = Y_true.shape
    known = n * n_labels - (0 if unknown is None else int(unknown.sum()))
    return float((n_true + n_pred - 2 * tp) / known) if known else 0.0


def zero_one_loss(Y_true, Y_pred, *, sample_weight=None):
    """Zero-one (subset) loss: the fraction of instances whose label set is not exactly right.

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrices.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights.

    Returns
    -------
    float
        Lower is better; an instance with both sets empty is right.
    """
    Y_true, Y_pred = check_indicators(Y_true, Y_pred)
    tp, n_true, n_pred = counts(Y_true, Y_pred, 1)
    return float(np.average((n_true + n_pred - 2 * tp) > 0, weights=sample_weight))


def subset_accuracy(Y_true, Y_pred, *, sample_weight=None):
    """Subset accuracy (exact match ratio), ``1 - zero_one_loss``.

    An instance with both sets empty is an exact match.

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrices.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights.

    Returns
    -------
    float
    """
    return 1.0 - zero_one_loss(Y_true, Y_pred, sample_weight=sample_weight)


def jaccard_score(Y_true, Y_pred, *, average="samples"):
    """Jaccard index ``|T & P| / |T | P|``; with ``average="samples"`` the multi-label *accuracy*.

    Both sets empty scores 1 (the package's 0/0 convention); the union is empty only then.

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrices.
    average : {"samples", "macro", "micro", None}, default="samples"
        Example-based, label-based macro or micro average, or per-label values.

    Returns
    -------
    float or ndarray of shape (n_labels,)
    """
    return _averaged(_jaccard, Y_true, Y_pred, average)


def precision_score(Y_true, Y_pred, *, average="samples"):
    """Precision ``tp / n_pred`` (higher is better).

    Zero predicted labels: 1 if the true set is empty too, else 0.

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrices.
    average : {"samples", "macro", "micro", None}, default="samples"
        Example-based, label-based macro or micro average, or per-label values.

    Returns
    -------
    float or ndarray of shape (n_labels,)
    """
    return _averaged(_precision, Y_true, Y_pred, average)


def recall_score(Y_true, Y_pred, *, average="samples"):
    """Recall ``tp / n_true`` (higher is better).

    Zero true labels: 1 if the predicted set is empty too, else 0.

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrices.
    average : {"samples", "macro", "micro", None}, default="samples"
        Example-based, label-based macro or micro average, or per-label values.

    Returns
    -------
    float or ndarray of shape (n_labels,)
    """
    return _averaged(_recall, Y_true, Y_pred, average)


def f1_score(Y_true, Y_pred, *, average="samples"):
    """F1 ``2 tp / (n_true + n_pred)`` (higher is better).

    The denominator is zero only when both sets are empty, which scores 1.

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrices.
    average : {"samples", "macro", "micro", None}, default="samples"
        Example-based, label-based macro or micro average, or per-label values.

    Returns
    -------
    float or ndarray of shape (n_labels,)
    """
    return _averaged(_f1, Y_true, Y_pred, average)


def fdr(Y_true, Y_pred, *, average="samples"):
    """False discovery rate, ``1 - precision`` (a loss; same 0/0 convention as precision).

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrices.
    average : {"samples", "macro", "micro", None}, default="samples"
        Example-based, label-based macro or micro average, or per-label values.

    Returns
    -------
    float or ndarray of shape (n_labels,)
    """
    return 1.0 - precision_score(Y_true, Y_pred, average=average)


def fnr(Y_true, Y_pred, *, average="samples"):
    """False negative rate, ``1 - recall`` (a loss; same 0/0 convention as recall).

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrices.
    average : {"samples", "macro", "micro", None}, default="samples"
        Example-based, label-based macro or micro average, or per-label values.

    Returns
    -------
    float or ndarray of shape (n_labels,)
    """
    return 1.0 - recall_score(Y_true, Y_pred, average=average)


# ---- the criteria this module registers in mlnb.metrics.METRICS ---------------------------------
def _criteria():
    """The multi-label criteria of 0/1 predictions: (name, function, greater is better, label)."""
    specs = [
        ("hamming", hamming_loss, False, "Hamming"),
        ("zero_one", zero_one_loss, False, "Zero-One"),
    ]
    groups = (
        ("samples", "example", "EX"),
        ("macro", "macro", "Macro"),
        ("micro", "micro", "Micro"),
    )
    for avg, prefix, tag in groups:
        specs += [
            (f"{prefix}_fdr", partial(fdr, average=avg), False, f"{tag} FDR"),
            (f"{prefix}_fnr", partial(fnr, average=avg), False, f"{tag} FNR"),
            (
                f"{prefix}_f1_loss",
                partial(one_minus, f1_score, average=avg),
                False,
                f"{tag} F1 loss",
            ),
            (
                f"{prefix}_precision",
                partial(precision_score, average=avg),
                True,
                f"{tag} precision",
            ),
            (f"{prefix}_recall", partial(recall_score, average=avg), True, f"{tag} recall"),
            (f"{prefix}_f1", partial(f1_score, average=avg), True, f"{tag} F1"),
        ]
    specs += [
        ("accuracy", jaccard_score, True, "Accuracy"),
        ("subset_accuracy", subset_accuracy, True, "Subset accuracy"),
    ]
    return specs


for _name, _function, _greater, _label in _criteria():
    register_metric(_name, _function, greater_is_better=_greater, task="multilabel", label=_label)
