"""An event model and a metric defined here, outside mlnb, work end to end.

What a user adds through the public protocols alone (an ``EventModel`` subclass and
``mlnb.metrics.register_metric``) must serve fitting, tuning on the fold-subtraction engine
(the metric as the tuner's criterion, the event model in its grid), evaluation without the
command line, and model files.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

import mlnb.metrics as metrics
from mlnb import BinaryRelevance, ClassifierChain, MultinomialNB
from mlnb.base import FoldStatistics
from mlnb.evaluation import cross_validate
from mlnb.events import EventModel, Multinomial, Parameters
from mlnb.io import load, save
from mlnb.selection import FoldSubtractionSearchCV, TunedThresholdsCV


@dataclass
class GeometricParameters(Parameters):
    """log p and log (1 - p) of every group and feature."""

    log_p: np.ndarray
    log_q: np.ndarray

    per_feature = ("log_p", "log_q")


class Geometric(EventModel):
    """``x_v ~ Geometric(p_cv)`` on counts (failures before a success), ``p`` the Beta(a, b)
    posterior mean: ``(n_c + a) / (n_c + sum_c x_v + a + b)``."""

    def __init__(self, a=1.0, b=1.0):
        self.a = a
        self.b = b

    def estimate(self, stats):
        n = stats.count[:, None]
        p = (n + self.a) / (n + stats.sums + self.a + self.b)
        return GeometricParameters(np.log(p), np.log1p(-p))

    def score(self, params, X):
        return params.log_p.sum(axis=1)[None, :] + np.asarray(X @ params.log_q.T)


def count_error(Y_true, Y_pred):
    """Mean absolute difference between the true and the predicted label counts."""
    Y_true = Y_true.toarray() if sp.issparse(Y_true) else np.asarray(Y_true)
    Y_pred = Y_pred.toarray() if sp.issparse(Y_pred) else np.asarray(Y_pred)
    return float(np.mean(np.abs(Y_true.sum(axis=1) - Y_pred.sum(axis=1))))


@pytest.fixture
def registered():
    metrics.register_metric("count_error", count_error, greater_is_better=False, task="multilabel")
    yield "count_error"
    metrics.METRICS.pop("count_error")


def counts(seed=0, n=120):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 4)) < 0.3).astype(int)
    Y[:4] = np.eye(4, dtype=int)
    X = rng.poisson(0.5 + 3.0 * Y @ rng.random((4, 10)))
    return X, Y


def test_the_user_event_model_gives_the_hand_computed_log_odds():
    X, Y = counts()
    model = BinaryRelevance(events=Geometric(a=2.0, b=3.0)).fit(X, Y)
    positive = Y[:, 1] == 1

    def log_p(rows):
        n = rows.sum()
        p = (n + 2.0) / (n + X[rows].sum(axis=0) + 5.0)
        return np.log(p).sum() + X[:5] @ np.log1p(-p)

    prior = np.log(positive.mean() / (1 - positive.mean()))
    expected = log_p(positive) - log_p(~positive) + prior
    np.testing.assert_allclose(model.decision_function(X[:5])[:, 1], expected, rtol=1e-10)


def test_fold_models_of_the_user_event_model_equal_refits():
    X, Y = counts(1)
    folds = [np.arange(k, len(X), 3) for k in range(3)]
    chain = ClassifierChain(events=Geometric(), rule="predict")  # chooses nothing
    engine = FoldStatistics(chain, X, Y, folds)
    for test, model in zip(folds, engine.models(), strict=True):
        train = np.setdiff1d(np.arange(len(X)), test)
        refit = clone(chain).fit(X[train], Y[train])
        np.testing.assert_allclose(
            model.decision_function(X[test]), refit.decision_function(X[test]), rtol=1e-9
        )


def _oof_predictions(tuned, Y):
    """The chosen rule cross-fitted to the tuner's out-of-fold scores (what its score
    measured: each fold decided by the rule fitted to the other folds' scores)."""
    from mlnb.decision_rules import SortedScores
    from mlnb.multilabel import cross_fitted, finite_scores

    if tuned.rule_ is None:
        pytest.skip("the estimator's own predict was kept: no rule to replay")
    name, scores = tuned.best_strategy_, SortedScores(finite_scores(tuned.oof_scores_), Y)
    return cross_fitted({name: clone(tuned.rule_)}, scores, tuned._folds(len(Y)))[name]


def test_tuning_with_the_user_metric_and_event_model_then_a_model_file(registered, tmp_path):
    X, Y = counts(2)
    grid = {"events": [Geometric(a=1.0), Geometric(a=10.0), Multinomial()]}
    tuned = TunedThresholdsCV(BinaryRelevance(), scoring=registered, param_grid=grid, cv=3)
    tuned.fit(X, Y)
    # the registered loss was the criterion: every candidate scores its negative
    results = tuned.cv_results_
    for params, strategy, value in zip(
        results["params"], results["strategy"], results["score"], strict=True
    ):
        assert value <= 0, (params, strategy)
    rows = list(zip(results["params"], results["strategy"], strict=True))
    chosen = rows.index((tuned.best_params_, tuned.best_strategy_))
    expected = -count_error(Y, _oof_predictions(tuned, Y))
    assert results["score"][chosen] == pytest.approx(expected)
    assert any(isinstance(p.get("events"), Geometric) for p in tuned.cv_results_["params"])
    predicted = tuned.predict(X)
    path = tmp_path / "tuned.mlnb"
    save(tuned, path)
    again = load(path)
    np.testing.assert_array_equal(again.predict(X), predicted)
    np.testing.assert_array_equal(again.decision_function(X), tuned.decision_function(X))


def test_evaluation_without_the_command_line_reports_the_user_metric(registered):
    X, Y = counts(3)
    result = cross_validate(
        BinaryRelevance(events=Geometric()),
        X,
        Y,
        cv=3,
        metrics=[registered, "hamming"],
        random_state=0,
    )
    by_hand = []
    for train, test in zip(result.train_indices, result.test_indices, strict=True):
        model = BinaryRelevance(events=Geometric()).fit(X[train], Y[train])
        by_hand.append(count_error(Y[test], model.predict(X[test])))
    assert result.scores[registered].shape == (3,)
    np.testing.assert_allclose(result.scores[registered], by_hand)


def test_single_label_search_on_the_user_event_model():
    X, Y = counts(4)
    y = Y.argmax(axis=1)

    class GeometricNB(MultinomialNB):
        def event_model(self, X=None):
            return Geometric(a=self.alpha, b=1.0)

    search = FoldSubtractionSearchCV(GeometricNB(), {"alpha": [0.5, 1.0, 4.0]}, cv=3).fit(X, y)
    assert search.best_params_["alpha"] in (0.5, 1.0, 4.0)
    assert search.best_estimator_.predict(X).shape == (len(X),)
