"""predict_top_k: each row's k best label scores, sparse, in chunks of rows of flat memory.

The reference is a full stable sort of ``decision_function`` (scores descending, then the
lower label index): the top-k result must hold exactly its first ``min(k, L)`` labels with
their scores, whatever the chunking, for every multi-label estimator, and give the same
precision@k and nDCG@k as the dense scores. Memory is measured with tracemalloc, never
time.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.base import clone

from mlnb import BinaryRelevance, ClassifierChain, NaiBX
from mlnb.datasets import make_extreme_multilabel
from mlnb.estimators import test_instances
from mlnb.metrics import ndcg_at_k, precision_at_k
from mlnb.multilabel import finite_scores
from mlnb.multilabel._top_k import select_top_k, top_k

from .test_chain import dependent_labels

INSTANCES = test_instances("multi_label")


def full_sort_top_k(scores, k):
    """The reference: a dense (n, L) array of each row's k best scores, NaN elsewhere."""
    scores = finite_scores(scores)
    n, n_labels = scores.shape
    expected = np.full((n, n_labels), np.nan)
    for i, row in enumerate(scores):
        best = np.lexsort((np.arange(n_labels), -row))[:k]  # score descending, then index
        expected[i, best] = row[best]
    return expected


def assert_top_k_of(top, scores, k):
    """``top`` holds exactly the reference's labels and scores, in canonical CSR."""
    expected = full_sort_top_k(scores, k)
    n, n_labels = expected.shape
    assert sp.issparse(top) and top.format == "csr" and top.dtype == np.float64
    assert top.shape == (n, n_labels)
    per_row = min(k, n_labels)
    np.testing.assert_array_equal(np.diff(top.indptr), per_row)  # zeros are stored too
    rows = np.repeat(np.arange(n), per_row)
    got = np.full((n, n_labels), np.nan)
    got[rows, top.indices] = top.data
    np.testing.assert_array_equal(got, expected)
    for i in range(n):  # sorted indices: canonical
        row = top.indices[top.indptr[i] : top.indptr[i + 1]]
        assert np.all(np.diff(row) > 0)


def chunked_scores(model, X, batch_size):
    """``decision_function`` of the same chunks of rows as ``predict_top_k``'s: equal to
    that of all rows at once only to rounding (a matrix product's summation may depend on
    the number of rows), so the exact reference is the chunks'."""
    chunks = [model.decision_function(X[i : i + batch_size]) for i in range(0, len(X), batch_size)]
    scores = np.vstack(chunks)
    np.testing.assert_allclose(scores, model.decision_function(X), rtol=1e-12, atol=1e-12)
    return scores


def _assert_identical(got, expected):
    assert got.format == "csr" and got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(got.indptr, expected.indptr)
    np.testing.assert_array_equal(got.indices, expected.indices)
    np.testing.assert_array_equal(got.data, expected.data)


def identity(rows):
    """A 'model' whose scores are its input rows."""
    return np.asarray(rows, dtype=float)


# ---- the selection, on scores drawn with many ties -------------------------------------------
tied_scores = st.tuples(st.integers(0, 7), st.integers(1, 7)).flatmap(
    lambda shape: arrays(float, shape, elements=st.sampled_from([-np.inf, -1, 0, 0.5, np.inf]))
)


@settings(max_examples=200, deadline=None)
@given(
    scores=tied_scores,
    k=st.integers(1, 9),
    batch_size=st.one_of(st.none(), st.integers(1, 4)),
)
def test_top_k_equals_a_full_sort(scores, k, batch_size):
    top = top_k(identity, scores, k, n_labels=scores.shape[1], batch_size=batch_size)
    assert_top_k_of(top, scores, k)


@settings(max_examples=100, deadline=None)
@given(scores=tied_scores.filter(lambda s: s.shape[0] > 0), k=st.integers(1, 9), data=st.data())
def test_metrics_of_top_k_equal_those_of_the_dense_scores(scores, k, data):
    Y = data.draw(arrays(np.int8, scores.shape, elements=st.integers(0, 1)), label="Y")
    top = top_k(identity, scores, k, n_labels=scores.shape[1], batch_size=3)
    for metric in (precision_at_k, ndcg_at_k):
        for at in sorted({1, k}):
            assert metric(Y, top, k=at) == metric(Y, scores, k=at)


def test_ties_go_to_the_lower_label_index():
    scores = np.array([[1.0, 3.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0, 2.0]])
    np.testing.assert_array_equal(select_top_k(scores, 2), [[1, 2], [0, 1]])
    top = top_k(identity, scores, 3, n_labels=5)
    assert top.indices.tolist() == [1, 2, 3, 0, 1, 2]


def test_a_zero_score_is_stored_and_k_above_l_keeps_every_label():
    scores = np.array([[0.0, 0.0, -1.0], [0.0, 5.0, 0.0]])
    top = top_k(identity, scores, 2, n_labels=3)
    assert top.nnz == 4
    assert top.indices.tolist() == [0, 1, 0, 1]  # row 1: 5 at label 1, then the 0 of label 0
    assert top.data.tolist() == [0.0, 0.0, 0.0, 5.0]
    every = top_k(identity, scores, 10, n_labels=3)
    assert every.nnz == 6
    np.testing.assert_array_equal(every.toarray(), scores)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n_labels=st.integers(1, 6),
    k=st.integers(1, 7),
    batch_size=st.one_of(st.none(), st.integers(1, 5)),
)
def test_binary_relevance_top_k_equals_a_full_sort(seed, n_labels, k, batch_size):
    """Small random models, ties included: duplicate label columns score alike, and the
    labels on in every row score +inf (bounded at 1e300)."""
    rng = np.random.default_rng(seed)
    X = rng.poisson(1.0, size=(12, 4)).astype(float)
    Y = (rng.random((12, n_labels)) < 0.5).astype(int)
    if n_labels > 2:
        Y[:, 1] = Y[:, 0]  # a tie
        Y[:, 2:4] = 1  # constant: +inf
    model = BinaryRelevance(events="multinomial", rule="predict").fit(X, Y)
    X_test = rng.poisson(1.0, size=(9, 4)).astype(float)
    top = model.predict_top_k(X_test, k, batch_size=batch_size)
    assert_top_k_of(top, chunked_scores(model, X_test, batch_size or len(X_test)), k)


# ---- every multi-label estimator ------------------------------------------------------------
@pytest.fixture(scope="module")
def data():
    X, Y = dependent_labels(0, n=120)
    return X[:90], Y[:90], X[90:]


def test_every_per_label_estimator_is_covered():
    names = {type(estimator).__name__ for _, estimator in INSTANCES}
    assert {
        "BinaryRelevance",
        "ClassifierChain",
        "IMLNB",
        "NaiBX",
        "EnsembleClassifierChains",
        "BaggedBinaryRelevance",
        "DynamicChainEnsemble",
    } <= names


@pytest.mark.parametrize(
    "estimator", [e for _, e in INSTANCES], ids=[name for name, _ in INSTANCES]
)
def test_every_estimator_top_k_equals_a_full_sort(estimator, data):
    X, Y, X_test = data
    model = clone(estimator).fit(X, Y)
    scores = model.decision_function(X_test)
    assert scores.shape == (X_test.shape[0], Y.shape[1])  # the contract top-k relies on
    chunked = chunked_scores(model, X_test, 7)
    for k in (1, 3, Y.shape[1] + 2):
        assert_top_k_of(model.predict_top_k(X_test, k, batch_size=7), chunked, k)
    assert_top_k_of(model.predict_top_k(X_test, 2), scores, 2)  # one automatic chunk


def test_naibx_fixed_size_top_k():
    X, Y = dependent_labels(1, n=80)
    model = NaiBX(events="gaussian", rule="predict", fixed_size=2).fit(X, Y)
    assert_top_k_of(model.predict_top_k(X, 2, batch_size=9), chunked_scores(model, X, 9), 2)


# ---- inputs and outputs ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def counts_model():
    X, Y = dependent_labels(2, n=100, counts=True)
    return BinaryRelevance(events="multinomial", rule="predict").fit(X, Y), X


@pytest.mark.parametrize("form", ["csr", "csc", "coo", "list", "frame"])
def test_any_form_of_x_gives_the_same_result(counts_model, form):
    """Sparse forms equal CSR's, dense forms the array's (a sparse and a dense product may
    round differently)."""
    model, X = counts_model
    sparse = form in ("csr", "csc", "coo")
    expected = model.predict_top_k(sp.csr_matrix(X) if sparse else X, 3, batch_size=16)
    given_X = {
        "csr": sp.csr_matrix(X),
        "csc": sp.csc_matrix(X),
        "coo": sp.coo_matrix(X),
        "list": X.tolist(),
        "frame": pd.DataFrame(X),
    }[form]
    _assert_identical(model.predict_top_k(given_X, 3, batch_size=16), expected)


def test_labels_mode_is_one_at_the_top_k(counts_model):
    model, X = counts_model
    scores = model.predict_top_k(X, 2)
    labels = model.predict_top_k(X, 2, mode="labels", batch_size=11)
    assert labels.dtype == np.int64 and labels.format == "csr"
    np.testing.assert_array_equal(labels.indices, scores.indices)
    np.testing.assert_array_equal(labels.indptr, scores.indptr)
    assert np.all(labels.data == 1)
    np.testing.assert_array_equal(labels.sum(axis=1), 2)
    assert model.predict(X).shape == (X.shape[0], model.n_labels_)  # predict unchanged


def test_empty_x_gives_an_empty_matrix(counts_model):
    model, X = counts_model
    top = model.predict_top_k(X[:0], 3)
    assert top.shape == (0, model.n_labels_) and top.nnz == 0


@pytest.mark.parametrize("k", [0, -1, 1.5, True, "3", None])
def test_bad_k_is_a_value_error_that_names_k(counts_model, k):
    model, X = counts_model
    with pytest.raises(ValueError, match=r"^k must be an int >= 1"):
        model.predict_top_k(X, k)


def test_bad_mode_and_batch_size_are_named(counts_model):
    model, X = counts_model
    with pytest.raises(ValueError, match="mode must be one of"):
        model.predict_top_k(X, 2, mode="proba")
    for batch_size in (0, 2.5, False):
        with pytest.raises(ValueError, match="batch_size must be None or an int"):
            model.predict_top_k(X, 2, batch_size=batch_size)


def test_nan_scores_are_refused():
    scores = np.array([[0.0, np.nan]])
    with pytest.raises(ValueError, match="NaN"):
        top_k(identity, scores, 1, n_labels=2)


def test_unfitted_model_is_refused():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        BinaryRelevance().predict_top_k(np.ones((2, 3)), 1)


# ---- memory flat in the number of rows --------------------------------------------------------
@pytest.fixture(scope="module")
def extreme():
    X, Y = make_extreme_multilabel(2400, 500, 2000, avg_features=20, random_state=0)
    return BinaryRelevance(events="multinomial", rule="predict").fit(X, Y), X


def _peak_bytes(function):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        function()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("batch_size", [None, 64])
def test_work_memory_is_flat_in_the_number_of_rows(extreme, batch_size):
    model, X = extreme
    k = 1
    model.predict_top_k(X[:10], k)  # anything the model computes once, not measured

    def peak(n):
        return _peak_bytes(lambda: model.predict_top_k(X[:n], k, batch_size=batch_size))

    small, large = peak(600), peak(2400)
    result_growth = 1800 * k * 16 + 1800 * 8  # data, indices and indptr of 3x more rows
    assert large <= 1.2 * small + result_growth
    dense = _peak_bytes(lambda: model.decision_function(X[:2400]))
    assert large < 0.5 * dense  # far below the dense scores of all rows


# ---- Dask: one task per partition, equal to the in-memory result --------------------------------
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("mode", ["scores", "labels"])
def test_dask_top_k_equals_in_memory(client, counts_model, sparse, mode):
    da = pytest.importorskip("dask.array")
    import mlnb.distributed as mlnb_dask

    model, X = counts_model
    # uneven rows, an empty partition, column chunks; the partitions' chunks of 10 rows
    # are those of the in-memory call (the scores of other chunks may differ by rounding)
    chunks = ((30, 0, 50, 20), (3, 5))
    X_dask = da.from_array(X, chunks=chunks)
    if sparse:
        X_dask, X = X_dask.map_blocks(sp.csr_matrix, dtype=X.dtype), sp.csr_matrix(X)
    got = mlnb_dask.predict_top_k(model, X_dask, 3, mode=mode, batch_size=10)
    _assert_identical(got, model.predict_top_k(X, 3, mode=mode, batch_size=10))


def test_dask_dataframe_top_k_equals_in_memory(client, counts_model):
    dd = pytest.importorskip("dask.dataframe")
    import mlnb.distributed as mlnb_dask

    model, X = counts_model
    frame = dd.from_pandas(pd.DataFrame(X), npartitions=4)  # 25 rows each
    got = mlnb_dask.predict_top_k(model, frame, 2, batch_size=25)
    _assert_identical(got, model.predict_top_k(X, 2, batch_size=25))


def test_dask_top_k_errors(counts_model):
    da = pytest.importorskip("dask.array")
    import mlnb.distributed as mlnb_dask

    model, X = counts_model
    X_dask = da.from_array(X, chunks=50)
    with pytest.raises(ValueError, match=r"^k must be an int >= 1"):
        mlnb_dask.predict_top_k(model, X_dask, 0)
    with pytest.raises(ValueError, match="batch_size"):
        mlnb_dask.predict_top_k(model, X_dask, 1, batch_size=0)
    with pytest.raises(TypeError, match="Dask"):
        mlnb_dask.predict_top_k(model, X, 1)


# ---- predict's label forms ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "estimator", [e for _, e in INSTANCES], ids=[name for name, _ in INSTANCES]
)
def test_every_estimator_predicts_bool_and_sparse_labels_by_chunks(estimator, data):
    X, Y, X_test = data
    model = clone(estimator).fit(X, Y)
    chunks = [model.predict(X_test[i : i + 7]) for i in range(0, len(X_test), 7)]
    expected = np.vstack(chunks)
    sparse = model.predict(X_test, output="sparse", batch_size=7)
    assert sp.isspmatrix_csr(sparse) and sparse.shape == expected.shape
    np.testing.assert_array_equal(sparse.toarray(), expected)
    as_bool = model.predict(X_test, output="bool", batch_size=7)
    assert as_bool.dtype == bool
    np.testing.assert_array_equal(as_bool, expected.astype(bool))
    whole = model.predict(X_test, output="sparse")  # one automatic chunk
    np.testing.assert_array_equal(whole.toarray(), model.predict(X_test))


def test_predict_refuses_an_unknown_output(counts_model):
    model, X = counts_model
    with pytest.raises(ValueError, match="output must be one of"):
        model.predict(X, output="csr")


def test_predict_keeps_its_own_arguments_in_every_output():
    X, Y = dependent_labels(3, n=60)
    chain = ClassifierChain(events="gaussian", rule="predict").fit(X, Y)
    order = np.arange(Y.shape[1])[::-1]
    expected = chain.predict(X, order=order)
    sparse = chain.predict(X, order=order, output="sparse", batch_size=11)
    np.testing.assert_array_equal(sparse.toarray(), expected)
