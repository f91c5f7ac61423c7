"""Exact unlearning: ``forget`` takes learnt rows out of a model, which then equals the
model of the other rows; what cannot forget exactly refuses by name."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from mlnb import (
    IMLNB,
    OOCC,
    BaggedBinaryRelevance,
    BayesianBernoulliNB,
    BayesianGaussianNB,
    BayesianMultinomialNB,
    BernoulliNB,
    BinaryRelevance,
    CategoricalNB,
    ClassifierChain,
    ComplementNB,
    DynamicChain,
    DynamicChainEnsemble,
    EnsembleClassifierChains,
    GaussianNB,
    GeneticChainEnsemble,
    KNNChain,
    LabelPowerset,
    MultinomialNB,
    NaiBX,
    RAkEL,
)
from mlnb.datasets import load_dataset

SINGLE_LABEL = [
    GaussianNB,
    BayesianGaussianNB,
    MultinomialNB,
    BayesianMultinomialNB,
    ComplementNB,
    BernoulliNB,
    BayesianBernoulliNB,
    CategoricalNB,
]
MULTI_LABEL = [BinaryRelevance, ClassifierChain, IMLNB, NaiBX]
EVENTS = ["gaussian", "multinomial", "bernoulli"]
#: Relative agreement of a model that forgot rows with the refit on the others (float
#: weights: sums and centred moments subtract to rounding).
RTOL = 1e-12
#: The Gaussian models': a feature constant among a group's remaining rows has a centred
#: second moment that subtraction leaves at rounding (1e-16 of the total's) instead of
#: 0, and the variance floor (1e-9 of the largest variance) turns that into 1e-7
#: relative in the variance, hence in log-likelihoods near 1e8 (measured), and up to
#: 1.04e-6 at log-likelihoods of 5e9 (an example hypothesis found): 1e-5.
GAUSSIAN_RTOL = 1e-5


def _rtol(model):
    return GAUSSIAN_RTOL if "gaussian" in type(model.events_).__name__.lower() else RTOL


def _rows(seed, n=60, n_features=6, n_labels=3):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, n_labels)) < 0.45).astype(int)
    X = rng.poisson(1.0 + 2.0 * Y @ rng.random((n_labels, n_features))).astype(float)
    X = np.minimum(X, 15)  # CategoricalNB's codes 0..15 (max_categories=16)
    return X, Y, rng


def _forgotten_and_rest(seed, weighted):
    X, Y, rng = _rows(seed)
    gone = rng.random(X.shape[0]) < 0.3
    gone[:3], gone[-3:] = True, False
    weight = rng.uniform(0.5, 2.0, size=X.shape[0]) if weighted else None
    return X, Y, gone, weight


def _part(weight, rows):
    return None if weight is None else weight[rows]


@pytest.mark.parametrize("classifier", SINGLE_LABEL)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), weighted=st.booleans())
def test_a_classifier_that_forgets_rows_equals_the_fit_on_the_others(classifier, seed, weighted):
    X, Y, gone, weight = _forgotten_and_rest(seed, weighted)
    y = Y[:, 0] + Y[:, 1]  # three classes
    classes = np.unique(y)
    model = classifier().fit(X, y, sample_weight=weight)
    model.forget(X[gone], y[gone], sample_weight=_part(weight, gone))
    rest = classifier().partial_fit(
        X[~gone], y[~gone], classes=classes, sample_weight=_part(weight, ~gone)
    )
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X),
        rest.predict_joint_log_proba(X),
        rtol=_rtol(model),
        atol=1e-10,
    )
    np.testing.assert_array_equal(model.predict(X), rest.predict(X))


@pytest.mark.parametrize("estimator", MULTI_LABEL)
@pytest.mark.parametrize("events", EVENTS)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), weighted=st.booleans(), sparse=st.booleans())
def test_a_multi_label_model_that_forgets_rows_equals_the_fit_on_the_others(
    estimator, events, seed, weighted, sparse
):
    X, Y, gone, weight = _forgotten_and_rest(seed, weighted)
    if sparse:
        X = sp.csr_matrix(X)
    make = lambda: estimator(events=events, rule="predict")  # noqa: E731
    model = make().fit(X, Y, sample_weight=weight)
    model.forget(X[gone], Y[gone], sample_weight=_part(weight, gone))
    rest = make().fit(X[~gone], Y[~gone], sample_weight=_part(weight, ~gone))
    np.testing.assert_allclose(
        model.decision_function(X), rest.decision_function(X), rtol=_rtol(model), atol=1e-10
    )
    np.testing.assert_array_equal(model.predict(X), rest.predict(X))


def test_forgetting_keeps_what_the_defaults_chose():
    """At the defaults the settings chosen on the first fit stay (as partial_fit keeps
    them): the model equals the one of those settings given, fitted on the other rows."""
    data = load_dataset("emotions")
    X, Y = data.train.X, data.train.Y
    model = BinaryRelevance().fit(X, Y)
    chosen = model.chosen_params_
    model.forget(X[:50], Y[:50])
    assert model.chosen_params_["events"] is chosen["events"]
    rest = clone(model).set_params(**chosen).fit(X[50:], Y[50:])
    np.testing.assert_allclose(
        model.decision_function(data.test.X), rest.decision_function(data.test.X), rtol=1e-9
    )
    np.testing.assert_array_equal(model.predict(data.test.X), rest.predict(data.test.X))


def test_a_correction_is_forget_then_partial_fit():
    X, Y, _ = _rows(7)
    wrong = Y.copy()
    wrong[:5] = 1 - wrong[:5]
    model = BinaryRelevance(events="multinomial", rule="predict").fit(X, wrong)
    model.forget(X[:5], wrong[:5]).partial_fit(X[:5], Y[:5])
    right = BinaryRelevance(events="multinomial", rule="predict").fit(X, Y)
    np.testing.assert_allclose(model.decision_function(X), right.decision_function(X), rtol=RTOL)


def test_forget_takes_label_lists_by_name():
    X = np.array([[2, 0, 1], [0, 3, 1], [1, 1, 0], [3, 0, 2], [1, 2, 2]])
    tags = [["a"], ["b"], ["a", "b"], ["a"], ["b"]]
    model = BinaryRelevance(events="multinomial", rule="predict").fit(X, tags)
    model.forget(X[:1], [["a"]])
    rest = BinaryRelevance(events="multinomial", rule="predict").fit(X[1:], tags[1:])
    np.testing.assert_allclose(model.decision_function(X), rest.decision_function(X), rtol=RTOL)


def test_compact_statistics_forget_as_dense_ones(monkeypatch):
    """A large label space keeps its statistics compact (CSR sums): forget keeps them so."""
    from mlnb.multilabel import _label_model

    X, Y, _ = _rows(11, n=80, n_features=12, n_labels=6)
    dense = BinaryRelevance(events="multinomial", rule="predict").fit(X[10:], Y[10:])
    monkeypatch.setattr(_label_model, "COMPACT_ENTRIES", 10)
    model = BinaryRelevance(events="multinomial", rule="predict").fit(sp.csr_matrix(X), Y)
    assert model.feature_stats_.compact
    model.forget(sp.csr_matrix(X[:10]), Y[:10])
    assert model.feature_stats_.compact
    np.testing.assert_allclose(model.decision_function(X), dense.decision_function(X), rtol=1e-10)


# ---- what cannot be forgotten ----------------------------------------------------------------
@pytest.mark.parametrize(
    "estimator",
    [
        EnsembleClassifierChains(events="multinomial", n_chains=2, random_state=0),
        BaggedBinaryRelevance(events="multinomial", n_estimators=2, random_state=0),
        DynamicChain(events="multinomial"),
        DynamicChainEnsemble(events="multinomial", n_chains=2, random_state=0),
        LabelPowerset(events="multinomial"),
        RAkEL(events="multinomial", random_state=0),
        KNNChain(),
        OOCC(events="multinomial", random_state=0),
        GeneticChainEnsemble(events="multinomial", random_state=0),
    ],
    ids=lambda estimator: type(estimator).__name__,
)
def test_what_cannot_forget_exactly_refuses_by_name(estimator):
    X, Y, _ = _rows(3)
    model = estimator.fit(X, Y)
    with pytest.raises(TypeError, match=f"{type(estimator).__name__} cannot forget rows exactly"):
        model.forget(X[:5], Y[:5])


def test_binary_relevance_of_another_classifier_refuses_to_forget():
    from sklearn.linear_model import LogisticRegression

    X, Y, _ = _rows(4)
    model = BinaryRelevance(base_estimator=LogisticRegression()).fit(X, Y)
    with pytest.raises(TypeError, match="cannot forget rows exactly"):
        model.forget(X[:5], Y[:5])


@pytest.mark.parametrize("estimator", MULTI_LABEL)
def test_rows_never_learnt_are_refused_and_nothing_changes(estimator):
    X, Y, _ = _rows(5)
    model = estimator(events="multinomial", rule="predict").fit(X[:20], Y[:20])
    before = model.decision_function(X)
    with pytest.raises(ValueError, match="not all learnt"):
        model.forget(X[:40], Y[:40])  # 20 rows it never saw: a label's rows below zero
    np.testing.assert_array_equal(model.decision_function(X), before)
    with pytest.raises(ValueError, match="not all learnt"):
        model.forget(X[:1] + 100, Y[:1])  # more of a word than was ever counted
    np.testing.assert_array_equal(model.decision_function(X), before)
    with pytest.raises(ValueError, match="labels"):
        model.forget(X[:1], Y[:1, :2])


def test_a_classifier_refuses_classes_and_rows_it_never_learnt():
    X, Y, _ = _rows(6)
    y = Y[:, 0]
    model = MultinomialNB().fit(X, y)
    before = model.predict_joint_log_proba(X)
    with pytest.raises(ValueError, match="never learnt"):
        model.forget(X[:1], [7])
    with pytest.raises(ValueError, match="not all learnt"):
        model.forget(np.vstack([X, X]), np.concatenate([y, y]))
    np.testing.assert_array_equal(model.predict_joint_log_proba(X), before)
