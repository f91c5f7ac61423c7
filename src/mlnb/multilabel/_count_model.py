"""ML-kNN's count model (Zhang and Zhou 2007): how many of a row's k nearest training rows
hold each label, their histograms, the smoothed frequencies, and the cross-validated errors
of every k and s.

ML-kNN reads a label's neighbour counts only through histograms: how many rows with the
label, and how many without, have j of their k nearest holding it. Its choice of k and s by
cross-validation needs them for every k of a grid, for every fold's neighbour lists, split
by the fold of the counted rows (a fold's training rows are the other folds' rows):
:func:`count_histograms` gives them all at once, and :func:`fold_errors` the Hamming errors
of every (s, fold, k) from them: a test cell's decision depends only on its label and count.

Two hot loops are compiled (:mod:`mlnb._compiled`), their numpy references kept as the
definition and tested equal. The histograms' reference adds the neighbours' label rows one
column of the lists at a time (an (n, L) array per k) and tallies with ``np.bincount``; the
kernel walks each row's neighbours once, adding only the labels they hold (a row holds a
few of L). The errors' reference builds every (s, fold, k, label, count) log odds; the
kernel decides each cell from the same tables without those arrays. On medical's 3 folds
and 7 values of k, the two took the choice's counting and scoring from about 7 ms of numpy
calls to about 1 ms.
"""

from __future__ import annotations

import numpy as np

from .. import _compiled

__all__ = [
    "count_histograms",
    "count_model",
    "fold_errors",
    "label_counts",
    "log_odds",
    "smoothed_log_odds",
]


def label_counts(Y, neighbours, upto=None):
    """How many of each row's neighbours hold each label, (n, L); with ``upto`` (increasing
    k), the counts among the first k neighbours for every k, one pass over the columns.

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1, 0], [1, 1], [0, 1]])
    >>> label_counts(Y, np.array([[1, 2], [0, 2]])).tolist()
    [[1, 2], [1, 1]]
    """
    counts = np.zeros((neighbours.shape[0], Y.shape[1]), dtype=np.int32)
    found = []
    for j in range(neighbours.shape[1]):  # k passes, no (n, k, L) array
        counts += Y[neighbours[:, j]]
        if upto is not None and j + 1 in upto:
            found.append(counts.copy())
    return counts if upto is None else found


def count_histograms(Y, lists, ks, folds=None):
    """For every neighbour list g, k of ``ks``, label l and count j: how many rows whose
    first k neighbours in list g hold l j times do, and do not, hold l; the rows of fold g
    apart from the others.

    Parameters
    ----------
    Y : ndarray of shape (n, L)
        0/1 labels of the rows (and of the neighbours, which are rows too).
    lists : ndarray of int, shape (G, n, at least max(ks))
        Every row's neighbours in each list, nearest first.
    ks : tuple of int
        Increasing.
    folds : ndarray of int, shape (n,), optional
        The fold of every row, 0 .. G-1 (list g: fold g's rows held out). None: no row
        held out.

    Returns
    -------
    with_l, without_l : ndarrays of float, shape (G, 2, K, L, max(ks) + 1)
        ``[g, 0]``: fold g's rows; ``[g, 1]``: the other rows.

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1], [1], [0]])
    >>> lists = np.array([[[1, 2], [0, 2], [0, 1]]])
    >>> with_l, without_l = count_histograms(Y, lists, (1, 2))
    >>> with_l[0, 1, :, 0].tolist(), without_l[0, 1, :, 0].tolist()
    ([[0.0, 2.0, 0.0], [0.0, 2.0, 0.0]], [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    """
    Y = np.asarray(Y, dtype=np.int8)
    ks = tuple(int(k) for k in ks)
    folds = np.full(len(Y), -1, dtype=np.intp) if folds is None else np.asarray(folds, np.intp)
    if _compiled.enabled():
        rows, labels = np.nonzero(Y)
        starts = np.searchsorted(rows, np.arange(Y.shape[0] + 1))
        tally = _histogram_kernel(Y, starts, labels.astype(np.intp), lists, folds, np.array(ks))
        tally = np.ascontiguousarray(np.swapaxes(tally, 3, 4))  # (2, G, 2, K, L, J)
    else:
        tally = np.stack([_histograms(Y, g_list, folds == g, ks) for g, g_list in enumerate(lists)])
        tally = np.moveaxis(tally, -1, 0).copy()
    return tally[1], tally[0]


def count_model(Y, neighbours, s):
    """ML-kNN's log prior odds (L,) and log likelihood ratios (L, k + 1) from the rows'
    labels and their k nearest other rows, (n, k) (Zhang and Zhou 2007, smoothing s).

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1], [1], [0]])
    >>> prior, ratio = count_model(Y, np.array([[1], [0], [0]]), 1.0)
    >>> round(float(prior[0]), 4), ratio.shape  # log (1 + 2) / (1 + 1)
    (0.4055, (1, 2))
    """
    k = neighbours.shape[1]
    with_l, without_l = count_histograms(Y, neighbours[None], (k,))
    prior, ratio = smoothed_log_odds(with_l[0, 1], without_l[0, 1], (k,), (s,))
    return prior[0], ratio[0, 0]


def smoothed_log_odds(with_l, without_l, ks, ss):
    """ML-kNN's smoothed frequencies (Zhang and Zhou 2007) for every s of ``ss`` and every
    k of ``ks`` at once, from the histograms (..., K, L, max k + 1) of the rows with and
    without each label l whose ``ks[i]`` nearest hold l j times.

    Returns
    -------
    prior : ndarray of shape (S, ..., L)
        ``log P(H1) - log P(H0)``, ``P(H1) = (s + #rows with l) / (2 s + n)``.
    ratio : ndarray of shape (S, ..., K, L, max k + 1)
        ``log P(C = j | H1) - log P(C = j | H0)``, ``P(C = j | H1) = (s + c1[j]) /
        (s (k + 1) + sum(c1))``; entries beyond a k's own k + 1 unused.
    """
    log_s_plus, prior, den_1, den_0 = _smoothing_tables(with_l, without_l, ks, ss)
    log_1 = np.take(log_s_plus, with_l.astype(np.intp), axis=1)
    log_1 -= den_1[..., None]
    log_0 = np.take(log_s_plus, without_l.astype(np.intp), axis=1)
    log_0 -= den_0[..., None]
    return prior, np.subtract(log_1, log_0, out=log_1)


def log_odds(prior, ratio, counts):
    """Rows' log posterior odds from their neighbours' label counts (n, L)."""
    return prior + np.take_along_axis(ratio, counts.T, axis=1).T


def fold_errors(with_l, without_l, ks, ss):
    """The Hamming errors of every (s, fold, k), (S, G, K): fold g's rows decided by the
    model smoothed from the other folds' rows, from :func:`count_histograms` of the folds'
    lists and folds.

    A test row's decision on label l depends only on l and its count j, so the errors are
    the (s, g, k, l, j) decisions weighed by how many of g's rows fall in each (l, j) cell
    with and without l.

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1], [1], [0], [0]])  # folds {0, 1} and {2, 3}: each fold's
    >>> lists = np.array([[[2], [2], [3], [2]], [[1], [0], [0], [1]]])  # out-of-fold nearest
    >>> with_l, without_l = count_histograms(Y, lists, (1,), np.array([0, 0, 1, 1]))
    >>> fold_errors(with_l, without_l, (1,), (1.0,)).tolist()  # each fold's the other's class
    [[[2.0], [2.0]]]
    """
    test_1, test_0, train_1, train_0 = with_l[:, 0], without_l[:, 0], with_l[:, 1], without_l[:, 1]
    if _compiled.enabled():
        tables = _smoothing_tables(train_1, train_0, ks, ss)
        return _errors_kernel(
            *tables, train_1, train_0, test_1, test_0, np.array(ks, dtype=np.intp)
        )
    prior, ratio = smoothed_log_odds(train_1, train_0, ks, ss)
    decided = prior[:, :, None, :, None] + ratio > 0  # (S, G, K, L, J)
    return np.where(decided, test_0, test_1).sum(axis=(3, 4))


def _histograms(Y, neighbours, held_out, ks):
    """One list's tally (2, K, L, J, 2): ``np.bincount`` of the cells (held out or not, k,
    l, j, holds l)."""
    n_labels, width = Y.shape[1], max(ks) + 1
    counts = np.stack(label_counts(Y, neighbours, upto=ks))  # (K, n, L)
    cells = (~held_out)[None, :, None] * len(ks) + np.arange(len(ks))[:, None, None]
    cells = 2 * ((cells * n_labels + np.arange(n_labels)) * width + counts) + Y
    tally = np.bincount(cells.ravel(), minlength=2 * 2 * len(ks) * n_labels * width)
    return tally.reshape(2, len(ks), n_labels, width, 2).astype(float)


@_compiled.kernel
def _histogram_kernel(Y, starts, labels, lists, folds, ks):
    """:func:`_histograms` of every list, shape (2, G, 2, L, K, J) (holds l first; k after
    l, so that a row's tallies for one label are near each other: a quarter faster than
    k before l on medical): each row's neighbours are walked once, adding the labels they
    hold (row r's are ``labels[starts[r]:starts[r + 1]]``), and at each k of ``ks`` a row
    moves from count 0 to its count in the labels met so far; count 0 starts with all the
    rows."""
    n_lists, n, _ = lists.shape
    n_labels, n_ks = Y.shape[1], ks.shape[0]
    width = ks[n_ks - 1] + 1
    tally = np.zeros((2, n_lists, 2, n_labels, n_ks, width))
    for r in range(n):
        for g in range(n_lists):
            side = int(folds[r] != g)
            for label in range(n_labels):
                tally[Y[r, label], g, side, label, 0, 0] += 1.0
    for i in range(1, n_ks):
        tally[:, :, :, :, i, 0] = tally[:, :, :, :, 0, 0]
    count = np.zeros(n_labels, dtype=np.intp)
    met = np.empty(n_labels, dtype=np.intp)
    for g in range(n_lists):
        for r in range(n):
            side, n_met, i = int(folds[r] != g), 0, 0
            for p in range(width - 1):
                neighbour = lists[g, r, p]
                for q in range(starts[neighbour], starts[neighbour + 1]):
                    label = labels[q]
                    if count[label] == 0:
                        met[n_met] = label
                        n_met += 1
                    count[label] += 1
                if p + 1 == ks[i]:
                    for m in range(n_met):
                        label = met[m]
                        holds = Y[r, label]
                        tally[holds, g, side, label, i, 0] -= 1.0
                        tally[holds, g, side, label, i, count[label]] += 1.0
                    i += 1
            for m in range(n_met):
                count[met[m]] = 0
    return tally


def _smoothing_tables(with_l, without_l, ks, ss):
    """What :func:`smoothed_log_odds` reads: ``log(s + c)`` (S, most + 1) for every count
    c (the counts are whole numbers: a table, where a logarithm per cell and s took most
    of the choice), the log prior odds (S, ..., L) and the log denominators
    ``log(s (k + 1) + sum(c))`` of the rows with and without l, (S, ..., K, L)."""
    s = np.asarray(ss, dtype=float)
    positives = with_l[..., 0, :, :].sum(axis=-1).astype(np.intp)  # (..., L)
    negatives = without_l[..., 0, :, :].sum(axis=-1).astype(np.intp)
    most = int(max(positives.max(initial=0), negatives.max(initial=0)))  # >= every cell
    log_s_plus = np.log(s[:, None] + np.arange(most + 1))
    prior = np.take(log_s_plus, positives, axis=1) - np.take(log_s_plus, negatives, axis=1)
    s = s.reshape((-1,) + (1,) * (with_l.ndim - 1))
    k = np.asarray(ks, dtype=float)[:, None]
    den_1 = np.log(s * (k + 1) + with_l.sum(axis=-1))
    den_0 = np.log(s * (k + 1) + without_l.sum(axis=-1))
    return log_s_plus, prior, den_1, den_0


@_compiled.kernel
def _errors_kernel(log_s_plus, prior, den_1, den_0, train_1, train_0, test_1, test_0, ks):
    """:func:`fold_errors`' reference decisions cell by cell, the same operations in the
    same order (so the same decisions), a cell without test rows skipped."""
    n_s, n_folds, n_labels = prior.shape
    wrong = np.zeros((n_s, n_folds, ks.shape[0]))
    for s in range(n_s):
        for g in range(n_folds):
            for i in range(ks.shape[0]):
                for label in range(n_labels):
                    base = prior[s, g, label]
                    for j in range(ks[i] + 1):
                        held, not_held = test_1[g, i, label, j], test_0[g, i, label, j]
                        if held == 0.0 and not_held == 0.0:
                            continue
                        log_1 = log_s_plus[s, int(train_1[g, i, label, j])] - den_1[s, g, i, label]
                        log_0 = log_s_plus[s, int(train_0[g, i, label, j])] - den_0[s, g, i, label]
                        if base + (log_1 - log_0) > 0:
                            wrong[s, g, i] += not_held
                        else:
                            wrong[s, g, i] += held
    return wrong
