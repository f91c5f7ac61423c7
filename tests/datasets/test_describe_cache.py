"""describe_dataset / describe_text_corpus, their on-disk cache, and list_datasets(data_dir)."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

import mlnb.datasets._registry as registry
from mlnb.datasets import (
    describe,
    describe_dataset,
    describe_text_corpus,
    list_datasets,
    load_dataset,
)
from mlnb.datasets._cache import cache_dir, cached

TOY = "@relation toy\n@attribute f numeric\n@attribute y1 {0,1}\n@attribute y2 {0,1}\n@data\n"
XML = '<labels><label name="y1"/><label name="y2"/></labels>'


@pytest.fixture
def root(tmp_path):
    """A data directory with langlog (a single file) and webkb (two text files)."""
    folder = tmp_path / "data" / "multilabel" / "langlog"
    folder.mkdir(parents=True)
    (folder / "langlog.arff.gz").write_text(TOY + "1,1,0\n2,1,1\n3,0,0\n")
    (folder / "langlog.xml").write_text(XML)
    text = tmp_path / "data" / "text" / "webkb"
    text.mkdir(parents=True)
    for part, lines in (("train", "course\ta b\nstudent\tb c\n"), ("test", "course\td\n")):
        (text / f"webkb-{part}-stemmed.txt.gz").write_bytes(gzip.compress(lines.encode()))
    return tmp_path / "data"


def _count_loads(monkeypatch):
    calls = []
    real = registry.load_dataset

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(registry, "load_dataset", counting)
    return calls


def test_describe_dataset_equals_describe_and_is_cached(root, monkeypatch):
    calls = _count_loads(monkeypatch)
    first = describe_dataset("langlog", root)
    assert first == describe(load_dataset("langlog", root, split="full"))
    assert first.n_samples == 3 and first.n_features == 1 and first.n_labels == 2
    assert describe_dataset("LLOG", root) == first  # alias, same entry
    assert len(calls) == 1
    assert describe_dataset("langlog", root, cache=False) == first
    assert len(calls) == 2
    assert len(list((cache_dir() / "summaries").glob("*.json"))) == 1


def test_cache_key_follows_size_and_mtime(root, monkeypatch):
    calls = _count_loads(monkeypatch)
    describe_dataset("langlog", root)
    path = root / "multilabel" / "langlog" / "langlog.arff.gz"
    path.write_text(TOY + "1,1,0\n2,1,1\n3,0,0\n4,1,1\n")
    assert describe_dataset("langlog", root).n_samples == 4
    stat = path.stat()
    path.write_text(TOY + "1,1,0\n2,1,1\n3,0,0\n4,0,0\n")  # same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert describe_dataset("langlog", root).cardinality == pytest.approx(3 / 4)
    assert len(calls) == 3


def test_corrupt_cache_entries_are_recomputed(root, monkeypatch):
    calls = _count_loads(monkeypatch)
    want = describe_dataset("langlog", root)
    (entry,) = (cache_dir() / "summaries").glob("*.json")
    for garbage in ("{not json", "[1, 2]", '{"key": 1, "value": {}}', "\xff\x00"):
        entry.write_text(garbage, encoding="latin-1")
        assert describe_dataset("langlog", root) == want
    assert len(calls) == 5
    assert describe_dataset("langlog", root) == want  # rewritten by the last call
    assert len(calls) == 5


def test_unwritable_cache_falls_back_to_reading(root, monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("MLNB_CACHE_DIR", str(blocker / "cache"))
    calls = _count_loads(monkeypatch)
    assert describe_dataset("langlog", root).n_samples == 3
    assert describe_dataset("langlog", root).n_samples == 3
    assert len(calls) == 2


def test_cache_location(monkeypatch, tmp_path):
    monkeypatch.setenv("MLNB_CACHE_DIR", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"
    monkeypatch.delenv("MLNB_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "mlnb"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == Path.home() / ".cache" / "mlnb"


def test_cached_value_that_json_cannot_hold_is_returned_uncached(tmp_path):
    value = {"x": object()}
    assert cached("test", {}, [tmp_path], lambda: value) is value
    assert not list((cache_dir() / "summaries").glob("*.json"))


def test_describe_text_corpus_counts_vocabulary_and_classes(root):
    stats = describe_text_corpus("webkb", data_dir=root)
    assert (stats.n_samples, stats.n_features, stats.n_labels) == (3, 4, 2)  # words a b c d
    assert stats.cardinality == 1.0 and stats.avg_imbalance_ratio == pytest.approx(1.5)
    assert describe_text_corpus("webkb", data_dir=root) == stats
    assert describe_text_corpus("webkb", data_dir=root, cache=False) == stats


def test_missing_data_directory_is_named(tmp_path, monkeypatch):
    missing = tmp_path / "nonexistent"
    for call in (
        lambda: list_datasets(missing),
        lambda: list_datasets(missing, available=True),
        lambda: describe_dataset("emotions", missing),
        lambda: load_dataset("emotions", missing),
    ):
        with pytest.raises(FileNotFoundError, match="nonexistent"):
            call()
    monkeypatch.setenv("MLNB_DATA", str(missing))
    with pytest.raises(FileNotFoundError, match=r"MLNB_DATA=.*nonexistent"):
        list_datasets()


def test_list_datasets_available(root, monkeypatch, tmp_path):
    assert list_datasets(root, available=True) == ["langlog"]
    # the built-in names, plus what the data directory holds (MLNB_DATA: the shared data)
    assert "emotions" in list_datasets(root) and set(list_datasets(root)) <= set(list_datasets())
    monkeypatch.delenv("MLNB_DATA", raising=False)
    monkeypatch.setattr(registry, "_repo_candidates", lambda: [tmp_path / "none"])
    assert list_datasets(available=True) == []  # no data directory at all
    assert "emotions" in list_datasets()


def test_real_listing_matches_describe(data_root):
    for name in ("emotions", "meka_yeast"):
        want = describe(load_dataset(name, data_root, split="full"))
        assert describe_dataset(name, data_root) == want == describe_dataset(name, data_root)
