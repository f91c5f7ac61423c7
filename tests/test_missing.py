"""Missing values (``missing="ignore"``): Weka's semantics for every event model.

A missing entry adds nothing to the statistics (the row still counts for its groups) and no
term to a row's score. So for the models whose log-likelihood is a sum over features, a
row's score is the sum, over its observed features, of single-column models each fitted on
the rows where that column is observed; for the multinomial-family models (a missing count
is an absent word) it is the model fitted with the missing entries at 0.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from mlnb import (
    OOCC,
    BernoulliNB,
    BinaryRelevance,
    CategoricalNB,
    DynamicChainEnsemble,
    GaussianNB,
    KNNChain,
    MixedNB,
    MultinomialNB,
    NaiBX,
)
from mlnb.estimators import test_instances
from mlnb.events import (
    BayesianBernoulli,
    BayesianCategorical,
    BayesianGaussian,
    BayesianMultinomial,
    Bernoulli,
    Categorical,
    Complement,
    DiscretisedGaussian,
    Gaussian,
    Mixed,
    Multinomial,
)
from mlnb.missing import split_missing, with_missing
from mlnb.stats import GroupStats, one_hot

RNG = np.random.default_rng(0)


def data(kind, n=60, d=4, seed=0):
    """X of the model's domain (with about 15 % NaN), and 3 classes."""
    rng = np.random.default_rng(seed)
    if kind == "real":
        X = rng.normal(size=(n, d)) * [1, 2, 3, 4][:d] + 1.0
    elif kind == "binary":
        X = (rng.random((n, d)) < 0.4).astype(float)
    else:  # counts and categorical codes
        X = rng.integers(0, 4, size=(n, d)).astype(float)
    y = rng.integers(0, 3, size=n)
    holes = rng.random((n, d)) < 0.15
    return np.where(holes, np.nan, X), y


def scores(model, X, y, test):
    """log p(test | class) of ``model`` fitted on (X, y) with missing entries ignored."""
    stats = GroupStats.from_data(
        model.prepare_observed(X), one_hot(y, 3), second_moments=model.second_moments
    )
    return model.score_observed(model.estimate(stats), model.prepare_observed(test))


SEPARABLE = [
    ("real", Gaussian(var_smoothing=0.0)),
    ("real", BayesianGaussian()),
    ("real", DiscretisedGaussian(precision=0.1)),
    ("binary", Bernoulli(alpha=0.5)),
    ("binary", BayesianBernoulli(a=0.5, b=2.0)),
    ("codes", Categorical(alpha=0.7, max_categories=6)),
    ("codes", BayesianCategorical(max_categories=6)),
]


@pytest.mark.parametrize("kind,model", SEPARABLE, ids=lambda m: getattr(m, "name", None) or m)
@pytest.mark.parametrize("sparse", [False, True])
def test_a_score_sums_single_column_models_fitted_on_the_observed_rows(kind, model, sparse):
    X, y = data(kind)
    test, _ = data(kind, n=15, seed=1)
    as_input = sp.csr_matrix if sparse else np.asarray
    expected = np.zeros((len(test), 3))
    for v in range(X.shape[1]):
        rows, tests = ~np.isnan(X[:, v]), ~np.isnan(test[:, v])
        column = scores(model, X[rows][:, [v]], y[rows], test[tests][:, [v]])
        expected[tests] += column
    got = scores(model, as_input(X), y, as_input(test))
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize(
    "model", [Multinomial(alpha=0.5), BayesianMultinomial(beta=0.5), Complement(norm=True)]
)
@pytest.mark.parametrize("sparse", [False, True])
def test_a_missing_count_is_an_absent_word(model, sparse):
    X, y = data("counts")
    test, _ = data("counts", n=15, seed=1)
    as_input = sp.csr_matrix if sparse else np.asarray
    expected = scores(model, np.nan_to_num(X), y, np.nan_to_num(test))
    np.testing.assert_allclose(scores(model, as_input(X), y, as_input(test)), expected)


def test_mixed_blocks_ignore_missing_entries_block_by_block():
    codes, y = data("codes", d=2)
    real, _ = data("real", d=2, seed=3)
    X = np.hstack([real[:, :1], codes, real[:, 1:]])
    model = Mixed(blocks=[(Gaussian(var_smoothing=0.0), [0, 3]), (Categorical(), [1, 2])])
    test = X[:10]
    expected = scores(Gaussian(var_smoothing=0.0), X[:, [0, 3]], y, test[:, [0, 3]]) + scores(
        Categorical(), X[:, [1, 2]], y, test[:, [1, 2]]
    )
    np.testing.assert_allclose(scores(model, X, y, test), expected, rtol=1e-12)


def test_gaussian_nb_by_hand():
    X = np.array([[1.0, np.nan], [3.0, 10.0], [np.nan, 14.0], [5.0, 1.0]])
    y = np.array([0, 0, 0, 1])
    model = GaussianNB(var_smoothing=0.0, missing="ignore").fit(X[:3], y[:3])
    # class 0: feature 0 from rows 0, 1 (mean 2, var 1); feature 1 from rows 1, 2 (12, 4)
    np.testing.assert_allclose(model.theta_, [[2.0, 12.0]])
    np.testing.assert_allclose(model.var_, [[1.0, 4.0]])
    np.testing.assert_allclose(model.class_count_, [3.0])
    row = np.array([[np.nan, 13.0]])  # only feature 1 counts
    expected = -0.5 * np.log(2 * np.pi * 4.0) - (13.0 - 12.0) ** 2 / 8.0
    np.testing.assert_allclose(model.predict_joint_log_proba(row), [[expected]])


def test_bernoulli_nb_by_hand():
    X = np.array([[1.0, np.nan], [0.0, 1.0], [np.nan, 1.0], [1.0, 0.0]])
    y = np.array([0, 0, 1, 1])
    model = BernoulliNB(alpha=1.0, missing="ignore").fit(X, y)
    # (present + 1) / (observed + 2): class 0 sees feature 0 twice (once present) and
    # feature 1 once (present); class 1 sees feature 0 once (present), feature 1 twice
    np.testing.assert_allclose(np.exp(model.feature_log_prob_[0]), [2 / 4, 2 / 3])
    np.testing.assert_allclose(np.exp(model.feature_log_prob_[1]), [2 / 3, 2 / 4])


CLASSIFIERS = [
    lambda: GaussianNB(missing="ignore"),
    lambda: MultinomialNB(missing="ignore"),
    lambda: BernoulliNB(missing="ignore"),
    lambda: CategoricalNB(missing="ignore"),
    lambda: MixedNB(blocks=[("gaussian", [0, 1]), ("bernoulli", [2, 3])], missing="ignore"),
]


# (not MultinomialNB: a column always missing is a word never seen, which still takes its
# share alpha / (n_c + V alpha) of the smoothing, as test_a_missing_count_is_an_absent_word)
@pytest.mark.parametrize("make", [c for i, c in enumerate(CLASSIFIERS) if i != 1])
def test_a_column_always_missing_is_as_if_it_were_not_there(make):
    X, y = data("codes", d=4)
    X = np.nan_to_num(X)
    holed = X.copy()
    holed[:, 1] = np.nan
    kept = make()
    if isinstance(kept, MixedNB):  # the same blocks without column 1
        kept.set_params(blocks=[("gaussian", [0]), ("bernoulli", [1, 2])])
    expected = kept.fit(np.delete(X, 1, axis=1), y).predict_log_proba(np.delete(X, 1, axis=1))
    got = make().fit(holed, y).predict_log_proba(holed)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("make", CLASSIFIERS)
def test_fit_equals_chunked_partial_fit_and_merge_dense_and_sparse(make):
    X, y = data("codes", d=4, n=90)
    whole = make().fit(X, y)
    chunked = make()
    for part in np.array_split(np.arange(len(y)), 3):
        chunked.partial_fit(X[part], y[part], classes=[0, 1, 2])
    merged = make().fit(X[:40], y[:40]).merge(make().fit(X[40:], y[40:]))
    sparse = make().fit(sp.csr_matrix(X), y)
    for other in (chunked, merged, sparse):
        np.testing.assert_allclose(
            other.predict_log_proba(X), whole.predict_log_proba(X), rtol=1e-9, atol=1e-9
        )
    np.testing.assert_allclose(
        whole.predict_log_proba(sp.csr_matrix(X)), whole.predict_log_proba(X), rtol=1e-12
    )


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.0, 0.5))
def test_statistics_with_missing_entries_add_and_subtract(seed, share):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 3))
    X[rng.random(X.shape) < share] = np.nan
    G = (rng.random((30, 2)) < 0.5).astype(float)
    whole = GroupStats.from_data(X, G)
    parts = GroupStats.from_data(X[:12], G[:12]).merge(GroupStats.from_data(X[12:], G[12:]))
    back = whole.copy().subtract(GroupStats.from_data(X[12:], G[12:]))
    first = GroupStats.from_data(X[:12], G[:12])
    for a, b in ((parts, whole), (back, first)):
        full = a.sums.shape  # without missing entries feature_count is count[:, None]
        np.testing.assert_allclose(
            np.broadcast_to(a.feature_count, full), np.broadcast_to(b.feature_count, full)
        )
        np.testing.assert_allclose(a.sums, b.sums, atol=1e-9)
        np.testing.assert_allclose(a.m2, b.m2, atol=1e-7)
        np.testing.assert_allclose(a.total_m2, b.total_m2, atol=1e-7)
    # the variance of each feature is that of its observed rows
    for v in range(3):
        rows = ~np.isnan(X[:, v])
        w = G[rows, 0]
        if w.sum() > 0:
            mean = (w * X[rows, v]).sum() / w.sum()
            var = (w * (X[rows, v] - mean) ** 2).sum() / w.sum()
            np.testing.assert_allclose(whole.var[0, v], var, atol=1e-9)


def test_split_and_restore_missing_entries_dense_and_sparse():
    X = np.array([[1.0, np.nan, 0.0], [np.nan, 2.0, 3.0]])
    filled, mask = split_missing(X)
    np.testing.assert_array_equal(filled, [[1.0, 0.0, 0.0], [0.0, 2.0, 3.0]])
    np.testing.assert_array_equal(mask.toarray(), np.isnan(X))
    np.testing.assert_array_equal(with_missing(filled, mask), X)
    sparse_filled, sparse_mask = split_missing(sp.csr_matrix(X))
    assert sparse_filled.nnz == 3 and (sparse_mask != mask).nnz == 0
    np.testing.assert_array_equal(with_missing(sparse_filled, sparse_mask).toarray(), X)


# ---- multi-label estimators -----------------------------------------------------------------
def multilabel_data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 3)) < 0.4).astype(int)
    X = rng.normal(size=(n, 5)) + Y @ rng.normal(size=(3, 5)) * 2
    return X, Y


def _maker(model):
    """``make(**params)``: a copy of ``model`` with ``params`` set."""
    return lambda **params: clone(model).set_params(**params)


# every multi-label estimator with the missing option, as its _unit_test_params say
MULTILABEL = {
    name: _maker(model)
    for name, model in test_instances("multi_label")
    if "missing" in model.get_params()
}


@pytest.mark.parametrize("make", MULTILABEL.values(), ids=MULTILABEL.keys())
def test_multilabel_estimators_ignore_a_column_always_missing(make):
    X, Y = multilabel_data()
    holed = np.insert(X, 2, np.nan, axis=1)
    expected = make().fit(X, Y).predict(X)
    got = make(missing="ignore").fit(holed, Y).predict(holed)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("make", MULTILABEL.values(), ids=MULTILABEL.keys())
def test_multilabel_estimators_fit_sparse_holes_like_dense_ones(make):
    X, Y = multilabel_data()
    X[RNG.random(X.shape) < 0.1] = np.nan
    dense = make(missing="ignore").fit(X, Y)
    sparse = make(missing="ignore").fit(sp.csr_matrix(X), Y)
    predicted = dense.predict(X)
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), predicted)
    assert 0 < predicted.mean() < 1


def test_dce_with_feature_selection_and_missing_entries():
    X, Y = multilabel_data(n=120)
    X[RNG.random(X.shape) < 0.1] = np.nan
    model = DynamicChainEnsemble(n_chains=2, random_state=0, missing="ignore").fit(X, Y)
    assert model.predict(X).shape == Y.shape


# ---- errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "model", [GaussianNB(), BinaryRelevance(), NaiBX(), DynamicChainEnsemble(n_chains=2)]
)
def test_nan_is_an_error_by_default_that_names_the_option(model):
    X, Y = multilabel_data()
    X[0, 0] = np.nan
    target = Y[:, 0] if isinstance(model, GaussianNB) else Y
    with pytest.raises(ValueError, match="missing='ignore'"):
        model.fit(X, target)


def test_estimators_without_the_option_say_so():
    X, Y = multilabel_data()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="impute"):
        KNNChain().fit(X, Y)
    with pytest.raises(ValueError, match="base='knn'"):
        DynamicChainEnsemble(base="knn", n_chains=2, missing="ignore").fit(X, Y)
    with pytest.raises(ValueError, match="base='knn'"):
        OOCC(base="knn", n_orders=2, missing="ignore").fit(X, Y)


def test_missing_option_is_validated():
    with pytest.raises(ValueError, match="missing"):
        GaussianNB(missing="drop").fit([[0.0]], [0])
