"""Multi-label ranking metrics: criteria of real-valued label scores, not of 0/1 predictions.

Every function takes ``Y_true``, an n x L 0/1 indicator matrix (dense of any integer or
boolean dtype, or scipy sparse; sparse stays sparse, only its non-zeros are visited), and
``scores``, an n x L real array where a higher score means a more likely label (log-odds,
probabilities, decision values).  NaN scores are rejected.  The rank-based criteria
(everything but :func:`log_loss`) depend only on the order of the scores, so ``-inf`` and
``+inf`` are accepted and ranked below and above every finite score; equal scores are
ties.  ``sample_weight`` (non-negative, positive sum) weights the rows.

Definitions: one-error, coverage and ranking loss (Schapire and Singer 2000,
"BoosTexter"), average precision (the same paper; scikit-learn's *label ranking
average precision*), and their survey in Tsoumakas et al. (2010), "Mining multi-label
data".  :func:`coverage_error`, :func:`label_ranking_loss` and
:func:`label_ranking_average_precision_score` equal scikit-learn's functions of the same
name, ties and rows with no (or only) relevant labels included; unlike scikit-learn's,
they also accept infinite scores, a sparse ``Y_true`` in ``coverage_error`` and a single
label column.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import scipy.sparse as sp

from ._counts import _as_indicator, _known_part, unknown_cells
from ._registry import register_metric

__all__ = [
    "average_precision",
    "coverage_error",
    "label_ranking_average_precision_score",
    "label_ranking_loss",
    "log_loss",
    "one_error",
    "roc_auc",
]

_LABEL_AVERAGES = ("macro", "micro")
_EPS = float(np.finfo(np.float64).eps)


# ---------------------------------------------------------------- validation


def _check_scores(Y_true, scores, name="scores"):
    """Validate ``Y_true`` (indicator) and ``scores`` (real, no NaN, same shape); returns
    them and the unknown cells of ``Y_true`` (a dense bool array, or None)."""
    unknown = unknown_cells(Y_true)
    if unknown is not None:
        Y_true = _known_part(Y_true)
        unknown = unknown.toarray() if sp.issparse(unknown) else np.asarray(unknown)
    Y_true = _as_indicator(Y_true, "Y_true")
    if sp.issparse(scores):
        scores = scores.toarray()
    scores = np.asarray(scores)
    if scores.dtype == bool:
        scores = scores.astype(float)
    if scores.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be real-valued, got dtype {scores.dtype}.")
    scores = scores.astype(float, copy=False)
    if scores.shape != Y_true.shape:
        raise ValueError(
            f"Y_true and {name} must have the same shape, got {Y_true.shape} and {scores.shape}."
        )
    if Y_true.shape[0] == 0 or Y_true.shape[1] == 0:
        raise ValueError(f"Y_true and {name} must be non-empty, got shape {Y_true.shape}.")
    if np.isnan(scores).any():
        raise ValueError(f"{name} must not contain NaN.")
    return Y_true, scores, unknown


def _check_weight(sample_weight, n):
    """Return the row weights as a float array (ones when ``None``)."""
    if sample_weight is None:
        return np.ones(n)
    w = np.asarray(sample_weight, dtype=float)
    if w.shape != (n,):
        raise ValueError(f"sample_weight must have shape ({n},), got {w.shape}.")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("sample_weight must be finite and non-negative.")
    if w.sum() <= 0:
        raise ValueError("sample_weight must have a positive sum.")
    return w


def _check_average(average):
    if average not in _LABEL_AVERAGES:
        raise ValueError(f"average must be one of {_LABEL_AVERAGES}, got {average!r}.")


def _codes(scores, unknown=None):
    """Order-preserving integer codes of ``scores`` (ties equal; ``±inf`` become finite);
    with ``unknown`` cells, those get code 0, below every known cell's."""
    codes = np.unique(scores.ravel(), return_inverse=True)[1]
    codes = codes.reshape(scores.shape).astype(np.int64)
    if unknown is None:
        return codes, int(codes.max()) + 1
    return np.where(unknown, 0, codes + 1), int(codes.max()) + 2


def _known_per_row(unknown, shape):
    """The number of known cells of each row (every label without unknown cells)."""
    n, n_labels = shape
    return np.full(n, n_labels) if unknown is None else n_labels - unknown.sum(axis=1)


def _count_at_least(sorted_keys, keys, block_end, cumulative=None):
    """Number (or weight) of ``sorted_keys`` in ``[keys, block_end)``, vectorised.

    ``cumulative`` is ``None`` for counts, else the cumulative weights of ``sorted_keys``
    with a leading 0 (the weight of the first ``m`` keys is ``cumulative[m]``).
    """
    start = np.searchsorted(sorted_keys, keys, side="left")
    if cumulative is None:
        return block_end - start
    return cumulative[block_end] - cumulative[start]


# ---------------------------------------------------------------- per-row ranks


def _relevant_ranks(Y_true, scores, unknown=None):
    """Ranks of the relevant cells within their row (unknown cells below every one).

    Returns ``rows`` (the row of each relevant cell), ``rank`` (labels of the row
    scored at least as high as the cell, itself included), ``relevant_rank`` (relevant
    labels of the row scored at least as high) and ``n_relevant`` per row.
    """
    n, n_labels = scores.shape
    codes, n_codes = _codes(scores, unknown)
    # One key per cell, increasing with the row and, within a row, with the score.
    offset = np.arange(n, dtype=np.int64) * n_codes
    rows, cols = Y_true.nonzero()
    rows = np.asarray(rows, dtype=np.int64)
    keys = offset[rows] + codes[rows, cols]
    all_keys = np.sort((offset[:, None] + codes).ravel())
    rank = _count_at_least(all_keys, keys, (rows + 1) * n_labels)
    n_relevant = np.bincount(rows, minlength=n)
    relevant_rank = _count_at_least(np.sort(keys), keys, np.cumsum(n_relevant)[rows])
    return rows, rank, relevant_rank, n_relevant


def coverage_error(Y_true, scores, *, sample_weight=None):
    """Coverage: how far down the ranking one must go to cover every relevant label.

    Schapire and Singer (2000); scikit-learn's ``coverage_error``, to which it is equal:
    the number of labels scored at least as high as the lowest-scored relevant one
    (ties count in full), i.e. Schapire and Singer's coverage plus 1.  A row with no
    relevant label has coverage 0.  Lower is better; the best value is the mean number
    of relevant labels.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrix.
    scores : array-like of shape (n_samples, n_labels)
        Label scores, higher for more likely labels; ``±inf`` allowed, NaN not.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights.

    Returns
    -------
    float
    """
    Y_true, scores, unknown = _check_scores(Y_true, scores)
    w = _check_weight(sample_weight, scores.shape[0])
    rows, rank, _, _ = _relevant_ranks(Y_true, scores, unknown)
    coverage = np.zeros(scores.shape[0], dtype=np.int64)
    np.maximum.at(coverage, rows, rank)
    return float(np.average(coverage, weights=w))


def label_ranking_loss(Y_true, scores, *, sample_weight=None):
    """Ranking loss: the fraction of (relevant, irrelevant) label pairs ordered wrongly.

    Schapire and Singer (2000); scikit-learn's ``label_ranking_loss``, to which it is
    equal: a pair is wrong when the irrelevant label scores at least as high as the
    relevant one (a tie is a whole error).  A row with no relevant or no irrelevant
    label has loss 0.  Lower is better.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrix.
    scores : array-like of shape (n_samples, n_labels)
        Label scores, higher for more likely labels; ``±inf`` allowed, NaN not.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights.

    Returns
    -------
    float
    """
    Y_true, scores, unknown = _check_scores(Y_true, scores)
    n = scores.shape[0]
    w = _check_weight(sample_weight, n)
    rows, rank, relevant_rank, n_relevant = _relevant_ranks(Y_true, scores, unknown)
    # Irrelevant labels scored at least as high as each relevant one.
    wrong = np.bincount(rows, weights=rank - relevant_rank, minlength=n)
    pairs = n_relevant * (_known_per_row(unknown, scores.shape) - n_relevant)
    loss = np.zeros(n)
    np.divide(wrong, pairs, out=loss, where=pairs > 0)
    return float(np.average(loss, weights=w))


def label_ranking_average_precision_score(Y_true, scores, *, sample_weight=None):
    """Label ranking average precision (LRAP), the *average precision* of ranking.

    Schapire and Singer (2000); Tsoumakas et al. (2010); scikit-learn's
    ``label_ranking_average_precision_score``, to which it is equal: for each relevant
    label, the fraction of relevant labels among those scored at least as high, averaged
    over the row's relevant labels (ties count in full).  A row with no relevant or no
    irrelevant label scores 1.  Higher is better.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrix.
    scores : array-like of shape (n_samples, n_labels)
        Label scores, higher for more likely labels; ``±inf`` allowed, NaN not.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights.

    Returns
    -------
    float
    """
    Y_true, scores, unknown = _check_scores(Y_true, scores)
    n = scores.shape[0]
    w = _check_weight(sample_weight, n)
    rows, rank, relevant_rank, n_relevant = _relevant_ranks(Y_true, scores, unknown)
    total = np.bincount(rows, weights=relevant_rank / rank, minlength=n)
    value = np.ones(n)
    ranked = (n_relevant > 0) & (n_relevant < _known_per_row(unknown, scores.shape))
    np.divide(total, n_relevant, out=value, where=ranked)
    return float(np.average(value, weights=w))


def one_error(Y_true, scores, *, sample_weight=None):
    """One-error: the fraction of rows whose top-scored label is not relevant.

    Schapire and Singer (2000); Tsoumakas et al. (2010).  **Ties**: when several labels
    share the top score, the row's error is the fraction of them that are irrelevant
    (the expected one-error under a random choice among them), so the value does not
    depend on the order of the labels.  **Empty rows**: a row with no relevant label
    always errs (1), as the definition gives; it is not left out of the mean.  Lower is
    better.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrix.
    scores : array-like of shape (n_samples, n_labels)
        Label scores, higher for more likely labels; ``±inf`` allowed, NaN not.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights.

    Returns
    -------
    float
    """
    Y_true, scores, unknown = _check_scores(Y_true, scores)
    n = scores.shape[0]
    w = _check_weight(sample_weight, n)
    codes, _ = _codes(scores, unknown)  # (the top among the known cells)
    top = codes == codes.max(axis=1, keepdims=True)
    n_top = np.count_nonzero(top, axis=1)
    rows, cols = Y_true.nonzero()
    relevant_top = np.bincount(rows, weights=top[rows, cols], minlength=n)
    return float(np.average(1.0 - relevant_top / n_top, weights=w))


# ---------------------------------------------------------------- label-based curves


def _group_counts(Y_true, scores, w, average, unknown=None):
    """Weights above and at the score of every relevant cell, within its group.

    The group of a cell is its label (``"macro"``) or one group of all cells
    (``"micro"``).  Cells are keyed by group and score code and sorted once.  Returns,
    for the relevant cells, their ``group`` and their row weight, then the weight of
    the cells (``ge_all``) and of the relevant cells (``ge_pos``) of the group scored at
    least as high, and of those scored equally (``eq_all``, ``eq_pos``); then the number
    of groups, the total weight of each group and the number of its cells of positive
    weight. Unknown cells weigh nothing.
    """
    n, n_labels = scores.shape
    codes, n_codes = _codes(scores, unknown)
    cell_w = np.repeat(w, n_labels)  # each cell weighs its row's weight; unknown ones 0
    if unknown is not None:
        cell_w = np.where(unknown.ravel(), 0.0, cell_w)
    if average == "macro":
        group = np.broadcast_to(np.arange(n_labels, dtype=np.int64), (n, n_labels))
        n_groups = n_labels
        group_weight = cell_w.reshape(n, n_labels).sum(axis=0)
    else:
        group = np.zeros((n, n_labels), dtype=np.int64)
        n_groups, group_weight = 1, np.array([cell_w.sum()])
    cell_keys = (group * n_codes + codes).ravel()
    order = np.argsort(cell_keys, kind="stable")
    all_keys = cell_keys[order]
    all_cum = np.concatenate(([0.0], np.cumsum(cell_w[order])))
    rows, cols = Y_true.nonzero()
    pos_group = group[rows, cols]
    pos_w = w[rows]
    keys = pos_group * n_codes + codes[rows, cols]
    order = np.argsort(keys, kind="stable")
    pos_keys = keys[order]
    pos_cum = np.concatenate(([0.0], np.cumsum(pos_w[order])))
    # Group g's cells are the keys in [g * n_codes, (g + 1) * n_codes).
    next_group = (pos_group + 1) * n_codes
    all_end = np.searchsorted(all_keys, next_group, side="left")
    pos_end = np.searchsorted(pos_keys, next_group, side="left")
    ge_all = _count_at_least(all_keys, keys, all_end, all_cum)
    ge_pos = _count_at_least(pos_keys, keys, pos_end, pos_cum)
    eq_all = ge_all - _count_at_least(all_keys, keys + 1, all_end, all_cum)
    eq_pos = ge_pos - _count_at_least(pos_keys, keys + 1, pos_end, pos_cum)
    n_weighted = np.bincount(group.ravel(), weights=cell_w > 0, minlength=n_groups)
    return pos_group, pos_w, ge_all, ge_pos, eq_all, eq_pos, n_groups, group_weight, n_weighted


def _average_groups(values, defined, average):
    """Mean of the defined per-label values (macro) or the pooled value (micro); NaN if none."""
    if not np.any(defined):
        return float("nan")
    return float(np.mean(values[defined]))


def roc_auc(Y_true, scores, *, average="macro", sample_weight=None):
    """Area under the ROC curve of the label scores, macro- or micro-averaged.

    The probability that a relevant cell scores higher than an irrelevant one, ties
    counting one half (the Mann-Whitney statistic; Tsoumakas et al. 2010 for the macro
    and micro averages); equal to ``sklearn.metrics.roc_auc_score`` for every label with
    both classes (macro) and on the flattened matrix (micro).  **Constant labels**: with
    ``"macro"``, a label whose column is all 0 or all 1 (in weight) has no AUC and is
    left out of the mean, without a warning (scikit-learn warns and returns NaN); NaN is
    returned when every label is constant (or, with ``"micro"``, when the whole matrix
    is).  Higher is better.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrix.
    scores : array-like of shape (n_samples, n_labels)
        Label scores, higher for more likely labels; ``±inf`` allowed, NaN not.
    average : {"macro", "micro"}, default="macro"
        Mean of the per-label AUCs, or the AUC of all instance-label cells pooled.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights (each weighs all the cells of its row).

    Returns
    -------
    float
    """
    _check_average(average)
    Y_true, scores, unknown = _check_scores(Y_true, scores)
    w = _check_weight(sample_weight, scores.shape[0])
    counts = _group_counts(Y_true, scores, w, average, unknown)
    group, pos_w, ge_all, ge_pos, eq_all, eq_pos, n_groups, group_weight, n_weighted = counts
    pos_weight = np.bincount(group, weights=pos_w, minlength=n_groups)
    # Decide constancy on counts of weighted cells, not on a difference of float sums.
    n_pos = np.bincount(group, weights=pos_w > 0, minlength=n_groups)
    defined = (n_pos > 0) & (n_pos < n_weighted)
    neg_weight = np.where(defined, group_weight - pos_weight, 0.0)
    # Irrelevant weight scored at least as high as each relevant cell, ties halved.
    above = (ge_all - ge_pos) - 0.5 * (eq_all - eq_pos)
    beaten = pos_weight * neg_weight - np.bincount(group, weights=pos_w * above, minlength=n_groups)
    auc = np.full(n_groups, np.nan)
    np.divide(beaten, pos_weight * neg_weight, out=auc, where=defined)
    return _average_groups(auc, defined, average)


def average_precision(Y_true, scores, *, average="macro", sample_weight=None):
    """Average precision of the label scores (area under the precision-recall steps).

    Equal to ``sklearn.metrics.average_precision_score`` for every label with a relevant
    cell (macro) and on the flattened matrix (micro): the mean, over relevant cells, of
    the precision among the cells scored at least as high (ties count in full).  A label
    with no relevant cell has no precision-recall curve: with ``"macro"`` it is left out
    of the mean (scikit-learn warns and counts it as 0), and NaN is returned when no
    label has a relevant cell.  Higher is better.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrix.
    scores : array-like of shape (n_samples, n_labels)
        Label scores, higher for more likely labels; ``±inf`` allowed, NaN not.
    average : {"macro", "micro"}, default="macro"
        Mean of the per-label values, or the value of all instance-label cells pooled.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights (each weighs all the cells of its row).

    Returns
    -------
    float
    """
    _check_average(average)
    Y_true, scores, unknown = _check_scores(Y_true, scores)
    w = _check_weight(sample_weight, scores.shape[0])
    counts = _group_counts(Y_true, scores, w, average, unknown)
    group, pos_w, ge_all, ge_pos, _, _, n_groups, _, _ = counts
    precision = np.zeros_like(ge_all)
    np.divide(ge_pos, ge_all, out=precision, where=ge_all > 0)
    pos_weight = np.bincount(group, weights=pos_w, minlength=n_groups)
    total = np.bincount(group, weights=pos_w * precision, minlength=n_groups)
    defined = pos_weight > 0
    ap = np.full(n_groups, np.nan)
    np.divide(total, pos_weight, out=ap, where=defined)
    return _average_groups(ap, defined, average)


# ---------------------------------------------------------------- probabilities


def log_loss(Y_true, proba, *, eps=_EPS, sample_weight=None):
    """Binary cross-entropy, averaged over all instance-label cells (lower is better).

    ``-mean(y log p + (1 - y) log(1 - p))`` with ``p`` clipped to ``[eps, 1 - eps]``;
    equal to ``sklearn.metrics.log_loss`` of the flattened matrices (whose clipping
    bound is the float64 machine epsilon, the default here).

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        Binary indicator matrix.
    proba : array-like of shape (n_samples, n_labels)
        Probabilities that each label is relevant, in [0, 1] (not log-odds).
    eps : float, default=np.finfo(float).eps
        Clipping bound, in (0, 0.5).
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights (each weighs all the cells of its row).

    Returns
    -------
    float
    """
    if not 0 < eps < 0.5:
        raise ValueError(f"eps must be in (0, 0.5), got {eps!r}.")
    Y_true, proba, unknown = _check_scores(Y_true, proba, name="proba")
    if np.any((proba < 0) | (proba > 1)):
        raise ValueError("proba must contain probabilities in [0, 1].")
    n = proba.shape[0]
    w = _check_weight(sample_weight, n)
    proba = np.clip(proba, eps, 1 - eps)
    # Every cell costs -log(1 - p); a relevant cell costs -log(p) instead; unknown nothing.
    cell_loss = -np.log1p(-proba)
    if unknown is not None:
        cell_loss[unknown] = 0.0
    row_loss = cell_loss.sum(axis=1)
    rows, cols = Y_true.nonzero()
    p = proba[rows, cols]
    row_loss += np.bincount(rows, weights=np.log1p(-p) - np.log(p), minlength=n)
    cells = np.average(_known_per_row(unknown, proba.shape), weights=w)
    return float(np.average(row_loss, weights=w) / cells) if cells else 0.0


# ---- the criteria this module registers in mlnb.metrics.METRICS ---------------------------------
def _criteria():
    """The criteria of label scores: (name, function, greater is better, label)."""
    return [
        ("coverage_error", coverage_error, False, "Coverage"),
        ("label_ranking_loss", label_ranking_loss, False, "Ranking loss"),
        (
            "label_ranking_average_precision_score",
            label_ranking_average_precision_score,
            True,
            "LRAP",
        ),
        ("one_error", one_error, False, "One-error"),
        ("macro_roc_auc", partial(roc_auc, average="macro"), True, "Macro AUC"),
        ("micro_roc_auc", partial(roc_auc, average="micro"), True, "Micro AUC"),
        (
            "macro_average_precision",
            partial(average_precision, average="macro"),
            True,
            "Macro AP",
        ),
        (
            "micro_average_precision",
            partial(average_precision, average="micro"),
            True,
            "Micro AP",
        ),
        ("log_loss", log_loss, False, "Log loss"),
    ]


for _name, _function, _greater, _label in _criteria():
    register_metric(
        _name, _function, greater_is_better=_greater, task="multilabel_scores", label=_label
    )
