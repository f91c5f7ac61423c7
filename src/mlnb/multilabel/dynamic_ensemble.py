"""The dynamic chain ensemble of Trajdos and Kurzynski (section 2.5): K dynamic Naive Bayes chains.

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
(t = 0.6 / 0.4; :func:`~._orders.local_f1_orders`); the answer is
``[mean_k h_k(x) > 0.5]`` (eq. 22). ``order="random"`` gives every member a random fixed
order instead: ECC with the same preprocessing, the paper's reference method 3.

The ensemble draws each member's rows, undersampling, feature selection and order; the
members themselves are of one of two kinds (:mod:`._members`): Naive Bayes chains or,
with ``base="knn"``, nearest-neighbour chains. Either kind scores any order without
refitting (:meth:`DynamicChainEnsemble.predict_in_orders`).
"""

from __future__ import annotations

from functools import partial
from numbers import Real
from typing import ClassVar

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from ..base.validation import COUNT, N_JOBS, VERBOSE, check_label_matrix
from ..events.auto import TUNED
from ..limits import Cost
from ._base import NB_CONSTRAINTS, PREPROCESSING_CONSTRAINTS, VOTING, MultiLabelNB
from ._feature_selection import cap_selection, cfs_masks
from ._label_model import LABEL_PRIORS
from ._labels import binary_classes, resolve_order
from ._members import members_of
from ._neighbourhood import fill_missing, validation_mask
from ._orders import BETAS, is_local_f1, resolve_orders, search_beta
from ._out_of_bag import RULE_CONSTRAINT, apply_rule, settle_rule
from ._progress import Progress, run_members
from ._resolution import OWN_RULE
from ._tuned_events import choose_events
from ._weka_cfs import weka_cfs_masks

#: Per-label feature selections by name: ``(X, Y, weights, max_features=, rng=) -> (L, d) mask``.
_SELECTIONS = {
    "cfs": cfs_masks,
    "cfs-weka": partial(weka_cfs_masks, nominal=False),
    "cfs-weka-nominal": partial(weka_cfs_masks, nominal=True),
}

__all__ = ["DynamicChainEnsemble", "undersampling_mask"]


def undersampling_mask(Y, max_imbalance, rng):
    """Rows kept in every label's problem after random undersampling, shape (n, L).

    A label whose majority class outnumbers its minority class more than ``max_imbalance`` times
    keeps ``floor(max_imbalance * minority)`` random majority rows (Trajdos and Kurzynski, section
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
    """Ensemble of dynamic Naive Bayes classifier chains (Trajdos and Kurzynski, section 2.5).

    Parameters
    ----------
    n_chains : int, default=20
        K, the number of members.
    base : {"nb", "knn"}, default="nb"
        Members are Naive Bayes chains, or nearest-neighbour chains (Euclidean distance in the
        standardised input space extended by the decided labels, Trajdos and Kurzynski, eq. 10; a
        label's neighbours are its kept rows, its distance uses its selected features).
    events : str or event model, default="tuned"
        Event model of the Naive Bayes members; ``"tuned"``: the one
        :class:`~mlnb.BinaryRelevance` chooses on the same rows by cross-validation (one
        search by fold subtraction, ``events_`` after fit).
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
    voting : {"hard", "soft"}, default="hard"
        "hard": :meth:`predict_proba` is the share of members predicting each label (eq.
        22); "soft": the mean of their probabilities (the logistic of each member's label
        score, as in :meth:`decision_function`), which ranks finely. ``predict`` thresholds
        it at 0.5, and ``beta="auto"`` searches with the same vote.
    rule : "tuned", "predict", rule name or rule object, default="tuned"
        The decision. ``"predict"``: the vote at 0.5 (the paper's); ``"tuned"``: the vote
        unless a rule of :mod:`mlnb.decision_rules` fitted to :meth:`decision_function`
        wins by one standard error of micro F1 on the training rows scored out of bag
        (each by the members that did not see it; ``rule_``, ``chosen_``); a rule name or
        object: that rule, fitted out of bag; a fitted rule (``chosen_params_``): as given.
    prior_alpha : float
        As :class:`ClassifierChain`.
    label_alpha : float or "tuned", default="tuned"
    label_prior : {"uniform", "marginal", "tuned"}, default="tuned"
        The members' label terms, as :class:`ClassifierChain`'s. ``"tuned"`` (with the event
        model or rule ``"tuned"``, Naive Bayes members): chosen with the event model by one
        search of a chain out of fold (``label_terms_``), as
        :class:`EnsembleClassifierChains` does; measured on 1,500 rows of bibtex (5
        members), Laplace's terms gave micro F1 0.105, silent ones 0.272. With the event
        model and rule given (the paper's runs): Laplace's, the classic chain's.
    random_state : int, RandomState or None, default=None
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.
    n_jobs : int or None, default=None
        Members whose feature selection runs at once (threads; joblib's meaning: None is 1
        unless in a ``joblib.parallel_config`` context, -1 every core). The members, and
        so every prediction, are the same for every value.
    verbose : int, default=0
        At >= 1, a line to stderr as each member is fitted and each fold of the beta
        search ends, with the time elapsed.

    Attributes
    ----------
    member_features_, member_labels_ : list of GroupStats
        Per member, the statistics of X and of Y grouped by ``[Y * keep, (1 - Y) * keep]``.
    feature_masks_ : list of ndarray of shape (n_labels, n_features), or None
    orders_ : list of ndarray or None
        Members' fixed orders (None with "local_f1").
    validation_X_, validation_Y_, validation_predicted_ : list of arrays
        Per member ("local_f1"), its validation rows (scaled), their labels and binary
        relevance's predictions of them.
    beta_ : float or None

    The kNN members (``base="knn"``) keep ``scale_``, ``train_X_``, ``train_Y_``,
    ``n_neighbors_``, ``member_rows_`` and ``member_keep_`` instead of the statistics
    (:class:`~._members.KNNMembers`).
    """

    _uses_label_pairs = True

    @classmethod
    def _unit_test_params(cls):
        return [{"n_chains": 3, "beta": 2.0, "random_state": 0}]

    def __init__(
        self,
        *,
        n_chains=20,
        base="nb",
        events="tuned",
        n_neighbors="auto",
        order="local_f1",
        sample_fraction=0.66,
        max_imbalance=20.0,
        feature_selection="cfs",
        max_features=300,
        beta="auto",
        validation_fraction=0.4,
        scale=True,
        voting="hard",
        rule="tuned",
        prior_alpha=0.0,
        label_alpha="tuned",
        label_prior="tuned",
        random_state=None,
        missing="error",
        n_jobs=None,
        verbose=0,
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
        self.voting = voting
        self.rule = rule
        self.prior_alpha = prior_alpha
        self.label_alpha = label_alpha
        self.label_prior = label_prior
        self.random_state = random_state
        self.missing = missing
        self.n_jobs = n_jobs
        self.verbose = verbose

    _parameter_constraints: ClassVar[dict] = {
        **NB_CONSTRAINTS,
        **PREPROCESSING_CONSTRAINTS,
        "n_jobs": N_JOBS,
        "verbose": VERBOSE,
        "n_chains": [COUNT],
        "n_neighbors": [StrOptions({"auto"}), COUNT],
        "order": ["array-like", StrOptions({"local_f1", "random"}), None],
        "sample_fraction": [Interval(Real, 0, 1, closed="right")],
        "beta": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
        "scale": ["boolean"],
        "voting": [VOTING],
        "rule": RULE_CONSTRAINT,
        "label_alpha": [Interval(Real, 0, None, closed="left"), StrOptions({TUNED})],
        "label_prior": [StrOptions({*LABEL_PRIORS, TUNED})],
    }

    def _dynamic(self):
        return is_local_f1(self.order)

    def _check_parameters(self):
        self._validate_params()
        members_of(self).check()
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

    def _planned_cost(self, n_samples, n_features, n_labels):
        """The chains' statistics and samples; a step per chain, row and label."""
        K = int(self.n_chains)
        values = K * (2 * n_labels * (n_features + n_labels) + n_samples)
        return Cost(values, K * n_samples * n_labels, {"n_chains": K})

    # ---- fitting ------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Build the K members, then (``beta="auto"``) choose beta by 3-fold CV."""
        self._fit(X, y, sample_weight)
        return self

    def _fit(self, X, y, sample_weight):
        """:meth:`fit`'s work; returns the members' accessor it used, whose estimates
        (cached as the members were validated) the beta search's folds vote with."""
        self._check_parameters()
        X = self._validate_X(X, reset=True)
        Y = check_label_matrix(y, X.shape[0])
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        rng = check_random_state(self.random_state)
        if self.base == "nb":
            choose_events(self, X, Y, weight)
        members = members_of(self)
        features, weight = members.start(X, Y, weight, sample_weight, rng, self.event_model)
        n_labels = Y.shape[1]
        self.n_labels_ = n_labels
        self.classes_ = binary_classes(n_labels)
        self.feature_masks_ = []
        self.orders_ = None if self._dynamic() else []
        self.validation_X_, self.validation_Y_, self.validation_predicted_ = [], [], []
        in_bag = self._fit_members(features, Y, weight, rng, members)
        self.beta_ = None
        if self._dynamic():
            auto = isinstance(self.beta, str)
            self.beta_ = (
                self._search_beta(X, Y, sample_weight, weight, rng, members)
                if auto
                else float(self.beta)
            )
        soft = self._soft()
        settle_rule(
            self,
            Y,
            lambda rows: members.out_of_bag(X[rows], in_bag[rows], self.beta_, soft=soft),
            any_out=not in_bag.all(),
        )
        return members

    def _fit_members(self, features, Y, weight, rng, members):
        """Draw, select the features of and add the K members, in member order.

        A member draws its rows, undersampling, the cut of a label's selection to
        ``max_features`` and (``order="random"``) its order from ``rng``, in that order. The
        selections (the members' costly part) run ``n_jobs`` at once on draws made ahead
        as if no selection needed a cut: a member whose selection does gets its cut from
        ``rng`` where a one-by-one fit draws it, and the members after it in its round are
        drawn again. Every ``n_jobs`` gives the members of a one-by-one fit.
        """
        n_members = int(self.n_chains)
        progress = Progress(type(self).__name__, n_members, self.verbose)
        in_bag = np.zeros((Y.shape[0], n_members), dtype=bool)  # a member's rows: learnt
        while len(self.feature_masks_) < n_members:
            ahead = min(effective_n_jobs(self.n_jobs), n_members - len(self.feature_masks_))
            plans = [self._draw_member(Y, rng) for _ in range(ahead)]
            selections = run_members(
                partial(self._member_selection, features, Y, weight),
                [(train, keep) for train, _, keep, _, _ in plans],
                n_jobs=self.n_jobs,
                verbose=0,
                owner=type(self).__name__,
                prefer="threads",  # numpy and scipy.sparse products release the GIL; X is shared
            )
            for (train, validation, keep, state, order), (mask, cut) in zip(
                plans, list(selections), strict=True
            ):
                if cut:  # the draws after this member's were made too early
                    rng.set_state(state)
                    cap_selection(mask, int(self.max_features), rng)
                    order = self._draw_order(Y.shape[1], rng)
                self._add_member(members, Y, train, validation, keep, mask, order)
                member = len(self.feature_masks_) - 1
                in_bag[train, member] = in_bag[validation, member] = True  # (or ordered by)
                progress.step()
                if cut:
                    break
        return in_bag

    def _draw_member(self, Y, rng):
        """One member's draws: training and validation rows, kept rows, the state of
        ``rng`` before its selection's cut, and its fixed order (None: local F1)."""
        train, validation = self._member_rows(Y.shape[0], rng)
        keep = undersampling_mask(Y[train], self.max_imbalance, rng)
        state = rng.get_state()
        return train, validation, keep, state, self._draw_order(Y.shape[1], rng)

    def _draw_order(self, n_labels, rng):
        if self._dynamic():
            return None
        fixed = None if isinstance(self.order, str) else resolve_order(self.order, n_labels)
        return rng.permutation(n_labels) if fixed is None else fixed

    def _member_selection(self, features, Y, weight, train, keep):
        """A member's feature masks before any cut to ``max_features``, and whether one
        is due (it needs random numbers: :meth:`_fit_members` draws them)."""
        uncut = _Uncut()
        return self._select(features[train], Y[train], keep, weight[train], uncut), uncut.due

    def _add_member(self, members, Y, train, validation, keep, mask, order):
        self.feature_masks_.append(mask)
        members.add(train, keep, mask)
        if self._dynamic():
            validation_X, predicted = members.validation(train, validation)
            self.validation_X_.append(validation_X)
            self.validation_Y_.append(Y[validation].astype(np.int8))
            self.validation_predicted_.append(predicted)
        else:
            self.orders_.append(order)

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

    def _select(self, X, Y, keep, weight, rng):
        if self.feature_selection is None:
            return None
        select = _SELECTIONS[self.feature_selection]
        X = fill_missing(X, X)[0]  # correlations of missing entries at the feature's mean
        return select(X, Y, keep * weight[:, None], max_features=int(self.max_features), rng=rng)

    def _search_beta(self, X, Y, sample_weight, weight, rng, members):
        """beta in 1..10 by 3-fold cross-validation of the ensemble (macro-averaged F1)."""
        progress = Progress(
            type(self).__name__, 3, self.verbose, what="beta search fold", done="done"
        )

        def fold_labels(train, test):
            settings = {
                "beta": 1.0,
                "random_state": rng.randint(2**31 - 1),
                "verbose": 0,
                "rule": OWN_RULE,  # the folds judge the vote
            }
            inner = clone(self).set_params(**settings, **members.fold_settings())
            fold_weight = None if sample_weight is None else weight[train]
            fitted = inner._fit(X[train], Y[train], sample_weight=fold_weight)
            votes = fitted.votes(X[test], BETAS, soft=self._soft())  # every width
            progress.step()
            return [(vote > 0.5).astype(int) for vote in votes]

        return search_beta(fold_labels, X, Y, rng, average="macro")

    def partial_fit(self, X, y, sample_weight=None):
        raise ValueError(
            "DynamicChainEnsemble undersamples, selects features and keeps validation sets "
            "from the whole training set: use fit (EnsembleClassifierChains learns online)"
        )

    def merge(self, other):
        raise ValueError("DynamicChainEnsemble keeps validation sets: models cannot be merged")

    # ---- prediction ---------------------------------------------------------------------
    def predict_in_orders(self, X, orders, *, member=None):
        """0/1 labels in each of the given label orders, for every row.

        A member's statistics, kept rows and feature masks do not depend on its order, so
        any order is scored without refitting (what :class:`OOCC` and
        :class:`GeneticChainEnsemble` score their orders with).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        orders : sequence of array-like of shape (n_labels,)
            Label orders (permutations of 0..n_labels-1), each used for every row.
        member : int or None, default=None
            The member whose chain predicts; None: the members' vote (``[mean_k h_k(x) >
            0.5]``, of labels or, ``voting="soft"``, of probabilities), every member in the
            same order.

        Returns
        -------
        labels : ndarray of shape (len(orders), n_samples, n_labels), int
            ``labels[i]`` is the prediction in ``orders[i]``.

        Examples
        --------
        >>> from mlnb import DynamicChainEnsemble
        >>> from mlnb.datasets import make_multilabel
        >>> X, Y = make_multilabel(200, 5, 3, random_state=0)
        >>> model = DynamicChainEnsemble(n_chains=3, order=[0, 1, 2], random_state=0)
        >>> model.set_params(rule="predict")  # the members' vote, as predict_in_orders
        DynamicChainEnsemble(n_chains=3, order=[0, 1, 2], random_state=0, rule='predict')
        >>> labels = model.fit(X, Y).predict_in_orders(X[:4], [[0, 1, 2], [2, 1, 0]])
        >>> labels.shape
        (2, 4, 3)
        >>> bool((labels[0] == model.predict(X[:4])).all())  # the members' own order
        True
        >>> model.predict_in_orders(X[:4], [[2, 0, 1]], member=1).shape
        (1, 4, 3)
        """
        check_is_fitted(self, "feature_masks_")
        X = self._validate_X(X, reset=False)
        n_members = len(self.feature_masks_)
        if member is not None and not (
            isinstance(member, (int, np.integer)) and 0 <= member < n_members
        ):
            raise ValueError(f"member must be None or in 0..{n_members - 1}; got {member!r}")
        orders = resolve_orders(orders, self.n_labels_)
        return members_of(self).labels_in_orders(X, orders, member, soft=self._soft())

    def decision_function_in_orders(self, X, orders):
        """:meth:`decision_function` with every member in each of the given orders.

        Returns an ndarray of shape (len(orders), n_samples, n_labels): the members' mean
        label scores (as :meth:`decision_function`) in ``orders[i]``.
        """
        check_is_fitted(self, "feature_masks_")
        X = self._validate_X(X, reset=False)
        return members_of(self).scores_in_orders(X, resolve_orders(orders, self.n_labels_))

    def _soft(self):
        return self.voting == "soft"

    def predict_proba(self, X):
        """The members' vote for each label, shape (n_samples, n_labels): the share
        predicting it ("hard" voting) or their mean probability ("soft")."""
        check_is_fitted(self, "feature_masks_")
        X = self._validate_X(X, reset=False)
        return members_of(self).votes(X, [self.beta_], soft=self._soft())[0]

    def decision_function(self, X):
        """Soft label scores for ranking and thresholding, (n_samples, n_labels): the mean
        over members of each chain's log-odds along its path (Naive Bayes members) or of
        its neighbour votes (kNN members, Laplace-smoothed)."""
        check_is_fitted(self, "feature_masks_")
        X = self._validate_X(X, reset=False)
        return members_of(self).scores(X, self.beta_)

    def predict(self, X):
        """``[mean over members > 0.5]`` for every label (Trajdos and Kurzynski, eq. 22),
        or the fitted ``rule_`` on :meth:`decision_function`."""
        return apply_rule(self, X, lambda X: (self.predict_proba(X) > 0.5).astype(int))


class _Uncut:
    """Stands in for the random generator of a selection's cut to ``max_features``: keeps
    every selected feature and records that a cut is ``due``."""

    due = False

    def choice(self, selected, size, replace):
        self.due = True
        return selected
