"""The dynamic chain ensemble of seed 003 (section 2.5): K dynamic Naive Bayes chains.

Each of the K members is a :class:`~mlnb.multilabel.DynamicChain` built on its own random
sample of the training rows (66 %), with the paper's preprocessing:

- random undersampling: for every label whose imbalance ratio in the member's training rows
  exceeds ``max_imbalance`` (20), random rows of its majority class are dropped from that
  label's problem until the ratio is ``max_imbalance``. A label's classifier then has its
  own negative rows, so the member's statistics group the rows by ``[Y * keep,
  (1 - Y) * keep]`` (2L groups, one pass) instead of taking negatives as a complement;
- per-label correlation-based feature selection (:mod:`._feature_selection`, at most 300
  features): a feature not selected for a label gets the same distribution under both of
  its classes, so it adds nothing to that label's log-odds, exactly as if dropped. Label
  features of the chain are not selected (the paper passes them through);
- standardised features for the distances of the local-F1 order (Gaussian NB does not
  depend on the scale of a feature).

Every member orders the labels of each instance by local F1 on its own validation part
(t = 0.6 / 0.4; :func:`~mlnb.multilabel.dynamic.local_f1_orders`); the answer is
``[mean_k h_k(x) > 0.5]`` (eq. 22). ``order="random"`` gives every member a random fixed
order instead: ECC with the same preprocessing, the paper's reference method 3.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from ..events import BayesianBernoulli, Bernoulli, Gaussian, Multinomial
from ..metrics import f1_score
from ..stats import GroupStats
from ._base import MultiLabelNB
from ._feature_selection import cfs_masks
from ._inference import dynamic_greedy_search, greedy_search
from ._label_model import feature_log_odds, feature_parameters, label_log_odds, log_prior_odds
from ._labels import binary_classes, check_label_matrix, resolve_order
from ._neighbourhood import divide_columns, feature_scale, validation_mask
from .dynamic import BETAS, local_f1_orders

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


def _select_features(events, params, mask):
    """Event parameters with the features outside ``mask`` (L x d) silenced per label.

    Per-feature models get the negative class's parameters for both classes there, so a
    silenced feature adds exactly nothing to the log-odds; the multinomial renormalises
    each class's word distribution over the selected words (NB on those words alone).
    """
    positive, negative = ({**p} for p in params)
    if isinstance(events, Gaussian):
        for key in ("mean", "var"):
            positive[key] = np.where(mask, positive[key], negative[key])
    elif isinstance(events, (Bernoulli, BayesianBernoulli)):
        for key in ("log_odds", "log_absent"):
            positive[key] = np.where(mask, positive[key], negative[key])
        positive["log_absent_sum"] = positive["log_absent"].sum(axis=1)
    elif type(events) is Multinomial:
        for side in (positive, negative):
            log_phi = np.where(mask, side["log_phi"], -np.inf)
            peak = np.max(log_phi, axis=1, keepdims=True)
            peak = np.where(np.isfinite(peak), peak, 0.0)
            log_total = peak + np.log(np.exp(log_phi - peak).sum(axis=1, keepdims=True))
            side["log_phi"] = np.where(mask, side["log_phi"] - log_total, 0.0)
    else:
        raise ValueError(
            f"feature selection supports the Gaussian, Bernoulli and multinomial event "
            f"models; got {type(events).__name__}: use feature_selection=None"
        )
    return positive, negative


class DynamicChainEnsemble(MultiLabelNB):
    """Ensemble of dynamic Naive Bayes classifier chains (seed 003, section 2.5).

    Parameters
    ----------
    n_chains : int, default=20
        K, the number of members.
    events : str or event model, default="gaussian"
    order : "local_f1", "random", None or array-like, default="local_f1"
        "local_f1": every member orders the labels of each instance by local F1 (the
        paper's method); "random": a random fixed order per member (ECC with the same
        preprocessing); None or a permutation: that order for every member.
    sample_fraction : float, default=0.66
        Share of the rows each member is built on (drawn without replacement; 1 takes
        every row).
    max_imbalance : float or None, default=20.0
        Undersample a label's majority class down to this imbalance ratio (None: never).
    feature_selection : "cfs" or None, default="cfs"
        Per-label correlation-based feature selection (Hall 1999).
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
        events="gaussian",
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
        self.events = events
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

    def _check_parameters(self):
        if int(self.n_chains) < 1:
            raise ValueError(f"n_chains must be >= 1; got {self.n_chains}")
        if not 0 < float(self.sample_fraction) <= 1:
            raise ValueError(f"sample_fraction must be in (0, 1]; got {self.sample_fraction}")
        if self.max_imbalance is not None and not float(self.max_imbalance) >= 1:
            raise ValueError(f"max_imbalance must be >= 1 or None; got {self.max_imbalance}")
        if self.feature_selection not in ("cfs", None):
            raise ValueError(
                f'feature_selection must be "cfs" or None; got {self.feature_selection!r}'
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
        self._fit_members(X, Y, weight, rng)
        self.beta_ = None
        if self._dynamic():
            auto = isinstance(self.beta, str)
            self.beta_ = self._search_beta(X, Y, weight, rng) if auto else float(self.beta)
        return self

    def _fit_members(self, X, Y, weight, rng):
        n_samples, n_labels = Y.shape
        size = round(float(self.sample_fraction) * n_samples)
        if self._dynamic() and size < 2:
            raise ValueError(
                "each member splits off a validation set and needs at least 2 rows; got "
                f"{size} of n_samples = {n_samples}"
            )
        events = self._event_model()
        prepared = events.prepare(X, caller=type(self).__name__)
        fixed = None if isinstance(self.order, str) else resolve_order(self.order, n_labels)
        self.events_ = events
        self.n_labels_ = n_labels
        self.classes_ = binary_classes(n_labels)
        self.member_features_, self.member_labels_, self.feature_masks_ = [], [], []
        self.orders_ = None if self._dynamic() else []
        self.scales_, self.validation_X_, self.validation_Y_ = [], [], []
        self.validation_predicted_ = []
        for _ in range(int(self.n_chains)):  # a loop over members, not samples or labels
            rows = np.arange(n_samples)
            if size < n_samples:
                rows = np.sort(rng.choice(n_samples, max(size, 1), replace=False))
            validation = np.zeros(len(rows), dtype=bool)
            if self._dynamic():
                validation = validation_mask(len(rows), float(self.validation_fraction), rng)
            train = rows[~validation]
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
            mask = None
            if self.feature_selection == "cfs":
                mask = cfs_masks(
                    prepared[train],
                    labels,
                    keep * weight[train][:, None],
                    max_features=int(self.max_features),
                    rng=rng,
                )
            self.feature_masks_.append(mask)
            if self._dynamic():
                self._add_validation(X[train], X[rows[validation]], Y[rows[validation]])
            else:
                self.orders_.append(rng.permutation(n_labels) if fixed is None else fixed)

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
            inner = self.__class__(
                **{**self.get_params(), "beta": 1.0, "random_state": rng.randint(2**31 - 1)}
            )
            inner.fit(X[train], Y[train], sample_weight=weight[train])
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
            params = _select_features(self.events_, params, self.feature_masks_[member])
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
        check_is_fitted(self, "member_features_")
        X = self._validate_X(X, reset=False)
        prepared = self.events_.prepare(X, caller=type(self).__name__)
        betas = [self.beta_] if betas is None else list(betas)
        votes = np.zeros((len(betas) if self._dynamic() else 1, X.shape[0], self.n_labels_))
        for member in range(len(self.member_features_)):
            model = self._member_model(member)
            base = self._member_log_odds(member, prepared, model)
            weight, absent = model[2]
            if not self._dynamic():
                votes[0] += greedy_search(base, weight, absent, self.orders_[member])[0]
                continue
            scale = self.scales_[member]
            orders, _ = local_f1_orders(
                X if scale is None else divide_columns(X, scale),
                self.validation_X_[member],
                self.validation_Y_[member],
                self.validation_predicted_[member],
                betas,
            )
            for i, order in enumerate(orders):
                votes[i] += dynamic_greedy_search(base, weight, absent, order)[0]
        return votes / len(self.member_features_)

    def predict_proba(self, X):
        """Share of the members predicting each label, shape (n_samples, n_labels)."""
        return self._votes(X)[0]

    def predict(self, X):
        """``[mean over members > 0.5]`` for every label (seed 003, eq. 22)."""
        return (self.predict_proba(X) > 0.5).astype(int)
