"""Squared distances of sparse rows and points: the compiled kernel equals scipy's product
bit for bit (sums in the rows' stored order, including unsorted and duplicate entries, and
nan where the reference has nan)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mlnb import _compiled
from mlnb.multilabel._neighbourhood import squared_distances, squared_norms

pytestmark = pytest.mark.skipif(not _compiled.enabled(), reason="numba kernels turned off")


def _sparse(rng, n, d, density, scale, raw):
    """A CSR matrix; ``raw``: built from its arrays, with each row's entries in random
    order and possibly a column twice (not canonical, as a user's matrix may be)."""
    if not raw:
        dense = rng.normal(size=(n, d)) * scale * (rng.random((n, d)) < density)
        return sp.csr_matrix(dense)
    sizes = rng.binomial(d, density, size=n)
    indices = np.concatenate([rng.integers(0, d, size=k) for k in sizes]).astype(np.int32)
    data = rng.normal(size=len(indices)) * scale
    indptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32)
    return sp.csr_matrix((data, indices, indptr), shape=(n, d))


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 30),
    st.integers(1, 40),
    st.integers(1, 20),
    st.sampled_from([0.05, 0.3, 1.0]),
    st.sampled_from([1.0, 1e-3, 1e160]),
    st.booleans(),
)
def test_the_kernel_equals_scipy_products(seed, n, m, d, density, scale, raw):
    rng = np.random.default_rng(seed)
    rows = _sparse(rng, n, d, density, scale, raw)
    points = _sparse(rng, m, d, density, scale, raw and rng.random() < 0.5)
    if scale == 1.0 and rng.random() < 0.5:  # integer grids: exact ties and zeros
        rows.data, points.data = np.round(rows.data), np.round(points.data)
    with _compiled.using(True), np.errstate(all="ignore"):
        fast = squared_distances(rows, points)
    with _compiled.using(False), np.errstate(all="ignore"):  # 1e160: inf - inf
        reference = squared_distances(rows, points, squared_norms(points))
    np.testing.assert_array_equal(fast, reference)  # nan where nan (1e160: overflow)


def test_a_hand_made_case_and_the_dense_path():
    rows = sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0]]))
    points = sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0], [1.0, 1.0, 1.0]]))
    expected = [[0.0, 14.0, 2.0], [5.0, 9.0, 3.0]]
    for compiled in (True, False):
        with _compiled.using(compiled):
            np.testing.assert_array_equal(squared_distances(rows, points), expected)
            np.testing.assert_array_equal(
                squared_distances(rows.toarray(), points.toarray()), expected
            )
