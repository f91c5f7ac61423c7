"""Single-label (multi-class) per-class and averaged precision, recall and F1.

A single-label target is a one-hot indicator matrix, so these are the label-based
criteria of :mod:`mlnb.metrics` (:func:`~mlnb.metrics.precision_score`,
:func:`~mlnb.metrics.recall_score`, :func:`~mlnb.metrics.f1_score`) applied to the
one-hot encodings of ``y_true`` and ``y_pred`` (Xu 2018, "Bayesian Naive Bayes
classifiers to text classification", section 5, reports their macro averages over
categories).
A class that is neither true nor predicted for any instance (possible only with an
explicit ``labels``) scores 1; a class never predicted but present has precision 0, one
predicted but never present has recall 0: the 0/0 convention of :mod:`mlnb.metrics`.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import scipy.sparse as sp

from ._multilabel import f1_score, precision_score, recall_score
from ._registry import one_minus, register_metric

__all__ = [
    "single_label_accuracy",
    "single_label_f1",
    "single_label_precision",
    "single_label_recall",
]

_AVERAGES = ("macro", "micro", None)


def _check_targets(y_true, y_pred):
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    for name, y in (("y_true", y_true), ("y_pred", y_pred)):
        if y.ndim != 1:
            raise ValueError(
                f"{name} must be a 1-D array of class labels, got shape {y.shape}; "
                "for multi-label indicator matrices use the multi-label metrics."
            )
    if y_true.shape != y_pred.shape:
        raise ValueError(
            f"y_true and y_pred must have the same length, got {y_true.size} and {y_pred.size}."
        )
    if y_true.size == 0:
        raise ValueError("y_true and y_pred must be non-empty.")
    return y_true, y_pred


def _one_hot(y, labels):
    """One-hot CSR of ``y`` over ``labels``; values outside ``labels`` give an empty row."""
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    pos = np.clip(np.searchsorted(sorted_labels, y), 0, labels.size - 1)
    found = sorted_labels[pos] == y
    rows = np.flatnonzero(found)
    cols = order[pos[found]]
    data = np.ones(rows.size, dtype=bool)
    return sp.csr_array((data, (rows, cols)), shape=(y.size, labels.size))


def _encode(y_true, y_pred, labels):
    y_true, y_pred = _check_targets(y_true, y_pred)
    if labels is None:
        labels = np.union1d(y_true, y_pred)
    else:
        labels = np.asarray(labels)
        if labels.ndim != 1 or labels.size == 0 or np.unique(labels).size != labels.size:
            raise ValueError("labels must be a non-empty 1-D sequence of distinct class labels.")
    return _one_hot(y_true, labels), _one_hot(y_pred, labels)


def _scored(metric, y_true, y_pred, labels, average):
    if average not in _AVERAGES:
        raise ValueError(f"average must be one of {_AVERAGES}, got {average!r}.")
    T, P = _encode(y_true, y_pred, labels)
    return metric(T, P, average=average)


def single_label_accuracy(y_true, y_pred):
    """Fraction of instances whose predicted class is the true class (never 0/0).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Class labels.

    Returns
    -------
    float
    """
    y_true, y_pred = _check_targets(y_true, y_pred)
    return float(np.mean(y_true == y_pred))


def single_label_precision(y_true, y_pred, *, labels=None, average="macro"):
    """Per-class precision ``tp_c / predicted_c``, or its macro or micro average.

    A class never predicted scores 1 if it is never true either, else 0.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Class labels.
    labels : array-like, default=None
        Classes to score, in output order; default: sorted union of both arrays.
    average : {"macro", "micro", None}, default="macro"
        ``None`` returns one value per class of ``labels``.

    Returns
    -------
    float or ndarray of shape (n_classes,)
    """
    return _scored(precision_score, y_true, y_pred, labels, average)


def single_label_recall(y_true, y_pred, *, labels=None, average="macro"):
    """Per-class recall ``tp_c / true_c``, or its macro or micro average.

    A class never true scores 1 if it is never predicted either, else 0.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Class labels.
    labels : array-like, default=None
        Classes to score, in output order; default: sorted union of both arrays.
    average : {"macro", "micro", None}, default="macro"
        ``None`` returns one value per class of ``labels``.

    Returns
    -------
    float or ndarray of shape (n_classes,)
    """
    return _scored(recall_score, y_true, y_pred, labels, average)


def single_label_f1(y_true, y_pred, *, labels=None, average="macro"):
    """Per-class F1 ``2 tp_c / (true_c + predicted_c)``, or its macro or micro average.

    A class neither true nor predicted (only with explicit ``labels``) scores 1.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Class labels.
    labels : array-like, default=None
        Classes to score, in output order; default: sorted union of both arrays.
    average : {"macro", "micro", None}, default="macro"
        ``None`` returns one value per class of ``labels``.

    Returns
    -------
    float or ndarray of shape (n_classes,)
    """
    return _scored(f1_score, y_true, y_pred, labels, average)


# ---- the criteria this module registers in mlnb.metrics.METRICS ---------------------------------
def _criteria():
    """The single-label criteria: (name, function, greater is better, label)."""
    return [
        ("sl_accuracy", single_label_accuracy, True, "Accuracy"),
        ("sl_error", partial(one_minus, single_label_accuracy), False, "Error"),
        ("sl_macro_precision", single_label_precision, True, "Macro precision"),
        ("sl_macro_recall", single_label_recall, True, "Macro recall"),
        ("sl_macro_f1", single_label_f1, True, "Macro F1"),
        ("sl_macro_f1_loss", partial(one_minus, single_label_f1), False, "Macro F1 loss"),
        # for one class per row the micro averages equal accuracy; users look for them
        (
            "sl_micro_precision",
            partial(single_label_precision, average="micro"),
            True,
            "Micro precision",
        ),
        ("sl_micro_recall", partial(single_label_recall, average="micro"), True, "Micro recall"),
        ("sl_micro_f1", partial(single_label_f1, average="micro"), True, "Micro F1"),
    ]


for _name, _function, _greater, _label in _criteria():
    register_metric(_name, _function, greater_is_better=_greater, task="single_label", label=_label)
