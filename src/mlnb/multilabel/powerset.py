"""Label powerset (LP) and RAkEL (Tsoumakas et al. 2011).

LP treats each distinct label set as one class of a multi-class classifier. RAkEL trains LP
on random k-label subsets: overlapping subsets whose votes are averaged per label and
thresholded (RAkEL-o, the default: k = 3, m = 10 as in the NaiBX paper's comparison), or a
partition of the labels into disjoint subsets (RAkEL-d). The Naive Bayes path keeps one
:class:`~mlnb.stats.GroupStats` per subset over its label-set classes; classes first seen
in a later ``partial_fit`` batch are appended.
"""

from __future__ import annotations

import math
from functools import partial
from numbers import Real
from typing import ClassVar

import numpy as np
from scipy.special import logit, logsumexp
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ..base.state import atomic, check_mergeable
from ..base.validation import COUNT, LOG_ODDS_BOUND, N_JOBS, VERBOSE, check_label_matrix
from ..events.categorical import check_pseudo_count, log_categorical, log_normalise
from ..limits import Cost
from ..stats import GroupStats, one_hot
from ._base import (
    NB_CONSTRAINTS,
    MultiLabelEstimator,
    count_new_labels,
)
from ._generic import check_nb_path, fit_multiclass, multiclass_predictions
from ._labels import binary_classes
from ._progress import run_members
from ._resolution import finite_scores
from ._tuned_events import choose_events

__all__ = ["RAkEL", "LabelPowerset"]


def _encode(Y_subset, known):
    """Class index of every row's label set; ``known`` (list of tuples) grows in place."""
    sets, inverse = np.unique(Y_subset.astype(np.int8), axis=0, return_inverse=True)
    lookup = {label_set: i for i, label_set in enumerate(known)}
    mapping = np.empty(len(sets), dtype=np.intp)
    for i, row in enumerate(map(tuple, sets)):  # a loop over distinct label sets
        if row not in lookup:
            lookup[row] = len(known)
            known.append(row)
        mapping[i] = lookup[row]
    return mapping[inverse.ravel()]


class _PowersetEnsemble(MultiLabelEstimator):
    """Label-powerset classifiers on subsets of the labels, votes averaged per label."""

    _parameter_constraints: ClassVar[dict] = NB_CONSTRAINTS

    def _subsets(self, n_labels, rng):
        raise NotImplementedError

    def _grown_subsets(self, n_labels):
        """The label subsets once a batch brings labels up to ``n_labels``."""
        raise ValueError(
            f"Y has {n_labels} labels; this model was fitted with {self.n_labels_} "
            f"({type(self).__name__} draws its label subsets at the first fit and cannot add "
            "labels online; LabelPowerset, BinaryRelevance and the chains can)"
        )

    def fit(self, X, y, sample_weight=None):
        """Fit one label-powerset classifier per label subset."""
        self._validate_params()
        for attribute in ("subsets_", "stats_", "label_sets_", "estimators_"):
            self.__dict__.pop(attribute, None)
        if self.base_estimator is None:
            return self.partial_fit(X, y, sample_weight)
        X = validate_data(self, X, accept_sparse="csr", reset=True)
        Y = check_label_matrix(y, X.shape[0])
        self.n_labels_ = Y.shape[1]
        self.classes_ = binary_classes(self.n_labels_)
        self.subsets_ = self._subsets(self.n_labels_, check_random_state(self.random_state))
        self.label_sets_, problems = [], []
        for subset in self.subsets_:
            known = []
            problems.append((self.base_estimator, X, _encode(Y[:, subset], known), sample_weight))
            self.label_sets_.append(np.array(known, dtype=int).reshape(len(known), len(subset)))
        self.estimators_ = list(self._run(fit_multiclass, problems))
        return self

    def _run(self, function, arguments):
        """``function(*args)`` per subset, ``n_jobs`` at once, in subset order."""
        return run_members(
            function,
            arguments,
            n_jobs=self.n_jobs,
            verbose=self.verbose,
            owner=type(self).__name__,
            # the statistics are numpy/scipy products, which release the GIL, and threads
            # share X instead of copying it to every process
            prefer="threads",
        )

    def partial_fit(self, X, y, sample_weight=None):
        """Add a batch of rows (NB path); new label sets become new classes.

        LabelPowerset also takes new labels (columns after the known ones, 0 in every
        earlier row: the known sets are padded with zeros); RAkEL refuses them.
        """
        check_nb_path(self, "partial_fit")
        return self._partial_fit(X, y, sample_weight)

    @atomic
    def _partial_fit(self, X, Y, sample_weight):
        self._validate_params()
        first_call = not hasattr(self, "stats_")
        X = self._validate_X(X, reset=first_call)
        Y = check_label_matrix(Y, X.shape[0])
        new_labels = 0 if first_call else count_new_labels(self, Y.shape[1])
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        if first_call:
            choose_events(self, X, Y, weight)
        events = self.event_model(X if first_call else None)
        prepared = self._bound_events(events).prepare(X, caller=type(self).__name__)
        if first_call:
            subsets = self._subsets(Y.shape[1], check_random_state(self.random_state))
            old_stats, old_sets = [None] * len(subsets), [[] for _ in subsets]
        else:
            subsets = self._grown_subsets(Y.shape[1]) if new_labels else self.subsets_
            # a label first seen now was 0 in every known label set
            old_stats = self.stats_
            old_sets = [
                [(*known, *[0] * (len(subset) - len(known))) for known in map(tuple, sets)]
                for subset, sets in zip(subsets, self.label_sets_, strict=True)
            ]
        n_known = [len(known) for known in old_sets]
        groupings = [  # each subset's label sets, the known ones growing in place
            (prepared, one_hot(_encode(Y[:, subset], known), len(known)), weight)
            for subset, known in zip(subsets, old_sets, strict=True)
        ]
        batches = self._run(
            partial(GroupStats.from_data, second_moments=events.second_moments), groupings
        )
        stats, label_sets = [], []
        for subset, previous, known, n, batch in zip(
            subsets, old_stats, old_sets, n_known, batches, strict=True
        ):
            stats.append(
                batch if previous is None else previous.add_groups(len(known) - n).merge(batch)
            )
            label_sets.append(np.array(known, dtype=int).reshape(len(known), len(subset)))
        self.events_, self.subsets_, self.stats_, self.label_sets_ = (
            events,
            subsets,
            stats,
            label_sets,
        )
        self.n_labels_ = Y.shape[1]
        self.classes_ = binary_classes(self.n_labels_)
        self._params = [events.estimate(s) for s in stats]
        self._log_priors = [self._log_prior(s.count) for s in stats]
        return self

    def merge(self, other):
        """Add the statistics of a model fitted on other rows (NB path; same subsets).

        The other model's label sets are mapped onto this one's; sets it alone has seen
        become new classes.
        """
        check_mergeable(self, other, "n_labels_", "n_features_in_", "subsets_")
        check_nb_path(self, "merge")
        stats, label_sets = [], []
        for mine, theirs, my_sets, their_sets in zip(
            self.stats_, other.stats_, self.label_sets_, other.label_sets_, strict=True
        ):
            known = list(map(tuple, my_sets))
            index = _encode(their_sets, known)  # the other's class k is class index[k] here
            grown = mine.add_groups(len(known) - len(my_sets))
            stats.append(grown.merge(theirs.placed(index, len(known))))
            label_sets.append(np.array(known, dtype=int).reshape(len(known), -1))
        self.stats_, self.label_sets_ = stats, label_sets
        self._params = [self.events_.estimate(s) for s in stats]
        self._log_priors = [self._log_prior(s.count) for s in stats]
        return self

    def _log_prior(self, count):
        alpha = check_pseudo_count(self.prior_alpha)
        return log_categorical(count, count.sum(), len(count), alpha)

    def _subset_joints(self, X):
        """Per subset (NB path): its labels, its label sets and ``log P(x, set)``, (n x S)."""
        check_is_fitted(self, "subsets_")
        X = self._validate_X(X, reset=False)
        events = self._bound_events()
        prepared = events.prepare(X, caller=type(self).__name__)
        for subset, params, prior, sets in zip(
            self.subsets_, self._params, self._log_priors, self.label_sets_, strict=True
        ):
            yield subset, sets, events.score(params, prepared) + prior

    def _subset_marginals(self, X):
        """Per subset: (labels of the subset, P(label = 1 | x) for them, predicted 0/1)."""
        if self.base_estimator is None:
            for subset, sets, joint in self._subset_joints(X):
                posterior = np.exp(log_normalise(joint))
                yield subset, posterior @ sets, sets[np.argmax(joint, axis=1)]
            return
        check_is_fitted(self, "subsets_")
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        for subset, model, sets in zip(
            self.subsets_, self.estimators_, self.label_sets_, strict=True
        ):
            yield subset, *multiclass_predictions(model, X, sets)

    def _votes(self, X, *, use_probabilities):
        total = votes = None
        for subset, marginal, predicted in self._subset_marginals(X):
            if total is None:
                total = np.zeros((marginal.shape[0], self.n_labels_))
                votes = np.zeros(self.n_labels_)
            total[:, subset] += marginal if use_probabilities else predicted
            votes[subset] += 1
        with np.errstate(invalid="ignore"):
            return total / votes

    def decision_function(self, X):
        """Label scores for ranking and thresholding, (n_samples, n_labels): the log-odds of
        :meth:`predict_proba` (the mean over the subsets holding a label of its marginal),
        summed over the label sets in log space so that it does not saturate: finite
        log-odds as they are, +-inf (a label in every or no label set) bounded."""
        if self.base_estimator is not None:
            with np.errstate(divide="ignore"):
                scores = logit(self.predict_proba(X))
            return np.clip(scores, -LOG_ODDS_BOUND, LOG_ODDS_BOUND)
        positive = negative = None
        for subset, sets, joint in self._subset_joints(X):
            if positive is None:
                positive = np.full((joint.shape[0], self.n_labels_), -np.inf)
                negative = positive.copy()
            holding, lacking, total = _log_sides(joint, sets)
            with np.errstate(invalid="ignore"):  # a row whose every set is impossible
                positive[:, subset] = np.logaddexp(positive[:, subset], holding - total)
                negative[:, subset] = np.logaddexp(negative[:, subset], lacking - total)
        with np.errstate(invalid="ignore"):  # a label in no subset: probability 0
            odds = np.nan_to_num(positive - negative, nan=-np.inf)
        return finite_scores(odds)

    def predict_proba(self, X):
        """Per label, the mean over the subsets holding it of ``P(label = 1 | x)``."""
        return np.nan_to_num(self._votes(X, use_probabilities=True), nan=0.0)

    def predict(self, X):
        """Per label, the mean of the subsets' 0/1 votes above the threshold."""
        votes = self._votes(X, use_probabilities=False)
        return (np.nan_to_num(votes, nan=0.0) > self.threshold).astype(int)


class LabelPowerset(_PowersetEnsemble):
    """Label powerset: every distinct label set is a class.

    Parameters
    ----------
    events : str or event model, default="tuned"
        Event model of the Naive Bayes members; ``"tuned"``: the one
        :class:`~mlnb.BinaryRelevance` chooses on the same rows by cross-validation (one
        search by fold subtraction, ``events_`` after fit).
    prior_alpha : float, default=0.0
        Pseudo-count of each label-set class in the class prior.
    base_estimator : classifier or None, default=None
        Any multi-class classifier instead of the Naive Bayes path.
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.
    """

    threshold = 0.5
    random_state = None
    n_jobs = None  # one label-powerset problem: nothing to run at once
    verbose = 0

    def __init__(self, *, events="tuned", prior_alpha=0.0, base_estimator=None, missing="error"):
        self.events = events
        self.prior_alpha = prior_alpha
        self.base_estimator = base_estimator
        self.missing = missing

    def _subsets(self, n_labels, rng):
        return [np.arange(n_labels)]

    def _grown_subsets(self, n_labels):
        return [np.arange(n_labels)]


class RAkEL(_PowersetEnsemble):
    """RAndom k-labELsets: label powerset on random label subsets.

    Parameters
    ----------
    k : int, default=3
        Labels per subset.
    n_subsets : int, default=10
        Number of subsets m (RAkEL-o); ignored by RAkEL-d, which uses ceil(L / k).
    mode : {"overlapping", "disjoint"}, default="overlapping"
    threshold : float, default=0.5
        A label is predicted when the mean of its subsets' votes exceeds it.
    events, prior_alpha, base_estimator
        As in :class:`LabelPowerset`.
    random_state : int, RandomState or None, default=None
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.
    n_jobs : int or None, default=None
        Subsets fitted at once (their statistics, or their ``base_estimator`` clones) in
        threads, as joblib: None is 1 unless in a ``joblib.parallel_config`` context, -1
        every core. The model is the same for every value.
    verbose : int, default=0
        At >= 1, a line to stderr as each subset is fitted, with the time elapsed.
    """

    _parameter_constraints: ClassVar[dict] = {
        **NB_CONSTRAINTS,
        "n_jobs": N_JOBS,
        "verbose": VERBOSE,
        "k": [COUNT],
        "n_subsets": [COUNT],
        "mode": [StrOptions({"overlapping", "disjoint"})],
        "threshold": [Interval(Real, None, None, closed="neither")],
    }

    @classmethod
    def _unit_test_params(cls):
        return [{"random_state": 0}]

    def __init__(
        self,
        *,
        k=3,
        n_subsets=10,
        mode="overlapping",
        threshold=0.5,
        events="tuned",
        prior_alpha=0.0,
        base_estimator=None,
        random_state=None,
        missing="error",
        n_jobs=None,
        verbose=0,
    ):
        self.k = k
        self.n_subsets = n_subsets
        self.mode = mode
        self.threshold = threshold
        self.events = events
        self.prior_alpha = prior_alpha
        self.base_estimator = base_estimator
        self.random_state = random_state
        self.missing = missing
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _planned_cost(self, n_samples, n_features, n_labels):
        """The subsets' label-set models (at most 2**k or n classes each); a step per
        subset, row and class."""
        if self.mode != "overlapping":
            return None
        k = min(int(self.k), n_labels)
        S = min(int(self.n_subsets), math.comb(n_labels, k))  # the distinct subsets drawn
        classes = min(2 ** min(k, 62), n_samples)
        values = S * classes * 2 * n_features
        return Cost(values, S * n_samples * classes, {"n_subsets": S, "k": int(self.k)})

    def _subsets(self, n_labels, rng):
        k = int(self.k)
        if not 1 <= k:
            raise ValueError(f"k must be >= 1; got {self.k}")
        k = min(k, n_labels)
        if self.mode == "disjoint":
            return np.array_split(rng.permutation(n_labels), int(np.ceil(n_labels / k)))
        if self.mode != "overlapping":
            raise ValueError(f'mode must be "overlapping" or "disjoint"; got {self.mode!r}')
        m = int(self.n_subsets)
        if m < 1:
            raise ValueError(f"n_subsets must be >= 1; got {self.n_subsets}")
        m = min(m, math.comb(n_labels, k))  # no more distinct subsets exist
        subsets, seen = [], set()
        for _ in range(100 * m):  # draw distinct subsets
            subset = tuple(sorted(rng.choice(n_labels, k, replace=False)))
            if subset not in seen:
                seen.add(subset)
                subsets.append(np.array(subset))
            if len(subsets) == m:
                break
        return subsets


#: How far below a row's best set a side of :func:`_log_sides` is summed exactly.
_EXACT_BELOW = 700.0


def _log_sides(joint, sets):
    """``(log sum exp(joint) over the label sets holding each label, over those lacking
    it, over all sets)``: (n_samples, n_labels of the sets) twice and (n_samples, 1),
    without underflow.

    One product of the row's weights relative to its best set (a BLAS product); a side
    more than :data:`_EXACT_BELOW` below the row's best lost its precision there (its
    terms are subnormal or 0 from about 708 below), and is then summed exactly (scipy's
    ``logsumexp``) for those rows, label by label: the
    unlikely labels of a row keep their order instead of tying at a bound. A side with no
    set at all stays -inf.
    """
    best = joint.max(axis=1, keepdims=True)
    best = np.where(np.isfinite(best), best, 0.0)
    shifted = np.exp(joint - best)
    with np.errstate(divide="ignore"):  # the best term is 1: exact
        total = best + np.log(shifted.sum(axis=1, keepdims=True))
    holds = np.asarray(sets) > 0
    sides = []
    for members in (holds, ~holds):
        with np.errstate(divide="ignore"):
            side = np.log(shifted @ members.astype(np.float64)) + best
        rows, labels = np.nonzero(side < best - _EXACT_BELOW)
        for label in np.unique(labels):
            on_side = members[:, label]
            if on_side.any():
                at = rows[labels == label]
                side[at, label] = logsumexp(joint[np.ix_(at, on_side)], axis=1)
        sides.append(side)
    return (*sides, total)
