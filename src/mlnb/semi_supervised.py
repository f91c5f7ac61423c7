"""Semi-supervised Naive Bayes: expectation-maximisation over unlabelled rows.

Nigam, McCallum, Thrun and Mitchell (2000) train a Naive Bayes text classifier on a few
labelled documents and many unlabelled ones: the E-step gives each unlabelled row its
class probabilities under the current model, the M-step re-estimates the model from the
labelled rows plus the unlabelled ones counted in each class by those probabilities, times
a weight ``lambda`` (their EM-lambda, eq. 8: with many labelled rows, unlabelled ones
should count less). With additive statistics each M-step is one weighted statistics pass
(:meth:`~mlnb.naive_bayes.MultinomialNB.soft_statistics`) added to the labelled rows'
statistics, which are computed once. The iterations stop when the log-likelihood of the
data (labelled rows' joint, plus ``lambda`` times the unlabelled rows' marginal) gains
less than ``tol`` relative, or after ``max_iter``.

Multi-label data (binary relevance, whose labels are separate binary problems): ``y`` is a
0/1 label matrix in which a row of -1 is unlabelled; the E-step gives each unlabelled row
each label's probability, the M-step counts the row that much among the label's rows
(:meth:`~mlnb.multilabel.BinaryRelevance.soft_statistics`), the settings binary
relevance's defaults choose on the labelled rows are kept, and the iterations stop when
those probabilities change by less than ``tol`` on average. Measured on medical and enron
(20 % and 50 % of the rows labelled), EM does not help there (micro F1 0.54 -> 0.24 on
enron at weight 1): the tuned weight keeps 0.

At ``unlabelled_weight="tuned"`` the weight is chosen out of fold on the labelled rows
(each fold's held-out labelled rows scored by EM on the others and every unlabelled row),
among :data:`WEIGHTS` and 0 (no EM), keeping 0 unless a weight wins by one standard error
of the accuracy over the folds (Breiman et al. 1984's rule); the default model's smoothing
is chosen with it.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.metrics import f1_score
from sklearn.model_selection import KFold, StratifiedKFold, check_cv
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
)

from .base import is_additive, validate_rows
from .events.categorical import log_normalise
from .naive_bayes import MultinomialNB

__all__ = ["DEFAULT_ALPHAS", "UNLABELLED", "WEIGHTS", "SemiSupervisedNB"]

#: The mark of an unlabelled row in ``y`` (scikit-learn's ``SelfTrainingClassifier``'s).
UNLABELLED = -1
#: The weights of the unlabelled rows tried at ``unlabelled_weight="tuned"`` (with 0).
WEIGHTS = (0.01, 0.1, 1.0)
#: The fewest folds (labelled rows of the rarest class) the weight is chosen on; with fewer
#: (a handful of labelled rows per class, where held-out accuracy cannot tell the settings
#: apart) the weight is Nigam et al.'s 1 with the middle smoothing.
MIN_FOLDS = 3
#: The smoothings of the default model (``MultinomialNB(alpha=...)``) tried with them; with
#: a weight given, the second. Laplace's alpha = 1 spread over a large vocabulary (70,000
#: stemmed words of 20 Newsgroups) lets the class that absorbs the first unlabelled rows
#: take all of them (accuracy 0.05 at weight 0.01 with 2 % labelled, measured), where
#: alpha = 0.1 takes EM from 0.50 to 0.67.
DEFAULT_ALPHAS = (1.0, 0.1, 0.01)


class SemiSupervisedNB(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A Naive Bayes classifier that also learns from unlabelled rows, by EM.

    Parameters
    ----------
    estimator : additive Naive Bayes classifier or BinaryRelevance, default=None
        The model, any classifier of :mod:`mlnb.naive_bayes`, or binary relevance for a
        label matrix; None: ``MultinomialNB`` with its smoothing chosen with the weight
        among :data:`DEFAULT_ALPHAS` (0.1 with a weight given), ``BinaryRelevance()`` for
        a label matrix.
    unlabelled_weight : float >= 0 or "tuned", default="tuned"
        What an unlabelled row counts for against a labelled one (EM-lambda); 0 ignores
        them; "tuned" chooses it out of fold (see the module docstring).
    max_iter : int, default=10
        EM iterations at most.
    tol : float, default=1e-4
        Stop when the log-likelihood gains less than this, relative.
    cv : int or cross-validation splitter, default=3
        Folds of the choice of the weight (stratified, shuffled by ``random_state``).
    random_state : int or None, default=0
        The folds' shuffle.

    Attributes
    ----------
    estimator_ : the fitted classifier
    unlabelled_weight_ : float
        The weight used.
    n_iter_ : int
        Fits of the final model: the labelled rows' plus one per EM iteration.
    log_likelihood_ : list of float
        The data's log-likelihood after each iteration (classifiers); for binary
        relevance, the mean change of the unlabelled rows' label probabilities.
    cv_results_ : dict or None
        Out-of-fold accuracy of every weight tried (``"tuned"``).

    Notes
    -----
    The fitted model is ``estimator_``, an ordinary classifier of :mod:`mlnb.naive_bayes`:
    save it with :func:`mlnb.io.save`, keep learning with its ``partial_fit``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, size=400)
    >>> X = rng.poisson(np.where(y[:, None] == 1, [3, 1, 1, 3], [1, 3, 3, 1]))
    >>> partial = np.where(np.arange(400) < 10, y, -1)  # 10 labelled rows, 390 not
    >>> model = SemiSupervisedNB(unlabelled_weight=1.0).fit(X, partial)
    >>> bool(model.score(X, y) >= 0.9)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [HasMethods(["soft_statistics", "from_statistics"]), None],
        "unlabelled_weight": [Interval(Real, 0, None, closed="left"), StrOptions({"tuned"})],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "cv": ["cv_object"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator=None,
        *,
        unlabelled_weight="tuned",
        max_iter=10,
        tol=1e-4,
        cv=3,
        random_state=0,
    ):
        self.estimator = estimator
        self.unlabelled_weight = unlabelled_weight
        self.max_iter = max_iter
        self.tol = tol
        self.cv = cv
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _base(self, multi_label=False):
        if self.estimator is not None:
            base = self.estimator
        elif multi_label:
            from .multilabel import BinaryRelevance

            base = BinaryRelevance()
        else:
            base = MultinomialNB(alpha=DEFAULT_ALPHAS[1])
        if not is_additive(base):
            raise TypeError(f"estimator must be an additive Naive Bayes classifier; got {base!r}")
        return base

    def fit(self, X, y, sample_weight=None):
        """Fit on rows X, of which those with ``y == -1`` are unlabelled.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or label matrix (n_samples, n_labels)
            Classes, :data:`UNLABELLED` (-1) marking a row without one; or 0/1 label sets
            (binary relevance), a row of -1 marking an unlabelled row.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        self._validate_params()
        if y is None:
            raise ValueError("SemiSupervisedNB requires y to be passed, but the target y is None")
        multi_label = _is_label_matrix(y)
        base = self._base(multi_label)
        X = validate_rows(base, X, missing=getattr(base, "missing", "error"))
        if multi_label:
            y, labelled = _label_rows(base, y)
        else:
            y = column_or_1d(y, warn=True)
            labelled = y != UNLABELLED
        check_consistent_length(X, y)
        if not labelled.any():
            raise ValueError("y has no labelled row (every entry is -1)")
        if not multi_label:
            check_classification_targets(y[labelled])
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        self.classes_ = np.arange(y.shape[1]) if multi_label else np.unique(y[labelled])
        self.cv_results_ = None
        if multi_label:  # the settings binary relevance chooses on the labelled rows
            base = _settled(base, X[labelled], y[labelled], weight[labelled])
        lam = self.unlabelled_weight
        if lam == "tuned":
            bases = [base]
            if self.estimator is None and not multi_label:
                bases = [MultinomialNB(alpha=alpha) for alpha in DEFAULT_ALPHAS]
            base, lam = self._tuned(bases, X, y, labelled, weight)
        self.unlabelled_weight_ = float(lam)
        fitted = _em(
            base,
            X[labelled],
            y[labelled],
            X[~labelled],
            weight[labelled],
            weight[~labelled],
            self.classes_,
            float(lam),
            self.max_iter,
            self.tol,
        )
        self.estimator_, self.log_likelihood_ = fitted
        self.n_iter_ = len(self.log_likelihood_) + 1
        self.n_features_in_ = X.shape[1]
        return self

    def _tuned(self, bases, X, y, labelled, weight):
        """(model, weight of the unlabelled rows) chosen out of fold on the labelled rows:
        the best on held-out accuracy, unless it uses the unlabelled rows and does not
        beat the best that does not by one standard error."""
        index = np.flatnonzero(labelled)
        multi_label = y.ndim == 2
        if multi_label:  # folds of rows; held-out label sets scored by micro F1
            counts = np.array([len(index)])
        else:
            counts = np.unique(y[index], return_counts=True)[1]
        if isinstance(self.cv, Integral):
            n_folds = int(min(self.cv, counts.min()))
            if n_folds < MIN_FOLDS:  # too few labelled rows of a class: Nigam's EM
                return bases[len(bases) // 2], 1.0
            splitter = KFold if multi_label else StratifiedKFold
            split = splitter(n_folds, shuffle=True, random_state=self.random_state)
        else:
            split = check_cv(self.cv, None if multi_label else y[index], classifier=True)
        folds = list(split.split(index, None if multi_label else y[index]))
        unlabelled = np.flatnonzero(~labelled)
        settings = [(base, lam) for base in bases for lam in (0.0, *WEIGHTS)]
        correct = np.zeros((len(settings), len(folds)))
        for k, (train, test) in enumerate(folds):
            train, test = index[train], index[test]
            for j, (base, lam) in enumerate(settings):
                with warnings.catch_warnings():  # a fold of a few rows of many classes
                    warnings.filterwarnings("ignore", message="The number of unique classes")
                    model, _ = _em(
                        base,
                        X[train],
                        y[train],
                        X[unlabelled],
                        weight[train],
                        weight[unlabelled],
                        self.classes_,
                        lam,
                        self.max_iter,
                        self.tol,
                    )
                predicted = model.predict(X[test])
                correct[j, k] = (
                    f1_score(y[test], predicted, average="micro", zero_division=1.0)
                    if multi_label
                    else np.mean(predicted == y[test])
                )
        means = correct.mean(axis=1)
        self.cv_results_ = {
            "estimator": [base for base, _ in settings],
            "unlabelled_weight": [lam for _, lam in settings],
            "mean_accuracy": means.tolist(),
        }
        best = int(np.argmax(means))
        alone = max((j for j, (_, lam) in enumerate(settings) if lam == 0), key=means.__getitem__)
        gains = correct[best] - correct[alone]
        error = np.std(gains, ddof=1) / np.sqrt(len(folds)) if len(folds) > 1 else 0.0
        return settings[best] if gains.mean() > error else settings[alone]

    # ---- prediction: the fitted classifier's -------------------------------------------------
    def predict(self, X):
        check_is_fitted(self)
        return self.estimator_.predict(X)

    def predict_proba(self, X):
        check_is_fitted(self)
        return self.estimator_.predict_proba(X)

    def predict_log_proba(self, X):
        check_is_fitted(self)
        return self.estimator_.predict_log_proba(X)


def _em(
    base,
    X_labelled,
    y_labelled,
    X_unlabelled,
    w_labelled,
    w_unlabelled,
    classes,
    lam,
    max_iter,
    tol,
):
    """(fitted model, convergence measure per iteration) of EM with weight ``lam``: the
    log-likelihood of the data (classifiers), or the mean change of the unlabelled rows'
    label probabilities (binary relevance, whose labels are separate problems)."""
    multi_label = np.ndim(y_labelled) == 2
    if multi_label:
        known = base.batch_statistics(X_labelled, y_labelled, w_labelled)
        install = lambda stats: clone(base).from_statistics(stats)  # noqa: E731
    else:
        known = base.batch_statistics(
            X_labelled, y_labelled, classes=classes, sample_weight=w_labelled
        )
        install = lambda stats: clone(base).from_statistics(stats, classes=classes)  # noqa: E731
    model = install(known)
    if lam == 0 or X_unlabelled.shape[0] == 0:
        return model, []
    iterate = _em_labels if multi_label else _em_classes
    args = (X_labelled, y_labelled, X_unlabelled, w_labelled, lam * w_unlabelled, classes)
    return iterate(model, install, known, *args, max_iter=max_iter, tol=tol)


def _em_classes(model, install, known, X_l, y_l, X_u, w_l, w_u, classes, *, max_iter, tol):
    """EM iterations of a classifier until the log-likelihood settles. The unlabelled rows
    are scored once per iteration: their joint log-probabilities give the E-step's class
    probabilities and the marginal of the log-likelihood."""
    joint, history = model.predict_joint_log_proba(X_u), []
    for _ in range(int(max_iter)):
        proba = np.exp(log_normalise(joint))  # E-step: the model's predict_proba
        soft = model.soft_statistics(X_u, proba, classes=classes, sample_weight=w_u)
        model = install(known.copy().merge(soft))
        joint = model.predict_joint_log_proba(X_u)
        labelled = model.predict_joint_log_proba(X_l)
        column = np.searchsorted(model.classes_, y_l)
        history.append(
            float(w_l @ labelled[np.arange(len(column)), column])
            + float(w_u @ np.logaddexp.reduce(joint, axis=1))
        )
        if len(history) > 1 and abs(history[-1] - history[-2]) <= tol * abs(history[-2]):
            break
    return model, history


def _em_labels(model, install, known, X_l, y_l, X_u, w_l, w_u, classes, *, max_iter, tol):
    """EM iterations of binary relevance until the unlabelled rows' label probabilities
    change by at most ``tol`` on average."""
    history, proba = [], None
    for _ in range(int(max_iter)):
        before, proba = proba, np.asarray(model.predict_proba(X_u))  # E-step
        if before is not None:
            history.append(float(np.abs(proba - before).mean()))
            if history[-1] <= tol:
                break
        soft = model.soft_statistics(X_u, proba, sample_weight=w_u)
        model = install(known.copy().merge(soft))
    return model, history


def _is_label_matrix(y):
    """Whether ``y`` is a 2-D label matrix (several columns), not one class per row."""
    if hasattr(y, "tocsr"):
        return True
    shape = np.asarray(y).shape
    return len(shape) == 2 and shape[1] > 1


def _label_rows(base, y):
    """(dense 0/1 label matrix with -1 rows, mask of the labelled rows) for a multi-label
    ``y``: a row of -1 is unlabelled; unknown cells within a row are not supported."""
    if not getattr(type(base), "_chooses_per_label", False):
        raise TypeError(
            "a label matrix y needs binary relevance (its labels are separate problems, each "
            f"learnt by EM): estimator=BinaryRelevance(...); got {base!r}"
        )
    Y = np.asarray(y.toarray() if hasattr(y, "tocsr") else y)
    unlabelled = np.all(Y == UNLABELLED, axis=1)
    known = Y[~unlabelled]
    if known.size and not np.isin(known, (0, 1)).all():
        raise ValueError(
            "a label matrix y holds 0 and 1, and rows of -1 for unlabelled rows; unknown "
            "cells within a labelled row are not supported"
        )
    return Y, ~unlabelled


def _settled(base, X, Y, weight):
    """``base`` with the settings its defaults choose on the labelled rows given
    explicitly, so that every M-step makes the same model of new statistics."""
    from .multilabel._resolution import with_chosen_settings

    return with_chosen_settings(base, clone(base).fit(X, Y, sample_weight=weight))
