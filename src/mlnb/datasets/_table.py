"""Tables as multi-label data sets: CSV and Parquet files, and pandas DataFrames.

Label columns (``labels``):

- an int N, as MEKA's ``-C N``: N > 0 the first N columns, N < 0 the last ``|N|``;
- column names: a list, or one string of names separated by commas (``"tag_a,tag_b"``);
- None: the Mulan XML label file beside the file (``<stem>.xml``, as for ARFF) names them.

Features, the other columns: numeric and boolean columns are float64 (True is 1); every
other column (text, a pandas categorical) is *nominal*, coded as `load_arff` codes an ARFF
nominal attribute: the index of its value among the column's values (sorted; a pandas
categorical: its categories, in their order), kept in ``Dataset.categories``. Nominal
columns are coded, not one-hot encoded, so that a table and its ARFF copy (`save_arff`)
load to the same matrix.

Missing values: empty cells, pandas' NA strings and ``?`` (ARFF's mark). ``missing`` as in
`load_arff`: ``"error"`` (default) names the file, the column and the line; ``"nan"``
stores NaN (a nominal one too); ``"zero"`` stores 0. Labels are 0/1 (numbers, booleans, or
the strings ``0``/``1``); label cells that are all empty are unknown labels (rows to
predict), read as ``Y=None`` with ``unknown_labels="allow"``. ``unknown_labels="cells"``
reads training data whose labels are partly unknown, as `load_arff` does: an empty label
cell is an unknown cell, and ``Y`` is float64 with NaN at those cells and 0/1 elsewhere
(uint8, as with ``"error"``, when no cell is empty; None, as with ``"allow"``, when all
are).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._arff import (
    _UNKNOWN_LABELS,
    ArffError,
    Missing,
    UnknownLabels,
    find_label_xml,
    xml_label_names,
)
from ._dataset import Dataset

__all__ = ["TABLE_SUFFIXES", "from_dataframe", "label_columns", "load_table"]

# File names `load_table` reads, by their ending (pandas decompresses .gz, .bz2, .zip, .xz).
_CSV = re.compile(r"\.csv(\.gz|\.bz2|\.zip|\.xz)?$", re.IGNORECASE)
_PARQUET = re.compile(r"\.(parquet|pq)$", re.IGNORECASE)
TABLE_SUFFIXES = (".csv", ".csv.gz", ".csv.bz2", ".csv.zip", ".csv.xz", ".parquet", ".pq")
_MISSING = ("error", "nan", "zero")
_NA_VALUES = ["?"]  # besides pandas' defaults ("", "NA", "NaN", "null", ...)


def is_table(path) -> bool:
    """Whether ``path`` names a CSV or Parquet file by its ending."""
    name = Path(path).name
    return bool(_CSV.search(name) or _PARQUET.search(name))


def _pandas():
    try:
        import pandas
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("reading CSV or Parquet files needs pandas: pip install pandas") from None
    return pandas


def _preview(names, k: int = 12) -> str:
    more = f", ... ({len(names)} in all)" if len(names) > k else ""
    return ", ".join(repr(n) for n in names[:k]) + more


def label_columns(labels, columns: Sequence[str], *, where: str) -> list[int]:
    """The indices of the label columns that ``labels`` names (see the module docstring).

    ``labels`` is an int, a list of names or a string of names separated by commas (a
    string holding one whole number is that number). ``where`` starts the error messages
    (the file's name).

    Examples
    --------
    >>> label_columns(2, ["a", "b", "x"], where="t.csv"), label_columns(-1, "abx", where="")
    ([0, 1], [2])
    >>> label_columns("x, a", ["a", "b", "x"], where="t.csv")
    [2, 0]
    """
    columns = list(columns)
    n = len(columns)
    if isinstance(labels, str):
        text = labels.strip()
        labels = int(text) if re.fullmatch(r"[+-]?\d+", text) else text.split(",")
    if isinstance(labels, (int, np.integer)) and not isinstance(labels, bool):
        k = int(labels)
        if not abs(k) < n:
            raise ValueError(
                f"{where}: labels={k} asks for {abs(k)} label columns, but the table has {n} "
                "columns and needs at least one feature column"
            )
        return list(range(k)) if k >= 0 else list(range(n + k, n))
    if isinstance(labels, (bytes, dict)) or not isinstance(labels, Sequence):
        raise TypeError(
            f"{where}: labels: expected a number of columns (MEKA's -C N), column names or "
            f"None, got {labels!r}"
        )
    names = [str(name).strip() for name in labels]
    if not names or not all(names):
        raise ValueError(f"{where}: labels: expected column names, got {labels!r}")
    position = {name: i for i, name in enumerate(columns)}
    for name in names:
        if name not in position:
            raise ValueError(
                f"{where}: label column {name!r} not found; columns are {_preview(columns)}"
            )
    if len(set(names)) != len(names):
        raise ValueError(f"{where}: labels names a column twice: {labels!r}")
    if len(names) == n:
        raise ValueError(f"{where}: every column is a label column; no feature column is left")
    return [position[name] for name in names]


def _missing_error(where, column, rows, line_of) -> ValueError:
    return ValueError(
        f"{where}, {line_of(rows[0])}: missing value in column {column!r} "
        f"({len(rows)} in that column); pass missing='nan' or 'zero' (command line: "
        "--missing ignore) to keep such rows"
    )


def _feature(series, name, missing, where, line_of):
    """One feature column as float64 codes, and its categories when nominal."""
    pd = _pandas()
    dtype = series.dtype
    categories = None
    if pd.api.types.is_bool_dtype(dtype) or (
        pd.api.types.is_numeric_dtype(dtype) and not isinstance(dtype, pd.CategoricalDtype)
    ):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan, copy=True)
        if np.isinf(values).any():
            row = int(np.flatnonzero(np.isinf(values))[0])
            raise ValueError(f"{where}, {line_of(row)}: infinite value in column {name!r}")
    else:
        if isinstance(dtype, pd.CategoricalDtype):
            categories = tuple(str(c) for c in dtype.categories)
            codes = series.cat.codes.to_numpy()
        else:
            known = series.notna().to_numpy()
            text = series[known].astype(str)
            categories = tuple(sorted(set(text)))
            index = {c: i for i, c in enumerate(categories)}
            codes = np.full(len(series), -1)
            codes[known] = text.map(index).to_numpy()
        values = np.where(codes < 0, np.nan, codes).astype(np.float64)
    absent = np.flatnonzero(np.isnan(values))
    if absent.size:
        if missing == "error":
            raise _missing_error(where, name, absent, line_of)
        if missing == "zero":
            values[absent] = 0.0
    return values, categories


def _label_matrix(frame, names, where, line_of, unknown_labels):
    """The 0/1 label matrix of the label columns; None when every cell is empty.

    With ``unknown_labels="cells"`` and some cells empty: float64 with NaN at them.
    """
    pd = _pandas()
    if not names:
        return None
    known = frame[names].notna().to_numpy()
    if not known.any():
        if unknown_labels in ("allow", "cells"):
            return None
        raise ValueError(
            f"{where}: every label value is missing (rows to predict); pass "
            "unknown_labels='allow' to read them without labels"
        )
    if not known.all() and unknown_labels != "cells":
        row, col = np.argwhere(~known)[0]
        raise ValueError(
            f"{where}, {line_of(int(row))}: missing value in label column {names[col]!r} "
            "while other labels are known; labels must be all known or all missing, or "
            "pass unknown_labels='cells' to read empty label cells as unknown cells (NaN in "
            "a float64 Y, for training)"
        )
    Y = np.zeros((len(frame), len(names)), dtype=np.uint8)
    for j, name in enumerate(names):
        rows = np.flatnonzero(known[:, j])
        column = frame[name].iloc[rows]
        if pd.api.types.is_bool_dtype(column.dtype):
            Y[rows, j] = column.to_numpy(dtype=np.uint8)
            continue
        text = column.astype(str).str.strip().to_numpy()
        numbers = pd.to_numeric(pd.Series(text), errors="coerce").to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isin(numbers, (0.0, 1.0)))
        if bad.size:
            raise ValueError(
                f"{where}, {line_of(int(rows[bad[0]]))}: label column {name!r} holds "
                f"{text[bad[0]]!r}; label values must be 0 or 1"
            )
        Y[rows, j] = numbers.astype(np.uint8)
    if known.all():
        return Y
    Y = Y.astype(np.float64)
    Y[~known] = np.nan
    return Y


def from_dataframe(
    frame,
    *,
    labels=None,
    missing: Missing = "error",
    sparse: bool | None = None,
    name: str = "",
    unknown_labels: UnknownLabels = "error",
) -> Dataset:
    """A `Dataset` of a pandas DataFrame: features, label columns (see the module docstring).

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per example; column names become the feature and label names.
    labels : int, str or list of str
        The label columns: a count as MEKA's ``-C N`` or names (module docstring).
    missing : {"error", "nan", "zero"}, default="error"
        What a missing feature value becomes.
    sparse : bool or None, default=None
        True: ``X`` as a CSR matrix; otherwise dense.
    name : str, default=""
        The data set's name.
    unknown_labels : {"error", "allow", "cells"}, default="error"
        ``"allow"``: label columns whose cells are all empty give ``Y=None``. ``"cells"``:
        an empty label cell is an unknown cell, ``Y`` float64 with NaN there (uint8 when
        no cell is empty, None when all are); ``"error"``: empty label cells are an error.

    Returns
    -------
    Dataset

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"colour": ["red", "blue", "red"], "size": [1.5, 2.0, 0.5],
    ...                       "tag_a": [1, 0, 1], "tag_b": [0, 0, 1]})
    >>> data = from_dataframe(frame, labels="tag_a,tag_b")
    >>> data.X.tolist(), data.Y.tolist()
    ([[1.0, 1.5], [0.0, 2.0], [1.0, 0.5]], [[1, 0], [0, 0], [1, 1]])
    >>> data.categories, data.label_names
    ({'colour': ('blue', 'red')}, ['tag_a', 'tag_b'])
    """
    pd = _pandas()
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame: expected a pandas DataFrame, got {type(frame).__name__}")
    where = name or "DataFrame"
    return _dataset(frame, labels, missing, sparse, name, unknown_labels, where, _row)


def _row(i: int) -> str:
    return f"row {i}"


def _line(i: int) -> str:
    return f"line {i + 2}"  # a CSV file's data row i (0-based) follows the header line


def _dataset(frame, labels, missing, sparse, name, unknown_labels, where, line_of) -> Dataset:
    """`from_dataframe`, with ``where`` and ``line_of(i)`` naming the data and row i in errors."""
    if missing not in _MISSING:
        raise ValueError(f"missing: expected one of {_MISSING}, got {missing!r}")
    if unknown_labels not in _UNKNOWN_LABELS:
        raise ValueError(
            f"unknown_labels: expected one of {_UNKNOWN_LABELS}, got {unknown_labels!r}"
        )
    columns = [str(c) for c in frame.columns]
    if len(set(columns)) != len(columns):
        twice = next(c for i, c in enumerate(columns) if c in columns[:i])
        raise ValueError(f"{where}: column {twice!r} appears twice")
    if labels is None:
        raise ValueError(
            f"{where}: which columns are labels? pass labels= a count (MEKA's -C N: the first "
            f"N columns, or the last |N| if negative) or names (command line: --labels); "
            f"columns are {_preview(columns)}"
        )
    frame = frame.set_axis(columns, axis=1).reset_index(drop=True)
    label_idx = label_columns(labels, columns, where=where)
    label_names = [columns[i] for i in label_idx]
    feature_names = [c for i, c in enumerate(columns) if i not in set(label_idx)]
    X = np.empty((len(frame), len(feature_names)), dtype=np.float64)
    categories = {}
    for j, column in enumerate(feature_names):
        X[:, j], values = _feature(frame[column], column, missing, where, line_of)
        if values is not None:
            categories[column] = values
    Y = _label_matrix(frame, label_names, where, line_of, unknown_labels)
    if not label_names and unknown_labels == "error":
        raise ValueError(f"{where}: labels=0 leaves no label column; the data cannot be learnt")
    return Dataset(
        X=sp.csr_matrix(X) if sparse else X,
        Y=Y,
        feature_names=feature_names,
        label_names=label_names,
        name=name,
        categories=categories,
    )


def load_table(
    path,
    *,
    labels=None,
    missing: Missing = "error",
    sparse: bool | None = None,
    name: str | None = None,
    unknown_labels: UnknownLabels = "error",
    sep: str = ",",
) -> Dataset:
    """Load a CSV or Parquet file of features and 0/1 label columns as a `Dataset`.

    Parameters
    ----------
    path : str or Path
        ``.csv`` (with a header line; ``.csv.gz``, ``.bz2``, ``.zip``, ``.xz`` too) or
        ``.parquet`` / ``.pq`` (needs pyarrow or fastparquet).
    labels : int, str, list of str or None
        The label columns: MEKA's count (N > 0 the first N columns, N < 0 the last
        ``|N|``), names (a list, or a string of names separated by commas), or None: the
        Mulan XML file beside the file.
    missing, sparse, unknown_labels
        As in `from_dataframe`.
    name : str, optional
        Default: the file name without its extensions.
    sep : str, default=","
        The CSV field separator.

    Returns
    -------
    Dataset

    Raises
    ------
    ValueError
        No label columns given, a label column not found (the message lists the columns),
        a label value other than 0/1, or a missing value with ``missing="error"``.
    FileNotFoundError
        ``path`` does not exist.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tags.csv"
    >>> _ = path.write_text("tag_a,tag_b,x,colour\\n1,0,0.5,red\\n0,1,2,blue\\n")
    >>> data = load_table(path, labels=2)
    >>> data.label_names, data.feature_names, data.X.tolist()
    (['tag_a', 'tag_b'], ['x', 'colour'], [[0.5, 1.0], [2.0, 0.0]])
    """
    pd = _pandas()
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    if _PARQUET.search(path.name):
        frame = pd.read_parquet(path)
    elif _CSV.search(path.name):
        try:
            frame = pd.read_csv(path, sep=sep, na_values=_NA_VALUES, skipinitialspace=True)
        except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as error:
            raise ValueError(f"{path}: not a readable CSV file: {error}") from None
    else:
        raise ValueError(f"{path}: expected a .csv or .parquet file")
    if labels is None:
        xml = find_label_xml(path)
        if xml is None:
            raise ValueError(
                f"{path}: which columns are labels? pass labels= a count (MEKA's -C N: the "
                "first N columns, or the last |N| if negative) or names (command line: "
                f"--labels), or put a Mulan XML label file beside it; columns are "
                f"{_preview([str(c) for c in frame.columns])}"
            )
        try:
            labels = xml_label_names(xml)
        except ArffError as error:
            raise ValueError(str(error)) from None
    stem = re.sub(r"(\.csv)?(\.gz|\.bz2|\.zip|\.xz)?$|\.(parquet|pq)$", "", path.name, flags=re.I)
    line_of = _line if _CSV.search(path.name) else _row
    name = name or stem
    return _dataset(frame, labels, missing, sparse, name, unknown_labels, str(path), line_of)
