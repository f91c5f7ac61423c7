"""Data in the forms users have, through the `mlnb` command: CSV files with label columns,
the same data as ARFF, exact --split sizes, --train-test on a training file, text in parallel
files or folders, and the data sets found in the data folder by name."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mlnb.cli import main
from mlnb.cli._data import evaluation_data
from mlnb.datasets import save_arff
from mlnb.evaluation._splits import split_indices

pd = pytest.importorskip("pandas")

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
NEW_SETS = ("birds", "flags", "genbase", "slashdot", "water-quality")
EVALUATE = ("-m", "br", "-p", "events=gaussian", "--cv", "3", "--seed", "1", "--json")


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def require_data(*folders):
    missing = [f for f in folders if not (DATA / f).is_dir()]
    if not (DATA / "MANIFEST.tsv").is_file() or missing:
        pytest.skip(f"benchmark data not found at {DATA} ({', '.join(missing) or 'MANIFEST'})")


def _scores(result):
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    return [{k: v for k, v in row.items() if not k.endswith("_time")} for row in rows]


def _frame(n=90, seed=0):
    """Labels first (tag_a, tag_b), then numeric features and a text (nominal) column."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    return pd.DataFrame(
        {
            "tag_a": (x[:, 0] > 0).astype(int),
            "tag_b": (x[:, 1] + rng.normal(scale=0.5, size=n) > 0).astype(int),
            "x1": x[:, 0].round(3),
            "x2": x[:, 1].round(3),
            "x3": x[:, 2],
            "colour": rng.choice(["red", "green", "blue"], n),
        }
    )


def test_a_csv_file_evaluates_as_its_arff_copy(tmp_path):
    frame = _frame()
    frame.to_csv(tmp_path / "tags.csv", index=False)
    from_csv = _scores(invoke("evaluate", tmp_path / "tags.csv", "--labels", "2", *EVALUATE))
    # the same data written as ARFF from the DataFrame's arrays, labels last (Mulan)
    colours = ("blue", "green", "red")
    X = frame[["x1", "x2", "x3"]].to_numpy()
    X = np.column_stack([X, frame["colour"].map(colours.index).to_numpy()])
    save_arff(
        tmp_path / "tags.arff", X, frame[["tag_a", "tag_b"]].to_numpy(),
        label_names=["tag_a", "tag_b"], feature_names=["x1", "x2", "x3", "colour"],
        categories={"colour": colours},
    )  # fmt: skip
    from_arff = _scores(invoke("evaluate", tmp_path / "tags.arff", *EVALUATE))
    assert from_csv == from_arff
    assert from_csv[0]["hamming"] < 0.4  # the features do predict the labels


def test_label_columns_by_name_in_the_command(tmp_path):
    frame = _frame()
    frame = frame[["x1", "tag_b", "x2", "x3", "colour", "tag_a"]]  # labels anywhere
    frame.to_csv(tmp_path / "mixed.csv", index=False)
    data, _ = evaluation_data(
        str(tmp_path / "mixed.csv"), cv=3, split=None, train_test=False, data_dir=None,
        labels="tag_a,tag_b",
    )  # fmt: skip
    assert data.label_names == ["tag_a", "tag_b"] and data.n_features == 4
    if not _labels_option_takes_text():
        pytest.skip("--labels is declared type=int in cli/_options.py: names need type=str")
    by_name = invoke("evaluate", tmp_path / "mixed.csv", "--labels", "tag_a,tag_b", *EVALUATE)
    frame[["tag_a", "tag_b", "x1", "x2", "x3", "colour"]].to_csv(tmp_path / "f.csv", index=False)
    assert _scores(by_name) == _scores(
        invoke("evaluate", tmp_path / "f.csv", "--labels", "2", *EVALUATE)
    )


def test_csv_errors_say_what_was_expected(tmp_path):
    _frame().to_csv(tmp_path / "tags.csv", index=False)
    result = invoke("evaluate", tmp_path / "tags.csv", "-m", "br")
    assert result.exit_code == 1
    assert "which columns are labels?" in result.stderr and "'tag_a', 'tag_b'" in result.stderr
    assert "text corpus" not in result.stderr
    result = invoke("evaluate", tmp_path / "tags.csv", "-m", "br", "--labels", "-1")
    assert result.exit_code == 1
    assert "line 2: label column 'colour' holds" in result.stderr  # the last column is text
    result = invoke("evaluate", "synthetic-counts", "-m", "br", "--labels", "2")
    assert result.exit_code == 1 and "not a data file given by path" in result.stderr


def test_split_sizes_are_exact(tmp_path):
    """--split 0.7 of 1,060 rows: 742 train and 318 test rows (it used to fail)."""
    frame = _frame(n=1060)
    frame.to_csv(tmp_path / "rows.csv", index=False)
    data, fraction = evaluation_data(
        str(tmp_path / "rows.csv"), cv=10, split=0.7, train_test=False, data_dir=None, labels=2
    )
    for stratify in (None, "iterative"):
        ((train, test),) = split_indices(fraction, 1060, data.Y, stratify=stratify, random_state=0)
        assert (len(train), len(test)) == (742, 318)
        assert len(np.union1d(train, test)) == 1060
    result = invoke(
        "evaluate", tmp_path / "rows.csv", "--labels", "2", "-m", "br", "-p", "events=gaussian",
        "--split", "0.7", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for n, split in ((7, 0.5), (10, 0.29), (3, 0.5), (1060, 0.3)):
        _frame(n=n).to_csv(tmp_path / "n.csv", index=False)
        _, f = evaluation_data(str(tmp_path / "n.csv"), cv=2, split=split, train_test=False,
                               data_dir=None, labels=2)  # fmt: skip
        ((train, test),) = split_indices(f, n, None)
        assert len(train) == round(split * n) and len(test) == n - round(split * n)
    _frame(n=3).to_csv(tmp_path / "tiny.csv", index=False)
    result = invoke(
        "evaluate", tmp_path / "tiny.csv", "--labels", "2", "-m", "br", "--split", "0.1"
    )
    assert result.exit_code == 1 and "at least one training and one test row" in result.stderr


def test_train_test_on_a_training_file_finds_its_test_file(tmp_path):
    frame = _frame(n=120)
    frame[:80].to_csv(tmp_path / "tags-train.csv", index=False)
    frame[80:].to_csv(tmp_path / "tags-test.csv", index=False)
    result = invoke("evaluate", tmp_path / "tags-train.csv", "--labels", "2", "--train-test",
                    "-m", "br", "-p", "events=gaussian", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    result = invoke(
        "evaluate", tmp_path / "tags-test.csv", "--labels", "2", "--train-test", "-m", "br"
    )
    assert result.exit_code == 1 and "no provided train/test split" not in result.stderr
    assert "pair of files named *train* and *test*" in result.stderr


def test_train_test_on_a_real_training_file_is_the_named_split(tmp_path):
    require_data("multilabel/flags")
    options = ("-m", "br", "-p", "events=gaussian", "--train-test", "--json")
    by_name = _scores(invoke("evaluate", "flags", "--data-dir", DATA, *options))
    by_file = _scores(invoke("evaluate", DATA / "multilabel/flags/flags-train.arff", *options))
    by_full_file = _scores(invoke("evaluate", DATA / "multilabel/flags/flags.arff", *options))
    assert by_name == by_file == by_full_file


def test_the_new_sets_of_the_data_folder_load_by_name(tmp_path, monkeypatch):
    """Each set added to ../shared/data is listed and loads by name in the command."""
    require_data(*(f"multilabel/{name}" for name in NEW_SETS))
    monkeypatch.setenv("MLNB_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "data"
    (root / "multilabel").mkdir(parents=True)
    (root / "MANIFEST.tsv").symlink_to(DATA / "MANIFEST.tsv")
    for name in NEW_SETS:
        (root / "multilabel" / name).symlink_to(DATA / "multilabel" / name)
    result = invoke("datasets", "--data-dir", root, "--json", "-q")
    assert result.exit_code == 0, result.output
    listed = {row["name"]: row for row in json.loads(result.stdout)}
    with open(DATA / "MANIFEST.tsv", newline="", encoding="utf-8") as f:
        manifest = {r["name"]: r for r in csv.DictReader(f, delimiter="\t")}
    for name in NEW_SETS:
        assert listed[name]["n"] == int(manifest[name]["instances"].split()[0]), name
        assert listed[name]["L"] == int(manifest[name]["labels_or_classes"]), name
    # and a run on one of them, by name
    result = invoke("evaluate", "water-quality", "--data-dir", root, "-m", "br", "-p",
                    "events=gaussian", "--split", "0.7", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output


def _labels_option_takes_text():
    option = next(p for p in main.commands["evaluate"].params if p.name == "labels")
    return option.type.name != "integer"


def test_text_in_parallel_files_and_class_folders(tmp_path):
    docs = ["goal scored late", "match ends level", "shares fall again", "bank rates rise"] * 3
    classes = ["sport", "sport", "finance", "finance"] * 3
    (tmp_path / "texts.txt").write_text("\n".join(docs) + "\n")
    (tmp_path / "classes.txt").write_text("\n".join(classes) + "\n")
    options = ("-m", "mnb", "--cv", "2", "--json")
    folder = tmp_path / "corpus"
    for i, (doc, cls) in enumerate(zip(docs, classes, strict=True)):
        (folder / cls).mkdir(parents=True, exist_ok=True)
        (folder / cls / f"{i}.txt").write_text(doc)
    by_folder = _scores(invoke("evaluate", folder, *options))
    # the same documents in the order of the folders (class, then file number), tab-separated
    order = sorted(range(len(docs)), key=lambda i: (classes[i], i))
    lines = "".join(f"{classes[i]}\t{docs[i]}\n" for i in order)
    (tmp_path / "corpus.txt").write_text(lines)
    assert by_folder == _scores(invoke("evaluate", tmp_path / "corpus.txt", *options))
    data, _ = evaluation_data(str(tmp_path / "texts.txt"), cv=2, split=None, train_test=False,
                              data_dir=None, labels=str(tmp_path / "classes.txt"))  # fmt: skip
    assert data.documents == docs and data.labels.tolist() == classes
    if not _labels_option_takes_text():
        pytest.skip("--labels is declared type=int in cli/_options.py: a label file needs str")
    labels = ("--labels", tmp_path / "classes.txt")
    assert _scores(invoke("evaluate", tmp_path / "texts.txt", *labels, *options)) == by_folder
