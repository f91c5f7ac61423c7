"""CFS (``mlnb.multilabel._feature_selection``): the numpy reference restricted to the active
labels and the compiled kernel select the same features as the CFS of before, bit for bit.

``_cfs_masks_before_kernels`` below is a verbatim copy of ``cfs_masks`` before the active-label
restriction and the kernel (every label's product and merits at every step): the
definition both are held to. Random problems are drawn on small integer grids (exact ties
between features are then common, so the first-maximum rule is exercised), as 0/1 words,
as continuous values, and with features near 6e153 (their sums of squares and products
overflow: inf deviations, nan correlations between two of them); weights with zero rows
(undersampling), equal columns (the kernel's shared products), and constant labels.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mlnb import DynamicChainEnsemble, _compiled
from mlnb.events import Bernoulli
from mlnb.multilabel import _feature_selection as fs
from mlnb.multilabel._feature_selection import cap_selection, cfs_masks
from mlnb.multilabel.dynamic_ensemble import undersampling_mask

needs_kernels = pytest.mark.skipif(not _compiled.enabled(), reason="numba kernels turned off")


# ---- the CFS of before (verbatim, but for the names) --------------------------------------
def _todays_column_moments(X, weights):
    total = weights.sum(axis=0)
    safe_total = np.where(total > 0, total, 1.0)
    squares = X.multiply(X) if sp.issparse(X) else X * X
    mean = np.asarray(X.T @ weights) / safe_total
    var = np.asarray(squares.T @ weights) / safe_total - mean**2
    return safe_total, mean, np.maximum(var, 0.0)


def _cfs_masks_before_kernels(X, Y, weights, *, max_features=300, max_stale=5, rng=None):
    if not sp.issparse(X):
        X = X - X.mean(axis=0)
    Y = np.asarray(Y, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    n_features, n_labels = X.shape[1], Y.shape[1]
    safe_total, mean, var = _todays_column_moments(X, weights)
    label_mean = (weights * Y).sum(axis=0) / safe_total
    label_var = np.maximum(label_mean * (1 - label_mean), 0.0)
    std = np.sqrt(var)
    cross = np.asarray(X.T @ (weights * Y)) / safe_total
    usable = (std > 0) & (label_var > 0)[None, :]
    label_corr = np.zeros((n_features, n_labels))
    np.divide(
        np.abs(cross - mean * label_mean),
        std * np.sqrt(label_var),
        out=label_corr,
        where=usable,
    )
    label_corr = np.minimum(label_corr, 1.0)

    labels = np.arange(n_labels)
    chosen = np.zeros((n_labels, n_features), dtype=bool)
    sequence = []
    pair_corr = np.zeros((n_features, n_labels))
    corr_sum = np.zeros(n_labels)
    pair_sum = np.zeros(n_labels)
    best_merit = np.zeros(n_labels)
    best_size = np.zeros(n_labels, dtype=int)
    stale = np.zeros(n_labels, dtype=int)
    active = (label_var > 0) & usable.any(axis=0)
    dense_X = None if sp.issparse(X) else X
    limit = n_features if max_features is None else min(n_features, 2 * int(max_features))
    for size in range(1, limit + 1):
        if not active.any():
            break
        merit = (corr_sum + label_corr) / np.sqrt(size + 2.0 * (pair_sum + pair_corr))
        merit[~usable | chosen.T] = -np.inf
        feature = np.argmax(merit, axis=0)
        gain = merit[feature, labels]
        can_grow = active & np.isfinite(gain)
        improved = can_grow & (gain > best_merit)
        best_merit = np.where(improved, gain, best_merit)
        best_size = np.where(improved, size, best_size)
        stale = np.where(improved, 0, stale + 1)
        active = can_grow & (stale < max_stale)
        feature = np.where(can_grow, feature, -1)
        sequence.append(feature)
        grow = feature >= 0
        chosen[labels[grow], feature[grow]] = True
        column = np.maximum(feature, 0)
        corr_sum += np.where(grow, label_corr[column, labels], 0.0)
        pair_sum += np.where(grow, pair_corr[column, labels], 0.0)
        if not active.any():
            break
        values = X[:, column].toarray() if dense_X is None else dense_X[:, column]
        second = np.asarray(X.T @ (weights * values)) / safe_total
        new_mean, new_std = mean[column, labels], std[column, labels]
        covariance = second - mean * new_mean[None, :]
        correlation = np.zeros_like(covariance)
        np.divide(
            np.abs(covariance),
            std * new_std[None, :],
            out=correlation,
            where=(std > 0) & (new_std > 0)[None, :],
        )
        pair_corr += np.where(active[None, :], np.minimum(correlation, 1.0), 0.0)

    mask = np.zeros((n_labels, n_features), dtype=bool)
    for step, feature in enumerate(sequence):
        keep = (feature >= 0) & (step < best_size)
        mask[labels[keep], feature[keep]] = True
    return cap_selection(mask, max_features, rng)


# ---- the three, side by side --------------------------------------------------------------
def _three_masks(X, Y, weights, **options):
    """Today's masks, the numpy reference's and the kernel's (None if numba is off)."""
    with np.errstate(all="ignore"):  # the features near 6e153 overflow
        today = _cfs_masks_before_kernels(X, Y, weights, rng=np.random.RandomState(0), **options)
        with _compiled.using(False):
            reference = cfs_masks(X, Y, weights, rng=np.random.RandomState(0), **options)
        compiled = None
        if _compiled.enabled():
            compiled = cfs_masks(X, Y, weights, rng=np.random.RandomState(0), **options)
    return today, reference, compiled


@st.composite
def cfs_problems(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, 40))
    d = draw(st.integers(1, 12))
    n_labels = draw(st.integers(1, 5))
    kind = draw(st.sampled_from(["grid", "words", "continuous", "huge"]))
    density = draw(st.sampled_from([0.1, 0.4, 1.0]))
    if kind == "grid":
        X = rng.integers(0, 4, size=(n, d)).astype(float)
    elif kind == "words":
        X = np.ones((n, d))
    elif kind == "continuous":
        X = rng.normal(size=(n, d))
    else:  # features near the overflow of their products: inf, nan correlations
        X = rng.integers(10, 12, size=(n, d)) * np.where(rng.random(d) < 0.5, 6e152, 0.1)
    X = X * (rng.random((n, d)) < density)
    if draw(st.booleans()) and d > 1:
        X[:, -1] = X[:, 0]  # a twin: equal merits, the lower index wins
    Y = (rng.random((n, n_labels)) < rng.uniform(0.05, 0.7)).astype(int)
    if draw(st.booleans()):
        Y[:, 0] = Y[0, 0]  # a constant label selects nothing
    patterns = [
        np.ones(n),
        (rng.random(n) < 0.7).astype(float),  # undersampling: dropped rows
        rng.integers(0, 3, size=n).astype(float),  # zero, one or two
        rng.uniform(0.0, 2.0, size=n) * (rng.random(n) < 0.8),  # sample weights
    ]
    columns = rng.integers(0, len(patterns), size=n_labels)  # equal columns: shared work
    weights = np.stack([patterns[c] for c in columns], axis=1)
    options = {
        "max_features": draw(st.sampled_from([None, 1, 2, 300])),
        "max_stale": draw(st.integers(0, 6)),
    }
    return X, Y, weights, options


@settings(max_examples=300, deadline=None)
@given(cfs_problems(), st.booleans())
def test_reference_and_kernel_select_todays_features(problem, sparse):
    X, Y, weights, options = problem
    if sparse:
        X = sp.csr_matrix(X)
        if _compiled.enabled():
            assert fs._kernel_input(X, weights) is not None  # the kernel, not a fallback
    today, reference, compiled = _three_masks(X, Y, weights, **options)
    np.testing.assert_array_equal(reference, today)
    if compiled is not None:
        np.testing.assert_array_equal(compiled, today)


@needs_kernels
def test_the_kernel_falls_back_where_it_would_sum_otherwise():
    """Forms the kernel would sum in another order or precision run the reference."""
    rng = np.random.default_rng(0)
    X = sp.csr_matrix((rng.random((30, 6)) < 0.5) * rng.normal(size=(30, 6)))
    weights = np.ones((30, 2))
    assert fs._kernel_input(X, weights) is not None
    assert fs._kernel_input(X.toarray(), weights) is None
    assert fs._kernel_input(X.astype(np.float32), weights) is None
    assert fs._kernel_input(X.tocsc(), weights) is None
    duplicated = sp.csr_matrix((np.ones(2), np.array([1, 1]), np.array([0, 2] + [2] * 29)))
    assert fs._kernel_input(duplicated, np.ones((30, 1))) is None
    assert fs._kernel_input(X, np.full((30, 2), np.inf)) is None
    assert fs._kernel_input(X * 1e154, weights) is None  # squares overflow
    Y = (rng.random((30, 2)) < 0.4).astype(int)
    for form in (X.astype(np.float32), X.tocsc(), duplicated, X * 1e154):
        Y_form = Y[: form.shape[0]]
        w = np.ones((form.shape[0], 2))
        today, reference, compiled = _three_masks(form, Y_form, w)
        np.testing.assert_array_equal(reference, today)
        np.testing.assert_array_equal(compiled, today)


@needs_kernels
def test_a_nan_merit_is_the_first_maximum():
    """A nan merit wins ``np.argmax`` and ends a label's search. Searches meet them (two
    features near 6e153 have a nan correlation), but in 20,000 random problems built for
    it none changed a mask (such features have correlation 0 with the label: they never
    enter a best subset), so the kernel's pieces are held to the reference here: ``_scan``
    gives up on a nan, ``_first_maximum`` takes the first nan."""
    label_corr = np.array([0.2, 0.9, 0.1, 0.8])
    pair_corr = np.array([0.0, 0.1, np.nan, 0.3])
    chosen = np.array([False, False, False, True])
    assert fs._scan(0.5, label_corr, 3, 0.2, pair_corr, chosen) == (-1, -np.inf, True)
    best, gain = fs._first_maximum(0.5, label_corr, 3, 0.2, pair_corr, chosen)
    assert best == 2 and np.isnan(gain)
    pair_corr[2] = 0.0  # no nan: the first maximum of the merits, chosen ones left out
    merit = (0.5 + label_corr) / np.sqrt(3 + 2.0 * (0.2 + pair_corr))
    expected = (1, merit[1], False)
    assert fs._scan(0.5, label_corr, 3, 0.2, pair_corr, chosen) == expected
    assert fs._first_maximum(0.5, label_corr, 3, 0.2, pair_corr, chosen) == expected[:2]


def test_dense_x_keeps_the_product_over_every_label():
    """Found by hypothesis: with the product over the active labels alone (label 0 stops
    first), OpenBLAS rounds the others' columns otherwise (SkylakeX) and a tie breaks the
    other way. The reference keeps today's full-width product on dense X."""
    X = np.zeros((9, 9))
    for row, column in [(2, 0), (2, 4), (3, 2), (3, 4), (4, 3), (5, 1), (6, 1), (6, 6)]:
        X[row, column] = 1.0
    X[7, [4, 6, 8]] = 1.0
    X[8, 5] = 1.0
    Y = np.array(
        [[1, 0, 1, 1], [1, 0, 1, 1], [1, 0, 1, 0], [1, 0, 0, 0], [1, 1, 1, 0],
         [1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]]
    )  # fmt: skip
    weights = np.ones((9, 4))
    weights[1, [0, 3]] = 0.0
    weights[[2, 3], 3] = 2.0
    weights[4:8, 3] = 0.0
    today, reference, _ = _three_masks(X, Y, weights, max_features=2, max_stale=1)
    assert today[1:].any(axis=1).all() and not today[0].any()
    np.testing.assert_array_equal(reference, today)


# ---- the merit bound ----------------------------------------------------------------------
@needs_kernels
@settings(max_examples=300, deadline=None)
@given(
    st.floats(1e-3, 50.0),
    st.floats(1.0, 1e4),
    st.lists(st.tuples(st.integers(-6, 6), st.floats(1.0, 1e4)), min_size=1, max_size=8),
)
def test_scan_finds_the_first_maximum_near_ties(numerator, denominator, others):
    """Merits a few units in the last place apart: the bound of ``_scan`` never skips the
    first maximum (``_first_maximum``, the reference's ``np.argmax``)."""
    gain = numerator / math.sqrt(denominator)
    label_corr, pair_corr = [numerator], [(denominator - 1.0) / 2.0]
    for ulps, den in others:  # numerator giving a merit near gain, nudged by ulps
        num = gain * math.sqrt(den)
        for _ in range(abs(ulps)):
            num = math.nextafter(num, math.inf if ulps > 0 else 0.0)
        label_corr.append(num)
        pair_corr.append((den - 1.0) / 2.0)
    label_corr, pair_corr = np.array(label_corr), np.array(pair_corr)
    chosen = np.zeros(len(label_corr), dtype=bool)
    expected = fs._first_maximum.py_func(0.0, label_corr, 1, 0.0, pair_corr, chosen)
    for scan in {fs._scan, fs._scan.py_func}:
        best, gain, has_nan = scan(0.0, label_corr, 1, 0.0, pair_corr, chosen)
        assert (best, gain, has_nan) == (expected[0], expected[1], False)


# ---- real data ----------------------------------------------------------------------------
def _members(X, Y, n_members, seed=0):
    """Rows and weights of members as the dynamic chain ensemble draws them."""
    rng = np.random.RandomState(seed)
    for _ in range(n_members):
        rows = np.sort(rng.choice(X.shape[0], round(0.66 * X.shape[0]), replace=False))
        rows = rows[rng.random_sample(len(rows)) >= 0.4]  # the validation part left out
        yield X[rows], Y[rows], undersampling_mask(Y[rows], 20.0, rng)


def test_masks_on_enron_equal_todays(shared_dataset):
    data = shared_dataset("enron")
    X = sp.csr_matrix(data.X, dtype=np.float64)
    Y = data.Y.toarray() if sp.issparse(data.Y) else np.asarray(data.Y)
    for X_m, Y_m, weights in _members(X, Y, 3):
        if _compiled.enabled():
            assert fs._kernel_input(X_m, weights) is not None
        today, reference, compiled = _three_masks(X_m, Y_m, weights)
        assert today.sum() > 100 and (today.sum(axis=1) > 0).sum() > 30  # real selections
        np.testing.assert_array_equal(reference, today)
        if compiled is not None:
            np.testing.assert_array_equal(compiled, today)


@needs_kernels
def test_ensemble_on_enron_is_the_same_with_the_kernel(shared_dataset):
    data = shared_dataset("enron")
    X, Y = data.X[:400], data.Y[:400]
    settings = {"beta": 1.0, "rule": "predict", "events": Bernoulli(binarize=None)}
    models = []
    for compiled in (False, True):
        with _compiled.using(compiled):
            models.append(DynamicChainEnsemble(n_chains=3, random_state=0, **settings).fit(X, Y))
    for before, after in zip(models[0].feature_masks_, models[1].feature_masks_, strict=True):
        np.testing.assert_array_equal(after, before)
    assert sum(mask.sum() for mask in models[1].feature_masks_) > 0
