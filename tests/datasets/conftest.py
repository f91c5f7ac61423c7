"""Fixtures of the data-set tests: the shared data directory and an ARFF writer."""

from __future__ import annotations

import bz2
import gzip
from pathlib import Path
from xml.sax.saxutils import quoteattr

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def data_root() -> Path:
    """``../shared/data`` beside the repository root; the test is skipped without it."""
    if not (DATA / "MANIFEST.tsv").is_file():
        pytest.skip(f"benchmark data not found at {DATA} (expected ../shared/data beside the repo)")
    return DATA


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path_factory, monkeypatch):
    """Keep the summary cache of `describe_dataset` out of the home directory."""
    monkeypatch.setenv("MLNB_CACHE_DIR", str(tmp_path_factory.mktemp("mlnb-cache")))


@pytest.fixture
def write(tmp_path):
    """write(name, text, xml=None): an ARFF file (and label XML) in tmp_path."""

    def _write(name: str, text: str, xml: list[str] | None = None) -> Path:
        path = tmp_path / name
        data = text.encode("utf-8")
        if name.endswith(".gz"):
            data = gzip.compress(data)
        elif name.endswith(".bz2"):
            data = bz2.compress(data)
        path.write_bytes(data)
        if xml is not None:
            stem = name.split(".")[0]
            labels = "".join(f"<label name={quoteattr(n)}></label>" for n in xml)
            (tmp_path / f"{stem}.xml").write_text(
                '<?xml version="1.0" encoding="utf-8"?>\n'
                f'<labels xmlns="http://mulan.sourceforge.net/labels">{labels}</labels>\n'
            )
        return path

    return _write
