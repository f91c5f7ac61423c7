"""Writing multi-label ARFF files that Mulan, MEKA, WEKA and `load_arff` read.

Layouts (``layout``):

- ``"mulan"``: the features, then the labels; the relation is the data set's name; the
  label names go to Mulan's XML label file beside the ARFF (``<stem>.xml``), where
  `load_arff` and Mulan look for it.
- ``"meka"``: the labels first, then the features; the relation ends in MEKA's ``-C L``
  (``'name: -C 6'``), from which MEKA and `load_arff` take the label count.

Values: numbers as the shortest decimal that reads back to the same float64 (whole
numbers without ``.0``), NaN as ``?``; infinite values are refused (ARFF has none).
Nominal features (``categories``: name -> declared values; ``X`` holds the index of the
value, as `load_arff` and `load_table` code them) are written as their values; labels are
nominal ``{0,1}``, or ``?`` when ``Y`` is None (rows to predict, as MEKA's convention).
Sparse rows (``{3 1,17 0.5}``: 0-based attribute index and value, zeros left out; for a
nominal attribute a left-out value is its first declared value) are written when
``sparse=True``, or by default when ``X`` is a scipy sparse matrix. A path ending in
``.gz`` or ``.bz2`` is compressed. Names and values are quoted when they must be (white
space, ``,``, quotes, braces, ``%``), with ``\\`` escapes that `load_arff`, liac-arff and
WEKA undo.
"""

from __future__ import annotations

import bz2
import gzip
import re
from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np
import scipy.sparse as sp

from ._dataset import Dataset

__all__ = ["save_arff"]

_LAYOUTS = ("mulan", "meka")
_NEEDS_QUOTES = re.compile(r"[\s,'\"{}%\\]|^$|^[@?]")
_MEKA_C = re.compile(r"\s*:?\s*-C\s+-?\d+")


def _quote(text: str) -> str:
    """An ARFF name or value, quoted and escaped when it must be."""
    if not _NEEDS_QUOTES.search(text):
        return text
    escaped = text.replace("\\", "\\\\").replace("'", "\\'")
    escaped = escaped.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return f"'{escaped}'"


def _numbers(values: np.ndarray) -> np.ndarray:
    """Shortest round-trip decimals of float64 values; whole numbers without ``.0``, NaN ``?``."""
    values = np.asarray(values, dtype=np.float64)
    out = values.astype(str).astype(object)
    whole = np.isfinite(values) & (values == np.round(values)) & (np.abs(values) < 2.0**53)
    out[whole] = values[whole].astype(np.int64).astype(str)
    out[np.isnan(values)] = "?"
    return out


def _coded(values: np.ndarray, categories: tuple[str, ...], name: str) -> np.ndarray:
    """Nominal codes (float, NaN missing) as their quoted declared values."""
    known = ~np.isnan(values)
    codes = values[known]
    bad = codes[~np.isin(codes, np.arange(len(categories)))]
    if bad.size:
        raise ValueError(
            f"X: nominal feature {name!r} must hold value indices 0..{len(categories) - 1} "
            f"(of its categories {list(categories)[:5]}), got {bad[0]!r}"
        )
    quoted = np.array([_quote(str(c)) for c in categories], dtype=object)
    out = np.full(values.shape, "?", dtype=object)
    out[known] = quoted[codes.astype(np.int64)]
    return out


def _check_names(names, count: int, what: str, default: str) -> list[str]:
    if names is None:
        return [f"{default}{j}" for j in range(count)]
    names = [str(n) for n in names]
    if len(names) != count:
        raise ValueError(f"{what}: expected {count} names (one per column), got {len(names)}")
    return names


def _labels_matrix(Y, n: int):
    if Y is None:
        return None
    Y = Y.toarray() if sp.issparse(Y) else np.asarray(Y)
    if Y.ndim != 2 or Y.shape[0] != n:
        raise ValueError(f"Y: expected a 0/1 matrix of shape ({n}, L), got shape {Y.shape}")
    if not np.isin(Y, (0, 1)).all():
        raise ValueError(f"Y: label values must be 0 or 1, got {Y[~np.isin(Y, (0, 1))][0]!r}")
    return Y.astype(np.uint8)


def _features(X):
    """X as float64 CSR or dense 2-D, checked for infinite values."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        data = X.data
    else:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X: expected a 2-D matrix, got shape {X.shape}")
        data = X
    if np.isinf(data).any():
        raise ValueError("X: infinite values cannot be written to ARFF (it has none)")
    return X


def _relation(relation: str, layout: str, n_labels: int) -> str:
    relation = _MEKA_C.sub("", relation).strip() or "data"
    return f"{relation}: -C {n_labels}" if layout == "meka" else relation


def _open(path: Path):
    name = path.name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "wt", encoding="utf-8", newline="\n")
    if name.endswith(".bz2"):
        return bz2.open(path, "wt", encoding="utf-8", newline="\n")
    return open(path, "w", encoding="utf-8", newline="\n")


def _xml_path(path: Path) -> Path:
    stem = path.name
    for suffix in (".gz", ".bz2", ".arff"):
        stem = stem.removesuffix(suffix)
    return path.with_name(stem + ".xml")


def save_arff(
    path,
    X,
    Y=None,
    *,
    label_names=None,
    feature_names=None,
    categories=None,
    relation=None,
    layout: str = "mulan",
    sparse: bool | None = None,
) -> tuple[Path, ...]:
    """Write features and labels as a Mulan or MEKA ARFF file (see the module docstring).

    Parameters
    ----------
    path : str or Path
        The ARFF file; ``.gz`` or ``.bz2`` compresses it.
    X : array-like or sparse matrix of shape (n, d), or Dataset
        Features. A `Dataset` brings its ``Y``, names, categories and name (then ``Y`` and
        the names must not be given again).
    Y : array-like or sparse matrix of shape (n, L) of 0/1, or None
        Labels; None writes ``?`` for every label (data to predict; needs ``label_names``).
    label_names, feature_names : list of str, optional
        Default ``y0, y1, ...`` and ``x0, x1, ...``.
    categories : dict, optional
        Feature name -> its values, for nominal features (``X`` holds value indices).
    relation : str, optional
        The relation name; default the data set's name or the file's stem. MEKA's ``-C``
        is added (``"meka"``) or removed (``"mulan"``) as the layout requires.
    layout : {"mulan", "meka"}, default="mulan"
        Labels last with an XML label file, or labels first with ``-C L``.
    sparse : bool or None, default=None
        Sparse rows; None: when ``X`` is a scipy sparse matrix.

    Returns
    -------
    tuple of Path
        The files written: the ARFF file, and for ``"mulan"`` its XML label file.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import numpy as np
    >>> from mlnb.datasets import load_arff
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.arff"
    >>> X, Y = np.array([[0.5, 0.0], [2.0, 1.0]]), np.array([[1, 0], [0, 1]])
    >>> _ = save_arff(path, X, Y, label_names=["a", "b"], layout="meka")
    >>> print(path.read_text())
    @relation 'tiny: -C 2'
    <BLANKLINE>
    @attribute a {0,1}
    @attribute b {0,1}
    @attribute x0 numeric
    @attribute x1 numeric
    <BLANKLINE>
    @data
    1,0,0.5,0
    0,1,2,1
    <BLANKLINE>
    >>> back = load_arff(path)
    >>> np.array_equal(back.X, X), np.array_equal(back.Y, Y), back.label_names
    (True, True, ['a', 'b'])
    """
    if layout not in _LAYOUTS:
        raise ValueError(f"layout: expected one of {_LAYOUTS}, got {layout!r}")
    path = Path(path)
    if isinstance(X, Dataset):
        given = {"Y": Y, "label_names": label_names, "feature_names": feature_names}
        given["categories"] = categories
        repeated = [k for k, v in given.items() if v is not None]
        if repeated:
            raise ValueError(f"X is a Dataset, which brings its own {', '.join(repeated)}")
        data = X
        X, Y, categories = data.X, data.Y, data.categories
        label_names, feature_names = data.label_names, data.feature_names
        relation = relation or data.relation or data.name
    X = _features(X)
    n, d = X.shape
    Y = _labels_matrix(Y, n)
    if Y is None and label_names is None:
        raise ValueError("Y: None writes unknown labels ('?'), which needs label_names")
    n_labels = len(label_names) if Y is None else Y.shape[1]
    label_names = _check_names(label_names, n_labels, "label_names", "y")
    feature_names = _check_names(feature_names, d, "feature_names", "x")
    categories = dict(categories or {})
    unknown = sorted(set(categories) - set(feature_names))
    if unknown:
        raise ValueError(f"categories: {unknown[0]!r} is not a feature name")
    names = label_names + feature_names
    if len(set(names)) != len(names):
        twice = next(x for i, x in enumerate(names) if x in names[:i])
        raise ValueError(f"names: {twice!r} is both a label and a feature, or appears twice")
    sparse = sp.issparse(X) if sparse is None else bool(sparse)
    stem = re.sub(r"(\.arff)?(\.gz|\.bz2)?$", "", path.name)
    relation = _relation(relation or stem, layout, n_labels)

    label_decl = [f"@attribute {_quote(name)} {{0,1}}" for name in label_names]
    feature_decl = [
        f"@attribute {_quote(name)} "
        + (
            "{" + ",".join(_quote(str(v)) for v in categories[name]) + "}"
            if name in categories
            else "numeric"
        )
        for name in feature_names
    ]
    declarations = label_decl + feature_decl if layout == "meka" else feature_decl + label_decl
    label_offset, feature_offset = (0, n_labels) if layout == "meka" else (d, 0)
    rows = (
        _sparse_rows(X, Y, n_labels, feature_names, categories, label_offset, feature_offset)
        if sparse
        else _dense_rows(X, Y, n_labels, feature_names, categories, layout)
    )
    with _open(path) as f:
        f.write(f"@relation {_quote(relation)}\n\n")
        f.write("\n".join(declarations) + "\n\n@data\n")
        for row in rows:
            f.write(row + "\n")
    written = (path,)
    if layout == "mulan":
        xml = _xml_path(path)
        labels = "".join(f"<label name={quoteattr(name)}></label>\n" for name in label_names)
        xml.write_text(
            '<?xml version="1.0" encoding="utf-8"?>\n'
            f'<labels xmlns="http://mulan.sourceforge.net/labels">\n{labels}</labels>\n',
            encoding="utf-8",
        )
        written += (xml,)
    return written


def _feature_columns(X: np.ndarray, feature_names, categories) -> np.ndarray:
    columns = np.empty(X.shape, dtype=object)
    for j, name in enumerate(feature_names):
        column = X[:, j]
        columns[:, j] = (
            _coded(column, categories[name], name) if name in categories else (_numbers(column))
        )
    return columns


def _dense_rows(X, Y, n_labels, feature_names, categories, layout):
    X = X.toarray() if sp.issparse(X) else X
    features = _feature_columns(X, feature_names, categories)
    if Y is None:
        labels = np.full((X.shape[0], n_labels), "?", dtype=object)
    else:
        labels = Y.astype(str).astype(object)
    table = np.hstack([labels, features] if layout == "meka" else [features, labels])
    return (",".join(row) for row in table)


def _sparse_rows(X, Y, n_labels, feature_names, categories, label_offset, feature_offset):
    """``{index value,...}`` rows: the non-zero entries (NaN too), in attribute order."""
    X = sp.csr_matrix(X)
    X.eliminate_zeros()  # an explicit 0 is left out like any zero; NaN stays
    X.sort_indices()
    values = _numbers(X.data)
    nominal = [j for j, name in enumerate(feature_names) if name in categories]
    if nominal:  # the entries of each nominal column, found once for all columns
        order = np.argsort(X.indices, kind="stable")
        bounds = np.searchsorted(X.indices[order], np.arange(X.shape[1] + 1))
        for j in nominal:
            at = order[bounds[j] : bounds[j + 1]]
            name = feature_names[j]
            values[at] = _coded(X.data[at], categories[name], name)
    parts = [(X, values, feature_offset)]
    if Y is None:
        unknown = sp.csr_matrix(np.ones((X.shape[0], n_labels)))
        parts.append((unknown, np.full(unknown.nnz, "?", dtype=object), label_offset))
    else:
        labels = sp.csr_matrix(Y)
        labels.eliminate_zeros()
        labels.sort_indices()
        parts.append((labels, np.full(labels.nnz, "1", dtype=object), label_offset))
    parts.sort(key=lambda part: part[2])  # the attribute order of the layout
    for i in range(X.shape[0]):
        tokens = []
        for matrix, strings, offset in parts:
            start, stop = matrix.indptr[i], matrix.indptr[i + 1]
            tokens.extend(
                f"{offset + k} {v}"
                for k, v in zip(matrix.indices[start:stop], strings[start:stop], strict=True)
            )
        yield "{" + ",".join(tokens) + "}"
