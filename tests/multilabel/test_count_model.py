"""ML-kNN's count model: the compiled histograms and fold errors against their numpy
references, and the histograms against a count written here row by row."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mlnb import _compiled
from mlnb.multilabel._count_model import count_histograms, fold_errors


@st.composite
def fold_problems(draw):
    """Labels, fold lists (list g: rows outside fold g, nearest first), folds and ks."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_folds = draw(st.integers(1, 4))
    n = draw(st.integers(n_folds + 2, 40))
    Y = (rng.random((n, draw(st.integers(1, 6)))) < rng.random()).astype(np.int8)
    folds = rng.permutation(n) % n_folds
    most = n - 1 - int(np.bincount(folds).max()) if n_folds > 1 else n - 1
    ks = tuple(sorted(set(rng.integers(1, most + 1, draw(st.integers(1, 4))).tolist())))
    lists = np.empty((n_folds, n, max(ks)), dtype=np.intp)
    for g in range(n_folds):
        for r in range(n):
            outside = np.flatnonzero((folds != g) | (n_folds == 1))
            outside = outside[outside != r]
            lists[g, r] = rng.permutation(outside)[: max(ks)]
    return Y, lists, ks, folds


def reference_histograms(Y, lists, ks, folds):
    n_lists, n, _ = lists.shape
    shape = (n_lists, 2, len(ks), Y.shape[1], max(ks) + 1)
    with_l, without_l = np.zeros(shape), np.zeros(shape)
    for g in range(n_lists):
        for r in range(n):
            side = 0 if folds is not None and folds[r] == g else 1
            for i, k in enumerate(ks):
                for label in range(Y.shape[1]):
                    j = int(Y[lists[g, r, :k], label].sum())
                    (with_l if Y[r, label] else without_l)[g, side, i, label, j] += 1
    return with_l, without_l


@settings(max_examples=60, deadline=None)
@given(fold_problems(), st.booleans())
def test_histograms_equal_a_row_by_row_count_compiled_or_not(problem, with_folds):
    Y, lists, ks, folds = problem
    folds = folds if with_folds else None
    expected = reference_histograms(Y, lists, ks, folds)
    for compiled in (False, True):
        with _compiled.using(compiled):
            found = count_histograms(Y, lists, ks, folds)
        for got, want in zip(found, expected, strict=True):
            np.testing.assert_array_equal(got, want)


@settings(max_examples=60, deadline=None)
@given(fold_problems(), st.lists(st.sampled_from([0.1, 0.5, 1.0, 2.0, 3.7]), min_size=1))
def test_compiled_fold_errors_equal_the_numpy_reference(problem, smoothing):
    Y, lists, ks, folds = problem
    with_l, without_l = count_histograms(Y, lists, ks, folds)
    outputs = []
    for compiled in (False, True):
        with _compiled.using(compiled):
            outputs.append(fold_errors(with_l, without_l, ks, tuple(smoothing)))
    np.testing.assert_array_equal(outputs[1], outputs[0])
    # every fold's rows and labels are each counted once per (s, k): right or wrong
    assert outputs[0].shape == (len(smoothing), lists.shape[0], len(ks))
    assert np.all(outputs[0] <= np.bincount(folds, minlength=lists.shape[0])[:, None] * Y.shape[1])
