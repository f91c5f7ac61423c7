"""The compiled kNN chain step equals its numpy reference bit for bit.

Inputs on a small integer grid make distances tie often, so the rule "ties to the lowest
index" is exercised; per-label views (kept points, selected features), candidate pruning on
and off, dense and sparse rows, one or several order sets, R from 1 to 9.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mlnb import _compiled
from mlnb.multilabel import _knn_members
from mlnb.multilabel._knn_members import _chain_steps, _chain_steps_kernel, knn_chain_labels

pytestmark = pytest.mark.skipif(not _compiled.enabled(), reason="numba kernels turned off")


@st.composite
def chain_problems(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    m, n, d, L = (
        draw(st.integers(1, 40)),
        draw(st.integers(1, 25)),
        draw(st.integers(1, 6)),
        draw(st.integers(1, 6)),
    )
    points = rng.integers(0, 3, size=(m, d)).astype(float)
    X = rng.integers(0, 3, size=(n, d)).astype(float)
    points_Y = (rng.random((m, L)) < 0.4).astype(int)
    keep = rng.random((m, L)) < 0.7 if draw(st.booleans()) else None
    masks = rng.random((L, d)) < 0.6 if draw(st.booleans()) else None
    n_sets = draw(st.integers(1, 3))
    orders = np.stack([np.stack([rng.permutation(L) for _ in range(n)]) for _ in range(n_sets)])
    return {
        "X": X,
        "points": points,
        "points_Y": points_Y,
        "R": draw(st.sampled_from([1, 2, 3, 5, 9])),
        "orders": orders,
        "keep": keep,
        "masks": masks,
        "extend": draw(st.booleans()),
        "sparse": draw(st.booleans()),
        "prune": draw(st.booleans()),
        "block": draw(st.sampled_from([3, 7, None])),
    }


@settings(max_examples=150, deadline=None)
@given(chain_problems())
def test_compiled_chain_step_equals_the_numpy_reference(problem):
    X, points = problem["X"], problem["points"]
    if problem["sparse"]:
        X, points = sp.csr_matrix(X), sp.csr_matrix(points)
    share = _knn_members.MAX_CANDIDATE_SHARE
    _knn_members.MAX_CANDIDATE_SHARE = 1.0 if problem["prune"] else 0.0
    try:
        outputs = []
        for compiled in (False, True):
            with _compiled.using(compiled):
                outputs.append(
                    knn_chain_labels(
                        X,
                        points,
                        problem["points_Y"],
                        problem["R"],
                        problem["orders"],
                        keep=problem["keep"],
                        masks=problem["masks"],
                        extend=problem["extend"],
                        shares=True,
                        block=problem["block"],
                    )
                )
    finally:
        _knn_members.MAX_CANDIDATE_SHARE = share
    (labels, shares), (compiled_labels, compiled_shares) = outputs
    np.testing.assert_array_equal(compiled_labels, labels)
    np.testing.assert_array_equal(compiled_shares, shares)


def test_the_step_functions_agree_on_ties_and_unallowed_points():
    """A hand-made block: every distance tied, some points at infinity (not allowed), and
    a row whose valid points are fewer than R."""
    base = np.array([[[1.0, 1.0, 1.0, np.inf], [np.inf, np.inf, 2.0, np.inf]]])
    label_values = np.array([[True, False, True, True], [False, True, True, False]])
    orders = np.array([[0, 1], [1, 0]])
    local = np.array([0, 1])
    none = np.empty((0, 0), dtype=np.intp)
    views = np.zeros(2, dtype=int)
    expected = _chain_steps(base, views, local, orders, none, label_values, 2, True)
    got = _chain_steps_kernel(base, views, local, orders, none, label_values, 2, True)
    # row 0, label 0: the two lowest-index ties (points 0, 1) vote 1, 0: no majority
    assert expected[0][0, 0] == 0 and expected[1][0, 0] == 0.5
    # row 1: only point 2 is finite: it alone votes, on both labels
    np.testing.assert_array_equal(expected[0][1], [1, 1])
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_array_equal(g, e)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_compiled_sparse_distances_equal_scipys_bit_for_bit(seed, masked, kept):
    """Real-valued sparse rows and points (rounding depends on the order of the sums):
    every view's base distances as the reference computes them with scipy, exactly."""
    rng = np.random.default_rng(seed)
    m, n, d, L = rng.integers(1, 30), rng.integers(1, 20), rng.integers(1, 40), rng.integers(1, 5)
    density = rng.uniform(0.05, 0.9)
    points = sp.random(m, d, density=density, format="csr", random_state=rng) * 3.7
    X = sp.random(n, d, density=density, format="csr", random_state=rng) * 1.3
    keep = rng.random((m, L)) < 0.7 if kept else None
    masks = rng.random((L, d)) < 0.5 if masked else None
    _, views = _knn_members._views(points, L, keep, masks)
    view_points, view_rows = (
        _knn_members._restricted(points, views),
        _knn_members._restricted(X, views),
    )
    norms = [_knn_members.squared_norms(v) for v in view_points]
    row_norms = [_knn_members.squared_norms(v) for v in view_rows]
    compiled = _knn_members._SparseViews(X, points, views, row_norms, norms)
    start = int(rng.integers(0, n))
    stop = int(rng.integers(start + 1, n + 1))
    expected = _knn_members._base_distances(view_rows, view_points, views, norms, start, stop)
    np.testing.assert_array_equal(compiled.base_distances(start, stop), expected)


@pytest.mark.parametrize("n_labels", [63, 64, 65, 130])
def test_many_labels(n_labels):
    """Label counts around and above 64 (the step's label terms of many labels)."""
    rng = np.random.default_rng(n_labels)
    m, n, d = 40, 12, 3
    points = rng.integers(0, 3, size=(m, d)).astype(float)
    X = rng.integers(0, 3, size=(n, d)).astype(float)
    points_Y = (rng.random((m, n_labels)) < 0.5).astype(int)
    orders = np.stack([rng.permutation(n_labels) for _ in range(n)])
    outputs = []
    for compiled in (False, True):
        with _compiled.using(compiled):
            outputs.append(knn_chain_labels(X, points, points_Y, 3, orders, shares=True))
    for expected, got in zip(*outputs, strict=True):
        np.testing.assert_array_equal(got, expected)


def _tiny_problem(scale, dtype):
    rng = np.random.default_rng(7)
    m, n, d, L = 30, 10, 6, 3
    points = sp.csr_matrix(rng.integers(0, 3, size=(m, d)) * scale).astype(dtype)
    X = sp.csr_matrix(rng.integers(0, 3, size=(n, d)) * scale).astype(dtype)
    points_Y = (rng.random((m, L)) < 0.4).astype(int)
    orders = np.stack([rng.permutation(L) for _ in range(n)])
    return X, points, points_Y, orders


@pytest.mark.parametrize("scale", [1.0, 1e-30])
def test_single_precision_rows_take_the_reference_path(scale):
    """float32 rows and points (summed in float32 by scipy): the numpy path's labels."""
    X, points, points_Y, orders = _tiny_problem(scale, np.float32)
    outputs = []
    for compiled in (False, True):
        with _compiled.using(compiled):
            outputs.append(
                knn_chain_labels(X, points, points_Y, 3, orders, extend=True, shares=True)
            )
    (labels, shares), (compiled_labels, compiled_shares) = outputs
    np.testing.assert_array_equal(compiled_labels, labels)
    np.testing.assert_array_equal(compiled_shares, shares)


@pytest.mark.parametrize("sparse", [True, False])
def test_overflowing_distances_are_a_clear_error(sparse):
    X, points, points_Y, orders = _tiny_problem(1e160, np.float64)
    if not sparse:
        X, points = X.toarray(), points.toarray()
    for compiled in (False, True):
        with _compiled.using(compiled), pytest.raises(ValueError, match="overflow"):
            knn_chain_labels(X, points, points_Y, 3, orders, extend=True)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.sampled_from([1.0, 1e-170]))
def test_view_norms_equal_the_restricted_matrices_norms(seed, masked, scale):
    """Per-view squared norms without the restricted matrices: equal bit for bit to
    ``squared_norms(matrix[:, columns])`` (rows of up to 300 entries: numpy's pairwise
    sums; values near 1e-170 square to 0 and drop out, as in scipy's product)."""
    rng = np.random.default_rng(seed)
    n, d, L = rng.integers(1, 12), rng.integers(1, 400), rng.integers(1, 5)
    matrix = sp.random(n, d, density=rng.uniform(0.01, 0.9), format="csr", random_state=rng)
    matrix.data = matrix.data * scale * rng.choice([1.0, 1e10], size=matrix.nnz)
    matrix.data[rng.random(matrix.nnz) < 0.05] = 0.0  # explicit zeros stay stored
    masks = rng.random((L, d)) < 0.5 if masked else None
    _, views = _knn_members._views(matrix, L, None, masks)
    expected = [_knn_members.squared_norms(v) for v in _knn_members._restricted(matrix, views)]
    got = _knn_members._view_norms(matrix, views)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g.view(np.int64), e.view(np.int64))


@st.composite
def sparse_chain_problems(draw):
    """Sparse real-valued rows and points, at scales where adding a label term (1, 2, ...)
    to a base distance rounds distinct distances to ties (1e-9: every base distance is below
    one ulp of 1), with repeated points and few label vectors (classes of many points)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    m, n, d, L = (
        draw(st.integers(1, 60)),
        draw(st.integers(1, 12)),
        draw(st.integers(1, 30)),
        draw(st.integers(1, 5)),
    )
    scale = draw(st.sampled_from([1.0, 1e-9, 1e-7, 1e3]))
    density = rng.uniform(0.02, 0.5)
    points = sp.random(m, d, density=density, format="csr", random_state=rng) * scale
    points = points[rng.integers(0, m, size=m)] if draw(st.booleans()) else points  # repeats
    X = sp.random(n, d, density=density, format="csr", random_state=rng) * scale
    vectors = (rng.random((draw(st.integers(1, 4)), L)) < 0.5).astype(int)
    points_Y = vectors[rng.integers(0, len(vectors), size=m)]
    keep = rng.random((m, L)) < 0.7 if draw(st.booleans()) else None
    share = draw(st.sampled_from([0.05, 0.3, 0.8]))
    masks = rng.random((L, d)) < share if draw(st.booleans()) else None
    orders = np.stack([np.stack([rng.permutation(L) for _ in range(n)]) for _ in range(2)])
    R = draw(st.sampled_from([1, 2, 3, 5, 9]))
    return X, points, points_Y, R, orders, keep, masks, draw(st.booleans())


@settings(max_examples=200, deadline=None)
@given(sparse_chain_problems())
def test_candidates_by_label_vector_give_the_reference_labels(problem):
    """The sparse path (candidate points by label vector) against the numpy reference."""
    X, points, points_Y, R, orders, keep, masks, extend = problem
    outputs = []
    for compiled in (False, True):
        with _compiled.using(compiled):
            outputs.append(
                knn_chain_labels(
                    X,
                    points,
                    points_Y,
                    R,
                    orders,
                    keep=keep,
                    masks=masks,
                    extend=extend,
                    shares=True,
                    block=5,
                )
            )
    (labels, shares), (compiled_labels, compiled_shares) = outputs
    np.testing.assert_array_equal(compiled_labels, labels)
    np.testing.assert_array_equal(compiled_shares, shares)


def test_rounding_ties_are_kept_as_candidates():
    """Base distances 1e-18 apart tie once a label term of 1 is added, so at the second
    step the tie between classes goes to the lowest index: point 1, of class A, although
    point 3 is A's nearest by base distance and point 2 (class B) comes before point 3."""
    points = sp.csr_matrix(np.array([[1e-9], [2e-9], [1.5e-9], [1e-9]]))
    X = sp.csr_matrix(np.array([[1e-9]]))
    # point 0: class C = (1, 0), the nearest at step 1, kept for label 0 alone;
    # points 1 and 3: class A = (0, 1); point 2: class B = (0, 0)
    points_Y = np.array([[1, 0], [0, 1], [0, 0], [0, 1]])
    keep = np.array([[True, False], [True, True], [True, True], [True, True]])
    orders = np.array([[0, 1]])
    outputs = []
    for compiled in (False, True):
        with _compiled.using(compiled):
            outputs.append(knn_chain_labels(X, points, points_Y, 1, orders, keep=keep))
    np.testing.assert_array_equal(outputs[0], [[1, 1]])  # step 2 follows point 1
    np.testing.assert_array_equal(outputs[1], outputs[0])


def test_an_untouched_point_with_a_feature_can_tie_with_points_without_one():
    """R = 2; point 1 has a feature the row lacks, so small that its distance equals the
    featureless points' (1 + 1e-18 rounds to 1): the two nearest are points 0 and 1 (class
    A), not 0 and 2 (class B), although point 0, a featureless point of A, comes first."""
    points = sp.csr_matrix(np.array([[0.0, 0.0], [0.0, 1e-9], [0.0, 0.0], [0.0, 0.0]]))
    X = sp.csr_matrix(np.array([[1.0, 0.0]]))
    points_Y = np.array([[1], [1], [0], [1]])  # classes A, A, B, A
    outputs = []
    for compiled in (False, True):
        with _compiled.using(compiled):
            outputs.append(knn_chain_labels(X, points, points_Y, 2, np.array([[0]]), shares=True))
    (labels, shares), (compiled_labels, compiled_shares) = outputs
    np.testing.assert_array_equal(shares, [[1.0]])
    np.testing.assert_array_equal(compiled_labels, labels)
    np.testing.assert_array_equal(compiled_shares, shares)


def test_a_scanned_point_close_behind_points_without_a_feature_is_kept():
    """Point 1 (class A) has a feature the row lacks: its distance 1e-6 + 1e-18 is behind
    the featureless points' 1e-6 at step 1, but adding the label term 1 rounds both to the
    same value, so at step 2 point 1 wins the tie by index over point 2 (class B) and point
    3 (class A, featureless). Point 0 (class C, kept for label 0 alone) decides step 1."""
    points = sp.csr_matrix(np.array([[0.0, 0.0], [0.0, 1e-9], [0.0, 0.0], [0.0, 0.0]]))
    X = sp.csr_matrix(np.array([[1e-3, 0.0]]))
    points_Y = np.array([[1, 0], [0, 1], [0, 0], [0, 1]])  # classes C, A, B, A
    keep = np.array([[True, False], [True, True], [True, True], [True, True]])
    outputs = []
    for compiled in (False, True):
        with _compiled.using(compiled):
            outputs.append(knn_chain_labels(X, points, points_Y, 1, np.array([[0, 1]]), keep=keep))
    np.testing.assert_array_equal(outputs[0], [[1, 1]])
    np.testing.assert_array_equal(outputs[1], outputs[0])
