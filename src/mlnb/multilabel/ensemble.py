"""Ensembles of classifier chains (ECC, Read et al. 2009).

K chains with random orders, each trained on a sample of the rows; the answer is the mean
of the chains' 0/1 responses thresholded at 0.5 (Trajdos and Kurzynski, eq. 22). With Naive
Bayes, the K sets of statistics come from one weighted pass: the grouping matrix stacks
every chain's label columns restricted to its sample, then one column per chain for the
sample itself (its totals), so ``G.T @ X`` computes all of them at once
(:meth:`~mlnb.stats.GroupStats.from_member_labels`). At prediction, the chains' models are
derived from these statistics and scored together: one stacked product for the features of
all the chains' labels and one greedy search that advances every chain at each step.
"""

from __future__ import annotations

import zlib
from numbers import Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, logit
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ..base.state import atomic, check_mergeable
from ..base.validation import COUNT, N_JOBS, VERBOSE, check_label_matrix
from ..events.auto import TUNED
from ..limits import Cost
from ..stats import GroupStats
from ._base import (
    NB_CONSTRAINTS,
    MultiLabelNB,
    check_same_choice,
    count_new_labels,
    drop_rule,
)
from ._generic import check_nb_path
from ._inference import chain_search, stacked_layout, stacked_search
from ._label_model import (
    LABEL_PRIORS,
    feature_log_odds,
    feature_parameters,
    label_log_odds,
    log_prior_odds,
)
from ._labels import binary_classes, extended_order
from ._out_of_bag import RULE_CONSTRAINT, OutOfBag, apply_rule, settle_rule
from ._progress import run_members
from ._resolution import finite_scores
from ._sampling import chain_draws, sample_memberships
from ._tuned_events import choose_events
from .chain import ClassifierChain

__all__ = ["EnsembleClassifierChains"]

# Floats of stacked arrays (base log-odds, feature parameters) for the chains scored
# together at prediction: 2**22 (32 MiB) takes all ten chains of enron and yeast at once,
# three of bibtex and one of delicious (a chain there is 3.6 M floats).
_STACK_BUDGET = 1 << 22


class EnsembleClassifierChains(MultiLabelNB):
    """Ensemble of classifier chains with random orders, each on a sample of the rows.

    Parameters
    ----------
    n_chains : int, default=10
    events : str or event model, default="tuned"
        Event model of the Naive Bayes members; ``"tuned"``: the one
        :class:`~mlnb.BinaryRelevance` chooses on the same rows by cross-validation (one
        search by fold subtraction, ``events_`` after fit).
    sample_fraction : float, default=0.66
        Share of the rows each chain sees: drawn without replacement, or with replacement
        (``bootstrap=True``, a bootstrap sample of that size).
    bootstrap : bool, default=False
    inference : {"greedy", "beam", "exact"}, default="greedy"
    beam_width : int, default=5
    voting : {"hard", "soft"}, default="hard"
        "hard": mean of the chains' 0/1 predictions (eq. 22); "soft": mean of their
        probabilities. ``predict`` thresholds that mean at 0.5.
    rule : "tuned", "predict", rule name or rule object, default="tuned"
        The decision. ``"predict"``: the vote at 0.5 (Read et al.'s); ``"tuned"``: the
        vote unless a rule of :mod:`mlnb.decision_rules` fitted to
        :meth:`decision_function` wins by one standard error of micro F1 on the training
        rows scored out of bag (each by the chains that did not see it; ``rule_``,
        ``chosen_``); a rule name or object: that rule, fitted out of bag; a fitted rule
        (``chosen_params_``): as given. Chosen on the first batch and kept.
    prior_alpha : float
        As in :class:`ClassifierChain`.
    label_alpha : float or "tuned", default="tuned"
    label_prior : {"uniform", "marginal", "tuned"}, default="tuned"
        The chains' label terms, as in :class:`ClassifierChain`. ``"tuned"`` (with the
        event model or rule ``"tuned"``): chosen with the event model by one search of a
        chain out of fold (``label_terms_``; no refit of the chains), the label terms
        nearly silent unless others win by one standard error; measured on bibtex, the
        classic terms (Laplace's, uniform) give micro F1 0.332, those chosen 0.383. With
        the event model and rule given: Laplace's (the classic chain's, Read et al.'s).
    base_estimator : classifier or None, default=None
        If given, K generic chains of its clones (no shared pass).
    random_state : int, RandomState or None, default=None
        Orders and samples; the same seed gives the same ensemble.
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.
    n_jobs : int or None, default=None
        With ``base_estimator``: chains fitted at once (threads, as joblib: None is 1
        unless in a ``joblib.parallel_config`` context, -1 every core); the chains are the
        same for every value. The Naive Bayes path fits every chain in one pass and does
        not use it.
    verbose : int, default=0
        With ``base_estimator``, at >= 1: a line to stderr as each chain is fitted, with
        the time elapsed.

    Notes
    -----
    ``partial_fit`` (NB path) samples online: each new row joins chain k with probability
    ``sample_fraction`` (or, with ``bootstrap``, Poisson(sample_fraction) times; Oza 2005).
    """

    _uses_label_pairs = True

    @classmethod
    def _unit_test_params(cls):
        return [{"n_chains": 3, "random_state": 0}]

    def __init__(
        self,
        *,
        n_chains=10,
        events="tuned",
        sample_fraction=0.66,
        bootstrap=False,
        inference="greedy",
        beam_width=5,
        voting="hard",
        rule="tuned",
        prior_alpha=0.0,
        label_alpha="tuned",
        label_prior="tuned",
        base_estimator=None,
        random_state=None,
        missing="error",
        n_jobs=None,
        verbose=0,
    ):
        self.n_chains = n_chains
        self.events = events
        self.sample_fraction = sample_fraction
        self.bootstrap = bootstrap
        self.inference = inference
        self.beam_width = beam_width
        self.voting = voting
        self.rule = rule
        self.prior_alpha = prior_alpha
        self.label_alpha = label_alpha
        self.label_prior = label_prior
        self.base_estimator = base_estimator
        self.random_state = random_state
        self.missing = missing
        self.n_jobs = n_jobs
        self.verbose = verbose

    _parameter_constraints: ClassVar[dict] = {
        **NB_CONSTRAINTS,
        "n_jobs": N_JOBS,
        "verbose": VERBOSE,
        "n_chains": [COUNT],
        "sample_fraction": [Interval(Real, 0, 1, closed="right")],
        "bootstrap": ["boolean"],
        "inference": [StrOptions({"greedy", "beam", "exact"})],
        "beam_width": [COUNT],
        "voting": [StrOptions({"hard", "soft"})],
        "rule": RULE_CONSTRAINT,
        "label_alpha": [Interval(Real, 0, None, closed="left"), StrOptions({TUNED})],
        "label_prior": [StrOptions({*LABEL_PRIORS, TUNED})],
    }

    def _planned_cost(self, n_samples, n_features, n_labels):
        """K chains' statistics (L + 1 groups of features and labels each) and samples;
        a step per chain, row, label (and beam entry)."""
        K = int(self.n_chains)
        beam = int(self.beam_width) if self.inference == "beam" else 1
        params = {"n_chains": K, **({"beam_width": beam} if beam > 1 else {})}
        values = K * ((n_labels + 1) * (2 * n_features + n_labels) + n_samples)
        return Cost(values, K * n_samples * n_labels * beam, params)

    # ---- fitting ------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit K chains: one weighted pass on the NB path."""
        self._validate_params()
        for attribute in ("feature_stats_", "label_stats_", "orders_", "_rng"):
            self.__dict__.pop(attribute, None)
        if self.base_estimator is not None:
            return self._fit_generic(X, y, sample_weight)
        return self.partial_fit(X, y, sample_weight, _online=False)

    def partial_fit(self, X, y, sample_weight=None, *, _online=True):
        """Add a batch of rows, sampled online into the chains (NB path only).

        New labels (columns after the known ones, 0 in every earlier row) join the end of
        every chain's order.
        """
        check_nb_path(self, "partial_fit")
        self._validate_params()
        return self._partial_fit_ensemble(X, y, sample_weight, online=_online)

    @atomic
    def _partial_fit_ensemble(self, X, Y, sample_weight, *, online):
        first_call = not hasattr(self, "feature_stats_")
        X = self._validate_X(X, reset=first_call)
        Y = check_label_matrix(Y, X.shape[0], sparse=True)
        new_labels = 0 if first_call else count_new_labels(self, Y.shape[1])
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        rng = check_random_state(self.random_state) if first_call else self._rng
        n_labels, K = Y.shape[1], int(self.n_chains)
        if first_call and not online:
            orders, membership = chain_draws(
                rng, X.shape[0], n_labels, K, self.sample_fraction, self.bootstrap
            )
        else:
            orders = [rng.permutation(n_labels) for _ in range(K)] if first_call else self.orders_
            if new_labels:  # labels first seen now join the end of every chain
                orders = [extended_order(order, n_labels) for order in orders]
            membership = sample_memberships(
                _batch_generator(rng, X),
                X.shape[0],
                K,
                self.sample_fraction,
                self.bootstrap,
                online=True,
            )
        # Groups: chain k's labels are k*L .. k*L+L-1; its sample (all its rows) is K*L+k.
        if first_call:
            choose_events(self, X, Y, weight)
        events = self.event_model(X if first_call else None)
        prepared = self._bound_events(events).prepare(X, caller=type(self).__name__)
        features = GroupStats.from_member_labels(
            prepared, Y, membership, weight, second_moments=events.second_moments
        )
        labels = GroupStats.from_member_labels(Y, Y, membership, weight, second_moments=False)
        if not first_call:
            known_features, known_labels = self._statistics_with_new_labels(new_labels)
            features = known_features.merge(features)
            labels = known_labels.merge(labels)
        self._install_ensemble(features, labels, events, n_labels)
        self.orders_ = orders
        self._rng = rng
        if first_call:
            self._settle_rule(X, Y, membership)
        elif new_labels and self.rule_ is not None:
            drop_rule(self, n_labels - new_labels)
        return self

    def _settle_rule(self, X, Y, membership):
        """``rule_`` as given, or chosen on the rows out of each chain's sample
        (:func:`~._out_of_bag.settle_rule`; ``membership``: times each row is in each
        chain's sample)."""

        def held_out(rows):
            return self._out_of_bag(X[rows], membership[rows])

        settle_rule(self, Y, held_out, any_out=(membership == 0).any())

    def _out_of_bag(self, X, membership):
        """Every chain's scores and labels of the rows out of its sample (``membership``:
        how many times each row is in each chain's sample)."""
        held_out = OutOfBag(X.shape[0], self.n_labels_, soft=self.voting == "soft")
        chain = 0
        for labels, log_odds in self._chain_outputs(X, log_odds=True):
            for k in range(labels.shape[0]):
                held_out.add(log_odds[k], labels[k], membership[:, chain] > 0)
                chain += 1
        return held_out

    def _statistics_with_new_labels(self, n_new):
        """Copies of the statistics with ``n_new`` labels appended, 0 in every row so far.

        Chain c's label j moves from group ``c * L + j`` to ``c * (L + n_new) + j``, and its
        sample from ``K * L + c`` to ``K * (L + n_new) + c``; the new groups are empty and
        the new label features (of the label statistics) zero.
        """
        L, K = self.n_labels_, self._n_members()
        grown = L + n_new
        chain, label = np.divmod(np.arange(K * L), L)
        index = np.concatenate([chain * grown + label, K * grown + np.arange(K)])
        features = self.feature_stats_.placed(index, K * grown + K)
        labels = self.label_stats_.placed(index, K * grown + K)
        return features, labels.add_features(n_new) if n_new else labels

    def _install_ensemble(self, features, labels, events, n_labels):
        self.events_ = events
        self.feature_stats_ = features
        self.label_stats_ = labels
        self.n_labels_ = n_labels
        self.classes_ = binary_classes(n_labels)
        self._chain_model(0, n_labels=1)  # checks the hyper-parameters now, not at prediction

    def _label_smoothing(self):
        """``(label_alpha, label_prior)`` in force (chosen where ``"tuned"``)."""
        terms = self._label_terms()
        return terms["label_alpha"], terms["label_prior"]

    def _n_members(self):
        """The number of chains whose statistics are fitted: L + 1 groups each."""
        return self.feature_stats_.n_groups // (self.n_labels_ + 1)

    def _chain_model(self, k, n_labels=None):
        """Chain k's feature parameters, prior log-odds and label-pair terms.

        Derived from the shared statistics when needed rather than stored: K chains' L x L
        pair terms and feature parameters would be most of the model's memory (delicious:
        222 MiB against 116 MiB of statistics), and deriving them costs a few
        milliseconds per chain. ``n_labels``: of the first labels only (a quick check of
        the hyper-parameters at fit time).
        """
        total = self._n_members() * self.n_labels_ + k
        start = k * self.n_labels_
        groups = slice(start, start + (self.n_labels_ if n_labels is None else n_labels))
        member = self.feature_stats_.select_groups(groups, total_group=total)
        pairs = self.label_stats_.select_groups(groups, total_group=total)
        alpha, label_prior = self._label_smoothing()
        return (
            feature_parameters(self.events_, member),
            log_prior_odds(member.count, member.total_count, self.prior_alpha),
            label_log_odds(pairs, alpha, prior=label_prior),
        )

    def _fit_generic(self, X, y, sample_weight):
        X = validate_data(self, X, accept_sparse="csr", reset=True)
        Y = check_label_matrix(y, X.shape[0])
        rng = check_random_state(self.random_state)
        self.n_labels_ = Y.shape[1]
        self.classes_ = binary_classes(self.n_labels_)
        self.orders_, membership = chain_draws(
            rng, X.shape[0], self.n_labels_, self.n_chains, self.sample_fraction, self.bootstrap
        )
        chains = run_members(
            self._fit_chain,
            [
                (X, Y, sample_weight, order, membership[:, k])
                for k, order in enumerate(self.orders_)
            ],
            n_jobs=self.n_jobs,
            verbose=self.verbose,
            owner=type(self).__name__,
            # threads share X (measured: faster than processes for LogisticRegression
            # members); joblib.parallel_config(backend="loky") gives processes
            prefer="threads",
        )
        self.estimators_ = list(chains)
        self._settle_rule(X, Y, membership)
        return self

    def _fit_chain(self, X, Y, sample_weight, order, times):
        """A generic chain in ``order`` on its sample: each row repeated ``times`` times."""
        rows = np.repeat(np.arange(X.shape[0]), times.astype(int))
        chain = ClassifierChain(base_estimator=self.base_estimator, order=order)
        w = None if sample_weight is None else np.asarray(sample_weight)[rows]
        return chain.fit(X[rows], Y[rows], sample_weight=w)

    def merge(self, other):
        """Add the statistics of an ensemble fitted with the same seed on other rows.

        The decision rule stays this model's (``rule_``, chosen on its first batch): fit
        the parts with ``clone(model).set_params(**model.chosen_params_)`` so that they
        share it, as :func:`mlnb.distributed.fit` does."""
        check_mergeable(self, other, "n_labels_", "n_features_in_", "orders_")
        check_same_choice(self, other)
        self._install_ensemble(
            self.feature_stats_.copy().merge(other.feature_stats_),
            self.label_stats_.copy().merge(other.label_stats_),
            self.events_,
            self.n_labels_,
        )
        return self

    # ---- prediction ---------------------------------------------------------------------
    def _chain_groups(self, chains):
        """Groups of consecutive chains' labels (a slice), of each one's sample, and the
        chain (0 .. len(chains) - 1) of every label group."""
        n_labels, first = self.n_labels_, int(chains[0])
        labels = slice(first * n_labels, (first + len(chains)) * n_labels)
        samples = self._n_members() * n_labels + np.asarray(chains)
        return labels, samples, np.repeat(np.arange(len(chains)), n_labels)

    def _stacked_models(self, chains, prepared):
        """The chains' models stacked, what :meth:`_chain_model` gives for several at once,
        with their feature log-odds of ``prepared``.

        Returns ``(base, prior, weight, absent)``: the feature log-odds of all the chains'
        labels for ``prepared`` (n_samples x n_chains * n_labels, one stacked scoring),
        the prior log-odds (n_chains * n_labels,) and the pair terms (n_chains, n_labels,
        n_labels); or None when the event model cannot stack its estimates (then chain by
        chain).
        """
        groups, samples, member = self._chain_groups(chains)
        within = samples[member]
        features = self.feature_stats_
        base = self.events_.stacked_log_odds(features, groups, samples, member, prepared)
        if base is None:
            return None
        prior = log_prior_odds(features.count[groups], features.count[within], self.prior_alpha)
        pairs = self.label_stats_  # every chain's pair terms in one pass
        alpha, label_prior = self._label_smoothing()
        weight, absent = label_log_odds(
            pairs.select_groups(groups, copy=False),
            alpha,
            negative=pairs.complement_within(groups, within),
            prior=label_prior,
        )
        shape = (len(samples), self.n_labels_, self.n_labels_)
        return base, prior, weight.reshape(shape), absent.reshape(shape)

    def _chain_batches(self, n_samples):
        """Chains scored together: as many as keep the stacked arrays near _STACK_BUDGET."""
        n_chains = len(self.orders_)
        per_chain = self.n_labels_ * (n_samples + 3 * self.n_features_in_)
        size = max(1, min(n_chains, _STACK_BUDGET // max(per_chain, 1)))
        return [np.arange(k, min(k + size, n_chains)) for k in range(0, n_chains, size)]

    def _chain_outputs(self, X, *, log_odds=False):
        """Batches of chains' 0/1 labels and (soft voting, or ``log_odds``) their
        conditional log-odds along each chain's path.

        Yields arrays of shape (chains in the batch, n_samples, n_labels): on the Naive
        Bayes path, a batch of chains shares one scoring of the features (stacked
        parameters) and one greedy search (:func:`._inference.stacked_search`).
        """
        soft = self.voting == "soft" or log_odds
        if self.base_estimator is not None:
            check_is_fitted(self, "estimators_")
            for chain in self.estimators_:
                scores = None
                if soft:
                    with np.errstate(divide="ignore"):
                        scores = logit(chain.predict_proba(X))[None]
                yield chain.predict(X)[None], scores
            return
        prepared = self._prepared(X)
        events = self._bound_events()
        n_labels = self.n_labels_
        for batch in self._chain_batches(prepared.shape[0]):
            stacked = self._stacked_models(batch, prepared)
            if stacked is None:
                for k in batch:
                    params, prior, (weight, absent) = self._chain_model(k)
                    base = feature_log_odds(events, None, prepared, params=params)
                    base += prior
                    yield self._search(base, weight, absent, self.orders_[k], soft)
                continue
            base, prior, weight, absent = stacked
            del stacked
            base += prior
            if self.inference == "greedy":
                orders = np.asarray([self.orders_[k] for k in batch])
                layout = stacked_layout(base, weight, absent, orders)
                del base  # the layout holds the search's copy
                labels, scores = stacked_search(*layout, conditional=soft)
                yield labels, scores if soft else None
                continue
            for i, k in enumerate(batch):
                chain_base = base[:, i * n_labels : (i + 1) * n_labels]
                yield self._search(chain_base, weight[i], absent[i], self.orders_[k], soft)

    def _search(self, base, weight, absent, order, soft):
        """One chain's labels and (soft) conditional log-odds, each of shape (1, n, L)."""
        labels, log_odds = chain_search(
            base,
            weight,
            absent,
            order,
            self.inference,
            beam_width=self.beam_width,
            conditional=soft,
        )
        return labels[None], log_odds[None] if soft else None

    def predict_proba(self, X):
        """Mean over chains of the 0/1 responses ("hard") or probabilities ("soft")."""
        total = None
        for labels, log_odds in self._chain_outputs(X):
            response = expit(log_odds) if self.voting == "soft" else labels
            response = response.sum(axis=0, dtype=np.float64)
            total = response if total is None else total + response
        return total / int(self.n_chains)

    def decision_function(self, X):
        """Soft-voting label scores for ranking and thresholding, (n_samples, n_labels).

        The mean over chains of each chain's log-odds of every label along its predicted
        path, finite log-odds as they are (+-inf, a constant label, bounded): unlike the
        vote fractions of hard voting, it ranks rows and labels finely, and a cut fitted
        to it (``rule_``) keeps its place.
        """
        total = None
        for _, log_odds in self._chain_outputs(X, log_odds=True):
            part = finite_scores(log_odds).sum(axis=0)
            total = part if total is None else total + part
        return total / int(self.n_chains)

    def predict(self, X):
        """``[mean over chains > 0.5]`` for every label (Trajdos and Kurzynski, eq. 22),
        or the fitted ``rule_`` on :meth:`decision_function`."""
        return apply_rule(self, X, lambda X: (self.predict_proba(X) > 0.5).astype(int))


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
