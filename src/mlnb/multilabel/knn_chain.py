"""k-nearest-neighbour classifier chains, with a fixed or a per-instance label order.

Trajdos and Kurzynski (2017), section 2.3 (Algorithms 3-4): label pi(i) of x is the majority
vote of the R training points nearest to x in the input space extended by the labels decided
so far,
``d^2 = ||x - x^n||^2 + sum_{l < i} (h_pi(l)(x) - y^n_pi(l))^2`` (eq. 10, 11). The distance
is updated incrementally (:func:`~._knn_members.knn_chain_labels`): each decided label adds
one squared difference per training point, so a chain step costs one pass over the n x N
distance block, in blocks of rows. The training points serve every order
(:meth:`KNNChain.predict_in_orders`). The dynamic order is the local-F1 order of
:mod:`._orders`, from binary relevance kNN predictions of a validation part of the
training set.
"""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base.validation import COUNT, SHARE, check_label_matrix
from ._base import MultiLabelEstimator
from ._knn_members import (
    CHAIN_BLOCK,
    choose_neighbours,
    knn_chain_labels,
    share_log_odds,
    tiled_orders,
)
from ._labels import binary_classes, resolve_order
from ._neighbourhood import divide_columns, feature_scale, validation_mask
from ._orders import is_local_f1, local_f1_orders, resolve_orders

__all__ = ["KNNChain"]


class KNNChain(MultiLabelEstimator):
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

    _parameter_constraints: ClassVar[dict] = {
        "n_neighbors": [StrOptions({"auto"}), COUNT],
        "order": ["array-like", StrOptions({"local_f1", "random"}), None],
        "beta": [Interval(Real, 0, None, closed="neither")],
        "validation_fraction": [SHARE],
        "scale": ["boolean"],
        "random_state": ["random_state"],
    }

    @classmethod
    def _unit_test_params(cls):
        return [{"n_neighbors": 3}]

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
        return is_local_f1(self.order)

    def fit(self, X, y, sample_weight=None):
        """Store the (scaled) training points; the dynamic order also keeps a validation set.

        ``sample_weight`` must be None: a neighbour's vote counts once (Trajdos and
        Kurzynski's kNN chain defines no weighted vote); repeat rows to weight them.
        """
        self._validate_params()
        self._refuse_sample_weight(
            sample_weight, "a neighbour's vote counts once; repeat rows to weight them"
        )
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
        if self.n_neighbors == "auto":
            # the chain in its order (0..L-1 for the dynamic one), cross-validated
            order = np.arange(self.n_labels_) if self._dynamic() else self.order_
            self.n_neighbors_ = choose_neighbours(X[train], Y[train], rng, chain_order=order)
        else:
            if int(self.n_neighbors) < 1:
                raise ValueError(f"n_neighbors must be >= 1; got {self.n_neighbors}")
            self.n_neighbors_ = int(self.n_neighbors)
        if self._dynamic():
            validation_X = X[~train]
            n_validation = validation_X.shape[0]
            self.validation_predicted_ = knn_chain_labels(  # binary relevance kNN
                validation_X,
                self.train_X_,
                self.train_Y_,
                self.n_neighbors_,
                np.tile(np.arange(self.n_labels_), (n_validation, 1)),
                extend=False,
                block=n_validation,
            )
            self.validation_X_, self.validation_Y_ = validation_X, Y[~train].astype(np.int8)
        return self

    def _scaled(self, X):
        return divide_columns(X, self.scale_)

    def _validated(self, X):
        check_is_fitted(self)
        return self._scaled(
            validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        )

    def predict_orders(self, X):
        """The label order of every row, best first."""
        return self._orders(self._validated(X))

    def _orders(self, X):
        if not self._dynamic():
            return np.tile(self.order_, (X.shape[0], 1))
        return local_f1_orders(
            X, self.validation_X_, self.validation_Y_, self.validation_predicted_, self.beta
        )[0]

    def _chain(self, X, orders, **options):
        return knn_chain_labels(
            X, self.train_X_, self.train_Y_, self.n_neighbors_, orders, **options
        )

    def predict_proba(self, X, *, block=CHAIN_BLOCK):
        """Share of neighbours voting 1 at each chain step, shape (n_samples, n_labels)."""
        X = self._validated(X)
        return self._chain(X, self._orders(X), shares=True, block=block)[1]

    def decision_function(self, X):
        """Label scores for ranking and thresholding, shape (n_samples, n_labels).

        The Laplace-smoothed log-odds of each chain step's neighbour vote,
        ``log(v + 1) - log(R - v + 1)`` for v of the R neighbours voting 1: positive
        exactly where ``predict`` gives 1.
        """
        return share_log_odds(self.predict_proba(X), self._voters())

    def decision_function_in_orders(self, X, orders):
        """:meth:`decision_function` in each of the given orders, (len(orders), n, L)."""
        X = self._validated(X)
        orders = tiled_orders(resolve_orders(orders, self.n_labels_), X.shape[0])
        shares = self._chain(X, orders, shares=True, block=CHAIN_BLOCK)[1]
        return share_log_odds(shares, self._voters())

    def _voters(self):
        return min(self.n_neighbors_, self.train_X_.shape[0])

    def predict(self, X):
        """0/1 labels, shape (n_samples, n_labels)."""
        X = self._validated(X)
        return self._chain(X, self._orders(X), block=CHAIN_BLOCK).astype(int)

    def predict_in_orders(self, X, orders):
        """0/1 labels of the chain in each of the given orders, for every row.

        The training points serve any order: nothing is refitted.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        orders : sequence of array-like of shape (n_labels,)
            Label orders (permutations of 0..n_labels-1), each used for every row.

        Returns
        -------
        labels : ndarray of shape (len(orders), n_samples, n_labels), int
            ``labels[i]`` is the chain's prediction in ``orders[i]``.

        Examples
        --------
        >>> from mlnb import KNNChain
        >>> from mlnb.datasets import make_multilabel
        >>> X, Y = make_multilabel(100, 5, 3, random_state=0)
        >>> chain = KNNChain(n_neighbors=3).fit(X, Y)
        >>> labels = chain.predict_in_orders(X[:4], [[0, 1, 2], [2, 1, 0]])
        >>> labels.shape
        (2, 4, 3)
        >>> bool((labels[0] == chain.predict(X[:4])).all())
        True
        """
        X = self._validated(X)
        orders = resolve_orders(orders, self.n_labels_)
        return self._chain(X, tiled_orders(orders, X.shape[0])).astype(int)
