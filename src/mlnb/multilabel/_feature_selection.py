"""Correlation-based feature selection (CFS, Hall 1999), for every label at once.

The dynamic chain ensemble of Trajdos and Kurzynski (section 2.5) selects, for each label
separately, the features that correlate with the label and little with each other. Hall's merit of a
subset S of k features is

    merit(S) = sum_{f in S} r_cf / sqrt(k + 2 sum_{f < g in S} r_fg)

(the usual ``k r_cf_mean / sqrt(k + k (k - 1) r_ff_mean)`` written with sums), where
``r_cf`` is the absolute correlation of feature f with the label and ``r_fg`` that of two
features. The search is greedy forward selection that tolerates ``max_stale`` additions
without improvement (Weka's BestFirst default of 5 non-improving expansions, without its
backtracking) and keeps the best subset it met.

Differences from Weka's CfsSubsetEval, which the paper used: Pearson correlation on the
numeric features instead of symmetrical uncertainty on features discretised by MDL, and no
backtracking. Written here because scikit-learn has no CFS; vectorised over labels: each
step is one product ``X.T @ (W * X[:, chosen])`` for the features chosen by all labels.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["cap_selection", "cfs_masks"]


def _column_moments(X, weights):
    """Weighted means and variances of every feature under every label's weights, (d x L)."""
    total = weights.sum(axis=0)
    safe_total = np.where(total > 0, total, 1.0)
    squares = X.multiply(X) if sp.issparse(X) else X * X
    mean = np.asarray(X.T @ weights) / safe_total
    var = np.asarray(squares.T @ weights) / safe_total - mean**2
    return safe_total, mean, np.maximum(var, 0.0)


def cfs_masks(X, Y, weights, *, max_features=300, max_stale=5, rng=None):
    """Features selected by CFS for every label, as a boolean mask of shape (L, d).

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
    Y : ndarray of shape (n_samples, n_labels)
        0/1 labels.
    weights : ndarray of shape (n_samples, n_labels)
        Weight of every row in every label's problem (0 drops the row, e.g. an
        undersampled majority row).
    max_features : int or None, default=300
        A label whose CFS subset is larger keeps a random ``max_features`` of it (Trajdos and
        Kurzynski, section 2.5). The search stops at ``2 * max_features`` features: a subset that
        large is cut to a random ``max_features`` anyway.
    max_stale : int, default=5
        Additions without a better merit before the search of a label stops.
    rng : numpy RandomState, optional
        For the random reduction to ``max_features``.

    Returns
    -------
    mask : ndarray of bool, shape (n_labels, n_features)
        A label that is constant under its weights (no correlation defined) selects nothing.
    """
    if not sp.issparse(X):
        X = X - X.mean(axis=0)  # correlations ignore shifts; centring keeps them accurate
    Y = np.asarray(Y, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    n_features, n_labels = X.shape[1], Y.shape[1]
    safe_total, mean, var = _column_moments(X, weights)
    label_mean = (weights * Y).sum(axis=0) / safe_total
    label_var = np.maximum(label_mean * (1 - label_mean), 0.0)
    std = np.sqrt(var)
    cross = np.asarray(X.T @ (weights * Y)) / safe_total  # E_w[x_f y], (d x L)
    usable = (std > 0) & (label_var > 0)[None, :]
    label_corr = np.zeros((n_features, n_labels))
    np.divide(
        np.abs(cross - mean * label_mean),
        std * np.sqrt(label_var),
        out=label_corr,
        where=usable,
    )
    label_corr = np.minimum(label_corr, 1.0)

    labels = np.arange(n_labels)
    chosen = np.zeros((n_labels, n_features), dtype=bool)
    sequence = []  # feature added at each step, per label (n_labels,)
    pair_corr = np.zeros((n_features, n_labels))  # sum of |r_fg| over the chosen g, per f
    corr_sum = np.zeros(n_labels)
    pair_sum = np.zeros(n_labels)
    best_merit = np.zeros(n_labels)
    best_size = np.zeros(n_labels, dtype=int)
    stale = np.zeros(n_labels, dtype=int)
    active = (label_var > 0) & usable.any(axis=0)
    dense_X = None if sp.issparse(X) else X
    limit = n_features if max_features is None else min(n_features, 2 * int(max_features))
    for size in range(1, limit + 1):
        if not active.any():
            break
        merit = (corr_sum + label_corr) / np.sqrt(size + 2.0 * (pair_sum + pair_corr))
        merit[~usable | chosen.T] = -np.inf
        feature = np.argmax(merit, axis=0)
        gain = merit[feature, labels]
        can_grow = active & np.isfinite(gain)
        improved = can_grow & (gain > best_merit)
        best_merit = np.where(improved, gain, best_merit)
        best_size = np.where(improved, size, best_size)
        stale = np.where(improved, 0, stale + 1)
        active = can_grow & (stale < max_stale)
        feature = np.where(can_grow, feature, -1)
        sequence.append(feature)
        grow = feature >= 0
        chosen[labels[grow], feature[grow]] = True
        column = np.maximum(feature, 0)
        corr_sum += np.where(grow, label_corr[column, labels], 0.0)
        pair_sum += np.where(grow, pair_corr[column, labels], 0.0)
        if not active.any():
            break
        # correlations of every feature with each label's new feature, under its weights
        values = (
            X[:, column].toarray() if dense_X is None else dense_X[:, column]
        )  # (n, L): label l's new feature
        second = np.asarray(X.T @ (weights * values)) / safe_total
        new_mean, new_std = mean[column, labels], std[column, labels]
        covariance = second - mean * new_mean[None, :]
        correlation = np.zeros_like(covariance)
        np.divide(
            np.abs(covariance),
            std * new_std[None, :],
            out=correlation,
            where=(std > 0) & (new_std > 0)[None, :],
        )
        pair_corr += np.where(active[None, :], np.minimum(correlation, 1.0), 0.0)

    mask = np.zeros((n_labels, n_features), dtype=bool)
    for step, feature in enumerate(sequence):  # a loop over search steps, not samples
        keep = (feature >= 0) & (step < best_size)
        mask[labels[keep], feature[keep]] = True
    return cap_selection(mask, max_features, rng)


def cap_selection(mask, max_features, rng=None):
    """Each label's selection cut to a random ``max_features`` of it if larger (Trajdos and
    Kurzynski, section 2.5), in place; ``rng`` defaults to ``RandomState(0)``."""
    if max_features is not None:
        rng = np.random.RandomState(0) if rng is None else rng
        for label in np.flatnonzero(mask.sum(axis=1) > max_features):
            selected = np.flatnonzero(mask[label])
            mask[label] = False
            mask[label, rng.choice(selected, int(max_features), replace=False)] = True
    return mask
