"""multi_target=True: multi-target ARFF data (sf2, MEKA ``-C N``) read as classes, not
binarised; `dataset_kind` tells multi-target sets from multi-label ones."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from mlnb.datasets import ArffError, dataset_kind, load_arff, load_dataset
from mlnb.datasets._dataset import concatenate

# MEKA layout: the first 2 attributes are nominal targets, then a nominal and a numeric feature.
HEAD = (
    "@relation 'toy: -C 2'\n@attribute size {low,mid,high}\n@attribute colour {red,blue}\n"
    "@attribute shape {round,square}\n@attribute x numeric\n@data\n"
)
DENSE = HEAD + "high,red,square,0.5\nlow,blue,round,0\nmid,red,round,2\nlow,red,square,1\n"
# the same rows; an omitted entry is code 0 (the first declared value), as in WEKA
SPARSE = HEAD + "{0 high,2 square,3 0.5}\n{1 blue}\n{0 mid,3 2}\n{2 square,3 1}\n"
CODES = [[2, 0], [0, 1], [1, 0], [0, 0]]


def _file_targets(path, n_targets: int) -> list[list[int]]:
    """The last ``n_targets`` values of every data row, read from the text independently."""
    rows, in_data = [], False
    for line in path.read_text().splitlines():
        s = line.strip()
        if not s or s.startswith("%"):
            continue
        if in_data:
            rows.append([int(v) for v in s.split(",")[-n_targets:]])
        in_data = in_data or s.lower().startswith("@data")
    return rows


@pytest.fixture(scope="module")
def sf2(data_root):
    """sf2 as classes, and the targets of its file."""
    path = data_root / "multitarget" / "sf2" / "sf2.arff"
    return load_dataset("sf2", data_root, multi_target=True), _file_targets(path, 3)


def test_sf2_targets_are_the_counts_of_the_file(sf2):
    ds, rows = sf2
    assert ds.Y.shape == (1066, 3) and ds.Y.dtype == np.int64
    assert ds.label_names == ["c-class", "m-class", "x-class"]
    np.testing.assert_array_equal(ds.Y, np.array(rows))
    counts = Counter(int(v) for v in ds.Y[:, 0])
    assert counts == Counter(r[0] for r in rows)
    assert (counts[0], counts[1], counts[2]) == (884, 112, 33)
    for j, classes in enumerate(ds.target_classes):
        assert classes.dtype == np.int64
        assert classes.tolist() == sorted({r[j] for r in rows})


def test_sf2_default_load_is_binarised_as_before(data_root, sf2):
    ds, _ = sf2
    binary = load_dataset("sf2", data_root)
    assert binary.Y.dtype == np.uint8 and binary.target_classes is None
    np.testing.assert_array_equal(binary.Y, ds.Y > 0)
    np.testing.assert_array_equal(binary.X, ds.X)
    path = data_root / "multitarget" / "sf2" / "sf2.arff"
    np.testing.assert_array_equal(load_arff(path, labels=-3, label_threshold=0).Y, binary.Y)


@pytest.mark.parametrize("text", [DENSE, SPARSE], ids=["dense", "sparse"])
def test_nominal_targets_hold_declared_value_codes(write, text):
    ds = load_arff(write("toy.arff", text), multi_target=True)
    assert isinstance(ds.Y, np.ndarray) and ds.Y.dtype == np.int64
    np.testing.assert_array_equal(ds.Y, CODES)
    assert [c.tolist() for c in ds.target_classes] == [["low", "mid", "high"], ["red", "blue"]]
    names = [[ds.target_classes[j][ds.Y[i, j]] for j in range(2)] for i in range(4)]
    assert names[0] == ["high", "red"] and names[1] == ["low", "blue"]
    assert ds.label_names == ["size", "colour"] and ds.feature_names == ["shape", "x"]
    assert ds.is_sparse == (text is SPARSE)  # targets are dense whatever the rows
    X = ds.X.toarray() if ds.is_sparse else ds.X
    np.testing.assert_array_equal(X, [[1, 0.5], [0, 0], [0, 2], [1, 1]])


def test_nominal_targets_without_multi_target_are_refused_as_before(write):
    with pytest.raises(ArffError, match="'size' must be numeric or nominal with numeric") as err:
        load_arff(write("toy.arff", DENSE))
    # the way out, for Python and for the command line
    assert "multi_target=True, or --multi-target in the CLI" in str(err.value)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_non_integer_numeric_target_is_an_error(write, sparse):
    head = "@relation 'nt: -C -1'\n@attribute x numeric\n@attribute count numeric\n@data\n"
    rows = "{0 1,1 2}\n{0 3,1 1.5}\n" if sparse else "1,2\n3,1.5\n"
    path = write("nt.arff", head + rows)
    with pytest.raises(ArffError, match=r"target 'count' has value 1\.5, not an integer") as err:
        load_arff(path, multi_target=True)
    assert "class-valued" in str(err.value) and "nt.arff" in str(err.value)
    assert err.value.line == 6
    np.testing.assert_array_equal(load_arff(path, label_threshold=1).Y.ravel(), [1, 1])


def test_unknown_target_follows_the_existing_options(write):
    path = write("u.arff", HEAD + "high,red,square,0.5\n?,blue,round,0\n")
    with pytest.raises(ArffError, match="missing value '\\?' for label 'size'"):
        load_arff(path, multi_target=True)
    np.testing.assert_array_equal(
        load_arff(path, multi_target=True, missing="zero").Y, [[2, 0], [0, 1]]
    )
    cells = load_arff(path, multi_target=True, unknown_labels="cells").Y
    np.testing.assert_array_equal(cells, [[2, 0], [np.nan, 1]])


def test_label_threshold_with_multi_target_is_a_value_error(write):
    with pytest.raises(ValueError, match="label_threshold and multi_target=True"):
        load_arff(write("toy.arff", DENSE), multi_target=True, label_threshold=0)


def test_load_dataset_multi_target_of_a_file_points_to_load_arff(write):
    with pytest.raises(ValueError, match="load_arff"):
        load_dataset(write("toy.arff", DENSE), multi_target=True)


def test_concatenate_unites_numeric_classes(write):
    head = "@relation 'c: -C 1'\n@attribute n numeric\n@attribute y {a,b}\n@data\n"
    parts = [
        load_arff(write(f"p{k}.arff", head + rows), multi_target=True)
        for k, rows in enumerate(["0,a\n2,b\n", "5,a\n"])
    ]
    both = concatenate(parts, name="both")
    assert both.target_classes[0].tolist() == [0, 2, 5]
    np.testing.assert_array_equal(both.Y.ravel(), [0, 2, 5])
    assert parts[0].subset([1]).target_classes[0].tolist() == [0, 2]


def test_dataset_kind(data_root, tmp_path):
    assert dataset_kind("sf2", data_root) == "multi-target"
    assert dataset_kind("emotions", data_root) == "multi-label"
    assert dataset_kind("birds", data_root) == "multi-label"
    folder = tmp_path / "multitarget" / "toy_mt"
    folder.mkdir(parents=True)
    (folder / "toy.arff").write_text(DENSE)
    assert dataset_kind("toy_mt", tmp_path) == "multi-target"
    assert load_dataset("toy_mt", tmp_path, multi_target=True).Y.tolist() == CODES
    with pytest.raises(ValueError, match="unknown data set"):
        dataset_kind("no_such_set", data_root)


def test_sf2_read_in_small_blocks_equals_one_block(data_root, sf2, monkeypatch):
    from mlnb.datasets import _arff

    monkeypatch.setattr(_arff, "_LOAD_BLOCK", 500)  # about 12 rows a block
    for cells in ("error", "cells"):
        ds = load_dataset("sf2", data_root, multi_target=True, unknown_labels=cells)
        assert ds.Y.dtype == np.int64
        np.testing.assert_array_equal(ds.Y, sf2[0].Y)
