"""Each row's k best label scores, as a sparse matrix, computed in chunks of rows.

For a large label space the dense n x L score matrix does not fit in memory (20,000 labels
and 100,000 rows: 16 GB), and a top-k predictor needs only each row's k best scores. The
rows are scored a chunk at a time (``batch_size`` rows, by default a chunk of about
``_CHUNK_BYTES`` whatever L), and of each chunk only the k best scores of every row are
kept, so the work memory is a few chunks whatever the number of rows; the result holds
``n * k`` scores.

*Selection.* :func:`mlnb.metrics.top_k_labels`, the top-k criteria's own: ``np.argpartition``
finds k best labels of every row in linear time, and a row whose k-th best score is shared
by labels left out (a tie at the cut) takes the labels scored above it and fills the places
left with the lowest-indexed labels of that score, so the metrics of the sparse result
equal those of the full dense scores.

*Result.* A ``scipy.sparse.csr_matrix`` of shape (n, L), float64, built directly from its
``(data, indices, indptr)``: a score of exactly 0 is *stored* (an explicit zero), so every
row holds ``min(k, L)`` entries. Its indices are sorted (canonical CSR); the rank of a
label within its row is given by the scores (ties: lower label index first). Arithmetic
that drops zeros (``eliminate_zeros``, sums with other matrices) would drop such a label:
read the scores from ``.data`` and the labels from ``.indices``.

*Chunks.* A chunk's scores are ``decision_function`` of its rows: equal to those of all
rows at once to rounding only (a matrix product may sum in another order for another
number of rows, a difference of an ulp), and, for an estimator whose scores depend on the
batch (a chain's sampled marginals), those of the chunk.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _num_samples

from ..metrics import top_k_labels
from ._resolution import finite_scores

__all__ = ["MODES", "check_k", "rows_per_chunk", "select_top_k", "top_k"]

#: Bytes of one dense chunk of scores (``batch_size=None``): a few MB, so that the chunk
#: and the estimator's temporaries of its size stay small whatever the number of rows.
_CHUNK_BYTES = 8 << 20

#: What :func:`top_k` returns: the scores, or 1 for each selected label.
MODES = ("scores", "labels")


def check_k(k) -> int:
    """``k`` as an int >= 1, else a ValueError that names it."""
    if isinstance(k, bool) or not isinstance(k, Integral) or k < 1:
        raise ValueError(f"k must be an int >= 1, got {k!r}.")
    return int(k)


def rows_per_chunk(n_labels, batch_size=None) -> int:
    """Rows scored at a time: ``batch_size``, or a dense chunk of about ``_CHUNK_BYTES``."""
    if batch_size is None:
        return max(1, _CHUNK_BYTES // (8 * max(1, int(n_labels))))
    if isinstance(batch_size, bool) or not isinstance(batch_size, Integral) or batch_size < 1:
        raise ValueError(f"batch_size must be None or an int >= 1, got {batch_size!r}.")
    return int(batch_size)


def select_top_k(scores, k):
    """Column indices of each row's ``k`` best scores, sorted by index, shape (n, min(k, L)).

    Ties at the cut go to the lower label index (see the module docstring).

    Parameters
    ----------
    scores : ndarray of shape (n_samples, n_labels)
        Real scores without NaN.
    k : int
        Labels per row, >= 1.

    Returns
    -------
    ndarray of int64, shape (n_samples, min(k, n_labels))

    Examples
    --------
    >>> import numpy as np
    >>> select_top_k(np.array([[0.1, 0.7, 0.7, 0.7], [3.0, 1.0, 2.0, 0.0]]), 2)
    array([[1, 2],
           [0, 2]])
    """
    cols = top_k_labels(scores, k)  # best first (mlnb.metrics' selection)
    cols.sort(axis=1)
    return cols.astype(np.int64, copy=False)


def _checked_scores(scores, n_rows, n_labels):
    """A chunk's scores as float64, ``±inf`` bounded (:func:`finite_scores`), else an error."""
    scores = finite_scores(scores)
    if scores.shape != (n_rows, n_labels):
        raise ValueError(
            f"decision_function gave scores of shape {scores.shape} for {n_rows} rows; "
            f"expected ({n_rows}, {n_labels})."
        )
    if np.isnan(scores).any():
        raise ValueError("decision_function gave NaN scores; top-k needs real scores.")
    return scores


def _sliceable(X):
    """X in a form whose rows slice cheaply: CSR for any sparse matrix; else X itself."""
    if sp.issparse(X) and X.format != "csr":
        return X.tocsr()
    if not hasattr(X, "shape") and not hasattr(X, "iloc"):  # a list of rows
        return np.asarray(X)
    return X


def top_k(score, X, k, *, n_labels, mode="scores", batch_size=None):
    """Each row's ``k`` best labels by ``score(X_chunk)``, scored ``batch_size`` rows at a time.

    Parameters
    ----------
    score : callable
        ``score(X_chunk)`` gives the (n_chunk, n_labels) label scores of a chunk of rows
        (an estimator's ``decision_function``); ``±inf`` is bounded at ``±1e300``.
    X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
    k : int
        Labels kept per row (all of them when ``k >= n_labels``).
    n_labels : int
        L, the number of labels (the result's columns).
    mode : {"scores", "labels"}, default="scores"
        The values stored: the labels' scores, or 1 (int64) for each selected label.
    batch_size : int or None, default=None
        Rows scored at a time; None: a dense chunk of a few MB (:func:`rows_per_chunk`).

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_labels)
        ``min(k, n_labels)`` stored entries per row (zeros included), sorted indices.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.5, 0.0, 2.0], [1.0, 1.0, -1.0]])
    >>> top = top_k(lambda rows: rows, X, 2, n_labels=3, batch_size=1)
    >>> top.toarray()
    array([[0.5, 0. , 2. ],
           [1. , 1. , 0. ]])
    >>> top.nnz  # the 0 of the second row is stored: 2 per row
    4
    """
    k = check_k(k)
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}.")
    step = rows_per_chunk(n_labels, batch_size)
    X = _sliceable(X)
    n = _num_samples(X)
    kk = min(k, n_labels)
    indices = np.empty(n * kk, dtype=np.int64)
    data = np.empty(n * kk, dtype=np.float64 if mode == "scores" else np.int64)
    for start in range(0, n, step):
        stop = min(start + step, n)
        S = _checked_scores(score(_safe_indexing(X, slice(start, stop))), stop - start, n_labels)
        cols = select_top_k(S, kk)
        indices[start * kk : stop * kk] = cols.ravel()
        if mode == "scores":
            data[start * kk : stop * kk] = np.take_along_axis(S, cols, axis=1).ravel()
        del S, cols
    if mode == "labels":
        data[:] = 1
    indptr = np.arange(0, n * kk + 1, kk, dtype=np.int64)
    return _csr(data, indices, indptr, (n, n_labels))


def _csr(data, indices, indptr, shape):
    """A CSR matrix of exactly these arrays (explicit zeros kept, indices as sorted)."""
    out = sp.csr_matrix((data, indices, indptr), shape=shape)
    out.has_sorted_indices = True
    return out
