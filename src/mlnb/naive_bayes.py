"""Single-label Naive Bayes classifiers on additive statistics.

One base class owns validation, ``fit`` / ``partial_fit`` / ``merge`` and prediction; each
classifier only says which event model (:mod:`mlnb.events`) and which class prior it uses.
The state of a fitted classifier is its statistics (``stats_``, a
:class:`~mlnb.stats.GroupStats` over one-hot classes) plus its hyper-parameters; the
parameters derived from them are cached in ``params_`` and recomputed when statistics change.

Class prior (Xu 2018): ``P(c) = (l_c + alpha) / (l + C alpha)`` with ``l_c`` the weighted
count of class c: eq. 2 (classical, Laplace alpha = 1 in the paper) and eq. 19 (Bayesian,
Dirichlet(alpha) posterior predictive). The classical classifiers default to ``prior_alpha=0``
(the maximum-likelihood prior), as scikit-learn does.
"""

from __future__ import annotations

import warnings
from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets, unique_labels
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
    column_or_1d,
)

from . import _online_rows
from ._registered import Registered
from .base.additive import remaining_statistics
from .base.instances import UnitTestParams
from .base.state import atomic, check_mergeable
from .base.validation import MISSING_OPTIONS, Integers, validate_rows
from .events import (
    BayesianBernoulli,
    BayesianGaussian,
    BayesianMultinomial,
    Bernoulli,
    Categorical,
    Complement,
    Gaussian,
    Mixed,
    Multinomial,
    bind_missing,
)
from .events.auto import RULES, Auto, estimator_events, is_rule
from .events.categorical import check_pseudo_count, log_categorical, log_normalise
from .stats import GroupStats, one_hot

__all__ = [
    "BayesianBernoulliNB",
    "BayesianGaussianNB",
    "BayesianMultinomialNB",
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "GaussianNB",
    "MixedNB",
    "MultinomialNB",
]


def _class_index(y, classes):
    """Index of every value of ``y`` in the sorted ``classes``; unknown values raise."""
    index = np.minimum(np.searchsorted(classes, y), len(classes) - 1)
    unknown = classes[index] != y
    if np.any(unknown):
        raise ValueError(
            f"y holds classes {np.unique(y[unknown])!r} that are not in classes={classes!r}"
        )
    return index


def _check_no_missing_classes(y):
    """A ValueError naming y if it holds None or NaN (numpy would raise a TypeError, or
    warn while casting, deep inside scikit-learn's checks)."""
    if y.dtype == object:
        missing = np.array([value is None or _is_nan(value) for value in y.ravel()], dtype=bool)
    elif y.dtype.kind in "fc":
        missing = np.isnan(y.ravel())
    else:
        return
    if missing.any():
        raise ValueError(
            f"y holds {int(missing.sum())} missing classes (None or NaN), the first at row "
            f"{int(np.argmax(missing))}: every row needs a class"
        )


def _is_nan(value):
    return isinstance(value, Real) and value != value


_NON_NEGATIVE = Interval(Real, 0, None, closed="left")
_POSITIVE = Interval(Real, 0, None, closed="neither")


class _BaseNB(UnitTestParams, Registered, ClassifierMixin, BaseEstimator):
    """Validation, incremental fitting, merging and prediction for every NB classifier."""

    #: Declarative checks of every classifier's parameters (scikit-learn's).
    _parameter_constraints: ClassVar[dict] = {
        "alpha": [_NON_NEGATIVE, "array-like"],
        "beta": [_NON_NEGATIVE, "array-like"],
        "a": [_NON_NEGATIVE, "array-like"],
        "b": [_NON_NEGATIVE, "array-like"],
        "lam": [_POSITIVE, "array-like"],
        "mu": [Real, "array-like", None],
        "var_smoothing": [_NON_NEGATIVE],
        "binarize": [Real, None],
        "fit_prior": ["boolean"],
        "class_prior": ["array-like", None],
        "priors": ["array-like", None],
        "prior_alpha": [_NON_NEGATIVE],
        "force_alpha": ["boolean"],
        "blocks": [list, None, StrOptions(set(RULES)), Auto],
        "norm": ["boolean"],
        "min_categories": [Integers(None, None, closed="neither"), "array-like", None],
        "max_categories": [Integers(2, None, closed="left")],
        "missing": [StrOptions(set(MISSING_OPTIONS))],
    }

    _positive_only = False
    _discrete = False

    # ---- what subclasses define -------------------------------------------------------
    def event_model(self, X=None):
        """The event model of this classifier's hyper-parameters (a new object).

        ``X``: the first fit's rows, from which a rule (``MixedNB(blocks="auto")``) chooses
        the model; other classifiers ignore it.
        """
        raise NotImplementedError

    def _prior_alpha(self):
        """Pseudo-count added to every class count in the class prior."""
        return self.prior_alpha

    def _given_prior(self):
        """Class prior given by the user, or None."""
        return self.class_prior

    def _fit_prior(self):
        return self.fit_prior

    def _check_hyper_parameters(self):
        """Checks and warnings of fit and partial_fit beyond ``_parameter_constraints``."""

    # ---- scikit-learn plumbing ----------------------------------------------------------
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = self._positive_only
        # Discrete models score poorly on the Gaussian blobs of scikit-learn's checks, which
        # are neither counts nor binary; scikit-learn's discrete NB classes set the same tag.
        tags.classifier_tags.poor_score = self._discrete
        tags.input_tags.allow_nan = self.missing == "ignore"
        return tags

    def _validate_X(self, X, *, reset):
        return validate_rows(self, X, reset=reset, missing=self.missing)

    def _bound_events(self, events=None):
        """The model that prepares and scores rows: ``events`` (default: the fitted
        ``events_``) with the ``missing`` option bound (:func:`mlnb.events.bind_missing`)."""
        return bind_missing(self.events_ if events is None else events, self.missing)

    # ---- fitting ------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit from scratch.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        self._validate_params()
        for attribute in ("classes_", "stats_", "params_"):
            self.__dict__.pop(attribute, None)
        X = self._validate_X(X, reset=True)
        y = self._check_y(X, y)
        self._check_lengths(X, y)
        classes, index = np.unique(y, return_inverse=True)
        if classes.dtype == object and all(isinstance(c, str) for c in classes):
            classes = classes.astype(str)  # as scikit-learn's unique_labels: a string dtype
        return self._accumulate(X, index.ravel(), classes, sample_weight)

    @staticmethod
    def _check_lengths(X, y):
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} entries")

    @staticmethod
    def _check_y(X, y):
        if y is None:
            raise ValueError("this classifier requires y to be passed, but the target y is None")
        y = np.asarray(y)
        _check_no_missing_classes(y)
        if y.ndim != 1 and not (y.ndim == 2 and y.shape[1] == 1):
            raise ValueError(
                f"y must be one-dimensional (one class per row); got shape {y.shape}; "
                "for multi-label Y use the estimators of mlnb's multi-label module"
            )
        y = column_or_1d(y, warn=True)
        check_classification_targets(y)
        return y

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch of rows to the statistics (online learning).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every class that can ever appear; required on the first call, optional (and then
            checked) afterwards.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self

        Notes
        -----
        A call that raises leaves the classifier exactly as it was. A label of ``y`` outside
        ``classes`` raises ValueError (scikit-learn's discrete classifiers drop its rows).
        """
        if _online_rows.add_rows(self, X, y, classes, sample_weight):
            return self  # a few rows of a fitted classifier; changes nothing if it raises
        return self._partial_fit(X, y, classes, sample_weight)

    @atomic
    def _partial_fit(self, X, y, classes, sample_weight):
        self._validate_params()
        first_call = not hasattr(self, "classes_")
        if first_call and classes is None:
            raise ValueError(
                "classes must be passed on the first call to partial_fit: the statistics hold "
                "one group per class, so all classes must be given on the first call"
            )
        X = self._validate_X(X, reset=first_call)
        y = self._check_y(X, y)
        self._check_lengths(X, y)
        if first_call:
            check_classification_targets(classes)
            classes = unique_labels(classes)
        elif classes is not None and not np.array_equal(unique_labels(classes), self.classes_):
            raise ValueError(
                f"classes={unique_labels(classes)!r} differs from the classes of the first "
                f"call to partial_fit, {self.classes_!r}"
            )
        else:
            classes = self.classes_
        return self._accumulate(X, _class_index(y, classes), classes, sample_weight)

    def _accumulate(self, X, index, classes, sample_weight):
        """Add validated rows with class indices ``index`` into ``classes``."""
        self._check_hyper_parameters()
        fitted = hasattr(self, "stats_")
        events = self.event_model(None if fitted else X)
        batch = self._batch_statistics(events, X, index, len(classes), sample_weight)
        stats = self.stats_.copy().merge(batch) if fitted else batch
        self._set_statistics(classes, stats, events)
        _online_rows.own(self)  # new statistics, made under checked hyper-parameters
        return self

    def _batch_statistics(self, events, X, index, n_classes, sample_weight):
        """Statistics of validated rows X with class indices ``index`` (0..n_classes-1)."""
        return self._grouped_statistics(events, X, one_hot(index, n_classes), sample_weight)

    def _grouped_statistics(self, events, X, groups, sample_weight):
        """Statistics of validated rows X, row i counted ``groups[i, c]`` times in class c."""
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        prepared = self._bound_events(events).prepare(X, caller=type(self).__name__)
        return GroupStats.from_data(prepared, groups, weight, second_moments=events.second_moments)

    # ---- the statistics protocol (fold-subtraction tuning, custom training loops) -------
    def statistics_key(self):
        """What the statistics depend on: classifiers with equal keys share statistics."""
        return (type(self).__name__, self.event_model().statistics_key())

    def batch_statistics(self, X, y, *, classes=None, sample_weight=None):
        """The statistics of a batch of rows, one group per class; nothing is fitted.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every class; the groups follow their sorted order. Give them to align batches
            that may lack some classes (default: the batch's own classes).
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        GroupStats
            Its ``groups`` are the classes. Add and subtract batches' statistics with
            ``merge`` and ``subtract``.
        """
        X = validate_rows(self, X, missing=self.missing)
        y = self._check_y(X, y)
        self._check_lengths(X, y)
        classes = unique_labels(y if classes is None else classes)
        index = _class_index(y, classes)
        stats = self._batch_statistics(self.event_model(), X, index, len(classes), sample_weight)
        stats.groups = classes
        return stats

    def soft_statistics(self, X, proba, *, classes, sample_weight=None):
        """The statistics of rows whose class is uncertain: row i counts ``proba[i, c]``
        times (times its weight) in class c; nothing is fitted. What the M-step of
        expectation-maximisation adds for unlabelled rows (Nigam et al. 2000, eq. 5-6).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        proba : array-like of shape (n_samples, n_classes)
            Non-negative shares of each row in the classes (a row of probabilities).
        classes : array-like of shape (n_classes,)
            The classes of the columns of ``proba``, sorted.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        GroupStats
            One group per class, as :meth:`batch_statistics` gives them.
        """
        X = validate_rows(self, X, missing=self.missing)
        proba = np.asarray(proba, dtype=np.float64)
        classes = np.asarray(classes)
        if proba.shape != (X.shape[0], len(classes)):
            raise ValueError(
                f"proba has shape {proba.shape}; expected ({X.shape[0]}, {len(classes)}): "
                "a row per row of X, a column per class"
            )
        if not np.all(np.isfinite(proba)) or proba.min(initial=0.0) < 0:
            raise ValueError("proba must hold finite, non-negative shares")
        stats = self._grouped_statistics(self.event_model(), X, proba, sample_weight)
        stats.groups = classes
        return stats

    def from_statistics(self, stats, *, classes=None, n_features=None, columns=None):
        """Become the classifier fitted to ``stats`` (e.g. fold-subtracted); returns self.

        Parameters
        ----------
        stats : GroupStats
            One group per class (from :meth:`batch_statistics`, merged or subtracted).
        classes : array-like of shape (n_classes,), default=None
            The classes of the groups, in order (default: the statistics' ``groups``).
        n_features : int, default=None
            Number of input features (default: what the statistics were made from).
        columns : array-like of int, default=None
            Models whose zero features are silent (multinomial) only: score
            ``X[:, columns]`` as the full model scores rows that are zero elsewhere, a
            scoring-only shortcut (the model then takes ``len(columns)`` features).
        """
        self._validate_params()
        if classes is None:
            classes = getattr(stats, "groups", None)
            if classes is None:
                raise ValueError(
                    "classes: the statistics do not name their classes (groups is None); "
                    "pass classes="
                )
        elif stats.groups is not None and not np.array_equal(stats.groups, classes):
            stats = stats.copy(deep=False)  # the model's statistics name its own classes
            stats.groups = np.asarray(classes)
        events = self.event_model()
        params = None if columns is None else events.estimate_columns(stats, columns)
        n_features = events.input_width(stats.n_features) if n_features is None else n_features
        self.n_features_in_ = int(n_features) if columns is None else len(columns)
        self._set_statistics(np.asarray(classes), stats, events, params=params)
        return self

    def _set_statistics(self, classes, stats, events=None, *, params=None):
        """Install statistics and recompute everything derived from them."""
        events = self.event_model() if events is None else events
        params = events.estimate(stats) if params is None else params
        log_prior = self._log_prior(stats.count)
        self.classes_ = classes
        self.stats_ = stats
        self.params_ = params
        self.class_count_ = stats.count
        self.class_log_prior_ = log_prior
        self.events_ = events

    # The parameters derived from the statistics, which the fast path of partial_fit drops
    # (mlnb._online_rows) and the first use re-estimates.
    _DERIVED = ("params_", "class_count_", "class_log_prior_")

    def __getattr__(self, name):
        # Reached only when an attribute is not found: a derived one that was dropped.
        fitted = vars(self)
        if name in _BaseNB._DERIVED and "stats_" in fitted and "events_" in fitted:
            self._refresh_fitted()
            return fitted[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _refresh_fitted(self):
        """Re-estimate the parameters derived from the statistics if they were dropped:
        after it, the attributes hold the whole fitted state (what a model file saves)."""
        fitted = vars(self)
        if "stats_" in fitted and not all(name in fitted for name in self._DERIVED):
            stats = self.stats_
            self.params_ = self.events_.estimate(stats)
            self.class_count_ = stats.count
            self.class_log_prior_ = self._log_prior(stats.count)

    def __getstate__(self):
        # pickle, copy and deepcopy: the state holds the parameters, and the statistics it
        # shares are no longer modified in place by this object (mlnb._online_rows).
        self._refresh_fitted()
        _online_rows.disown(self)
        return super().__getstate__()

    def _log_prior(self, class_count):
        n_classes = len(class_count)
        given = self._given_prior()
        if given is not None:
            given = np.asarray(given, dtype=float)
            if given.shape != (n_classes,):
                raise ValueError(f"the class prior has {given.size} entries; expected {n_classes}")
            if np.any(given < 0) or not np.isclose(given.sum(), 1.0):
                raise ValueError("the class prior must be non-negative and sum to 1")
            with np.errstate(divide="ignore"):
                return np.log(given)
        if not self._fit_prior():
            return np.full(n_classes, -np.log(n_classes))
        alpha = check_pseudo_count(self._prior_alpha(), "the class-prior pseudo-count")
        return log_categorical(class_count, class_count.sum(), n_classes, alpha)

    def merge(self, other):
        """Add the statistics of a classifier fitted on other rows (in place; returns self).

        Both must be fitted, of the same type and hyper-parameters, with the same classes
        and features. ``a.fit(X1, y1).merge(b.fit(X2, y2))`` equals a fit on both batches:
        the basis of distributed training.
        """
        check_mergeable(self, other, "classes_", "n_features_in_")
        self._set_statistics(self.classes_, self.stats_.copy().merge(other.stats_))
        return self

    @atomic
    def forget(self, X, y, sample_weight=None):
        """Take rows the classifier learnt out of it again (in place; returns self).

        The model becomes the one of the other rows, exactly (the statistics add and
        subtract): ``clf.fit(X, y).forget(X[:10], y[:10])`` predicts as a fit on
        ``X[10:], y[10:]`` with ``classes`` given. A class whose rows are all forgotten
        keeps its (empty) group, as after ``partial_fit``. A correction of a row's class
        is ``forget`` of the row as learnt, then ``partial_fit`` of it as it should be. A
        call that raises changes nothing.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            The classes the rows were learnt with.
        sample_weight : array-like of shape (n_samples,), default=None
            The weights they were learnt with.

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> from mlnb import MultinomialNB
        >>> X, y = np.array([[2, 0], [0, 3], [1, 1], [3, 0]]), np.array([0, 1, 1, 0])
        >>> clf = MultinomialNB().fit(X, y).forget(X[:1], y[:1])
        >>> rest = MultinomialNB().fit(X[1:], y[1:])
        >>> bool(np.allclose(clf.feature_log_prob_, rest.feature_log_prob_))
        True
        """
        check_is_fitted(self)
        self._refresh_fitted()
        X = self._validate_X(X, reset=False)
        y = self._check_y(X, y)
        self._check_lengths(X, y)
        unknown = np.setdiff1d(np.unique(y), self.classes_)
        if unknown.size:
            raise ValueError(
                f"{type(self).__name__}.forget: y holds classes the model never learnt: "
                f"{unknown[:5].tolist()}"
            )
        index = _class_index(y, self.classes_)
        batch = self._batch_statistics(self.events_, X, index, len(self.classes_), sample_weight)
        batch.groups = self.stats_.groups
        remaining = remaining_statistics(self.stats_, batch, type(self).__name__)
        self._set_statistics(self.classes_, remaining, self.events_)
        _online_rows.own(self)
        return self

    # ---- prediction ---------------------------------------------------------------------
    def _joint_log_likelihood(self, X):
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        events = self._bound_events()
        prepared = events.prepare(X, caller=type(self).__name__)
        log_likelihood = events.score(self.params_, prepared)
        return log_likelihood + self.class_log_prior_[None, :]

    def predict_joint_log_proba(self, X):
        """``log P(x, c)`` for every row and class, shape (n_samples, n_classes)."""
        return self._joint_log_likelihood(X)

    def predict_log_proba(self, X):
        """``log P(c | x)``, normalised with logsumexp, shape (n_samples, n_classes)."""
        joint = self._joint_log_likelihood(X)
        return log_normalise(joint)

    def predict_proba(self, X):
        """``P(c | x)``, shape (n_samples, n_classes)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The class of highest posterior probability for each row."""
        joint = self._joint_log_likelihood(X)
        return self.classes_[np.argmax(joint, axis=1)]


class GaussianNB(_BaseNB):
    """Gaussian Naive Bayes (classical; :class:`mlnb.events.Gaussian`).

    A drop-in for scikit-learn's ``GaussianNB``: the same parameters, fitted attributes and
    predictions.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Given class prior; None estimates it from the class counts.
    var_smoothing : float, default=1e-9
        Variance floor ``epsilon_ = var_smoothing * largest feature variance`` (Xu 2018,
        section 4), over all rows seen (see Notes).
    prior_alpha : float, default=0.0
        Pseudo-count of the class prior (eq. 2); 0 is scikit-learn's maximum-likelihood prior.
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training rows of each class.
    class_prior_ : ndarray of shape (n_classes,)
        Probability of each class.
    theta_ : ndarray of shape (n_classes, n_features)
        Mean of each feature per class.
    var_ : ndarray of shape (n_classes, n_features)
        Variance of each feature per class, ``epsilon_`` included.
    epsilon_ : float
        The variance floor added to every variance.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Defined when X had string column names (e.g. a DataFrame).

    Notes
    -----
    Everything is derived from the additive statistics ``stats_``, so ``partial_fit`` in
    chunks and ``merge`` equal one fit on all rows, the variance floor included: it comes
    from the variance over all rows seen, weighted by ``sample_weight``. scikit-learn's
    ``partial_fit`` takes it from the last batch alone and never weights it; the two agree
    on a single unweighted fit. When every feature is constant scikit-learn's floor is 0;
    mlnb's is ``var_smoothing``.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import GaussianNB
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> GaussianNB().fit(X, [0, 0, 1, 1]).predict([[-0.8, -1.0]])
    array([0])
    """

    @classmethod
    def _unit_test_params(cls):
        """With ``missing="ignore"`` the checks also feed NaN (the allow_nan tag)."""
        return [{}, {"missing": "ignore"}]

    def __init__(self, *, priors=None, var_smoothing=1e-9, prior_alpha=0.0, missing="error"):
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.prior_alpha = prior_alpha
        self.missing = missing

    def event_model(self, X=None):
        return Gaussian(var_smoothing=self.var_smoothing)

    def _given_prior(self):
        return self.priors

    def _fit_prior(self):
        return True

    @property
    def theta_(self):
        """Class means, shape (n_classes, n_features)."""
        return self.params_.mean

    @property
    def var_(self):
        """Class variances with the floor added, shape (n_classes, n_features)."""
        return self.params_.var

    @property
    def epsilon_(self):
        """The variance floor added to every class variance (a float)."""
        return np.float64(self.events_.variance_floor(self.stats_))

    @property
    def class_prior_(self):
        """Probability of each class, shape (n_classes,)."""
        return np.exp(self.class_log_prior_)


_MIN_ALPHA = 1e-10  # the smallest alpha without force_alpha (scikit-learn's bound)


class _AlphaSmoothed:
    """``alpha`` and ``force_alpha`` of the classical discrete classifiers, as scikit-learn's."""

    def _check_hyper_parameters(self):
        alpha = np.asarray(self.alpha, dtype=float)
        if self.force_alpha or not alpha.size or np.any(alpha < 0):
            return  # negative alpha: the event model raises
        if alpha.min() < _MIN_ALPHA:
            warnings.warn(
                f"alpha too small will result in numeric errors: setting alpha = "
                f"{_MIN_ALPHA:.1e} where it is smaller; use force_alpha=True to keep alpha "
                "unchanged",
                UserWarning,
                stacklevel=4,
            )

    @property
    def feature_count_(self):
        """Weighted count of each (class, feature), shape (n_classes, n_features)."""
        return self.stats_.sums


class MultinomialNB(_AlphaSmoothed, _BaseNB):
    """Multinomial Naive Bayes (classical; :class:`mlnb.events.Multinomial`).

    A drop-in for scikit-learn's ``MultinomialNB``.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Lidstone smoothing of the word probabilities (Xu 2018, eq. 4, its beta), one value
        or one per word.
    force_alpha : bool, default=True
        If False, alpha below 1e-10 is raised to 1e-10 with a warning; if True it is used
        as given (alpha = 0: no smoothing).
    fit_prior : bool, default=True
        Whether to learn the class prior; False means uniform.
    class_prior : array-like of shape (n_classes,), default=None
        Given class prior.
    prior_alpha : float, default=0.0
        Pseudo-count of the class prior (eq. 2; the paper uses 1).
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training rows of each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        Log-probability of each class.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted sum of each feature over each class's rows.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        ``log phi_cv``, the smoothed log-probability of each word given the class.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Defined when X had string column names.

    Notes
    -----
    A given ``class_prior`` must sum to 1 (scikit-learn does not check it). All fitted
    attributes follow from the statistics ``stats_``: they stay in sync after
    ``partial_fit`` and ``merge``.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import MultinomialNB
    >>> X = np.array([[2, 1, 0], [3, 0, 0], [0, 1, 3]])
    >>> MultinomialNB().fit(X, ["a", "a", "b"]).predict([[1, 0, 0], [0, 0, 2]])
    array(['a', 'b'], dtype='<U1')
    """

    _positive_only = True
    _discrete = True

    @classmethod
    def _unit_test_params(cls):
        """With ``missing="ignore"`` the checks also feed NaN (the allow_nan tag)."""
        return [{}, {"missing": "ignore"}]

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        prior_alpha=0.0,
        missing="error",
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.missing = missing

    def event_model(self, X=None):
        return Multinomial(alpha=self.alpha, force_alpha=self.force_alpha)

    @property
    def feature_log_prob_(self):
        """``log phi_cv``, shape (n_classes, n_features)."""
        return self.params_.log_phi


class ComplementNB(_AlphaSmoothed, _BaseNB):
    """Complement Naive Bayes (Rennie et al. 2003; :class:`mlnb.events.Complement`).

    A drop-in for scikit-learn's ``ComplementNB``: each class is scored by how badly its
    complement (the other classes' rows) explains the row, which suits unbalanced text
    categories. As scikit-learn's, the class prior is used only when there is one class.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing of the complement counts.
    force_alpha : bool, default=True
        As :class:`MultinomialNB`; alpha below 1e-10 is raised to 1e-10 either way (the
        complement counts of a word present in every row would be 0).
    fit_prior, class_prior
        Used with a single class only, as scikit-learn's.
    norm : bool, default=False
        Rennie et al.'s weight normalisation.
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, feature_count_, n_features_in_
        As :class:`MultinomialNB`.
    feature_all_ : ndarray of shape (n_features,)
        Weighted count of each feature over all rows.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        The complement weights of each class.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import ComplementNB
    >>> X = np.array([[2, 1, 0], [3, 0, 0], [0, 1, 3]])
    >>> ComplementNB().fit(X, ["a", "a", "b"]).predict([[1, 0, 0], [0, 0, 2]])
    array(['a', 'b'], dtype='<U1')
    """

    _positive_only = True
    _discrete = True

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        norm=False,
        missing="error",
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.norm = norm
        self.missing = missing

    def event_model(self, X=None):
        return Complement(alpha=self.alpha, norm=self.norm)

    def _prior_alpha(self):
        return 0.0

    def _log_prior(self, class_count):
        prior = super()._log_prior(class_count)
        return prior if len(class_count) == 1 else np.zeros_like(prior)

    @property
    def feature_all_(self):
        """Weighted count of each feature over all rows, shape (n_features,)."""
        return self.stats_.total_sums

    @property
    def feature_log_prob_(self):
        """The complement weights ``w_cv``, shape (n_classes, n_features)."""
        return self.params_.weights


class CategoricalNB(_AlphaSmoothed, _BaseNB):
    """Categorical Naive Bayes of integer-coded nominal features (events.Categorical).

    A drop-in for scikit-learn's ``CategoricalNB``: feature v takes the codes
    ``0 .. K_v - 1``, ``P(x_v = k | c) = (N_cvk + alpha) / (N_c + K_v alpha)``.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
    force_alpha : bool, default=True
        As :class:`MultinomialNB`; alpha below 1e-10 is raised to 1e-10 either way.
    fit_prior, class_prior, prior_alpha
        As in :class:`MultinomialNB`.
    min_categories : int, array-like of shape (n_features,) or None, default=None
        A lower bound of every feature's number of categories.
    max_categories : int, default=16
        The codes accepted (those below it, or below ``min_categories`` if larger); a
        larger code raises an error that says how to raise the bound.
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import CategoricalNB
    >>> X = np.array([[0, 2], [0, 1], [1, 0], [2, 0]])
    >>> CategoricalNB().fit(X, [0, 0, 1, 1]).predict([[0, 2], [2, 0]])
    array([0, 1])
    """

    _discrete = True

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        min_categories=None,
        max_categories=16,
        prior_alpha=0.0,
        missing="error",
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories
        self.max_categories = max_categories
        self.prior_alpha = prior_alpha
        self.missing = missing

    def event_model(self, X=None):
        return Categorical(
            alpha=self.alpha,
            min_categories=self.min_categories,
            max_categories=self.max_categories,
        )

    @property
    def n_categories_(self):
        """Number of categories of each feature, shape (n_features,)."""
        return self.params_.n_values


class BernoulliNB(_AlphaSmoothed, _BaseNB):
    """Bernoulli Naive Bayes (classical; :class:`mlnb.events.Bernoulli`).

    A drop-in for scikit-learn's ``BernoulliNB``.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing of the presence probabilities (Xu 2018, eq. 6, its beta), one
        value or one per feature: ``p_cv = (m_cv + alpha_v) / (l_c + 2 alpha_v)``.
    force_alpha : bool, default=True
        As in :class:`MultinomialNB`.
    binarize : float or None, default=0.0
        Threshold above which a feature counts as present; None if X is already 0/1.
    fit_prior, class_prior, prior_alpha
        As in :class:`MultinomialNB`.
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, n_features_in_, feature_names_in_
        As in :class:`MultinomialNB`.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted number of each class's rows in which each feature is present.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        ``log p_cv``, the log-probability that a feature is present given the class.

    Notes
    -----
    An array alpha smooths each feature with its own value, as above; scikit-learn's (1.9)
    adds ``2 alpha`` to the class counts instead, which fails unless there are as many
    classes as features. With ``binarize=None`` X must hold only 0 and 1 (scikit-learn does
    not check). ``log(1 - p_cv)`` is computed from the counts, not as scikit-learn's
    ``log(1 - exp(feature_log_prob_))``, which loses digits when ``p_cv`` is near 1 (alpha
    near 0).
    """

    _discrete = True

    @classmethod
    def _unit_test_params(cls):
        """With ``missing="ignore"`` the checks also feed NaN (the allow_nan tag)."""
        return [{}, {"missing": "ignore"}]

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        binarize=0.0,
        fit_prior=True,
        class_prior=None,
        prior_alpha=0.0,
        missing="error",
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.missing = missing

    def event_model(self, X=None):
        return Bernoulli(alpha=self.alpha, binarize=self.binarize, force_alpha=self.force_alpha)

    @property
    def feature_log_prob_(self):
        """``log p_cv``, shape (n_classes, n_features)."""
        return self.events_.log_presence(self.stats_)


class _BayesianPrior:
    """Dirichlet(alpha) class prior, posterior predictive (Xu 2018, eq. 19)."""

    def _prior_alpha(self):
        return self.alpha

    def _fit_prior(self):
        return True


class BayesianMultinomialNB(_BayesianPrior, _BaseNB):
    """Bayesian multinomial Naive Bayes: Dirichlet-multinomial predictive (Xu 2018, eq. 20).

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet concentration of the class prior (eq. 19; the paper fixes 2).
    beta : float, default=1.0
        Dirichlet concentration of each class's word distribution (eq. 20).
    class_prior : array-like of shape (n_classes,), default=None
        Given class prior, replacing eq. 19.
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.
    """

    _positive_only = True
    _discrete = True

    def __init__(self, *, alpha=1.0, beta=1.0, class_prior=None, missing="error"):
        self.alpha = alpha
        self.beta = beta
        self.class_prior = class_prior
        self.missing = missing

    def event_model(self, X=None):
        return BayesianMultinomial(beta=self.beta)


class BayesianBernoulliNB(_BayesianPrior, _BaseNB):
    """Bayesian Bernoulli Naive Bayes: Beta-Bernoulli predictive (Xu 2018, eq. 21).

    With ``a = b`` it predicts as :class:`BernoulliNB` with ``alpha = a``.

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet concentration of the class prior (eq. 19).
    a, b : float, default=1.0
        Beta prior pseudo-counts of presence and absence (eq. 14).
    binarize : float or None, default=0.0
        Threshold above which a feature counts as present; None if X is already 0/1.
    class_prior : array-like of shape (n_classes,), default=None
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.
    """

    _discrete = True

    def __init__(self, *, alpha=1.0, a=1.0, b=1.0, binarize=0.0, class_prior=None, missing="error"):
        self.alpha = alpha
        self.a = a
        self.b = b
        self.binarize = binarize
        self.class_prior = class_prior
        self.missing = missing

    def event_model(self, X=None):
        return BayesianBernoulli(a=self.a, b=self.b, binarize=self.binarize)


class BayesianGaussianNB(_BayesianPrior, _BaseNB):
    """Bayesian Gaussian Naive Bayes: Normal-Gamma prior, Student-t predictive (eqs. 17, 22).

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet concentration of the class prior (eq. 19).
    mu : float, array-like of shape (n_features,) or None, default=None
        Prior mean; None is each feature's mean over all rows (the paper's choice).
    lam : float, default=1.0
        Prior precision scale lambda (the paper fixes 1).
    a, b : float, default=1.0
        Gamma prior shape and rate (the paper tunes beta = a = b).
    class_prior : array-like of shape (n_classes,), default=None
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.
    """

    def __init__(
        self, *, alpha=1.0, mu=None, lam=1.0, a=1.0, b=1.0, class_prior=None, missing="error"
    ):
        self.alpha = alpha
        self.mu = mu
        self.lam = lam
        self.a = a
        self.b = b
        self.class_prior = class_prior
        self.missing = missing

    def event_model(self, X=None):
        return BayesianGaussian(mu=self.mu, lam=self.lam, a=self.a, b=self.b)


class MixedNB(_BaseNB):
    """Naive Bayes whose column blocks follow different event models.

    Parameters
    ----------
    blocks : list of (event model or name, columns), "auto", "weka" or Auto, default=None
        As :class:`mlnb.events.Mixed`; None means every column Gaussian; a rule chooses
        each column's model from the training rows (:mod:`mlnb.events.auto`; a DataFrame's
        categorical, object and bool columns are nominal).
    fit_prior, class_prior, prior_alpha
        As in :class:`MultinomialNB`.
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.

    Examples
    --------
    Gaussian measurements beside binary flags:

    >>> import numpy as np
    >>> from mlnb import MixedNB
    >>> X = np.array([[0.1, 1], [0.3, 1], [2.1, 0], [1.9, 0]])
    >>> model = MixedNB(blocks=[("gaussian", [0]), ("bernoulli", [1])])
    >>> model.fit(X, [0, 0, 1, 1]).predict([[0.2, 1], [2.0, 0]])
    array([0, 1])
    """

    def __init__(
        self, *, blocks=None, fit_prior=True, class_prior=None, prior_alpha=0.0, missing="error"
    ):
        self.blocks = blocks
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.missing = missing

    def event_model(self, X=None):
        if is_rule(self.blocks):
            return estimator_events(self, self.blocks, X)
        blocks = self.blocks if self.blocks is not None else [("gaussian", slice(None))]
        return Mixed(blocks=blocks)
