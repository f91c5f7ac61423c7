"""TunedThresholdsCV: a multi-label model's decision rule chosen on out-of-fold scores.

The 0.5 rule is rarely the best cut of a Naive Bayes model's log-odds (they grow with the
number of features, and rare labels are over-predicted). :class:`TunedThresholdsCV` scores
every row out of fold, fits each rule of :mod:`mlnb.decision_rules` to those scores, keeps
the rule that scores best (``scoring``), and refits the model on all rows.

For the additive estimators (the statistics protocol: BinaryRelevance, ClassifierChain,
IMLNB, NaiBX) the out-of-fold scores come from fold subtraction: the statistics of every
fold are computed once and each fold's model is *total minus fold* (no refit per fold).
Other estimators are refitted per fold.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from scipy.special import logit
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.metrics import f1_score, jaccard_score, precision_score, recall_score
from sklearn.model_selection import KFold, check_cv
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._state import Registered
from .decision_rules import RULES, Threshold, make_rule
from .multilabel._base import LOG_ODDS_BOUND as _SATURATED
from .multilabel._labels import check_label_matrix

__all__ = ["TunedThresholdsCV", "label_scores"]

_AVERAGES = ("micro", "macro", "samples", "weighted")
_SCORES = {
    **{f"f1_{a}": partial(f1_score, average=a, zero_division=0) for a in _AVERAGES},
    **{f"jaccard_{a}": partial(jaccard_score, average=a, zero_division=0) for a in _AVERAGES},
    **{f"precision_{a}": partial(precision_score, average=a, zero_division=0) for a in _AVERAGES},
    **{f"recall_{a}": partial(recall_score, average=a, zero_division=0) for a in _AVERAGES},
    "accuracy": lambda Y, P: float(np.mean(np.all(np.asarray(Y) == P, axis=1))),
}


def label_scores(model, X):
    """Monotone, finite label scores of a fitted multi-label model, (n_samples, n_labels).

    ``decision_function`` if the model has one (mlnb's give log-odds), else
    ``predict_log_odds``, else the log-odds of ``predict_proba`` (probabilities of exactly 0
    or 1 at -745 / +745, beyond any log-odds of a double).
    """
    for method in ("decision_function", "predict_log_odds"):
        if callable(getattr(model, method, None)):
            scores = np.asarray(getattr(model, method)(X), dtype=np.float64)
            return np.clip(scores, -_SATURATED, _SATURATED)
    proba = model.predict_proba(X)
    if isinstance(proba, list):  # one (n x 2) array per label (scikit-learn's multi-output)
        proba = np.column_stack([np.asarray(p)[:, -1] for p in proba])
    proba = np.asarray(proba.toarray() if hasattr(proba, "toarray") else proba, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.clip(logit(proba), -_SATURATED, _SATURATED)


def _scorer(scoring):
    if callable(scoring):
        return scoring
    if scoring in _SCORES:
        return _SCORES[scoring]
    raise ValueError(
        f"scoring must be a callable (Y_true, Y_pred) -> float or one of {sorted(_SCORES)}; "
        f"got {scoring!r}"
    )


def _additive(estimator):
    return (
        callable(getattr(estimator, "batch_statistics", None))
        and callable(getattr(estimator, "from_statistics", None))
        and getattr(estimator, "base_estimator", None) is None
    )


class TunedThresholdsCV(Registered, MetaEstimatorMixin, BaseEstimator):
    """A multi-label estimator with its decision rule chosen by cross-validation.

    Parameters
    ----------
    estimator : multi-label estimator
        Any of mlnb's (or any with ``fit`` and ``decision_function``, ``predict_log_odds``
        or ``predict_proba``).
    strategy : "auto", a rule name or a rule object, default="auto"
        A rule of :data:`mlnb.decision_rules.RULES` (``"threshold"``, ``"pcut"``,
        ``"pcutl"``, ``"rcut"``, ``"mcut"``, ``"scut"``) or ``"auto"``: the one of them
        that scores best out of fold.
    scoring : str or callable, default="f1_micro"
        ``"f1_micro"``, ``"f1_macro"``, ``"f1_samples"``, ``"jaccard_samples"``, ...,
        ``"accuracy"`` (subset accuracy), or ``scoring(Y_true, Y_pred) -> float``
        (greater is better).
    cv : int or cross-validation generator, default=5
        Folds of the rows (an int: shuffled KFold with ``random_state``).
    random_state : int or None, default=0
        The shuffling of the folds.

    Attributes
    ----------
    estimator_ : the estimator fitted on all rows
    rule_ : the fitted decision rule
    best_strategy_ : str
        Name of the chosen rule (its class name for a rule object).
    cv_results_ : dict
        ``strategy`` (names) and ``score`` (out-of-fold score of each rule).
    oof_scores_ : ndarray of shape (n_samples, n_labels) or None
        The out-of-fold label scores the rules were fitted to (None for a given threshold,
        which needs none; its ``cv_results_`` score is then NaN).

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import BinaryRelevance, TunedThresholdsCV
    >>> rng = np.random.default_rng(0)
    >>> Y = (rng.random((200, 5)) < 0.2).astype(int)
    >>> X = rng.poisson(1.0 + 3 * Y @ rng.random((5, 30)))
    >>> model = TunedThresholdsCV(BinaryRelevance(events="multinomial")).fit(X, Y)
    >>> model.best_strategy_ in model.cv_results_["strategy"]
    True
    """

    def __init__(self, estimator, *, strategy="auto", scoring="f1_micro", cv=5, random_state=0):
        self.estimator = estimator
        self.strategy = strategy
        self.scoring = scoring
        self.cv = cv
        self.random_state = random_state

    def _candidates(self):
        if isinstance(self.strategy, str) and self.strategy == "auto":
            return {name: rule() for name, rule in RULES.items()}
        rule = make_rule(self.strategy)
        name = self.strategy if isinstance(self.strategy, str) else type(rule).__name__
        return {name: rule}

    def _folds(self, n_samples):
        if isinstance(self.cv, int):
            if self.cv < 2:
                raise ValueError(f"cv must be at least 2 folds; got {self.cv}")
            cv = KFold(self.cv, shuffle=True, random_state=self.random_state)
        else:
            cv = check_cv(self.cv)
        return [test for _, test in cv.split(np.zeros((n_samples, 1)))]

    def out_of_fold_scores(self, X, Y):
        """Label scores of every row from a model that did not see it, (n x L).

        Fold subtraction for additive estimators (one statistics pass), refits otherwise.
        """
        Y = check_label_matrix(Y, sparse=True)
        n_samples = Y.shape[0]
        folds = self._folds(n_samples)
        covered = np.zeros(n_samples, dtype=int)
        for test in folds:
            covered[test] += 1
        if not np.all(covered == 1):
            raise ValueError("the folds' test parts must partition the rows")
        X = X.tocsr() if hasattr(X, "tocsr") else np.asarray(X)
        scores = np.empty(Y.shape)
        template = clone(self.estimator)
        if _additive(template):
            parts = [template.batch_statistics(X[test], Y[test]) for test in folds]
            total = parts[0].copy(deep=False)
            for part in parts[1:]:
                total = total.merge(part)
            for test, part in zip(folds, parts, strict=True):
                model = clone(self.estimator).from_statistics(
                    total.copy(deep=False).subtract(part), n_features=X.shape[1]
                )
                scores[test] = label_scores(model, X[test])
            return scores
        for test in folds:
            train = np.setdiff1d(np.arange(n_samples), test)
            model = clone(self.estimator).fit(X[train], Y[train].toarray())
            scores[test] = label_scores(model, X[test])
        return scores

    def fit(self, X, y):
        """Choose the rule on out-of-fold scores, then fit the estimator on all rows."""
        score = _scorer(self.scoring)
        Y = check_label_matrix(y, sparse=True)
        truth = Y.toarray()
        candidates = self._candidates()
        fixed = len(candidates) == 1 and all(
            isinstance(rule, Threshold) and rule.threshold is not None
            for rule in candidates.values()
        )
        # a given threshold learns nothing: no out-of-fold scores (NaN in the results)
        oof = np.zeros(truth.shape) if fixed else self.out_of_fold_scores(X, Y)
        names, results, rules = [], [], {}
        for name, rule in candidates.items():
            rule = clone(rule).fit(oof, truth)
            names.append(name)
            results.append(np.nan if fixed else float(score(truth, rule.predict(oof))))
            rules[name] = rule
        best = names[0] if fixed else names[int(np.argmax(results))]
        self.cv_results_ = {"strategy": names, "score": np.array(results)}
        self.best_strategy_ = best
        self.rule_ = rules[best]
        self.oof_scores_ = None if fixed else oof
        self.estimator_ = clone(self.estimator).fit(X, truth)
        self.n_features_in_ = getattr(self.estimator_, "n_features_in_", None)
        return self

    def decision_function(self, X):
        """The fitted estimator's label scores (see :func:`label_scores`)."""
        check_is_fitted(self, "rule_")
        return label_scores(self.estimator_, X)

    def predict(self, X):
        """0/1 label sets: the chosen rule on the label scores."""
        return self.rule_.predict(self.decision_function(X))

    @available_if(lambda self: hasattr(self.estimator, "predict_proba"))
    def predict_proba(self, X):
        """The fitted estimator's probabilities (the rule does not change them)."""
        check_is_fitted(self, "rule_")
        return self.estimator_.predict_proba(X)
