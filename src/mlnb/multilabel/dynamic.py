"""Dynamic classifier chains: the label order is chosen per instance at prediction time.

Seed 003 (dynamic_classifier_chains), sections 2.2 and 2.4. The Naive Bayes chain needs
only per-label and pairwise label statistics, so any order costs a prediction, not a fit
(Algorithms 1-2). The order of an instance x puts first the labels that binary relevance
predicts best near x: on a validation part V of the training set (t = 0.6 / 0.4), with the
fuzzy neighbourhood ``mu(x, v) = exp(-beta ||x - v||^2)`` (eq. 13),

    TP_l(x) = sum_v mu [y_vl = 1, h_BR(v)_l = 1],  FP_l, FN_l likewise   (eqs. 17-19)
    F_l(x) = 2 TP / (2 TP + FP + FN)                                     (eq. 20)

and labels in decreasing F_l(x) (eq. 21; ties keep the label index order, and a label with
no evidence near x, 0/0, scores 0). beta is chosen in {1, ..., 10} by 3-fold
cross-validation on example-based F1 unless given.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from sklearn.base import clone
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from ..metrics import f1_score
from ._base import MultiLabelNB
from ._inference import dynamic_greedy_search, greedy_search
from ._labels import check_label_matrix, resolve_order
from ._neighbourhood import (
    divide_columns,
    feature_scale,
    squared_distances,
    squared_norms,
    validation_mask,
)

__all__ = ["DynamicChain", "local_f1_orders"]

BETAS = tuple(range(1, 11))


def local_f1_orders(X, validation_X, validation_Y, validation_predicted, beta, *, block=2048):
    """Per-instance label orders by decreasing local F1 (seed 003, eqs. 13-21).

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


class DynamicChain(MultiLabelNB):
    """Naive Bayes classifier chain with a label order chosen for every instance.

    Parameters
    ----------
    events : str or event model, default="gaussian"
    beta : float or "auto", default="auto"
        Width of the fuzzy neighbourhood (eq. 13); "auto" picks the best of 1..10 by
        3-fold cross-validation on example-based F1 (the paper's procedure).
    validation_fraction : float, default=0.4
        Share of the training rows kept as the validation set V (the paper's t = 0.6).
        The chain's statistics come from the other rows (Algorithm 1).
    order : None, "local_f1" or array-like, default="local_f1"
        "local_f1": the dynamic order; an explicit permutation (or None for 0..L-1): one
        fixed order for every instance, as :class:`ClassifierChain`.
    scale : bool, default=True
        Measure distances on features divided by their training standard deviation (the
        paper standardises; centring does not change distances, so sparse data stay sparse).
    prior_alpha, label_alpha : float
        As :class:`ClassifierChain`.
    random_state : int, RandomState or None, default=None
        The train/validation split and the folds of the beta search.

    Attributes
    ----------
    beta_ : float
        The width used.
    validation_X_, validation_Y_, validation_predicted_ : the validation set V with binary
        relevance's predictions of it.
    """

    _uses_label_pairs = True

    def __init__(
        self,
        *,
        events="gaussian",
        beta="auto",
        validation_fraction=0.4,
        order="local_f1",
        scale=True,
        prior_alpha=0.0,
        label_alpha=1.0,
        random_state=None,
    ):
        self.events = events
        self.beta = beta
        self.validation_fraction = validation_fraction
        self.order = order
        self.scale = scale
        self.prior_alpha = prior_alpha
        self.label_alpha = label_alpha
        self.random_state = random_state

    def _dynamic(self):
        return isinstance(self.order, str) and self.order == "local_f1"

    def fit(self, X, y, sample_weight=None):
        """Fit the chain on the training part and keep the validation part for the orders."""
        fraction = float(self.validation_fraction)
        if not 0 <= fraction < 1:
            raise ValueError(f"validation_fraction must be in [0, 1); got {fraction}")
        if self._dynamic() and fraction == 0:
            raise ValueError("the local-F1 order needs a validation set: validation_fraction > 0")
        if not (self.beta == "auto" or (np.isscalar(self.beta) and float(self.beta) > 0)):
            raise ValueError(f'beta must be "auto" or a positive number; got {self.beta!r}')
        X = self._validate_X(X, reset=True)
        Y = check_label_matrix(y, X.shape[0])
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        rng = check_random_state(self.random_state)
        n_samples = X.shape[0]
        validation = validation_mask(n_samples, fraction, rng)
        train = ~validation
        if not train.any() or (fraction > 0 and n_samples < 2):
            raise ValueError(
                "DynamicChain splits off a validation set and needs at least 2 rows; got "
                f"n_samples = {n_samples}"
            )
        for attribute in ("feature_stats_", "label_stats_", "n_labels_"):
            self.__dict__.pop(attribute, None)
        super().partial_fit(X[train], Y[train], sample_weight=weight[train])
        self.scale_ = feature_scale(X[train]) if self.scale else None
        if self._dynamic():
            validation_X = X[validation]
            self.validation_predicted_ = (self._independent_log_odds(validation_X) > 0).astype(
                np.int8
            )
            self.validation_X_ = self._scaled(validation_X)
            self.validation_Y_ = Y[validation].astype(np.int8)
            self.beta_ = (
                float(self.beta) if self.beta != "auto" else self._search_beta(X, Y, weight, rng)
            )
        else:
            self.order_ = resolve_order(self.order, self.n_labels_)
        return self

    def partial_fit(self, X, y, sample_weight=None):
        raise ValueError(
            "DynamicChain learns its orders from a validation split of the whole training "
            "set: use fit (ClassifierChain learns online)"
        )

    def merge(self, other):
        raise ValueError("DynamicChain keeps a validation set: models cannot be merged")

    def _scaled(self, X):
        return X if self.scale_ is None else divide_columns(X, self.scale_)

    def _search_beta(self, X, Y, weight, rng):
        """beta in 1..10 by 3-fold cross-validation (example-based F1)."""
        folds = KFold(3, shuffle=True, random_state=rng.randint(2**31 - 1))
        scores = np.zeros(len(BETAS))
        for train, test in folds.split(X):
            inner = clone(self).set_params(beta=1.0, random_state=0)
            inner.fit(X[train], Y[train], sample_weight=weight[train])
            for i, beta in enumerate(BETAS):
                inner.beta_ = float(beta)
                scores[i] += f1_score(Y[test], inner.predict(X[test]), average="samples")
        return float(BETAS[int(np.argmax(scores))])

    def predict_orders(self, X):
        """The label order of every row, best first, shape (n_samples, n_labels)."""
        check_is_fitted(self)
        if not self._dynamic():
            X = self._validate_X(X, reset=False)
            return np.tile(self.order_, (X.shape[0], 1))
        X = self._scaled(self._validate_X(X, reset=False))
        return local_f1_orders(
            X, self.validation_X_, self.validation_Y_, self.validation_predicted_, self.beta_
        )[0]

    def _search(self, X):
        base = self._independent_log_odds(X)
        weight, absent = self._label_pairs
        if not self._dynamic():
            return greedy_search(base, weight, absent, self.order_)
        return dynamic_greedy_search(base, weight, absent, self.predict_orders(X))

    def predict(self, X):
        """0/1 labels, each row's chain in its own order, shape (n_samples, n_labels)."""
        return self._search(X)[0]

    def predict_proba(self, X):
        """``P(y_k = 1 | x, labels decided before k in x's order)``."""
        return expit(self._search(X)[1])
