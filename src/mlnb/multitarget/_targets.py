"""Class-valued outputs: checking ``Y``, its classes per output, and their codes.

A multi-target ``Y`` has one column per output and a class per cell (ints, strings, any
value :func:`numpy.unique` can sort). The estimators work on integer codes: output j's
classes are ``classes[j]`` (sorted), a cell's code is its index there, and the one-hot
grouping matrix has a column per (output, class) pair, output after output
(:func:`one_hot_targets`): the groups of the additive statistics.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["as_output_list", "check_targets", "one_hot_targets", "output_classes", "target_codes"]


def as_output_list(classes):
    """``(every output's classes as a list, whether they are of several outputs)``: a list
    of 1-D array-likes is one per output; a 1-D array-like of classes is one output's."""
    several = not isinstance(classes, np.ndarray) or classes.dtype == object
    several = several and len(classes) > 0 and all(np.ndim(c) == 1 for c in classes)
    if several:
        return [np.unique(np.asarray(c)) for c in classes], True
    return [np.unique(np.asarray(classes))], False


def check_targets(y, n_samples, *, caller):
    """``(Y, outputs_2d)``: the targets as a 2-D array with a row per sample (a 1-D ``y``,
    one output, as a column) and whether ``y`` was 2-D. A ValueError naming ``caller`` for
    a missing, sparse or empty ``y``, a missing or real-valued cell, or a length that is
    not ``n_samples``."""
    if y is None:
        raise ValueError(f"{caller} requires y to be passed, but the target y is None")
    if sp.issparse(y):
        raise ValueError(f"{caller}: y must be a dense array of classes, one column per output")
    Y = np.asarray(y)
    if Y.ndim not in (1, 2):
        raise ValueError(
            f"{caller}: y must be of shape (n_samples, n_outputs), a class per output; got "
            f"shape {Y.shape}"
        )
    outputs_2d = Y.ndim == 2
    Y = Y.reshape(len(Y), -1)
    if Y.shape[0] != n_samples:
        raise ValueError(f"{caller}: X has {n_samples} rows but y has {Y.shape[0]}")
    if Y.shape[1] == 0:
        raise ValueError(f"{caller}: y has no output (0 columns)")
    if Y.dtype.kind == "O":
        missing = np.not_equal(Y, Y).astype(bool) | np.equal(Y, None).astype(bool)  # NaN, None
        if missing.any():
            row, output = np.argwhere(missing)[0]
            raise ValueError(
                f"{caller}: y holds a missing cell (row {row}, output {output}); every cell "
                "must be a class"
            )
    if Y.dtype.kind == "f":
        if not np.isfinite(Y).all():
            raise ValueError(f"{caller}: y holds NaN or infinity; every cell must be a class")
        if np.any(Y != np.round(Y)):
            raise ValueError(
                f"{caller}: Unknown label type: continuous (y holds non-integer numbers); "
                "multi-target classification needs a class in every cell"
            )
    return Y, outputs_2d


def output_classes(Y):
    """The sorted classes of every output (a list of 1-D arrays)."""
    classes = []
    for j, column in enumerate(Y.T):  # one np.unique per output: outputs are few
        try:
            values = np.unique(column)
        except TypeError:
            kinds = sorted({type(v).__name__ for v in column.tolist()})
            raise ValueError(
                f"output {j} of y mixes classes of types {', '.join(kinds)}, which cannot be "
                "sorted: give each output classes of one type"
            ) from None
        if values.dtype == object:  # a column of one type gets that type's dtype
            typed = np.array(values.tolist())
            values = typed if typed.dtype != object else values
        classes.append(values)
    return classes


def target_codes(Y, classes, *, caller):
    """The (n_samples, n_outputs) integer codes of ``Y`` in ``classes`` (one array per
    output); a ValueError naming ``caller`` for a class that is not there."""
    if Y.shape[1] != len(classes):
        raise ValueError(f"{caller}: Y has {Y.shape[1]} outputs; the model has {len(classes)}")
    codes = np.empty(Y.shape, dtype=np.intp)
    for j, known in enumerate(classes):
        column = Y[:, j]
        index = np.searchsorted(known, column)
        index = np.minimum(index, len(known) - 1)
        wrong = known[index] != column
        if np.any(wrong):
            raise ValueError(
                f"{caller}: output {j} holds classes not among its classes {list(known)[:10]}: "
                f"{list(np.unique(column[wrong]))[:5]}; give every class with classes= on the "
                "first partial_fit"
            )
        codes[:, j] = index
    return codes


def one_hot_targets(codes, sizes):
    """The (n_samples, sum(sizes)) 0/1 CSR matrix of output j's class ``codes[:, j]`` at
    column ``offsets[j] + code``, with ``offsets`` (n_outputs + 1,) the block starts."""
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    n, m = codes.shape
    columns = (codes + offsets[:-1]).ravel()
    indptr = np.arange(0, n * m + 1, m)
    matrix = sp.csr_matrix((np.ones(n * m), columns, indptr), shape=(n, offsets[-1]))
    return matrix, offsets
