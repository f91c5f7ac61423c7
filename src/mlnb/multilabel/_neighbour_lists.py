"""The k nearest training rows of every row, nearest first, ties to the lowest index.

What ML-kNN and BR-kNN read of the training set: which rows are nearest, in order, so that
the lists of the largest k serve every smaller k (their first k columns). Distances are
the exact squared Euclidean distances of :func:`~._neighbourhood.squared_distances`, in
blocks of rows; a row of the training set itself can leave itself out (leave-one-out, as
ML-kNN counts its training rows' neighbours), by index, so duplicates of it still count.

The choice of the k nearest is compiled (:mod:`mlnb._compiled`): one ordered prefix of a
row's nearest columns serves every list at once (a fold's list skips the fold's rows),
where numpy partitions a masked copy per list; equal lists, tested against the numpy
reference, kept as the definition.
"""

from __future__ import annotations

import numpy as np

from .. import _compiled
from ._neighbourhood import nearest_points, squared_distances, squared_norms

__all__ = ["checked_norms", "nearest_rows", "nearest_rows_by_group"]


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
    norms = checked_norms(points)
    if X is not points:
        checked_norms(X)
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
    norms = checked_norms(X)
    out = np.empty((n_groups + 1, n, k), dtype=np.intp)
    block = max(1, budget // max(n, 1))
    for start in range(0, n, block):
        stop = min(start + block, n)
        distances = squared_distances(X[start:stop], X, norms)
        out[:, start:stop] = _block_lists(distances, start, groups, k, True)
    return out


def checked_norms(X):
    """The squared norms of the rows of ``X``, unless a squared distance among them could
    overflow (a distance is at most 4 times the largest squared norm): infinite distances
    tie, and a row could then be found among its own neighbours."""
    with np.errstate(over="ignore"):  # the error below says it
        norms = squared_norms(X)
        too_far = norms.size and not np.isfinite(4.0 * norms.max())
    if too_far:
        raise ValueError(
            "the rows' squared distances overflow float64 (feature values above about "
            "1e153): rescale X"
        )
    return norms


def _block_lists(distances, start, groups, k, leave_one_out):
    """The lists of a block of rows (row i of the block is row ``start + i``): for every
    group g (``groups`` of the columns, or None for none), the k nearest columns outside g,
    then the k nearest of all; shape (G + 1, rows, k), each ordered by (distance, index).
    Compiled for k up to ``max(64, columns / 16)``: the kernel's prefix is kept by insertion,
    whose cost grows with k squared, and numpy's partitions are faster beyond (2,000
    columns: k = 100, 7.7 ms against 13.5 ms for 300 rows; k = 400, 45 ms against 25 ms)."""
    n_groups = 0 if groups is None else int(groups.max()) + 1
    small_k = k <= max(64, distances.shape[1] // 16)
    if _compiled.enabled() and distances.dtype == np.float64 and small_k:
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
    """:func:`_block_lists` from one ordered prefix per row: the row's ``size`` nearest
    columns by (distance, index), enough that every list finds its k in it (a list that
    leaves group g out takes the prefix's first k outside g; the list of all its first k).

    The prefix is kept by insertion, scanning columns by increasing index (a later column
    enters only when strictly nearer, so ties go to the lowest index), and only the
    columns within ``tau`` enter: a small rank of a fixed sample of the row, about the
    quantile the prefix needs (then, once the prefix is full, its farthest). A prefix too
    short for a list (rare) is rebuilt without ``tau``, longer. Against a k-best list per
    group merged per list, 3 folds' lists of 20 took 22 ms to 13 ms on yeast, 18 to 7 ms on
    enron and 3.3 to 1.4 ms on medical, and a test row's list of 10 among delicious' 12,920
    rows 41 to 30 microseconds: a comparison whose outcome is random costs about 15 ns here,
    and per-group lists and their merges made many; the sample and the prefix make few.
    """
    n_rows, n = distances.shape
    out = np.empty((n_groups + 1, n_rows, k), dtype=np.intp)
    group_of = np.zeros(n, dtype=np.intp)
    largest = 0
    if n_groups > 0:
        sizes = np.zeros(n_groups, dtype=np.intp)
        for j in range(n):
            group_of[j] = groups[j]
            sizes[groups[j]] += 1
        largest = sizes.max()
    pool = n - int(leave_one_out) - largest  # the fewest columns a list chooses from
    wanted = k  # the prefix: k of pool for every list, about, scaled to all columns
    if n_groups > 0:
        wanted = min(n, int(1.2 * k * n / pool) + 4)
    n_sample = min(n, 64)
    step = n // n_sample
    rank = int(1.2 * n_sample * wanted / n) + 3  # tau: the rank-th smallest of the sample
    sample = np.empty(rank)
    prefix = np.empty(n, dtype=np.intp)
    near = np.empty(n)
    counts = np.empty(max(n_groups, 1), dtype=np.intp)
    for r in range(n_rows):
        skip = start + r if leave_one_out else -1
        tau = np.inf
        if rank < n_sample:
            taken = 0
            for c in range(n_sample):
                j = c * step
                if j == skip:
                    continue
                d = distances[r, j]
                if taken == rank:
                    if not d < sample[rank - 1]:
                        continue
                    i = rank - 1
                else:
                    i = taken
                    taken += 1
                while i > 0 and d < sample[i - 1]:
                    sample[i] = sample[i - 1]
                    i -= 1
                sample[i] = d
            if taken == rank:
                tau = sample[rank - 1]
        size = wanted
        while True:
            filled, limit = 0, tau  # once the prefix is full: its farthest
            for j in range(n):
                d = distances[r, j]
                if d > limit or j == skip:
                    continue
                if filled == size:
                    if not d < near[size - 1]:
                        continue
                    i = size - 1
                else:
                    i = filled
                    filled += 1
                while i > 0 and d < near[i - 1]:
                    near[i] = near[i - 1]
                    prefix[i] = prefix[i - 1]
                    i -= 1
                near[i] = d
                prefix[i] = j
                if filled == size:
                    limit = near[size - 1]
            counts[:] = 0
            for c in range(filled):
                counts[group_of[prefix[c]]] += 1
            enough = filled >= k
            for g in range(n_groups):
                enough &= filled - counts[g] >= k
            if enough:
                break
            if tau == np.inf and size >= n:  # every column taken: k too large
                raise ValueError("k exceeds the columns a neighbour list chooses from")
            tau = np.inf
            if filled == size:
                size = min(2 * size, n)
        for left_out in range(n_groups + 1):
            excluded = left_out if left_out < n_groups else -1  # n_groups: none
            f, c = 0, 0
            while f < k:  # branch-free: the prefix's entries outside the group, in order
                out[left_out, r, f] = prefix[c]
                f += group_of[prefix[c]] != excluded
                c += 1
    return out


def _nearest_in_order(distances, k):
    """The k smallest of every row, ordered by (distance, index)."""
    chosen = nearest_points(distances, k)  # in increasing index order
    order = np.argsort(np.take_along_axis(distances, chosen, axis=1), axis=1, kind="stable")
    return np.take_along_axis(chosen, order, axis=1)
