"""TunedThresholdsCV: a multi-label model's decision rule chosen on out-of-fold scores.

The 0.5 rule is rarely the best cut of a Naive Bayes model's log-odds (they grow with the
number of features, and rare labels are over-predicted). :class:`TunedThresholdsCV` scores
every row out of fold, fits each rule of :mod:`mlnb.decision_rules` to those scores, keeps
the rule that scores best (``scoring``) if it beats the model's own ``predict`` by more than
one standard error over the folds, and refits the model on all rows. A rule is judged
cross-fitted, as the estimators' defaults judge it: each fold's rows decided by the rule
fitted to the other folds' out-of-fold scores (a cut per label judged on the scores it was
fitted to looks better than it is).

For the additive estimators (the statistics protocol: BinaryRelevance, ClassifierChain,
IMLNB, NaiBX) the out-of-fold scores come from fold subtraction: the statistics of every
fold are computed once and each fold's model is *total minus fold* (no refit per fold).
Other estimators are refitted per fold.

With ``param_grid`` the estimator's parameters (its event model and smoothing, say) are
chosen together with the rule: every grid value gets its out-of-fold scores (grid values
whose statistics agree, such as smoothings of one event model, share one statistics pass)
and the best (value, rule) pair wins. ``param_grid="auto"`` searches the event models and
smoothings that suit the data (:func:`~mlnb.selection.event_grid`): "choose everything" in
one line.
"""

from __future__ import annotations

from typing import ClassVar, NamedTuple

import numpy as np
from scipy.special import logit
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.model_selection import KFold, ParameterGrid, check_cv
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._registered import Registered
from ..base import LOG_ODDS_BOUND as _SATURATED
from ..base.additive import FoldStatistics, check_partition, is_additive
from ..base.validation import Integers, check_label_matrix
from ..decision_rules import RULES, SortedScores, Threshold, fit_rules, make_rule
from ..labels import label_matrix
from ..metrics import set_scorer
from ..multilabel import cross_fitted, finite_scores, is_tuned, wins_by_one_standard_error
from .grids import auto_stages

__all__ = ["OWN_RULE", "TunedThresholdsCV", "label_scores", "scoring_function"]

#: ``best_strategy_`` when ``strategy="auto"`` keeps the estimator's own ``predict``.
OWN_RULE = "predict"


class _OutOfFold(NamedTuple):
    """One grid value's out-of-fold results: scores (n x L), the total statistics (None
    when refitted per fold) and the fold models' own predictions (None unless asked)."""

    scores: np.ndarray | None
    total: object
    predictions: np.ndarray | None


def label_scores(model, X):
    """Monotone, finite label scores of a fitted multi-label model, (n_samples, n_labels).

    ``decision_function`` if the model has one (mlnb's give log-odds), else
    ``predict_log_odds``: finite scores as they are, +-inf (a constant label) bounded
    beyond them (:func:`mlnb.multilabel.finite_scores`), so that scores tie only where the
    model ties them. Else the log-odds of ``predict_proba`` (probabilities of exactly 0 or 1
    at -745 / +745, beyond any log-odds of a double).
    """
    for method in ("decision_function", "predict_log_odds"):
        if callable(getattr(model, method, None)):
            return finite_scores(getattr(model, method)(X))
    proba = model.predict_proba(X)
    if isinstance(proba, list):  # one (n x 2) array per label (scikit-learn's multi-output)
        proba = np.column_stack([np.asarray(p)[:, -1] for p in proba])
    proba = np.asarray(proba.toarray() if hasattr(proba, "toarray") else proba, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.clip(logit(proba), -_SATURATED, _SATURATED)


def scoring_function(scoring):
    """``scoring(Y_true, Y_pred) -> float`` (greater is better) for a name of
    :class:`TunedThresholdsCV`'s ``scoring`` (e.g. ``"f1_micro"``, or any multi-label
    criterion of :data:`mlnb.metrics.METRICS`), or the callable given: see
    :func:`mlnb.metrics.set_scorer`, the one registry of criteria."""
    return set_scorer(scoring)


def _n_columns(X):
    return X.shape[1] if hasattr(X, "shape") else np.asarray(X).shape[1]


class TunedThresholdsCV(Registered, MetaEstimatorMixin, BaseEstimator):
    """A multi-label estimator with its decision rule chosen by cross-validation.

    Parameters
    ----------
    estimator : multi-label estimator
        Any of mlnb's (or any with ``fit`` and ``decision_function``, ``predict_log_odds``
        or ``predict_proba``).
    strategy : "auto", a rule name or a rule object, default="auto"
        A rule of :data:`mlnb.decision_rules.RULES` (``"threshold"``, ``"pcut"``,
        ``"pcutl"``, ``"rcut"``, ``"mcut"``, ``"scut"``, ``"cardinality"``) or
        ``"auto"``: the one of them that scores best out of fold, unless it beats the
        estimator's own ``predict`` by less than one standard error over the folds (then
        that is kept, ``best_strategy_ == "predict"``).
    scoring : str or callable, default="f1_micro"
        ``"f1_micro"``, ``"f1_macro"``, ``"f1_samples"``, ``"jaccard_samples"``, ...,
        ``"accuracy"`` (subset accuracy), or ``scoring(Y_true, Y_pred) -> float``
        (greater is better).
    cv : int or cross-validation generator, default=5
        Folds of the rows (an int: shuffled KFold with ``random_state``).
    random_state : int or None, default=0
        The shuffling of the folds.
    param_grid : dict, list of dicts, "auto" or None, default=None
        Values of the estimator's parameters to choose among, with the rule (as
        ``GridSearchCV``'s); "auto": the event models of
        :func:`~mlnb.selection.event_grid`, then, for chains (chosen with their label terms
        nearly silenced, :data:`~mlnb.selection.WEAK_LABELS`), the label smoothings of
        :data:`~mlnb.selection.LABEL_GRID` with the best event model.

    Attributes
    ----------
    estimator_ : the estimator fitted on all rows
    rule_ : the fitted decision rule, or None
        None when the estimator's own ``predict`` was kept.
    best_strategy_ : str
        Name of the chosen rule (its class name for a rule object; ``"predict"``: the
        estimator's own).
    cv_results_ : dict
        ``params``, ``strategy`` and ``score``: the out-of-fold score of every (grid value,
        rule) pair, and (``strategy="auto"``) of the estimator's own ``predict``, last.
    best_params_ : dict
        The chosen grid value ({} without a grid).
    oof_scores_ : ndarray of shape (n_samples, n_labels) or None
        The out-of-fold label scores the rules were fitted to (None for a given threshold,
        which needs none; its ``cv_results_`` score is then NaN).
    label_names_ : ndarray of shape (n_labels,)
        The labels in column order: the tags of label lists, a DataFrame's columns, else
        0 .. L-1 (``mlnb.labels.to_label_lists`` turns predictions into them).

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

    _former_names = ("mlnb.thresholds.TunedThresholdsCV",)  # model files before 0.2

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [HasMethods(["fit"])],
        "strategy": [StrOptions({"auto", *RULES}), HasMethods(["fit", "predict"])],
        "scoring": [str, callable],
        "cv": [Integers(2, None, closed="left"), "cv_object"],
        "random_state": ["random_state"],
        "param_grid": [dict, list, StrOptions({"auto"}), None],
    }

    @classmethod
    def _unit_test_params(cls):
        """Keyword arguments of the instances the shared tests check (:mod:`mlnb.estimators`).

        Returns
        -------
        list of dict
            One dict per instance: around a default binary relevance.
        """
        from ..multilabel import BinaryRelevance

        return [{"estimator": BinaryRelevance()}]

    def __init__(
        self,
        estimator,
        *,
        strategy="auto",
        scoring="f1_micro",
        cv=5,
        random_state=0,
        param_grid=None,
    ):
        self.estimator = estimator
        self.strategy = strategy
        self.scoring = scoring
        self.cv = cv
        self.random_state = random_state
        self.param_grid = param_grid

    def _stages(self, X):
        """The grids searched one after the other, each around the best value so far:
        the given grid, or for "auto" those of :func:`~mlnb.selection.grids.auto_stages`."""
        if self.param_grid is None:
            if self._tunes_events():
                return auto_stages(self.estimator, X)  # the event models the estimator tries
            return [[{}]]
        if isinstance(self.param_grid, str):
            if self.param_grid != "auto":
                raise ValueError(
                    f'param_grid must be a grid, "auto" or None; got {self.param_grid!r}'
                )
            return auto_stages(self.estimator, X)
        return [list(ParameterGrid(self.param_grid))]

    def _candidates(self):
        if self._auto():
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

    def out_of_fold_scores(self, X, Y, params=None):
        """Label scores of every row from a model that did not see it, (n x L).

        ``params``: parameters of the estimator to score with (default: as given; at
        ``events="tuned"``, the plainest event model it tries). Fold subtraction for
        additive estimators (one statistics pass), refits otherwise.
        """
        Y = check_label_matrix(Y, sparse=True)
        folds = self._folds(Y.shape[0])
        if params is None and self._tunes_events():
            params = self._stages(X)[0][0]
        return next(self._grid_scores(X, Y, folds, [params or {}])).scores

    def _grid_scores(self, X, Y, folds, grid, shared=None, *, predict=False):
        """Out-of-fold results of every grid value in turn (:class:`_OutOfFold`): the
        scores, the total statistics (None for estimators that are refitted) and, with
        ``predict``, the fold models' own predictions. Values with equal statistics share
        one pass (kept in ``shared`` across calls). A generator: one value's scores are
        held at a time."""
        n_samples = Y.shape[0]
        X = X.tocsr() if hasattr(X, "tocsr") else np.asarray(X)
        shared = {} if shared is None else shared
        for params in grid:
            template = clone(self.estimator)
            if params:
                template.set_params(**params)
            scores = np.empty(Y.shape)
            predicted = np.empty(Y.shape, dtype=np.int8) if predict else None
            total = None
            if is_additive(template):
                key = repr(template.statistics_key())
                if key not in shared:  # the statistics of every fold, and their total
                    shared[key] = FoldStatistics(template, X, Y, folds)
                engine = shared[key]
                total = engine.total
                models = engine.models(template)
            else:
                check_partition(folds, n_samples)
                models = (
                    clone(template).fit(X[train], Y[train].toarray())
                    for train in (np.setdiff1d(np.arange(n_samples), test) for test in folds)
                )
            for test, model in zip(folds, models, strict=True):
                scores[test] = label_scores(model, X[test])
                if predict:
                    predicted[test] = np.asarray(model.predict(X[test]))
            yield _OutOfFold(scores, total, predicted)

    def fit(self, X, y):
        """Choose the rule (and grid value) on out-of-fold scores, then fit the estimator
        on all rows (from the total statistics: no further pass, for additive ones).

        With ``strategy="auto"`` the estimator's own ``predict`` (its default rule) is a
        candidate too, and the best rule replaces it only if it scores better by more
        than one standard error of their difference over the folds (the one-standard-error
        rule of Breiman et al. 1984): a rule that is only as good out of fold is not
        trusted to do better on new rows.
        """
        self._validate_params()
        score = scoring_function(self.scoring)
        y, self.label_names_ = label_matrix(y)  # tag lists and DataFrames too (mlnb.labels)
        Y = check_label_matrix(y, sparse=True)
        truth = Y.toarray()
        candidates = self._candidates()
        stages = self._stages(X)
        fixed = (
            len(stages) == 1
            and len(stages[0]) == 1
            and len(candidates) == 1
            and all(
                isinstance(rule, Threshold) and rule.threshold is not None
                for rule in candidates.values()
            )
        )
        folds = None if fixed else self._folds(Y.shape[0])
        own = self._auto() and callable(getattr(self.estimator, "predict", None))
        rows, best, shared, baseline = {"params": [], "strategy": [], "score": []}, None, {}, None
        given = {}  # the parameters of the estimator's own predict (the baseline)
        for stage in stages:
            grid = [{**(best[1] if best else {}), **params} for params in stage]
            # a given threshold learns nothing: no out-of-fold scores (NaN in the results)
            scored = (
                [_OutOfFold(None, None, None)]
                if fixed
                else self._grid_scores(X, Y, folds, grid, shared, predict=own and grid == [{}])
            )
            for params, result in zip(grid, scored, strict=True):
                if result.predictions is not None:
                    baseline = result
                if not fixed:  # fitted to every row's scores, judged cross-fitted
                    sorted_scores = SortedScores(finite_scores(result.scores), truth)
                    fitted = fit_rules(candidates, sorted_scores)
                    tried = cross_fitted(candidates, sorted_scores, folds)
                for name, rule in candidates.items():
                    if fixed:
                        rule, predicted = clone(rule).fit(np.zeros(truth.shape), truth), None
                    else:
                        rule, predicted = fitted[name], tried[name]
                    value = np.nan if fixed else float(score(truth, predicted))
                    rows["params"].append(params)
                    rows["strategy"].append(name)
                    rows["score"].append(value)
                    if best is None or value > best[0]:
                        best = (value, params, name, rule, result, predicted)
        if own:
            if baseline is None:  # the estimator as given was not in the grid
                # (at events="tuned": the plainest event model it would try)
                given = stages[0][0] if self._tunes_events() else {}
                baseline = next(self._grid_scores(X, Y, folds, [given], shared, predict=True))
            rows["params"].append(given)
            rows["strategy"].append(OWN_RULE)
            rows["score"].append(float(score(truth, baseline.predictions)))
            if not wins_by_one_standard_error(score, truth, best[5], baseline.predictions, folds):
                best = (rows["score"][-1], given, OWN_RULE, None, baseline, None)
        _, params, name, rule, result, _ = best
        self.cv_results_ = {**rows, "score": np.array(rows["score"])}
        self.best_params_ = params
        self.best_strategy_ = name
        self.rule_ = rule
        self.oof_scores_ = result.scores
        estimator = clone(self.estimator)
        if params:
            estimator.set_params(**params)
        if result.total is not None:
            self.estimator_ = estimator.from_statistics(result.total, n_features=_n_columns(X))
        else:
            self.estimator_ = estimator.fit(X, truth)
        self.n_features_in_ = getattr(self.estimator_, "n_features_in_", None)
        return self

    def _tunes_events(self):
        return is_tuned(getattr(self.estimator, "events", None)) and is_additive(self.estimator)

    def _auto(self):
        return isinstance(self.strategy, str) and self.strategy == "auto"

    def decision_function(self, X):
        """The fitted estimator's label scores (see :func:`label_scores`)."""
        check_is_fitted(self, "estimator_")
        return label_scores(self.estimator_, X)

    def predict(self, X):
        """0/1 label sets: the chosen rule on the label scores (or the estimator's own
        ``predict``, if that was chosen)."""
        check_is_fitted(self, "estimator_")
        if self.rule_ is None:
            return np.asarray(self.estimator_.predict(X))
        return self.rule_.predict(self.decision_function(X))

    @available_if(lambda self: hasattr(self.estimator, "predict_proba"))
    def predict_proba(self, X):
        """The fitted estimator's probabilities (the rule does not change them)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict_proba(X)
