"""ARFF reader: exact cases on small hand-made files, invariants, malformed input."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mlnb.datasets import ArffError, Dataset, describe, iter_arff, load_arff
from mlnb.datasets._arff import _parse_decimals

DENSE = """% a comment
@relation toy

@attribute f1 numeric
@attribute f2 real
@attribute y1 {0,1}
@attribute f3 integer
@attribute y2 {0,1}

@data
1.5,-2,1,3,0
% comment inside data
0,0.25,0,1,1

2,1e2,1,0,1
"""

SPARSE = """@relation toy
@attribute f1 numeric
@attribute f2 real
@attribute y1 {0,1}
@attribute f3 integer
@attribute y2 {0,1}
@data
{0 1.5,1 -2,2 1,3 3}
{1 0.25,3 1,4 1}
{0 2,1 100,2 1,4 1}
"""

X_TOY = np.array([[1.5, -2, 3], [0, 0.25, 1], [2, 100, 0]])
Y_TOY = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.uint8)


def test_dense_mulan_with_xml_beside(write):
    path = write("toy.arff", DENSE, xml=["y1", "y2"])
    ds = load_arff(path)
    assert isinstance(ds, Dataset)
    assert isinstance(ds.X, np.ndarray) and ds.X.dtype == np.float64
    np.testing.assert_array_equal(ds.X, X_TOY)
    assert ds.Y.dtype == np.uint8
    np.testing.assert_array_equal(ds.Y, Y_TOY)
    assert ds.feature_names == ["f1", "f2", "f3"]
    assert ds.label_names == ["y1", "y2"]
    assert ds.name == "toy" and ds.relation == "toy"
    assert (ds.n_samples, ds.n_features, ds.n_labels) == (3, 3, 2)
    assert ds.dropped == ()


def test_sparse_rows_give_csr_equal_to_dense(write):
    ds = load_arff(write("toy.arff", SPARSE, xml=["y1", "y2"]))
    assert sp.issparse(ds.X) and ds.X.format == "csr" and ds.X.dtype == np.float64
    np.testing.assert_array_equal(ds.X.toarray(), X_TOY)
    np.testing.assert_array_equal(ds.Y, Y_TOY)
    dense = load_arff(write("toy2.arff", SPARSE), labels=["y1", "y2"], sparse=False)
    np.testing.assert_array_equal(dense.X, X_TOY)


def test_xml_label_order_is_the_xml_order(write):
    ds = load_arff(write("toy.arff", DENSE, xml=["y2", "y1"]))
    assert ds.label_names == ["y2", "y1"]
    np.testing.assert_array_equal(ds.Y, Y_TOY[:, ::-1])


def test_xml_for_train_file_found_without_suffix(write, tmp_path):
    write("toy.arff", DENSE, xml=["y1", "y2"])
    (tmp_path / "toy-train.arff").write_text(DENSE)
    assert load_arff(tmp_path / "toy-train.arff").label_names == ["y1", "y2"]


def test_xml_given_explicitly_with_nested_labels(write, tmp_path):
    path = write("toy.arff", DENSE)
    xml = tmp_path / "labels.xml"
    xml.write_text(
        '<labels xmlns="http://mulan.sourceforge.net/labels">'
        '<label name="y1"><label name="y2"></label></label></labels>'
    )
    ds = load_arff(path, labels=xml)
    assert ds.label_names == ["y1", "y2"]
    ds2 = load_arff(path, labels=str(xml))
    np.testing.assert_array_equal(ds.Y, ds2.Y)


@pytest.mark.parametrize(
    ("count", "labels", "features", "Y", "X"),
    [
        (2, ["a", "b"], ["c", "d"], [[1, 0], [0, 1]], [[1, 1], [0, 1]]),
        (-2, ["c", "d"], ["a", "b"], [[1, 1], [0, 1]], [[1, 0], [0, 1]]),
    ],
)
def test_meka_relation_count_both_signs(write, count, labels, features, Y, X):
    text = (
        f"@relation 'Toy: -C {count} -split-number 1'\n"
        "@attribute a numeric\n@attribute b {0,1}\n@attribute c {0,1}\n@attribute d numeric\n"
        "@data\n1,0,1,1\n0,1,0,1\n"
    )
    ds = load_arff(write("meka.arff", text))
    assert ds.label_names == labels and ds.feature_names == features
    np.testing.assert_array_equal(ds.Y, Y)
    np.testing.assert_array_equal(ds.X, X)
    assert "-split-number 1" in ds.relation


def test_meka_numeric_labels_and_int_argument(write):
    text = "@relation r\n@attribute y numeric\n@attribute x numeric\n@data\n1,5\n0,6\n1,7\n"
    ds = load_arff(write("m.arff", text), labels=1)
    np.testing.assert_array_equal(ds.Y[:, 0], [1, 0, 1])
    np.testing.assert_array_equal(ds.X[:, 0], [5, 6, 7])
    ds = load_arff(write("m2.arff", text), labels=-1, label_threshold=5.5)
    np.testing.assert_array_equal(ds.Y[:, 0], [0, 1, 1])


def test_xml_beside_wins_over_meka_count(write):
    text = "@relation 'r: -C 1'\n@attribute a {0,1}\n@attribute b {0,1}\n@data\n1,0\n"
    assert load_arff(write("w.arff", text, xml=["b"])).label_names == ["b"]


def test_no_label_information_is_an_error(write):
    path = write("none.arff", "@relation r\n@attribute a numeric\n@data\n1\n")
    with pytest.raises(ArffError, match="no label information"):
        load_arff(path)


@pytest.mark.parametrize("bad", [0, 3, -3])
def test_label_count_out_of_range(write, bad):
    path = write("c.arff", "@relation r\n@attribute a numeric\n@attribute b numeric\n@data\n")
    with pytest.raises(ValueError, match="labels="):
        load_arff(path, labels=bad)


def test_label_xml_mismatch_names_expected_and_found(write):
    path = write("mis.arff", DENSE, xml=["y1", "zz", "ww"])
    with pytest.raises(ArffError) as err:
        load_arff(path)
    msg = str(err.value)
    assert "mis.xml" in msg and "mis.arff" in msg
    assert "'zz'" in msg and "'ww'" in msg and "'y2'" in msg  # expected, then unmatched found
    assert "2 not found" in msg


def test_quoted_names_are_unescaped_and_matched(write):
    text = (
        "@relation 'my rel'\n"
        "@attribute 'feature one' numeric\n"
        '@attribute "quote\\"d" numeric\n'
        "@attribute 'Swainson\\'s Thrush' {0,1}\n"
        "@attribute TAG_m\\'usica {0,1}\n"
        "@data\n1,2,1,0\n"
    )
    # XML names: one unescaped (liac-arff quirk), one with a literal backslash (delicious)
    ds = load_arff(write("q.arff", text, xml=["Swainson's Thrush", "TAG_m\\'usica"]))
    assert ds.feature_names == ["feature one", 'quote"d']
    assert ds.label_names == ["Swainson's Thrush", "TAG_m\\'usica"]
    assert ds.relation == "my rel"
    # escaped spelling in the XML is matched after unescaping too
    ds2 = load_arff(write("q2.arff", text, xml=["Swainson\\'s Thrush", "TAG_m\\'usica"]))
    np.testing.assert_array_equal(ds2.Y, [[1, 0]])


def test_quoted_nominal_values_with_spaces(write):
    text = (
        "@relation r\n@attribute c {'a b', \"c,d\", e}\n@attribute y {0,1}\n"
        "@data\n'a b',1\n\"c,d\", 0\ne,1\n  'a b' ,0\n"
    )
    ds = load_arff(write("n.arff", text), labels=["y"])
    np.testing.assert_array_equal(ds.X[:, 0], [0, 1, 2, 0])
    assert ds.categories == {"c": ("a b", "c,d", "e")}


def test_sparse_rows_with_quoted_nominal_values(write):
    text = (
        "@relation r\n@attribute c {'a b', 'c,d', e}\n@attribute y {0,1}\n"
        "@data\n{0 'c,d',1 1}\n{0 e}\n{1 1}\n{0 \"a b\"}\n"
    )
    ds = load_arff(write("q.arff", text), labels=["y"])
    np.testing.assert_array_equal(ds.X.toarray()[:, 0], [1, 2, 0, 0])
    np.testing.assert_array_equal(ds.Y[:, 0], [1, 0, 1, 0])


def test_nominal_features_are_ordinal_codes(write):
    text = (
        "@relation r\n@attribute colour {red, green, blue}\n@attribute flag {1,0}\n"
        "@attribute y {0,1}\n@data\nblue,1,1\nred,0,0\ngreen,1,1\nblue,0,0\n"
    )
    ds = load_arff(write("o.arff", text), labels=-1)
    np.testing.assert_array_equal(ds.X, [[2, 0], [0, 1], [1, 0], [2, 1]])
    assert ds.categories["flag"] == ("1", "0")
    assert ds.dropped == ()


def test_sparse_omitted_value_is_code_zero(write):
    text = "@relation r\n@attribute f {1,0}\n@attribute y {0,1}\n@data\n{1 1}\n{0 0}\n{0 1,1 1}\n"
    ds = load_arff(write("s.arff", text), labels=["y"], sparse=False)
    np.testing.assert_array_equal(ds.X[:, 0], [0, 1, 0])  # omitted -> index 0 ('1')


def test_identifier_attribute_is_dropped_and_reported(write):
    rows = "".join(f"r{i},{i % 3},{i % 2}\n" for i in range(5))
    text = (
        "@relation r\n@attribute id {r0,r1,r2,r3,r4,r5}\n@attribute x numeric\n"
        "@attribute y {0,1}\n@attribute s string\n@data\n"
    )
    text += rows.replace("\n", ",'text'\n")
    ds = load_arff(write("id.arff", text), labels=["y"])
    assert ds.dropped == ("id", "s")
    assert ds.feature_names == ["x"]
    stream = iter_arff(write("id2.arff", text), labels=["y"], chunk_size=2)
    assert stream.dropped == ("id", "s")
    assert np.vstack([X for X, _ in stream]).shape == (5, 1)


def test_nominal_with_repeated_values_is_not_an_identifier(write):
    text = "@relation r\n@attribute c {a,b,c}\n@attribute y {0,1}\n@data\na,1\na,0\nb,1\n"
    assert load_arff(write("c.arff", text), labels=["y"]).feature_names == ["c"]


def test_relational_bags_are_aggregated_mean_and_max(write):
    text = (
        "@relation mi\n@attribute id {1,2,3}\n@attribute bag relational\n"
        "  @attribute f1 numeric\n  @attribute f2 numeric\n@end bag\n"
        "@attribute y {0,1}\n@data\n"
        '1,"1,2\\n3,4",1\n2,"5,6",0\n3,"0,0\\n-2,2\\n2,1",1\n'
    )
    ds = load_arff(write("mi.arff", text), labels=["y"])
    assert ds.feature_names == ["bag_mean_f1", "bag_mean_f2", "bag_max_f1", "bag_max_f2"]
    np.testing.assert_allclose(ds.X, [[2, 3, 3, 4], [5, 6, 5, 6], [0, 1, 2, 2]])
    assert ds.dropped == ("id",)


BAGS = (
    "@relation mi\n@attribute id {1,2}\n@attribute bag relational\n"
    "  @attribute f1 numeric\n  @attribute f2 numeric\n@end bag\n"
    "@attribute y {0,1}\n@data\n"
)  # data lines start at line 9
TWO_BAGS = BAGS + '1,"1,2\\n3,4",1\n2,"5,6\\n-7,8.5",0\n'


def test_relational_bags_concatenated_in_file_order(write):
    ds = load_arff(write("mi.arff", TWO_BAGS), labels=["y"], bags="concatenate")
    assert ds.feature_names == ["id", "bag_0_f1", "bag_0_f2", "bag_1_f1", "bag_1_f2"]
    np.testing.assert_array_equal(ds.X, [[0, 1, 2, 3, 4], [1, 5, 6, -7, 8.5]])
    np.testing.assert_array_equal(ds.Y, [[1], [0]])


def test_relational_bags_mean_max_is_the_default(write):
    path = write("mi.arff", TWO_BAGS)
    ds = load_arff(path, labels=["y"], bags="mean_max")
    assert ds.feature_names == ["id", "bag_mean_f1", "bag_mean_f2", "bag_max_f1", "bag_max_f2"]
    np.testing.assert_array_equal(ds.X, [[0, 2, 3, 3, 4], [1, -1, 7.25, 5, 8.5]])
    default = load_arff(path, labels=["y"])
    assert default.feature_names == ds.feature_names
    np.testing.assert_array_equal(default.X, ds.X)


def test_relational_bags_of_unequal_size_cannot_be_concatenated(write):
    path = write("mi.arff", BAGS + '1,"1,2\\n3,4",1\n2,"5,6",0\n')
    with pytest.raises(ArffError) as err:
        load_arff(path, labels=["y"], bags="concatenate")
    assert str(err.value).startswith(f"{path}, line 10: relational 'bag': ")
    assert "bag of size 1, expected 2" in err.value.problem
    assert "bags='mean_max'" in err.value.problem
    with pytest.raises(ArffError, match="line 10: relational 'bag': bag of size 1, expected 2"):
        list(iter_arff(path, labels=["y"], bags="concatenate", chunk_size=1))
    assert load_arff(path, labels=["y"]).X.shape == (2, 5)  # mean_max takes any size


def test_relational_bag_size_from_first_bag_present(write):
    path = write("mi.arff", BAGS + '1,?,1\n2,"5,6\\n-7,8.5",0\n')
    ds = load_arff(path, labels=["y"], bags="concatenate", missing="nan")
    assert ds.feature_names[1:] == ["bag_0_f1", "bag_0_f2", "bag_1_f1", "bag_1_f2"]
    assert np.isnan(ds.X[0, 1:]).all()
    np.testing.assert_array_equal(ds.X[1], [1, 5, 6, -7, 8.5])


def test_relational_bags_concatenated_in_sparse_rows(write):
    path = write("mi.arff", BAGS + '{1 "1,2\\n3,4",2 1}\n{0 2,1 "5,0\\n0,8.5"}\n')
    ds = load_arff(path, labels=["y"], bags="concatenate")
    assert sp.issparse(ds.X)
    np.testing.assert_array_equal(ds.X.toarray(), [[0, 1, 2, 3, 4], [1, 5, 0, 0, 8.5]])
    np.testing.assert_array_equal(ds.Y, [[1], [0]])


@pytest.mark.parametrize("chunk_size", [1, 2])
def test_iter_arff_concatenated_bags_equal_load_arff(write, chunk_size):
    path = write("mi.arff", TWO_BAGS)
    full = load_arff(path, labels=["y"], bags="concatenate")
    stream = iter_arff(path, labels=["y"], bags="concatenate", chunk_size=chunk_size)
    assert stream.feature_names == full.feature_names
    np.testing.assert_array_equal(np.vstack([X for X, _ in stream]), full.X)
    np.testing.assert_array_equal(np.vstack([Y for _, Y in stream]), full.Y)


def test_bad_bags_option(write):
    path = write("mi.arff", TWO_BAGS)
    allowed = r"bags: expected one of \('mean_max', 'concatenate'\), got 'sum'"
    with pytest.raises(ValueError, match=allowed):
        load_arff(path, labels=["y"], bags="sum")
    with pytest.raises(ValueError, match=allowed):
        iter_arff(path, labels=["y"], bags="sum")


# ------------------------------------------------------------------ missing values

MISSING = "@relation r\n@attribute x numeric\n@attribute c {a,b}\n@attribute y {0,1}\n@data\n"


def test_missing_value_is_an_error_by_default(write):
    path = write("m.arff", MISSING + "1,a,1\n?,b,0\n")
    with pytest.raises(ArffError, match=r"m\.arff, line 7: missing value '\?' for attribute 'x'"):
        load_arff(path, labels=["y"])


def test_missing_nan_and_zero(write):
    path = write("m.arff", MISSING + "1,a,1\n?,?,0\n")
    ds = load_arff(path, labels=["y"], missing="nan")
    assert np.isnan(ds.X[1]).all() and ds.X[0, 0] == 1
    ds = load_arff(path, labels=["y"], missing="zero")
    np.testing.assert_array_equal(ds.X, [[1, 0], [0, 0]])


def test_missing_in_sparse_rows(write):
    path = write("m.arff", MISSING + "{0 ?,2 1}\n")
    assert np.isnan(load_arff(path, labels=["y"], missing="nan").X.toarray()[0, 0])
    with pytest.raises(ArffError, match="line 6: missing value"):
        load_arff(path, labels=["y"])


def test_missing_label(write):
    path = write("m.arff", MISSING + "1,a,?\n")
    with pytest.raises(ArffError, match="line 6: missing value '\\?' for label 'y'"):
        load_arff(path, labels=["y"], missing="nan")
    assert load_arff(path, labels=["y"], missing="zero").Y[0, 0] == 0


def test_bad_missing_option(write):
    with pytest.raises(ValueError, match="missing"):
        load_arff(write("m.arff", MISSING), labels=["y"], missing="drop")


# ------------------------------------------------------------------ malformed input

HEAD = "@relation r\n@attribute x numeric\n@attribute y {0,1}\n@data\n"


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("@relation r\n@attribute x numbr\n@data\n", 2, "unknown type"),
        ("@relation r\n@attribute x\n@data\n", 2, "has no type"),
        ("@relation r\n@attribute x {0,1\n@data\n", 2, "missing '}'"),
        ("@relation r\n@attribute x numeric\n", 2, "no @data"),
        ("@relation r\n@attribute x numeric\nhello\n@data\n", 3, "unexpected line in header"),
        ("@attribute x numeric\n@data\n", 2, "no @relation"),
        ("@relation r\n@data\n", 2, "no @attribute"),
        ("@relation r\n@attribute x numeric\n@attribute x numeric\n@data\n", 3, "duplicate"),
        (HEAD + "1,0\n2,1,0\n", 6, "wrong number of values: expected 2, found 3"),
        (HEAD + "1,0\n2\n", 6, "expected 2, found 1"),
        (HEAD + "1,2\n", 5, "unknown nominal value '2' for attribute 'y'"),
        (HEAD + "1,0\nabc,1\n", 6, "invalid numeric value 'abc'"),
        (HEAD + "{0 1,5 1}\n", 5, "sparse index 5 out of range"),
        (HEAD + "{0 1,0 2}\n", 5, "sparse index 0 repeated"),
        (HEAD + "{0 1,1}\n", 5, "malformed sparse entry"),
        (HEAD + "{0 1\n", 5, "without closing"),
        (HEAD + "1,'0\n", 5, "cannot split"),
    ],
)
def test_malformed_file_names_file_line_problem(write, text, line, problem):
    path = write("bad.arff", text)
    with pytest.raises(ArffError) as err:
        load_arff(path, labels=["y"] if "@attribute y" in text else 1)
    assert err.value.line == line, str(err.value)
    assert problem in err.value.problem
    assert str(err.value).startswith(f"{path}, line {line}: ")
    assert isinstance(err.value, ValueError)


def test_label_value_other_than_0_1(write):
    text = "@relation r\n@attribute y numeric\n@attribute x numeric\n@data\n1,0\n2,0\n"
    with pytest.raises(ArffError, match="line 6: label 'y' has value 2"):
        load_arff(write("v.arff", text), labels=1)


def test_label_must_be_numeric_or_numeric_nominal(write):
    text = "@relation r\n@attribute y {yes,no}\n@attribute x numeric\n@data\nyes,1\n"
    with pytest.raises(ArffError, match="line 2: label 'y' must be numeric"):
        load_arff(write("l.arff", text), labels=1)


def test_truncated_gzip_names_file_and_line(tmp_path):
    rows = "".join(f"{{0 {i},1 1}}\n" for i in range(1, 20000))
    data = gzip.compress((HEAD + rows).encode())
    path = tmp_path / "cut.arff.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ArffError, match="truncated") as err:
        load_arff(path, labels=["y"])
    assert err.value.line is not None and err.value.line > 5
    with pytest.raises(ArffError, match="truncated"):
        list(iter_arff(path, labels=["y"]))


def test_unknown_labels_type(write):
    with pytest.raises(TypeError, match="labels"):
        load_arff(write("t.arff", HEAD), labels=3.5)


# ------------------------------------------------------------------ formats and streaming


@pytest.mark.parametrize("suffix", [".arff.gz", ".arff.bz2"])
def test_compressed_files_read_transparently(write, suffix):
    plain = load_arff(write("toy.arff", SPARSE, xml=["y1", "y2"]))
    packed = load_arff(write("toy" + suffix, SPARSE))
    assert packed.name == "toy"
    assert (plain.X != packed.X).nnz == 0
    np.testing.assert_array_equal(plain.Y, packed.Y)


def test_crlf_line_endings_and_latin1(write, tmp_path):
    text = "@relation r\r\n@attribute 'caf\xe9' numeric\r\n@attribute y {0,1}\r\n@data\r\n1,1\r\n"
    path = tmp_path / "crlf.arff"
    path.write_bytes(text.encode("latin-1"))
    ds = load_arff(path, labels=["y"])
    assert ds.feature_names == ["caf\xe9"]
    np.testing.assert_array_equal(ds.X, [[1.0]])


def test_empty_data_section(write):
    ds = load_arff(write("e.arff", HEAD), labels=["y"])
    assert ds.X.shape == (0, 1) and ds.Y.shape == (0, 1)


@pytest.mark.parametrize("text", [DENSE, SPARSE])
@pytest.mark.parametrize("chunk_size", [1, 2, 10])
def test_iter_arff_chunks_concatenate_to_load_arff(write, text, chunk_size):
    path = write("toy.arff", text, xml=["y1", "y2"])
    full = load_arff(path)
    stream = iter_arff(path, chunk_size=chunk_size)
    assert stream.feature_names == full.feature_names
    assert stream.label_names == full.label_names
    chunks = list(stream)
    assert all(Y.shape[0] <= chunk_size for _, Y in chunks)
    assert len(chunks) == -(-3 // chunk_size)
    X = (
        sp.vstack([X for X, _ in chunks])
        if sp.issparse(chunks[0][0])
        else np.vstack([X for X, _ in chunks])
    )
    assert sp.issparse(X) == sp.issparse(full.X)
    np.testing.assert_array_equal(sp.csr_matrix(X).toarray(), sp.csr_matrix(full.X).toarray())
    np.testing.assert_array_equal(np.vstack([Y for _, Y in chunks]), full.Y)
    assert len(list(stream)) == len(chunks)  # re-iterable


def test_iter_arff_error_names_line_in_later_chunk(write):
    path = write("bad.arff", HEAD + "1,0\n" * 7 + "1,5\n")
    with pytest.raises(ArffError, match="line 12: unknown nominal value"):
        list(iter_arff(path, labels=["y"], chunk_size=3))


def test_iter_arff_bad_chunk_size(write):
    with pytest.raises(ValueError, match="chunk_size"):
        iter_arff(write("t.arff", HEAD), labels=["y"], chunk_size=0)


def test_subset(write):
    ds = load_arff(write("toy.arff", SPARSE, xml=["y1", "y2"]))
    part = ds.subset([0, 2])
    np.testing.assert_array_equal(part.X.toarray(), X_TOY[[0, 2]])
    np.testing.assert_array_equal(ds.subset(slice(1, None)).Y, Y_TOY[1:])
    np.testing.assert_array_equal(ds.subset(np.array([True, False, True])).Y, Y_TOY[[0, 2]])


# ------------------------------------------------------------------ invariants

finite = st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: round(v, 4))


@st.composite
def tables(draw):
    n = draw(st.integers(1, 8))
    d = draw(st.integers(1, 5))
    L = draw(st.integers(1, 3))
    X = np.array(
        draw(
            st.lists(
                st.lists(finite | st.just(0.0), min_size=d, max_size=d), min_size=n, max_size=n
            )
        )
    )
    Y = np.array(
        draw(st.lists(st.lists(st.integers(0, 1), min_size=L, max_size=L), min_size=n, max_size=n))
    )
    return X, Y


def _arff_text(X, Y, *, sparse: bool) -> str:
    d, L = X.shape[1], Y.shape[1]
    head = "@relation h\n"
    head += "".join(f"@attribute x{j} numeric\n" for j in range(d))
    head += "".join(f"@attribute y{j} {{0,1}}\n" for j in range(L))
    rows = []
    for x, y in zip(X, Y, strict=True):
        values = [repr(float(v)) for v in x] + [str(int(v)) for v in y]
        if sparse:
            rows.append("{" + ",".join(f"{j} {v}" for j, v in enumerate(values) if float(v)) + "}")
        else:
            rows.append(",".join(values))
    return head + "@data\n" + "\n".join(rows) + "\n"


@settings(max_examples=60, deadline=None)
@given(tables())
def test_dense_and_sparse_rows_of_same_data_agree(tmp_path_factory, table):
    X, Y = table
    folder = tmp_path_factory.mktemp("h")
    results = []
    for sparse in (False, True):
        path = folder / f"{sparse}.arff"
        path.write_text(_arff_text(X, Y, sparse=sparse))
        ds = load_arff(path, labels=-Y.shape[1])
        results.append(ds)
        np.testing.assert_array_equal(sp.csr_matrix(ds.X).toarray(), X)
        np.testing.assert_array_equal(ds.Y, Y)
    assert sp.issparse(results[1].X) and not sp.issparse(results[0].X)


@settings(max_examples=60, deadline=None)
@given(tables(), st.booleans())
def test_fast_path_equals_exact_path(tmp_path_factory, table, sparse):
    from mlnb.datasets import _arff

    X, Y = table
    path = tmp_path_factory.mktemp("f") / "t.arff"
    text = _arff_text(X, Y, sparse=sparse)
    path.write_text(text)
    lines = text.split("\n")
    header = _arff._parse_header(iter(lines), path)
    labels = _arff._resolve_labels(header, -Y.shape[1], path)
    parser = _arff._Parser(header, labels, "error", path)
    data = [s.strip() for s in lines[header.n_lines :] if s.strip()]
    nums = list(range(len(data)))  # line numbers only name a line in an error
    fast, exact = parser._fast(data), parser._exact(data, nums)
    assert fast is not None

    def to_dense(b):
        if b.dense is not None:
            return b.dense
        return sp.csr_matrix((b.vals, (b.rows, b.cols)), shape=(b.n, parser.width)).toarray()

    np.testing.assert_array_equal(to_dense(fast), to_dense(exact))


decimal_tokens = st.tuples(
    st.booleans(), st.text("0123456789", min_size=1, max_size=18), st.text("0123456789", max_size=8)
).map(lambda t: ("-" if t[0] else "") + t[1] + ("." + t[2] if t[2] else ""))


@settings(max_examples=200, deadline=None)
@given(st.lists(decimal_tokens, min_size=1, max_size=30), st.sampled_from([" ", "  "]))
def test_vectorised_decimal_parser_equals_float(tokens, sep):
    out = _parse_decimals(sep.join(tokens))
    np.testing.assert_array_equal(out, [float(t) for t in tokens])


@pytest.mark.parametrize("text", ["1e5 2", "1 ?", "1.2.3", "a", "1 -", "", "1-2"])
def test_vectorised_decimal_parser_declines_other_tokens(text):
    assert _parse_decimals(text) is None


# ------------------------------------------------------------------ real files


def test_real_files_agree_with_liac_arff(data_root):
    arff = pytest.importorskip("arff")
    for rel in ("multilabel/enron/enron-test.arff", "multilabel/emotions/emotions.arff"):
        path = data_root / rel
        ds = load_arff(path)
        with open(path, encoding="utf-8") as f:
            kind = arff.COO if ds.is_sparse else arff.DENSE
            ref = arff.load(f, encode_nominal=True, return_type=kind)
        names = [a[0] for a in ref["attributes"]]
        if ds.is_sparse:
            vals, rows, cols = (np.asarray(v) for v in ref["data"])
            shape = (ds.n_samples, len(names))
            M = sp.csr_matrix((vals.astype(float), (rows, cols)), shape=shape).toarray()
        else:
            M = np.array(ref["data"], dtype=float)
        lab = [names.index(n) for n in ds.label_names]
        feat = [names.index(n) for n in ds.feature_names]
        np.testing.assert_array_equal(sp.csr_matrix(ds.X).toarray(), M[:, feat])
        np.testing.assert_array_equal(ds.Y, M[:, lab])


def test_real_streaming_equals_load(data_root):
    path = data_root / "multilabel/enron/enron-train.arff"
    full = load_arff(path)
    chunks = list(iter_arff(path, chunk_size=400))
    assert [Y.shape[0] for _, Y in chunks] == [400, 400, 323]
    assert (sp.vstack([X for X, _ in chunks]) != full.X).nnz == 0
    np.testing.assert_array_equal(np.vstack([Y for _, Y in chunks]), full.Y)


def test_real_missing_labels_file(data_root):
    path = data_root / "multilabel/meka_music/Music_missing_classes.arff"
    with pytest.raises(ArffError, match=r"missing value '\?' for label.*unknown_labels='allow'"):
        load_arff(path)
    ds = load_arff(path, missing="zero")
    assert ds.Y.sum() == 0 and ds.n_features == 71
    unknown = load_arff(path, unknown_labels="allow")
    music = load_arff(data_root / "multilabel/meka_music/Music.arff")
    assert unknown.Y is None and unknown.label_names == music.label_names
    assert (unknown.n_samples, unknown.n_labels) == (592, 6)
    np.testing.assert_array_equal(unknown.X, music.X)
    assert [Y for _, Y in iter_arff(path, unknown_labels="allow", chunk_size=500)] == [None] * 2


# ------------------------------------------------------------------ unknown labels

UNLABELLED = "@relation 'u: -C 2'\n@attribute a {0,1}\n@attribute b numeric\n@attribute x numeric\n"


@pytest.mark.parametrize("rows", ["?,?,1\n?,?,2\n", "{0 ?,1 ?,2 1}\n{0 ?,1 ?,2 2}\n"])
def test_unknown_labels_allow_gives_y_none(write, rows):
    path = write("u.arff", UNLABELLED + "@data\n" + rows)
    ds = load_arff(path, unknown_labels="allow")
    assert ds.Y is None and ds.label_names == ["a", "b"] and ds.n_labels == 2
    np.testing.assert_array_equal(sp.csr_matrix(ds.X).toarray(), [[1], [2]])
    assert ds.subset([1]).Y is None and ds.subset([1]).n_samples == 1
    with pytest.raises(ValueError, match="unknown labels"):
        describe(ds)
    with pytest.raises(
        ArffError, match=r"line 6: missing value '\?' for label 'a'.*unknown_labels"
    ):
        load_arff(path)


def test_unknown_labels_mixed_with_known_is_an_error(write):
    for rows, line in (("0,1,1\n?,?,2\n", 7), ("?,?,1\n0,1,2\n", 7), ("?,1,1\n", 6)):
        path = write("mix.arff", UNLABELLED + "@data\n" + rows)
        with pytest.raises(ArffError, match=f"line {line}: label values are unknown"):
            load_arff(path, unknown_labels="allow")
    sparse = write("sp.arff", UNLABELLED + "@data\n{0 ?,2 1}\n")  # b omitted: known 0
    with pytest.raises(ArffError, match="line 6: label values are unknown"):
        load_arff(sparse, unknown_labels="allow")


def test_known_labels_unaffected_by_unknown_labels_allow(write):
    path = write("toy.arff", DENSE, xml=["y1", "y2"])
    np.testing.assert_array_equal(load_arff(path, unknown_labels="allow").Y, Y_TOY)
    with pytest.raises(ValueError, match="unknown_labels"):
        load_arff(path, unknown_labels="yes")
    with pytest.raises(ValueError, match="unknown_labels"):
        iter_arff(path, unknown_labels="yes")


def test_messages_name_python_options_and_command_line(write):
    with pytest.raises(ArffError, match=r"pass missing='nan'.*\(command line: --missing ignore\)"):
        load_arff(write("m.arff", MISSING + "?,a,1\n"), labels=["y"])
    with pytest.raises(ArffError, match=r"pass labels=.*\(command line: --labels N\)"):
        load_arff(write("n.arff", HEAD))


# ------------------------------------------------------------------ bounded memory


@pytest.fixture
def one_line_blocks(monkeypatch):
    """load_arff parsing one data line at a time (a block closes at _LOAD_BLOCK characters)."""
    from mlnb.datasets import _arff

    monkeypatch.setattr(_arff, "_LOAD_BLOCK", 1)


def _same_dataset(a, b):
    assert sp.issparse(a.X) == sp.issparse(b.X)
    if sp.issparse(a.X):
        assert a.X.has_sorted_indices and b.X.has_sorted_indices
    np.testing.assert_array_equal(sp.csr_matrix(a.X).toarray(), sp.csr_matrix(b.X).toarray())
    np.testing.assert_array_equal(a.Y, b.Y)
    assert (a.feature_names, a.label_names, a.dropped) == (
        b.feature_names,
        b.label_names,
        b.dropped,
    )
    assert a.categories == b.categories


@pytest.mark.parametrize("text", [DENSE, SPARSE, DENSE + "{0 1}\n"])
def test_load_arff_in_blocks_equals_one_block(write, monkeypatch, text):
    from mlnb.datasets import _arff

    path = write("toy.arff", text, xml=["y1", "y2"])
    whole = load_arff(path)
    monkeypatch.setattr(_arff, "_LOAD_BLOCK", 1)
    _same_dataset(load_arff(path), whole)


def test_identifier_found_across_blocks(write, one_line_blocks):
    rows = "".join(f"r{i},{i % 3},{i % 2},{i}\n" for i in range(5))
    text = (
        "@relation r\n@attribute id {r0,r1,r2,r3,r4,r5}\n@attribute x numeric\n"
        "@attribute y {0,1}\n@attribute z numeric\n@data\n" + rows
    )
    for sparse in (False, True):
        ds = load_arff(write("id.arff", text), labels=["y"], sparse=sparse)
        assert ds.dropped == ("id",) and ds.feature_names == ["x", "z"]
        expected = [[i % 3, i] for i in range(5)]
        np.testing.assert_array_equal(sp.csr_matrix(ds.X).toarray(), expected)


def test_unknown_labels_across_blocks(write, one_line_blocks):
    path = write("u.arff", UNLABELLED + "@data\n?,?,1\n?,?,2\n")
    assert load_arff(path, unknown_labels="allow").Y is None
    path = write("mix.arff", UNLABELLED + "@data\n?,?,1\n?,?,2\n0,1,3\n")
    with pytest.raises(ArffError, match="line 8: label values are unknown"):
        load_arff(path, unknown_labels="allow")


def test_empty_data_section_in_blocks(write, one_line_blocks):
    ds = load_arff(write("e.arff", HEAD + "% only a comment\n"), labels=["y"])
    assert ds.X.shape == (0, 1) and ds.Y.shape == (0, 1)


@settings(max_examples=40, deadline=None)
@given(tables(), st.booleans(), st.integers(1, 40))
def test_load_arff_any_block_size_equals_one_block(tmp_path_factory, table, sparse, block):
    from mlnb.datasets import _arff

    X, Y = table
    path = tmp_path_factory.mktemp("b") / "t.arff"
    path.write_text(_arff_text(X, Y, sparse=sparse))
    whole = load_arff(path, labels=-Y.shape[1])
    saved = _arff._LOAD_BLOCK
    try:
        _arff._LOAD_BLOCK = block
        _same_dataset(load_arff(path, labels=-Y.shape[1]), whole)
    finally:
        _arff._LOAD_BLOCK = saved
