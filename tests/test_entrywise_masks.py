"""``entrywise_sums`` with masks equals the masked function evaluated everywhere, bit for
bit: the Dirichlet-multinomial's word terms of silenced words (Xu 2018, eq. 20) are 0."""

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import gammaln

from mlnb.events._base import entrywise_sums


def _term(x, smoothed, log_gamma):
    return gammaln(smoothed + x) - log_gamma


def _masked_term(x, smoothed, log_gamma, words):
    return words * (gammaln(smoothed + x) - log_gamma)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 25),
    st.integers(1, 30),
    st.integers(1, 6),
    st.sampled_from([2, 5, 60]),  # distinct values: over 32 visits the entries instead
    st.floats(0.0, 1.0),
    st.sampled_from([1 << 22, 7]),  # a tiny budget: several blocks of pairs
)
def test_masked_sums_equal_the_masked_function(seed, n, d, groups, values, share, budget):
    rng = np.random.default_rng(seed)
    if values == 60:
        n = 4 * n + 40  # rows enough for more than 32 distinct values in a feature
    dense = rng.integers(1, values + 1, size=(n, d)) * (rng.random((n, d)) < 0.4)
    X = sp.csr_matrix(dense.astype(float))
    sides = []
    for _ in range(2):
        smoothed = rng.uniform(0.01, 5.0, size=(groups, d))  # small: negative terms, -0
        words = (rng.random((groups, d)) < share).astype(float)
        sides.append((smoothed, gammaln(smoothed), words))
    fast = entrywise_sums(
        X, _term, [side[:2] for side in sides], masks=[side[2] for side in sides],
        block_budget=budget,
    )  # fmt: skip
    reference = entrywise_sums(X, _masked_term, sides, block_budget=budget)
    for got, expected in zip(fast, reference, strict=True):
        np.testing.assert_array_equal(got.view(np.int64), expected.view(np.int64))  # bits


def test_features_of_many_values_take_the_visiting_way():
    """The case above with 60 values reaches the entry-visiting path (and its masks)."""
    from mlnb.events import _base

    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.integers(1, 61, size=(120, 3)) * 1.0)
    few = _base._value_pairs(X, _base._MAX_LOOKUP_VALUES)[0]
    assert not few.any()
    smoothed = rng.uniform(0.01, 5.0, size=(2, 3))
    words = np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    fast = entrywise_sums(X, _term, [[smoothed, gammaln(smoothed)]], masks=[words])[0]
    reference = entrywise_sums(X, _masked_term, [[smoothed, gammaln(smoothed), words]])[0]
    np.testing.assert_array_equal(fast.view(np.int64), reference.view(np.int64))
