"""k-nearest-neighbour classifier chains, with a fixed or a per-instance label order.

Seed 003, section 2.3 (Algorithms 3-4): label pi(i) of x is the majority vote of the R
training points nearest to x in the input space extended by the labels decided so far,
``d^2 = ||x - x^n||^2 + sum_{l < i} (h_pi(l)(x) - y^n_pi(l))^2`` (eq. 10, 11). The distance
is updated incrementally: each decided label adds one squared difference per training
point, so a chain step costs one pass over the n x N distance block, in blocks of rows.
The dynamic order is the local-F1 order of :mod:`.dynamic`, from binary relevance kNN
predictions of a validation part of the training set.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from ..metrics import f1_score
from ._base import MultiLabelClassifierMixin
from ._labels import binary_classes, check_label_matrix, resolve_order
from ._neighbourhood import (
    divide_columns,
    feature_scale,
    nearest_points,
    squared_distances,
    squared_norms,
    validation_mask,
)
from .dynamic import local_f1_orders

__all__ = ["KNNChain"]

NEIGHBOURS = (1, 3, 5, 7, 9, 11)


def _vote(distances, labels, n_neighbors):
    """Share of the R nearest points holding each label, shape (n, L): binary relevance kNN."""
    return labels[nearest_points(distances, n_neighbors)].mean(axis=1)


class KNNChain(MultiLabelClassifierMixin, BaseEstimator):
    """Classifier chain of nearest-neighbour classifiers in the label-extended space.

    Parameters
    ----------
    n_neighbors : int or "auto", default="auto"
        R; "auto" chooses among 1, 3, ..., 11 by 3-fold cross-validation on example F1.
    order : None, array-like or "local_f1", default=None
        A fixed order (None: 0..L-1) or the dynamic local-F1 order per instance.
    beta : float, default=1.0
        Width of the fuzzy neighbourhood of the local-F1 order.
    validation_fraction : float, default=0.4
        Rows kept as the validation set of the local-F1 order (not used otherwise).
    scale : bool, default=True
        Divide features by their training standard deviation (the paper standardises).
    random_state : int, RandomState or None, default=None
    """

    def __init__(
        self,
        *,
        n_neighbors="auto",
        order=None,
        beta=1.0,
        validation_fraction=0.4,
        scale=True,
        random_state=None,
    ):
        self.n_neighbors = n_neighbors
        self.order = order
        self.beta = beta
        self.validation_fraction = validation_fraction
        self.scale = scale
        self.random_state = random_state

    def _dynamic(self):
        return isinstance(self.order, str) and self.order == "local_f1"

    def fit(self, X, y):
        """Store the (scaled) training points; the dynamic order also keeps a validation set."""
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=True)
        Y = check_label_matrix(y, X.shape[0])
        rng = check_random_state(self.random_state)
        self.n_labels_ = Y.shape[1]
        self.classes_ = binary_classes(self.n_labels_)
        self.scale_ = feature_scale(X) if self.scale else np.ones(X.shape[1])
        X = self._scaled(X)
        train = np.ones(X.shape[0], dtype=bool)
        if self._dynamic():
            fraction = float(self.validation_fraction)
            if not 0 < fraction < 1 or X.shape[0] < 2:
                raise ValueError("the local-F1 order needs 0 < validation_fraction < 1, 2+ rows")
            train = ~validation_mask(X.shape[0], fraction, rng)
        else:
            self.order_ = resolve_order(self.order, self.n_labels_)
        self.train_X_, self.train_Y_ = X[train], Y[train].astype(np.int8)
        self._train_norms = squared_norms(self.train_X_)
        if self.n_neighbors == "auto":
            self.n_neighbors_ = self._search_neighbours(X[train], Y[train], rng)
        else:
            if int(self.n_neighbors) < 1:
                raise ValueError(f"n_neighbors must be >= 1; got {self.n_neighbors}")
            self.n_neighbors_ = int(self.n_neighbors)
        if self._dynamic():
            validation_X = X[~train]
            distances = squared_distances(validation_X, self.train_X_, self._train_norms)
            shares = _vote(distances, self.train_Y_, self.n_neighbors_)  # every label at once
            self.validation_predicted_ = (shares > 0.5).astype(np.int8)
            self.validation_X_, self.validation_Y_ = validation_X, Y[~train].astype(np.int8)
        return self

    def _scaled(self, X):
        return divide_columns(X, self.scale_)

    def _search_neighbours(self, X, Y, rng):
        """R by 3-fold cross-validation of the chain (in label order 0..L-1 when dynamic)."""
        order = None if self._dynamic() else self.order_
        folds = KFold(3, shuffle=True, random_state=rng.randint(2**31 - 1))
        scores = np.zeros(len(NEIGHBOURS))
        for train, test in folds.split(X):
            inner = KNNChain(n_neighbors=1, order=order, scale=False).fit(X[train], Y[train])
            for i, R in enumerate(NEIGHBOURS):
                inner.n_neighbors_ = R
                scores[i] += f1_score(Y[test], inner.predict(X[test]), average="samples")
        return NEIGHBOURS[int(np.argmax(scores))]

    def predict_orders(self, X):
        """The label order of every row, best first."""
        check_is_fitted(self)
        X = self._scaled(validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False))
        return self._orders(X)

    def _orders(self, X):
        if not self._dynamic():
            return np.tile(self.order_, (X.shape[0], 1))
        return local_f1_orders(
            X, self.validation_X_, self.validation_Y_, self.validation_predicted_, self.beta
        )[0]

    def predict_proba(self, X, *, block=512):
        """Share of neighbours voting 1 at each chain step, shape (n_samples, n_labels)."""
        check_is_fitted(self)
        X = self._scaled(validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False))
        orders = self._orders(X)
        proba = np.zeros((X.shape[0], self.n_labels_))
        labels_by_column = self.train_Y_.T.astype(np.float64)  # [label, training point]
        for start in range(0, X.shape[0], block):
            rows = np.arange(start, min(start + block, X.shape[0]))
            distances = squared_distances(X[rows], self.train_X_, self._train_norms)
            for step in range(self.n_labels_):
                label = orders[rows, step]
                share = _vote_rows(distances, labels_by_column[label], self.n_neighbors_)
                proba[rows, label] = share
                decided = (share > 0.5).astype(np.float64)
                # the decided label extends the space: one squared difference per point
                distances += (decided[:, None] - labels_by_column[label]) ** 2
        return proba

    def predict(self, X):
        """0/1 labels, shape (n_samples, n_labels)."""
        return (self.predict_proba(X) > 0.5).astype(int)


def _vote_rows(distances, labels, n_neighbors):
    """Like :func:`_vote`, with each row voting on its own label column (``labels`` n x N)."""
    nearest = nearest_points(distances, n_neighbors)
    return np.take_along_axis(labels, nearest, axis=1).mean(axis=1)
