"""save_arff: files that load_arff and liac-arff read back to the same data, in both layouts."""

from __future__ import annotations

import bz2

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from mlnb.datasets import Dataset, load_arff, save_arff

arff = pytest.importorskip("arff")  # liac-arff

LAYOUTS = ["mulan", "meka"]


def _data(seed=0, n=12, d=5, L=3):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    X[X < 0.6] = 0.0
    X[0, 0], X[1, 1], X[2, 2] = 0.1, 1e-7, 123456789.0
    X[:, -1] = rng.integers(0, 3, n)  # a nominal feature's codes
    Y = (rng.random((n, L)) < 0.4).astype(np.uint8)
    return X, Y


FEATURES = ["f 1", "f,2", "f3", "f{4}", "colour"]
LABELS = ["tag a", "tag%b", "tag_c"]
CATEGORIES = {"colour": ("red", "dark green", "blue")}


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("sparse", [False, True])
def test_round_trip_through_load_arff_and_liac_arff(tmp_path, layout, sparse):
    X, Y = _data()
    path = tmp_path / "data.arff"
    written = save_arff(
        path, sp.csr_matrix(X) if sparse else X, Y, label_names=LABELS,
        feature_names=FEATURES, categories=CATEGORIES, layout=layout,
    )  # fmt: skip
    assert written[0] == path and (len(written) == 2) == (layout == "mulan")
    ours = load_arff(path)
    assert ours.is_sparse == sparse
    np.testing.assert_array_equal(_dense(ours.X), X)
    np.testing.assert_array_equal(ours.Y, Y)
    assert (ours.feature_names, ours.label_names) == (FEATURES, LABELS)
    assert ours.categories == CATEGORIES

    with open(path, encoding="utf-8") as f:
        theirs = arff.load(f, return_type=arff.COO if sparse else arff.DENSE)
    names = [a[0] for a in theirs["attributes"]]
    order = LABELS + FEATURES if layout == "meka" else FEATURES + LABELS
    assert names == order
    assert theirs["attributes"][names.index("colour")][1] == list(CATEGORIES["colour"])
    if sparse:
        values, (rows, cols) = theirs["data"][0], theirs["data"][1:]
        table = np.zeros((X.shape[0], len(names)), dtype=object)
        table[rows, cols] = values
    else:
        table = np.array(theirs["data"], dtype=object)
    colour = list(CATEGORIES["colour"])
    for j, name in enumerate(names):
        column = table[:, j]
        if name == "colour":  # liac-arff gives the value; a sparse 0 is the first value
            codes = [colour.index(v) if isinstance(v, str) else int(v) for v in column]
            np.testing.assert_array_equal(codes, X[:, FEATURES.index(name)])
        elif name in LABELS:
            np.testing.assert_array_equal(column.astype(float), Y[:, LABELS.index(name)])
        else:
            np.testing.assert_array_equal(column.astype(float), X[:, FEATURES.index(name)])


def test_the_meka_header_and_the_mulan_xml(tmp_path):
    X, Y = _data()
    save_arff(tmp_path / "m.arff", X, Y, relation="Music: -C 9", layout="meka")
    head = (tmp_path / "m.arff").read_text().splitlines()
    assert head[0] == "@relation 'Music: -C 3'"  # the count of this data, not the old one
    assert head[2:5] == [f"@attribute y{j} {{0,1}}" for j in range(3)]
    assert not (tmp_path / "m.xml").exists()
    save_arff(tmp_path / "u.arff.gz", X, Y, relation="Music: -C 9")
    assert load_arff(tmp_path / "u.arff.gz").relation == "Music"
    xml = (tmp_path / "u.xml").read_text()
    assert 'xmlns="http://mulan.sourceforge.net/labels"' in xml
    assert xml.count("<label name=") == 3


def test_names_that_need_escapes_come_back_exactly(tmp_path):
    X, Y = _data(d=3, L=2)
    features = ["it's", "back\\slash", 'say "hi"']
    labels = ["new\nline", "?odd"]
    save_arff(tmp_path / "e.arff", X, Y, feature_names=features, label_names=labels)
    data = load_arff(tmp_path / "e.arff")
    assert (data.feature_names, data.label_names) == (features, labels)


def test_a_dataset_and_compressed_files(tmp_path):
    X, Y = _data()
    data = Dataset(X, Y, FEATURES, LABELS, name="toy", categories=CATEGORIES)
    save_arff(tmp_path / "toy.arff.bz2", data, layout="meka")
    with bz2.open(tmp_path / "toy.arff.bz2", "rt") as f:
        assert f.readline() == "@relation 'toy: -C 3'\n"
    back = load_arff(tmp_path / "toy.arff.bz2")
    np.testing.assert_array_equal(back.X, X)
    assert back.categories == CATEGORIES and back.name == "toy"
    with pytest.raises(ValueError, match="X is a Dataset, which brings its own Y"):
        save_arff(tmp_path / "x.arff", data, Y)


def test_unknown_labels_and_missing_values(tmp_path):
    X, _ = _data(n=4)
    X[1, 0] = np.nan
    for sparse in (False, True):
        path = tmp_path / f"predict-{sparse}.arff"
        save_arff(path, X, None, label_names=["a", "b"], layout="meka", sparse=sparse)
        data = load_arff(path, unknown_labels="allow", missing="nan")
        assert data.Y is None and data.label_names == ["a", "b"]
        np.testing.assert_array_equal(_dense(data.X), X)  # NaN written as '?'


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda p, X, Y: save_arff(p, X, Y, layout="weka"), "layout: expected one of"),
        (lambda p, X, Y: save_arff(p, X, Y * 2), "label values must be 0 or 1"),
        (lambda p, X, Y: save_arff(p, X, Y[:3]), r"Y: expected a 0/1 matrix of shape \(12, L\)"),
        (lambda p, X, Y: save_arff(p, X, None), "needs label_names"),
        (lambda p, X, Y: save_arff(p, X, Y, label_names=["a"]), "label_names: expected 3"),
        (lambda p, X, Y: save_arff(p, X, Y, feature_names=["a"] * 5), "'a' is both"),
        (lambda p, X, Y: save_arff(p, np.full_like(X, np.inf), Y), "infinite"),
        (
            lambda p, X, Y: save_arff(p, X, Y, feature_names=FEATURES, categories={"f3": ("a",)}),
            "nominal feature 'f3' must hold value indices 0..0",
        ),
        (lambda p, X, Y: save_arff(p, X, Y, categories={"nope": ("a",)}), "not a feature"),
    ],
)
def test_bad_input_is_named(tmp_path, call, message):
    X, Y = _data()
    with pytest.raises(ValueError, match=message):
        call(tmp_path / "bad.arff", X, Y)


finite = st.floats(allow_nan=True, allow_infinity=False, width=64)


@settings(max_examples=40, deadline=None)
@given(
    X=hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 4)), elements=finite),
    labels=st.integers(1, 3),
    layout=st.sampled_from(LAYOUTS),
    sparse=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_every_float_reads_back_bit_for_bit(tmp_path_factory, X, labels, layout, sparse, seed):
    Y = np.random.default_rng(seed).integers(0, 2, (X.shape[0], labels))
    path = tmp_path_factory.mktemp("h") / "h.arff"
    save_arff(path, sp.csr_matrix(X) if sparse else X, Y, layout=layout)
    data = load_arff(path, missing="nan")
    np.testing.assert_array_equal(_dense(data.X), X)  # NaN equal to NaN, -0.0 to 0.0
    np.testing.assert_array_equal(data.Y, Y)


@pytest.mark.parametrize(("name", "layout"), [("flags", "meka"), ("meka_music", "mulan")])
def test_real_sets_move_between_the_layouts(data_root, tmp_path, name, layout):
    """flags (Mulan, nominal and numeric features) to MEKA; MEKA's Music to Mulan."""
    from mlnb.datasets import load_dataset

    data = load_dataset(name, data_root, split="train")
    save_arff(tmp_path / "copy.arff", data, layout=layout)
    back = load_arff(tmp_path / "copy.arff")
    np.testing.assert_array_equal(back.X, data.X)
    np.testing.assert_array_equal(back.Y, data.Y)
    assert (back.feature_names, back.label_names) == (data.feature_names, data.label_names)
    assert back.categories == data.categories
