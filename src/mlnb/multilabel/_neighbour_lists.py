"""The k nearest training rows of every row, nearest first, ties to the lowest index.

What ML-kNN and BR-kNN read of the training set: which rows are nearest, in order, so that
the lists of the largest k serve every smaller k (their first k columns). Distances are
the exact squared Euclidean distances of :func:`~._neighbourhood.squared_distances`, in
blocks of rows; a row of the training set itself can leave itself out (leave-one-out, as
ML-kNN counts its training rows' neighbours), by index, so duplicates of it still count.

The choice of the k nearest is compiled (:mod:`mlnb._compiled`): one pass over a row's
distances keeps the k best of every list at once (a fold's list skips the fold's rows),
where numpy partitions a masked copy per list; equal lists, tested against the numpy
reference, kept as the definition.
"""

from __future__ import annotations

import numpy as np

from .. import _compiled
from ._neighbourhood import nearest_points, squared_distances, squared_norms

__all__ = ["nearest_rows", "nearest_rows_by_group"]


def nearest_rows(X, points, k, *, leave_one_out=False, budget=1 << 24):
    """Indices of the ``k`` nearest points of every row of ``X``, shape (n, k).

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
    points : ndarray or CSR matrix of shape (m, d)
    k : int
        At most m (m - 1 with ``leave_one_out``).
    leave_one_out : bool, default=False
        ``X`` is ``points``: row i is not among its own neighbours.
    budget : int
        Distances per block of rows.

    Returns
    -------
    ndarray of int, shape (n, k)
        Row i's k nearest points ordered by (distance, index).

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.multilabel._neighbour_lists import nearest_rows
    >>> points = np.array([[0.0], [1.0], [3.0], [1.0]])
    >>> nearest_rows(points, points, 2, leave_one_out=True).tolist()
    [[1, 3], [3, 0], [1, 3], [1, 0]]
    """
    m = points.shape[0]
    k = int(k)
    if not 0 < k <= m - int(leave_one_out):
        raise ValueError(f"k must be between 1 and {m - int(leave_one_out)}; got {k}")
    norms = squared_norms(points)
    n = X.shape[0]
    out = np.empty((n, k), dtype=np.intp)
    block = max(1, budget // max(m, 1))
    for start in range(0, n, block):
        stop = min(start + block, n)
        distances = squared_distances(X[start:stop], points, norms)
        out[start:stop] = _block_lists(distances, start, None, k, leave_one_out)[0]
    return out


def nearest_rows_by_group(X, groups, k, *, budget=1 << 24):
    """Leave-one-out neighbour lists of the rows of ``X`` among themselves, once for every
    group left out and once for none, from one pass of distances: the lists that
    cross-validation by the folds ``groups`` and the final fit read.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
    groups : ndarray of int, shape (n,)
        The fold of every row, 0 .. G-1.
    k : int
        At most n - 1 - (the largest fold's size).

    Returns
    -------
    ndarray of int, shape (G + 1, n, k)
        ``[g]``: every row's k nearest rows outside fold g (and not itself), by (distance,
        index), as :func:`nearest_rows` gives them; ``[G]``: among all the other rows.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.multilabel._neighbour_lists import nearest_rows_by_group
    >>> X = np.array([[0.0], [1.0], [3.0], [1.0]])
    >>> lists = nearest_rows_by_group(X, np.array([0, 0, 1, 1]), 1)
    >>> lists[:, :, 0].tolist()
    [[3, 3, 3, 2], [1, 0, 1, 1], [1, 3, 1, 1]]
    """
    n, groups = X.shape[0], np.asarray(groups)
    n_groups = int(groups.max()) + 1
    k = int(k)
    most = n - 1 - int(np.bincount(groups).max())
    if not 0 < k <= most:
        raise ValueError(f"k must be between 1 and {most} with these folds; got {k}")
    norms = squared_norms(X)
    out = np.empty((n_groups + 1, n, k), dtype=np.intp)
    block = max(1, budget // max(n, 1))
    for start in range(0, n, block):
        stop = min(start + block, n)
        distances = squared_distances(X[start:stop], X, norms)
        out[:, start:stop] = _block_lists(distances, start, groups, k, True)
    return out


def _block_lists(distances, start, groups, k, leave_one_out):
    """The lists of a block of rows (row i of the block is row ``start + i``): for every
    group g (``groups`` of the columns, or None for none), the k nearest columns outside g,
    then the k nearest of all; shape (G + 1, rows, k), each ordered by (distance, index)."""
    n_groups = 0 if groups is None else int(groups.max()) + 1
    if _compiled.enabled() and distances.dtype == np.float64:
        column_groups = np.full(distances.shape[1], -1) if groups is None else groups
        return _block_lists_kernel(
            distances, start, column_groups.astype(np.intp), n_groups, k, leave_one_out
        )
    if leave_one_out:
        rows = np.arange(distances.shape[0])
        distances[rows, rows + start] = np.inf
    lists = []
    for g in range(n_groups + 1):
        left = distances
        if g < n_groups:
            left = distances.copy()
            left[:, groups == g] = np.inf
        lists.append(_nearest_in_order(left, k))
    return np.stack(lists)


@_compiled.kernel
def _block_lists_kernel(distances, start, groups, n_groups, k, leave_one_out):
    """:func:`_block_lists` in one pass over every row: each column enters the k best of
    its own group only (scanned by increasing index, a later column enters only when
    strictly nearer, so ties go to the lowest index); a list that leaves group g out is
    then the merge of the other groups' k best by (distance, index), and the list of all
    the merge of every group's. One comparison per column, where entering every list it
    belongs to took G (yeast's 3 folds: 75 ms a fit, now 26 ms)."""
    n_rows, n = distances.shape
    n_lists = max(n_groups, 1)
    out = np.empty((n_groups + 1, n_rows, k), dtype=np.intp)
    best = np.empty((n_lists, k))
    index = np.empty((n_lists, k), dtype=np.intp)
    filled = np.zeros(n_lists, dtype=np.intp)
    heads = np.zeros(n_lists, dtype=np.intp)
    for r in range(n_rows):
        filled[:] = 0
        for j in range(n):
            if leave_one_out and j == start + r:
                continue
            d = distances[r, j]
            t = groups[j] if n_groups > 0 else 0
            size = filled[t]
            if size == k:
                if not d < best[t, k - 1]:
                    continue
                i = k - 1
            else:
                i = size
                filled[t] = size + 1
            while i > 0 and d < best[t, i - 1]:
                best[t, i] = best[t, i - 1]
                index[t, i] = index[t, i - 1]
                i -= 1
            best[t, i] = d
            index[t, i] = j
        if n_groups == 0:
            out[0, r, :] = index[0, :]
            continue
        for left_out in range(n_groups + 1):  # n_groups: no group left out
            heads[:] = 0
            for i in range(k):
                pick = -1
                for g in range(n_groups):
                    if g == left_out or heads[g] >= filled[g]:
                        continue
                    if pick >= 0:
                        d, nearest = best[g, heads[g]], best[pick, heads[pick]]
                        if d > nearest or (
                            d == nearest and index[g, heads[g]] > index[pick, heads[pick]]
                        ):
                            continue
                    pick = g
                out[left_out, r, i] = index[pick, heads[pick]]
                heads[pick] += 1
    return out


def _nearest_in_order(distances, k):
    """The k smallest of every row, ordered by (distance, index)."""
    chosen = nearest_points(distances, k)  # in increasing index order
    order = np.argsort(np.take_along_axis(distances, chosen, axis=1), axis=1, kind="stable")
    return np.take_along_axis(chosen, order, axis=1)
