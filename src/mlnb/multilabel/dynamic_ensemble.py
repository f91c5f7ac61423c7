"""The dynamic chain ensemble of seed 003 (section 2.5): K dynamic Naive Bayes chains.

Each of the K members is a :class:`~mlnb.multilabel.DynamicChain` built on its own random
sample of the training rows (66 %), with the paper's preprocessing:

- random undersampling: for every label whose imbalance ratio in the member's training rows
  exceeds ``max_imbalance`` (20), random rows of its majority class are dropped from that
  label's problem until the ratio is ``max_imbalance``. A label's classifier then has its
  own negative rows, so the member's statistics group the rows by ``[Y * keep,
  (1 - Y) * keep]`` (2L groups, one pass) instead of taking negatives as a complement;
- per-label correlation-based feature selection (at most 300 features; Pearson CFS in
  :mod:`._feature_selection` or Weka's CfsSubsetEval in :mod:`._weka_cfs`): a feature not
  selected for a label gets the same distribution under both of its classes, so it adds
  nothing to that label's log-odds, exactly as if dropped. Label features of the chain are
  not selected (the paper passes them through);
- standardised features for the distances of the local-F1 order (Gaussian NB does not
  depend on the scale of a feature).

Every member orders the labels of each instance by local F1 on its own validation part
(t = 0.6 / 0.4; :func:`~mlnb.multilabel.dynamic.local_f1_orders`); the answer is
``[mean_k h_k(x) > 0.5]`` (eq. 22). ``order="random"`` gives every member a random fixed
order instead: ECC with the same preprocessing, the paper's reference method 3.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from ..metrics import f1_score
from ..stats import GroupStats
from ._base import MultiLabelNB
from ._feature_selection import cfs_masks
from ._inference import dynamic_greedy_search, greedy_search
from ._knn_members import choose_neighbours, knn_chain_labels, tiled_orders
from ._label_model import feature_log_odds, feature_parameters, label_log_odds, log_prior_odds
from ._labels import binary_classes, check_label_matrix, resolve_order
from ._neighbourhood import divide_columns, feature_scale, validation_mask
from ._weka_cfs import weka_cfs_masks
from .dynamic import BETAS, local_f1_orders

#: Per-label feature selections by name: ``(X, Y, weights, max_features=, rng=) -> (L, d) mask``.
_SELECTIONS = {
    "cfs": cfs_masks,
    "cfs-weka": partial(weka_cfs_masks, nominal=False),
    "cfs-weka-nominal": partial(weka_cfs_masks, nominal=True),
}

__all__ = ["DynamicChainEnsemble", "undersampling_mask"]


def undersampling_mask(Y, max_imbalance, rng):
    """Rows kept in every label's problem after random undersampling, shape (n, L).

    A label whose majority class outnumbers its minority class more than ``max_imbalance``
    times keeps ``floor(max_imbalance * minority)`` random majority rows (seed 003, section
    2.5). A label with an empty class, or ``max_imbalance=None``, keeps every row.
    """
    n_samples, n_labels = Y.shape
    keep = np.ones((n_samples, n_labels))
    if max_imbalance is None or n_samples == 0:
        return keep
    positives = Y.sum(axis=0)
    negatives = n_samples - positives
    minority, majority = np.minimum(positives, negatives), np.maximum(positives, negatives)
    limit = np.floor(float(max_imbalance) * minority)
    reduce = (minority > 0) & (majority > limit)
    majority_value = (positives > negatives).astype(Y.dtype)
    in_majority = Y == majority_value[None, :]
    priority = rng.random_sample((n_samples, n_labels))
    priority[~in_majority] = np.inf
    rank = np.argsort(np.argsort(priority, axis=0, kind="stable"), axis=0, kind="stable")
    keep[in_majority & (rank >= limit[None, :]) & reduce[None, :]] = 0.0
    return keep


class DynamicChainEnsemble(MultiLabelNB):
    """Ensemble of dynamic Naive Bayes classifier chains (seed 003, section 2.5).

    Parameters
    ----------
    n_chains : int, default=20
        K, the number of members.
    base : {"nb", "knn"}, default="nb"
        Members are Naive Bayes chains, or nearest-neighbour chains (Euclidean distance in
        the standardised input space extended by the decided labels, seed 003 eq. 10; a
        label's neighbours are its kept rows, its distance uses its selected features).
    events : str or event model, default="gaussian"
        Event model of the Naive Bayes members.
    n_neighbors : int or "auto", default="auto"
        R of the kNN members; "auto" picks it in 1, 3, ..., 11 by 3-fold cross-validation
        of binary relevance kNN, the chain's first step (one distance computation per fold
        for the whole grid).
    order : "local_f1", "random", None or array-like, default="local_f1"
        "local_f1": every member orders the labels of each instance by local F1 (the
        paper's method); "random": a random fixed order per member (ECC with the same
        preprocessing); None or a permutation: that order for every member.
    sample_fraction : float, default=0.66
        Share of the rows each member is built on (drawn without replacement; 1 takes
        every row).
    max_imbalance : float or None, default=20.0
        Undersample a label's majority class down to this imbalance ratio (None: never).
    feature_selection : {"cfs", "cfs-weka", "cfs-weka-nominal"} or None, default="cfs"
        Per-label correlation-based feature selection (Hall 1999). "cfs": Pearson
        correlation of the raw features (fast); "cfs-weka": Weka's CfsSubsetEval, which the
        paper ran (symmetrical uncertainty of features discretised per label by MDL, and
        Weka's locally predictive features); "cfs-weka-nominal": the same with every
        distinct value of a feature its own category (Weka's nominal attributes, e.g. 0/1
        words declared ``{0,1}``). See :mod:`._weka_cfs`.
    max_features : int, default=300
        A label keeps a random ``max_features`` of its CFS features if it has more.
    beta : float or "auto", default="auto"
        Width of the fuzzy neighbourhood of the local-F1 order; "auto" picks the best of
        1..10 by 3-fold cross-validation of the whole ensemble on macro-averaged F1 (the
        measure the paper tailors the method to, section 4.2).
    validation_fraction : float, default=0.4
        Share of a member's rows kept as its validation set (t = 0.6); "local_f1" only.
    scale : bool, default=True
        Distances on features divided by their standard deviation in the member's rows.
    prior_alpha, label_alpha : float
        As :class:`ClassifierChain`.
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    member_features_, member_labels_ : list of GroupStats
        Per member, the statistics of X and of Y grouped by ``[Y * keep, (1 - Y) * keep]``.
    feature_masks_ : list of ndarray of shape (n_labels, n_features), or None
    orders_ : list of ndarray or None
        Members' fixed orders (None with "local_f1").
    beta_ : float or None
    """

    _uses_label_pairs = True

    def __init__(
        self,
        *,
        n_chains=20,
        base="nb",
        events="gaussian",
        n_neighbors="auto",
        order="local_f1",
        sample_fraction=0.66,
        max_imbalance=20.0,
        feature_selection="cfs",
        max_features=300,
        beta="auto",
        validation_fraction=0.4,
        scale=True,
        prior_alpha=0.0,
        label_alpha=1.0,
        random_state=None,
    ):
        self.n_chains = n_chains
        self.base = base
        self.events = events
        self.n_neighbors = n_neighbors
        self.order = order
        self.sample_fraction = sample_fraction
        self.max_imbalance = max_imbalance
        self.feature_selection = feature_selection
        self.max_features = max_features
        self.beta = beta
        self.validation_fraction = validation_fraction
        self.scale = scale
        self.prior_alpha = prior_alpha
        self.label_alpha = label_alpha
        self.random_state = random_state

    def _dynamic(self):
        return isinstance(self.order, str) and self.order == "local_f1"

    def _knn(self):
        return self.base == "knn"

    def _check_parameters(self):
        if self.base not in ("nb", "knn"):
            raise ValueError(f'base must be "nb" or "knn"; got {self.base!r}')
        if self._knn() and not (
            self.n_neighbors == "auto"
            or (np.isscalar(self.n_neighbors) and int(self.n_neighbors) >= 1)
        ):
            raise ValueError(f'n_neighbors must be "auto" or >= 1; got {self.n_neighbors!r}')
        if int(self.n_chains) < 1:
            raise ValueError(f"n_chains must be >= 1; got {self.n_chains}")
        if not 0 < float(self.sample_fraction) <= 1:
            raise ValueError(f"sample_fraction must be in (0, 1]; got {self.sample_fraction}")
        if self.max_imbalance is not None and not float(self.max_imbalance) >= 1:
            raise ValueError(f"max_imbalance must be >= 1 or None; got {self.max_imbalance}")
        if self.feature_selection is not None and self.feature_selection not in _SELECTIONS:
            raise ValueError(
                f"feature_selection must be one of {sorted(_SELECTIONS)} or None; got "
                f"{self.feature_selection!r}"
            )
        if self.feature_selection and not int(self.max_features) >= 1:
            raise ValueError(f"max_features must be >= 1; got {self.max_features}")
        if isinstance(self.order, str) and self.order not in ("local_f1", "random"):
            raise ValueError(
                f'order must be "local_f1", "random", None or a permutation; got {self.order!r}'
            )
        if self._dynamic():
            if not 0 < float(self.validation_fraction) < 1:
                raise ValueError(
                    "the local-F1 order needs a validation set: 0 < validation_fraction < 1; "
                    f"got {self.validation_fraction}"
                )
            if not (self.beta == "auto" or (np.isscalar(self.beta) and float(self.beta) > 0)):
                raise ValueError(f'beta must be "auto" or a positive number; got {self.beta!r}')

    # ---- fitting ------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Build the K members, then (``beta="auto"``) choose beta by 3-fold CV."""
        self._check_parameters()
        X = self._validate_X(X, reset=True)
        Y = check_label_matrix(y, X.shape[0])
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        rng = check_random_state(self.random_state)
        if self._knn():
            if sample_weight is not None:
                raise ValueError("nearest-neighbour members (base='knn') take no sample_weight")
            self._fit_knn_members(X, Y, rng)
        else:
            self._fit_members(X, Y, weight, rng)
        self.beta_ = None
        if self._dynamic():
            auto = isinstance(self.beta, str)
            self.beta_ = self._search_beta(X, Y, weight, rng) if auto else float(self.beta)
        return self

    def _member_rows(self, n_samples, rng):
        """One member's rows: its sample, split into training rows and validation rows."""
        size = round(float(self.sample_fraction) * n_samples)
        if self._dynamic() and size < 2:
            raise ValueError(
                "each member splits off a validation set and needs at least 2 rows; got "
                f"{size} of n_samples = {n_samples}"
            )
        rows = np.arange(n_samples)
        if size < n_samples:
            rows = np.sort(rng.choice(n_samples, max(size, 1), replace=False))
        validation = np.zeros(len(rows), dtype=bool)
        if self._dynamic():
            validation = validation_mask(len(rows), float(self.validation_fraction), rng)
        return rows[~validation], rows[validation]

    def _start_members(self, n_labels):
        self.n_labels_ = n_labels
        self.classes_ = binary_classes(n_labels)
        self.feature_masks_ = []
        self.orders_ = None if self._dynamic() else []
        self.validation_X_, self.validation_Y_, self.validation_predicted_ = [], [], []

    def _add_order(self, rng, n_labels):
        if not self._dynamic():
            fixed = None if isinstance(self.order, str) else resolve_order(self.order, n_labels)
            self.orders_.append(rng.permutation(n_labels) if fixed is None else fixed)

    def _fit_members(self, X, Y, weight, rng):
        n_samples, n_labels = Y.shape
        events = self._event_model()
        prepared = events.prepare(X, caller=type(self).__name__)
        self._start_members(n_labels)
        self.events_ = events
        self.member_features_, self.member_labels_, self.scales_ = [], [], []
        for _ in range(int(self.n_chains)):  # a loop over members, not samples or labels
            train, validation = self._member_rows(n_samples, rng)
            labels = Y[train]
            keep = undersampling_mask(labels, self.max_imbalance, rng)
            grouping = np.hstack([labels * keep, (1 - labels) * keep])
            self.member_features_.append(
                GroupStats.from_data(
                    prepared[train], grouping, weight[train], second_moments=events.second_moments
                )
            )
            self.member_labels_.append(
                GroupStats.from_data(labels, grouping, weight[train], second_moments=False)
            )
            self.feature_masks_.append(
                self._select(prepared[train], labels, keep, weight[train], rng)
            )
            if self._dynamic():
                self._add_validation(X[train], X[validation], Y[validation])
            self._add_order(rng, n_labels)

    def _select(self, X, Y, keep, weight, rng):
        if self.feature_selection is None:
            return None
        select = _SELECTIONS[self.feature_selection]
        return select(X, Y, keep * weight[:, None], max_features=int(self.max_features), rng=rng)

    def _fit_knn_members(self, X, Y, rng):
        n_samples, n_labels = Y.shape
        self._start_members(n_labels)
        self.scale_ = feature_scale(X) if self.scale else None
        X = self._scaled(X)
        self.train_X_, self.train_Y_ = X, Y.astype(np.int8)
        auto = isinstance(self.n_neighbors, str)
        self.n_neighbors_ = choose_neighbours(X, Y, rng) if auto else int(self.n_neighbors)
        self.member_rows_, self.member_keep_ = [], []
        for _ in range(int(self.n_chains)):  # a loop over members, not samples or labels
            train, validation = self._member_rows(n_samples, rng)
            keep = undersampling_mask(Y[train], self.max_imbalance, rng)
            mask = self._select(X[train], Y[train], keep, np.ones(len(train)), rng)
            keep = keep.astype(bool)
            self.member_rows_.append(train)
            self.member_keep_.append(keep)
            self.feature_masks_.append(mask)
            if self._dynamic():
                first = np.tile(np.arange(n_labels), (len(validation), 1))
                predicted = knn_chain_labels(
                    X[validation],
                    X[train],
                    Y[train],
                    self.n_neighbors_,
                    first,
                    keep=keep,
                    masks=mask,
                    extend=False,
                )
                self.validation_X_.append(X[validation])
                self.validation_Y_.append(Y[validation].astype(np.int8))
                self.validation_predicted_.append(predicted)
            self._add_order(rng, n_labels)

    def _add_validation(self, train_X, validation_X, validation_Y):
        """The newest member's scale and its validation set with its own BR predictions."""
        member = len(self.member_features_) - 1
        scale = feature_scale(train_X) if self.scale else None
        base = self._member_log_odds(member, self.events_.prepare(validation_X))
        self.scales_.append(scale)
        self.validation_X_.append(
            validation_X if scale is None else divide_columns(validation_X, scale)
        )
        self.validation_Y_.append(validation_Y.astype(np.int8))
        self.validation_predicted_.append((base > 0).astype(np.int8))

    def _search_beta(self, X, Y, weight, rng):
        """beta in 1..10 by 3-fold cross-validation of the ensemble (macro-averaged F1)."""
        folds = KFold(3, shuffle=True, random_state=rng.randint(2**31 - 1))
        scores = np.zeros(len(BETAS))
        for train, test in folds.split(X):
            settings = {"beta": 1.0, "random_state": rng.randint(2**31 - 1)}
            if self._knn():
                settings["n_neighbors"] = self.n_neighbors_
            inner = clone(self).set_params(**settings)
            inner.fit(X[train], Y[train], sample_weight=None if self._knn() else weight[train])
            votes = inner._votes(X[test], BETAS)
            for i, vote in enumerate(votes):
                scores[i] += f1_score(Y[test], (vote > 0.5).astype(int), average="macro")
        return float(BETAS[int(np.argmax(scores))])

    def partial_fit(self, X, y, sample_weight=None):
        raise ValueError(
            "DynamicChainEnsemble undersamples, selects features and keeps validation sets "
            "from the whole training set: use fit (EnsembleClassifierChains learns online)"
        )

    def merge(self, other):
        raise ValueError("DynamicChainEnsemble keeps validation sets: models cannot be merged")

    # ---- one member ---------------------------------------------------------------------
    def _member_model(self, member):
        """Feature parameters, prior log-odds and label-pair terms of one member."""
        n_labels = self.n_labels_
        positive, negative = slice(0, n_labels), slice(n_labels, 2 * n_labels)
        features, labels = self.member_features_[member], self.member_labels_[member]
        holding, other = features.select_groups(positive), features.select_groups(negative)
        params = feature_parameters(self.events_, holding, other)
        if self.feature_masks_[member] is not None:
            params = self.events_.silence(*params, self.feature_masks_[member])
        prior = log_prior_odds(holding.count, holding.count + other.count, self.prior_alpha)
        pairs = label_log_odds(
            labels.select_groups(positive),
            self.label_alpha,
            negative=labels.select_groups(negative),
        )
        return params, prior, pairs

    def _member_log_odds(self, member, prepared, model=None):
        params, prior, _ = self._member_model(member) if model is None else model
        return feature_log_odds(self.events_, None, prepared, params=params) + prior[None, :]

    # ---- prediction ---------------------------------------------------------------------
    def _votes(self, X, betas=None):
        """Mean of the members' 0/1 predictions, shape (n_betas, n, L) for the given widths."""
        check_is_fitted(self, "feature_masks_")
        X = self._validate_X(X, reset=False)
        betas = [self.beta_] if betas is None else list(betas)
        votes = np.zeros((len(betas) if self._dynamic() else 1, X.shape[0], self.n_labels_))
        members = self._knn_member_labels if self._knn() else self._nb_member_labels
        for labels in members(X, betas):
            votes += labels
        return votes / len(self.feature_masks_)

    def _orders(self, member, X_scaled, betas):
        """(n_sets, n, L) orders of one member: per width of the local F1, or its fixed one."""
        if not self._dynamic():
            return tiled_orders([self.orders_[member]], X_scaled.shape[0])
        return local_f1_orders(
            X_scaled,
            self.validation_X_[member],
            self.validation_Y_[member],
            self.validation_predicted_[member],
            betas,
        )[0]

    def _nb_member_labels(self, X, betas):
        prepared = self.events_.prepare(X, caller=type(self).__name__)
        for member in range(len(self.member_features_)):
            base, weight, absent = self._member_chain_terms(member, prepared)
            if not self._dynamic():
                yield greedy_search(base, weight, absent, self.orders_[member])[0][None]
                continue
            scale = self.scales_[member]
            orders = self._orders(member, X if scale is None else divide_columns(X, scale), betas)
            yield np.stack([dynamic_greedy_search(base, weight, absent, o)[0] for o in orders])

    def _member_chain_terms(self, member, prepared):
        """One NB member's independent log-odds of ``prepared`` and its label-pair terms."""
        model = self._member_model(member)
        return self._member_log_odds(member, prepared, model), *model[2]

    def _knn_member_labels(self, X, betas):
        X = self._scaled(X)
        for member in range(len(self.member_rows_)):
            yield self._knn_labels(member, X, self._orders(member, X, betas))

    def _scaled(self, X):
        return X if self.scale_ is None else divide_columns(X, self.scale_)

    def _knn_labels(self, member, X_scaled, orders):
        """One kNN member's labels in (n_sets, n, L) orders."""
        rows = self.member_rows_[member]
        return knn_chain_labels(
            X_scaled,
            self.train_X_[rows],
            self.train_Y_[rows],
            self.n_neighbors_,
            orders,
            keep=self.member_keep_[member],
            masks=self.feature_masks_[member],
        )

    def _member_labels_in_orders(self, X, member, orders):
        """0/1 predictions of one member in each of the given orders, (len(orders), n, L).

        Any order is scored without refitting (the member's statistics, kept rows and
        feature masks do not depend on it): what :class:`OOCC` and
        :class:`GeneticChainEnsemble` score their orders with. ``X`` is validated.
        """
        if self._knn():
            tiled = tiled_orders(orders, X.shape[0])
            return self._knn_labels(member, self._scaled(X), tiled).astype(int)
        prepared = self.events_.prepare(X, caller=type(self).__name__)
        base, weight, absent = self._member_chain_terms(member, prepared)
        return np.stack([greedy_search(base, weight, absent, order)[0] for order in orders])

    def predict_proba(self, X):
        """Share of the members predicting each label, shape (n_samples, n_labels)."""
        return self._votes(X)[0]

    def predict(self, X):
        """``[mean over members > 0.5]`` for every label (seed 003, eq. 22)."""
        return (self.predict_proba(X) > 0.5).astype(int)
