"""The hand-written scoring kernels of the event models against references written out.

Each model's ``score`` (its per-entry kernel, applied by
:func:`~mlnb.events._base.entrywise_sum` through lookups of repeated values and blocks of
entries) is compared with a reference evaluated entry by entry, group by group, from
scipy's distributions or direct ``gammaln``: on small dense and sparse inputs with
repeated values, zeros and values many standard deviations from every mean.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import gammaln
from scipy.stats import norm
from scipy.stats import t as student_t

from mlnb.events import BayesianBernoulli, BayesianGaussian, BayesianMultinomial
from mlnb.events.discretised import DiscretisedGaussian, _log_interval, weka_precision
from mlnb.stats import GroupStats


def reference_log_interval(x, mean, std, precision):
    """``log(Phi(upper) - Phi(lower))`` of one entry, from scipy.stats.norm: the cdf
    where both bounds are below the mean, the survival function where both are above,
    and the plain difference of cdfs across the mean."""
    lower = (x - mean - precision / 2) / std
    upper = (x - mean + precision / 2) / std
    if lower > 0:
        a, b = norm.logsf(lower), norm.logsf(upper)
    elif upper < 0:
        a, b = norm.logcdf(upper), norm.logcdf(lower)
    else:
        return np.log(norm.cdf(upper) - norm.cdf(lower))
    return a + np.log1p(-np.exp(b - a))


def reference_scores(X, func, n_groups):
    """``out[i, g] = sum_v func(X[i, v], g, v)``, every entry, zeros included."""
    n_samples, n_features = X.shape
    return np.array(
        [
            [sum(func(X[i, v], g, v) for v in range(n_features)) for g in range(n_groups)]
            for i in range(n_samples)
        ]
    )


def data(seed, n=70, shift=0.0):
    """Rows with repeated values (0/1, small counts, a few levels), zeros, a numeric
    feature, a constant one, and (with ``shift``) values far outside every class."""
    rng = np.random.default_rng(seed)
    X = np.column_stack(
        [
            rng.integers(0, 2, n),
            rng.poisson(1.2, n),
            rng.choice([0.0, 0.5, 3.0], n),
            rng.normal(2, 1.5, n) * (rng.random(n) < 0.7),
            np.full(n, 4.0),
        ]
    ).astype(float)
    groups = np.eye(3)[rng.integers(0, 3, n)]
    groups[0] = 1  # overlapping groups
    scored = X.copy()
    if shift:
        scored[::3] += shift  # far tails: many standard deviations from every mean
        scored[1::3] -= shift
    return X, groups, scored


def as_input(X, sparse):
    return sp.csr_matrix(X) if sparse else X


@pytest.mark.parametrize(
    "lower, upper",
    [(-45.0, -44.0), (-21.0, -19.5), (-19.999, -19.99), (-3.0, 2.0), (1e-9, 6.0), (40.0, 45.0)],
)
def test_log_interval_of_single_intervals(lower, upper):
    """Deep and shallow tails on both sides, narrow intervals, the centre."""
    precision, std = upper - lower, 1.0
    x = (lower + upper) / 2
    got = _log_interval(np.array([x]), np.array([0.0]), np.array([std]), np.array([precision]))
    expected = reference_log_interval(x, 0.0, std, precision)
    assert np.isfinite(expected)
    np.testing.assert_allclose(got[0], expected, rtol=1e-12)


def test_log_interval_on_a_grid_of_bounds():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(0, 15, 400), np.linspace(-60, 60, 121)])
    mean = rng.normal(0, 1, x.size)
    std = np.exp(rng.normal(0, 1, x.size))
    precision = std * np.exp(rng.uniform(-6, 1.7, x.size))  # p / std from 0.0025 to 5.5
    got = _log_interval(x, mean, std, precision)
    entries = zip(x, mean, std, precision, strict=True)
    expected = np.array([reference_log_interval(*entry) for entry in entries])
    assert np.all(np.isfinite(expected))
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("shift", [0.0, 40.0])
@pytest.mark.parametrize("constant", [False, True])
def test_discretised_gaussian_scores_every_entry_as_written_out(sparse, shift, constant):
    """To 1e-12; with a constant feature (std p / 6, 0 at 2400 deviations: a term of
    -2.9e6 at zero, which the score adds and its stored entries take away, as the model
    is written) to the rounding of that cancellation."""
    X, groups, scored = data(2, shift=shift)
    if not constant:
        X, scored = X[:, :-1], scored[:, :-1]
    model = DiscretisedGaussian(precision=weka_precision(X))
    params = model.estimate(GroupStats.from_data(model.prepare(X), groups))
    prepared = model.prepare(scored)
    expected = reference_scores(
        prepared,
        lambda x, g, v: reference_log_interval(
            x, params.mean[g, v], params.std[g, v], params.precision[g, v]
        ),
        groups.shape[1],
    )
    assert np.all(np.isfinite(expected))
    got = model.score(params, as_input(prepared, sparse))
    cancelled = np.abs(params.zero).sum(axis=1).max() if constant else 0.0
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15 * cancelled)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("beta", [1.0, 1e-3])
def test_bayesian_multinomial_scores_every_entry_as_written_out(sparse, beta):
    X, groups, _ = data(3)
    X = np.abs(X)  # counts or weights: the numeric feature as real weights
    model = BayesianMultinomial(beta=beta)
    stats = GroupStats.from_data(X, groups)
    params = model.estimate(stats)
    n_groups, n_features = groups.shape[1], X.shape[1]
    sums = stats.sums
    total = sums.sum(axis=1) + n_features * beta
    expected = np.empty((X.shape[0], n_groups))
    for i, row in enumerate(X):
        for g in range(n_groups):
            expected[i, g] = (
                gammaln(total[g])
                - gammaln(total[g] + row.sum())
                + sum(
                    gammaln(beta + sums[g, v] + row[v]) - gammaln(beta + sums[g, v])
                    for v in range(n_features)
                    if row[v] > 0
                )
            )
    got = model.score(params, as_input(X, sparse))
    scale = np.abs(expected).max()
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-13 * scale)


@pytest.mark.parametrize("sparse", [False, True])
def test_bayesian_multinomial_ratio_is_the_difference_of_scores(sparse):
    """One pass over both sides equals scoring each side (with and without silenced
    words), bit for bit on these small inputs."""
    X, groups, _ = data(4)
    X = np.abs(X)
    model = BayesianMultinomial()
    positive = model.estimate(GroupStats.from_data(X, groups))
    negative = model.estimate(GroupStats.from_data(X, 1 - groups))
    mask = np.random.default_rng(4).random(positive.smoothed.shape) < 0.6
    X_in = as_input(X, sparse)
    for a, b in [(positive, negative), model.silence(positive, negative, mask)]:
        np.testing.assert_array_equal(
            model.score_ratio(a, b, X_in), model.score(a, X_in) - model.score(b, X_in)
        )


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("shift", [0.0, 40.0])
def test_bayesian_gaussian_is_the_student_t_predictive(sparse, shift):
    """The posterior predictive is Student's t with 2 a_D degrees of freedom, location
    mu_D and squared scale b_D (lam_D + 1) / (a_D lam_D) (scipy.stats.t)."""
    X, groups, scored = data(5, shift=shift)
    model = BayesianGaussian(a=0.5, b=0.25)
    params = model.estimate(GroupStats.from_data(X, groups))
    a_post = params.exponent - 0.5
    # scale = lam_D / (2 (lam_D + 1)): sigma^2 = b_D / (2 a_D scale)
    sigma = np.sqrt(params.rate / (2 * a_post * params.scale))
    expected = reference_scores(
        scored,
        lambda x, g, v: student_t.logpdf(
            x, df=2 * a_post[g, v], loc=params.mean[g, v], scale=sigma[g, v]
        ),
        groups.shape[1],
    )
    got = model.score(params, as_input(scored, sparse))
    scale = np.abs(expected).max()
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-13 * scale)


@pytest.mark.parametrize("sparse", [False, True])
def test_bayesian_bernoulli_scores_as_written_out(sparse):
    X, groups, _ = data(6)
    model = BayesianBernoulli(a=0.3, b=2.0)
    binary = (X > 0).astype(float)
    params = model.estimate(GroupStats.from_data(binary, groups))
    present = (binary.T @ groups).T  # rows of each group holding each feature
    count = groups.sum(axis=0)[:, None]
    p = (present + 0.3) / (count + 2.3)
    expected = reference_scores(
        binary,
        lambda x, g, v: np.log(p[g, v]) if x else np.log(1 - p[g, v]),
        groups.shape[1],
    )
    got = model.score(params, model.prepare(as_input(X, sparse)))
    np.testing.assert_allclose(got, expected, rtol=1e-12)
