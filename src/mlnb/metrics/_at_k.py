"""Top-k ranking metrics of extreme classification: precision@k, nDCG@k and PSP@k.

The criteria of the Extreme Classification Repository (Bhatia et al.), for label spaces
of thousands to millions of labels, where only the top few scores of a row matter.
``Y_true`` is an n x L 0/1 indicator matrix (dense of any integer or boolean dtype, or
scipy sparse; sparse stays sparse).  ``scores`` is either

- a dense n x L real array, higher = more likely (log-odds, probabilities, decision
  values; ``±inf`` allowed, NaN not), read in chunks of rows with ``np.partition``, so
  the work memory is a few chunks, not a few n x L arrays; or
- a scipy sparse n x L matrix holding only some scores per row, as a top-k predictor
  returns them: every stored entry (explicit zeros included) ranks above every absent
  one, and a row with fewer than ``k`` stored entries leaves its last places empty
  (they count as misses).  Nothing n x L is ever built.

**Ties**: labels of equal score are ranked by label index, the lower index first (a
stable sort of the scores, descending), so a value never depends on chance.

**Definitions** (the repository's, with ``rank_k`` the row's ``k`` best-ranked labels
and ``|y|`` its number of true labels):

- ``P@k = (1/k) sum_{l in rank_k} y_l``: hits over ``k``, also when ``k`` exceeds
  ``|y|`` or the number of labels (a row then cannot score 1);
- ``nDCG@k = DCG@k / IDCG@min(k, |y|)`` with ``DCG@k = sum_{r=1..k} y_(r) / log2(r + 1)``
  and ``IDCG@m = sum_{r=1..m} 1 / log2(r + 1)``; a row with no true label scores 0;
- ``PSP@k`` (Jain, Prabhu and Varma 2016, "Extreme multi-label loss functions for
  recommendation, tagging, ranking and other missing label applications"):
  ``(1/k) sum_{l in rank_k} y_l / p_l`` with the label propensities ``p_l`` of
  :func:`label_propensities`.

Every criterion is the (``sample_weight``-weighted) mean over rows; a row with no true
label counts 0 and is not left out.  Higher is better; all are in [0, 1] (PSP@k when
normalised).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import scipy.sparse as sp

from ._counts import _as_indicator
from ._ranking import _check_weight
from ._registry import register_metric

__all__ = ["label_propensities", "ndcg_at_k", "precision_at_k", "psprecision_at_k", "top_k_labels"]

# Cells of a dense score chunk: a few arrays of this size are alive at once (~8 MB each).
_CHUNK_CELLS = 1 << 20


# ---------------------------------------------------------------- validation


def _check_k(k):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an int >= 1, got {k!r}.")
    return int(k)


def _check_top_scores(Y_true, scores):
    """Validate ``Y_true`` (indicator) and ``scores`` (dense or sparse, real, same shape).

    Dense scores are returned as they are (converted and checked for NaN chunk by chunk
    later); sparse ones as a canonical CSR array of float64.
    """
    Y_true = _as_indicator(Y_true, "Y_true")
    if sp.issparse(scores):
        scores = sp.csr_array(scores)
        if not scores.has_canonical_format:
            scores = scores.copy()
            scores.sum_duplicates()
        values = scores.data
    else:
        scores = np.asarray(scores)
        values = scores
    if values.dtype.kind not in "biuf":
        raise ValueError(f"scores must be real-valued, got dtype {values.dtype}.")
    if scores.shape != Y_true.shape:
        raise ValueError(
            f"Y_true and scores must have the same shape, got {Y_true.shape} and {scores.shape}."
        )
    if Y_true.shape[0] == 0 or Y_true.shape[1] == 0:
        raise ValueError(f"Y_true and scores must be non-empty, got shape {Y_true.shape}.")
    if sp.issparse(scores):
        scores = sp.csr_array(scores, dtype=np.float64)
        if np.isnan(scores.data).any():
            raise ValueError("scores must not contain NaN.")
    return Y_true, scores


# ---------------------------------------------------------------- the top k of every row


def top_k_labels(S, k):
    """Column indices of the ``k`` best labels of each row of dense scores, best first.

    ``np.argpartition`` finds k best labels; in the rows where the k-th best score is
    shared by labels left out, the labels scored above it are kept and the places left
    go to the lowest-indexed labels of that score (the tie rule of every top-k criterion
    here, and of the estimators' ``predict_top_k``).

    Parameters
    ----------
    S : ndarray of shape (n_samples, n_labels)
        Real scores without NaN.
    k : int
        Labels per row, >= 1 (every label, ranked, when ``k`` is at least L).

    Returns
    -------
    ndarray of int, shape (n_samples, min(k, n_labels))

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.metrics import top_k_labels
    >>> top_k_labels(np.array([[0.1, 0.7, 0.7, 0.7], [3.0, 1.0, 2.0, 0.0]]), 2)
    array([[1, 2],
           [0, 2]])
    """
    n_labels = S.shape[1]
    if k >= n_labels:
        return np.argsort(-S, axis=1, kind="stable")
    cols = np.argpartition(S, n_labels - k, axis=1)[:, n_labels - k :]
    top = np.take_along_axis(S, cols, axis=1)
    kth = top.min(axis=1, keepdims=True)
    redo = np.flatnonzero(np.count_nonzero(S == kth, axis=1) > np.count_nonzero(top == kth, axis=1))
    if redo.size:
        R, kth = S[redo], kth[redo]
        above, tied = R > kth, R == kth
        room = k - np.count_nonzero(above, axis=1)
        take = above | (tied & (np.cumsum(tied, axis=1) <= room[:, None]))
        cols[redo] = np.nonzero(take)[1].reshape(redo.size, k)
        top[redo] = np.take_along_axis(R, cols[redo], axis=1)
    order = np.lexsort((cols, -top), axis=1)  # score descending, then label index
    return np.take_along_axis(cols, order, axis=1)


def _top_k(scores, k):
    """``(rows, cols, places)`` of each row's ``k`` best-ranked labels (place 0 = best).

    Dense scores are read ``_CHUNK_CELLS`` cells at a time; sparse ones sorted once by
    (row, score descending, label).  Rows with fewer stored scores give fewer places.
    """
    n, n_labels = scores.shape
    if sp.issparse(scores):
        counts = np.diff(scores.indptr)
        rows = np.repeat(np.arange(n, dtype=np.int64), counts)
        order = np.lexsort((scores.indices, -scores.data, rows))
        places = np.arange(rows.size, dtype=np.int64) - np.repeat(scores.indptr[:-1], counts)
        keep = places < k
        return rows[keep], scores.indices[order][keep].astype(np.int64), places[keep]
    kk = min(k, n_labels)
    step = max(1, _CHUNK_CELLS // n_labels)
    cols = np.empty((n, kk), dtype=np.int64)
    for start in range(0, n, step):
        S = scores[start : start + step].astype(np.float64, copy=False)
        if np.isnan(S).any():
            raise ValueError("scores must not contain NaN.")
        cols[start : start + step] = top_k_labels(S, kk)
    rows = np.repeat(np.arange(n, dtype=np.int64), kk)
    places = np.tile(np.arange(kk, dtype=np.int64), n)
    return rows, cols.ravel(), places


def _is_true(Y_true, rows, cols):
    """``Y_true[rows, cols]`` as a boolean array, without densifying a sparse ``Y_true``."""
    if not sp.issparse(Y_true):
        return Y_true[rows, cols]
    n_labels = Y_true.shape[1]
    if not Y_true.has_sorted_indices:
        Y_true.sort_indices()  # our own copy (see _as_indicator)
    true_rows = np.repeat(np.arange(Y_true.shape[0], dtype=np.int64), np.diff(Y_true.indptr))
    true_keys = true_rows * n_labels + Y_true.indices  # increasing: rows, then labels
    keys = rows * n_labels + cols
    at = np.searchsorted(true_keys, keys)
    found = np.zeros(keys.size, dtype=bool)
    inside = at < true_keys.size
    found[inside] = true_keys[at[inside]] == keys[inside]
    return found


def _hits(Y_true, scores, k):
    """Validated inputs' top-k hits: ``(rows, cols, places)`` of the true labels in them."""
    rows, cols, places = _top_k(scores, k)
    hit = _is_true(Y_true, rows, cols)
    return rows[hit], cols[hit], places[hit]


def _n_true(Y_true):
    if sp.issparse(Y_true):
        return np.diff(Y_true.indptr)
    return np.count_nonzero(Y_true, axis=1)


# ---------------------------------------------------------------- the criteria


def precision_at_k(Y_true, scores, *, k=5, sample_weight=None):
    """Precision at k: the fraction of a row's k best-scored labels that are true.

    ``P@k = (1/k) sum_{l in rank_k} y_l``, averaged over rows (Extreme Classification
    Repository).  The denominator is always ``k``, also when a row has fewer than ``k``
    true labels or ``k`` exceeds the number of labels; a row with no true label scores 0.
    Ties: the lower label index ranks first.  Higher is better.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrix.
    scores : array-like or sparse matrix of shape (n_samples, n_labels)
        Label scores, higher for more likely labels (``±inf`` allowed, NaN not); or a
        sparse matrix of each row's top scores: absent entries rank below every stored
        one, and places beyond a row's stored entries count as misses.
    k : int, default=5
        Number of best-ranked labels per row.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.metrics import precision_at_k
    >>> Y = np.array([[1, 0, 1, 0], [0, 1, 0, 0]])
    >>> scores = np.array([[0.9, 0.1, 0.8, 0.0], [0.2, 0.3, 0.1, 0.7]])
    >>> precision_at_k(Y, scores, k=1), precision_at_k(Y, scores, k=2)
    (0.5, 0.75)
    """
    k = _check_k(k)
    Y_true, scores = _check_top_scores(Y_true, scores)
    n = scores.shape[0]
    w = _check_weight(sample_weight, n)
    rows, _, _ = _hits(Y_true, scores, k)
    return float(np.average(np.bincount(rows, minlength=n) / k, weights=w))


def ndcg_at_k(Y_true, scores, *, k=5, sample_weight=None):
    """Normalised discounted cumulative gain at k of the label ranking.

    ``nDCG@k = DCG@k / IDCG@min(k, |y|)``, with ``DCG@k = sum_{r=1..k} y_(r) / log2(r + 1)``
    over the row's k best-ranked labels and ``IDCG@m`` the DCG of m hits in the first m
    places, averaged over rows (Extreme Classification Repository): 1 when the row's
    true labels (or k of them) fill its first places.  A row with no true label scores
    0.  nDCG@1 equals P@1.  Ties: the lower label index ranks first.  Higher is better.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrix.
    scores : array-like or sparse matrix of shape (n_samples, n_labels)
        Label scores, higher for more likely labels (``±inf`` allowed, NaN not); or a
        sparse matrix of each row's top scores: absent entries rank below every stored
        one, and places beyond a row's stored entries count as misses.
    k : int, default=5
        Number of best-ranked labels per row.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.metrics import ndcg_at_k
    >>> Y = np.array([[0, 1, 0]])
    >>> round(ndcg_at_k(Y, np.array([[0.9, 0.5, 0.1]]), k=2), 4)  # 1 / log2(3)
    0.6309
    """
    k = _check_k(k)
    Y_true, scores = _check_top_scores(Y_true, scores)
    n = scores.shape[0]
    w = _check_weight(sample_weight, n)
    rows, _, places = _hits(Y_true, scores, k)
    dcg = np.bincount(rows, weights=1.0 / np.log2(places + 2.0), minlength=n)
    most = min(k, scores.shape[1])  # hits a row can have
    ideal = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(most) + 2.0))))
    idcg = ideal[np.minimum(_n_true(Y_true), most)]
    value = np.zeros(n)
    np.divide(dcg, idcg, out=value, where=idcg > 0)
    return float(np.average(value, weights=w))


def label_propensities(Y, *, A=0.55, B=1.5):
    """Propensities of the labels, the chance that a relevant label is observed.

    The empirical model of Jain, Prabhu and Varma (2016), fitted on the *training*
    labels: ``p_l = 1 / (1 + C (N_l + B)^(-A))`` with ``C = (ln N - 1)(B + 1)^A``, ``N``
    the number of rows of ``Y`` and ``N_l`` the rows where label ``l`` is on.  Frequent
    labels get propensities near 1, rare ones small ones.  The paper's values: A = 0.55,
    B = 1.5 in general; A = 0.5, B = 0.4 for Wikipedia; A = 0.6, B = 2.6 for Amazon.

    Parameters
    ----------
    Y : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrix of the training labels, at least 3 rows (so that
        ``ln N > 1``).
    A, B : float, default=0.55, 1.5
        Positive parameters of the model.

    Returns
    -------
    ndarray of shape (n_labels,)
        Propensities in (0, 1), increasing with the label's count.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.metrics import label_propensities
    >>> Y = np.array([[1, 0], [1, 0], [1, 1], [0, 0]])
    >>> label_propensities(Y).round(3)
    array([0.782, 0.721])
    """
    for name, value in (("A", A), ("B", B)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
            raise ValueError(f"{name} must be a positive number, got {value!r}.")
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a positive number, got {value!r}.")
    Y = _as_indicator(Y, "Y")
    n, n_labels = Y.shape
    if n < 3:
        raise ValueError(
            f"label_propensities needs Y with at least 3 rows (ln N > 1), got {n} rows."
        )
    if sp.issparse(Y):
        counts = np.bincount(Y.indices, minlength=n_labels)
    else:
        counts = np.count_nonzero(Y, axis=0)
    C = (np.log(n) - 1.0) * (B + 1.0) ** A
    return 1.0 / (1.0 + C * (counts + B) ** (-A))


def _check_propensities(propensities, n_labels):
    p = np.asarray(propensities, dtype=float)
    if p.shape != (n_labels,):
        raise ValueError(
            f"propensities must have shape ({n_labels},), one per label, got {p.shape}; "
            "compute them with label_propensities(Y_train)."
        )
    if not np.all((p > 0) & (p <= 1)):
        raise ValueError("propensities must be in (0, 1]; see label_propensities(Y_train).")
    return p


def psprecision_at_k(Y_true, scores, *, propensities, k=5, normalize=True, sample_weight=None):
    """Propensity-scored precision at k: precision@k that counts rare labels more.

    Jain, Prabhu and Varma (2016): a hit on label ``l`` counts ``1 / p_l``, the inverse
    of its propensity (the chance that a relevant label ``l`` was observed at all), so
    a predictor gains more by finding a tail label than a head one:
    ``PSP@k = (1/k) sum_{l in rank_k} y_l / p_l``, averaged over rows.  With
    ``normalize=True`` (the Extreme Classification Repository's, and pyxclib's,
    convention) the mean is divided by the mean of its best possible value, each row's
    true labels of largest ``1 / p_l`` ranked first, so that it lies in [0, 1].  A row
    with no true label scores 0 (and adds 0 to the normaliser).  NaN is never returned:
    when no row has a true label, the value is 0.  Ties: the lower label index ranks
    first.  Higher is better.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrix (test labels).
    scores : array-like or sparse matrix of shape (n_samples, n_labels)
        Label scores, higher for more likely labels (``±inf`` allowed, NaN not); or a
        sparse matrix of each row's top scores: absent entries rank below every stored
        one, and places beyond a row's stored entries count as misses.
    propensities : array-like of shape (n_labels,)
        Propensity ``p_l`` in (0, 1] of every label, from the *training* labels:
        ``label_propensities(Y_train, A=..., B=...)``.  Required: propensities of the
        test labels themselves would reward a predictor for what it is scored on.
    k : int, default=5
        Number of best-ranked labels per row.
    normalize : bool, default=True
        Divide by the best achievable value (the repository's convention); False gives
        the paper's unnormalised mean, which may exceed 1.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.metrics import label_propensities, psprecision_at_k
    >>> Y_train = np.array([[1, 0, 0], [1, 0, 0], [1, 1, 0], [0, 0, 1]])
    >>> p = label_propensities(Y_train)
    >>> Y, scores = np.array([[1, 1, 0]]), np.array([[0.9, 0.2, 0.1]])
    >>> round(psprecision_at_k(Y, scores, propensities=p, k=1), 3)  # the head label, not the rare
    0.923
    """
    k = _check_k(k)
    if not isinstance(normalize, (bool, np.bool_)):
        raise ValueError(f"normalize must be True or False, got {normalize!r}.")
    Y_true, scores = _check_top_scores(Y_true, scores)
    n, n_labels = scores.shape
    inverse = 1.0 / _check_propensities(propensities, n_labels)
    w = _check_weight(sample_weight, n)
    rows, cols, _ = _hits(Y_true, scores, k)
    value = np.average(np.bincount(rows, weights=inverse[cols], minlength=n) / k, weights=w)
    if not normalize:
        return float(value)
    # The best ranking puts the row's true labels of largest 1 / p_l first.
    true_rows, true_cols = Y_true.nonzero()
    true_rows = np.asarray(true_rows, dtype=np.int64)
    gain = inverse[true_cols]
    order = np.lexsort((-gain, true_rows))
    first = np.searchsorted(true_rows[order], np.arange(n))  # rows are sorted in `order`
    places = np.arange(order.size) - first[true_rows[order]]
    best_rows, best_gain = true_rows[order], gain[order]
    keep = places < k
    best = np.bincount(best_rows[keep], weights=best_gain[keep], minlength=n) / k
    best = np.average(best, weights=w)
    return float(value / best) if best > 0 else 0.0


# ---- the criteria this module registers in mlnb.metrics.METRICS ---------------------------------
def _criteria():
    """The top-k criteria of label scores: (name, function, label); all greater is better.

    PSP@k is not registered: it needs the training labels' propensities, which a
    registered ``function(Y_true, scores)`` is not given.
    """
    out = []
    for k in (1, 3, 5):
        out.append((f"precision_at_{k}", partial(precision_at_k, k=k), f"P@{k}"))
    for k in (1, 3, 5):
        out.append((f"ndcg_at_{k}", partial(ndcg_at_k, k=k), f"nDCG@{k}"))
    return out


for _name, _function, _label in _criteria():
    register_metric(
        _name, _function, greater_is_better=True, task="multilabel_scores", label=_label
    )
