"""Tests of the single-label classifiers: API conformance, invariants, priors, bad input."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlnb import (
    BayesianBernoulliNB,
    BayesianGaussianNB,
    BayesianMultinomialNB,
    BernoulliNB,
    GaussianNB,
    MixedNB,
    MultinomialNB,
)
from mlnb.estimators import test_instances
from mlnb.naive_bayes import CategoricalNB, ComplementNB

# Every single-label classifier, as its _unit_test_params say (GaussianNB, MultinomialNB and
# BernoulliNB also with missing="ignore": the checks then feed NaN, the allow_nan tag).
ALL_CLASSIFIERS = [
    model for _, model in test_instances("single_label") if not isinstance(model, CategoricalNB)
]
# CategoricalNB is left out of scikit-learn's API checks: they feed it real-valued blobs,
# and it takes integer category codes only (it refuses other values with a clear error;
# tests/test_sklearn_compat.py compares it with scikit-learn's on categorical data).
# Non-default hyper-parameters, so that the invariants exercise every term.
TUNED_CLASSIFIERS = [
    GaussianNB(var_smoothing=1e-3, prior_alpha=1.0),
    MultinomialNB(alpha=0.3, prior_alpha=1.0),
    BernoulliNB(alpha=0.5, binarize=1.0),
    BayesianGaussianNB(alpha=2.0, a=0.01, b=0.01, lam=0.5),
    BayesianMultinomialNB(alpha=2.0, beta=0.05),
    BayesianBernoulliNB(alpha=2.0, a=0.3, b=2.0),
    MixedNB(blocks=[("gaussian", slice(0, 4)), ("multinomial", slice(4, None))]),
    ComplementNB(alpha=0.5, norm=True),
]
ids = [type(model).__name__ for model in TUNED_CLASSIFIERS]


# scikit-learn's API checks pass for all of them with no exclusion. The multinomial and
# Bernoulli models carry the `poor_score` tag (as scikit-learn's own discrete NB classes do):
# the checks' Gaussian blobs are neither counts nor binary.
@parametrize_with_checks(ALL_CLASSIFIERS)
def test_scikit_learn_api(estimator, check):
    check(estimator)


def count_data(seed, n=60, d=9, n_classes=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    rates = rng.uniform(0.2, 3.0, size=(n_classes, d))
    X = rng.poisson(rates[y]).astype(float)
    return X, y


def assert_same_model(a, b, X, rtol=1e-9):
    np.testing.assert_allclose(a.class_count_, b.class_count_, rtol=rtol)
    np.testing.assert_allclose(
        a.predict_joint_log_proba(X), b.predict_joint_log_proba(X), rtol=rtol, atol=1e-9
    )
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("model", TUNED_CLASSIFIERS, ids=ids)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 1000), cuts=st.lists(st.integers(0, 60), max_size=3))
def test_fit_equals_chunked_partial_fit_equals_merged_partitions(model, seed, cuts):
    X, y = count_data(seed)
    w = np.random.default_rng(seed).uniform(0.5, 2.0, len(y))
    classes = np.unique(np.r_[y, 0, 1, 2])
    whole = clone(model).fit(X, y, sample_weight=w)
    chunked = clone(model)
    parts = []
    for lo, hi in itertools.pairwise(sorted({0, *cuts, len(y)})):
        chunked.partial_fit(X[lo:hi], y[lo:hi], classes=classes, sample_weight=w[lo:hi])
        parts.append(clone(model).partial_fit(X[lo:hi], y[lo:hi], classes, w[lo:hi]))
    merged = parts[0]
    for part in parts[1:]:
        merged.merge(part)
    assert_same_model(chunked, whole, X)
    assert_same_model(merged, whole, X)


@pytest.mark.parametrize("model", TUNED_CLASSIFIERS, ids=ids)
def test_dense_equals_sparse(model):
    X, y = count_data(1)
    X[:, 2] = 0.0
    dense = clone(model).fit(X, y)
    sparse = clone(model).fit(sp.csr_matrix(X), y)
    assert_same_model(dense, sparse, X)
    np.testing.assert_allclose(
        dense.predict_log_proba(sp.csr_matrix(X)), dense.predict_log_proba(X), rtol=1e-9
    )


@pytest.mark.parametrize("model", TUNED_CLASSIFIERS, ids=ids)
def test_integer_weights_equal_repeated_rows(model):
    X, y = count_data(2)
    repeats = np.random.default_rng(2).integers(0, 4, len(y))
    weighted = clone(model).fit(X, y, sample_weight=repeats)
    repeated = clone(model).fit(np.repeat(X, repeats, axis=0), np.repeat(y, repeats))
    assert_same_model(weighted, repeated, X)


@pytest.mark.parametrize("model", TUNED_CLASSIFIERS, ids=ids)
def test_declared_but_unseen_class_gives_finite_predictions(model):
    if isinstance(model, ComplementNB):
        pytest.skip(
            "complement scores ignore the prior (as scikit-learn's): an unseen class "
            "is scored by the complement of nothing, i.e. every row, and can win"
        )
    X, y = count_data(3, n_classes=2)
    fitted = clone(model).partial_fit(X, y, classes=[0, 1, 2])
    log_proba = fitted.predict_log_proba(X)
    assert not np.any(np.isnan(log_proba))
    assert set(np.unique(fitted.predict(X))) <= {0, 1}


# ---------------------------------------------------------------- priors
def test_class_prior_rules_by_hand():
    X = np.ones((4, 2))
    y = np.array([0, 0, 0, 1])
    # maximum likelihood (scikit-learn's default)
    np.testing.assert_allclose(MultinomialNB().fit(X, y).class_log_prior_, np.log([3 / 4, 1 / 4]))
    # Xu 2018, eq. 2 with Laplace alpha = 1: (l_c + 1) / (l + C)
    np.testing.assert_allclose(
        MultinomialNB(prior_alpha=1).fit(X, y).class_log_prior_, np.log([4 / 6, 2 / 6])
    )
    # eq. 19, Dirichlet alpha = 2 (the paper's setting): (l_c + 2) / (l + 4)
    np.testing.assert_allclose(
        BayesianMultinomialNB(alpha=2).fit(X, y).class_log_prior_, np.log([5 / 8, 3 / 8])
    )
    np.testing.assert_allclose(
        BernoulliNB(fit_prior=False).fit(X, y).class_log_prior_, np.log([0.5, 0.5])
    )
    np.testing.assert_allclose(
        GaussianNB(priors=[0.1, 0.9]).fit(X, y).class_log_prior_, np.log([0.1, 0.9])
    )
    with pytest.raises(ValueError, match="sum to 1"):
        MultinomialNB(class_prior=[0.5, 0.6]).fit(X, y)
    with pytest.raises(ValueError, match="expected 2"):
        GaussianNB(priors=[1.0]).fit(X, y)


def test_bayesian_bernoulli_equals_classical_bernoulli():
    """Xu 2018, eq. 21 with a = b = beta is the classical estimate of eq. 6."""
    X, y = count_data(4)
    for beta in (0.01, 0.5, 1.0, 4.0):
        bayesian = BayesianBernoulliNB(alpha=1.0, a=beta, b=beta).fit(X, y)
        classical = BernoulliNB(alpha=beta, prior_alpha=1.0).fit(X, y)
        assert_same_model(bayesian, classical, X, rtol=1e-12)


def test_mixed_all_gaussian_equals_gaussian_and_blocks_add_up():
    X, y = count_data(5)
    assert_same_model(MixedNB().fit(X, y), GaussianNB().fit(X, y), X, rtol=1e-12)
    mixed = MixedNB(blocks=[("bernoulli", [0, 1, 2]), ("multinomial", slice(3, None))])
    mixed.fit(X, y)
    bern = BernoulliNB().fit(X[:, :3], y)
    mult = MultinomialNB().fit(X[:, 3:], y)
    expected = (
        bern.predict_joint_log_proba(X[:, :3])
        + mult.predict_joint_log_proba(X[:, 3:])
        - mult.class_log_prior_
    )
    np.testing.assert_allclose(mixed.predict_joint_log_proba(X), expected, rtol=1e-12)


# ---------------------------------------------------------------- bad input
BAD_INPUTS = {
    "nan": (np.array([[1.0, np.nan]]), "NaN"),
    "inf": (np.array([[1.0, np.inf]]), "infinity"),
    "strings": (np.array([["a", "b"]]), "could not convert|dtype"),
    "wrong width": (np.ones((1, 3)), "has 3 features"),
    "empty": (np.ones((0, 2)), "0 sample"),
}


@pytest.mark.parametrize("model", TUNED_CLASSIFIERS[:6], ids=ids[:6])
@pytest.mark.parametrize("case", BAD_INPUTS)
def test_bad_input_raises_and_partial_fit_leaves_the_model_unchanged(model, case):
    X, y = count_data(6, d=2)
    fitted = clone(model).partial_fit(X, y, classes=[0, 1, 2])
    before = fitted.predict_joint_log_proba(X)
    count_before = fitted.class_count_.copy()
    bad, message = BAD_INPUTS[case]
    with pytest.raises(ValueError, match=message):
        fitted.partial_fit(bad, np.zeros(len(bad), int))
    if case != "wrong width":
        with pytest.raises(ValueError, match=message):
            clone(model).fit(bad, np.zeros(len(bad), int))
    if case != "empty":
        with pytest.raises(ValueError, match=message):
            fitted.predict(bad)
    np.testing.assert_array_equal(fitted.predict_joint_log_proba(X), before)
    np.testing.assert_array_equal(fitted.class_count_, count_before)


@pytest.mark.parametrize("model", [MultinomialNB(), BayesianMultinomialNB()], ids=str)
def test_negative_counts_are_rejected(model):
    X, y = count_data(7)
    fitted = clone(model).fit(X, y)
    before = fitted.stats_.sums.copy()
    bad = X.copy()
    bad[0, 0] = -1
    with pytest.raises(ValueError, match="Negative values in data passed to"):
        fitted.partial_fit(bad, y)
    with pytest.raises(ValueError, match="Negative values"):
        fitted.predict(sp.csr_matrix(bad))
    np.testing.assert_array_equal(fitted.stats_.sums, before)


def test_partial_fit_class_errors_leave_the_model_unchanged():
    X, y = count_data(8)
    model = MultinomialNB()
    with pytest.raises(ValueError, match="classes must be given on the first call"):
        model.partial_fit(X, y)
    assert not hasattr(model, "classes_") and not hasattr(model, "n_features_in_")
    with pytest.raises(ValueError, match=r"not in classes"):
        model.partial_fit(X, y, classes=[0, 1])
    assert not hasattr(model, "classes_") and not hasattr(model, "n_features_in_")
    model.partial_fit(X, y, classes=[0, 1, 2])
    before = model.stats_.sums.copy()
    with pytest.raises(ValueError, match=r"not in classes"):
        model.partial_fit(X, np.full(len(y), 7))
    with pytest.raises(ValueError, match="differs from the classes of the first call"):
        model.partial_fit(X, y, classes=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="rows but y has"):
        model.partial_fit(X, y[:-1])
    with pytest.raises(ValueError, match="one-dimensional"):
        model.partial_fit(X, np.ones((len(y), 2)))
    with pytest.raises(ValueError, match=r"Negative values in data passed to .sample_weight"):
        model.partial_fit(X, y, sample_weight=-np.ones(len(y)))
    np.testing.assert_array_equal(model.stats_.sums, before)


def test_merge_rejects_incompatible_models():
    X, y = count_data(9)
    a = MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match="same type and hyper-parameters"):
        a.merge(MultinomialNB(alpha=0.5).fit(X, y))
    with pytest.raises(ValueError, match="same type"):
        a.merge(BernoulliNB().fit(X, y))
    with pytest.raises(ValueError, match="classes_ differ"):
        a.merge(MultinomialNB().fit(X, y % 2))
    with pytest.raises(ValueError, match="n_features_in_ differ"):
        a.merge(MultinomialNB().fit(X[:, :3], y))


def test_row_normaliser_equals_scipy_logsumexp():
    from scipy.special import logsumexp

    from mlnb.events.categorical import log_sum_exp_rows

    values = np.random.default_rng(0).normal(0, 800, size=(50, 7))
    values[0] = -np.inf
    values[1, 2] = -np.inf
    values[2] = [1e308, 1e308, 0, 0, 0, 0, 0]
    np.testing.assert_array_equal(log_sum_exp_rows(values)[:1], [[-np.inf]])
    np.testing.assert_allclose(
        log_sum_exp_rows(values)[1:], logsumexp(values, axis=1, keepdims=True)[1:], rtol=1e-15
    )
