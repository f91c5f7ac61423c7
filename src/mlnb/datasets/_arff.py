"""ARFF reader for multi-label data in the Mulan and MEKA layouts.

Why our own reader: liac-arff parses every value in Python, and knows neither Mulan's XML
label files, MEKA's ``-C N``, relational attributes, nor streaming. This reader parses the
header in Python and the data section in bulk with numpy: dense rows with
``numpy.loadtxt``; sparse rows (``{3 1,17 1}``) by joining the block into one string of
``index value`` pairs whose decimals are parsed by vectorised digit arithmetic
(`_parse_decimals`, bit-identical to ``float``). Whenever that fast path meets anything it
does not expect (quotes, ``?``, non-numeric nominal values, a wrong value count), the block
is parsed again line by line by an exact reader, which either returns the same result or
raises an `ArffError` naming the file, the line and the problem; tests check that both paths
agree, and the benchmark checks that the result equals liac-arff's.

`load_arff` reads and parses the data in blocks of about 1 MB of text (`_LOAD_BLOCK`) and
stacks the blocks' matrices, so its peak memory is the result plus a few blocks of work
space, whatever the file's size: ``benchmarks/bench_streaming.py`` measures 5.8 bytes of
peak memory per byte of a 71 MB sparse file and 2.7 per byte of a 69 MB dense one, import
included (parsing the whole text at once took 52.5 and 7.0).

Benchmark (``python benchmarks/bench_arff.py``, 2-core machine, best of 5, seconds for the
full file with labels split off; liac-arff as ``arff.load(..., return_type=COO)`` plus the
conversion to CSR): bibtex 0.14 vs 0.57, delicious 0.20 vs 0.71, yahoo_arts 0.29 vs 0.88,
yahoo_reference 0.47 vs 1.45, rcv1sub1 0.50 vs 0.71, meka_imdb (bz2, 120,919 rows) 0.99
vs 4.32.

Conventions
-----------
- Labels: a Mulan XML file (``<name>.xml`` beside the ARFF, also tried without a
  ``-train``/``-test`` suffix, or given), MEKA's ``-C N`` in the relation name (N > 0: the
  first N attributes; N < 0: the last |N|), an int with the same meaning, or a list of names.
  An XML file beside the ARFF wins over ``-C``. Label names are matched exactly as written
  first, then with backslash escapes removed (delicious writes ``TAG_m\\'usica`` in both).
- Label values must be 0/1 (nominal ``{0,1}`` or numeric) unless ``label_threshold`` is
  given: then a label is ``value > label_threshold`` (multi-target data such as sf2).
- Multi-target data (``multi_target=True``): the label attributes are class variables,
  not binarised. ``Y`` is int64: a nominal target holds the index of its declared value
  (any values, ``{low,mid,high}`` included), a numeric target its value, which must be an
  integer; ``Dataset.target_classes`` holds each target's classes (see `load_arff`).
- Nominal features are ordinal coded: the index of the value in the declaration, which is
  WEKA's internal coding and what an omitted sparse entry means (index 0); for ``{0,1}``
  the code equals the value. ``Dataset.categories`` keeps the declared values, so a caller
  can one-hot encode.
- Identifiers: a non-label nominal attribute that declares at least as many values as the
  file has rows (3 or more) and takes a different value in every row is an identifier;
  string and date attributes are never features either.
  They are dropped and listed in ``Dataset.dropped``.
- Relational attributes (multi-instance bags): ``bags="mean_max"`` (default) aggregates a
  bag to the mean and the max of each inner attribute, named ``<bag>_mean_<inner>`` and
  ``<bag>_max_<inner>``; ``bags="concatenate"`` concatenates its instances in file order
  (instance 0's inner attributes first), named ``<bag>_<i>_<inner>`` for i from 0. With
  ``"concatenate"`` the first bag sets the number of instances (an attribute without any
  bag gets none), and a bag of another size is an error.
- Missing values ``?``: ``missing="error"`` (default) raises an error naming file and line;
  ``"nan"`` stores NaN in the features; ``"zero"`` stores 0 (the first value of a nominal).
  A literal ``nan`` (any case, signed) in a numeric attribute is a missing value too, as in
  WEKA, whose missing value is NaN: it is treated exactly like ``?``. Infinite values
  (``inf``, ``Infinity``) are an error.
- Missing labels: a ``?`` (or ``nan``) label is an error unless ``unknown_labels`` is
  ``"allow"`` or ``"cells"``, or ``missing="zero"`` (then negative). ``unknown_labels="allow"``
  reads files whose label values are all unknown, such as MEKA's prediction example
  ``Music_missing_classes.arff``: the `Dataset` has the features and the label names, and
  ``Y`` is None. A file (or, with `iter_arff`, a chunk) with some labels known and some
  unknown is then an error. ``unknown_labels="cells"`` reads training data with unknown
  cells: each ``?`` label value is an unknown cell, and ``Y`` is a float64 matrix holding
  NaN at those cells and 0/1 elsewhere (an entry omitted from a sparse row is the value 0, a
  known negative), as the estimators that learn each label from the rows where it is known
  take it; with ``label_threshold`` an unknown cell stays NaN. Without any unknown cell,
  ``Y`` is the uint8 matrix of ``"error"``; with every cell unknown, ``Y`` is None as with
  ``"allow"``.
- Errors: malformed input raises `ArffError` (a ValueError) naming the file and, where
  there is one, the line: truncated or corrupt ``.gz``/``.bz2`` data, a directory or an
  empty file given as the ARFF path included. A file that does not exist raises
  FileNotFoundError (and an unreadable one PermissionError), as `open` does.
- Quoted names and values (``'a b'``, ``"x\\"y"``) are unescaped; unquoted names are kept
  as written.
"""

from __future__ import annotations

import bz2
import gzip
import io
import math
import os
import re
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from xml.etree import ElementTree

import numpy as np
import scipy.sparse as sp

from ._dataset import Dataset

__all__ = [
    "ArffChunks",
    "ArffError",
    "Bags",
    "UnknownLabels",
    "check_bags",
    "find_label_xml",
    "iter_arff",
    "load_arff",
    "xml_label_names",
]

Missing = Literal["error", "nan", "zero"]
_MISSING = ("error", "nan", "zero")
# What `load_arff` does with a label value ``?`` (its ``unknown_labels`` parameter): an
# error, labels all unknown (Y=None), or unknown cells (NaN in a float64 Y).
UnknownLabels = Literal["error", "allow", "cells"]
_UNKNOWN_LABELS = ("error", "allow", "cells")
# How `load_arff` turns a multi-instance bag into features (its ``bags`` parameter).
Bags = Literal["mean_max", "concatenate"]
_BAGS = ("mean_max", "concatenate")
_READ_BLOCK = 1 << 20  # bytes read from a file at once
_LOAD_BLOCK = 1 << 20  # characters of data lines parsed at once by load_arff


class ArffError(ValueError):
    """A malformed ARFF or label file; the message names the file, line and problem."""

    def __init__(self, problem: str, *, path=None, line: int | None = None):
        self.path, self.line, self.problem = path, line, problem
        where = str(path) if path is not None else "<arff>"
        if line is not None:
            where += f", line {line}"
        super().__init__(f"{where}: {problem}")


# --------------------------------------------------------------------------- header


@dataclass(frozen=True)
class Attribute:
    """One ARFF attribute declaration."""

    name: str
    raw: str
    kind: str  # "numeric", "nominal", "string", "date" or "relational"
    values: tuple[str, ...] = ()
    inner: tuple[Attribute, ...] = ()
    line: int = 0


@dataclass
class Header:
    relation: str
    attributes: list[Attribute]
    n_lines: int  # lines up to and including @data
    codes: list[dict[str, int]] = field(default_factory=list)
    numeric_values: list[np.ndarray | None] = field(default_factory=list)
    relation_line: int | None = None

    def __post_init__(self):
        for a in self.attributes:
            nominal = a.kind == "nominal"
            self.codes.append({v: i for i, v in enumerate(a.values)} if nominal else {})
            self.numeric_values.append(_as_numbers(a.values) if nominal else None)


def _as_numbers(values: Sequence[str]) -> np.ndarray | None:
    try:
        return np.array([float(v) for v in values], dtype=np.float64)
    except ValueError:
        return None


_QUOTED = r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*\""""
_NAME_RE = re.compile(rf"\s*({_QUOTED}|[^\s{{]+)\s*(.*)$", re.S)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "f": "\f"}


def _unescape(s: str) -> str:
    """Remove ARFF/Java backslash escapes: ``\\'`` -> ``'``, ``\\n`` -> newline."""
    if "\\" not in s:
        return s
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), s, flags=re.S)


def _unquote(token: str) -> tuple[str, str]:
    """Return (value, raw) of a possibly quoted token; raw keeps escapes, drops quotes."""
    token = token.strip()
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        raw = token[1:-1]
        return _unescape(raw), raw
    return token, token


_VALUE_RE = re.compile(rf"\s*({_QUOTED}|[^,'\"]*?)\s*(,|$)", re.S)


def _split_values(s: str, *, path, line) -> list[str]:
    """Split a comma-separated ARFF value list, honouring quotes; values are unquoted."""
    if "'" not in s and '"' not in s:
        return [t.strip() for t in s.split(",")]
    out, pos, n = [], 0, len(s)
    while True:
        m = _VALUE_RE.match(s, pos)
        if m is None:
            raise ArffError(f"cannot split values near {s[pos : pos + 40]!r}", path=path, line=line)
        tok = m.group(1)
        out.append(_unquote(tok)[0] if tok[:1] in ("'", '"') else tok)
        if not m.group(2):
            if m.end() != n:
                raise ArffError(f"unexpected text {s[m.end() :][:40]!r}", path=path, line=line)
            return out
        pos = m.end()


_SIMPLE_NUMERIC = re.compile(r"\s*([^\s{'\"]+)\s+(?i:numeric|real|integer)\s*$")


_SPARSE_RE = re.compile(rf"\s*(\d+)\s+({_QUOTED}|[^,'\"]*?)\s*(,|$)", re.S)


def _split_sparse(body: str, *, path, line) -> list[tuple[str, str]]:
    """Split the inside of ``{i v, j w}`` into (index, unquoted value) pairs."""
    if not body.strip():
        return []
    out, pos = [], 0
    while True:
        m = _SPARSE_RE.match(body, pos)
        if m is None:
            item = body[pos:].split(",", 1)[0].strip()
            raise ArffError(
                f"malformed sparse entry {item[:40]!r} (expected 'index value')",
                path=path,
                line=line,
            )
        tok = m.group(2)
        out.append((m.group(1), _unquote(tok)[0] if tok[:1] in ("'", '"') else tok))
        if not m.group(3):
            if m.end() != len(body):
                raise ArffError(f"unexpected text {body[m.end() :][:40]!r}", path=path, line=line)
            return out
        pos = m.end()


def _parse_attribute(rest: str, lineno: int, path) -> Attribute:
    m = _SIMPLE_NUMERIC.match(rest)  # the common case, e.g. 47,000 numeric words in rcv1
    if m is not None:
        return Attribute(m.group(1), m.group(1), "numeric", line=lineno)
    m = _NAME_RE.match(rest)
    if m is None or not m.group(1):
        raise ArffError("@attribute without a name", path=path, line=lineno)
    name, raw = _unquote(m.group(1))
    spec = m.group(2).strip()
    low = spec.lower()
    if spec.startswith("{"):
        if not spec.endswith("}"):
            raise ArffError(f"nominal attribute {name!r}: missing '}}'", path=path, line=lineno)
        values = _split_values(spec[1:-1], path=path, line=lineno) if spec[1:-1].strip() else []
        if len(set(values)) != len(values):
            raise ArffError(f"nominal attribute {name!r}: repeated value", path=path, line=lineno)
        return Attribute(name, raw, "nominal", tuple(values), line=lineno)
    for kinds, kind in ((("numeric", "real", "integer"), "numeric"), (("string",), "string")):
        if low in kinds:
            return Attribute(name, raw, kind, line=lineno)
    if low.startswith("date"):
        return Attribute(name, raw, "date", line=lineno)
    if low == "relational":
        return Attribute(name, raw, "relational", line=lineno)
    if not spec:
        raise ArffError(f"attribute {name!r} has no type", path=path, line=lineno)
    raise ArffError(f"attribute {name!r}: unknown type {spec[:40]!r}", path=path, line=lineno)


def _parse_header(lines: Iterator[str], path) -> Header:
    """Consume lines up to and including ``@data``."""
    relation, attrs, lineno, relation_line = None, [], 0, None
    blank = True
    stack: list[tuple[Attribute, list[Attribute]]] = []
    for lineno, line in enumerate(lines, start=1):
        s = line.strip()
        blank = blank and not s
        if not s or s.startswith("%"):
            continue
        key = s.split(None, 1)[0].lower()
        rest = s[len(key) :]
        if key == "@relation":
            if relation is not None or attrs:
                raise ArffError("misplaced @relation", path=path, line=lineno)
            relation, relation_line = _unquote(rest.strip())[0], lineno
        elif key == "@attribute":
            attr = _parse_attribute(rest, lineno, path)
            if stack:
                if attr.kind != "numeric":
                    raise ArffError(
                        f"relational attribute {stack[-1][0].name!r}: only numeric inner "
                        f"attributes are supported, got {attr.kind} {attr.name!r}",
                        path=path,
                        line=lineno,
                    )
                stack[-1][1].append(attr)
            elif attr.kind == "relational":
                stack.append((attr, []))
            else:
                attrs.append(attr)
        elif key == "@end":
            if not stack:
                raise ArffError("@end without a relational attribute", path=path, line=lineno)
            outer, inner = stack.pop()
            if not inner:
                raise ArffError(f"relational {outer.name!r} is empty", path=path, line=lineno)
            attrs.append(
                Attribute(outer.name, outer.raw, "relational", inner=tuple(inner), line=outer.line)
            )
        elif key == "@data":
            if stack:
                raise ArffError(f"missing @end {stack[-1][0].name}", path=path, line=lineno)
            if relation is None:
                raise ArffError("no @relation before @data", path=path, line=lineno)
            if not attrs:
                raise ArffError("no @attribute before @data", path=path, line=lineno)
            names = [a.name for a in attrs]
            if len(set(names)) != len(names):
                dup = next(a for i, a in enumerate(attrs) if a.name in names[:i])
                raise ArffError(f"duplicate attribute name {dup.name!r}", path=path, line=dup.line)
            return Header(relation, attrs, lineno, relation_line=relation_line)
        else:
            raise ArffError(f"unexpected line in header: {s[:60]!r}", path=path, line=lineno)
    if blank:
        raise ArffError("empty file (no @relation, @attribute or @data)", path=path)
    raise ArffError("no @data section (truncated or not an ARFF file?)", path=path, line=lineno)


# --------------------------------------------------------------------------- labels


def _xml_label_names(xml: Path) -> list[str]:
    try:
        root = ElementTree.parse(xml).getroot()
    except (ElementTree.ParseError, OSError) as exc:
        raise ArffError(f"cannot read label file: {exc}", path=xml) from None
    names = [el.get("name") for el in root.iter() if el.tag.rsplit("}", 1)[-1] == "label"]
    if not names or any(n is None for n in names):
        raise ArffError("no <label name=...> elements", path=xml)
    return names


def _find_xml(path: Path) -> Path | None:
    stem = path.name
    for suffix in (".gz", ".bz2", ".zip", ".xz", ".arff", ".csv", ".parquet", ".pq"):
        stem = stem.removesuffix(suffix)
    candidates = [stem]
    base = re.sub(r"[-_](train|test)$", "", stem, flags=re.I)
    if base != stem:
        candidates.append(base)
    for c in candidates:
        xml = path.with_name(c + ".xml")
        if xml.is_file():
            return xml
    return None


# The Mulan label file helpers, for the package's other readers (a CSV file beside its XML).
find_label_xml = _find_xml
xml_label_names = _xml_label_names


def _meka_count(relation: str) -> int | None:
    m = re.search(r"(?:^|\s|:)-C\s+(-?\d+)", relation)
    return int(m.group(1)) if m else None


def _resolve_labels(header: Header, labels, path: Path, multi_target=False) -> list[int]:
    """Attribute indices of the labels, in label order."""
    attrs = header.attributes
    n_attr = len(attrs)
    xml = None
    if labels is None:
        xml = _find_xml(path)
        if xml is None:
            labels = _meka_count(header.relation)
            if labels is not None and (labels == 0 or abs(labels) >= n_attr):
                raise ArffError(
                    f"the relation name's '-C {labels}' needs 0 < |N| < {n_attr} (the "
                    "number of attributes); pass labels= to choose the labels "
                    "(command line: --labels N)",
                    path=path,
                    line=header.relation_line,
                )
            if labels is None:
                raise ArffError(
                    "no label information: no XML label file beside it and no '-C N' in the "
                    "relation name; pass labels= (an XML path, a label count as in MEKA's "
                    "-C N, or label names) (command line: --labels N)",
                    path=path,
                )
    elif isinstance(labels, (str, os.PathLike)) and str(labels).lower().endswith(".xml"):
        xml = Path(labels)
    if isinstance(labels, (int, np.integer)) and not isinstance(labels, bool):
        n = int(labels)
        if n == 0 or abs(n) >= n_attr:
            raise ValueError(
                f"labels={n}: expected a label count with 0 < |labels| < {n_attr} "
                f"(the number of attributes of {path})"
            )
        idx = list(range(n) if n > 0 else range(n_attr + n, n_attr))
        return _check_label_types(header, idx, path, multi_target)
    if xml is not None:
        wanted, source = _xml_label_names(xml), f"label file {xml}"
    elif isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence):
        raise TypeError(
            "labels: expected None, an XML path, an int (MEKA -C convention) or a list "
            f"of attribute names, got {labels!r}"
        )
    else:
        wanted, source = [str(x) for x in labels], "labels="
    by_raw = {a.raw: i for i, a in enumerate(attrs)}
    by_name = {a.name: i for i, a in enumerate(attrs)}
    idx, missing = [], []
    for w in wanted:
        i = by_raw.get(w, by_name.get(w))
        if i is None:
            u = _unescape(w)
            i = by_name.get(u, by_raw.get(u))
        (missing.append(w) if i is None else idx.append(i))
    if missing:
        found = [a.name for i, a in enumerate(attrs) if a.kind == "nominal" and i not in idx]
        raise ArffError(
            f"{source} names {len(wanted)} labels, {len(missing)} not found among the "
            f"attributes: expected {_preview(missing)}; found these unmatched nominal "
            f"attributes: {_preview(found)}",
            path=path,
        )
    if len(set(idx)) != len(idx):
        raise ArffError(f"{source} names a label twice", path=path)
    return _check_label_types(header, idx, path, multi_target)


def _check_label_types(header: Header, idx: list[int], path, multi_target=False) -> list[int]:
    """Raise unless every label is numeric or nominal (with numeric values, unless the
    labels are multi-target class variables)."""
    for i in idx:
        a = header.attributes[i]
        if a.kind not in ("numeric", "nominal") or (
            a.kind == "nominal" and header.numeric_values[i] is None and not multi_target
        ):
            raise ArffError(
                f"label {a.name!r} must be numeric or nominal with numeric values such as "
                f"{{0,1}} (any nominal values when loaded as multi-target classes: "
                f"multi_target=True, or --multi-target in the CLI), got {a.kind} "
                f"{a.values[:5]}",
                path=path,
                line=a.line,
            )
    return idx


def _preview(names: list[str], k: int = 10) -> str:
    more = f" ... ({len(names)} in all)" if len(names) > k else ""
    return "[" + ", ".join(repr(n) for n in names[:k]) + more + "]"


# --------------------------------------------------------------------------- reading


def _open_binary(path: Path):
    if path.is_dir():
        raise ArffError("is a directory, not an ARFF file", path=path)
    with open(path, "rb") as f:
        magic = f.read(3)
    if magic[:2] == b"\x1f\x8b":
        return gzip.open(path, "rb")
    if magic == b"BZh":
        return bz2.open(path, "rb")
    return open(path, "rb")


_STREAM_ERRORS = (EOFError, OSError, zlib.error)


def _truncated(path, data_lines: int, exc) -> ArffError:
    return ArffError(
        f"compressed data ends early or is corrupt (truncated file?): {exc}",
        path=path,
        line=data_lines + 1,
    )


def _decode(b: bytes) -> str:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b.decode("latin-1")


def _decode_lines(lines: list[bytes]) -> list[str]:
    """Each line as UTF-8, or as Latin-1 if it is not UTF-8 (decoded together if all are)."""
    try:
        return b"\n".join(lines).decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return [_decode(line) for line in lines]


def _is_inf(tok: str) -> bool:
    try:
        return math.isinf(float(tok))
    except ValueError:
        return False


def _number(tok: str) -> float:
    """``float(tok)``; NaN for a literal ``nan`` (a missing value); ValueError otherwise."""
    v = float(tok)
    if math.isinf(v):
        raise ValueError(tok)
    return v


# --------------------------------------------------------------------------- data block


def _parse_decimals(s: str) -> np.ndarray | None:
    """Parse space-separated tokens ``-?digits[.digits]`` with numpy, bit-exact.

    Each value is its digits as an integer (exact below 2**53) divided by 10**k for k
    fraction digits: one correctly rounded division, hence equal to ``float(token)``.
    Tokens of more than 15 digits are parsed by ``float``; None is returned for anything
    else (exponents, ``?``, letters), so that the caller falls back to ``float``.
    """
    try:
        b = np.frombuffer(s.encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    digit = (b >= 48) & (b <= 57)
    dot, minus, tok = b == 46, b == 45, b != 32
    if not np.all(digit | dot | minus | ~tok):
        return None
    start = tok & ~np.concatenate(([False], tok[:-1]))
    if np.any(minus & ~start):
        return None
    tid = np.cumsum(start) - 1
    T = int(start.sum())
    ends = np.flatnonzero(tok & ~np.concatenate((tok[1:], [False]))) + 1
    dpos = np.flatnonzero(digit)
    dtok = tid[dpos]
    nd = np.bincount(dtok, minlength=T)
    if T == 0 or nd.min() == 0:
        return None
    first = np.concatenate(([0], np.cumsum(nd)[:-1]))
    power = nd[dtok] - 1 - (np.arange(dpos.size) - first[dtok])
    mant = np.bincount(dtok, weights=(b[dpos] - 48) * 10.0**power, minlength=T)
    dots = np.flatnonzero(dot)
    k = np.zeros(T, dtype=np.int64)
    if dots.size:
        dt = tid[dots]
        if np.any(np.bincount(dt, minlength=T) > 1):
            return None
        k[dt] = ends[dt] - dots - 1
    out = mant / 10.0**k
    out[minus[start]] *= -1.0
    long = np.flatnonzero(nd > 15)  # beyond exact float integers: parse these one by one
    if long.size:
        begin = np.flatnonzero(start)
        out[long] = [float(s[a:e]) for a, e in zip(begin[long], ends[long], strict=True)]
    return out


@dataclass
class _Block:
    """Parsed rows as coordinates over the flat columns, plus the row format."""

    n: int
    rows: np.ndarray
    cols: np.ndarray
    vals: np.ndarray
    dense: np.ndarray | None = None  # (n, width) when parsed densely


def _instances(bag: str) -> list[str]:
    """The instances (lines) of an unquoted relational value."""
    return [r for r in bag.split("\n") if r.strip()]


def _bag_sizes(header: Header, lines: Iterable[tuple[str, int]], path) -> dict[int, int]:
    """Instances in the first bag of each relational attribute, by attribute index.

    For ``bags="concatenate"``: reads (line, line number) pairs only until every relational
    attribute has met a bag that is not ``?`` (the first row, as a rule); an attribute
    without any bag gets 0.
    """
    todo = {i for i, a in enumerate(header.attributes) if a.kind == "relational"}
    sizes = dict.fromkeys(todo, 0)
    if not todo:
        return sizes
    for s, ln in lines:
        if s[0] == "{":
            pairs = [(int(i), tok) for i, tok in _split_sparse(s[1:-1], path=path, line=ln)]
        else:
            pairs = enumerate(_split_values(s, path=path, line=ln))
        for i, tok in pairs:
            if i in todo and tok != "?":
                sizes[i] = len(_instances(tok))
                todo.discard(i)
        if not todo:
            break
    return sizes


class _Parser:
    """Parses blocks of data lines for one header.

    ``bag_sizes`` (attribute index -> instances per bag, from `_bag_sizes`) selects
    ``bags="concatenate"``; None aggregates bags to mean and max.
    """

    def __init__(
        self,
        header: Header,
        label_attrs: list[int],
        missing: str,
        path,
        bag_sizes: dict[int, int] | None = None,
        unknown_labels: str = "error",
    ):
        self.h, self.path, self.missing = header, path, missing
        self.unknown_labels = unknown_labels
        self.bag_sizes = bag_sizes
        self.is_label = np.zeros(len(header.attributes), dtype=bool)
        self.is_label[label_attrs] = True
        widths = [
            len(self.bag_parts(i)) * len(a.inner) if a.kind == "relational" else 1
            for i, a in enumerate(header.attributes)
        ]
        self.offset = np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)
        self.width = int(self.offset[-1])
        kinds = [a.kind for a in header.attributes]
        self.fast_ok = all(
            k == "numeric" or (k == "nominal" and nv is not None)
            for k, nv in zip(kinds, header.numeric_values, strict=True)
        )
        # nominal attributes whose values are exactly "0", "1", ..., "k-1" numerically
        self.identity_k = np.zeros(len(kinds), dtype=np.float64)
        self.other_nominal = []
        for i, (k, nv) in enumerate(zip(kinds, header.numeric_values, strict=True)):
            if k != "nominal" or nv is None:
                continue
            if np.array_equal(nv, np.arange(len(nv))):
                self.identity_k[i] = len(nv)
            else:
                self.other_nominal.append(i)
        self.is_nominal = np.array([k == "nominal" for k in kinds])

    def bag_parts(self, i: int) -> list[str]:
        """The parts of relational attribute i's columns: statistics or instance numbers.

        Column ``<bag>_<part>_<inner>`` for each part, then each inner attribute.
        """
        if self.bag_sizes is None:
            return ["mean", "max"]
        return [str(k) for k in range(self.bag_sizes[i])]

    def attr_width(self, i: int) -> int:
        """Number of flat columns of attribute i."""
        return int(self.offset[i + 1] - self.offset[i])

    # ---- fast paths (None means: use the exact path)
    def _fast(self, lines: list[str]) -> _Block | None:
        if not self.fast_ok or not lines:
            return None
        try:
            if lines[0][0] == "{":
                return self._fast_sparse(lines)
            return self._fast_dense(lines)
        except ValueError:
            return None

    def _fast_dense(self, lines):
        if any(line[0] == "{" for line in lines):
            return None
        M = np.loadtxt(
            io.StringIO("\n".join(lines)), delimiter=",", dtype=np.float64, comments=None, ndmin=2
        )
        if M.shape != (len(lines), self.width) or not np.isfinite(M).all():
            return None  # nan is a missing value, inf an error: the exact path decides
        nom = np.flatnonzero(self.is_nominal)
        if nom.size:
            sub = self._codes(M[:, nom].ravel(), np.repeat(nom[None, :], len(lines), 0).ravel())
            if sub is None:
                return None
            M[:, nom] = sub.reshape(len(lines), nom.size)
        return _Block(len(lines), np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0), M)

    def _fast_sparse(self, lines):
        if any(line[0] != "{" or line[-1] != "}" for line in lines):
            return None
        bodies = [line[1:-1] for line in lines]
        counts = np.fromiter(
            (b.count(",") + 1 if b.strip() else 0 for b in bodies), np.int64, len(bodies)
        )
        joined = " ".join(bodies).replace(",", " ")
        tok = _parse_decimals(joined)
        if tok is None:
            tok = np.array(joined.split(), dtype=np.float64)
        if tok.size != 2 * counts.sum() or not np.isfinite(tok).all():
            return None
        idx, vals = tok[0::2], tok[1::2]
        cols = idx.astype(np.int64)
        if not (np.array_equal(cols, idx) and np.all((cols >= 0) & (cols < self.width))):
            return None
        rows = np.repeat(np.arange(len(lines), dtype=np.int64), counts)
        same_row = rows[1:] == rows[:-1]
        if not np.all(np.diff(cols)[same_row] > 0):  # not increasing: check for repeats
            key = np.sort(rows * self.width + cols)
            if np.any(key[1:] == key[:-1]):
                return None
        nom = self.is_nominal[cols]
        if nom.any():
            codes = self._codes(vals[nom], cols[nom])
            if codes is None:
                return None
            vals[nom] = codes
        return _Block(len(lines), rows, cols, vals)

    def _codes(self, v: np.ndarray, attr: np.ndarray) -> np.ndarray | None:
        """Numeric values of nominal attributes -> value indices (None if one is unknown)."""
        k = self.identity_k[attr]
        out = v.copy()
        ident = k > 0
        iv = v[ident]
        if not np.all((iv == np.floor(iv)) & (iv >= 0) & (iv < k[ident])):
            return None
        for a in self.other_nominal:
            m = attr == a
            if not m.any():
                continue
            nv = self.h.numeric_values[a]
            order = np.argsort(nv)
            pos = np.searchsorted(nv[order], v[m]).clip(0, len(nv) - 1)
            if not np.all(nv[order][pos] == v[m]):
                return None
            out[m] = order[pos]
        return out

    # ---- exact path
    def _missing(self, i: int, tok: str, line: int):
        """The value of a missing ``?`` (or ``nan``) entry of attribute i, or an error."""
        a = self.h.attributes[i]
        what = "'?'" if tok == "?" else f"{tok!r} (a missing value, as '?')"
        if self.is_label[i] and self.unknown_labels in ("allow", "cells"):
            return np.nan  # unknown label: `_labels` gives Y=None if all are unknown
        if self.missing == "zero":
            return 0.0 if a.kind != "relational" else np.zeros(self.attr_width(i))
        if self.is_label[i]:
            raise ArffError(
                f"missing value {what} for label {a.name!r}; labels cannot be missing: pass "
                "unknown_labels='allow' to load data whose labels are all unknown (Y=None, "
                "for prediction), unknown_labels='cells' to read them as unknown cells (NaN "
                "in a float64 Y, for training), or missing='zero' to read them as 0",
                path=self.path,
                line=line,
            )
        if self.missing == "nan":
            return np.nan if a.kind != "relational" else np.full(self.attr_width(i), np.nan)
        raise ArffError(
            f"missing value {what} for attribute {a.name!r}; pass missing='nan' or "
            "missing='zero' to accept missing values (command line: --missing ignore)",
            path=self.path,
            line=line,
        )

    def _value(self, i: int, tok: str, line: int):
        a = self.h.attributes[i]
        if tok == "?" or (a.kind == "numeric" and tok.lstrip("+-").lower() == "nan"):
            return self._missing(i, tok, line)
        if a.kind == "numeric":
            try:
                return _number(tok)
            except ValueError:
                inf = " (infinite values are not accepted)" if _is_inf(tok) else ""
                raise ArffError(
                    f"invalid numeric value {tok!r} for attribute {a.name!r}{inf}",
                    path=self.path,
                    line=line,
                ) from None
        if a.kind == "nominal":
            code = self.h.codes[i].get(tok)
            if code is None and self.h.numeric_values[i] is not None:
                try:
                    hit = np.flatnonzero(self.h.numeric_values[i] == float(tok))
                except ValueError:
                    hit = ()
                code = int(hit[0]) if len(hit) else None
            if code is None:
                raise ArffError(
                    f"unknown nominal value {tok!r} for attribute {a.name!r} "
                    f"(declared: {_preview(list(a.values), 8)})",
                    path=self.path,
                    line=line,
                )
            return float(code)
        if a.kind == "relational":
            return self._bag(i, tok, line)
        return 0.0  # string and date attributes are dropped later

    def _bag(self, i: int, tok: str, line: int) -> np.ndarray:
        a = self.h.attributes[i]
        rows = _instances(tok)
        if not rows:
            raise ArffError(f"empty bag for relational {a.name!r}", path=self.path, line=line)
        if self.bag_sizes is not None and len(rows) != self.bag_sizes[i]:
            raise ArffError(
                f"relational {a.name!r}: bag of size {len(rows)}, expected {self.bag_sizes[i]} "
                "(the size of the first bag, in instances); bags='concatenate' needs bags of "
                "equal size, pass bags='mean_max' to aggregate bags of any size",
                path=self.path,
                line=line,
            )
        inst = []
        for r in rows:
            parts = _split_values(r, path=self.path, line=line)
            if len(parts) != len(a.inner):
                raise ArffError(
                    f"relational {a.name!r}: an instance has {len(parts)} values, "
                    f"expected {len(a.inner)}",
                    path=self.path,
                    line=line,
                )
            try:
                inst.append([np.nan if p == "?" else _number(p) for p in parts])
            except ValueError:
                raise ArffError(
                    f"relational {a.name!r}: invalid numeric value in {r[:40]!r}",
                    path=self.path,
                    line=line,
                ) from None
        B = np.array(inst)
        if np.isnan(B).any() and self.missing == "error":
            raise ArffError(
                f"missing value '?' inside relational {a.name!r}; pass missing='nan' or "
                "missing='zero' (command line: --missing ignore)",
                path=self.path,
                line=line,
            )
        if self.missing == "zero":
            B = np.nan_to_num(B, nan=0.0)
        if self.bag_sizes is not None:
            return B.ravel()  # instance 0's inner attributes first
        return np.concatenate([B.mean(axis=0), B.max(axis=0)])

    def _exact(self, lines: list[str], linenos: list[int]) -> _Block:
        rows, cols, vals = [], [], []
        n_attr = len(self.h.attributes)
        for r, (s, ln) in enumerate(zip(lines, linenos, strict=True)):
            if s[0] == "{":
                if s[-1] != "}":
                    raise ArffError("sparse row without closing '}'", path=self.path, line=ln)
                body = s[1:-1]
                seen = set()
                for index, tok in _split_sparse(body, path=self.path, line=ln):
                    i = int(index)
                    if i >= n_attr:
                        raise ArffError(
                            f"sparse index {i} out of range (the header has {n_attr} attributes)",
                            path=self.path,
                            line=ln,
                        )
                    if i in seen:
                        raise ArffError(f"sparse index {i} repeated", path=self.path, line=ln)
                    seen.add(i)
                    self._emit(r, i, self._value(i, tok, ln), rows, cols, vals)
            else:
                toks = _split_values(s, path=self.path, line=ln)
                if len(toks) != n_attr:
                    raise ArffError(
                        f"wrong number of values: expected {n_attr}, found {len(toks)}",
                        path=self.path,
                        line=ln,
                    )
                for i, tok in enumerate(toks):
                    self._emit(r, i, self._value(i, tok, ln), rows, cols, vals)
        return _Block(
            len(lines),
            np.array(rows, dtype=np.int64),
            np.array(cols, dtype=np.int64),
            np.array(vals, dtype=np.float64),
        )

    def _emit(self, r, i, v, rows, cols, vals):
        if isinstance(v, np.ndarray):
            o = int(self.offset[i])
            rows.extend([r] * v.size)
            cols.extend(range(o, o + v.size))
            vals.extend(v.tolist())
        elif v != 0.0:
            rows.append(r)
            cols.append(int(self.offset[i]))
            vals.append(v)

    def parse(self, lines: list[str], linenos: list[int]) -> _Block:
        block = self._fast(lines)
        return block if block is not None else self._exact(lines, linenos)


# --------------------------------------------------------------------------- assembly


class _Layout:
    """Which flat columns are features and labels, with their names."""

    def __init__(self, parser: _Parser, label_attrs: list[int], identifiers: set[int]):
        h = parser.h
        attrs = h.attributes
        is_label = parser.is_label.tolist()
        dropped = {
            i
            for i, a in enumerate(attrs)
            if not is_label[i] and (a.kind in ("string", "date") or i in identifiers)
        }
        self.dropped = tuple(attrs[i].name for i in sorted(dropped))
        names, categories, flat = [], {}, []
        for i, a in enumerate(attrs):
            if is_label[i] or i in dropped:
                continue
            o = int(parser.offset[i])
            if a.kind == "relational":
                names += [
                    f"{a.name}_{part}_{b.name}" for part in parser.bag_parts(i) for b in a.inner
                ]
                flat += range(o, o + parser.attr_width(i))
            else:
                names.append(a.name)
                flat.append(o)
                if a.kind == "nominal":
                    categories[a.name] = a.values
        self.feature_names, self.categories = names, categories
        self.feat_map = np.full(parser.width, -1, dtype=np.int64)
        self.feat_map[np.array(flat, dtype=np.int64)] = np.arange(len(flat))
        self.label_cols = np.array([parser.offset[i] for i in label_attrs], dtype=np.int64)
        self.label_names = [attrs[i].name for i in label_attrs]
        self.target_nominal = np.array([attrs[i].kind == "nominal" for i in label_attrs], bool)
        lab_map = np.full(parser.width, -1, dtype=np.int64)
        lab_map[self.label_cols] = np.arange(len(label_attrs))
        self.lab_map = lab_map
        # per label: value of each code (nominal) or None (numeric)
        # label j's value for each code (nominal) or a zero column (numeric)
        tables = [h.numeric_values[i] for i in label_attrs]
        width = max([1] + [len(t) for t in tables if t is not None])
        self.label_table = np.zeros((len(label_attrs), width))
        self.label_nominal = np.array([t is not None for t in tables], dtype=bool)
        for k, t in enumerate(tables):
            if t is not None:
                self.label_table[k, : len(t)] = t


def _id_candidates(parser: _Parser) -> list[int]:
    """Non-label nominal attributes with 3 or more values: possible identifiers."""
    return [
        i
        for i, a in enumerate(parser.h.attributes)
        if a.kind == "nominal" and len(a.values) >= 3 and not parser.is_label[i]
    ]


def _column(block: _Block, parser: _Parser, attr: int) -> np.ndarray:
    """Values (codes) of one attribute in a block, omitted sparse entries as 0."""
    col = int(parser.offset[attr])
    if block.dense is not None:
        return block.dense[:, col].copy()
    v = np.zeros(block.n)
    m = block.cols == col
    v[block.rows[m]] = block.vals[m]
    return v


def _identifiers(parser: _Parser, columns: dict[int, np.ndarray], n: int) -> set[int]:
    """Nominal attributes declaring at least n values and taking n distinct ones (n >= 3)."""
    return {
        i
        for i, v in columns.items()
        if 3 <= n <= len(parser.h.attributes[i].values) and np.unique(v).size == n
    }


def _label_values(layout: _Layout, j: np.ndarray, raw: np.ndarray) -> np.ndarray:
    """Values of label entries: nominal codes -> their declared numbers, numeric as is."""
    nominal = layout.label_nominal[j]
    codes = np.where(nominal, raw, 0).astype(np.int64)
    return np.where(nominal, layout.label_table[j, codes], raw)


def _unknown_labels(L: int, n: int, rows, unknown, *, path, linenos) -> None:
    """Return None if every label value of every row is unknown (NaN), else raise."""
    per_row = np.bincount(rows[unknown], minlength=n)
    if np.all(per_row == L):
        return None
    status = np.where(per_row == L, 1, np.where(per_row == 0, 0, 2))
    r = int(np.flatnonzero((status == 2) | (status != status[0]))[0])
    raise _mixed_unknown_labels(path, linenos[r] if linenos is not None else None)


def _mixed_unknown_labels(path, line) -> ArffError:
    return ArffError(
        "label values are unknown ('?') in some rows or labels and known in others; "
        "unknown_labels='allow' reads files whose labels are all unknown (prediction data): "
        "for training data with unknown cells pass unknown_labels='cells' (Y of float64 "
        "with NaN at the unknown cells), or split the file into labelled and unlabelled "
        "rows, or pass missing='zero' to read '?' labels as 0",
        path=path,
        line=line,
    )


def _labels(
    layout: _Layout,
    n: int,
    rows,
    j,
    raw,
    *,
    threshold,
    path,
    linenos,
    cells=False,
    multi_target=False,
):
    """Label matrix from entries (rows, j, raw); omitted entries hold code/value 0.

    Unknown label values (NaN, from ``unknown_labels="allow"`` or ``"cells"``) give None
    when all are; with ``cells``, some give a float64 matrix holding NaN at them. With
    ``multi_target``, the known values are classes (`_targets`).
    """
    L = len(layout.label_names)
    unknown = np.isnan(raw)
    if unknown.any():
        if not cells:
            return _unknown_labels(L, n, rows, unknown, path=path, linenos=linenos)
        if np.all(np.bincount(rows[unknown], minlength=n) == L):
            return None  # every cell of every row unknown: as unknown_labels="allow"
        known = ~unknown
        kw = {"threshold": threshold, "path": path, "linenos": linenos}
        kw["multi_target"] = multi_target
        Y = _labels(layout, n, rows[known], j[known], raw[known], **kw).astype(np.float64)
        Y[rows[unknown], j[unknown]] = np.nan
        return Y
    if multi_target:
        return _targets(layout, n, rows, j, raw, path=path, linenos=linenos)
    base = layout.label_table[:, 0]  # value of an omitted entry (code 0, or numeric 0)
    vals = _label_values(layout, j, raw)
    if threshold is None:
        for where, v in ((np.flatnonzero((base != 0) & (base != 1)), base), (None, vals)):
            bad = np.flatnonzero((v != 0) & (v != 1)) if where is None else where
            if bad.size:
                k = bad[0]
                jj, rr = (j[k], rows[k]) if where is None else (k, 0)
                raise ArffError(
                    f"label {layout.label_names[jj]!r} has value {v[k]:g}; labels must be 0/1 "
                    "(pass label_threshold= to binarise other values)",
                    path=path,
                    line=linenos[rr] if linenos is not None and n else None,
                )
        Y = np.empty((n, L), dtype=np.uint8)
        Y[:] = base.astype(np.uint8)
        Y[rows, j] = vals
    else:
        Y = np.empty((n, L), dtype=np.uint8)
        Y[:] = base > threshold
        Y[rows, j] = vals > threshold
    return Y


def _targets(layout: _Layout, n: int, rows, j, raw, *, path, linenos) -> np.ndarray:
    """Multi-target class matrix (int64) from known entries; omitted entries hold 0.

    Nominal targets hold their value codes; numeric targets their values, which must be
    integers.
    """
    numeric = ~layout.target_nominal[j]
    bad = np.flatnonzero(numeric & ((raw != np.trunc(raw)) | (np.abs(raw) > 2**53)))
    if bad.size:
        k = bad[0]
        raise ArffError(
            f"target {layout.label_names[j[k]]!r} has value {float(raw[k])}, not an integer: "
            "multi-target classification needs class-valued targets (nominal, or numeric "
            "with integer values)",
            path=path,
            line=linenos[rows[k]] if linenos is not None else None,
        )
    Y = np.zeros((n, len(layout.label_names)), dtype=np.int64)
    Y[rows, j] = raw
    return Y


def _target_classes(parser: _Parser, label_attrs: list[int], Y) -> list[np.ndarray]:
    """Each target's classes: a nominal target's declared values (by code), a numeric
    target's distinct integer values in ``Y`` (sorted; NaN, an unknown cell, left out)."""
    out = []
    for k, i in enumerate(label_attrs):
        a = parser.h.attributes[i]
        if a.kind == "nominal":
            out.append(np.array(a.values, dtype=str))
        elif Y is None:
            out.append(np.empty(0, dtype=np.int64))
        else:
            col = Y[:, k]
            known = col[~np.isnan(col)] if col.dtype.kind == "f" else col
            out.append(np.unique(known).astype(np.int64))
    return out


def _assemble(
    block: _Block,
    layout: _Layout,
    *,
    sparse: bool,
    threshold,
    path,
    linenos,
    cells=False,
    multi_target=False,
):
    n, d, L = block.n, len(layout.feature_names), len(layout.label_names)
    if block.dense is not None:
        M = block.dense
        fcols = np.flatnonzero(layout.feat_map >= 0)
        X = np.ascontiguousarray(M[:, fcols])
        if sparse:
            X = sp.csr_matrix(X)
        rows = np.repeat(np.arange(n), L)
        j = np.tile(np.arange(L), n)
        raw = M[:, layout.label_cols].ravel()
    else:
        f = layout.feat_map[block.cols]
        m = f >= 0
        X = sp.csr_matrix((block.vals[m], (block.rows[m], f[m])), shape=(n, d), dtype=np.float64)
        X.sort_indices()
        if not sparse:
            X = X.toarray()
        lab = layout.lab_map[block.cols]
        m = lab >= 0
        rows, j, raw = block.rows[m], lab[m], block.vals[m]
    kw = {"threshold": threshold, "path": path, "linenos": linenos, "cells": cells}
    return X, _labels(layout, n, rows, j, raw, multi_target=multi_target, **kw)


def check_bags(bags) -> None:
    """Raise ValueError unless ``bags`` is a ``bags`` option of `load_arff` (see `Bags`)."""
    if bags not in _BAGS:
        raise ValueError(f"bags: expected one of {_BAGS}, got {bags!r}")


def _check_options(missing, chunk_size=1, bags="mean_max", unknown_labels="error"):
    if missing not in _MISSING:
        raise ValueError(f"missing: expected one of {_MISSING}, got {missing!r}")
    if unknown_labels not in _UNKNOWN_LABELS:
        raise ValueError(
            f"unknown_labels: expected one of {_UNKNOWN_LABELS}, got {unknown_labels!r}"
        )
    check_bags(bags)
    if not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise ValueError(f"chunk_size: expected a positive int, got {chunk_size!r}")


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".bz2", ".arff"):
        name = name.removesuffix(suffix)
    return name


def load_arff(
    path,
    *,
    labels=None,
    missing: Missing = "error",
    sparse: bool | None = None,
    label_threshold: float | None = None,
    bags: Bags = "mean_max",
    name: str | None = None,
    unknown_labels: UnknownLabels = "error",
    multi_target: bool = False,
) -> Dataset:
    r"""Load a multi-label or multi-target ARFF file (Mulan or MEKA layout; plain, ``.gz`` or
    ``.bz2``).

    Parameters
    ----------
    path : str or Path
        The ARFF file.
    labels : None, str/Path of an XML file, int or list of str
        None: the Mulan XML file beside the file, else MEKA's ``-C N`` in the relation.
        An int follows MEKA: N > 0 the first N attributes, N < 0 the last ``|N|``.
    missing : {"error", "nan", "zero"}
        How to treat ``?`` values (see the module docstring).
    sparse : bool or None
        Force CSR (True) or dense (False) features; None follows the first data row.
    label_threshold : float or None
        If given, label j is ``value > label_threshold``; otherwise labels must be 0/1.
        Not with ``multi_target=True``.
    bags : {"mean_max", "concatenate"}
        How relational (multi-instance) attributes become features: the mean and the
        max of each inner attribute, or the bag's instances concatenated in file order,
        which needs bags of equal size (see the module docstring).
    name : str, optional
        Data-set name; default the file name without extensions.
    unknown_labels : {"error", "allow", "cells"}, default="error"
        What a label value ``?`` (or ``nan``) is. ``"error"``: an `ArffError` naming the
        file and line. ``"allow"``: a file whose label values are all ``?`` (unknown: data
        to predict, as MEKA's ``Music_missing_classes.arff``) gives a `Dataset` with
        ``Y=None`` and the label names of the header; known and unknown labels mixed are
        an error. ``"cells"``: each ``?`` is an unknown cell (training data whose labels
        are partly unknown): ``Y`` is float64 with NaN at the unknown cells and 0/1
        elsewhere (a sparse row's omitted entry is a known 0), as
        ``BinaryRelevance().fit`` takes it; a file without ``?`` labels gives the uint8
        ``Y`` of ``"error"``, one whose label values are all ``?`` gives ``Y=None``.
    multi_target : bool, default=False
        Read the label attributes as multi-target class variables, not binarised: ``Y``
        is int64 of shape (n, targets); a nominal target holds the index of its declared
        value, a numeric target its value (an integer, else an `ArffError`), as sf2's
        counts 0..8. ``Dataset.target_classes[j]`` lists target j's classes: the declared
        values of a nominal target (``target_classes[j][Y[:, j]]`` are the names), the
        sorted distinct values of a numeric one. A ``?`` target follows ``missing`` and
        ``unknown_labels`` (``"cells"``: float64 ``Y`` with NaN at unknown cells).

    Returns
    -------
    Dataset

    Raises
    ------
    ArffError
        A ValueError naming the file, line and problem for malformed input (corrupt or
        truncated compression, a directory or an empty file included), or a bag of
        another size than the first with ``bags="concatenate"``.
    ValueError
        An unknown ``missing``, ``bags`` or ``unknown_labels`` value, or
        ``label_threshold`` with ``multi_target=True``.
    FileNotFoundError
        ``path`` does not exist.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "new.arff"
    >>> text = "@relation 'new: -C 1'\n@attribute y {0,1}\n@attribute x numeric\n@data\n"
    >>> _ = path.write_text(text + "?,0.5\n?,2\n")
    >>> ds = load_arff(path, unknown_labels="allow")
    >>> ds.Y is None, ds.X.ravel().tolist(), ds.label_names
    (True, [0.5, 2.0], ['y'])
    >>> _ = path.write_text(text + "?,0.5\n1,2\n0,3\n")
    >>> load_arff(path, unknown_labels="cells").Y.ravel().tolist()
    [nan, 1.0, 0.0]
    >>> text = "@relation 'mt: -C 1'\n@attribute y {low,mid,high}\n@attribute x numeric\n"
    >>> _ = path.write_text(text + "@data\nhigh,0.5\nlow,2\n")
    >>> ds = load_arff(path, multi_target=True)
    >>> ds.Y.ravel().tolist(), ds.target_classes[0].tolist()
    ([2, 0], ['low', 'mid', 'high'])
    """
    _check_options(missing, bags=bags, unknown_labels=unknown_labels)
    if multi_target and label_threshold is not None:
        raise ValueError(
            "label_threshold and multi_target=True exclude each other: label_threshold "
            "binarises the targets, multi_target keeps their classes"
        )
    reader = _Reader(path, labels, missing, bags, unknown_labels, multi_target)
    parser, label_attrs = reader.parser, reader.label_attrs
    candidates = _id_candidates(parser)
    provisional = _Layout(parser, label_attrs, set())  # identifiers are known at the end
    columns: dict[int, list[np.ndarray]] = {i: [] for i in candidates}
    X_parts, Y_parts, first_lines, sizes, n = [], [], [], [], 0
    blocks = reader.matrices(provisional, sparse, label_threshold, max_bytes=_LOAD_BLOCK)
    for block, nums, X, Y in blocks:
        for i in candidates:
            columns[i].append(_column(block, parser, i))
        X_parts.append(X)
        Y_parts.append(Y)
        first_lines.append(nums[0])
        sizes.append(block.n)
        n += block.n
    if not X_parts:  # no data rows: the shapes of an empty block
        empty = parser.parse([], [])
        X, Y = _assemble(
            empty,
            provisional,
            sparse=bool(sparse),
            threshold=None,
            path=None,
            linenos=None,
            multi_target=multi_target,
        )
        X_parts, Y_parts = [X], [Y]
    ids = _identifiers(parser, {i: np.concatenate(c) for i, c in columns.items() if c}, n)
    layout = _Layout(parser, label_attrs, ids)
    X = _stack(X_parts)
    if ids:
        X = X[:, provisional.feat_map[np.flatnonzero(layout.feat_map >= 0)]]
    Y = _stack_labels(Y_parts, first_lines, reader.path, sizes, unknown_labels == "cells")
    return Dataset(
        X=X,
        Y=Y,
        feature_names=layout.feature_names,
        label_names=layout.label_names,
        name=name or _stem(reader.path),
        dropped=layout.dropped,
        categories=layout.categories,
        relation=reader.relation,
        target_classes=_target_classes(parser, label_attrs, Y) if multi_target else None,
    )


def _stack(parts: list) -> np.ndarray | sp.csr_matrix:
    """Row blocks of one kind (dense or CSR) as one matrix, without copying a single block."""
    if len(parts) == 1:
        return parts[0]
    if sp.issparse(parts[0]):
        return sp.vstack(parts, format="csr")
    return np.concatenate(parts)


def _stack_labels(
    parts: list, first_lines: list[int], path, sizes=None, cells=False
) -> np.ndarray | None:
    """Label blocks as one matrix; None when every block's labels are all unknown.

    With ``cells`` (``unknown_labels="cells"``), blocks of uint8 (int64: multi-target), of
    float64 with NaN and None (labels all unknown; ``sizes`` gives each block's rows) stack
    as float64 with NaN when one block has an unknown cell, and as integers when none has.
    """
    unknown = [Y is None for Y in parts]
    if all(unknown):
        return None
    if cells and (any(unknown) or any(Y.dtype.kind == "f" for Y in parts if Y is not None)):
        L = next(Y.shape[1] for Y in parts if Y is not None)
        return np.concatenate(
            [
                _unknown_cells(k, L) if Y is None else Y.astype(np.float64)
                for Y, k in zip(parts, sizes, strict=True)
            ]
        )
    if any(unknown):  # known in some blocks, unknown in others: as within one block
        raise _mixed_unknown_labels(path, first_lines[unknown.index(not unknown[0])])
    return _stack(parts)


def _unknown_cells(n: int, L: int) -> np.ndarray:
    """The labels of n rows whose L label cells are all unknown (NaN), as float64."""
    return np.full((n, L), np.nan)


class _Reader:
    """One ARFF file read as a stream: its header, label attributes, parser and data lines.

    The header is parsed on construction; `data` re-opens the file on each call, so memory
    is bounded by one block of lines. With ``bags="concatenate"``, construction also reads
    the data up to the first bag of each relational attribute, whose size sets the number of
    columns.
    """

    def __init__(self, path, labels, missing, bags, unknown_labels, multi_target=False):
        self.path, self.multi_target = Path(path), multi_target
        with _open_binary(self.path) as f:
            header = _parse_header(self._lines(f), self.path)
        self.relation = header.relation
        self._header_lines = header.n_lines
        self.label_attrs = _resolve_labels(header, labels, self.path, multi_target)
        sizes = None
        if bags == "concatenate":
            rows = ((s, n) for keep, nums in self.data() for s, n in zip(keep, nums, strict=True))
            sizes = _bag_sizes(header, rows, self.path)
        self.parser = _Parser(header, self.label_attrs, missing, self.path, sizes, unknown_labels)

    def _lines(self, f) -> Iterator[str]:
        """The decoded lines of an open file, read in blocks of bytes (compressed or not)."""
        n, carry = 0, b""
        try:
            while block := f.read1(_READ_BLOCK):
                lines = (carry + block).split(b"\n")
                carry = lines.pop()
                n += len(lines)
                yield from _decode_lines(lines)
        except _STREAM_ERRORS as exc:
            raise _truncated(self.path, n, exc) from None
        if carry:
            yield _decode(carry)

    def data(
        self, max_rows: int | None = None, max_bytes: int | None = None
    ) -> Iterator[tuple[list[str], list[int]]]:
        """Blocks of (stripped data lines, their line numbers), comments and blanks skipped.

        A block ends after ``max_rows`` lines or once its lines hold ``max_bytes``
        characters, whichever comes first (None: no bound).
        """
        rows_left = max_rows or -1
        with _open_binary(self.path) as f:
            lines = self._lines(f)
            skip = self._header_lines
            for _ in range(skip):
                next(lines)
            keep, nums, size = [], [], 0
            for k, line in enumerate(lines, start=skip + 1):
                s = line.strip()
                if s and s[0] != "%":
                    keep.append(s)
                    nums.append(k)
                    size += len(s)
                    if len(keep) == rows_left or (max_bytes is not None and size >= max_bytes):
                        yield keep, nums
                        keep, nums, size = [], [], 0
            if keep:
                yield keep, nums

    def matrices(self, layout, sparse, threshold, **bounds):
        """``(block, line numbers, X, Y)`` of every block of :meth:`data` (``bounds``: its
        ``max_rows``, ``max_bytes``), assembled by ``layout``; ``sparse=None`` follows the
        first data row."""
        cells = self.parser.unknown_labels == "cells"
        for keep, nums in self.data(**bounds):
            if sparse is None:
                sparse = keep[0][0] == "{"
            block = self.parser.parse(keep, nums)
            X, Y = _assemble(
                block,
                layout,
                sparse=sparse,
                threshold=threshold,
                path=self.path,
                linenos=nums,
                cells=cells,
                multi_target=self.multi_target,
            )
            yield block, nums, X, Y


class ArffChunks:
    """Stream an ARFF file as ``(X, Y)`` chunks of at most ``chunk_size`` rows.

    Returned by `iter_arff`. The header is read on construction (``feature_names``,
    ``label_names``, ``relation`` are available before iterating); each iteration re-opens
    the file, so memory is bounded by one chunk. Identifier detection needs the whole
    column: a first pass reads the file (keeping one number per row of the candidate
    columns) only when a non-label nominal attribute has 3 values or more. With
    ``bags="concatenate"``, construction also reads the data up to the first bag of each
    relational attribute, whose size sets the number of columns.
    """

    def __init__(
        self,
        path,
        *,
        labels,
        chunk_size,
        missing,
        sparse,
        label_threshold,
        bags="mean_max",
        unknown_labels="error",
    ):
        _check_options(missing, chunk_size, bags, unknown_labels)
        self._reader = _Reader(path, labels, missing, bags, unknown_labels)
        self.path, self.relation = self._reader.path, self._reader.relation
        self.chunk_size = int(chunk_size)
        self.sparse, self.label_threshold = sparse, label_threshold
        self._parser = self._reader.parser
        ids = self._find_identifiers(_id_candidates(self._parser))
        self._layout = _Layout(self._parser, self._reader.label_attrs, ids)
        self.feature_names = self._layout.feature_names
        self.label_names = self._layout.label_names
        self.dropped = self._layout.dropped

    def _data(self) -> Iterator[tuple[list[str], list[int]]]:
        return self._reader.data(max_rows=self.chunk_size)

    def _find_identifiers(self, candidates: list[int]) -> set[int]:
        """A first pass over the data, only when some nominal attribute could be an id."""
        if not candidates:
            return set()
        parts: dict[int, list[np.ndarray]] = {i: [] for i in candidates}
        n = 0
        for keep, nums in self._data():
            block = self._parser.parse(keep, nums)
            n += block.n
            for i in candidates:
                parts[i].append(_column(block, self._parser, i))
        if n == 0:
            return set()
        return _identifiers(self._parser, {i: np.concatenate(p) for i, p in parts.items()}, n)

    def __iter__(self) -> Iterator[tuple[np.ndarray | sp.csr_matrix, np.ndarray]]:
        chunks = self._reader.matrices(
            self._layout, self.sparse, self.label_threshold, max_rows=self.chunk_size
        )
        cells = self._parser.unknown_labels == "cells"
        for block, _, X, Y in chunks:
            if Y is None and cells:  # a chunk of training data whose cells are all unknown
                Y = _unknown_cells(block.n, len(self.label_names))
            yield X, Y


def iter_arff(
    path,
    *,
    labels=None,
    chunk_size: int = 10_000,
    missing: Missing = "error",
    sparse: bool | None = None,
    label_threshold: float | None = None,
    bags: Bags = "mean_max",
    unknown_labels: UnknownLabels = "error",
) -> ArffChunks:
    r"""Read an ARFF file in row chunks, e.g. for ``partial_fit``.

    Takes the options of `load_arff`; iterating yields ``(X_chunk, Y_chunk)`` pairs
    with at most ``chunk_size`` rows each, in file order, whose concatenation equals
    ``load_arff(path).X`` and ``.Y``. With ``unknown_labels="allow"``, ``Y_chunk`` is None
    for a chunk whose label values are all unknown. With ``unknown_labels="cells"``,
    ``Y_chunk`` is uint8 for a chunk without unknown cells and float64 with NaN at the
    unknown cells otherwise, a chunk whose cells are all unknown included (all NaN; only
    `load_arff` of a file whose cells are all unknown gives ``Y=None``): stacked (as
    float64 when one holds NaN), the chunks give ``load_arff(path,
    unknown_labels="cells").Y``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "toy.arff"
    >>> text = "@relation 'toy: -C 1'\n@attribute y {0,1}\n@attribute x numeric\n@data\n"
    >>> _ = path.write_text(text + "1,0.5\n0,2\n1,3\n")
    >>> [(X.shape, Y.ravel().tolist()) for X, Y in iter_arff(path, chunk_size=2)]
    [((2, 1), [1, 0]), ((1, 1), [1])]
    """
    return ArffChunks(
        path,
        labels=labels,
        chunk_size=chunk_size,
        missing=missing,
        sparse=sparse,
        label_threshold=label_threshold,
        bags=bags,
        unknown_labels=unknown_labels,
    )
