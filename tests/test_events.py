"""Tests of mlnb.events: each predictive log-likelihood against an independent computation."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.special import gammaln

from mlnb.events import (
    BayesianBernoulli,
    BayesianGaussian,
    BayesianMultinomial,
    Bernoulli,
    EventModel,
    Gaussian,
    Mixed,
    Multinomial,
    entrywise_sum,
    make_event_model,
)
from mlnb.stats import GroupStats


def class_stats(X, y, n_classes, second_moments=True):
    return GroupStats.from_data(X, np.eye(n_classes)[y], second_moments=second_moments)


# ---------------------------------------------------------------- Bayesian multinomial, eq. 20
def dirichlet_multinomial_direct(counts_c, beta, x):
    """log p(x | c) written out over the whole vocabulary (dense)."""
    B = beta * len(counts_c)
    return (
        gammaln(B + counts_c.sum())
        - gammaln(B + counts_c.sum() + x.sum())
        + np.sum(gammaln(beta + counts_c + x) - gammaln(beta + counts_c))
    )


def test_bayesian_multinomial_equals_direct_lgamma_formula():
    rng = np.random.default_rng(0)
    X = rng.poisson(0.7, size=(30, 12)).astype(float)
    y = rng.integers(0, 3, 30)
    stats = class_stats(X, y, 3, second_moments=False)
    tests = rng.poisson(0.8, size=(6, 12)).astype(float)
    tests[0] = 0.0  # an empty document
    for beta in (0.01, 0.5, 2.0):
        model = BayesianMultinomial(beta=beta)
        for T in (tests, sp.csr_matrix(tests)):
            ours = model.log_likelihood(stats, T)
            for i, x in enumerate(tests):
                for c in range(3):
                    expected = dirichlet_multinomial_direct(stats.sums[c], beta, x)
                    assert ours[i, c] == pytest.approx(expected, rel=1e-12, abs=1e-10)


def test_bayesian_multinomial_equals_monte_carlo_over_posterior_draws():
    # p(x | D) = E_{phi ~ Dir(beta + n_c)} prod_v phi_v^x_v (the word-sequence probability)
    rng = np.random.default_rng(1)
    counts = np.array([[5.0, 1.0, 0.0, 2.0]])
    stats = GroupStats(1, 4, second_moments=False)
    stats.count, stats.sums, stats.total_count, stats.total_sums = (
        np.array([3.0]),
        counts,
        3.0,
        counts[0],
    )
    x = np.array([[2.0, 0.0, 1.0, 1.0]])
    beta = 0.7
    ours = BayesianMultinomial(beta=beta).log_likelihood(stats, x)[0, 0]
    draws = rng.dirichlet(counts[0] + beta, size=400_000)
    monte_carlo = np.log(np.mean(np.prod(draws ** x[0], axis=1)))
    assert ours == pytest.approx(monte_carlo, abs=0.02)


# ---------------------------------------------------------------- Bayesian Gaussian, eq. 22
def normal_gamma_marginal(data, mu, lam, a, b, nodes=800):
    """p(data) = int int prod N(x | m, 1/tau) NG(m, tau | mu, lam, a, b) dm dtau.

    Gauss-Legendre quadrature on a tensor grid (m in mu +- 12, tau in (0, 40)), vectorised:
    independent of the conjugate-update formulas. Checked once against scipy's dblquad.
    """
    t, weights = np.polynomial.legendre.leggauss(nodes)
    m, m_weight = mu + 12 * t, 12 * weights
    tau, tau_weight = 20 * (t + 1), 20 * weights
    M, TAU = np.meshgrid(m, tau, indexing="ij")
    log_density = stats.gamma.logpdf(TAU, a, scale=1 / b) + stats.norm.logpdf(
        M, mu, 1 / np.sqrt(lam * TAU)
    )
    for x in data:
        log_density += stats.norm.logpdf(x, M, 1 / np.sqrt(TAU))
    return np.einsum("i,j,ij->", m_weight, tau_weight, np.exp(log_density))


def test_bayesian_gaussian_equals_numerical_integration():
    # The predictive p(w | D) = p(D + w) / p(D), both marginals integrated numerically over
    # the Normal-Gamma prior: independent of the conjugate-update formulas.
    data = np.array([0.3, 1.1, -0.4])
    mu, lam, a, b = 0.2, 1.5, 2.0, 1.2
    stats_ = GroupStats.from_data(data[:, None], np.ones((3, 1)))
    model = BayesianGaussian(mu=mu, lam=lam, a=a, b=b)
    evidence = normal_gamma_marginal(data, mu, lam, a, b)
    for w in (-1.0, 0.0, 0.5, 2.5):
        expected = np.log(normal_gamma_marginal(np.append(data, w), mu, lam, a, b) / evidence)
        ours = model.log_likelihood(stats_, np.array([[w]]))[0, 0]
        assert ours == pytest.approx(expected, abs=1e-6)


def test_bayesian_gaussian_sparse_equals_dense_and_default_mu_is_the_sample_mean():
    rng = np.random.default_rng(2)
    X = rng.normal(1.0, 1.0, size=(40, 6))
    X[rng.random(X.shape) < 0.5] = 0.0
    y = rng.integers(0, 3, 40)
    stats_ = class_stats(X, y, 3)
    default = BayesianGaussian(a=0.5, b=0.01)
    explicit = BayesianGaussian(mu=X.mean(axis=0), a=0.5, b=0.01)
    dense = default.log_likelihood(stats_, X)
    np.testing.assert_allclose(default.log_likelihood(stats_, sp.csr_matrix(X)), dense, rtol=1e-10)
    np.testing.assert_allclose(explicit.log_likelihood(stats_, X), dense, rtol=1e-12)
    # one feature, one class, against scipy's Student-t with the posterior written out
    l_c, xbar, s2 = stats_.count[0], stats_.mean[0, 0], stats_.var[0, 0]
    mu = X[:, 0].mean()
    lam_d, mu_d, a_d = 1 + l_c, (mu + l_c * xbar) / (1 + l_c), 0.5 + l_c / 2
    b_d = 0.01 + 0.5 * (l_c * s2 + l_c * (xbar - mu) ** 2 / (1 + l_c))
    t = stats.t(df=2 * a_d, loc=mu_d, scale=np.sqrt(b_d * (lam_d + 1) / (a_d * lam_d)))
    one = BayesianGaussian(a=0.5, b=0.01).log_likelihood(stats_.select_features([0]), X[:, :1])
    np.testing.assert_allclose(one[:, 0], t.logpdf(X[:, 0]), rtol=1e-10)


# ---------------------------------------------------------------- Bernoulli, eqs. 6 and 21
@pytest.mark.parametrize("beta", [1e-3, 0.5, 1.0, 3.0])
def test_bayesian_bernoulli_with_a_equal_b_is_classical(beta):
    rng = np.random.default_rng(3)
    X = (rng.random((50, 8)) < 0.3).astype(float)
    y = rng.integers(0, 2, 50)
    stats_ = class_stats(X, y, 2, second_moments=False)
    np.testing.assert_allclose(
        BayesianBernoulli(a=beta, b=beta).log_likelihood(stats_, X),
        Bernoulli(alpha=beta).log_likelihood(stats_, X),
        rtol=1e-13,
    )


def test_bernoulli_counts_absent_features_by_hand():
    # class 0: 2 documents, word 0 in both, word 1 in none; alpha = 1
    X = np.array([[1.0, 0.0], [1.0, 0.0]])
    stats_ = class_stats(X, np.array([0, 0]), 1, second_moments=False)
    p = np.array([(2 + 1) / (2 + 2), (0 + 1) / (2 + 2)])
    x = np.array([[0.0, 1.0]])
    expected = np.log(1 - p[0]) + np.log(p[1])
    assert Bernoulli().log_likelihood(stats_, x)[0, 0] == pytest.approx(expected)
    # a = 2, b = 1 (asymmetric Beta prior)
    p = np.array([(2 + 2) / (2 + 3), (0 + 2) / (2 + 3)])
    expected = np.log(1 - p[0]) + np.log(p[1])
    assert BayesianBernoulli(a=2, b=1).log_likelihood(stats_, x)[0, 0] == pytest.approx(expected)


def test_bernoulli_binarize():
    model = Bernoulli(binarize=0.0)
    X = model.prepare(np.array([[3.0, 0.0]]))
    stats_ = class_stats(X, np.array([0]), 1, second_moments=False)
    np.testing.assert_allclose(
        model.log_likelihood(stats_, np.array([[5.0, 0.0]])),
        model.log_likelihood(stats_, np.array([[1.0, 0.0]])),
    )
    with pytest.raises(ValueError, match="only 0 and 1"):
        Bernoulli(binarize=None).prepare(np.array([[2.0, 0.0]]))
    with pytest.raises(ValueError, match="sparse"):
        Bernoulli(binarize=-1.0).prepare(sp.csr_matrix(np.eye(2)))


# ---------------------------------------------------------------- classical models by hand
def test_multinomial_by_hand():
    # IR-book "Chinese" example: counts per class, Laplace smoothing
    X = np.array([[2.0, 1, 0, 0, 0, 0], [2, 0, 1, 0, 0, 0], [1, 0, 0, 1, 0, 0], [1, 0, 0, 0, 1, 1]])
    y = np.array([0, 0, 0, 1])
    stats_ = class_stats(X, y, 2, second_moments=False)
    x = np.array([[3.0, 0, 0, 0, 1, 1]])  # Chinese x3, Tokyo, Japan
    ll = Multinomial(alpha=1.0).log_likelihood(stats_, x)[0]
    assert ll[0] == pytest.approx(3 * np.log(6 / 14) + 2 * np.log(1 / 14))
    assert ll[1] == pytest.approx(3 * np.log(2 / 9) + 2 * np.log(2 / 9))


def test_gaussian_by_hand_and_sparse_equals_dense():
    X = np.array([[1.0, 0.0], [3.0, 2.0], [0.0, 5.0]])
    y = np.array([0, 0, 1])
    stats_ = class_stats(X, y, 2)
    model = Gaussian(var_smoothing=0.1)
    floor = 0.1 * X.var(axis=0).max()
    ll = model.log_likelihood(stats_, np.array([[2.0, 1.0]]))[0]
    expected = stats.norm.logpdf(2.0, 2.0, np.sqrt(1 + floor)) + stats.norm.logpdf(
        1.0, 1.0, np.sqrt(1 + floor)
    )
    assert ll[0] == pytest.approx(expected)
    Z = np.array([[2.0, 0.0], [0.0, 0.0], [-1.0, 4.0]])
    np.testing.assert_allclose(
        model.log_likelihood(stats_, sp.csr_matrix(Z)), model.log_likelihood(stats_, Z), rtol=1e-12
    )


def test_gaussian_floor_uses_all_rows_seen():
    rng = np.random.default_rng(4)
    wide, narrow = rng.normal(0, 10, (50, 2)), rng.normal(0, 0.1, (50, 2))
    stats_ = class_stats(wide, np.zeros(50, int), 1)
    stats_.update(narrow, np.ones((50, 1)))
    params = Gaussian(var_smoothing=1e-2).estimate(stats_)
    all_rows = np.vstack([wide, narrow])
    np.testing.assert_allclose(
        params.var[0], all_rows.var(0) + 1e-2 * all_rows.var(0).max(), rtol=1e-10
    )


# ---------------------------------------------------------------- shared machinery
def test_complement_statistics_score_the_other_rows():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 4))
    Y = (rng.random((30, 3)) < 0.4).astype(float)
    stats_ = GroupStats.from_data(X, Y)
    model = Gaussian()
    np.testing.assert_allclose(
        model.log_likelihood(stats_.complement(), X),
        model.log_likelihood(GroupStats.from_data(X, 1 - Y), X),
        rtol=1e-9,
    )


@pytest.mark.parametrize("budget", [1, 7, 1 << 22])
def test_entrywise_sum_blocks_and_sparsity_agree(budget):
    rng = np.random.default_rng(6)
    X = rng.random((23, 9))
    X[X < 0.6] = 0.0
    X[5] = 0.0  # an empty row
    A = rng.random((4, 9)) + 0.5

    def func(x, a):
        return np.log1p(a * x)

    expected = np.array([[func(X[i], A[g]).sum() for g in range(4)] for i in range(23)])
    for X_in in (X, sp.csr_matrix(X)):
        np.testing.assert_allclose(
            entrywise_sum(X_in, func, [A], block_budget=budget), expected, rtol=1e-12
        )


@pytest.mark.parametrize("budget", [1, 7, 1 << 22])
def test_entrywise_sum_looks_up_features_of_few_values_and_visits_the_rest(budget):
    """Words and small counts are evaluated once per (feature, value); numeric features
    entry by entry; together they equal the sum written out."""
    from mlnb.events._base import _value_pairs

    rng = np.random.default_rng(7)
    n = 80
    X = np.column_stack(
        [
            rng.integers(0, 2, n),  # 0/1
            rng.poisson(1.5, n),  # small counts
            rng.normal(size=n) * (rng.random(n) < 0.5),  # numeric, about 40 values
            np.zeros(n),  # empty
        ]
    ).astype(float)
    A = rng.random((3, 4)) + 0.5

    def func(x, a):
        return np.log1p(a * np.abs(x))

    few, one_hot, _, _ = _value_pairs(X, 32)
    assert few.tolist() == [True, True, False, True]
    assert one_hot.sum() == np.count_nonzero(X[:, few])
    expected = np.array([[func(X[i], A[g]).sum() for g in range(3)] for i in range(n)])
    for X_in in (X, sp.csr_matrix(X)):
        np.testing.assert_allclose(
            entrywise_sum(X_in, func, [A], block_budget=budget), expected, rtol=1e-12
        )


def test_mixed_is_the_sum_of_its_blocks():
    rng = np.random.default_rng(7)
    X = np.hstack([rng.normal(size=(20, 3)), (rng.random((20, 2)) < 0.5).astype(float)])
    y = rng.integers(0, 2, 20)
    mixed = Mixed(blocks=[(Bernoulli(alpha=0.5), [3, 4]), ("gaussian", slice(0, 3))])
    stats_ = class_stats(mixed.prepare(X), y, 2)
    expected = Gaussian().log_likelihood(class_stats(X[:, :3], y, 2), X[:, :3]) + Bernoulli(
        alpha=0.5
    ).log_likelihood(class_stats(X[:, 3:], y, 2), X[:, 3:])
    np.testing.assert_allclose(mixed.log_likelihood(stats_, X), expected, rtol=1e-12)
    np.testing.assert_allclose(mixed.log_likelihood(stats_, sp.csr_matrix(X)), expected, rtol=1e-10)
    assert mixed.second_moments


def test_mixed_rejects_overlapping_or_missing_columns():
    with pytest.raises(ValueError, match=r"in no block: \[2\]"):
        Mixed(blocks=[("gaussian", [0, 1])]).prepare(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"in several: \[1\]"):
        Mixed(blocks=[("gaussian", [0, 1]), ("bernoulli", [1, 2])]).prepare(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="out of range"):
        Mixed(blocks=[("gaussian", [0, 5])]).prepare(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="at least one"):
        Mixed(blocks=[]).prepare(np.zeros((2, 3)))


def test_names_and_bad_hyper_parameters():
    assert isinstance(make_event_model("bayesian_gaussian"), BayesianGaussian)
    with pytest.raises(ValueError, match="unknown event model 'poisson'"):
        make_event_model("poisson")
    stats_ = class_stats(np.ones((2, 2)), np.array([0, 0]), 1)
    with pytest.raises(ValueError, match="alpha must be finite and non-negative"):
        Multinomial(alpha=-1).estimate(stats_)
    with pytest.raises(ValueError, match="must be > 0"):
        BayesianGaussian(b=0).estimate(stats_)
    with pytest.raises(ValueError, match="Negative values"):
        Multinomial().prepare(np.array([[-1.0]]))


def test_gaussian_dense_is_exact_where_a_class_has_a_constant_feature():
    # class 1 has feature 0 constant at 7, far from the overall mean: the expanded square
    # would cancel about 1e9-sized terms there; the exact sum gives the definition.
    rng = np.random.default_rng(8)
    X = rng.normal(0.0, 3.0, size=(40, 3))
    y = np.repeat([0, 1], 20)
    X[y == 1, 0] = 7.0
    stats_ = class_stats(X, y, 2)
    params = Gaussian().estimate(stats_)
    tests = np.vstack([X[:3], X[-3:], [[7.0, 0.0, 0.0]]])
    ours = Gaussian().log_likelihood(stats_, tests)
    expected = np.array(
        [
            [stats.norm.logpdf(x, params.mean[c], np.sqrt(params.var[c])).sum() for c in (0, 1)]
            for x in tests
        ]
    )
    np.testing.assert_allclose(ours, expected, rtol=1e-12)
    np.testing.assert_allclose(ours[-4:, 1], expected[-4:, 1], atol=1e-9)


@pytest.mark.parametrize(
    "model", [Multinomial(alpha=0.5), Bernoulli(alpha=0.3), Gaussian(), BayesianMultinomial()]
)
def test_log_likelihood_ratio_is_the_difference(model):
    rng = np.random.default_rng(9)
    X = rng.poisson(1.0, size=(30, 6)).astype(float)
    Y = (rng.random((30, 3)) < 0.5).astype(float)
    stats_ = GroupStats.from_data(model.prepare(X), Y, second_moments=model.second_moments)
    a, b = model.estimate(stats_), model.estimate(stats_.complement())
    prepared = model.prepare(sp.csr_matrix(X))
    np.testing.assert_allclose(
        model.score_ratio(a, b, prepared),
        model.score(a, prepared) - model.score(b, prepared),
        rtol=1e-10,
        atol=1e-10,
    )


def stacked_problem(seed, counts):
    """An ensemble-like layout: 3 models' label groups (4 each), then the models' totals."""
    rng = np.random.default_rng(seed)
    n, d, n_labels, n_models = 80, 7, 4, 3
    X = rng.poisson(1.5, size=(n, d)).astype(float) if counts else rng.normal(1.0, 2.0, (n, d))
    Y = (rng.random((n, n_labels)) < 0.4).astype(int)
    membership = (rng.random((n, n_models)) < 0.7).astype(float)
    return X, Y, membership, n_labels, n_models


@pytest.mark.parametrize(
    "model,counts",
    [
        (Multinomial(alpha=0.5), True),
        (Bernoulli(alpha=0.3), True),
        (BayesianMultinomial(beta=0.7), True),
        (Gaussian(), False),
        (BayesianGaussian(), False),
    ],
)
@pytest.mark.parametrize("sparse", [False, True])
def test_stacked_log_odds_equal_each_models_ratio(model, counts, sparse):
    X, Y, membership, n_labels, n_models = stacked_problem(10, counts)
    prepared = model.prepare(sp.csr_matrix(X) if sparse else X)
    stats_ = GroupStats.from_member_labels(
        prepared, Y, membership, second_moments=model.second_moments
    )
    groups = slice(0, n_models * n_labels)
    totals = n_models * n_labels + np.arange(n_models)
    member = np.repeat(np.arange(n_models), n_labels)
    stacked = model.stacked_log_odds(stats_, groups, totals, member, prepared)
    for k in range(n_models):
        alone = stats_.select_groups(slice(k * n_labels, (k + 1) * n_labels), total_group=totals[k])
        a, b = model.estimate(alone), model.estimate(alone.complement())
        expected = model.score_ratio(a, b, prepared)
        np.testing.assert_allclose(
            stacked[:, k * n_labels : (k + 1) * n_labels], expected, rtol=1e-10, atol=1e-10
        )
    # the base class's path (estimates, then one ratio): the same numbers
    generic = EventModel.stacked_log_odds(model, stats_, groups, totals, member, prepared)
    np.testing.assert_allclose(generic, stacked, rtol=1e-10, atol=1e-10)


def test_gaussian_ratio_with_different_shifts_is_the_difference():
    rng = np.random.default_rng(11)
    X = rng.normal(5.0, 2.0, size=(40, 4))
    y = rng.integers(0, 3, 40)
    model = Gaussian()
    a = model.estimate(class_stats(X, y, 3))
    b = model.estimate(class_stats(X[::-1] * 1.5, y, 3))
    b = b.replace(shift=b.shift + 1.0)  # another centre: scored apart
    np.testing.assert_allclose(
        model.score_ratio(a, b, X),
        model.score(a, X) - model.score(b, X),
        rtol=1e-10,
    )
