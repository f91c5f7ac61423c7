"""ML-kNN, BR-kNN and IBLR-ML: each label decided from the labels of a row's k nearest
training rows.

**ML-kNN** (Zhang and Zhou 2007) is Bayesian. For label l, let ``C`` be the number of a row's
k nearest training rows that hold l. The prior of l and the likelihood of every count under
"l holds" and "l does not" are smoothed frequencies over the training set, each training row's
count taken among its own k nearest *other* rows (leave-one-out):

- ``P(H1) = (s + #rows with l) / (2 s + n)``, ``P(H0) = 1 - P(H1)``;
- ``P(C = j | H1) = (s + c1[j]) / (s (k + 1) + sum(c1))``, where ``c1[j]`` counts the rows
  with l whose count is j; ``P(C = j | H0)`` likewise over the rows without l.

A row's label score is the log posterior odds ``log P(H1) P(C | H1) - log P(H0) P(C | H0)``;
``predict_proba`` is ``P(H1 | C)``, and l is predicted where the score is positive (the
paper's arg max, ties to 0).

**BR-kNN** (Spyromitros, Tsoumakas and Vlahavas 2008) is binary relevance with a kNN base
learner, the neighbours found once for all labels: l's confidence is the share of the k
nearest rows holding it, predicted where it is at least 1/2. Their two extensions fill the
empty predictions: ``-a`` predicts the most confident label of a row with no label; ``-b``
predicts every row's ``round(mean label-set size of its neighbours)`` most confident labels.
Ties between labels go to the lowest label index (Mulan draws them at random).

**IBLR-ML** (Cheng and Hüllermeier 2009) is a logistic regression per label on the
neighbours' label shares: l's log-odds are ``w0 + sum_j a_j v_j``, where ``v_j`` is the share
of the k nearest rows holding label j, every label's share entering every label's model, so
that the label dependencies are learnt (their eq. 5, with the shares Mulan uses for the
paper's sums of +-1 votes: an affine change of the features, which the intercept absorbs
but which changes how strongly the L2 penalty weighs; see ``C``). A training row's shares
are taken among its k nearest *other* rows, as ML-kNN's counts.

All three search neighbours exactly (:func:`~._neighbour_lists.nearest_rows`: squared
Euclidean distance, nearest first, ties to the lowest row index), dense or sparse.

**Decision rules** (``rule``, :mod:`mlnb.decision_rules`) replace the paper's cut by one
fitted to the training rows' leave-one-out scores, each row scored from its k nearest *other*
rows: out-of-sample scores at no extra distance pass (ML-kNN's count tables still include
the row's own count, a small optimism on small data).
"""

from __future__ import annotations

import warnings
from numbers import Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base.validation import COUNT, N_JOBS, VERBOSE, check_label_matrix
from ..decision_rules import RULES, make_rule
from ._base import MultiLabelEstimator
from ._count_model import count_histograms, count_model, fold_errors, label_counts, log_odds
from ._knn_members import share_log_odds
from ._labels import binary_classes
from ._neighbour_lists import checked_norms, nearest_rows, nearest_rows_by_group
from ._neighbourhood import choose_by_folds, divide_columns, feature_scale
from ._progress import run_members

__all__ = ["BRkNN", "IBLRML", "MLkNN"]

#: The values of k and s that ``"auto"`` chooses from.
NEIGHBOURS = (1, 3, 5, 7, 10, 15, 20)
SMOOTHING = (0.1, 0.5, 1.0, 2.0)
#: The iteration cap of IBLR-ML's regressions.
MAX_ITER = 1000
#: The ``rule`` values the three estimators take: a rule's name, a rule object, or None.
RULE_CONSTRAINT = [StrOptions(set(RULES)), HasMethods(["fit", "predict"]), None]


class _NeighbourVote(MultiLabelEstimator):
    """What ML-kNN, BR-kNN and IBLR-ML share: the training rows and the neighbours' label
    counts."""

    def _store(self, X, y, sample_weight):
        self._validate_params()
        self._refuse_sample_weight(
            sample_weight, "a neighbour's vote counts once; repeat rows to weight them"
        )
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=True)
        Y = check_label_matrix(y, X.shape[0]).astype(np.int8)
        if X.shape[0] < 2:
            raise ValueError(f"{type(self).__name__} needs at least 2 training rows; got 1 sample")
        self.n_labels_ = Y.shape[1]
        self.classes_ = binary_classes(self.n_labels_)
        scale = not _counts(X) if self.scale == "auto" else self.scale
        self.scale_ = feature_scale(X) if scale else np.ones(X.shape[1])
        self.train_X_, self.train_Y_ = divide_columns(X, self.scale_), Y
        return self.train_X_, Y

    def _folds(self, X):
        """The 3 folds of the "auto" choices, every row's fold (:func:`fold_of_rows`), and
        the most neighbours the fold lists (:func:`~._neighbour_lists.nearest_rows_by_group`)
        can hold."""
        groups = fold_of_rows(X.shape[0], self.random_state)
        folds = [(np.flatnonzero(groups != g), np.flatnonzero(groups == g)) for g in range(3)]
        return folds, groups, X.shape[0] - 1 - int(np.bincount(groups).max())

    def _neighbours(self, X):
        """Label counts among every row's k nearest training rows, (n, L), and the lists."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        X = divide_columns(X, self.scale_)
        neighbours = nearest_rows(X, self.train_X_, self.n_neighbors_)
        return label_counts(self.train_Y_, neighbours), neighbours

    def _fit_rule(self, training_scores, Y):
        """``rule_``: the rule fitted to the training rows' leave-one-out scores (None:
        the paper's cut)."""
        self.rule_ = None
        if self.rule is not None:
            self.rule_ = clone(make_rule(self.rule)).fit(training_scores, Y)


def fold_of_rows(n_rows, random_state):
    """The fold (0, 1 or 2) of every row in the "auto" choices: a random permutation of
    the rows modulo 3, drawn from ``random_state`` (one generator, where scikit-learn's
    ``KFold`` seeds a second one: 0.2 ms, a tenth of the choice's cost on medical).

    Examples
    --------
    >>> import numpy as np
    >>> np.bincount(fold_of_rows(10, 0)).tolist()
    [4, 3, 3]
    """
    return check_random_state(random_state).permutation(n_rows) % 3


def _counts(X):
    """Whether every value of X is a non-negative integer: counts or 0/1 (bag of words)."""
    values = X.data if sp.issparse(X) else X
    return bool(np.all(values >= 0) and np.all(values == np.floor(values)))


def _hamming_score(truth, labels):
    """Minus the Hamming loss: the criterion the posterior's arg max decides for."""
    return -float(np.mean(truth != labels))


class MLkNN(_NeighbourVote):
    """Multi-label k-nearest neighbours (Zhang and Zhou 2007): a label's posterior from its
    prior and the number of the k nearest training rows holding it.

    Parameters
    ----------
    n_neighbors : int or "auto", default=10
        k (at most the number of training rows minus one); "auto" chooses it from
        1, 3, 5, 7, 10, 15, 20 by 3-fold cross-validation on Hamming loss (what the
        posterior's arg max minimises; ties to the smaller k).
    smoothing : float or "auto", default=1.0
        s, the Laplace smoothing of the prior and of the count likelihoods; "auto"
        chooses it from 0.1, 0.5, 1, 2 likewise (with k, when both are "auto").
        The choice costs one pass of distances: the neighbour lists of the largest k
        outside every fold, from the one n x n distance pass the final fit also reads,
        serve every smaller k and every s.
    scale : bool or "auto", default="auto"
        Divide features by their training standard deviation before the Euclidean
        distance; "auto": unless every value is a non-negative integer (counts or 0/1,
        whose features share a scale). On real-valued features of
        different spread it pays (emotions, test micro F1: 0.457 plain, 0.639 scaled;
        scene 0.699, 0.715); on sparse word counts it gives rare words the weight of
        common ones and costs (medical 0.565 plain, 0.473 scaled; enron 0.455, 0.388;
        bibtex 0.204, 0.099). The paper compares rows as they are.
    rule : str, decision rule or None, default=None
        None: the paper's arg max (log posterior odds above 0). A rule name of
        :data:`mlnb.decision_rules.RULES` (``"scut"``, ``"pcut"``, ...) or a rule object:
        fitted to the training rows' leave-one-out log odds, and applied to
        ``decision_function``. With ``"auto"`` k and s, they are chosen for the paper's cut
        first.
    random_state : int, RandomState or None, default=None
        The folds of the "auto" choices.

    Attributes
    ----------
    n_neighbors_ : int
    smoothing_ : float
    rule_ : fitted decision rule or None
    log_prior_odds_ : ndarray of shape (n_labels,)
        ``log P(H1) - log P(H0)`` of every label.
    log_likelihood_ratio_ : ndarray of shape (n_labels, ``n_neighbors_ + 1``)
        ``log P(C = j | H1) - log P(C = j | H0)``.

    Examples
    --------
    >>> from mlnb import MLkNN
    >>> from mlnb.datasets import make_multilabel
    >>> X, Y = make_multilabel(120, 6, 3, random_state=0)
    >>> model = MLkNN(n_neighbors=5).fit(X, Y)
    >>> model.predict(X[:2]).shape
    (2, 3)
    >>> bool(((model.predict_proba(X) > 0.5) == model.predict(X)).all())
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_neighbors": [StrOptions({"auto"}), COUNT],
        "smoothing": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
        "scale": ["boolean", StrOptions({"auto"})],
        "rule": RULE_CONSTRAINT,
        "random_state": ["random_state"],
    }

    @classmethod
    def _unit_test_params(cls):
        return [{"n_neighbors": 3}, {"n_neighbors": "auto", "smoothing": "auto", "random_state": 0}]

    def __init__(
        self, *, n_neighbors=10, smoothing=1.0, scale="auto", rule=None, random_state=None
    ):
        self.n_neighbors = n_neighbors
        self.smoothing = smoothing
        self.scale = scale
        self.rule = rule
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Count every training row's neighbours' labels (leave-one-out) and smooth.

        ``sample_weight`` must be None: a neighbour's vote counts once.
        """
        X, Y = self._store(X, y, sample_weight)
        n = X.shape[0]
        ks = NEIGHBOURS if self.n_neighbors == "auto" else (self.n_neighbors,)
        ss = SMOOTHING if self.smoothing == "auto" else (float(self.smoothing),)
        if len(ks) * len(ss) == 1:
            k = self.n_neighbors_ = _neighbour_count(ks[0], n - 1, n)
            neighbours = nearest_rows(X, X, k, leave_one_out=True)
            self.smoothing_ = ss[0]
        else:
            neighbours = self._choose(X, Y, ks, ss)
        self.log_prior_odds_, self.log_likelihood_ratio_ = count_model(
            Y, neighbours, self.smoothing_
        )
        self.rule_ = None
        if self.rule is not None:
            counts = label_counts(Y, neighbours)
            scores = log_odds(self.log_prior_odds_, self.log_likelihood_ratio_, counts)
            self._fit_rule(scores, Y)
        return self

    def _choose(self, X, Y, ks, ss):
        """Set k and s by cross-validation; the full leave-one-out lists of the chosen k."""
        n = X.shape[0]
        folds, groups, most = self._folds(X)
        if most < 1:
            raise ValueError(
                f'MLkNN\'s cross-validated choice of k and s ("auto") needs at least 3 '
                f"training rows; got {n}"
            )
        if self.n_neighbors == "auto":
            ks = tuple(k for k in ks if k <= most) or (most,)
        if max(ks) > most:
            raise ValueError(
                f"MLkNN's cross-validated choice on {n} rows offers at most {most} "
                f"neighbours; got n_neighbors={ks[0]}"
            )
        lists = nearest_rows_by_group(X, groups, max(ks))
        # Hamming loss of every (k, s), summed over the folds
        with_l, without_l = count_histograms(Y, lists[:-1], ks, groups)
        wrong = fold_errors(with_l, without_l, ks, ss)  # (S, G, K)
        sizes = np.array([len(test) for _, test in folds])
        loss = (wrong / (sizes * Y.shape[1])[:, None]).sum(axis=1).T  # (K, S)
        i, j = np.unravel_index(int(np.argmin(loss)), loss.shape)  # ties: smaller k, then s
        self.n_neighbors_, self.smoothing_ = ks[i], ss[j]
        return lists[-1][:, : ks[i]]

    def decision_function(self, X):
        """Log posterior odds of every label, shape (n_samples, n_labels)."""
        counts, _ = self._neighbours(X)
        return log_odds(self.log_prior_odds_, self.log_likelihood_ratio_, counts)

    def predict_proba(self, X):
        """``P(H1 | C)`` of every label, shape (n_samples, n_labels)."""
        return expit(self.decision_function(X))

    def predict(self, X):
        """0/1 labels: the more probable hypothesis (ties to 0), or the fitted ``rule_``."""
        scores = self.decision_function(X)
        rule = getattr(self, "rule_", None)  # None in model files of before rules
        return (scores > 0).astype(int) if rule is None else rule.predict(scores)


class BRkNN(_NeighbourVote):
    """Binary relevance k-nearest neighbours (Spyromitros, Tsoumakas and Vlahavas 2008),
    with their extensions -a and -b for rows left without a label.

    Parameters
    ----------
    n_neighbors : int or "auto", default=10
        k (at most the number of training rows); "auto" chooses it from 1, 3, 5, 7, 10,
        15, 20 by 3-fold cross-validation on Hamming loss, from one pass of distances (the
        lists of the largest k outside every fold serve every smaller k).
    extension : {None, "a", "b"}, default=None
        None: every label whose confidence (share of the k neighbours holding it) is at
        least 1/2. "a": and the most confident label of a row that would have none. "b":
        each row's ``round(mean neighbour label-set size)`` most confident labels.
    scale : bool or "auto", default="auto"
        Divide features by their training standard deviation; "auto": unless every value
        is a non-negative integer (see :class:`MLkNN`).
    rule : str, decision rule or None, default=None
        None: the confidence cut (and ``extension``). A rule name or object (see
        :class:`MLkNN`): fitted to the training rows' leave-one-out ``decision_function``
        and applied to it; ``extension`` must then be None. With ``"auto"`` k, k is chosen
        for the confidence cut first.
    random_state : int, RandomState or None, default=None
        The folds of the "auto" choice.

    Examples
    --------
    >>> from mlnb import BRkNN
    >>> from mlnb.datasets import make_multilabel
    >>> X, Y = make_multilabel(120, 6, 3, random_state=0)
    >>> model = BRkNN(n_neighbors=5, extension="a").fit(X, Y)
    >>> bool((model.predict(X).sum(axis=1) >= 1).all())
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_neighbors": [StrOptions({"auto"}), COUNT],
        "extension": [StrOptions({"a", "b"}), None],
        "scale": ["boolean", StrOptions({"auto"})],
        "rule": RULE_CONSTRAINT,
        "random_state": ["random_state"],
    }

    @classmethod
    def _unit_test_params(cls):
        return [{"n_neighbors": 3}, {"n_neighbors": "auto", "extension": "b", "random_state": 0}]

    def __init__(
        self, *, n_neighbors=10, extension=None, scale="auto", rule=None, random_state=None
    ):
        self.n_neighbors = n_neighbors
        self.extension = extension
        self.scale = scale
        self.rule = rule
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Store the training rows (and choose k, fit the rule); ``sample_weight`` must be
        None."""
        if self.rule is not None and self.extension is not None:
            raise ValueError(
                f"BRkNN: extension={self.extension!r} and rule={self.rule!r} both decide the "
                "labels; give one of them"
            )
        X, Y = self._store(X, y, sample_weight)
        self._choose_k(X, Y)
        self.rule_ = None
        if self.rule is not None:
            k = self.n_neighbors_
            counts = label_counts(Y, nearest_rows(X, X, k, leave_one_out=True))
            self._fit_rule(share_log_odds(counts / k, k), Y)
        elif self.n_neighbors != "auto":  # no neighbour search at fit, and none of its checks
            checked_norms(X)  # a clear error now, not at the first predict
        return self

    def _choose_k(self, X, Y):
        """``n_neighbors_``: as given, or chosen by cross-validation."""
        if self.n_neighbors != "auto":
            if self.rule is None:
                self.n_neighbors_ = _neighbour_count(self.n_neighbors, X.shape[0], X.shape[0])
                return
            try:  # the rule scores each training row from its k nearest *other* rows
                self.n_neighbors_ = _neighbour_count(self.n_neighbors, X.shape[0] - 1, X.shape[0])
            except ValueError as error:
                raise ValueError(
                    f"{error} (rule= is fitted to each training row's k nearest other rows)"
                ) from None
            return
        folds, groups, most = self._folds(X)
        if most < 1:
            raise ValueError(
                f'BRkNN\'s cross-validated k ("auto") needs at least 3 training rows; '
                f"got {X.shape[0]}"
            )
        ks = tuple(k for k in NEIGHBOURS if k <= most) or (most,)
        lists = nearest_rows_by_group(X, groups, max(ks))

        def fold_labels(train, test):  # for every k of ks
            neighbours = lists[groups[test[0]]][test]
            for k, count in zip(ks, label_counts(Y, neighbours, upto=ks), strict=True):
                yield _br_labels(count, neighbours[:, :k], Y, k, self.extension)

        self.n_neighbors_ = choose_by_folds(
            ks, fold_labels, X, Y, None, folds=folds, score=_hamming_score
        )

    def predict_proba(self, X):
        """Confidences: the share of the k nearest rows holding each label."""
        counts, _ = self._neighbours(X)
        return counts / self.n_neighbors_

    def decision_function(self, X):
        """Smoothed log-odds of the confidences, ``log(v + 1) - log(k - v + 1)`` for v of
        the k neighbours holding the label: the order of the confidences."""
        return share_log_odds(self.predict_proba(X), self.n_neighbors_)

    def predict(self, X):
        """0/1 labels: confidence at least 1/2, then the extension; or the fitted
        ``rule_``."""
        counts, neighbours = self._neighbours(X)
        if getattr(self, "rule_", None) is not None:  # None in model files of before rules
            return self.rule_.predict(share_log_odds(counts / self.n_neighbors_, self.n_neighbors_))
        return _br_labels(counts, neighbours, self.train_Y_, self.n_neighbors_, self.extension)


class IBLRML(_NeighbourVote):
    """Instance-based logistic regression for multi-label data, IBLR-ML (Cheng and
    Hüllermeier 2009): per label, a logistic regression on the k nearest training rows'
    shares of every label.

    Parameters
    ----------
    n_neighbors : int, default=10
        k, at most the number of training rows minus one (a training row's shares are
        taken among its k nearest other rows).
    C : float, default=100.0
        Inverse L2 strength of every label's logistic regression (scikit-learn's
        ``LogisticRegression(C=C)``). Mulan uses Weka's ``Logistic``, nearly unpenalised,
        which diverges on a label the shares separate. Test micro F1 (k = 10, C = 1 / 100 /
        10^4): emotions 0.672 / 0.678 / 0.676, scene 0.701 / 0.715 / 0.720, yeast 0.641 /
        0.638 / 0.638, medical 0.425 / 0.612 / 0.565, enron 0.449 / 0.461 / 0.455 (ML-kNN:
        0.639, 0.715, 0.625, 0.565, 0.455).
    scale : bool or "auto", default="auto"
        Divide features by their training standard deviation before the Euclidean
        distance; "auto": unless every value is a non-negative integer (see :class:`MLkNN`).
    rule : str, decision rule or None, default=None
        None: log-odds above 0 (probability above 1/2, as the paper). A rule name or
        object (see :class:`MLkNN`): fitted to the training rows' log-odds (from their
        leave-one-out shares; the regressions were fitted to the same rows) and applied to
        ``decision_function``.
    n_jobs : int or None, default=None
        Labels' regressions fitted at once (threads, as joblib: None is 1 unless in a
        ``joblib.parallel_config`` context, -1 every core); the model is the same for
        every value.
    verbose : int, default=0
        At >= 1: a line to stderr as each label's regression is fitted, with the time
        elapsed (delicious' 983 take minutes).

    Attributes
    ----------
    n_neighbors_ : int
    coef_ : ndarray of shape (n_labels, n_labels)
        ``coef_[l, j]``: the weight of label j's share in label l's log-odds.
    intercept_ : ndarray of shape (n_labels,)
        A label the training rows all hold, or all lack, gets weights 0 and the log-odds
        of its frequency with half a row added to each side.
    rule_ : fitted decision rule or None

    Examples
    --------
    >>> from mlnb import IBLRML
    >>> from mlnb.datasets import make_multilabel
    >>> X, Y = make_multilabel(120, 6, 3, random_state=0)
    >>> model = IBLRML(n_neighbors=5).fit(X, Y)
    >>> model.coef_.shape, model.predict(X[:2]).shape
    ((3, 3), (2, 3))
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_neighbors": [COUNT],
        "C": [Interval(Real, 0, None, closed="neither")],
        "scale": ["boolean", StrOptions({"auto"})],
        "rule": RULE_CONSTRAINT,
        "n_jobs": N_JOBS,
        "verbose": VERBOSE,
    }

    @classmethod
    def _unit_test_params(cls):
        return [{"n_neighbors": 3}, {"n_neighbors": 5, "C": 10.0, "n_jobs": 2}]

    def __init__(self, *, n_neighbors=10, C=100.0, scale="auto", rule=None, n_jobs=None, verbose=0):
        self.n_neighbors = n_neighbors
        self.C = C
        self.scale = scale
        self.rule = rule
        self.n_jobs = n_jobs
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        """Fit every label's regression to the training rows' leave-one-out shares;
        ``sample_weight`` must be None."""
        X, Y = self._store(X, y, sample_weight)
        n = X.shape[0]
        k = self.n_neighbors_ = _neighbour_count(self.n_neighbors, n - 1, n)
        shares = _shares(label_counts(Y, nearest_rows(X, X, k, leave_one_out=True)), k)
        self.coef_, self.intercept_ = _label_regressions(
            shares, Y, self.C, n_jobs=self.n_jobs, verbose=self.verbose
        )
        self.rule_ = None
        if self.rule is not None:
            self._fit_rule(self._log_odds(shares), Y)
        return self

    def _log_odds(self, shares):
        return np.asarray(shares @ self.coef_.T) + self.intercept_

    def decision_function(self, X):
        """Log-odds of every label, shape (n_samples, n_labels)."""
        counts, _ = self._neighbours(X)
        return self._log_odds(_shares(counts, self.n_neighbors_))

    def predict_proba(self, X):
        """Probability of every label, shape (n_samples, n_labels)."""
        return expit(self.decision_function(X))

    def predict(self, X):
        """0/1 labels: log-odds above 0, or the fitted ``rule_``."""
        scores = self.decision_function(X)
        return (scores > 0).astype(int) if self.rule_ is None else self.rule_.predict(scores)


def _shares(counts, k):
    """The share of each row's k neighbours holding each label, CSR (n, L), from their
    label counts: IBLR-ML's features, sparse where most labels are absent around a row."""
    return sp.csr_matrix(counts / k)


def _label_regressions(shares, Y, C, *, n_jobs=None, verbose=0):
    """Every label's logistic regression on the shares: weights (L, L) and intercepts (L,).

    One scikit-learn ``LogisticRegression`` fit per label (milliseconds to a second each,
    against microseconds of the loop), ``n_jobs`` at once. A fit that stops at its
    iteration cap is reported once, naming the labels, where scikit-learn warns per fit;
    other warnings pass on as they come."""
    labels = [(shares, Y[:, label], C) for label in range(Y.shape[1])]
    with warnings.catch_warnings():  # in this thread: the fits' threads share its filters
        warnings.filterwarnings("ignore", category=ConvergenceWarning)  # counted instead
        fitted = list(
            run_members(
                _label_regression, labels, n_jobs=n_jobs, verbose=verbose, owner="IBLRML",
                prefer="threads", what="label",  # threads share the shares matrix
            )
        )  # fmt: skip
    capped = [label for label, (*_, stopped) in enumerate(fitted) if stopped]
    if capped:
        warnings.warn(
            f"IBLRML: the regressions of labels {capped} stopped at {MAX_ITER} iterations "
            "before converging; a smaller C regularises them more",
            ConvergenceWarning,
            stacklevel=3,
        )
    coef = np.array([weights for weights, *_ in fitted])
    return coef, np.array([intercept for _, intercept, _ in fitted])


def _label_regression(shares, target, C):
    """One label's weights, intercept and whether its fit reached ``MAX_ITER``; a label of
    one class gets weights 0 and the log-odds of its frequency with half a row added to
    each side."""
    positives = int(target.sum())
    if positives in (0, len(target)):
        intercept = np.log((positives + 0.5) / (len(target) - positives + 0.5))
        return np.zeros(shares.shape[1]), intercept, False
    model = LogisticRegression(C=C, max_iter=MAX_ITER).fit(shares, target)
    return model.coef_[0], model.intercept_[0], bool(model.n_iter_[0] >= MAX_ITER)


def _br_labels(counts, neighbours, Y, k, extension):
    """BR-kNN's 0/1 labels from the rows' k nearest training rows (their label counts and
    indices into ``Y``): confidence at least 1/2, then the extension."""
    labels = (2 * counts >= k).astype(int)
    if extension == "a":
        empty = labels.sum(axis=1) == 0
        labels[empty, np.argmax(counts[empty], axis=1)] = 1
    elif extension == "b":
        sizes = Y.sum(axis=1)[neighbours].sum(axis=1)
        wanted = np.floor(sizes / k + 0.5).astype(int)  # round half up, as Java's
        ranked = np.argsort(-counts, axis=1, kind="stable")  # ties to the lowest label
        labels = (np.argsort(ranked, axis=1) < wanted[:, None]).astype(int)
    return labels


def _neighbour_count(n_neighbors, most, n_rows):
    """k, checked against the ``most`` neighbours ``n_rows`` training rows offer."""
    k = int(n_neighbors)
    if not 1 <= k <= most:
        raise ValueError(
            f"n_neighbors must be between 1 and {most} for {n_rows} training rows; "
            f"got {n_neighbors}"
        )
    return k
