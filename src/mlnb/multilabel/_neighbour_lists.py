"""The k nearest training rows of every row, nearest first, ties to the lowest index.

What ML-kNN and BR-kNN read of the training set: which rows are nearest, in order, so that
the lists of the largest k serve every smaller k (their first k columns). Distances are
the exact squared Euclidean distances of :func:`~._neighbourhood.squared_distances`, in
blocks of rows; a row of the training set itself can leave itself out (leave-one-out, as
ML-kNN counts its training rows' neighbours), by index, so duplicates of it still count.
"""

from __future__ import annotations

import numpy as np

from ._neighbourhood import nearest_points, squared_distances, squared_norms

__all__ = ["nearest_rows"]


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
        if leave_one_out:
            distances[np.arange(stop - start), np.arange(start, stop)] = np.inf
        chosen = nearest_points(distances, k)  # in increasing index order
        order = np.argsort(np.take_along_axis(distances, chosen, axis=1), axis=1, kind="stable")
        out[start:stop] = np.take_along_axis(chosen, order, axis=1)
    return out
