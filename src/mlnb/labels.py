"""Label sets in the forms users have, and back: tag lists, DataFrames, 0/1 matrices.

Every multi-label estimator takes ``Y`` as

- a list of label lists, one per row (``[["a", "b"], ["c"], []]``; a pandas Series of lists,
  or rows given as tuples or sets, too): the labels are the sorted union of the tags;
- a pandas DataFrame of 0/1 columns, one per label, named by the label;
- a 0/1 indicator matrix, dense or sparse (as a nested list, too): the labels are the
  column numbers ``0 .. L-1``.

A fitted estimator keeps the names in ``label_names_`` (in column order; ``0 .. L-1`` for
a plain matrix), and its predictions, a 0/1 matrix, turn back into names with
:func:`to_label_lists`::

    to_label_lists(model.predict(X), model.label_names_)

A nested list of numbers that is rectangular is read as a 0/1 matrix (as numpy reads it);
tags that are numbers in rows of equal length must be given as sets (``[{0, 2}, {1, 3}]``).

Examples
--------
>>> from mlnb.labels import label_matrix, to_label_lists
>>> Y, names = label_matrix([["b", "a"], ["c"], []])
>>> Y.toarray()
array([[1, 1, 0],
       [0, 0, 1],
       [0, 0, 0]])
>>> names
array(['a', 'b', 'c'], dtype='<U1')
>>> to_label_lists(Y, names)
[['a', 'b'], ['c'], []]
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.sparse as sp

__all__ = ["is_label_lists", "label_matrix", "split_unknown", "to_label_lists"]

#: The containers a row of tags may be (a string is a tag, never a row of letters).
_ROW_TYPES = (list, tuple, set, frozenset, np.ndarray)


def is_label_lists(Y) -> bool:
    """Whether ``Y`` is a sequence of label lists rather than a 0/1 matrix.

    True for a list, tuple, 1-D object array or pandas Series whose items are all lists,
    tuples, sets or arrays, unless it reads as a rectangular matrix of numbers (numpy's
    reading of a nested list, kept as it always was) and no row is a set.
    """
    if sp.issparse(Y) or _is_frame(Y):
        return False
    if isinstance(Y, np.ndarray):
        if Y.dtype != object or Y.ndim != 1:
            return False
    elif hasattr(Y, "to_numpy") and getattr(Y, "ndim", None) == 1:  # a pandas Series
        Y = Y.to_numpy()
    elif not isinstance(Y, (list, tuple)):
        return False
    if len(Y) == 0 or not all(isinstance(row, _ROW_TYPES) for row in Y):
        return False
    if any(isinstance(row, (set, frozenset)) for row in Y):
        return True
    try:
        matrix = np.asarray(Y)
    except ValueError:  # ragged rows: numpy's "inhomogeneous shape"
        return True
    if matrix.ndim == 2 and matrix.dtype == object:  # a matrix of numbers with holes (None)
        numbers = (bool, int, float, np.bool_, np.integer, np.floating)
        return not all(value is None or isinstance(value, numbers) for value in matrix.flat)
    return not (matrix.ndim == 2 and matrix.dtype.kind in "biuf")


def label_matrix(Y, names=None, *, grow=False):
    """``Y`` in any accepted form as ``(indicator matrix, label names)``.

    Parameters
    ----------
    Y : list of label lists, DataFrame, sparse matrix or array-like of shape (n, L)
        The label sets (see the module docstring).
    names : array-like, default=None
        The labels of a fitted model, in column order: tag lists are coded on them, a
        DataFrame's columns must start with them, a matrix must have as many columns.
        None: the labels come from ``Y``.
    grow : bool, default=False
        Whether labels beyond ``names`` are accepted (an online model that takes new
        labels): they are appended, in sorted order for tag lists, in column order for a
        DataFrame. Else an unknown label is a ValueError that names it.

    Returns
    -------
    Y : sparse matrix (tag lists) or the input's values (other forms)
        The 0/1 values are checked by the estimator, as for any matrix.
    names : ndarray of shape (L,)
        The label of every column: strings as a ``str`` array, integers as an ``int``
        array, anything else as an object array.

    Examples
    --------
    >>> import numpy as np
    >>> label_matrix([["a"], ["a", "new"]], names=["a", "b"], grow=True)[1]
    array(['a', 'b', 'new'], dtype='<U3')
    >>> label_matrix(np.array([[0, 1], [1, 1]]))[1]
    array([0, 1])
    """
    if (
        type(Y) is np.ndarray
        and Y.ndim == 2
        and type(names) is np.ndarray
        and Y.shape[1] == names.shape[0]
    ):
        return Y, names  # a matrix of the fitted labels (a stream's rows): nothing to code
    known = None if names is None else _names(list(names))
    if is_label_lists(Y):
        return _from_label_lists(Y, known, grow)
    if _is_frame(Y):
        found = _names(list(Y.columns))
        if len(set(found.tolist())) != len(found):
            raise ValueError(f"the label columns of Y must have distinct names; got {found!r}")
        _check_known_columns(found, known, grow)
        return _frame_values(Y), found
    if Y is None or known is None:
        return Y, _numbered(Y)
    width = _width(Y)
    if width is not None and width > len(known):
        if not grow:
            raise ValueError(f"Y has {width} label columns; this model knows {len(known)}")
        if not np.array_equal(known, np.arange(len(known))):
            raise ValueError(
                f"Y has {width} label columns and this model knows {len(known)} named "
                f"labels ({_preview(known)}): name the new ones, giving Y as a DataFrame or "
                "as label lists"
            )
        return Y, np.arange(width)
    return Y, known


def to_label_lists(Y, names=None):
    """The labels of every row of a 0/1 matrix, as lists of names (the inverse of fitting
    on label lists).

    Parameters
    ----------
    Y : array-like or sparse matrix of shape (n_samples, n_labels)
        0/1 labels, such as ``model.predict(X)``.
    names : array-like of shape (n_labels,), default=None
        The name of every column, such as ``model.label_names_``; None: the column numbers.

    Returns
    -------
    list of lists
        Row i's labels in column order.

    Examples
    --------
    >>> to_label_lists([[1, 0, 1], [0, 0, 0]], ["x", "y", "z"])
    [['x', 'z'], []]
    """
    Y = sp.csr_matrix(Y)
    if names is None:
        names = np.arange(Y.shape[1])
    names = np.asarray(names)
    if names.shape != (Y.shape[1],):
        raise ValueError(f"names must give one name per column of Y ({Y.shape[1]}); got {names!r}")
    Y.eliminate_zeros()
    Y.sort_indices()
    bounds = zip(Y.indptr[:-1], Y.indptr[1:], strict=True)
    return [names[Y.indices[start:stop]].tolist() for start, stop in bounds]


def split_unknown(Y):
    """A checked label matrix with unknown cells, as ``(known labels, unknown cells)``.

    Estimators that learn each label from the rows where it is known (binary relevance)
    take ``Y`` with unknown cells: NaN in a dense float matrix or DataFrame, a masked
    array's masked cells, None or ``pandas.NA`` in a matrix of objects, or NaN stored in a
    sparse matrix. Their validation turns every form into one: a CSR matrix of float64
    holding 1 at the positive cells and NaN at the unknown ones.

    Parameters
    ----------
    Y : CSR matrix of shape (n_samples, n_labels)
        1 (positive), NaN (unknown) or not stored (negative).

    Returns
    -------
    labels : CSR matrix
        The positive cells (1), every other cell 0: unknown cells taken out.
    unknown : CSR matrix or None
        1 at every unknown cell; None when every cell is known.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> Y = sp.csr_matrix(np.array([[1.0, np.nan], [0.0, 1.0]]))
    >>> labels, unknown = split_unknown(Y)
    >>> labels.toarray()
    array([[1., 0.],
           [0., 1.]])
    >>> unknown.toarray()
    array([[0., 1.],
           [0., 0.]])
    """
    Y = sp.csr_matrix(Y)
    missing = np.isnan(Y.data)
    if not missing.any():
        return Y, None
    labels, unknown = Y.copy(), Y.copy()
    labels.data = np.where(missing, 0.0, labels.data)
    unknown.data = missing.astype(np.float64)
    labels.eliminate_zeros()
    unknown.eliminate_zeros()
    return labels, unknown


def _is_frame(Y):
    """Whether Y is a DataFrame (duck-typed: pandas is an optional dependency)."""
    return hasattr(Y, "columns") and hasattr(Y, "dtypes") and hasattr(Y, "to_numpy")


def _frame_values(frame):
    """A DataFrame's values, kept sparse when every column is."""
    if len(frame.columns) and all(
        getattr(t, "name", "").startswith("Sparse") for t in frame.dtypes
    ):
        return sp.csr_matrix(frame.sparse.to_coo())
    return frame.to_numpy()


def _names(values):
    """Label names as an array: ``str`` for strings, ``int`` for integers, else object."""
    if values and all(isinstance(v, str) for v in values):
        return np.array(values, dtype=str)
    if all(isinstance(v, Integral) and not isinstance(v, (bool, np.bool_)) for v in values):
        return np.array(values, dtype=np.int64)
    names = np.empty(len(values), dtype=object)
    names[:] = values
    return names


def _numbered(Y):
    """``0 .. L-1`` for a matrix of L columns (None if Y has no width: the estimator's
    validation says what is wrong with it)."""
    width = _width(Y)
    return None if width is None else np.arange(width)


def _width(Y):
    """The number of columns of a 2-D Y, else None."""
    shape = Y.shape if sp.issparse(Y) or hasattr(Y, "shape") else np.shape(_safe_array(Y))
    return shape[1] if len(shape) == 2 else None


def _safe_array(Y):
    try:
        return np.asarray(Y)
    except ValueError:
        return np.empty(0)


def _from_label_lists(Y, known, grow):
    from sklearn.preprocessing import MultiLabelBinarizer

    rows = list(Y.to_numpy() if hasattr(Y, "to_numpy") else Y)
    tags = set()
    for i, row in enumerate(rows):
        for tag in row:
            if isinstance(tag, _ROW_TYPES) or tag is None or tag != tag:  # nested, None, NaN
                raise ValueError(
                    f"Y as label lists: row {i} holds {tag!r}; a label is a string or a "
                    "number, and each row a list of labels"
                )
            tags.add(tag)
    seen = [] if known is None else known.tolist()
    new = tags.difference(seen)
    if known is not None and new and not grow:
        raise ValueError(
            f"Y holds labels this model was not fitted with: {_preview(sorted(new, key=str))}; "
            f"it knows {_preview(known)}"
        )
    try:
        new = sorted(new)
    except TypeError:
        raise ValueError(
            "Y as label lists: the labels must be all strings or all numbers, to be sorted; "
            f"got {_preview(sorted(new, key=repr))}"
        ) from None
    names = _names(seen + new)
    if len(names) == 0:
        raise ValueError("Y has no labels: every row's label list is empty")
    binarizer = MultiLabelBinarizer(classes=names.tolist(), sparse_output=True)
    return binarizer.fit_transform(rows).tocsr(), names


def _check_known_columns(found, known, grow):
    """A DataFrame's columns against a fitted model's labels: the same names first, in the
    same order; more after them only if the model grows."""
    if known is None:
        return
    head = found[: len(known)]
    if len(head) != len(known) or head.tolist() != known.tolist():
        raise ValueError(
            f"the columns of Y ({_preview(found)}) must be this model's labels in order "
            f"({_preview(known)}); select them with Y[model.label_names_]"
        )
    if len(found) > len(known) and not grow:
        extra = found[len(known) :]
        raise ValueError(f"Y has labels this model was not fitted with: {_preview(extra)}")


def _preview(values, limit=8):
    """A short text of a few names."""
    values = list(values)
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (f", ... ({len(values)} in all)" if len(values) > limit else "")
