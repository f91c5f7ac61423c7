"""Benchmark data sets by name, from a local data directory (see ../shared/data/MANIFEST.tsv).

The directory is, in order: ``data_dir``, ``$MLNB_DATA``, then ``shared/data`` beside the
repository (found from this file, then from the current working directory and its
parent). Inside it a set lives in ``multilabel/<name>/`` (or ``multitarget/``), or directly
in ``<name>/``.

Split convention: `load_dataset` returns a `TrainTest` ``(train, test)`` when the data set
comes with a train/test split (separate files, or MEKA's ``-split-number N`` meaning the
first N rows are the training set) and a `Dataset` otherwise. ``split="full"`` always
gives one `Dataset` (the union file, or train followed by test when there is none),
``"train"``/``"test"`` one part, ``"train_test"`` always the pair.

Names: the built-in table below, plus every non-text row of the data directory's
``MANIFEST.tsv`` that it does not know, plus every folder of the data directory
(``<category>/<name>/``, not ``text/``) that holds ARFF files, by the folder's name. A set
found in the manifest or a folder is read from its ARFF files: ``*-train``/``*-test`` the
split, the one other ARFF the full set (an XML label file or MEKA's ``-C N`` gives the
labels). So a data set added to the data directory loads by name without a code change.

Specials: ``scene`` has only train/test files (its full set is their concatenation);
``miml_image`` is multi-instance, each bag of 9 instances becomes the mean and the max of
its 15 features (30 features, ``bag_mean_f1`` ... ``bag_max_f15``), or with
``bags="concatenate"`` its 9 instances one after the other (135 features, ``bag_0_f1`` ...
``bag_8_f15``); its ``id`` attribute is dropped as an identifier; ``sf2`` is multi-target
(three counts), binarised as ``target > 0`` by default, and its classes (the counts 0..8,
int64) with ``load_dataset("sf2", multi_target=True)``.

Kinds: `dataset_kind` tells a multi-target set (one in the ``multitarget`` category: its
folder ``multitarget/<name>/``, as in the manifest) from a multi-label one.

A data directory that is given (``data_dir``, ``$MLNB_DATA``) but does not exist is a
FileNotFoundError naming it, in `list_datasets` as in the loaders. `describe_dataset`
remembers its result in the cache of `mlnb.datasets._cache` (``$MLNB_CACHE_DIR``,
``$XDG_CACHE_HOME/mlnb`` or ``~/.cache/mlnb``), keyed by the files' paths, sizes and
modification times, so that listing every data set is fast from the second time on.
"""

from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ._arff import Bags, Missing, UnknownLabels, check_bags, load_arff
from ._cache import cached
from ._dataset import Dataset, TrainTest, concatenate
from ._describe import LabelStats, describe
from ._files import load_file, load_file_pair

__all__ = ["data_home", "dataset_kind", "describe_dataset", "list_datasets", "load_dataset"]


@dataclass(frozen=True)
class _Entry:
    folder: str
    full: str | None
    train: str | None = None
    test: str | None = None
    options: dict = field(default_factory=dict)


def _mulan(name: str, ext: str = ".arff", train_ext=None, test_ext=None) -> _Entry:
    return _Entry(
        f"multilabel/{name}",
        f"{name}{ext}",
        f"{name}-train{train_ext or ext}",
        f"{name}-test{test_ext or ext}",
    )


def _single(name: str, file: str, category: str = "multilabel", **options) -> _Entry:
    return _Entry(f"{category}/{name}", file, options=options)


_REGISTRY: dict[str, _Entry] = {
    "bibtex": _mulan("bibtex", ".arff.gz"),
    "delicious": _mulan("delicious", ".arff.gz", test_ext=".arff"),
    "emotions": _mulan("emotions"),
    "enron": _mulan("enron"),
    "medical": _mulan("medical"),
    "scene": _Entry("multilabel/scene", None, "scene-train.arff.gz", "scene-test.arff.gz"),
    "tmc2007": _Entry(
        "multilabel/tmc2007",
        "tmc2007-500.arff.gz",
        "tmc2007-500-train.arff.gz",
        "tmc2007-500-test.arff.gz",
    ),
    "yeast": _mulan("yeast", ".arff.gz", test_ext=".arff"),
    "meka_enron": _single("meka_enron", "Enron.arff.bz2"),
    "meka_imdb": _single("meka_imdb", "Imdb.arff.bz2"),
    "meka_music": _Entry(
        "multilabel/meka_music", "Music.arff", "Music-train.arff", "Music-test.arff"
    ),
    "meka_scene": _single("meka_scene", "Scene.arff.bz2"),
    "meka_yeast": _single("meka_yeast", "Yeast.arff.bz2"),
    "plantpseaac": _single("plantpseaac", "PlantPseAAC.arff.gz"),
    "ohsumed": _single("ohsumed", "OHSUMED-F.arff.gz"),
    "stackex_chess": _single("stackex_chess", "Stackex_chess.arff.gz"),
    "reutersk500": _single("reutersk500", "REUTERS-K500-EX2.arff"),
    "ng20": _single("ng20", "20NG.arff.gz"),
    **{
        f"yahoo_{t}": _single(f"yahoo_{t}", f"yahoo_{t}.arff.gz")
        for t in ("arts", "business", "education", "health", "reference")
    },
    **{f"rcv1sub{i}": _single(f"rcv1sub{i}", f"rcv1sub{i}.arff.gz") for i in range(1, 5)},
    "stackex_chemistry": _single("stackex_chemistry", "stackex_chemistry.arff"),
    "stackex_cooking": _single("stackex_cooking", "stackex_cooking.arff.gz"),
    "stackex_cs": _single("stackex_cs", "stackex_cs.arff.gz"),
    "langlog": _single("langlog", "langlog.arff.gz"),
    "miml_image": _single("miml_image", "miml_03_data.arff.gz"),
    "sf2": _single("sf2", "sf2.arff", "multitarget", labels=-3, label_threshold=0),
}  # sets added since (birds, flags, genbase, ...) are found in the data directory
_ALIASES = {
    "tmc2007-500": "tmc2007",
    "20ng": "ng20",
    "llog": "langlog",
    "music": "meka_music",
    "water_quality": "water-quality",
}
_SPLITS = (None, "full", "train", "test", "train_test")
_ARFF = re.compile(r"\.arff(\.gz|\.bz2)?$", re.IGNORECASE)
# Endings that make a name the path of a file (not found: FileNotFoundError, not "unknown").
_FILE_SUFFIXES = (".arff", ".gz", ".bz2", ".csv", ".parquet", ".pq", ".zip", ".xz")


def _manifest_entry(name: str, paths: list[str]) -> _Entry | None:
    """An entry from a manifest row's files: ``*-train``/``*-test`` ARFFs are the split, the
    remaining ARFF (if exactly one) the full set; None when the row names no ARFF file."""
    arffs = [p for p in paths if _ARFF.search(p)]
    if not arffs:
        return None
    folder = arffs[0].rsplit("/", 1)[0] if "/" in arffs[0] else name
    files = [p.rsplit("/", 1)[-1] for p in arffs]
    train = [f for f in files if re.search(r"-train\.arff", f, re.IGNORECASE)]
    test = [f for f in files if re.search(r"-test\.arff", f, re.IGNORECASE)]
    rest = [f for f in files if f not in train and f not in test]
    full = rest[0] if len(rest) == 1 else None
    if len(train) == 1 and len(test) == 1:
        return _Entry(folder, full, train[0], test[0])
    return None if full is None else _Entry(folder, full)


def _manifest(root: Path | None) -> dict[str, _Entry]:
    """The entries that ``root/MANIFEST.tsv`` adds to the built-in ones (not text corpora)."""
    path = None if root is None else root / "MANIFEST.tsv"
    if path is None or not path.is_file():
        return {}
    added = {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            name = (row.get("name") or "").strip().lower()
            if not name or name in _REGISTRY or row.get("category") == "text":
                continue
            entry = _manifest_entry(name, (row.get("paths") or "").split(";"))
            if entry is not None:
                added[name] = entry
    return added


def _scanned(root: Path | None) -> dict[str, _Entry]:
    """Entries for the folders of the data directory that hold ARFF files, by folder name:
    ``<category>/<name>/`` (or ``<name>/`` when the directory is a category folder)."""
    if root is None:
        return {}
    found = {}
    for top in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "text"):
        for folder in [top, *sorted(p for p in top.iterdir() if p.is_dir())]:
            files = sorted(f.name for f in folder.iterdir() if f.is_file())
            relative = folder.relative_to(root).as_posix()
            entry = _manifest_entry(folder.name, [f"{relative}/{f}" for f in files])
            if entry is not None:
                found.setdefault(folder.name.lower(), entry)
    return found


def _entries(root: Path | None) -> dict[str, _Entry]:
    """The built-in table, then the rows of the manifest, then the folders found."""
    return {**_scanned(root), **_manifest(root), **_REGISTRY}


def _root_or_none(data_dir=None) -> Path | None:
    try:
        return data_home(data_dir)
    except FileNotFoundError:
        return None


def list_datasets(data_dir=None, *, available: bool = False) -> list[str]:
    """Names accepted by `load_dataset`.

    Parameters
    ----------
    data_dir : str or Path, optional
        A data directory; it (or else ``$MLNB_DATA``, when set) must exist.
    available : bool, default=False
        Only the data sets whose files are in the data directory (none without one).

    Returns
    -------
    list of str
        Sorted names.

    Raises
    ------
    FileNotFoundError
        ``data_dir`` (or ``$MLNB_DATA``) is given but is not a directory; the message
        names it.
    """
    root = None
    if data_dir is not None or os.environ.get("MLNB_DATA") or available:
        try:
            root = data_home(data_dir)
        except FileNotFoundError:
            if data_dir is not None or os.environ.get("MLNB_DATA"):
                raise
    entries = _entries(root if root is not None else _root_or_none())
    names = sorted(entries)
    if not available:
        return names
    return [] if root is None else [n for n in names if _present(root, n, entries[n])]


def _present(root: Path, name: str, entry: _Entry) -> bool:
    try:
        folder = _folder(root, entry, name)
    except FileNotFoundError:
        return False
    files = [entry.full] if entry.train is None else [entry.train, entry.test]
    return all((folder / f).is_file() for f in files)


def _repo_candidates() -> list[Path]:
    here = Path(__file__).resolve()
    cwd = Path.cwd()
    roots = [here.parents[3], cwd, cwd.parent] if len(here.parents) > 3 else [cwd, cwd.parent]
    out = []
    for root in roots:
        for c in (root.parent / "shared" / "data", root / "shared" / "data"):
            if c not in out:
                out.append(c)
    return out


def data_home(data_dir=None) -> Path:
    """The data directory: ``data_dir``, ``$MLNB_DATA`` or ``shared/data`` beside the repo."""
    if data_dir is not None:
        path = Path(data_dir)
        if not path.is_dir():
            raise FileNotFoundError(f"data_dir={str(data_dir)!r} is not a directory")
        return path
    env = os.environ.get("MLNB_DATA")
    if env:
        path = Path(env)
        if not path.is_dir():
            raise FileNotFoundError(f"MLNB_DATA={env!r} is not a directory")
        return path
    tried = _repo_candidates()
    for c in tried:
        if c.is_dir():
            return c
    raise FileNotFoundError(
        "no data directory: pass data_dir=, set MLNB_DATA, or put the data in "
        f"shared/data beside the repository (looked in {', '.join(map(str, tried))})"
    )


def dataset_kind(name: str, data_dir=None) -> Literal["multi-target", "multi-label"]:
    """The declared kind of a benchmark data set: ``"multi-target"`` or ``"multi-label"``.

    Parameters
    ----------
    name : str
        A name of `list_datasets` (or an alias, as in `load_dataset`).
    data_dir : str or Path, optional
        As in `list_datasets`: the data directory whose manifest and folders add names.

    Returns
    -------
    {"multi-target", "multi-label"}
        ``"multi-target"`` for a set of the ``multitarget`` category (``sf2``), whose
        classes ``load_dataset(name, multi_target=True)`` reads; else ``"multi-label"``.

    Raises
    ------
    ValueError
        An unknown name.
    FileNotFoundError
        ``data_dir`` (or ``$MLNB_DATA``) is given but is not a directory.

    Examples
    --------
    >>> dataset_kind("sf2"), dataset_kind("emotions")
    ('multi-target', 'multi-label')
    """
    explicit = data_dir is not None or os.environ.get("MLNB_DATA")
    root = data_home(data_dir) if explicit else _root_or_none()
    _, entry = _entry(name, root)
    return "multi-target" if entry.folder.split("/")[0] == "multitarget" else "multi-label"


def _entry(name: str, root: Path | None) -> tuple[str, _Entry]:
    """The canonical name and the entry of ``name`` (built in, or from root's manifest)."""
    key = name.lower()
    key = _ALIASES.get(key, key)
    entries = _entries(root)
    if key not in entries:
        raise ValueError(f"name: unknown data set {name!r}; known: {', '.join(sorted(entries))}")
    return key, entries[key]


def describe_dataset(name: str, data_dir=None, *, cache: bool = True) -> LabelStats:
    """`describe` of a whole benchmark data set (``split="full"``), cached on disk.

    Parameters
    ----------
    name : str
        A name of `list_datasets` (or an alias, as in `load_dataset`).
    data_dir : str or Path, optional
        As in `load_dataset`.
    cache : bool, default=True
        Read and write the cache (see the module docstring); False always reads the data.

    Returns
    -------
    LabelStats
        Equal to ``describe(load_dataset(name, data_dir, split="full"))``.

    Raises
    ------
    FileNotFoundError
        No data directory, or the data set is not in it.
    """
    root = data_home(data_dir)
    key, entry = _entry(name, root)
    folder = _folder(root, entry, key)

    def compute() -> dict:
        return describe(load_dataset(key, root, split="full")).as_dict()

    if not cache:
        return LabelStats(**compute())
    stats = cached("describe_dataset", {"name": key}, [folder], compute)
    try:
        return LabelStats(**stats)
    except TypeError:  # an entry of another layout
        return LabelStats(**compute())


def _is_file(name) -> bool:
    """Whether ``name`` is the path of a data file rather than a data set's name."""
    if isinstance(name, os.PathLike):
        return True
    path = Path(name)
    return path.is_file() or bool(path.suffix and path.suffix.lower() in _FILE_SUFFIXES)


def _folder(root: Path, entry: _Entry, name: str) -> Path:
    for c in (root / entry.folder, root / Path(entry.folder).name):
        if c.is_dir():
            return c
    raise FileNotFoundError(f"data set {name!r}: folder {entry.folder!r} not found under {root}")


def load_dataset(
    name,
    data_dir=None,
    *,
    split: str | None = None,
    sparse=None,
    bags: Bags = "mean_max",
    missing: Missing = "error",
    labels=None,
    unknown_labels: UnknownLabels = "error",
    multi_target: bool = False,
):
    """Load a benchmark data set by its MANIFEST name (``"emotions"``, ...), or a data file.

    Parameters
    ----------
    name : str or Path
        See `list_datasets`; case-insensitive; aliases ``tmc2007-500``, ``20ng``, ``llog``.
        Or the path of an ARFF, CSV or Parquet file (see ``labels``); its provided split
        is a training file with its test file beside it (``yeast-train.arff`` and
        ``yeast-test.arff``: the word ``train`` replaced by ``test``).
    data_dir : str or Path, optional
        The data directory; default ``$MLNB_DATA`` or ``shared/data`` beside the repo.
    split : {None, "full", "train", "test", "train_test"}
        None: ``TrainTest(train, test)`` if the set has a provided split, else the full
        `Dataset`. The other values always return the named part (see module docstring).
        A file given by path is one `Dataset` (None, "full"), or with its test file
        ``TrainTest(file, test file)`` ("train_test"), or either part.
    sparse : bool or None
        Passed to `load_arff`.
    bags : {"mean_max", "concatenate"}
        Passed to `load_arff`: how multi-instance bags (``miml_image``) become features,
        the mean and the max of each inner feature, or the instances concatenated.
    missing : {"error", "nan", "zero"}, default="error"
        Passed to `load_arff`: what a ``?`` value becomes (NaN: a missing entry, which the
        Naive Bayes estimators ignore with ``missing="ignore"``).
    labels : int, str or list of str, optional
        Only for a file given by path: its label columns, an int as MEKA's ``-C N`` (N > 0
        the first N columns, N < 0 the last ``|N|``) or names (a list, or one string
        separated by commas); default the Mulan XML file beside it, or an ARFF file's
        ``-C N``. See `load_table` for CSV and Parquet.
    unknown_labels : {"error", "allow", "cells"}, default="error"
        Passed to `load_arff` and `load_table`: what an unknown label value (``?``, an
        empty cell) is: an error, labels all unknown (``Y=None``, data to predict), or an
        unknown cell (``"cells"``: ``Y`` float64 with NaN at those cells).
    multi_target : bool, default=False
        Passed to `load_arff`: the targets' classes (int64 ``Y``, ``target_classes``),
        not binarised; ``load_dataset("sf2", multi_target=True)`` gives sf2's counts,
        whose default load binarises them. Only for named sets (a file by path: call
        `load_arff`); see `dataset_kind`.

    Returns
    -------
    Dataset or TrainTest
    """
    if split not in _SPLITS:
        raise ValueError(f"split: expected one of {_SPLITS}, got {split!r}")
    check_bags(bags)
    if _is_file(name):
        if multi_target:
            raise ValueError(
                f"multi_target=True: {str(name)!r} is a file; load_dataset reads the classes "
                "of named data sets, load_arff(path, multi_target=True) those of an ARFF file"
            )
        options = {
            "labels": labels,
            "missing": missing,
            "sparse": sparse,
            "unknown_labels": unknown_labels,
        }
        if split in (None, "full"):
            return load_file(name, **options)
        pair = load_file_pair(name, **options)
        return pair if split == "train_test" else getattr(pair, split)
    if labels is not None:
        raise ValueError(
            f"labels: {name!r} is a named data set, whose label columns are known; labels= "
            "chooses the label columns of a file given by path"
        )
    try:
        root = data_home(data_dir)
    except FileNotFoundError:
        _entry(name, None)  # an unknown name is the first thing to say
        raise
    key, entry = _entry(name, root)
    folder = _folder(root, entry, key)
    options = dict(entry.options)
    if multi_target:  # the classes, not the registry's binarisation (sf2)
        options.pop("label_threshold", None)

    def load(file: str, part: str) -> Dataset:
        return load_arff(
            folder / file,
            name=part,
            sparse=sparse,
            bags=bags,
            missing=missing,
            unknown_labels=unknown_labels,
            multi_target=multi_target,
            **options,
        )

    if entry.train is not None:
        if split in ("train", "test"):
            return load(getattr(entry, split), f"{key}-{split}")
        if split == "full":
            if entry.full is not None:
                return load(entry.full, key)
            parts = [load(entry.train, f"{key}-train"), load(entry.test, f"{key}-test")]
            return concatenate(parts, name=key)
        return TrainTest(load(entry.train, f"{key}-train"), load(entry.test, f"{key}-test"))
    full = load(entry.full, key)
    m = re.search(r"-split-number\s+(\d+)", full.relation)
    has_split = m is not None
    if split == "full" or (split is None and not has_split):
        return full
    if not has_split:
        raise ValueError(f"split={split!r}: data set {key!r} has no provided train/test split")
    n_train = int(m.group(1))
    pair = TrainTest(
        full.subset(slice(0, n_train), name=f"{key}-train"),
        full.subset(slice(n_train, None), name=f"{key}-test"),
    )
    return pair if split in (None, "train_test") else getattr(pair, split)
