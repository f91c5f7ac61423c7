"""load_table / from_dataframe: CSV and Parquet files of features and 0/1 label columns."""

from __future__ import annotations

import numpy as np
import pytest

from mlnb.datasets import from_dataframe, load_arff, load_dataset, load_table, save_arff

pd = pytest.importorskip("pandas")

CSV = "tag_a,x,colour,tag_b\n1,0.5,red,0\n0,2,blue,1\n1,-1.25,red,1\n"


@pytest.fixture
def csv(tmp_path):
    path = tmp_path / "tags.csv"
    path.write_text(CSV)
    return path


@pytest.mark.parametrize(
    "labels", ["tag_a,tag_b", ["tag_a", "tag_b"], " tag_a , tag_b "], ids=["text", "list", "spaces"]
)
def test_label_columns_by_name(csv, labels):
    data = load_table(csv, labels=labels)
    assert data.label_names == ["tag_a", "tag_b"] and data.feature_names == ["x", "colour"]
    np.testing.assert_array_equal(data.Y, [[1, 0], [0, 1], [1, 1]])
    assert data.Y.dtype == np.uint8 and data.name == "tags"
    # colour is nominal, coded by its sorted values as load_arff codes a nominal attribute
    np.testing.assert_array_equal(data.X, [[0.5, 1.0], [2.0, 0.0], [-1.25, 1.0]])
    assert data.categories == {"colour": ("blue", "red")}
    assert data.column_types == ("numeric", "nominal")


def test_label_columns_by_count_as_meka(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b,x,y\n1,0,5,1\n0,1,6,0\n")
    first = load_table(path, labels=2)
    assert first.label_names == ["a", "b"] and first.feature_names == ["x", "y"]
    last = load_table(path, labels="-1")
    assert last.label_names == ["y"] and last.feature_names == ["a", "b", "x"]
    np.testing.assert_array_equal(last.Y[:, 0], [1, 0])


def test_labels_from_a_mulan_xml_file_beside_it(csv):
    xml = '<labels xmlns="http://mulan.sourceforge.net/labels"><label name="tag_b"/></labels>'
    csv.with_suffix(".xml").write_text(xml)
    data = load_table(csv)
    assert data.label_names == ["tag_b"] and "tag_a" in data.feature_names


def test_errors_name_the_file_and_what_was_expected(csv, tmp_path):
    with pytest.raises(ValueError, match=r"tags\.csv: which columns are labels\?.*'tag_a', 'x'"):
        load_table(csv)
    with pytest.raises(ValueError, match=r"tags\.csv: label column 'nope' not found; columns are"):
        load_table(csv, labels="tag_a,nope")
    with pytest.raises(ValueError, match=r"label column 'colour' holds 'red'.*must be 0 or 1"):
        load_table(csv, labels=["colour"])
    with pytest.raises(ValueError, match="labels=4 asks for 4 label columns"):
        load_table(csv, labels=4)
    with pytest.raises(ValueError, match="names a column twice"):
        load_table(csv, labels="tag_a,tag_a")
    with pytest.raises(FileNotFoundError, match="no such file"):
        load_table(tmp_path / "absent.csv", labels=1)
    holes = tmp_path / "holes.csv"
    holes.write_text("y,x\n1,0.5\n0,?\n1,\n")
    with pytest.raises(ValueError, match=r"holes\.csv, line 3: missing value in column 'x'"):
        load_table(holes, labels=1)


def test_missing_values_and_unknown_labels(tmp_path):
    holes = tmp_path / "holes.csv"
    holes.write_text("y,x,c\n1,0.5,a\n0,?,\n1,,b\n")
    data = load_table(holes, labels=1, missing="nan")
    np.testing.assert_array_equal(np.isnan(data.X), [[0, 0], [1, 1], [1, 0]])
    assert load_table(holes, labels=1, missing="zero").X[1].tolist() == [0.0, 0.0]
    unknown = tmp_path / "new.csv"
    unknown.write_text("y1,y2,x\n,,0.5\n,,1\n")
    assert load_table(unknown, labels=2, unknown_labels="allow").Y is None
    with pytest.raises(ValueError, match="every label value is missing"):
        load_table(unknown, labels=2)
    unknown.write_text("y1,y2,x\n1,,0.5\n0,1,1\n")
    with pytest.raises(ValueError, match="line 2: missing value in label column 'y2'"):
        load_table(unknown, labels=2, missing="nan")


def test_a_dataframe_with_categorical_and_boolean_columns():
    frame = pd.DataFrame(
        {
            "size": pd.Categorical(["S", "L", "M"], categories=["S", "M", "L"]),
            "flag": [True, False, True],
            "tag": [False, True, True],
        }
    )
    data = from_dataframe(frame, labels=-1, sparse=True)
    assert data.is_sparse and data.categories == {"size": ("S", "M", "L")}
    np.testing.assert_array_equal(data.X.toarray(), [[0, 1], [2, 0], [1, 1]])
    np.testing.assert_array_equal(data.Y[:, 0], [0, 1, 1])
    with pytest.raises(TypeError, match="expected a pandas DataFrame"):
        from_dataframe(frame.to_numpy(), labels=1)


def test_parquet(tmp_path, csv):
    pytest.importorskip("pyarrow")
    frame = pd.read_csv(csv)
    frame.to_parquet(tmp_path / "tags.parquet")
    a = load_table(tmp_path / "tags.parquet", labels="tag_a,tag_b")
    b = load_table(csv, labels="tag_a,tag_b")
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.Y, b.Y)
    assert a.categories == b.categories


def test_a_table_and_its_arff_copy_are_the_same_data(csv, tmp_path):
    table = load_dataset(csv, labels="tag_a,tag_b")  # load_dataset takes a file too
    save_arff(tmp_path / "copy.arff", table, layout="meka")
    copy = load_arff(tmp_path / "copy.arff")
    np.testing.assert_array_equal(copy.X, table.X)
    np.testing.assert_array_equal(copy.Y, table.Y)
    assert copy.categories == table.categories and copy.label_names == table.label_names
