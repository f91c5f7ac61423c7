"""Checks and small utilities for label-indicator matrices and label orders."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["binary_classes", "extended_order", "resolve_order"]


def binary_classes(n_labels):
    """``classes_`` of a multi-label estimator: the values 0 and 1 of every label."""
    return [np.array([0, 1]) for _ in range(n_labels)]


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
