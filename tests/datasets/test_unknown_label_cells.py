"""unknown_labels="cells": label values ``?`` (ARFF) or empty label cells (CSV) as unknown
cells, NaN in a float64 Y, which the estimators learn each label from the rows where known."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from mlnb import BinaryRelevance
from mlnb.datasets import ArffError, Dataset, iter_arff, load_arff, load_dataset, load_table
from mlnb.datasets._dataset import concatenate

NAN = np.nan

# MEKA layout: the first 3 attributes are labels (a nominal, b numeric, c nominal).
HEAD = (
    "@relation 'cells: -C 3'\n@attribute a {0,1}\n@attribute b numeric\n@attribute c {0,1}\n"
    "@attribute x1 numeric\n@attribute x2 numeric\n@attribute x3 numeric\n@data\n"
)
DENSE = HEAD + "1,?,0,3,0,1\n?,1,1,0,2,0\n0,0,?,1,1,1\n?,?,?,4,0,2\n1,1,1,0,3,1\n"
SPARSE = HEAD + (
    "{0 1,1 ?,3 3,5 1}\n{0 ?,1 1,2 1,4 2}\n{2 ?,3 1,4 1,5 1}\n{0 ?,1 ?,2 ?,3 4,5 2}\n"
    "{0 1,1 1,2 1,4 3,5 1}\n"
)
Y_CELLS = np.array(
    [[1, NAN, 0], [NAN, 1, 1], [0, 0, NAN], [NAN, NAN, NAN], [1, 1, 1]], dtype=np.float64
)
X_CELLS = np.array([[3, 0, 1], [0, 2, 0], [1, 1, 1], [4, 0, 2], [0, 3, 1]], dtype=np.float64)
KNOWN = "1,0,0,3,0,1\n0,1,1,0,2,0\n0,0,1,1,1,1\n"


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


# ------------------------------------------------------------------ ARFF, whole file


@pytest.mark.parametrize("text", [DENSE, SPARSE], ids=["dense", "sparse"])
def test_question_marks_are_nan_cells(write, text):
    ds = load_arff(write("cells.arff", text), unknown_labels="cells")
    assert ds.Y.dtype == np.float64 and ds.Y.shape == (5, 3)
    np.testing.assert_array_equal(ds.Y, Y_CELLS)  # NaN where '?', 0/1 elsewhere
    np.testing.assert_array_equal(_dense(ds.X), X_CELLS)
    assert ds.label_names == ["a", "b", "c"] and ds.feature_names == ["x1", "x2", "x3"]
    assert sp.issparse(ds.X) == (text is SPARSE)


def test_omitted_sparse_entry_is_a_known_negative(write):
    path = write("omit.arff", HEAD + "{0 ?,3 1}\n{1 1,4 2}\n")
    np.testing.assert_array_equal(
        load_arff(path, unknown_labels="cells").Y, [[NAN, 0, 0], [0, 1, 0]]
    )


def test_literal_nan_in_a_numeric_label_is_unknown(write):
    path = write("nan.arff", HEAD + "1,nan,0,3,0,1\n0,NaN,1,0,2,0\n1,1,0,1,1,1\n")
    Y = load_arff(path, unknown_labels="cells").Y
    np.testing.assert_array_equal(Y, [[1, NAN, 0], [0, NAN, 1], [1, 1, 0]])


@pytest.mark.parametrize("sparse", [False, True])
def test_sparse_option_does_not_change_y(write, sparse):
    path = write("cells.arff", DENSE)
    ds = load_arff(path, unknown_labels="cells", sparse=sparse)
    assert sp.issparse(ds.X) == sparse
    np.testing.assert_array_equal(ds.Y, Y_CELLS)


@pytest.mark.parametrize("rows", [KNOWN, "{0 1,3 3,5 1}\n{1 1,2 1,4 2}\n{2 1,3 1}\n"])
def test_without_unknown_cells_y_is_that_of_error(write, rows):
    path = write("known.arff", HEAD + rows)
    cells, error = load_arff(path, unknown_labels="cells"), load_arff(path)
    assert cells.Y.dtype == error.Y.dtype == np.uint8
    np.testing.assert_array_equal(cells.Y, error.Y)
    np.testing.assert_array_equal(_dense(cells.X), _dense(error.X))
    assert [Y.dtype for _, Y in iter_arff(path, unknown_labels="cells", chunk_size=2)] == [
        np.uint8,
        np.uint8,
    ]


@pytest.mark.parametrize(
    "rows", ["?,?,?,1,2,3\n?,?,?,4,5,6\n", "{0 ?,1 ?,2 ?,3 1}\n{0 ?,1 ?,2 ?}\n"]
)
def test_all_cells_unknown_gives_y_none_as_allow(write, rows):
    path = write("predict.arff", HEAD + rows)
    cells, allow = load_arff(path, unknown_labels="cells"), load_arff(path, unknown_labels="allow")
    assert cells.Y is None and allow.Y is None
    assert cells.label_names == allow.label_names == ["a", "b", "c"]
    np.testing.assert_array_equal(_dense(cells.X), _dense(allow.X))


def test_label_threshold_keeps_unknown_cells(write):
    text = (
        "@relation 'mt: -C 2'\n@attribute t1 numeric\n@attribute t2 numeric\n"
        "@attribute x numeric\n@data\n0.7,?,1\n?,-2,2\n0.2,5,3\n"
    )
    path = write("targets.arff", text)
    Y = load_arff(path, unknown_labels="cells", label_threshold=0.5).Y
    np.testing.assert_array_equal(Y, [[1, NAN], [NAN, 0], [0, 1]])
    with pytest.raises(ArffError, match="label values are unknown"):
        load_arff(path, unknown_labels="allow", label_threshold=0.5)


def test_bad_known_value_is_still_an_error(write):
    path = write("bad.arff", HEAD + "1,?,0,3,0,1\n0,2,1,0,2,0\n")
    with pytest.raises(ArffError, match=r"line 10: label 'b' has value 2; labels must be 0/1"):
        load_arff(path, unknown_labels="cells")


def test_other_modes_unchanged_and_messages_name_cells(write):
    path = write("cells.arff", DENSE)
    with pytest.raises(ArffError, match=r"line 9: missing value '\?' for label 'b'.*'cells'"):
        load_arff(path)
    with pytest.raises(ArffError, match=r"label values are unknown.*unknown_labels='cells'"):
        load_arff(path, unknown_labels="allow")
    zero = load_arff(path, missing="zero")  # '?' labels read as 0, as before
    np.testing.assert_array_equal(zero.Y, np.nan_to_num(Y_CELLS).astype(np.uint8))
    assert zero.Y.dtype == np.uint8


@pytest.mark.parametrize("value", ["yes", "Cells", None, "nan"])
def test_invalid_option_is_rejected_with_the_options(write, tmp_path, value):
    path = write("cells.arff", DENSE)
    listed = r"expected one of \('error', 'allow', 'cells'\)"
    with pytest.raises(ValueError, match=f"unknown_labels: {listed}"):
        load_arff(path, unknown_labels=value)
    with pytest.raises(ValueError, match=f"unknown_labels: {listed}"):
        iter_arff(path, unknown_labels=value)
    csv = tmp_path / "t.csv"
    csv.write_text("y,x\n1,0.5\n")
    with pytest.raises(ValueError, match=f"unknown_labels: {listed}"):
        load_table(csv, labels=1, unknown_labels=value)


# ------------------------------------------------------------------ ARFF, in chunks


def _stacked(chunks):
    return np.concatenate([Y.astype(np.float64) for Y in chunks])


@pytest.mark.parametrize("text", [DENSE, SPARSE], ids=["dense", "sparse"])
@pytest.mark.parametrize("chunk_size", [1, 2, 3, 10])
def test_chunks_equal_the_whole_file(write, text, chunk_size):
    path = write("cells.arff", text)
    whole = load_arff(path, unknown_labels="cells")
    chunks = list(iter_arff(path, unknown_labels="cells", chunk_size=chunk_size))
    assert [X.shape[0] for X, _ in chunks] == [
        min(chunk_size, 5 - k) for k in range(0, 5, chunk_size)
    ]
    for X, Y in chunks:  # uint8 without unknown cells, float64 with NaN otherwise
        assert Y is not None and Y.shape == (X.shape[0], 3)
        assert Y.dtype == (np.float64 if np.isnan(Y.astype(float)).any() else np.uint8)
    np.testing.assert_array_equal(_stacked([Y for _, Y in chunks]), whole.Y)
    X = sp.vstack([sp.csr_matrix(X) for X, _ in chunks]).toarray()
    np.testing.assert_array_equal(X, _dense(whole.X))


def test_a_chunk_whose_cells_are_all_unknown_is_all_nan(write):
    path = write("cells.arff", DENSE)
    chunks = [Y for _, Y in iter_arff(path, unknown_labels="cells", chunk_size=1)]
    assert chunks[3].dtype == np.float64 and np.isnan(chunks[3]).all()
    assert chunks[4].dtype == np.uint8  # a chunk without unknown cells: as "error"
    path = write("first.arff", HEAD + "?,?,?,4,0,2\n" + KNOWN)
    allow = [Y for _, Y in iter_arff(path, unknown_labels="allow", chunk_size=1)]
    assert allow[0] is None and allow[1].dtype == np.uint8  # "allow" unchanged
    cells = [Y for _, Y in iter_arff(path, unknown_labels="cells", chunk_size=2)]
    np.testing.assert_array_equal(cells[0], [[NAN, NAN, NAN], [1, 0, 0]])


def test_blocks_of_load_arff_stack_as_float_with_nan(write, monkeypatch):
    from mlnb.datasets import _arff

    text = HEAD + "1,0,0,3,0,1\n?,?,?,1,1,1\n0,1,1,0,2,0\n1,?,0,1,0,0\n"
    path = write("blocks.arff", text)
    whole = load_arff(path, unknown_labels="cells")
    monkeypatch.setattr(_arff, "_LOAD_BLOCK", 1)  # one data line per block
    blocks = load_arff(path, unknown_labels="cells")
    expected = [[1, 0, 0], [NAN, NAN, NAN], [0, 1, 1], [1, NAN, 0]]
    for Y in (whole.Y, blocks.Y):
        assert Y.dtype == np.float64
        np.testing.assert_array_equal(Y, expected)
    known = write("known.arff", HEAD + KNOWN)
    assert load_arff(known, unknown_labels="cells").Y.dtype == np.uint8
    assert (
        load_arff(write("none.arff", HEAD + "?,?,?,1,1,1\n" * 3), unknown_labels="cells").Y is None
    )


# ------------------------------------------------------------------ CSV and load_dataset


def test_csv_empty_label_cells(tmp_path):
    pytest.importorskip("pandas")
    path = tmp_path / "cells.csv"
    path.write_text("y1,y2,y3,x1,x2\n1,,0,3,0\n,1,1,0,2\n0,0,?,1,1\n,,,4,0\n1,1,1,0,3\n")
    ds = load_table(path, labels=3, unknown_labels="cells")
    assert ds.Y.dtype == np.float64
    np.testing.assert_array_equal(ds.Y, Y_CELLS)
    np.testing.assert_array_equal(ds.X, X_CELLS[:, :2])
    with pytest.raises(ValueError, match=r"line 2: missing value in label column 'y2'.*'cells'"):
        load_table(path, labels=3)
    with pytest.raises(ValueError, match=r"line 2: missing value in label column 'y2'"):
        load_table(path, labels=3, unknown_labels="allow")
    same = load_dataset(path, labels=3, unknown_labels="cells")  # passed through
    np.testing.assert_array_equal(same.Y, Y_CELLS)
    path.write_text("y1,y2,x\n1,,0.5\n0,2,1\n")
    with pytest.raises(ValueError, match=r"line 3: label column 'y2' holds '2"):
        load_table(path, labels=2, unknown_labels="cells")


def test_csv_without_and_with_only_unknown_cells(tmp_path):
    pytest.importorskip("pandas")
    known = tmp_path / "known.csv"
    known.write_text("y1,y2,x\n1,0,0.5\n0,1,1\n")
    cells, error = load_table(known, labels=2, unknown_labels="cells"), load_table(known, labels=2)
    assert cells.Y.dtype == error.Y.dtype == np.uint8
    np.testing.assert_array_equal(cells.Y, error.Y)
    empty = tmp_path / "new.csv"
    empty.write_text("y1,y2,x\n,,0.5\n,,1\n")
    assert load_table(empty, labels=2, unknown_labels="cells").Y is None


def test_load_dataset_passes_cells_to_arff_files(write):
    path = write("cells.arff", DENSE)
    np.testing.assert_array_equal(load_dataset(path, unknown_labels="cells").Y, Y_CELLS)
    with pytest.raises(ArffError, match="missing value"):
        load_dataset(path)


# ------------------------------------------------------------------ Dataset


def test_dataset_subset_and_concatenate_keep_unknown_cells(write):
    ds = load_arff(write("cells.arff", DENSE), unknown_labels="cells")
    np.testing.assert_array_equal(ds.subset([0, 3]).Y, Y_CELLS[[0, 3]])
    known = load_arff(write("known.arff", HEAD + KNOWN), unknown_labels="cells")
    both = concatenate([known, ds], name="both")
    assert both.Y.dtype == np.float64 and both.n_samples == 8
    np.testing.assert_array_equal(both.Y[:3], known.Y)
    np.testing.assert_array_equal(both.Y[3:], Y_CELLS)
    unlabelled = load_arff(write("none.arff", HEAD + "?,?,?,1,1,1\n"), unknown_labels="cells")
    mixed = concatenate([ds, unlabelled], name="mixed")
    assert np.isnan(mixed.Y[5:]).all() and mixed.n_samples == 6
    with pytest.raises(ValueError, match=r"one has unknown labels \(Y=None\)"):
        concatenate([known, unlabelled], name="no cells")  # unchanged without NaN cells
    assert isinstance(mixed, Dataset)


# ------------------------------------------------------------------ estimators


def _per_label_log_odds(X, Y, X_test):
    """Each label fitted on the rows where it is known only, as a one-label model."""
    columns = []
    for j in range(Y.shape[1]):
        rows = np.flatnonzero(~np.isnan(Y[:, j]))
        alone = BinaryRelevance(events="multinomial", rule="predict")
        alone.fit(X[rows], Y[rows, j : j + 1].astype(int))
        columns.append(alone.predict_log_odds(X_test)[:, 0])
    return np.column_stack(columns)


@pytest.mark.parametrize("sparse", [False, True])
def test_binary_relevance_learns_each_label_from_its_known_rows(write, sparse):
    rng = np.random.default_rng(3)
    n, d = 40, 6
    Y = (rng.random((n, 3)) < 0.5).astype(float)
    X = rng.poisson(1 + 3 * Y @ rng.random((3, d)))
    Y[rng.random(Y.shape) < 0.25] = NAN
    Y[0] = [1, 0, NAN]  # every label keeps both classes among its known rows
    Y[1] = [0, 1, 1]
    Y[2] = [NAN, NAN, 0]
    labels = ["?" if np.isnan(v) else str(int(v)) for v in Y.ravel()]
    rows = []
    for i in range(n):
        values = labels[3 * i : 3 * i + 3] + [str(int(v)) for v in X[i]]
        if sparse:
            pairs = [f"{k} {v}" for k, v in enumerate(values) if v != "0"]
            rows.append("{" + ",".join(pairs) + "}")
        else:
            rows.append(",".join(values))
    features = "".join(f"@attribute x{k} numeric\n" for k in range(d))
    text = (
        "@relation 'rt: -C 3'\n@attribute a {0,1}\n@attribute b {0,1}\n@attribute c {0,1}\n"
        + features
        + "@data\n"
        + "\n".join(rows)
        + "\n"
    )
    ds = load_arff(write("rt.arff", text), unknown_labels="cells")
    np.testing.assert_array_equal(ds.Y, Y)
    np.testing.assert_array_equal(_dense(ds.X), X)
    model = BinaryRelevance(events="multinomial", rule="predict").fit(ds.X, ds.Y)
    X_test = rng.poisson(2.0, size=(7, d))
    expected = _per_label_log_odds(X.astype(float), Y, X_test)
    assert np.allclose(model.predict_log_odds(X_test), expected)


def test_real_prediction_file_with_cells_is_y_none(data_root):
    path = data_root / "multilabel/meka_music/Music_missing_classes.arff"
    cells = load_arff(path, unknown_labels="cells")
    assert cells.Y is None and (cells.n_samples, cells.n_labels) == (592, 6)
    music = load_arff(data_root / "multilabel/meka_music/Music.arff", unknown_labels="cells")
    assert music.Y.dtype == np.uint8
    np.testing.assert_array_equal(
        music.Y, load_arff(data_root / "multilabel/meka_music/Music.arff").Y
    )
