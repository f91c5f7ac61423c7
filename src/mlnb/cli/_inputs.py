"""Where the ``mlnb`` command gets its data.

Two kinds of data:

- multi-label data (:class:`~mlnb.datasets.Dataset`: features ``X``, label matrix ``Y``):
  the generated sets, the data sets by name (`mlnb datasets`), and ARFF, CSV and Parquet
  files;
- single-label text (:class:`TextData`: documents and one class per document): the
  corpora of :func:`mlnb.datasets.load_text_corpus` by name (``webkb``, ``r8``,
  ``20ng_bydate``; also ``r8_allterms`` and ``r8_noshort``, ``r8`` with that cleaning),
  ``label<TAB>text`` files, a text file with ``--labels FILE`` (its classes, one per line),
  a folder with one folder per class (or training and test folders of such), and
  20 Newsgroups "bydate" archives.

Text corpora are cleaned as the Bayesian NB paper's data (Cardoso-Cachopo's recipe):
``webkb`` as distributed (stemmed), ``r8`` all terms (``r8_noshort``: without words of
fewer than 3 letters), ``20ng_bydate`` stemmed; ``--variant`` chooses another cleaning
where the source allows it. A text file or folder is read as is (words separated by white
space) unless a variant is given; a file whose lines hold no tab (and no ``--labels``) is a
list of unlabelled documents, one per line, which models can predict but not learn from.
A 20 Newsgroups "bydate" archive (``.tar.gz``) is cleaned as ``20ng_bydate``.

``--labels`` names the label columns of a file given by path: a count as MEKA's ``-C N``
(N > 0 the first N columns, N < 0 the last ``|N|``) or column names separated by commas;
by default the Mulan XML file beside it, or an ARFF file's ``-C N`` (a CSV file needs one
of the two). For a text file it is the file of classes. ARFF, CSV and Parquet input takes
the loaders' ``missing`` ("error", or "nan": a missing value is read as NaN) and, for
label values missing (MEKA's ``?``) the loaders' ``unknown_labels="cells"``: a file whose
label values are all missing gives a data set without ``Y`` (rows to predict), one with
some missing gives ``Y`` with unknown cells (NaN), which binary relevance learns around
and the metrics skip. The provided split of a
file is a training file with its test file beside it (``yeast-train.arff``,
``yeast-test.arff``: ``test`` for ``train`` in the name).

Multi-target data (``mlnb evaluate --multi-target``, ``multi_target=True`` here): a named
data set or an ARFF file read with a class per target, not binarised
(``load_dataset``/``load_arff`` with ``multi_target=True``: ``Y`` holds classes and
``Dataset.target_classes`` is set, :func:`is_multi_target`); a target value ``?`` is an
error. :func:`declared_kind` tells a named set declared multi-target (``sf2``), whose
default load binarises its targets.

The loaders (:mod:`mlnb.datasets`, which imports scipy) and numpy are imported by the
functions that use them, so that ``mlnb --version`` and ``--help`` do not load them.
"""

from __future__ import annotations

import bz2
import gzip
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "GENERATED",
    "TEXT_ALIASES",
    "TEXT_CORPORA",
    "TextData",
    "data_home_message",
    "declared_kind",
    "is_multi_target",
    "is_text",
    "join",
    "load_data",
    "load_train_test",
]

# Built-in generated data sets: the default of `mlnb compare` and usable anywhere.
GENERATED = {
    "synthetic-gaussian": {"features": "gaussian", "label_dependence": 0.6, "random_state": 1},
    "synthetic-counts": {"features": "counts", "label_dependence": 0.6, "random_state": 2},
    "synthetic-independent": {"features": "gaussian", "label_dependence": 0.0, "random_state": 3},
    "synthetic-dependent": {"features": "gaussian", "label_dependence": 0.9, "random_state": 4},
}

# Single-label text corpora by their names: (the paper's cleaning, the cleanings the source
# allows; None: every one of mlnb.datasets' VARIANTS). The old names r8_allterms and
# r8_noshort are r8 with one cleaning (TEXT_ALIASES); "20ng" stays the multi-label set ng20
# here, as it always was in the command.
TEXT_CORPORA = {
    "webkb": ("stemmed", ("stemmed",)),
    "r8": ("all-terms", None),
    "20ng_bydate": ("stemmed", None),
}
TEXT_ALIASES = ("r8_allterms", "r8_noshort")


@dataclass(frozen=True, eq=False)
class TextData:
    """Single-label documents: cleaned text (words separated by spaces) and their classes.

    ``labels`` is None for unlabelled documents; ``variant`` is the cleaning applied
    (None: read as is); ``from_file`` tells a file given by path from a named corpus.
    """

    documents: list[str]
    labels: np.ndarray | None
    name: str
    variant: str | None = None
    from_file: bool = False

    @property
    def n_samples(self) -> int:
        return len(self.documents)

    @property
    def classes(self) -> list[str]:
        return [] if self.labels is None else sorted(set(self.labels.tolist()))

    def __repr__(self) -> str:
        return (
            f"TextData(name={self.name!r}, n_documents={self.n_samples}, "
            f"n_classes={len(self.classes)}, variant={self.variant!r})"
        )


def is_text(data):
    """Whether ``data`` holds single-label documents rather than multi-label features."""
    return isinstance(data, TextData)


def is_multi_target(data):
    """Whether ``data`` holds a class per target (loaded with ``multi_target=True``)."""
    return not is_text(data) and data.target_classes is not None


def declared_kind(name, data_dir=None):
    """The declared kind of a named data set, ``"multi-target"`` or ``"multi-label"``
    (:func:`mlnb.datasets.dataset_kind`); None for a file, a generated set, a text corpus
    or an unknown name."""
    from ..datasets import dataset_kind

    if name in GENERATED or name in TEXT_CORPORA or name in TEXT_ALIASES or Path(name).exists():
        return None
    try:
        return dataset_kind(name, data_dir)
    except (ValueError, FileNotFoundError):
        return None


def _text(corpus, name, variant, from_file):
    import numpy as np

    return TextData(list(corpus.documents), np.asarray(corpus.labels), name, variant, from_file)


def _text_pair(pair, name, variant, *, from_file):
    from ..datasets import TrainTest

    return TrainTest(
        _text(pair.train, f"{name}-train", variant, from_file),
        _text(pair.test, f"{name}-test", variant, from_file),
    )


def _file_kind(path):
    """The kind of a data file: "arff", "table" (CSV, Parquet), "text", "folder" (text, a
    folder per class) or "archive" (20 Newsgroups .tar.gz)."""
    from ..datasets._files import is_arff
    from ..datasets._table import is_table

    name = path.name.lower()
    if path.is_dir():
        return "folder"
    if is_arff(path):
        return "arff"
    if is_table(path):
        return "table"
    if name.endswith((".tar.gz", ".tgz", ".tar")):
        return "archive"
    if name.endswith((".txt", ".txt.gz", ".tsv", ".tsv.gz")):
        return "text"
    head = path.read_bytes()[:2]
    opener = {b"\x1f\x8b": gzip.open, b"BZ": bz2.open}.get(head, open)
    with opener(path, "rb") as handle:
        start = handle.read(1 << 16).decode("latin-1")
    for line in start.splitlines():
        line = line.strip()
        if line and not line.startswith("%"):
            return "arff" if line.lower().startswith("@relation") else "text"
    return "text"


def _read_lines(path):
    """The non-blank lines of a text file, plain or gzip; UTF-8, else latin-1."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return [line.rstrip("\r") for line in text.split("\n") if line.strip()]


def _check_no_variant(variant, name):
    if variant is not None:
        raise ValueError(
            f"--variant cleans text; {name} is multi-label feature data, not a text corpus"
        )


def _loader_options(loader, missing, unlabelled):
    """The options ``loader`` accepts: ``missing``, and ``unknown_labels`` to read label
    values ``?`` when ``unlabelled`` and the loader knows the option: as unknown cells
    (NaN in Y, which binary relevance learns around and the metrics skip), or Y None
    when every label value is unknown (rows to predict)."""
    options = {"missing": missing}
    if unlabelled and "unknown_labels" in inspect.signature(loader).parameters:
        options["unknown_labels"] = "cells"
    return options


def _check_no_labels(name, labels):
    if labels is not None:
        raise ValueError(
            f"--labels: {name} is not a data file given by path; --labels chooses the label "
            "columns of an ARFF, CSV or Parquet file (a count N or names a,b), or gives the "
            "file of classes of a text file"
        )


def _label_file(labels, name):
    """--labels of a text file: the file of its classes, one per line."""
    if labels is None:
        return None
    path = Path(str(labels))
    if not path.is_file():
        raise ValueError(
            f"--labels: for the text file {name}, --labels is the file of its classes (one "
            f"per line, one line per document); {labels!r} is not a file"
        )
    return path


def _text_corpus(name, data_dir, variant, labels):
    """A named text corpus (canonical name or old name) as a TrainTest of TextData."""
    from ..datasets import load_text_corpus
    from ..datasets._text import VARIANTS, corpus_name

    _check_no_labels(name, labels)
    canonical, fixed = corpus_name(name)
    default, allowed = TEXT_CORPORA[canonical]
    allowed = VARIANTS if allowed is None else allowed
    if fixed is not None:
        if variant not in (None, fixed):
            raise ValueError(
                f"--variant {variant}: {name} is {canonical} --variant {fixed}; use "
                f"{canonical} --variant {variant}"
            )
        variant, allowed = fixed, (fixed,)
    variant = variant or default
    if variant not in allowed:
        raise ValueError(f"--variant {variant}: {name} is available as {', '.join(allowed)} only")
    try:
        pair = load_text_corpus(canonical, variant=variant, data_dir=data_dir)
    except FileNotFoundError as error:
        raise FileNotFoundError(data_home_message(error)) from None
    return _text_pair(pair, canonical, variant, from_file=False)


def _text_file(path, variant, labels, want_pair):
    """A text file: ``label<TAB>text`` lines, documents with --labels FILE, or unlabelled
    documents one per line; with ``want_pair`` the training file and its test file."""
    from ..datasets import clean_text, load_text_corpus

    label_file = _label_file(labels, path.name)
    if want_pair:
        pair = load_text_corpus(path, variant=variant, labels=label_file, split="train_test")
        return _text_pair(pair, path.name, variant, from_file=True)
    if label_file is not None:
        corpus = load_text_corpus(path, variant=variant, labels=label_file)
        return _text(corpus, path.name, variant, True)
    lines = _read_lines(path)
    if lines and "\t" in lines[0]:
        return _text(load_text_corpus(path, variant=variant), path.name, variant, True)
    documents = [clean_text(line, variant) if variant else " ".join(line.split()) for line in lines]
    return TextData(documents, None, path.name, variant, True)


def data_home_message(error):
    """The loaders' data-folder errors in the command's words."""
    text = str(error)
    if text.startswith("no data directory"):
        looked = text.partition("(")[2].rstrip(")")
        return (
            "no data folder found: give --data-dir FOLDER or set MLNB_DATA (the folder "
            f"holding MANIFEST.tsv, multilabel/, text/); looked in {looked}"
        )
    return text


def _load(
    name, data_dir, variant, missing="error", labels=None, unlabelled=True, pair=False,
    multi_target=False,
):  # fmt: skip
    """One data object, or a TrainTest pair when the source provides a split.

    ``missing`` and ``labels``: the loaders' options (module docstring); ``unlabelled``:
    accept a file whose label values are all missing (rows to predict; ``Y`` is None);
    ``pair``: a file given by path is read with its test file (the data's provided split);
    ``multi_target``: a class per target (module docstring).
    """
    from ..datasets import Dataset, load_dataset, make_multilabel
    from ..datasets._text import VARIANTS

    if variant is not None and variant not in VARIANTS:
        raise ValueError(f"--variant must be one of {', '.join(VARIANTS)}; got {variant!r}")
    if multi_target and (name in GENERATED or name in TEXT_CORPORA or name in TEXT_ALIASES):
        raise ValueError(_NOT_MULTI_TARGET.format(name=name))
    unlabelled = unlabelled and not multi_target
    if name in GENERATED:
        _check_no_variant(variant, name)
        _check_no_labels(name, labels)
        X, Y = make_multilabel(600, 20, 6, cardinality=1.8, **GENERATED[name])
        names = [f"x{i}" for i in range(X.shape[1])], [f"y{j}" for j in range(Y.shape[1])]
        return Dataset(X=X, Y=Y, feature_names=names[0], label_names=names[1], name=name)
    if name in TEXT_CORPORA or name in TEXT_ALIASES:
        return _text_corpus(name, data_dir, variant, labels)
    path = Path(name)
    if path.exists():
        if multi_target:
            _check_no_variant(variant, path.name)
            return _multi_target_file(path, missing, labels, pair)
        return _load_path(path, variant, missing, labels, unlabelled, pair)
    if path.suffix or len(path.parts) > 1:
        raise FileNotFoundError(f"{name}: no such file")
    _check_no_variant(variant, name)
    if labels is not None:
        raise ValueError(
            f"--labels: {name} is a named data set, whose label columns are known; --labels "
            "chooses the label columns of an ARFF, CSV or Parquet file given by path"
        )
    options = _loader_options(load_dataset, missing, unlabelled)
    try:
        return load_dataset(name, data_dir, multi_target=multi_target, **options)
    except FileNotFoundError as error:
        raise FileNotFoundError(data_home_message(error)) from None
    except ValueError as error:
        if "unknown data set" not in str(error):
            raise
        raise ValueError(
            f"unknown data set {name!r}: not a file and not a known name; generated: "
            f"{', '.join(GENERATED)}; text corpora: {', '.join(TEXT_CORPORA)}; ARFF data "
            "sets: see `mlnb datasets`"
        ) from None


_NOT_MULTI_TARGET = (
    "--multi-target: {name} is not multi-target data; --multi-target reads the classes of a "
    "named data set (e.g. sf2) or of an ARFF file"
)


def _multi_target_file(path, missing, labels, pair):
    """An ARFF file given by path read with a class per target (``load_arff(...,
    multi_target=True)``); with ``pair``, its test file too."""
    from ..datasets import TrainTest, load_arff
    from ..datasets._files import is_arff, sibling_test_file

    if not is_arff(path):
        raise ValueError(_NOT_MULTI_TARGET.format(name=path.name))
    if isinstance(labels, str) and not labels.lower().endswith(".xml"):
        labels = [label.strip() for label in labels.split(",")]  # names a,b (as load_file)
    options = {"labels": labels, "missing": missing, "multi_target": True}
    if not pair:
        return load_arff(path, **options)
    # as load_file_pair: the file and its test file, or a full file's -train and -test files
    stem, _, ext = path.name.partition(".")
    for train in (path, *(path.with_name(f"{stem}{sep}train.{ext}") for sep in "-_")):
        test = sibling_test_file(train) if train.is_file() else None
        if test is not None:
            return TrainTest(load_arff(train, **options), load_arff(test, **options))
    raise ValueError(
        f"{path}: no test file beside it (a training file named *train* with its *test* file "
        "in the same folder)"
    )


def _load_path(path, variant, missing, labels, unlabelled, pair):
    """A data file or text folder given by path (see `_load`)."""
    from ..datasets import TrainTest, load_text_corpus
    from ..datasets._files import load_file, load_file_pair

    kind = _file_kind(path)
    if kind in ("arff", "table"):
        _check_no_variant(variant, path.name)
        options = {**_loader_options(load_file, missing, unlabelled), "labels": labels}
        return load_file_pair(path, **options) if pair else load_file(path, **options)
    if kind == "folder":
        _check_no_labels(path.name, labels)
        corpus = load_text_corpus(path, variant=variant)
        if isinstance(corpus, TrainTest):
            return _text_pair(corpus, path.name, variant, from_file=True)
        return _text(corpus, path.name, variant, True)
    if kind == "archive":
        _check_no_labels(path.name, labels)
        variant = variant or "stemmed"
        corpus = load_text_corpus(path, variant=variant)
        return _text_pair(corpus, path.name, variant, from_file=True)
    return _text_file(path, variant, labels, pair)


def load_data(
    name, *, data_dir=None, part="full", variant=None, missing="error", labels=None,
    unlabelled=True, multi_target=False,
):  # fmt: skip
    """A :class:`~mlnb.datasets.Dataset` or a :class:`TextData`, by name or path.

    ``part``: "full" (train and test together when the source is split), "train" or
    "test"; a source without a provided split is returned whole. ``variant``: the cleaning
    of a text corpus or file; ``missing``, ``labels``, ``unlabelled``: ARFF input (see the
    module docstring); ``multi_target``: a class per target (see the module docstring).
    """
    from ..datasets import TrainTest

    loaded = _load(name, data_dir, variant, missing, labels, unlabelled, multi_target=multi_target)
    if not isinstance(loaded, TrainTest):
        return loaded
    if part == "full":
        return join(*loaded, name=name)
    return getattr(loaded, part)


def load_train_test(
    name, *, data_dir=None, variant=None, missing="error", labels=None, multi_target=False
):
    """The provided ``(train, test)`` parts of a data set; ValueError if it has none.

    A file given by path is a training file with its test file beside it (``test`` for
    ``train`` in its name). ``multi_target``: a class per target (module docstring).
    """
    from ..datasets import TrainTest

    try:
        loaded = _load(
            name, data_dir, variant, missing, labels, pair=True, multi_target=multi_target
        )
    except ValueError as error:
        if "no test file beside it" in str(error) or "a pair of files named" in str(error):
            raise ValueError(f"{error}; or use --cv or --split instead") from None
        raise
    if not isinstance(loaded, TrainTest):
        raise ValueError(f"{name} has no provided train/test split; use --cv or --split instead")
    return loaded


def join(train, test, *, name):
    """Rows of ``train`` followed by the rows of ``test``, as one data object."""
    import numpy as np

    from ..datasets._dataset import concatenate

    if is_text(train):
        labelled = train.labels is not None and test.labels is not None
        return TextData(
            train.documents + test.documents,
            np.concatenate([train.labels, test.labels]) if labelled else None,
            name,
            train.variant,
            train.from_file,
        )
    return concatenate([train, test], name=name)
