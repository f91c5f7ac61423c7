"""Single-label text corpora: named corpora, ``label<TAB>text`` files, parallel text and
label files, one folder per class, and the raw 20 Newsgroups archive.

Names: ``webkb``, ``r8`` and ``20ng_bydate`` (the names of ../shared/data's manifest and
of ``mlnb datasets``); ``r8_allterms`` and ``r8_noshort`` are ``r8`` with the variant
"all-terms" or "no-short", ``20ng`` is ``20ng_bydate`` (`CORPUS_ALIASES`).

Layouts of a path: a ``label<TAB>text`` file (one document per line); a text file with
one document per line and ``labels=`` a file with its classes, one per line (parallel
files); a folder with one sub-folder per class holding one document per file; a folder
whose sub-folders are a training and a test folder (any names holding ``train`` and
``test``: ``train/``, ``20news-bydate-test/``, ...), each with one folder per class; a
20 Newsgroups "bydate" ``.tar.gz``. A training file's test part is the file named with
``test`` for ``train`` beside it (``split="train_test"``).

Cleaning follows Cardoso-Cachopo (2007, "Improving methods for single-label text
categorization", the r8/r52/20ng/webkb pre-processing): the subject line is prepended to
the body of a message (the body is what follows the header block), tabs and newlines
become spaces, only letters are kept (everything else becomes a space), and text is
lower-cased: the ``"all-terms"`` variant. ``"no-short"`` also drops words of fewer than 3
letters; ``"stemmed"`` also drops the SMART stop words (571 entries, 570 distinct words,
shipped as ``smart_stopwords.txt``) and applies Porter's stemmer as in Porter's own
reference implementation: NLTK's ``PorterStemmer(mode=MARTIN_EXTENSIONS)``. That mode was
chosen on evidence: among words of R8 and 20NG that the modes stem differently, the
distributed WebKB stemmed corpus contains the MARTIN_EXTENSIONS stems (``technolog``,
``assembl``, ``psycholog``: 29 words) and never the ORIGINAL_ALGORITHM ones
(``technologi``, ...); NLTK's default mode matched least (84 of 1154, against 271).
For 20 Newsgroups "bydate" (11,314 train / 7,532 test messages) the stemmed vocabulary
comes out at 66,660 terms in the training set (87,336 over train and test);
Cardoso-Cachopo reports 70,216 for her 18,821-message version.
"""

from __future__ import annotations

import gzip
import re
import tarfile
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np

from ._cache import cached
from ._dataset import TrainTest
from ._describe import LabelStats, describe
from ._files import sibling_test_file
from ._registry import data_home

__all__ = [
    "CORPORA",
    "CORPUS_ALIASES",
    "TextCorpus",
    "corpus_name",
    "clean_text",
    "describe_text_corpus",
    "load_text_corpus",
    "smart_stop_words",
]

VARIANTS = ("all-terms", "no-short", "stemmed")
_R8_CLASSES = ("acq", "crude", "earn", "grain", "interest", "money-fx", "ship", "trade")
_NON_LETTERS = re.compile(r"[^A-Za-z]+")
# A full line of a uuencoded attachment: "M" (45 bytes) then 60 characters of the encoding.
_UUENCODED_LINE = re.compile(r"^M[\x21-\x60]{59,62}[ \t]*$", re.MULTILINE)
_SPLITS = (None, "full", "train", "test", "train_test")
# The named corpora, and the names they had before: name -> (corpus, its fixed variant).
CORPORA = ("webkb", "r8", "20ng_bydate")
CORPUS_ALIASES = {
    "20ng": ("20ng_bydate", None),
    "r8_allterms": ("r8", "all-terms"),
    "r8_noshort": ("r8", "no-short"),
}


def corpus_name(name) -> tuple[str, str | None] | None:
    """The canonical name of a named corpus and the variant its name fixes, or None.

    Examples
    --------
    >>> corpus_name("R8_noshort"), corpus_name("20ng"), corpus_name("notes.txt")
    (('r8', 'no-short'), ('20ng_bydate', None), None)
    """
    key = str(name).lower()
    if key in CORPORA:
        return key, None
    return CORPUS_ALIASES.get(key)


@dataclass(frozen=True, eq=False)
class TextCorpus:
    """Documents (cleaned strings, words separated by single spaces) and their labels."""

    documents: list[str]
    labels: np.ndarray
    name: str = ""

    @property
    def classes(self) -> list[str]:
        return sorted(set(self.labels.tolist()))

    def __len__(self) -> int:
        return len(self.documents)

    def __repr__(self) -> str:
        n, k = len(self), len(self.classes)
        return f"TextCorpus(name={self.name!r}, n_documents={n}, n_classes={k})"


@cache
def smart_stop_words() -> frozenset[str]:
    """The SMART system's English stop list (Salton; 570 distinct words)."""
    text = resources.files("mlnb.datasets").joinpath("smart_stopwords.txt").read_text("utf-8")
    return frozenset(w for w in text.split("\n") if w and not w.startswith("#"))


@cache
def _stemmer():
    try:
        from nltk.stem.porter import PorterStemmer
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("the 'stemmed' variant needs nltk: pip install 'mlnb[data]'") from None
    stem = PorterStemmer(mode=PorterStemmer.MARTIN_EXTENSIONS).stem
    return cache(lambda w: stem(w, to_lowercase=False))


def _check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise ValueError(f"variant: expected one of {VARIANTS}, got {variant!r}")


def clean_text(text: str, variant: str = "all-terms") -> str:
    """Cardoso-Cachopo's cleaning of one document (see the module docstring).

    Examples
    --------
    >>> clean_text("Re: 2 Cats\\tare RUNNING!", "all-terms")
    're cats are running'
    >>> clean_text("Re: 2 Cats\\tare RUNNING!", "stemmed")
    'cat run'
    """
    _check_variant(variant)
    words = _NON_LETTERS.sub(" ", text).lower().split()
    if variant != "all-terms":
        words = [w for w in words if len(w) >= 3]
    if variant == "stemmed":
        stop, stem = smart_stop_words(), _stemmer()
        words = [stem(w) for w in words if w not in stop]
    return " ".join(words)


def _decode(b: bytes) -> str:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b.decode("latin-1")


def _read_lines(path: Path) -> list[str]:
    opener = gzip.open if path.read_bytes()[:2] == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        text = _decode(f.read())
    return [line.rstrip("\r") for line in text.split("\n") if line.strip()]


def _read_labelled(path: Path, variant: str | None, *, index_labels=None) -> TextCorpus:
    """``label<TAB>text`` lines (or ``index<SPACE>text`` with ``index_labels``)."""
    docs, labels = [], []
    for lineno, line in enumerate(_read_lines(path), start=1):
        if index_labels is not None:
            label, _, text = line.partition(" ")
            if not label.isdigit() or int(label) >= len(index_labels):
                raise ValueError(f"{path}, line {lineno}: expected a class index, got {label!r}")
            label = index_labels[int(label)]
        else:
            label, tab, text = line.partition("\t")
            if not tab and " " in label.strip():
                raise ValueError(f"{path}, line {lineno}: expected 'label<TAB>text'")
        docs.append(clean_text(text, variant) if variant else " ".join(text.split()))
        labels.append(label.strip())
    return TextCorpus(docs, np.array(labels), path.name)


def _read_parallel(texts: Path, labels: Path, variant: str | None) -> TextCorpus:
    """Documents one per line of ``texts``, their classes one per line of ``labels``."""
    documents, classes = _read_lines(texts), _read_lines(labels)
    if len(documents) != len(classes):
        raise ValueError(
            f"{texts} has {len(documents)} documents (non-blank lines) but {labels} has "
            f"{len(classes)} labels: parallel files need one label per document"
        )
    docs = [clean_text(d, variant) if variant else " ".join(d.split()) for d in documents]
    return TextCorpus(docs, np.array([c.strip() for c in classes]), texts.name)


def _visible(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if not p.name.startswith("."))


def _file_key(path: Path):
    return (0, int(path.name), "") if path.name.isdigit() else (1, 0, path.name)


def _read_classes(folder: Path, variant, *, newsgroups: bool, drop_uuencoded=False):
    """One folder per class, one document per file (sorted by class, then file name)."""
    classes = [p for p in _visible(folder) if p.is_dir()]
    if not classes:
        raise ValueError(f"{folder}: expected one sub-folder per class, found none")
    docs, labels = [], []
    for cls in classes:
        for file in sorted((p for p in _visible(cls) if p.is_file()), key=_file_key):
            text = _decode(file.read_bytes())
            if newsgroups:
                text = _newsgroup_text(text)
                if drop_uuencoded:
                    text = _UUENCODED_LINE.sub("", text)
            docs.append(clean_text(text, variant) if variant else " ".join(text.split()))
            labels.append(cls.name)
    return TextCorpus(docs, np.array(labels), folder.name)


def _read_folder(folder: Path, variant, drop_uuencoded=False):
    """A folder per class (a `TextCorpus`), or training and test folders of such (a pair)."""
    subfolders = [p for p in _visible(folder) if p.is_dir()]
    nested = [p for p in subfolders if any(q.is_dir() for q in _visible(p))]
    if not nested:
        newsgroups = folder.name.startswith("20news-bydate")
        variant = variant or ("all-terms" if newsgroups else None)
        return _read_classes(folder, variant, newsgroups=newsgroups, drop_uuencoded=drop_uuencoded)
    train = [p for p in nested if "train" in p.name.lower()]
    test = [p for p in nested if "test" in p.name.lower()]
    if len(train) != 1 or len(test) != 1:
        raise ValueError(
            f"{folder}: expected one training and one test folder (names holding 'train' and "
            f"'test'), each with one folder per class; found {[p.name for p in nested]}"
        )
    newsgroups = train[0].name.startswith("20news-bydate")
    variant = variant or ("all-terms" if newsgroups else None)
    return TrainTest(
        *(
            _read_classes(p, variant, newsgroups=newsgroups, drop_uuencoded=drop_uuencoded)
            for p in (train[0], test[0])
        )
    )


def _newsgroup_text(raw: str) -> str:
    """Subject line + body of one Usenet message."""
    head, _, body = raw.replace("\r\n", "\n").partition("\n\n")
    subject = ""
    lines = head.split("\n")
    for i, line in enumerate(lines):
        if line.lower().startswith("subject:"):
            parts = [line[len("subject:") :]]
            for cont in lines[i + 1 :]:
                if not cont[:1].isspace():
                    break
                parts.append(cont)
            subject = " ".join(parts)
            break
    return subject + " " + body


def _read_20ng(archive: Path, variant: str, drop_uuencoded: bool = False) -> TrainTest:
    parts: dict[str, list[tuple[str, int, str]]] = {"train": [], "test": []}
    with tarfile.open(archive, "r:*") as tar:
        for member in tar:
            if not member.isfile():
                continue
            bits = member.name.split("/")
            if len(bits) != 3 or not bits[0].startswith("20news-bydate-"):
                continue
            split = bits[0].removeprefix("20news-bydate-")
            if split not in parts:
                continue
            message = _newsgroup_text(_decode(tar.extractfile(member).read()))
            if drop_uuencoded:
                message = _UUENCODED_LINE.sub("", message)
            text = clean_text(message, variant)
            key = int(bits[2]) if bits[2].isdigit() else -1
            parts[split].append((bits[1], key, text))
    corpora = []
    for split in ("train", "test"):
        rows = sorted(parts[split], key=lambda r: (r[0], r[1]))
        if not rows:
            raise ValueError(f"{archive}: no 20news-bydate-{split}/<group>/<file> members")
        corpora.append(
            TextCorpus([r[2] for r in rows], np.array([r[0] for r in rows]), f"20ng-{split}")
        )
    return TrainTest(*corpora)


def _concat(a: TextCorpus, b: TextCorpus, name: str) -> TextCorpus:
    return TextCorpus(a.documents + b.documents, np.concatenate([a.labels, b.labels]), name)


def _named(name: str, variant: str | None, root: Path, drop_uuencoded=False) -> TrainTest:
    name, fixed = corpus_name(name)
    if fixed is not None:
        if variant not in (None, fixed):
            raise ValueError(
                f"variant: this name is {name!r} with variant={fixed!r}; for variant="
                f"{variant!r} load {name!r}"
            )
        variant = fixed
    text = root / "text" if (root / "text").is_dir() else root
    if name == "webkb":
        if variant not in (None, "stemmed"):
            raise ValueError(f"variant: webkb is only available stemmed, got {variant!r}")
        files = [text / "webkb" / f"webkb-{s}-stemmed.txt.gz" for s in ("train", "test")]
        return TrainTest(*(_read_labelled(f, None) for f in files))
    if name == "r8":
        variant = variant or "all-terms"
        _check_variant(variant)
        if variant == "no-short":
            files = [text / "r8" / "noshort" / f"r8-{s}.txt.gz" for s in ("train", "test")]
            return TrainTest(*(_read_labelled(f, None, index_labels=_R8_CLASSES) for f in files))
        files = [text / "r8" / "allterms" / f"{s}.txt.gz" for s in ("train", "test")]
        return TrainTest(*(_read_labelled(f, variant) for f in files))
    variant = variant or "all-terms"
    _check_variant(variant)
    return _read_20ng(text / "20ng_bydate" / "20news-bydate.tar.gz", variant, drop_uuencoded)


def load_text_corpus(
    path_or_name,
    *,
    variant: str | None = None,
    split=None,
    data_dir=None,
    drop_uuencoded=False,
    labels=None,
):
    """Load a single-label text corpus.

    Parameters
    ----------
    path_or_name : str or Path
        ``"webkb"`` (stemmed only), ``"r8"`` or ``"20ng_bydate"`` from the data directory
        (see `load_dataset`; the old names ``"r8_allterms"``, ``"r8_noshort"`` and
        ``"20ng"`` too), or a path in one of the layouts of the module docstring: a
        ``label<TAB>text`` file (plain or gzip), a text file with ``labels=``, a folder
        per class, training and test folders, or a 20 Newsgroups "bydate" ``.tar.gz``
        (read directly; files that are not UTF-8 are read as latin-1).
    variant : {None, "all-terms", "no-short", "stemmed"}
        Cleaning (module docstring). None: a file or folder is only whitespace-normalised
        (20 Newsgroups: "all-terms"), ``webkb`` is stemmed (as distributed), ``r8`` and
        ``20ng_bydate`` are "all-terms". ``r8``'s "no-short" is the distributed file, its
        "stemmed" is derived from "all-terms".
    split : {None, "full", "train", "test", "train_test"}
        As in `load_dataset`: None gives ``TrainTest(train, test)`` for a corpus with a
        split (the named corpora, training and test folders, the archive) and a
        `TextCorpus` otherwise; "train_test" on a training file pairs it with its test
        file (``test`` for ``train`` in its name, beside it).
    data_dir : str or Path, optional
    drop_uuencoded : bool, default=False
        20 Newsgroups only, beyond Cardoso-Cachopo's recipe: remove the lines of uuencoded
        attachments (binary data that "letters only" turns into thousands of rare tokens).
        Her published stemmed corpus had 70,216 words where the recipe on the raw archive
        gives 87,336; without these lines 78,139 (see docs/experiments/bayesian_nb.md).
    labels : str or Path, optional
        A file of classes, one per line, for the documents of ``path_or_name``, one per
        line (parallel files; with ``split="train_test"`` the test files are found as for
        a training file).

    Returns
    -------
    TextCorpus or TrainTest of TextCorpus

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "texts.txt").write_text("Cats purr.\\nStocks fell 3%.\\n")
    >>> _ = (folder / "classes.txt").write_text("pets\\nfinance\\n")
    >>> corpus = load_text_corpus(folder / "texts.txt", labels=folder / "classes.txt")
    >>> corpus.documents, corpus.labels.tolist()
    (['Cats purr.', 'Stocks fell 3%.'], ['pets', 'finance'])
    """
    if split not in _SPLITS:
        raise ValueError(f"split: expected one of {_SPLITS}, got {split!r}")
    if variant is not None:
        _check_variant(variant)
    if corpus_name(path_or_name) is not None and not Path(path_or_name).exists():
        if labels is not None:
            raise ValueError("labels: a named corpus has its classes; labels= is for a text file")
        pair = _named(str(path_or_name).lower(), variant, data_home(data_dir), drop_uuencoded)
    else:
        path = Path(path_or_name)
        if path.is_dir() and labels is None:
            pair = _read_folder(path, variant, drop_uuencoded)
            if not isinstance(pair, TrainTest):
                if split not in (None, "full"):
                    raise ValueError(
                        f"split={split!r}: {path} is one folder per class, without a "
                        "training and a test folder"
                    )
                return pair
        elif not path.is_file():
            known = ", ".join(repr(n) for n in (*CORPORA, *CORPUS_ALIASES))
            raise FileNotFoundError(
                f"path_or_name: {str(path_or_name)!r} is neither a file, a folder nor one "
                f"of {known}"
            )
        elif path.name.endswith((".tar.gz", ".tgz", ".tar")):
            pair = _read_20ng(path, variant or "all-terms", drop_uuencoded)
        elif split != "train_test" and split not in ("train", "test"):
            return _read_file(path, variant, labels)
        else:
            test, test_labels = _test_files(path, labels)
            pair = TrainTest(
                _read_file(path, variant, labels), _read_file(test, variant, test_labels)
            )
    if split in (None, "train_test"):
        return pair
    if split == "full":
        return _concat(pair.train, pair.test, str(path_or_name).lower())
    return getattr(pair, split)


def _read_file(path: Path, variant, labels=None) -> TextCorpus:
    """A ``label<TAB>text`` file, or documents whose classes are in the file ``labels``."""
    if labels is None:
        return _read_labelled(path, variant)
    return _read_parallel(path, Path(labels), variant)


def _test_files(path: Path, labels) -> tuple[Path, Path | None]:
    """The test files of a training file (and of its parallel label file)."""
    test = sibling_test_file(path)
    if test is None:
        raise ValueError(
            f"{path}: no test file beside it (the same name with 'test' for 'train'); "
            "a single file has no train/test split"
        )
    if labels is None:
        return test, None
    test_labels = sibling_test_file(labels)
    if test_labels is None:
        raise ValueError(f"{labels}: no test label file beside it ('test' for 'train')")
    return test, test_labels


def _corpus_stats(corpus: TextCorpus) -> LabelStats:
    classes, codes = np.unique(corpus.labels, return_inverse=True)
    Y = np.zeros((len(codes), len(classes)), dtype=np.uint8)
    Y[np.arange(len(codes)), codes] = 1
    vocabulary = {w for doc in corpus.documents for w in doc.split()}
    return replace(describe(Y), n_features=len(vocabulary))


def describe_text_corpus(
    path_or_name, *, variant: str | None = None, data_dir=None, drop_uuencoded=False, cache=True
) -> LabelStats:
    """`describe` of a whole text corpus (train and test), cached on disk.

    Parameters
    ----------
    path_or_name, variant, data_dir, drop_uuencoded
        As in `load_text_corpus`.
    cache : bool, default=True
        Read and write the cache of `describe_dataset` (keyed by the corpus folder's
        files, their sizes and modification times, and the options).

    Returns
    -------
    LabelStats
        One class per document: ``n_labels`` is the number of classes, ``cardinality``
        1; ``n_features`` is the vocabulary, the distinct words of the cleaned documents
        (what ``mlnb.text.word_counter`` finds).
    """
    named = corpus_name(path_or_name)
    if named is not None and not Path(path_or_name).exists():
        root = data_home(data_dir)
        text = root / "text" if (root / "text").is_dir() else root
        paths = [text / named[0]]
        options = {"name": str(path_or_name).lower()}
    else:
        paths = [Path(path_or_name)]
        options = {"path": str(Path(path_or_name).resolve())}
    if variant is not None:
        _check_variant(variant)
    options.update(variant=variant, drop_uuencoded=bool(drop_uuencoded))

    def compute() -> dict:
        corpus = load_text_corpus(
            path_or_name,
            variant=variant,
            split="full",
            data_dir=data_dir,
            drop_uuencoded=drop_uuencoded,
        )
        return _corpus_stats(corpus).as_dict()

    if not cache:
        return LabelStats(**compute())
    stats = cached("describe_text_corpus", options, paths, compute)
    try:
        return LabelStats(**stats)
    except TypeError:  # an entry of another layout
        return LabelStats(**compute())
