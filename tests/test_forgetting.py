"""Forgetting: a sliding window equals a fit on its rows, decay equals a weighted fit."""

import numpy as np
import pytest

from mlnb import BinaryRelevance, ClassifierChain, KNNChain, MultinomialNB, NaiBX
from mlnb.evaluation import prequential
from mlnb.forgetting import ExponentialForgetting, SlidingWindow


def stream(seed=0, n=240, batch=30, counts=True):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 4)) < 0.35).astype(int)
    mix = Y @ rng.random((4, 8))
    X = rng.poisson(1 + 4 * mix) if counts else mix + rng.normal(size=mix.shape)
    return X, Y, [(X[i : i + batch], Y[i : i + batch]) for i in range(0, n, batch)]


def scores(model, X):
    for method in ("predict_log_odds", "decision_function", "predict_proba"):
        if hasattr(model, method):
            return np.asarray(getattr(model, method)(X))
    raise AssertionError("no scores")


MODELS = [
    BinaryRelevance(events="multinomial"),
    BinaryRelevance(events="gaussian"),
    ClassifierChain(events="bernoulli", label_prior="uniform", label_alpha=1.0),
    NaiBX(events="multinomial"),
]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: f"{type(m).__name__}-{m.events}")
@pytest.mark.parametrize("window", [1, 3])
def test_a_sliding_window_equals_a_fit_on_its_rows(model, window):
    X, Y, batches = stream(counts=model.events != "gaussian")
    windowed = SlidingWindow(model, window=window)
    for i, (X_batch, Y_batch) in enumerate(batches):
        windowed.partial_fit(X_batch, Y_batch)
        rows = slice(max(0, i + 1 - window) * 30, (i + 1) * 30)
        refit = type(model)(**model.get_params()).fit(X[rows], Y[rows])
        np.testing.assert_allclose(scores(windowed, X), scores(refit, X), rtol=1e-7, atol=1e-8)
    assert len(windowed.batches_) == window


@pytest.mark.parametrize("model", MODELS[:2] + MODELS[3:], ids=["BR-mn", "BR-gauss", "NaiBX"])
def test_decay_equals_a_fit_weighted_by_the_age_of_each_batch(model):
    X, Y, batches = stream(1, counts=model.events != "gaussian")
    decayed = ExponentialForgetting(model, decay=0.7)
    for X_batch, Y_batch in batches:
        decayed.partial_fit(X_batch, Y_batch)
    ages = np.repeat(np.arange(len(batches))[::-1], 30)
    weighted = type(model)(**model.get_params()).fit(X, Y, sample_weight=0.7**ages)
    np.testing.assert_allclose(scores(decayed, X), scores(weighted, X), rtol=1e-7, atol=1e-8)
    one = ExponentialForgetting(model, decay=1.0)
    for X_batch, Y_batch in batches:
        one.partial_fit(X_batch, Y_batch)
    whole = type(model)(**model.get_params()).fit(X, Y)
    np.testing.assert_allclose(scores(one, X), scores(whole, X), rtol=1e-7, atol=1e-8)


def test_single_label_classifiers_take_their_classes_first():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 120)
    X = rng.poisson(1 + 3 * np.eye(3)[y] @ rng.random((3, 6)))
    windowed = SlidingWindow(MultinomialNB(), window=2)
    with pytest.raises(ValueError, match="classes"):
        windowed.partial_fit(X[:40], y[:40])
    for i in range(0, 120, 40):
        windowed.partial_fit(X[i : i + 40], y[i : i + 40], classes=[0, 1, 2])
    refit = MultinomialNB().fit(X[40:], y[40:])
    np.testing.assert_allclose(windowed.predict_proba(X), refit.predict_proba(X))


def test_prequential_on_a_window_and_refusals():
    _, _, batches = stream()
    result = prequential(SlidingWindow(BinaryRelevance(events="multinomial"), window=2), batches)
    assert len(result.n_rows) == len(batches) - 1
    with pytest.raises(ValueError, match="window"):
        SlidingWindow(BinaryRelevance(), window=0).partial_fit(*batches[0])
    with pytest.raises(ValueError, match="decay"):
        ExponentialForgetting(BinaryRelevance(), decay=1.5).partial_fit(*batches[0])
    with pytest.raises(ValueError, match="estimator"):
        SlidingWindow(KNNChain()).partial_fit(*batches[0])


@pytest.mark.parametrize("wrapper", [SlidingWindow, ExponentialForgetting])
def test_a_later_batch_with_new_labels_is_refused_clearly(wrapper):
    rng = np.random.default_rng(0)
    Y = (rng.random((100, 4)) < 0.4).astype(int)
    X = rng.poisson(2, (100, 5))
    model = wrapper(ClassifierChain(events="multinomial")).partial_fit(X[:50], Y[:50, :3])
    before = model.decision_function(X)
    with pytest.raises(ValueError, match=r"y has 4 label columns; .* keeps the label set"):
        model.partial_fit(X[50:], Y[50:])
    np.testing.assert_array_equal(model.decision_function(X), before)
    model.fit(X, Y)  # a new fit starts a new label set
    assert model.estimator_.n_labels_ == 4
