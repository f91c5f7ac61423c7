"""Ensembles of classifier chains (ECC, Read et al. 2009).

K chains with random orders, each trained on a sample of the rows; the answer is the mean
of the chains' 0/1 responses thresholded at 0.5 (seed 003, eq. 22). With Naive Bayes, the
K sets of statistics come from one weighted pass: the grouping matrix stacks, for every
chain, the label columns restricted to its sample plus one column for the sample itself
(its totals), so ``G.T @ X`` computes all of them at once.
"""

from __future__ import annotations

import zlib

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.utils import check_random_state
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .._state import atomic, check_mergeable
from ..stats import GroupStats
from ._base import MultiLabelNB
from ._inference import chain_search
from ._label_model import feature_log_odds, feature_parameters, label_log_odds, log_prior_odds
from ._labels import binary_classes, check_label_matrix
from .chain import ClassifierChain

__all__ = ["EnsembleClassifierChains"]


class EnsembleClassifierChains(MultiLabelNB):
    """Ensemble of classifier chains with random orders, each on a sample of the rows.

    Parameters
    ----------
    n_chains : int, default=10
    events : str or event model, default="gaussian"
    sample_fraction : float, default=0.66
        Share of the rows each chain sees: drawn without replacement, or with replacement
        (``bootstrap=True``, a bootstrap sample of that size).
    bootstrap : bool, default=False
    inference : {"greedy", "beam", "exact"}, default="greedy"
    beam_width : int, default=5
    voting : {"hard", "soft"}, default="hard"
        "hard": mean of the chains' 0/1 predictions (eq. 22); "soft": mean of their
        probabilities. ``predict`` thresholds that mean at 0.5.
    prior_alpha, label_alpha : float
        As in :class:`ClassifierChain`.
    base_estimator : classifier or None, default=None
        If given, K generic chains of its clones (no shared pass).
    random_state : int, RandomState or None, default=None
        Orders and samples; the same seed gives the same ensemble.

    Notes
    -----
    ``partial_fit`` (NB path) samples online: each new row joins chain k with probability
    ``sample_fraction`` (or, with ``bootstrap``, Poisson(sample_fraction) times; Oza 2005).
    """

    _uses_label_pairs = True

    def __init__(
        self,
        *,
        n_chains=10,
        events="gaussian",
        sample_fraction=0.66,
        bootstrap=False,
        inference="greedy",
        beam_width=5,
        voting="hard",
        prior_alpha=0.0,
        label_alpha=1.0,
        base_estimator=None,
        random_state=None,
    ):
        self.n_chains = n_chains
        self.events = events
        self.sample_fraction = sample_fraction
        self.bootstrap = bootstrap
        self.inference = inference
        self.beam_width = beam_width
        self.voting = voting
        self.prior_alpha = prior_alpha
        self.label_alpha = label_alpha
        self.base_estimator = base_estimator
        self.random_state = random_state

    def _check_parameters(self):
        if int(self.n_chains) < 1:
            raise ValueError(f"n_chains must be >= 1; got {self.n_chains}")
        if not 0 < float(self.sample_fraction) <= 1:
            raise ValueError(f"sample_fraction must be in (0, 1]; got {self.sample_fraction}")
        if self.voting not in ("hard", "soft"):
            raise ValueError(f'voting must be "hard" or "soft"; got {self.voting!r}')
        if self.inference not in ("greedy", "beam", "exact"):
            raise ValueError(f"inference must be greedy, beam or exact; got {self.inference!r}")

    # ---- sampling -----------------------------------------------------------------------
    def _sample_weights(self, n_samples, rng, *, online):
        """Multiplicity of every row in every chain's sample, shape (n_samples, n_chains)."""
        K, fraction = int(self.n_chains), float(self.sample_fraction)
        if online:
            if self.bootstrap:
                return rng.poisson(fraction, size=(n_samples, K)).astype(float)
            return (rng.random((n_samples, K)) < fraction).astype(float)
        size = max(round(fraction * n_samples), 1)
        weights = np.zeros((n_samples, K))
        for k in range(K):  # K draws: a loop over chains, not samples
            if self.bootstrap:
                np.add.at(weights[:, k], rng.randint(0, n_samples, size), 1.0)
            else:
                weights[rng.choice(n_samples, size, replace=False), k] = 1.0
        return weights

    # ---- fitting ------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit K chains: one weighted pass on the NB path."""
        self._check_parameters()
        for attribute in ("feature_stats_", "label_stats_", "orders_", "_rng"):
            self.__dict__.pop(attribute, None)
        if self.base_estimator is not None:
            return self._fit_generic(X, y, sample_weight)
        return self.partial_fit(X, y, sample_weight, _online=False)

    def partial_fit(self, X, y, sample_weight=None, *, _online=True):
        """Add a batch of rows, sampled online into the chains (NB path only)."""
        if self.base_estimator is not None:
            raise ValueError("partial_fit is available on the Naive Bayes path only")
        self._check_parameters()
        return self._partial_fit_ensemble(X, y, sample_weight, online=_online)

    @atomic
    def _partial_fit_ensemble(self, X, Y, sample_weight, *, online):
        first_call = not hasattr(self, "feature_stats_")
        X = self._validate_X(X, reset=first_call)
        Y = check_label_matrix(
            Y, X.shape[0], n_labels=None if first_call else self.n_labels_, sparse=True
        )
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        rng = check_random_state(self.random_state) if first_call else self._rng
        n_labels, K = Y.shape[1], int(self.n_chains)
        orders = [rng.permutation(n_labels) for _ in range(K)] if first_call else self.orders_
        sampler = _batch_generator(rng, X) if online else rng
        membership = self._sample_weights(X.shape[0], sampler, online=online)
        # Groups of chain k: its labels (columns k*(L+1) .. k*(L+1)+L-1), then its sample.
        blocks = []
        for k in range(K):
            member = membership[:, [k]]
            blocks += [Y.multiply(member), sp.csr_matrix(member)]
        G = sp.hstack(blocks, format="csr")
        events = self._event_model()
        prepared = events.prepare(X, caller=type(self).__name__)
        features = GroupStats.from_data(prepared, G, weight, second_moments=events.second_moments)
        labels = GroupStats.from_data(Y, G, weight, second_moments=False)
        if not first_call:
            features = self.feature_stats_.copy().merge(features)
            labels = self.label_stats_.copy().merge(labels)
        self._install_ensemble(features, labels, events, n_labels)
        self.orders_ = orders
        self._rng = rng
        return self

    def _install_ensemble(self, features, labels, events, n_labels):
        self.events_ = events
        self.feature_stats_ = features
        self.label_stats_ = labels
        self.n_labels_ = n_labels
        self.classes_ = binary_classes(n_labels)
        self._chain_model(0)  # checks the hyper-parameters now, not at prediction

    def _chain_model(self, k):
        """Chain k's feature parameters, prior log-odds and label-pair terms.

        Derived from the shared statistics when needed rather than stored: K chains' L x L
        pair terms and feature parameters would be most of the model's memory (delicious:
        222 MiB against 116 MiB of statistics), and deriving them costs a few
        milliseconds per chain.
        """
        n_labels = self.n_labels_
        groups = slice(k * (n_labels + 1), k * (n_labels + 1) + n_labels)
        total = k * (n_labels + 1) + n_labels
        member = self.feature_stats_.select_groups(groups, total_group=total)
        pairs = self.label_stats_.select_groups(groups, total_group=total)
        return (
            feature_parameters(self.events_, member),
            log_prior_odds(member.count, member.total_count, self.prior_alpha),
            label_log_odds(pairs, self.label_alpha),
        )

    def _fit_generic(self, X, y, sample_weight):
        X = validate_data(self, X, accept_sparse="csr", reset=True)
        Y = check_label_matrix(y, X.shape[0])
        rng = check_random_state(self.random_state)
        self.n_labels_ = Y.shape[1]
        self.classes_ = binary_classes(self.n_labels_)
        self.orders_ = [rng.permutation(self.n_labels_) for _ in range(int(self.n_chains))]
        membership = self._sample_weights(X.shape[0], rng, online=False)
        self.estimators_ = []
        for k, order in enumerate(self.orders_):
            rows = np.repeat(np.arange(X.shape[0]), membership[:, k].astype(int))
            chain = ClassifierChain(base_estimator=self.base_estimator, order=order)
            w = None if sample_weight is None else np.asarray(sample_weight)[rows]
            self.estimators_.append(chain.fit(X[rows], Y[rows], sample_weight=w))
        return self

    def merge(self, other):
        """Add the statistics of an ensemble fitted with the same seed on other rows."""
        check_mergeable(self, other, "n_labels_", "n_features_in_", "orders_")
        self._install_ensemble(
            self.feature_stats_.copy().merge(other.feature_stats_),
            self.label_stats_.copy().merge(other.label_stats_),
            self.events_,
            self.n_labels_,
        )
        return self

    # ---- prediction ---------------------------------------------------------------------
    def _chain_outputs(self, X):
        """Each chain's 0/1 labels and (soft voting) its conditional probabilities."""
        soft = self.voting == "soft"
        if self.base_estimator is not None:
            check_is_fitted(self, "estimators_")
            for chain in self.estimators_:
                yield chain.predict(X), chain.predict_proba(X) if soft else None
            return
        prepared = self._prepared(X)
        for k, order in enumerate(self.orders_):
            params, prior, (weight, absent) = self._chain_model(k)
            base = feature_log_odds(self.events_, None, prepared, params=params) + prior
            labels, log_odds = chain_search(
                base,
                weight,
                absent,
                order,
                self.inference,
                beam_width=self.beam_width,
                conditional=soft,
            )
            yield labels, expit(log_odds) if soft else None

    def predict_proba(self, X):
        """Mean over chains of the 0/1 responses ("hard") or probabilities ("soft")."""
        total = None
        for labels, proba in self._chain_outputs(X):
            response = proba if self.voting == "soft" else labels
            total = response.astype(np.float64) if total is None else total + response
        return total / int(self.n_chains)

    def predict(self, X):
        """``[mean over chains > 0.5]`` for every label (seed 003, eq. 22)."""
        return (self.predict_proba(X) > 0.5).astype(int)


def _batch_generator(rng, X):
    """Random numbers for one online batch: from the model's stream and the batch's content.

    Copies of a model with the same seed (the partitions of a distributed fit) then draw
    different memberships for different data, while a rerun stays reproducible.
    """
    parts = (X.data, X.indices, X.indptr) if sp.issparse(X) else (np.ascontiguousarray(X),)
    digest = 0
    for part in parts:
        digest = zlib.crc32(np.ascontiguousarray(part).view(np.uint8), digest)
    return np.random.RandomState(
        np.random.SeedSequence([rng.randint(2**31 - 1), digest]).generate_state(1)
    )
