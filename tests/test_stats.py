"""Tests of mlnb.stats.GroupStats: exact small cases, invariants, numerical stability."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mlnb.stats import GroupStats


def reference(X, G, w):
    """Per-group weighted statistics by explicit loops (the definition)."""
    X, G = np.asarray(X, float), np.asarray(G, float)
    count = np.array([(G[:, g] * w).sum() for g in range(G.shape[1])])
    sums = np.array([(G[:, g, None] * w[:, None] * X).sum(0) for g in range(G.shape[1])])
    mean = np.divide(sums, count[:, None], out=np.zeros_like(sums), where=count[:, None] > 0)
    m2 = np.array(
        [(G[:, g, None] * w[:, None] * (X - mean[g]) ** 2).sum(0) for g in range(G.shape[1])]
    )
    total_mean = (w[:, None] * X).sum(0) / w.sum()
    total_m2 = (w[:, None] * (X - total_mean) ** 2).sum(0)
    return count, sums, m2, w.sum(), (w[:, None] * X).sum(0), total_m2


def assert_stats_equal(a, b, rtol=1e-9, atol=1e-9):
    np.testing.assert_allclose(a.count, b.count, rtol=rtol, atol=atol)
    np.testing.assert_allclose(a.sums, b.sums, rtol=rtol, atol=atol)
    np.testing.assert_allclose(a.total_count, b.total_count, rtol=rtol, atol=atol)
    np.testing.assert_allclose(a.total_sums, b.total_sums, rtol=rtol, atol=atol)
    if a.second_moments:
        np.testing.assert_allclose(a.m2, b.m2, rtol=rtol, atol=atol)
        np.testing.assert_allclose(a.total_m2, b.total_m2, rtol=rtol, atol=atol)


def random_problem(seed, n=40, d=5, g=3, multilabel=False, sparse_density=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(3.0, 2.0, size=(n, d))
    if sparse_density is not None:
        X[rng.random((n, d)) > sparse_density] = 0.0
    if multilabel:
        G = (rng.random((n, g)) < 0.4).astype(float)
    else:
        G = np.eye(g)[rng.integers(0, g, n)]
    w = rng.uniform(0.1, 3.0, n)
    return X, G, w


def test_hand_computed_example():
    X = np.array([[1.0, 0.0], [3.0, 4.0], [10.0, 2.0]])
    G = np.array([[1, 0], [1, 1], [0, 1]])  # row 1 belongs to both groups
    w = np.array([1.0, 1.0, 2.0])
    stats = GroupStats(2, 2).update(X, G, w)
    np.testing.assert_allclose(stats.count, [2.0, 3.0])
    np.testing.assert_allclose(stats.sums, [[4.0, 4.0], [23.0, 8.0]])
    np.testing.assert_allclose(stats.mean, [[2.0, 2.0], [23 / 3, 8 / 3]])
    # group 0: values (1, 3) -> m2 = 2 and (0, 4) -> m2 = 8
    np.testing.assert_allclose(stats.m2[0], [2.0, 8.0])
    # group 1: (3 w1, 10 w2) about 23/3
    np.testing.assert_allclose(stats.m2[1, 0], (3 - 23 / 3) ** 2 + 2 * (10 - 23 / 3) ** 2)
    np.testing.assert_allclose(stats.total_count, 4.0)
    np.testing.assert_allclose(stats.total_sums, [24.0, 8.0])


@pytest.mark.parametrize("multilabel", [False, True])
@pytest.mark.parametrize("density", [None, 0.3])
def test_matches_definition(multilabel, density):
    X, G, w = random_problem(0, multilabel=multilabel, sparse_density=density)
    count, sums, m2, total_count, total_sums, total_m2 = reference(X, G, w)
    for X_in in (X, sp.csr_matrix(X)):
        for G_in in (G, sp.csr_matrix(G)):
            stats = GroupStats(G.shape[1], X.shape[1]).update(X_in, G_in, w)
            np.testing.assert_allclose(stats.count, count)
            np.testing.assert_allclose(stats.sums, sums)
            np.testing.assert_allclose(stats.m2, m2, rtol=1e-9, atol=1e-9)
            np.testing.assert_allclose(stats.total_count, total_count)
            np.testing.assert_allclose(stats.total_sums, total_sums)
            np.testing.assert_allclose(stats.total_m2, total_m2, rtol=1e-9, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    cuts=st.lists(st.integers(0, 40), min_size=0, max_size=4),
    multilabel=st.booleans(),
    sparse=st.booleans(),
)
def test_chunked_updates_and_merges_equal_one_pass(seed, cuts, multilabel, sparse):
    X, G, w = random_problem(seed, multilabel=multilabel, sparse_density=0.5 if sparse else None)
    Xs = sp.csr_matrix(X) if sparse else X
    whole = GroupStats(G.shape[1], X.shape[1]).update(Xs, G, w)
    bounds = [0, *sorted(cuts), len(X)]
    chunked = GroupStats(G.shape[1], X.shape[1])
    merged = GroupStats(G.shape[1], X.shape[1])
    for lo, hi in itertools.pairwise(bounds):
        chunked.update(Xs[lo:hi], G[lo:hi], w[lo:hi])
        merged.merge(GroupStats.from_data(Xs[lo:hi], G[lo:hi], w[lo:hi]))
    assert_stats_equal(chunked, whole)
    assert_stats_equal(merged, whole)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), cut=st.integers(1, 39))
def test_subtract_inverts_merge(seed, cut):
    X, G, w = random_problem(seed)
    whole = GroupStats.from_data(X, G, w)
    part = GroupStats.from_data(X[:cut], G[:cut], w[:cut])
    rest = GroupStats.from_data(X[cut:], G[cut:], w[cut:])
    assert_stats_equal(whole.copy().subtract(part), rest, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("sparse", [False, True])
def test_complement_equals_statistics_of_the_other_rows(sparse):
    X, G, w = random_problem(3, multilabel=True, sparse_density=0.5 if sparse else None)
    stats = GroupStats.from_data(sp.csr_matrix(X) if sparse else X, G, w)
    direct = GroupStats.from_data(X, 1.0 - G, w)
    assert_stats_equal(stats.complement(), direct, rtol=1e-8, atol=1e-8)


def test_large_offset_is_stable():
    # mean 1e8, spread 1: raw sums of squares would lose every digit of the variance
    rng = np.random.default_rng(1)
    X = 1e8 + rng.normal(size=(1000, 3))
    y = rng.integers(0, 2, 1000)
    G = np.eye(2)[y]
    stats = GroupStats(2, 3)
    for lo in range(0, 1000, 100):
        stats.update(X[lo : lo + 100], G[lo : lo + 100])
    for g in range(2):
        np.testing.assert_allclose(stats.var[g], X[y == g].var(axis=0), rtol=1e-6)


def test_empty_group_gives_zero_mean_and_variance():
    X = np.array([[1.0], [2.0]])
    stats = GroupStats.from_data(X, np.array([[1, 0], [1, 0]]))
    assert stats.count[1] == 0
    assert stats.mean[1, 0] == 0 and stats.var[1, 0] == 0
    assert np.all(np.isfinite(stats.complement().var))


def test_without_second_moments():
    X, G, w = random_problem(0)
    stats = GroupStats.from_data(X, G, w, second_moments=False)
    assert stats.m2 is None
    np.testing.assert_allclose(stats.sums, reference(X, G, w)[1])
    with pytest.raises(ValueError, match="second moments"):
        stats.var
    with pytest.raises(ValueError, match="no second moments"):
        GroupStats(3, 5).merge(stats)


def test_shape_errors_name_the_problem():
    stats = GroupStats(2, 3)
    with pytest.raises(ValueError, match="G has shape"):
        stats.update(np.zeros((4, 3)), np.zeros((4, 3)))
    with pytest.raises(ValueError, match="X has 2 features; expected 3"):
        stats.update(np.zeros((4, 2)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match="do not match"):
        stats.merge(GroupStats(2, 4))
    with pytest.raises(ValueError, match="more rows than were added"):
        GroupStats(2, 3).subtract(GroupStats.from_data(np.ones((1, 3)), np.ones((1, 2))))


@settings(max_examples=25, deadline=None)
@given(X=arrays(np.float64, (12, 3), elements=st.floats(-1e3, 1e3)))
def test_variance_never_negative(X):
    G = np.eye(3)[np.arange(12) % 3]
    stats = GroupStats(3, 3)
    for lo in range(0, 12, 5):
        stats.update(X[lo : lo + 5], G[lo : lo + 5])
    assert np.all(stats.var >= 0)
    assert np.all(stats.complement().var >= 0)
    np.testing.assert_allclose(stats.var, [X[g::3].var(0) for g in range(3)], atol=1e-6)


def test_add_row_equals_update_and_keeps_derived_totals_current():
    X, G, w = random_problem(4)
    G = np.eye(3)[np.argmax(G, axis=1)]
    expected = GroupStats.from_data(X, G, w)
    online = GroupStats(3, X.shape[1])
    for x, g, weight in zip(X, G, w, strict=True):
        online.group_sums()  # a derived total, read between rows, must not go stale
        online.add_row(x, np.flatnonzero(g), weight)
    assert_stats_equal(online, expected)
    np.testing.assert_allclose(online.group_sums(), expected.sums.sum(axis=1), rtol=1e-12)


def member_labels_problem(seed, n=60, d=6, n_labels=4, n_members=3, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(2.0, 1.5, size=(n, d))
    if sparse:
        X = sp.csr_matrix(np.where(rng.random((n, d)) < 0.4, rng.poisson(2.0, (n, d)), 0.0))
    Y = (rng.random((n, n_labels)) < 0.35).astype(int)
    membership = (rng.random((n, n_members)) < 0.6) * rng.integers(1, 3, (n, n_members))
    return X, Y, membership.astype(float), rng.uniform(0.2, 2.0, n)


def explicit_member_groups(Y, membership):
    """G[:, k*L + l] = M[:, k] Y[:, l], then G[:, K*L + k] = M[:, k] (the definition)."""
    labels = [membership[:, [k]] * Y for k in range(membership.shape[1])]
    return np.hstack([*labels, membership])


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("second_moments", [False, True])
@pytest.mark.parametrize("budget", [None, 8])
def test_member_label_groups_equal_the_explicit_grouping(
    sparse, second_moments, budget, monkeypatch
):
    import mlnb.stats

    if budget is not None:  # blocks of one label at a time; the sparse G for dense X
        monkeypatch.setattr(mlnb.stats, "_MEMBER_BUDGET", budget)
    X, Y, membership, w = member_labels_problem(5, sparse=sparse)
    G = explicit_member_groups(Y, membership)
    expected = GroupStats.from_data(X, G, w, second_moments=second_moments)
    for labels in (Y, sp.csr_matrix(Y)):
        got = GroupStats.from_member_labels(X, labels, membership, w, second_moments=second_moments)
        assert_stats_equal(got, expected, rtol=1e-10, atol=1e-10)


def test_complement_within_is_each_members_complement():
    X, Y, membership, w = member_labels_problem(6)
    n_labels, n_members = Y.shape[1], membership.shape[1]
    stats = GroupStats.from_member_labels(X, Y, membership, w)
    groups = slice(n_labels, 3 * n_labels)  # the labels of members 1 and 2
    totals = np.repeat(n_members * n_labels + np.array([1, 2]), n_labels)
    rest = stats.complement_within(groups, totals)
    for member in (1, 2):
        own = slice(member * n_labels, (member + 1) * n_labels)
        alone = stats.select_groups(own, total_group=n_members * n_labels + member)
        part = slice((member - 1) * n_labels, member * n_labels)
        expected = alone.complement()
        np.testing.assert_allclose(rest.count[part], expected.count, rtol=1e-12)
        np.testing.assert_allclose(rest.sums[part], expected.sums, rtol=1e-12)
        np.testing.assert_allclose(rest.m2[part], expected.m2, rtol=1e-12, atol=1e-12)
    # the same with the groups as indices
    indices = stats.complement_within(np.arange(n_labels, 3 * n_labels), totals)
    np.testing.assert_array_equal(indices.sums, rest.sums)


def test_select_groups_without_copy_shares_a_slice():
    X, G, w = random_problem(7, g=4)
    stats = GroupStats.from_data(X, G, w)
    view = stats.select_groups(slice(1, 3), copy=False)
    copy = stats.select_groups(slice(1, 3))
    assert np.shares_memory(view.sums, stats.sums) and not np.shares_memory(copy.sums, stats.sums)
    assert_stats_equal(view, copy, rtol=0, atol=0)
    assert view.n_groups == 2


@pytest.mark.parametrize("missing", [False, True])
def test_add_features_equals_statistics_of_zero_columns(missing):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 4))
    if missing:
        X[rng.random(X.shape) < 0.2] = np.nan
    G = (rng.random((30, 3)) < 0.5).astype(float)
    grown = GroupStats.from_data(X, G).add_features(2)
    expected = GroupStats.from_data(np.hstack([X, np.zeros((30, 2))]), G)
    assert grown.has_missing == expected.has_missing == missing
    for name in ("count", "sums", "m2", "total_sums", "total_m2", "observed", "total_observed"):
        a, b = getattr(grown, name), getattr(expected, name)
        if b is None:
            assert a is None
        else:
            np.testing.assert_allclose(a, b, atol=1e-12)
    assert grown.total_count == expected.total_count
