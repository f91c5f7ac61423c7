"""Checks and small utilities for label-indicator matrices and label orders."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

__all__ = ["binary_classes", "check_label_matrix", "extended_order", "resolve_order"]


def binary_classes(n_labels):
    """``classes_`` of a multi-label estimator: the values 0 and 1 of every label."""
    return [np.array([0, 1]) for _ in range(n_labels)]


def check_label_matrix(Y, n_samples=None, *, n_labels=None, sparse=False):
    """An n x L 0/1 indicator matrix as float64: a dense array, or CSR with ``sparse=True``.

    Any integer, boolean or float dtype, dense or sparse, is accepted and gives the same
    result (the values are checked, never cast modulo 256).
    """
    if Y is None:
        raise ValueError("this estimator requires y to be passed, but the target y is None")
    Y = sp.csr_matrix(Y) if sp.issparse(Y) else np.asarray(Y)
    if Y.ndim != 2:
        raise ValueError(
            f"Y must be a 2-D label-indicator matrix (n_samples x n_labels); got shape {Y.shape}"
        )
    if Y.dtype == object and any(value is None for value in Y.ravel()):
        raise ValueError("y (the label matrix Y) holds None: every entry must be 0 or 1")
    if Y.dtype.kind not in "biuf":
        raise ValueError(f"Y must hold 0/1 numbers; got dtype {Y.dtype}")
    values = Y.data if sp.issparse(Y) else Y
    if values.size and (values.min() < 0 or values.max() > 1 or Y.dtype.kind == "f"):
        bad = (values != 0) & (values != 1)
        if np.any(bad):
            raise ValueError(f"Y must hold only 0 and 1; found {values[bad].flat[0]!r}")
    if n_samples is not None and Y.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} rows but Y has {Y.shape[0]}")
    if n_labels is not None and Y.shape[1] != n_labels:
        raise ValueError(f"Y has {Y.shape[1]} labels; this model was fitted with {n_labels}")
    if Y.shape[1] == 0:
        raise ValueError("Y has no label columns")
    if sparse:
        return sp.csr_matrix(Y, dtype=np.float64)
    return Y.toarray().astype(np.float64) if sp.issparse(Y) else Y.astype(np.float64)


def resolve_order(order, n_labels, random_state=None) -> np.ndarray:
    """A label order: None (0..L-1), "random", or an explicit permutation of 0..L-1."""
    if order is None:
        return np.arange(n_labels)
    if isinstance(order, str):
        if order != "random":
            raise ValueError(f'order must be None, "random" or a permutation; got {order!r}')
        return check_random_state(random_state).permutation(n_labels)
    order = np.asarray(order)
    if order.shape != (n_labels,) or not np.array_equal(np.sort(order), np.arange(n_labels)):
        raise ValueError(f"order must be a permutation of 0..{n_labels - 1}; got {order!r}")
    return order.astype(np.intp)


def extended_order(order, n_labels) -> np.ndarray:
    """``order`` with the labels ``len(order) .. n_labels - 1`` appended: where the labels
    a stream brings later go in a chain (after every known one, in column order)."""
    order = np.asarray(order)
    return np.concatenate([order, np.arange(len(order), n_labels, dtype=order.dtype)])
