"""Data files given by path: ARFF, CSV or Parquet by their ending, and a training file's
test file beside it.

The test file of a training file is its name with the word ``train`` (between
non-letters, any case) replaced by ``test``, in the same folder, compressed or not:
``yeast-train.arff.gz`` -> ``yeast-test.arff`` or ``yeast-test.arff.gz``;
``webkb-train-stemmed.txt.gz`` -> ``webkb-test-stemmed.txt.gz``; ``train.csv`` ->
``test.csv``. A full file ``yeast.arff`` with ``yeast-train.arff`` and ``yeast-test.arff``
beside it has those as its split.
"""

from __future__ import annotations

import re
from pathlib import Path

from ._arff import load_arff
from ._dataset import Dataset, TrainTest
from ._table import is_table, load_table

__all__ = ["is_arff", "load_file", "load_file_pair", "sibling_test_file"]

_ARFF = re.compile(r"\.arff(\.gz|\.bz2)?$", re.IGNORECASE)
_TRAIN = re.compile(r"(?<![A-Za-z])train(?![A-Za-z])", re.IGNORECASE)
_COMPRESSION = re.compile(r"\.(gz|bz2)$", re.IGNORECASE)


def is_arff(path) -> bool:
    """Whether ``path`` names an ARFF file by its ending (``.arff``, ``.gz``, ``.bz2``)."""
    return bool(_ARFF.search(Path(path).name))


def _as_test(word: str) -> str:
    return {"TRAIN": "TEST", "Train": "Test"}.get(word, "test")


def sibling_test_file(path) -> Path | None:
    """The test file beside the training file ``path`` (module docstring), or None.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("yeast-train.arff.gz", "yeast-test.arff"):
    ...     _ = (folder / name).write_text("")
    >>> sibling_test_file(folder / "yeast-train.arff.gz").name
    'yeast-test.arff'
    >>> sibling_test_file(folder / "yeast-test.arff") is None
    True
    """
    path = Path(path)
    if len(_TRAIN.findall(path.name)) != 1:
        return None
    name = _TRAIN.sub(lambda m: _as_test(m.group(0)), path.name)
    plain = _COMPRESSION.sub("", name)
    candidates = [name] + [plain + ext for ext in ("", ".gz", ".bz2") if plain + ext != name]
    for candidate in candidates:
        if (path.parent / candidate).is_file():
            return path.parent / candidate
    return None


def load_file(
    path,
    *,
    labels=None,
    missing="error",
    sparse=None,
    unknown_labels="error",
    name=None,
) -> Dataset:
    """An ARFF (`load_arff`), CSV or Parquet (`load_table`) file, by its ending.

    ``labels``: the label columns (an int as MEKA's ``-C N``, names as a list or one string
    separated by commas, or None: the XML label file beside it, or an ARFF file's ``-C``).
    """
    path = Path(path)
    options = {"missing": missing, "sparse": sparse, "unknown_labels": unknown_labels}
    if is_table(path):
        return load_table(path, labels=labels, name=name, **options)
    if not is_arff(path):
        raise ValueError(
            f"{path}: expected an ARFF (.arff, .arff.gz, .arff.bz2), CSV (.csv) or Parquet "
            "(.parquet) file"
        )
    if isinstance(labels, str) and not labels.lower().endswith(".xml"):
        text = labels.strip()
        labels = int(text) if re.fullmatch(r"[+-]?\d+", text) else text.split(",")
        labels = labels if isinstance(labels, int) else [x.strip() for x in labels]
    return load_arff(path, labels=labels, name=name, **options)


def _split_files(path: Path) -> tuple[Path, Path] | None:
    """The ``<stem>-train`` and ``<stem>-test`` files beside a full file ``<stem>.<ext>``."""
    stem, _, ext = path.name.partition(".")
    for sep in ("-", "_"):
        train = path.with_name(f"{stem}{sep}train.{ext}")
        test = sibling_test_file(train)
        if train.is_file() and test is not None:
            return train, test
    return None


def load_file_pair(path, **options) -> TrainTest:
    """``(train, test)``: the training file ``path`` and its test file beside it; for a
    full file ``<stem>.arff``, the ``<stem>-train`` and ``<stem>-test`` files beside it.

    Raises ValueError naming the file looked for when there is none.
    """
    path = Path(path)
    test = sibling_test_file(path)
    if test is None and not _TRAIN.search(path.name) and _split_files(path) is not None:
        path, test = _split_files(path)
    if test is None:
        if len(_TRAIN.findall(path.name)) == 1:
            expected = _TRAIN.sub(lambda m: _as_test(m.group(0)), path.name)
            raise ValueError(
                f"{path}: no test file beside it (looked for {expected}, compressed or not)"
            )
        raise ValueError(
            f"{path}: a file has a provided test part only as a pair of files named "
            "*train* and *test* in one folder (e.g. yeast-train.arff and yeast-test.arff); "
            "give the training file"
        )
    return TrainTest(load_file(path, **options), load_file(test, **options))
