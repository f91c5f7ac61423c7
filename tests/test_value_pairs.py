"""The (feature, value) pairs of 0/1 sparse rows by the short way equal those found by
sorting every entry: the same features, values and indicator, array for array."""

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mlnb.events._base import _binary_pairs, _counted_pairs, _value_pairs


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(1, 25), st.floats(0.0, 1.0))
def test_binary_pairs_equal_the_counted_pairs(seed, n, d, density):
    rng = np.random.default_rng(seed)
    X = sp.csr_matrix((rng.random((n, d)) < density).astype(float))
    short = _binary_pairs(X)
    counted = _counted_pairs(X, 32)
    if X.nnz == 0:
        assert short is None
        return
    few, one_hot, feature, value = short
    np.testing.assert_array_equal(few, counted[0])
    np.testing.assert_array_equal(feature, counted[2])
    np.testing.assert_array_equal(value, counted[3])
    for name in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(one_hot, name), getattr(counted[1], name))
    assert one_hot.shape == counted[1].shape


def test_other_values_take_the_counted_way():
    X = sp.csr_matrix(np.array([[1.0, 2.0], [0.0, 1.0]]))
    assert _binary_pairs(X) is None
    with_duplicate = sp.csr_matrix(([1.0, 1.0], [0, 0], [0, 2, 2]), shape=(2, 2))
    assert _binary_pairs(with_duplicate) is None  # two entries of one cell: not canonical
    assert _value_pairs(with_duplicate, 32)[1].nnz == 2  # the counted way keeps both
