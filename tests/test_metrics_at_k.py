"""Top-k metrics of mlnb.metrics (P@k, nDCG@k, PSP@k): hand-computed cases, the tie rule,
a full-argsort reference (hypothesis), sparse top-k scores, memory, the registry, real data."""

import contextlib
import math
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from mlnb import BinaryRelevance
from mlnb import metrics as M
from mlnb.datasets import load_dataset
from mlnb.metrics import _at_k

EXACT = {"rel": 1e-12, "abs": 1e-15}

# Row 0: labels 0 and 2 true; labels 1 and 2 tie, so the ranking is 0, 1, 2, 3, 4.
# Row 1: label 1 true; labels 0 and 4 tie, so the ranking is 3, 0, 4, 1, 2.
# Row 2: no true label.
Y = np.array([[1, 0, 1, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 0, 0]])
S = np.array([[0.9, 0.5, 0.5, 0.1, 0.0], [0.3, 0.2, 0.1, 0.4, 0.3], [1.0, 2.0, 3.0, 4.0, 5.0]])
W = np.array([1.0, 2.0, 1.0])
P = np.array([0.5, 1.0, 0.25, 1.0, 1.0])  # inverse propensities 2, 1, 4, 1, 1


def _dcg(places):
    return sum(1 / math.log2(r + 1) for r in places)


# ---------------------------------------------------------------- by hand


def test_precision_at_k_by_hand():
    assert M.precision_at_k(Y, S, k=1) == pytest.approx(1 / 3, **EXACT)
    assert M.precision_at_k(Y, S, k=3) == pytest.approx((2 / 3) / 3, **EXACT)
    assert M.precision_at_k(Y, S, k=5) == pytest.approx((2 / 5 + 1 / 5) / 3, **EXACT)
    assert M.precision_at_k(Y, S, k=1, sample_weight=W) == pytest.approx(1 / 4, **EXACT)
    assert M.precision_at_k(Y, S, k=5, sample_weight=W) == pytest.approx(0.8 / 4, **EXACT)


def test_ndcg_at_k_by_hand():
    row0 = _dcg([1, 3]) / _dcg([1, 2])  # hits at places 1 and 3 of 2 true labels
    assert M.ndcg_at_k(Y, S, k=3) == pytest.approx(row0 / 3, **EXACT)
    row1 = _dcg([4]) / _dcg([1])  # a hit at place 4 of 1 true label
    assert M.ndcg_at_k(Y, S, k=5) == pytest.approx((row0 + row1) / 3, **EXACT)
    assert M.ndcg_at_k(Y, S, k=5, sample_weight=W) == pytest.approx((row0 + 2 * row1) / 4)
    assert M.ndcg_at_k(Y, S, k=1) == M.precision_at_k(Y, S, k=1)


def test_psprecision_at_k_by_hand():
    # k=3: row 0 finds labels 0 and 2 (gains 2 + 4), the best it could; row 1 finds
    # nothing, its best is label 1 (gain 1).
    raw = M.psprecision_at_k(Y, S, propensities=P, k=3, normalize=False)
    assert raw == pytest.approx((6 / 3) / 3, **EXACT)
    best = (6 / 3 + 1 / 3) / 3
    assert M.psprecision_at_k(Y, S, propensities=P, k=3) == pytest.approx(raw / best, **EXACT)
    # k=1: row 0 finds label 0 (gain 2) where label 2 (gain 4) was the best.
    assert M.psprecision_at_k(Y, S, propensities=P, k=1) == pytest.approx(2 / 5, **EXACT)
    weighted = M.psprecision_at_k(Y, S, propensities=P, k=1, sample_weight=W)
    assert weighted == pytest.approx(2 / (4 + 2 * 1), **EXACT)


def test_psprecision_with_propensities_one_is_precision():
    ones = np.ones(Y.shape[1])
    for k in (1, 2, 5, 7):
        raw = M.psprecision_at_k(Y, S, propensities=ones, k=k, normalize=False)
        assert raw == pytest.approx(M.precision_at_k(Y, S, k=k), **EXACT)


def test_label_propensities_by_hand():
    Y_train = np.array([[1, 0, 0], [1, 0, 0], [1, 1, 0], [0, 0, 0]])
    C = (math.log(4) - 1) * 2.5**0.55
    expected = [1 / (1 + C * (n + 1.5) ** -0.55) for n in (3, 1, 0)]
    p = M.label_propensities(Y_train)
    np.testing.assert_allclose(p, expected, rtol=1e-12)
    assert np.all(np.diff(p) < 0) and np.all((p > 0) & (p < 1))  # rarer, smaller
    np.testing.assert_array_equal(M.label_propensities(sp.csr_matrix(Y_train)), p)
    C = (math.log(4) - 1) * 1.4**0.5
    np.testing.assert_allclose(
        M.label_propensities(Y_train, A=0.5, B=0.4)[0], 1 / (1 + C * 3.4**-0.5), rtol=1e-12
    )


# ---------------------------------------------------------------- ties, k, empty rows


def test_ties_rank_the_lower_label_index_first():
    Y_one = np.array([[0, 1, 1, 0]])
    flat = np.zeros((1, 4))
    assert M.precision_at_k(Y_one, flat, k=1) == 0.0  # label 0 first
    assert M.precision_at_k(Y_one, flat, k=2) == 0.5  # labels 0, 1
    assert M.precision_at_k(Y_one[:, ::-1], flat, k=2) == 0.5  # labels 0, 1 again
    tied = np.array([[5.0, 1.0, 1.0, 1.0]])  # the k-th place falls inside a tie
    assert M.precision_at_k(Y_one, tied, k=2) == 0.5  # labels 0, 1
    assert M.ndcg_at_k(Y_one, tied, k=3) == pytest.approx(_dcg([2, 3]) / _dcg([1, 2]))
    stored = sp.csr_matrix(([1.0, 1.0, 1.0], [3, 2, 1], [0, 3]), shape=(1, 4))
    assert M.precision_at_k(Y_one, stored, k=1) == 1.0  # label 1 of the stored tie


def test_k_beyond_the_number_of_labels():
    Y_small = np.array([[1, 1, 0], [0, 0, 1]])
    scores = np.array([[3.0, 2.0, 1.0], [3.0, 2.0, 1.0]])
    assert M.precision_at_k(Y_small, scores, k=5) == pytest.approx((2 / 5 + 1 / 5) / 2)
    assert M.ndcg_at_k(Y_small, scores, k=5) == pytest.approx((1 + _dcg([3])) / 2)
    for k in (3, 4, 100, 10**12):  # every label is ranked, whatever k beyond 3
        assert M.precision_at_k(Y_small, scores, k=k) == pytest.approx(1.5 / k)
        assert M.ndcg_at_k(Y_small, scores, k=k) == M.ndcg_at_k(Y_small, scores, k=3)


def test_rows_without_true_labels_count_zero():
    empty = np.zeros((2, 4), dtype=int)
    scores = np.arange(8.0).reshape(2, 4)
    ones = np.ones(4)
    assert M.precision_at_k(empty, scores) == 0.0
    assert M.ndcg_at_k(empty, scores) == 0.0
    assert M.psprecision_at_k(empty, scores, propensities=ones) == 0.0
    # an empty row halves the mean of a perfect one
    mixed = np.array([[0, 0, 0, 1], [0, 0, 0, 0]])
    assert M.ndcg_at_k(mixed, scores, k=1) == M.precision_at_k(mixed, scores, k=1) == 0.5
    assert M.psprecision_at_k(mixed, scores, propensities=ones, k=1) == 1.0


def test_infinite_scores_rank_first_and_last():
    Y_one = np.array([[0, 1, 0, 1]])
    scores = np.array([[np.inf, -np.inf, 0.0, np.inf]])
    assert M.precision_at_k(Y_one, scores, k=1) == 0.0  # +inf at 0 and 3: label 0 first
    assert M.precision_at_k(Y_one, scores, k=2) == 0.5
    assert M.precision_at_k(Y_one, scores, k=3) == pytest.approx(1 / 3)
    assert M.precision_at_k(Y_one, scores, k=4) == 0.5


# ---------------------------------------------------------------- the reference


def _reference(Y_true, scores, k, propensities):
    """P@k, nDCG@k, raw and normalised PSP@k per row from a full stable argsort."""
    order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    hits = np.take_along_axis(Y_true, order, axis=1)
    inverse = 1 / propensities
    discount = 1 / np.log2(np.arange(2, order.shape[1] + 2))
    n_true = Y_true.sum(axis=1)
    idcg = np.array([np.sum(1 / np.log2(np.arange(2, min(k, t) + 2))) for t in n_true])
    ndcg = np.where(n_true > 0, (hits * discount).sum(axis=1) / np.maximum(idcg, 1e-300), 0)
    psp = (hits * inverse[order]).sum(axis=1) / k
    best = -np.sort(-(Y_true * inverse), axis=1)[:, :k].sum(axis=1) / k
    return hits.sum(axis=1) / k, ndcg, psp, best


def _top_k_sparse(scores, k):
    """The sparse matrix of each row's k best scores (stable order), as a predictor gives."""
    n, n_labels = scores.shape
    cols = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    values = np.take_along_axis(scores, cols, axis=1)
    kk = cols.shape[1]
    return sp.csr_matrix(
        (values.ravel(), cols.ravel(), np.arange(0, n * kk + 1, kk)), shape=(n, n_labels)
    )


@st.composite
def _problems(draw):
    n = draw(st.integers(1, 8))
    n_labels = draw(st.integers(1, 9))
    Y_true = draw(hnp.arrays(np.int8, (n, n_labels), elements=st.integers(0, 1)))
    values = st.sampled_from([-np.inf, -1.5, 0.0, 0.5, 1.0, 2.0, np.inf])  # many ties
    scores = draw(hnp.arrays(np.float64, (n, n_labels), elements=values))
    propensities = draw(
        hnp.arrays(np.float64, n_labels, elements=st.floats(0.05, 1.0, allow_nan=False))
    )
    weights = draw(hnp.arrays(np.float64, n, elements=st.floats(0.0, 3.0, allow_nan=False)))
    weights[0] += 0.5  # a positive sum
    return Y_true, scores, propensities, weights, draw(st.integers(1, 11))


@settings(max_examples=150, deadline=None)
@given(_problems())
def test_equal_to_a_full_argsort_reference(problem):
    Y_true, scores, propensities, w, k = problem
    precision, ndcg, psp, best = _reference(Y_true, scores, k, propensities)
    stored = _top_k_sparse(scores, k)
    for given_scores in (scores, stored):  # dense, and the sparse top k
        for given_Y in (Y_true, sp.csr_array(Y_true)):
            got = M.precision_at_k(given_Y, given_scores, k=k, sample_weight=w)
            assert got == pytest.approx(np.average(precision, weights=w), **EXACT)
            got = M.ndcg_at_k(given_Y, given_scores, k=k, sample_weight=w)
            assert got == pytest.approx(np.average(ndcg, weights=w), **EXACT)
            got = M.psprecision_at_k(
                given_Y, given_scores, propensities=propensities, k=k, sample_weight=w
            )
            mean_best = np.average(best, weights=w)
            expected = np.average(psp, weights=w) / mean_best if mean_best > 0 else 0.0
            assert got == pytest.approx(expected, **EXACT)


@contextlib.contextmanager
def _chunks_of(cells):
    """Make the dense score chunks ``cells`` cells large (at least one row)."""
    saved = _at_k._CHUNK_CELLS
    _at_k._CHUNK_CELLS = cells
    try:
        yield
    finally:
        _at_k._CHUNK_CELLS = saved


@settings(max_examples=40, deadline=None)
@given(_problems(), st.integers(1, 20))
def test_chunks_do_not_change_the_value(problem, cells):
    Y_true, scores, _, w, k = problem
    expected = M.ndcg_at_k(Y_true, scores, k=k, sample_weight=w)
    with _chunks_of(cells):
        assert M.ndcg_at_k(Y_true, scores, k=k, sample_weight=w) == expected


# ---------------------------------------------------------------- sparse top-k scores


def test_sparse_scores_absent_entries_rank_last():
    Y_true = sp.csr_matrix(np.array([[1, 0, 0, 1, 0], [0, 0, 1, 0, 0]]))
    # Row 0 stores labels 1 (score -3) and 3 (an explicit 0); row 1 stores nothing.
    stored = sp.csr_matrix(([-3.0, 0.0], [1, 3], [0, 2, 2]), shape=(2, 5))
    assert stored.nnz == 2
    assert M.precision_at_k(Y_true, stored, k=1) == 0.5  # label 3, the higher stored score
    assert M.precision_at_k(Y_true, stored, k=2) == 0.25  # labels 3 and 1
    assert M.precision_at_k(Y_true, stored, k=5) == 0.1  # the empty places are misses
    assert M.ndcg_at_k(Y_true, stored, k=5) == pytest.approx(0.5 / _dcg([1, 2]))
    # more stored entries than k: their top k count
    many = sp.csr_matrix(np.array([[0.1, 0.4, 0.3, 0.2, 0.0], [0.5, 0.1, 0.9, 0.0, 0.0]]))
    assert M.precision_at_k(Y_true, many, k=2) == M.precision_at_k(Y_true, many.toarray(), k=2)
    # any sparse layout, duplicates summed
    coo = sp.coo_matrix(([1.0, 1.0, 0.5], ([0, 0, 1], [3, 3, 2])), shape=(2, 5))
    assert M.precision_at_k(Y_true, coo, k=1) == 1.0


def test_memory_stays_flat():
    rng = np.random.default_rng(0)
    n, n_labels, k = 2000, 1_000_000, 5  # n x L would take 2 GB as booleans
    true_cols = rng.integers(0, n_labels, size=(n, 3))
    Y_true = sp.csr_matrix(
        (np.ones(3 * n), true_cols.ravel(), np.arange(0, 3 * n + 1, 3)), shape=(n, n_labels)
    )
    cols = np.hstack([true_cols[:, :1], rng.integers(0, n_labels, size=(n, k - 1))])
    stored = sp.csr_matrix(
        (
            rng.random(n * k) + np.tile([1.0, 0, 0, 0, 0], n),
            cols.ravel(),
            np.arange(0, n * k + 1, k),
        ),
        shape=(n, n_labels),
    )
    propensities = np.full(n_labels, 0.5)
    tracemalloc.start()
    try:
        assert M.precision_at_k(Y_true, stored, k=1) == 1.0  # a true label stored first
        psp = M.psprecision_at_k(Y_true, stored, k=5, propensities=propensities)
        assert 0 < psp <= 1
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20e6, peak  # nnz-sized arrays and 1 / propensities (8 MB)


def test_dense_scores_are_read_in_chunks():
    rng = np.random.default_rng(1)
    scores = rng.random((200, 20_000))  # 32 MB
    Y_true = sp.random(200, 20_000, density=0.001, format="csr", random_state=2)
    Y_true.data[:] = 1
    expected = M.ndcg_at_k(Y_true, scores, k=5)
    with _chunks_of(1 << 16):  # 512 kB chunks
        tracemalloc.start()
        try:
            assert M.ndcg_at_k(Y_true, scores, k=5) == expected
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < scores.nbytes / 4, peak


# ---------------------------------------------------------------- bad input


def test_bad_input_is_refused_with_a_clear_message():
    for k in (0, -1, 1.5, True, "5"):
        with pytest.raises(ValueError, match="k must be an int >= 1"):
            M.precision_at_k(Y, S, k=k)
    with pytest.raises(ValueError, match="scores must not contain NaN"):
        M.precision_at_k(Y, np.where(S > 4, np.nan, S))
    with pytest.raises(ValueError, match="scores must not contain NaN"):
        M.ndcg_at_k(Y, sp.csr_matrix(np.where(S > 4, np.nan, S)))
    with pytest.raises(ValueError, match="same shape"):
        M.precision_at_k(Y, S[:, :-1])
    with pytest.raises(ValueError, match="same shape"):
        M.precision_at_k(Y, sp.csr_matrix(S[:-1]))
    with pytest.raises(ValueError, match="scores must be real-valued"):
        M.precision_at_k(Y, S.astype(str))
    with pytest.raises(ValueError, match="must be non-empty"):
        M.ndcg_at_k(np.zeros((0, 3)), np.zeros((0, 3)))
    with pytest.raises(ValueError, match="only 0 and 1"):
        M.precision_at_k(2 * Y, S)
    with pytest.raises(ValueError, match="sample_weight must have shape"):
        M.precision_at_k(Y, S, sample_weight=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"propensities must have shape \(5,\)"):
        M.psprecision_at_k(Y, S, propensities=P[:-1])
    for bad in (np.zeros(5), np.full(5, 1.5), np.full(5, np.nan)):
        with pytest.raises(ValueError, match=r"propensities must be in \(0, 1\]"):
            M.psprecision_at_k(Y, S, propensities=bad)
    with pytest.raises(TypeError, match="propensities"):
        M.psprecision_at_k(Y, S)  # a keyword without a default: it must be given
    with pytest.raises(ValueError, match="normalize must be True or False"):
        M.psprecision_at_k(Y, S, propensities=P, normalize="yes")
    with pytest.raises(ValueError, match="at least 3 rows"):
        M.label_propensities(Y[:2])
    for name in ("A", "B"):
        for bad in (0, -1.0, np.inf, "x", None):
            with pytest.raises(ValueError, match=f"{name} must be a positive number"):
                M.label_propensities(Y, **{name: bad})


def test_inputs_are_not_altered():
    stored = sp.csr_matrix(([2.0, 1.0], [4, 0], [0, 2, 2, 2]), shape=(3, 5))  # unsorted
    before = (stored.data.copy(), stored.indices.copy())
    Y_sparse = sp.csr_matrix(Y)
    M.precision_at_k(Y_sparse, stored, k=1)
    np.testing.assert_array_equal(stored.data, before[0])
    np.testing.assert_array_equal(stored.indices, before[1])
    np.testing.assert_array_equal(Y_sparse.toarray(), Y)


# ---------------------------------------------------------------- the registry


def test_registered_as_criteria_of_label_scores():
    for k in (1, 3, 5):
        for name, function, label in (
            (f"precision_at_{k}", M.precision_at_k, f"P@{k}"),
            (f"ndcg_at_{k}", M.ndcg_at_k, f"nDCG@{k}"),
        ):
            metric = M.METRICS[name]
            assert metric.task == "multilabel_scores" and metric.greater_is_better
            assert metric.label == label
            assert metric(Y, S) == function(Y, S, k=k)
    assert not any("psprecision" in name for name in M.METRICS)  # needs train propensities
    assert not any("_at_" in name for name in M.METRIC_SETS["ranking"])


def test_cross_validate_reads_them_by_name():
    from mlnb.datasets import make_extreme_multilabel
    from mlnb.evaluation import cross_validate

    X, Y_train = make_extreme_multilabel(300, 400, 30, avg_labels=2, random_state=0)
    estimator = BinaryRelevance(events="multinomial", rule="predict")
    result = cross_validate(
        estimator, X, Y_train.toarray(), cv=3, metrics=["precision_at_1", "ndcg_at_3"]
    )
    assert set(result.scores) == {"precision_at_1", "ndcg_at_3"}
    assert all(0.5 < v <= 1 for v in result.scores["precision_at_1"])


# ---------------------------------------------------------------- real data


@pytest.fixture(scope="module")
def bibtex_scores():
    try:
        data = load_dataset("bibtex")
    except (FileNotFoundError, ValueError) as error:
        pytest.skip(f"bibtex not available: {error}")
    model = BinaryRelevance(events="multinomial", rule="predict").fit(data.train.X, data.train.Y)
    return data.train.Y, data.test.Y, model.decision_function(data.test.X)


def test_bibtex_top_k_of_binary_relevance(bibtex_scores):
    Y_train, Y_test, scores = bibtex_scores
    propensities = M.label_propensities(Y_train)
    stored = _top_k_sparse(scores, 5)
    for k in (1, 3, 5):
        precision, ndcg, psp, best = _reference(Y_test, scores, k, propensities)
        for given_scores in (scores, stored):
            assert M.precision_at_k(Y_test, given_scores, k=k) == pytest.approx(precision.mean())
            assert M.ndcg_at_k(Y_test, given_scores, k=k) == pytest.approx(ndcg.mean())
            got = M.psprecision_at_k(Y_test, given_scores, propensities=propensities, k=k)
            assert got == pytest.approx(psp.mean() / best.mean())
    # Naive Bayes ranks far better than the most frequent training labels
    by_frequency = np.tile(Y_train.sum(axis=0).astype(float), (len(Y_test), 1))
    base = M.precision_at_k(Y_test, by_frequency, k=1)
    assert M.precision_at_k(Y_test, stored, k=1) > base + 0.2
