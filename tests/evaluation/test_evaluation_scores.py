"""cross_validate with ranking metrics of label scores, and the degenerate-prediction warning."""

import time
import warnings

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.multiclass import OneVsRestClassifier
from sklearn.multioutput import MultiOutputClassifier
from sklearn.naive_bayes import GaussianNB

from mlnb import BinaryRelevance, TunedThresholdsCV
from mlnb import metrics as M
from mlnb.evaluation import DegeneratePredictionWarning, cross_validate
from mlnb.selection import label_scores


@pytest.fixture(scope="module")
def data(multilabel):
    return multilabel


@pytest.fixture(scope="module")
def sparse_labels():
    """Rare labels (about 0.6 of 10 per row) and counts that tell them apart."""
    rng = np.random.default_rng(0)
    Y = (rng.random((120, 10)) < 0.06).astype(int)
    Y[np.arange(120), rng.integers(0, 10, 120) * (Y.sum(axis=1) == 0)] = 1  # none empty
    X = rng.poisson(1.0 + 4 * Y @ rng.random((10, 15)))
    return X, Y


def degenerate(record):
    return [w for w in record if issubclass(w.category, DegeneratePredictionWarning)]


def test_ranking_set_scores_label_scores_and_probabilities(data):
    X, Y = data
    estimator = BinaryRelevance(events="gaussian")
    result = cross_validate(estimator, X, Y, cv=3, metrics="ranking", random_state=0)
    assert list(result.scores) == list(M.METRIC_SETS["ranking"])
    for i in range(3):
        train, test = result.train_indices[i], result.test_indices[i]
        model = clone(estimator).fit(X[train], Y[train])
        scores = label_scores(model, X[test])
        for name in ("coverage_error", "label_ranking_loss", "one_error", "micro_roc_auc"):
            expected = M.METRICS[name](Y[test], scores)
            assert result.scores[name][i] == pytest.approx(expected), name
        expected = M.log_loss(Y[test], model.predict_proba(X[test]))
        assert result.scores["log_loss"][i] == pytest.approx(expected)
    table = result.to_table()
    assert "| label_ranking_loss" in table and "| log_loss" in table


def test_prediction_and_ranking_metrics_mixed_in_order(data):
    X, Y = data
    estimator = OneVsRestClassifier(GaussianNB())  # scores from predict_proba only
    names = ["micro_f1", "label_ranking_loss", "hamming", "log_loss"]
    result = cross_validate(estimator, X, sp.csr_matrix(Y), cv=3, metrics=names, random_state=1)
    assert list(result.scores) == names
    train, test = result.train_indices[0], result.test_indices[0]
    model = clone(estimator).fit(X[train], Y[train])
    predicted, proba = model.predict(X[test]), model.predict_proba(X[test])
    assert result.scores["micro_f1"][0] == pytest.approx(
        M.f1_score(Y[test], predicted, average="micro")
    )
    assert result.scores["hamming"][0] == pytest.approx(M.hamming_loss(Y[test], predicted))
    assert result.scores["label_ranking_loss"][0] == pytest.approx(
        M.label_ranking_loss(Y[test], proba)
    )
    assert result.metrics["label_ranking_loss"].task == "multilabel_scores"


class CountingProba(OneVsRestClassifier):
    """Counts the calls of predict_proba (class attribute: survives clone)."""

    calls = 0

    def predict_proba(self, X):
        type(self).calls += 1
        return super().predict_proba(X)


def test_probabilities_are_computed_once_per_fold(data):
    X, Y = data
    CountingProba.calls = 0
    cross_validate(CountingProba(GaussianNB()), X, Y, cv=4, metrics="ranking", random_state=0)
    assert CountingProba.calls == 4


def test_multi_output_probability_lists_are_accepted(data):
    X, Y = data
    estimator = MultiOutputClassifier(GaussianNB())
    result = cross_validate(estimator, X, Y, cv=3, metrics="ranking", random_state=0)
    train, test = result.train_indices[1], result.test_indices[1]
    proba = np.column_stack(
        [p[:, 1] for p in clone(estimator).fit(X[train], Y[train]).predict_proba(X[test])]
    )
    assert result.scores["log_loss"][1] == pytest.approx(M.log_loss(Y[test], proba))
    assert result.scores["macro_roc_auc"][1] == pytest.approx(M.roc_auc(Y[test], proba))


class Constant(BaseEstimator):
    """Predicts the same 0/1 value for every cell; refuses to fit when ``fail``."""

    def __init__(self, value=0, fail=False):
        self.value = value
        self.fail = fail

    def fit(self, X, Y):
        if self.fail:
            raise AssertionError("fitted although the metrics could not be computed")
        self.n_labels_ = np.shape(Y)[1]
        return self

    def predict(self, X):
        return np.full((len(X), self.n_labels_), self.value)


class Decisions(Constant):
    """Random scores from decision_function (optionally slow), no probabilities."""

    def __init__(self, fail=False, delay=0.0):
        super().__init__(0, fail)
        self.delay = delay

    def _scores(self, X):
        return np.random.default_rng(len(X)).normal(size=(len(X), self.n_labels_))

    def predict(self, X):
        return (self._scores(X) > 0.5).astype(int)

    def decision_function(self, X):
        time.sleep(self.delay)
        return self._scores(X)


def test_estimator_without_scores_fails_before_fitting(data):
    X, Y = data
    with pytest.raises(ValueError, match=r"Constant.*decision_function") as error:
        cross_validate(Constant(fail=True), X, Y, cv=3, metrics=["hamming", "one_error"])
    assert "one_error" in str(error.value)
    with pytest.raises(ValueError, match="do not score single_label"):
        cross_validate(GaussianNB(), X, Y[:, 0], cv=3, metrics="ranking")


def test_log_loss_is_skipped_without_probabilities(data):
    X, Y = data
    with pytest.warns(UserWarning, match="log_loss skipped.*Decisions.*predict_proba"):
        result = cross_validate(Decisions(), X, Y, cv=3, metrics="ranking")
    assert "log_loss" not in result.scores and "log_loss" not in result.metrics
    assert "coverage_error" in result.scores
    with pytest.raises(ValueError, match=r"need probabilities.*Decisions"):
        cross_validate(Decisions(fail=True), X, Y, cv=3, metrics="log_loss")


def test_test_time_includes_the_label_scores(data):
    X, Y = data
    estimator = Decisions(delay=0.02)
    plain = cross_validate(estimator, X, Y, cv=2, metrics="hamming", random_state=0)
    ranked = cross_validate(estimator, X, Y, cv=2, metrics="one_error", random_state=0)
    assert np.all(plain.test_time < 0.02) and np.all(ranked.test_time >= 0.02)


@pytest.mark.parametrize(
    ("value", "said"),
    [(0, "no label at all"), (1, "almost every label")],
)
def test_degenerate_predictions_warn_once_per_run(sparse_labels, value, said):
    X, Y = sparse_labels
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        cross_validate(Constant(value), X, Y, cv=5, random_state=0)
    (warning,) = degenerate(record)
    message = str(warning.message)
    assert said in message and "5 of 5 folds" in message and "Constant" in message
    assert "labels per row" in message and "mlnb.TunedThresholdsCV" in message
    if value == 0:
        assert "0.00 of 10 labels per row" in message and "rare labels" in message
    else:
        assert "10.00 of 10 labels per row" in message and "PCut/RCut" in message
    assert warning.filename == __file__  # points at the caller
    with warnings.catch_warnings(record=True) as record:  # parallel folds: still one
        warnings.simplefilter("always")
        with joblib.parallel_config(backend="threading"):
            cross_validate(Constant(value), X, sp.csr_matrix(Y), cv=3, n_jobs=2)
    assert len(degenerate(record)) == 1


def test_no_warning_for_sensible_or_dense_predictions(sparse_labels, data):
    X, Y = sparse_labels
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        cross_validate(BinaryRelevance(events="multinomial"), X, Y, cv=5, random_state=0)
        tuned = TunedThresholdsCV(BinaryRelevance(events="multinomial"), cv=3)
        cross_validate(tuned, X, Y, cv=3, metrics=["micro_f1", "ranking"], random_state=0)
        X, Y = data
        dense = np.ones_like(Y)
        dense[::4, 0] = 0  # density above 0.5: predicting every label is no surprise
        cross_validate(Constant(1), X, dense, cv=3)
        cross_validate(Constant(0), X, np.zeros_like(Y), cv=3)  # nothing to predict
    assert degenerate(record) == []
