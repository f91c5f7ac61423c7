"""Bagged binary relevance: K binary-relevance models, each on a sample of the rows.

The binary-relevance counterpart of :class:`~mlnb.multilabel.EnsembleClassifierChains`
(Read et al. 2009 compare the two; Trajdos and Kurzynski 2017, Table 2, pair each chain
ensemble with one): the same samples, drawn by the same code in the same order
(:mod:`._sampling`), so that with the same seed member k sees the rows of chain k and a
comparison of the two isolates the chaining.
"""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from ..base.validation import COUNT, N_JOBS, VERBOSE, check_label_matrix
from ..limits import Cost
from ._base import NB_CONSTRAINTS, VOTING, MultiLabelEstimator
from ._labels import binary_classes
from ._out_of_bag import RULE_CONSTRAINT, OutOfBag, apply_rule, settle_rule
from ._progress import run_members
from ._resolution import finite_scores
from ._sampling import chain_draws
from ._tuned_events import choose_events, member_events
from .binary_relevance import BinaryRelevance

__all__ = ["BaggedBinaryRelevance"]


class BaggedBinaryRelevance(MultiLabelEstimator):
    """K binary-relevance models, each on a sample of the rows; their mean vote.

    Parameters
    ----------
    n_estimators : int, default=10
        K, the number of members.
    events : str or event model, default="tuned"
        Event model of the Naive Bayes members; ``"tuned"``: the one
        :class:`~mlnb.BinaryRelevance` chooses on the same rows by cross-validation (one
        search by fold subtraction, ``events_`` after fit).
    sample_fraction : float, default=0.66
        Share of the rows each member sees: drawn without replacement, or with replacement
        (``bootstrap=True``, a bootstrap sample of that size).
    bootstrap : bool, default=False
    voting : {"hard", "soft"}, default="hard"
        "hard": :meth:`predict_proba` is the share of members predicting each label;
        "soft": the mean of their probabilities. ``predict`` thresholds it at 0.5.
    rule : "tuned", "predict", rule name or rule object, default="tuned"
        The decision. ``"predict"``: the vote at 0.5; ``"tuned"``: the vote unless a rule
        of :mod:`mlnb.decision_rules` fitted to :meth:`decision_function` wins by one
        standard error of micro F1 on the training rows scored out of bag (each by the
        members that did not see it; ``rule_``, ``chosen_``); a rule name or object: that
        rule, fitted out of bag; a fitted rule (``chosen_params_``): as given.
    prior_alpha : float, default=0.0
        As :class:`BinaryRelevance`.
    base_estimator : classifier or None, default=None
        If given, the members are ``BinaryRelevance(base_estimator=...)`` of its clones.
    random_state : int, RandomState or None, default=None
        The samples: drawn as :class:`EnsembleClassifierChains` with the same seed draws
        them (its label orders first), so that member k has the rows of chain k.
    missing : {"error", "ignore"}, default="error"
        As :class:`BinaryRelevance`.
    n_jobs : int or None, default=None
        Members fitted at once (threads, as joblib: None is 1 unless in a
        ``joblib.parallel_config`` context, -1 every core); the members are the same for
        every value.
    verbose : int, default=0
        At >= 1, a line to stderr as each member is fitted, with the time elapsed.

    Attributes
    ----------
    estimators_ : list of BinaryRelevance
        The members, member k fitted on its sample (each row repeated as many times as the
        sample holds it).

    Examples
    --------
    >>> from mlnb import BaggedBinaryRelevance, EnsembleClassifierChains
    >>> from mlnb.datasets import make_multilabel
    >>> X, Y = make_multilabel(200, 8, 4, random_state=0)
    >>> bagged = BaggedBinaryRelevance(n_estimators=5, random_state=1).fit(X, Y)
    >>> bagged.predict(X[:2]).shape
    (2, 4)
    >>> memberships = bagged.memberships(len(X), Y.shape[1])  # the rows of each member
    >>> memberships.shape
    (200, 5)
    """

    @classmethod
    def _unit_test_params(cls):
        return [{"n_estimators": 3, "random_state": 0}]

    def __init__(
        self,
        *,
        n_estimators=10,
        events="tuned",
        sample_fraction=0.66,
        bootstrap=False,
        voting="hard",
        rule="tuned",
        prior_alpha=0.0,
        base_estimator=None,
        random_state=None,
        missing="error",
        n_jobs=None,
        verbose=0,
    ):
        self.n_estimators = n_estimators
        self.events = events
        self.sample_fraction = sample_fraction
        self.bootstrap = bootstrap
        self.voting = voting
        self.rule = rule
        self.prior_alpha = prior_alpha
        self.base_estimator = base_estimator
        self.random_state = random_state
        self.missing = missing
        self.n_jobs = n_jobs
        self.verbose = verbose

    _parameter_constraints: ClassVar[dict] = {
        "events": NB_CONSTRAINTS["events"],
        "prior_alpha": NB_CONSTRAINTS["prior_alpha"],
        "random_state": NB_CONSTRAINTS["random_state"],
        "missing": NB_CONSTRAINTS["missing"],
        "n_estimators": [COUNT],
        "sample_fraction": [Interval(Real, 0, 1, closed="right")],
        "bootstrap": ["boolean"],
        "voting": [VOTING],
        "rule": RULE_CONSTRAINT,
        "base_estimator": [HasMethods(["fit", "predict"]), None],
        "n_jobs": N_JOBS,
        "verbose": VERBOSE,
    }

    def memberships(self, n_samples, n_labels):
        """How many times each of ``n_samples`` rows is in each member's sample, shape
        (n_samples, n_estimators): what :meth:`fit` draws from ``random_state``."""
        rng = check_random_state(self.random_state)
        _, memberships = chain_draws(
            rng, n_samples, n_labels, self.n_estimators, self.sample_fraction, self.bootstrap
        )
        return memberships

    def _planned_cost(self, n_samples, n_features, n_labels):
        """The members' statistics (L label models each) and samples; a step per member,
        row and label."""
        E = int(self.n_estimators)
        values = E * (2 * n_labels * n_features + n_samples)
        return Cost(values, E * n_samples * n_labels, {"n_estimators": E})

    def fit(self, X, y, sample_weight=None, memberships=None):
        """Fit each member on its sample.

        ``memberships``: how many times each row is in each member's sample, an array of
        non-negative integers of shape (n_samples, n_estimators); None draws them from
        ``random_state`` (:meth:`memberships`: the rows of chain k of an
        :class:`EnsembleClassifierChains` with the same parameters and seed).
        """
        self._validate_params()
        X = self._validate_X(X, reset=True)
        Y = check_label_matrix(y, X.shape[0])
        weight = None
        if sample_weight is not None:
            weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        if self.base_estimator is None:
            choose_events(self, X, Y, weight)
        if memberships is None:
            memberships = self.memberships(X.shape[0], Y.shape[1])
        memberships = self._check_memberships(memberships, X.shape[0])
        self.n_labels_ = Y.shape[1]
        self.classes_ = binary_classes(self.n_labels_)
        members = run_members(
            self._fit_member,
            [(X, Y, weight, memberships[:, k]) for k in range(int(self.n_estimators))],
            n_jobs=self.n_jobs,
            verbose=self.verbose,
            owner=type(self).__name__,
            # the Naive Bayes statistics are numpy/scipy products, which release the GIL,
            # and threads share X instead of copying it to every process
            prefer="threads",
        )
        self.estimators_ = list(members)

        def held_out(rows):  # the members' scores of these rows, out of their samples
            return self._out_of_bag(X[rows], memberships[rows])

        settle_rule(self, Y, held_out, any_out=(memberships == 0).any())
        return self

    def _out_of_bag(self, X, memberships):
        """Every member's scores and labels of the rows out of its sample."""
        held_out = OutOfBag(X.shape[0], self.n_labels_, soft=self.voting == "soft")
        for k, member in enumerate(self.estimators_):
            if self.base_estimator is None:  # the log-odds and the 0.5 rule's labels at once
                scores, labels = member._scores_and_own_labels(X)
            else:
                scores, labels = member.decision_function(X), member.predict(X)
            held_out.add(scores, labels, memberships[:, k] > 0)
        return held_out

    def _fit_member(self, X, Y, weight, times):
        """A member fitted on its sample: each row repeated ``times`` times."""
        rows = np.repeat(np.arange(X.shape[0]), times)
        w = None if weight is None else weight[rows]
        return self._member().fit(X[rows], Y[rows], sample_weight=w)

    def _check_memberships(self, memberships, n_samples):
        counts = np.asarray(memberships)
        shape = (n_samples, int(self.n_estimators))
        if counts.shape != shape:
            raise ValueError(
                f"memberships must have shape (n_samples, n_estimators) = {shape}; got "
                f"{counts.shape}"
            )
        if not (np.all(np.isfinite(counts)) and np.all(counts >= 0) and np.all(counts % 1 == 0)):
            raise ValueError("memberships must be non-negative integers (times a row is drawn)")
        if np.any(counts.sum(axis=0) == 0):
            raise ValueError("every member needs at least one row: a column of memberships is 0")
        return counts.astype(np.intp)

    def _member(self):
        if self.base_estimator is None:
            return BinaryRelevance(
                events=member_events(self),
                rule="predict",  # the members vote with their own 0.5 rule
                prior_alpha=self.prior_alpha,
                missing=self.missing,
            )
        return BinaryRelevance(base_estimator=clone(self.base_estimator), missing=self.missing)

    def _checked(self, X):
        check_is_fitted(self, "estimators_")
        return self._validate_X(X, reset=False)

    def predict_proba(self, X):
        """The members' vote for each label, shape (n_samples, n_labels): the share
        predicting it ("hard" voting) or their mean probability ("soft")."""
        X = self._checked(X)
        if self.voting == "soft":
            votes = [member.predict_proba(X) for member in self.estimators_]
        else:
            votes = [member.predict(X) for member in self.estimators_]
        return np.mean(np.asarray(votes, dtype=np.float64), axis=0)

    def decision_function(self, X):
        """Soft label scores for ranking and thresholding, (n_samples, n_labels): the mean
        of the members' log-odds (finite ones as they are, +-inf bounded)."""
        X = self._checked(X)
        scores = [finite_scores(member.decision_function(X)) for member in self.estimators_]
        return np.mean(scores, axis=0)

    def predict(self, X):
        """``[vote > 0.5]`` for every label (the vote of :meth:`predict_proba`), or the
        fitted ``rule_`` on :meth:`decision_function`."""
        return apply_rule(self, X, lambda X: (self.predict_proba(X) > 0.5).astype(int))
