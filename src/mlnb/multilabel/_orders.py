"""Per-instance label orders by local F1 and their width beta (Trajdos and Kurzynski).

The order of an instance x puts first the labels that binary relevance predicts best near
x (section 2.4): on a validation part V of the training set, with the fuzzy neighbourhood
``mu(x, v) = exp(-beta ||x - v||^2)`` (eq. 13),

    TP_l(x) = sum_v mu [y_vl = 1, h_BR(v)_l = 1],  FP_l, FN_l likewise   (eqs. 17-19)
    F_l(x) = 2 TP / (2 TP + FP + FN)                                     (eq. 20)

and labels in decreasing F_l(x) (eq. 21; ties keep the label index order, and a label with
no evidence near x, 0/0, scores 0). Used by :class:`~mlnb.multilabel.DynamicChain`,
:class:`~mlnb.multilabel.KNNChain` and :class:`~mlnb.multilabel.DynamicChainEnsemble`;
beta is chosen in :data:`BETAS` by :func:`search_beta` unless given.
"""

from __future__ import annotations

import numpy as np

from ._labels import resolve_order
from ._neighbourhood import choose_by_folds, fill_missing, squared_distances, squared_norms

__all__ = ["BETAS", "is_local_f1", "local_f1_orders", "resolve_orders", "search_beta"]

#: The widths the beta search chooses from (the paper's 1..10).
BETAS = tuple(range(1, 11))


def is_local_f1(order):
    """Whether an ``order`` parameter asks for the per-instance local-F1 order."""
    return isinstance(order, str) and order == "local_f1"


def resolve_orders(orders, n_labels):
    """The ``orders`` argument of ``predict_in_orders``: a list of label permutations."""
    if isinstance(orders, str) or not len(orders):
        raise ValueError(f"orders must be a sequence of label orders; got {orders!r}")
    checked = []
    for order in orders:
        if order is None or isinstance(order, str):
            raise ValueError(f"every order must be a permutation of the labels; got {order!r}")
        checked.append(resolve_order(order, n_labels))
    return checked


def local_f1_orders(X, validation_X, validation_Y, validation_predicted, beta, *, block=2048):
    """Per-instance label orders by decreasing local F1 (Trajdos and Kurzynski, eqs. 13-21).

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
        Instances to order labels for (already scaled like ``validation_X``).
    validation_X : ndarray or CSR matrix of shape (n_validation, n_features)
    validation_Y, validation_predicted : ndarray of shape (n_validation, n_labels)
        True labels of the validation rows and binary relevance's predictions of them.
    beta : float or sequence of floats
        Width of the Gaussian membership ``exp(-beta d^2)``. A sequence gives the orders
        of every width from one computation of the distances (a search over beta).

    Returns
    -------
    orders : ndarray of shape (n_samples, n_labels), or (n_betas, n_samples, n_labels)
        Each row a permutation of the labels, best first.
    local_f1 : ndarray of the same shape
    """
    betas = np.atleast_1d(np.asarray(beta, dtype=np.float64))
    truth = np.asarray(validation_Y, dtype=bool)
    predicted = np.asarray(validation_predicted, dtype=bool)
    n_labels = truth.shape[1]
    # one product gives TP and FP + FN of every label
    counts = np.hstack([truth & predicted, truth != predicted]).astype(float)
    X, validation_X = fill_missing(X, validation_X)
    validation_norms = squared_norms(validation_X)
    n_samples = X.shape[0]
    local_f1 = np.zeros((len(betas), n_samples, n_labels))
    for start in range(0, n_samples, block):
        distance = squared_distances(X[start : start + block], validation_X, validation_norms)
        # F is a ratio of sums of memberships: shifting each row's exponent by its smallest
        # distance leaves it unchanged and keeps the nearest neighbours from underflowing.
        distance -= distance.min(axis=1, keepdims=True)
        membership, step, factor = None, None, None
        for i, width in enumerate(betas):
            if membership is None or width <= betas[i - 1]:
                membership = np.exp(-width * distance)
            else:  # exp(-b' d) = exp(-b d) exp(-(b' - b) d): one exp for an evenly spaced grid
                if width - betas[i - 1] != step:
                    step = width - betas[i - 1]
                    factor = np.exp(-step * distance)
                membership = membership * factor
            tp, errors = np.split(membership @ counts, 2, axis=1)
            denominator = 2 * tp + errors
            local_f1[i, start : start + block] = np.divide(
                2 * tp, denominator, out=np.zeros_like(tp), where=denominator > 0
            )
    orders = np.argsort(-local_f1, axis=2, kind="stable")
    if np.ndim(beta) == 0:
        return orders[0], local_f1[0]
    return orders, local_f1


def search_beta(fold_labels, X, Y, rng, *, average):
    """beta in :data:`BETAS` by 3-fold cross-validation on F1 (``average``).

    ``fold_labels(train, test)`` fits the method on the ``train`` rows and returns its 0/1
    labels of the ``test`` rows for every beta of :data:`BETAS`, in turn (see
    :func:`~._neighbourhood.choose_by_folds`, which also says how ``rng`` is used).
    """
    return float(choose_by_folds(BETAS, fold_labels, X, Y, rng, average=average))
