"""The fold-subtraction engine (mlnb.base.FoldStatistics) equals refitted folds.

For every additive estimator of the package (:func:`mlnb.estimators.all_estimators` with
``is_additive``, so a new one is tested without an edit here), on dense and sparse rows,
with and without missing entries: each fold's model from total minus fold statistics
predicts as the estimator refitted on the fold's training rows, and the full model as a
fit on all rows.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone

import mlnb
import mlnb.selection
from mlnb.base import FoldStatistics, is_additive
from mlnb.estimators import all_estimators


def _additive_estimators():
    return [
        pytest.param(cls, id=cls.__name__)
        for kind in ("single_label", "multi_label")  # a meta-estimator needs an estimator
        for cls in all_estimators(kind)
        if is_additive(cls())
    ]


ADDITIVE = _additive_estimators()
# Up to rounding: a Gaussian feature constant within a group has a variance at the floor
# (1e-9 of the largest), where subtracting second moments leaves about 1e-7 of relative
# error in scores of order 1e9; everywhere else the agreement is near 1e-12.
RTOL = 1e-5


def test_the_additive_estimators_are_found():
    names = {p.id for p in ADDITIVE}
    assert {"BinaryRelevance", "ClassifierChain", "IMLNB", "NaiBX", "MultinomialNB"} <= names
    assert "EnsembleClassifierChains" not in names  # refitted per fold: not additive


def is_single_label(estimator):
    return not estimator.__sklearn_tags__().target_tags.multi_output


def _scores(model, X):
    if callable(getattr(model, "decision_function", None)) and not is_single_label(model):
        return np.asarray(model.decision_function(X))
    return np.asarray(model.predict_log_proba(X))


def _data(seed, n, sparse, missing):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 3)) < 0.4).astype(int)
    Y[:2] = [[1, 0, 1], [0, 1, 0]]  # every label both 0 and 1 somewhere
    X = rng.poisson(1.0 + 2.0 * Y @ rng.random((3, 6))).astype(float)
    X = np.minimum(X, 15)  # within a categorical model's default layout (codes 0..15)
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    y = Y[:, 0] + 2 * Y[:, 1]  # up to four classes
    return (sp.csr_matrix(X) if sparse else X), Y, y


def _folds(seed, n, k):
    order = np.random.default_rng(seed + 1).permutation(n)
    return [np.sort(part) for part in np.array_split(order, k)]


#: The settings of before "tuned", given where an estimator would choose them: a model made
#: from statistics chooses nothing (and a refit would choose on the fold's rows alone).
FIXED = {"events": "gaussian", "rule": "predict"}


def _estimator(cls, missing):
    estimator = cls()
    params = estimator.get_params()
    estimator.set_params(**{k: v for k, v in FIXED.items() if params.get(k) == "tuned"})
    if missing:
        estimator.set_params(missing="ignore")
    return estimator


@pytest.mark.parametrize("cls", ADDITIVE)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(24, 60),
    k=st.integers(2, 5),
    sparse=st.booleans(),
    missing=st.booleans(),
)
def test_fold_models_equal_refitted_folds(cls, seed, n, k, sparse, missing):
    estimator = _estimator(cls, missing)
    X, Y, y = _data(seed, n, sparse, missing)
    if estimator.__sklearn_tags__().input_tags.sparse is False and sparse:
        X = X.toarray()
    target = y if is_single_label(estimator) else Y
    folds = _folds(seed, n, k)
    engine = FoldStatistics(estimator, X, target, folds)
    for fold, (test, model) in enumerate(zip(folds, engine.models(), strict=True)):
        train = np.setdiff1d(np.arange(n), test)
        refit = clone(estimator).fit(X[train], target[train])
        if is_single_label(estimator):
            np.testing.assert_array_equal(model.classes_, refit.classes_)
        np.testing.assert_allclose(
            _scores(model, X[test]),
            _scores(refit, X[test]),
            rtol=RTOL,
            atol=1e-7,
            err_msg=f"fold {fold}",
        )
    full = engine.full_model()
    np.testing.assert_allclose(
        _scores(full, X), _scores(clone(estimator).fit(X, target), X), rtol=RTOL, atol=1e-7
    )


def test_the_folds_must_partition_the_rows():
    X, Y, _ = _data(0, 20, False, False)
    with pytest.raises(ValueError, match="partition"):
        FoldStatistics(mlnb.BinaryRelevance(), X, Y, [np.arange(10), np.arange(5, 20)])


def test_a_non_additive_estimator_is_refused():
    X, Y, _ = _data(0, 20, False, False)
    with pytest.raises(TypeError, match="not supported by fold subtraction"):
        FoldStatistics(mlnb.EnsembleClassifierChains(), X, Y, [np.arange(20)])


def test_single_label_statistics_carry_their_classes():
    X, _, y = _data(3, 30, False, False)
    classes = np.array(["a", "b", "c", "d"])[y]
    stats = mlnb.MultinomialNB().batch_statistics(X, classes)
    np.testing.assert_array_equal(stats.groups, np.unique(classes))
    model = mlnb.MultinomialNB().from_statistics(stats)
    np.testing.assert_array_equal(model.predict(X), mlnb.MultinomialNB().fit(X, classes).predict(X))
    half = mlnb.MultinomialNB().batch_statistics(X[:15], classes[:15], classes=np.unique(classes))
    rest = mlnb.MultinomialNB().batch_statistics(X[15:], classes[15:], classes=np.unique(classes))
    merged = half.copy().merge(rest)
    np.testing.assert_array_equal(merged.groups, np.unique(classes))
    np.testing.assert_allclose(merged.sums, stats.sums)
    other = (
        mlnb.MultinomialNB()
        .batch_statistics(X[:15], classes[:15], classes=np.array(["a", "b", "c", "d", "z"]))
        .select_groups([0, 1, 2, 4])
    )  # four groups, one of them another class
    with pytest.raises(ValueError, match="groups"):
        half.merge(other)


def test_fitted_models_name_their_own_classes_in_their_statistics():
    """A search scores with class codes, but the refitted model's statistics name the
    classes: they merge with statistics of the same classes and rebuild the same model."""
    X, _, y = _data(5, 40, False, False)
    labels = np.array(["a", "b", "c", "d"])[y]
    search = mlnb.selection.FoldSubtractionSearchCV(
        mlnb.MultinomialNB(), {"alpha": [0.5, 1.0]}, cv=3
    ).fit(X, labels)
    best = search.best_estimator_
    np.testing.assert_array_equal(best.stats_.groups, np.unique(labels))
    again = mlnb.MultinomialNB(alpha=best.alpha).from_statistics(best.stats_)
    np.testing.assert_array_equal(again.predict(X), best.predict(X))
    other = mlnb.MultinomialNB(alpha=best.alpha)
    other.from_statistics(other.batch_statistics(X[:10], labels[:10], classes=np.unique(labels)))
    best.merge(other)  # the same classes: no mismatch of group names


def test_a_multi_label_estimator_without_tags_is_told_by_its_targets():
    """The engine groups by label for a 2-D Y whatever the estimator's tags say."""

    class Untagged(mlnb.BinaryRelevance):
        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.target_tags.multi_output = False
            tags.target_tags.single_output = True
            return tags

    X, Y, _ = _data(6, 30, False, False)
    folds = _folds(6, 30, 3)
    engine = FoldStatistics(Untagged(events="multinomial"), X, Y, folds)
    plain = FoldStatistics(mlnb.BinaryRelevance(events="multinomial"), X, Y, folds)
    np.testing.assert_array_equal(
        engine.model(0).decision_function(X), plain.model(0).decision_function(X)
    )
