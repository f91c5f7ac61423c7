"""DiscretisedGaussian: Weka's NormalEstimator as an event model.

Weka's NaiveBayes, with this estimator, is the Naive Bayes of the dynamic-chains paper
(Trajdos and Kurzynski).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import norm

from mlnb.events.discretised import DiscretisedGaussian, weka_precision
from mlnb.stats import GroupStats


def weka_probability(x, values, precision):
    """Weka's NormalEstimator, written out: rounded values, std floor p/6, interval mass."""
    rounded = np.round(np.asarray(values) / precision) * precision
    mean = rounded.mean()
    std = np.sqrt(np.abs((rounded**2).sum() - mean * rounded.sum()) / len(rounded))
    std = max(std, precision / 6) if std > 1e-10 else precision / 6
    x = np.round(x / precision) * precision
    return norm.cdf((x - mean + precision / 2) / std) - norm.cdf((x - mean - precision / 2) / std)


def test_log_likelihood_equals_weka_estimator_written_out():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 2, 40), rng.normal(3, 2, 40), np.full(40, 5.0)])
    groups = np.eye(2)[rng.integers(0, 2, 40)]
    precision = weka_precision(X)
    model = DiscretisedGaussian(precision=precision)
    prepared = model.prepare(X)
    stats = GroupStats.from_data(prepared, groups)
    got = model.log_likelihood(stats, X[:7])
    for i in range(7):
        for g in range(2):
            members = groups[:, g] == 1
            expected = sum(
                np.log(weka_probability(X[i, v], X[members, v], precision[v])) for v in range(3)
            )
            np.testing.assert_allclose(got[i, g], expected, rtol=1e-9)


def test_weka_precision_is_the_mean_gap_of_distinct_values():
    X = np.array([[0.0, 1.0, 7.0], [1.0, 1.0, 7.0], [1.0, 4.0, 7.0], [0.0, 2.5, 7.0]])
    np.testing.assert_allclose(weka_precision(X), [1.0, 1.5, 0.01])
    np.testing.assert_allclose(weka_precision(sp.csr_matrix(X)), [1.0, 1.5, 0.01])
    sparse = sp.csr_matrix(np.array([[0.0, 3.0], [2.0, 0.0], [0.0, 0.0]]))
    np.testing.assert_allclose(weka_precision(sparse), [2.0, 3.0])


def test_probabilities_over_the_grid_sum_to_one_and_sparse_equals_dense():
    rng = np.random.default_rng(1)
    X = np.maximum(np.round(rng.normal(0, 3, (60, 4))), 0)
    groups = np.eye(3)[rng.integers(0, 3, 60)]
    model = DiscretisedGaussian(precision=1.0)
    stats = GroupStats.from_data(model.prepare(X), groups)
    # one feature: the interval masses of the grid points form a distribution
    single = GroupStats.from_data(model.prepare(X[:, :1]), groups)
    grid = np.arange(-100.0, 101.0)[:, None]
    np.testing.assert_allclose(np.exp(model.log_likelihood(single, grid)).sum(axis=0), 1.0)
    dense = model.log_likelihood(stats, X)
    np.testing.assert_allclose(model.log_likelihood(stats, sp.csr_matrix(X)), dense, rtol=1e-10)


def test_far_tails_stay_finite_and_bad_precision_is_refused():
    stats = GroupStats.from_data(np.zeros((5, 1)), np.ones((5, 1)))
    model = DiscretisedGaussian(precision=1.0)
    value = model.log_likelihood(stats, np.array([[60.0], [-60.0]]))
    assert np.all(np.isfinite(value)) and np.all(value < -1e3)
    with pytest.raises(ValueError, match="precision"):
        DiscretisedGaussian(precision=0.0).prepare(np.zeros((2, 1)))
    with pytest.raises(ValueError, match="precision"):
        DiscretisedGaussian(precision=[1.0, 2.0]).prepare(np.zeros((2, 1)))


@pytest.mark.parametrize("sparse", [False, True])
def test_features_of_few_values_by_lookup_equal_every_entry(sparse):
    """Features of few distinct values go through one lookup product, the rest entry by
    entry: the result equals visiting every entry."""
    from mlnb.events._base import _BLOCK_BUDGET, _value_pairs, _visit_entries
    from mlnb.events.discretised import _correction

    rng = np.random.default_rng(3)
    n = 90  # more than 2 x 32 rows: the first rows rule out the numeric feature
    X = np.column_stack(
        [
            rng.integers(0, 2, n),  # 0/1 word
            -2.5 * rng.integers(0, 2, n),  # one negative nonzero value
            np.zeros(n),  # never nonzero
            rng.normal(1, 2, n),  # numeric: 60 values, entry by entry
            rng.poisson(1.0, n),  # counts: a few values
        ]
    ).astype(float)
    groups = np.eye(3)[rng.integers(0, 3, n)]
    model = DiscretisedGaussian(precision=weka_precision(X))
    prepared = model.prepare(X)
    params = model.estimate(GroupStats.from_data(prepared, groups))
    data = sp.csr_matrix(prepared) if sparse else prepared
    few, one_hot, features, values = _value_pairs(data, 32)
    assert few.tolist() == [True, True, True, False, True]
    assert one_hot.sum() == (prepared[:, few] != 0).sum()
    for column in np.flatnonzero(few):  # one pair per distinct nonzero value
        distinct = np.unique(prepared[:, column][prepared[:, column] != 0])
        np.testing.assert_array_equal(np.sort(values[features == column]), distinct)
    terms = [params.mean, params.std, params.precision, params.zero]
    every_entry = _visit_entries(prepared, _correction, terms, _BLOCK_BUDGET)
    expected = params.zero.sum(axis=1)[None, :] + every_entry
    np.testing.assert_allclose(model.score(params, data), expected, rtol=1e-12)
