"""Correlation-based feature selection (CFS, Hall 1999), for every label at once.

The dynamic chain ensemble of Trajdos and Kurzynski (2017, section 2.5) selects, for each
label separately, the features that correlate with the label and little with each other.
Hall's merit of a subset S of k features is

    merit(S) = sum_{f in S} r_cf / sqrt(k + 2 sum_{f < g in S} r_fg)

(the usual ``k r_cf_mean / sqrt(k + k (k - 1) r_ff_mean)`` written with sums), where
``r_cf`` is the absolute correlation of feature f with the label and ``r_fg`` that of two
features. The search is greedy forward selection that tolerates ``max_stale`` additions
without improvement (Weka's BestFirst default of 5 non-improving expansions, without its
backtracking) and keeps the best subset it met.

Differences from Weka's CfsSubsetEval, which the paper used: Pearson correlation on the
numeric features instead of symmetrical uncertainty on features discretised by MDL, and no
backtracking. Written here because scikit-learn has no CFS.

Two implementations, with the same masks bit for bit:

- the numpy reference (:func:`_correlations`, :func:`_search`), the definition, vectorised
  over the labels whose search is still active: each step is one product
  ``X.T @ (W * X[:, chosen])`` for the features the active labels chose, and a label that
  has stopped costs nothing. Dense X keeps that product over every label: OpenBLAS's
  result for a column depends on the number of columns (gemv for one, small-matrix
  kernels; on SkylakeX 243 of 3,000 random shapes differed in the last bits), so a
  narrower product could break a tie differently.
- :func:`_cfs_kernel`, compiled by numba (:mod:`mlnb._compiled`), for canonical float64
  CSR X, the case of the dynamic chain ensemble on text. Written by hand because the
  reference spends its time in (d x L) temporaries and in products over every row: on
  enron's members (445 rows, 1,001 words, 53 labels, about 26 steps; a chosen word is in
  about 75 rows) the CFS of before took 70 ms a member, the reference 54 ms, the kernel
  7 ms (medical: 40, 21, 1.5 ms; ``benchmarks/bench_nb_dce.py``). The kernel runs one
  label at a time; its products sum only the rows where the chosen word occurs (and its
  sums only the label's kept rows), in scipy's order, so every correlation is the
  reference's bit for bit; labels of equal weights share the sums and products. Each step
  computes the merit (a division and a square root) only for the features that can still
  reach the best merit (a bound by multiplications with a margin for rounding; see
  :func:`_scan`); ties go to the lowest index and a nan wins, as ``np.argmax``.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import scipy.sparse as sp

from .. import _compiled

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
    n_features = X.shape[1]
    limit = n_features if max_features is None else min(n_features, 2 * int(max_features))
    csr = _kernel_input(X, weights) if _compiled.enabled() else None
    if csr is None:
        safe_total, mean, std, label_corr, usable, active = _correlations(X, Y, weights)
        mask = _search(
            X, weights, safe_total, mean, std, label_corr, usable, active, limit, max_stale
        )
    else:
        total = weights.sum(axis=0)  # numpy's sums (pairwise for one label), as the reference
        safe_total = np.where(total > 0, total, 1.0)
        weighted_labels = weights * Y
        label_mean = weighted_labels.sum(axis=0) / safe_total
        index = partial(np.asarray, dtype=np.uint32)  # no wrap-around of negative indices
        mask = _cfs_kernel(
            index(csr.indptr), index(csr.indices), csr.data, n_features,
            np.ascontiguousarray(weights.T), np.ascontiguousarray(weighted_labels.T),
            safe_total, label_mean, limit, max_stale,
        )  # fmt: skip
    return cap_selection(mask, max_features, rng)


def _correlations(X, Y, weights):
    """Every label's weight total, the features' means and standard deviations, their
    absolute correlations with the label, which features have one (usable) and which
    labels can search (active): the reference."""
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
    active = (label_var > 0) & usable.any(axis=0)
    return safe_total, mean, std, label_corr, usable, active


def _search(X, weights, safe_total, mean, std, label_corr, usable, active, limit, max_stale):
    """The greedy search of every label (numpy reference), over the active labels.

    Returns the mask of each label's best subset, shape (L, d).
    """
    n_features, n_labels = label_corr.shape
    sequence = np.full((n_labels, limit), -1, dtype=np.intp)
    chosen = np.zeros((n_labels, n_features), dtype=bool)
    pair_corr = np.zeros((n_features, n_labels))  # sum of |r_fg| over the chosen g, per f
    corr_sum = np.zeros(n_labels)
    pair_sum = np.zeros(n_labels)
    best_merit = np.zeros(n_labels)
    best_size = np.zeros(n_labels, dtype=np.intp)
    stale = np.zeros(n_labels, dtype=np.intp)
    column = np.zeros(n_labels, dtype=np.intp)  # the feature each label added last
    dense_X = None if sp.issparse(X) else X
    for size in range(1, limit + 1):
        labels = np.flatnonzero(active)
        if len(labels) == 0:
            break
        merit = (corr_sum[labels] + label_corr[:, labels]) / np.sqrt(
            size + 2.0 * (pair_sum[labels] + pair_corr[:, labels])
        )
        merit[~usable[:, labels] | chosen[labels].T] = -np.inf
        feature = np.argmax(merit, axis=0)
        gain = merit[feature, np.arange(len(labels))]
        can_grow = np.isfinite(gain)
        improved = can_grow & (gain > best_merit[labels])
        best_merit[labels] = np.where(improved, gain, best_merit[labels])
        best_size[labels] = np.where(improved, size, best_size[labels])
        stale[labels] = np.where(improved, 0, stale[labels] + 1)
        active[labels] = can_grow & (stale[labels] < max_stale)
        grow, feature = labels[can_grow], feature[can_grow]
        sequence[grow, size - 1] = feature
        chosen[grow, feature] = True
        corr_sum[grow] += label_corr[feature, grow]
        pair_sum[grow] += pair_corr[feature, grow]
        column[grow] = feature
        labels = np.flatnonzero(active)
        if len(labels) == 0:
            break
        # correlations of every feature with each active label's new feature, under its
        # weights; dense X: over every label (see the module's notes on BLAS)
        if dense_X is None:
            values = X[:, column[labels]].toarray()  # (n, active): label l's new feature
            second = np.asarray(X.T @ (weights[:, labels] * values)) / safe_total[labels]
        else:
            second = (X.T @ (weights * dense_X[:, column]))[:, labels] / safe_total[labels]
        new_mean, new_std = mean[column[labels], labels], std[column[labels], labels]
        covariance = second - mean[:, labels] * new_mean[None, :]
        correlation = np.zeros_like(covariance)
        std_active = std[:, labels]
        np.divide(
            np.abs(covariance),
            std_active * new_std[None, :],
            out=correlation,
            where=(std_active > 0) & (new_std > 0)[None, :],
        )
        pair_corr[:, labels] += np.minimum(correlation, 1.0)
    mask = np.zeros((n_labels, n_features), dtype=bool)
    for label in np.flatnonzero(best_size):  # a loop over labels, not samples
        mask[label, sequence[label, : best_size[label]]] = True
    return mask


#: Values of X the kernel takes: their squares are finite.
_LARGEST = 2.0**511


def _kernel_input(X, weights):
    """X if the kernel takes it (canonical float64 CSR), else None: the reference runs.

    Dense X keeps BLAS's rounding of its products (see the module's notes); other sparse
    forms would be summed in another order (duplicate entries) or precision (float32);
    non-finite weights or squares of X would make nan of the terms the kernel skips.
    """
    if not sp.issparse(X) or X.format != "csr" or X.dtype != np.float64:
        return None
    if max(X.nnz, *X.shape) >= 2**32:
        return None  # the kernel's indices are 32-bit
    if not np.abs(X.data).max(initial=0.0) < _LARGEST or not np.isfinite(weights).all():
        return None  # the kernel skips terms with a zero factor, as 0 * inf is not 0
    return X if X.has_canonical_format else None


@_compiled.kernel
def _at_least_zero(value):
    """``np.maximum(value, 0.0)``: nan stays nan, -0.0 gives 0.0."""
    return value if value > 0.0 or np.isnan(value) else 0.0


#: Values of products ``X.T @ (w * x_g)`` kept for the labels of equal weights (16 MB).
_CACHE_VALUES = 2**21


@_compiled.kernel
def _cfs_kernel(
    indptr, indices, data, n_features, weights, weighted_labels, safe_total, label_mean,
    limit, max_stale,
):  # fmt: skip
    """:func:`_correlations` and :func:`_search` for canonical CSR X; ``weights`` and
    ``weighted_labels`` (``weights * Y``) transposed, (L, n). The label sums
    (``safe_total``, ``label_mean``) come from numpy. Every float operation is the
    reference's, in its order: the same masks.

    A label's statistics and search are done before the next label's, the labels of a
    group one after another: they share the features' weighted sums and the products of
    their searches. Every product ``X.T @ M`` sums row by row, rows ascending, as scipy
    does, over the rows whose term is not 0 (a label's kept rows, its positive rows for
    the cross products; sums start at +0 and never reach -0). Features that are not usable
    (no spread) have merit -inf in the reference: they neither win its first maximum (a
    search stops when the maximum is not finite) nor are read, so the search runs over the
    usable ones alone.
    """
    n_labels = len(weights)
    column_ptr, column_rows, column_values = _by_column(indptr, indices, data, n_features)
    mask = np.zeros((n_labels, n_features), dtype=np.bool_)
    sequence = np.empty(limit, dtype=np.intp)  # the features a label added, in order
    cross = np.empty(n_features)
    capacity = max(1, min(limit * n_labels, _CACHE_VALUES // max(n_features, 1)))
    cache = (
        np.empty((capacity, n_features)),  # products
        np.full(n_features, -1, dtype=np.intp),  # a feature's row in it, or -1
        np.empty(capacity, dtype=np.intp),  # the feature of each row
        np.zeros(1, dtype=np.intp),  # rows used
    )
    group = _equal_rows(weights)
    binary = (data == 1.0).all()  # x * c is c: the products skip a multiplication
    current = -1
    features = np.empty(0, dtype=np.intp)
    mean = std = np.empty(0)
    for label in _by_group(group):
        total, mean_y = safe_total[label], label_mean[label]
        label_var = _at_least_zero(mean_y * (1 - mean_y))
        if not label_var > 0:
            continue
        if group[label] != current:  # a new group: its usable features, an empty cache
            current = group[label]
            features, mean, std = _moments(
                indptr, indices, data, weights[label], total, cross, binary
            )
            for row in range(cache[3][0]):
                cache[1][cache[2][row]] = -1
            cache[3][0] = 0
        if len(features) == 0:
            continue
        _sums(indptr, indices, data, weighted_labels[label], cross, None)
        label_std = np.sqrt(label_var)
        label_corr = np.empty(len(features))
        for k in range(len(features)):  # np.true_divide: numpy's division (inf, nan on 0)
            association = np.abs(np.true_divide(cross[features[k]], total) - mean[k] * mean_y)
            label_corr[k] = np.minimum(np.true_divide(association, std[k] * label_std), 1.0)
        best_size = _label_search(
            indptr, indices, data, column_ptr, column_rows, column_values, weights[label],
            total, features, mean, std, label_corr, limit, max_stale, cache, binary,
            sequence,
        )  # fmt: skip
        for step in range(best_size):
            mask[label, sequence[step]] = True
    return mask


@_compiled.kernel
def _equal_rows(values):
    """For every row, the first row equal to it (the labels of equal weights)."""
    first = np.arange(len(values))
    for row in range(len(values)):
        for other in range(row):
            if first[other] != other:
                continue
            equal = True
            for j in range(values.shape[1]):
                if values[row, j] != values[other, j]:
                    equal = False
                    break
            if equal:
                first[row] = other
                break
    return first


@_compiled.kernel
def _by_group(group):
    """The labels ordered by group, stably (``group``: a label's first equal label)."""
    start = np.zeros(len(group) + 1, dtype=np.intp)
    for label in range(len(group)):
        start[group[label] + 1] += 1
    for label in range(len(group)):
        start[label + 1] += start[label]
    order = np.empty(len(group), dtype=np.intp)
    for label in range(len(group)):
        order[start[group[label]]] = label
        start[group[label]] += 1
    return order


@_compiled.kernel
def _moments(indptr, indices, data, weights, total, scratch, binary):
    """The usable features under ``weights`` (spread > 0), their means and standard
    deviations, as :func:`_column_moments` (0/1 data: the squares are the values)."""
    if binary:
        _sums(indptr, indices, data, weights, scratch, None)
        square = scratch
    else:
        square = np.empty_like(scratch)
        _sums(indptr, indices, data, weights, scratch, square)
    features = np.empty(len(scratch), dtype=np.intp)
    mean = np.empty(len(scratch))
    std = np.empty(len(scratch))
    n_usable = 0
    for f in range(len(scratch)):
        mean_f = np.true_divide(scratch[f], total)
        std_f = np.sqrt(_at_least_zero(np.true_divide(square[f], total) - mean_f * mean_f))
        if std_f > 0:
            features[n_usable], mean[n_usable], std[n_usable] = f, mean_f, std_f
            n_usable += 1
    return features[:n_usable], mean[:n_usable], std[:n_usable]


@_compiled.kernel
def _sums(indptr, indices, data, weights, sums, squares):
    """``X.T @ weights`` into ``sums`` and (unless None) ``X.multiply(X).T @ weights``
    into ``squares``, summed as scipy does."""
    sums[:] = 0.0
    if squares is not None:
        squares[:] = 0.0
    for row in range(len(indptr) - 1):
        weight = weights[row]
        if weight == 0.0:
            continue
        for jj in range(indptr[row], indptr[row + 1]):
            feature, value = indices[jj], data[jj]
            sums[feature] += value * weight
            if squares is not None:
                squares[feature] += (value * value) * weight


#: ``1 - 2**-49``: with it, ``num * num < (gain * gain * _SAFE) * den`` in floating point
#: proves ``num / sqrt(den) <= gain`` rounded (gain >= _TINY, den >= 1): the roundings of
#: both sides and of the merit move the comparison by at most about 8 * 2**-53.
_SAFE = 1.0 - 2.0**-49
_TINY = 1e-100  # below it gain**2 could lose precision: no feature is skipped


@_compiled.kernel
def _label_search(
    indptr, indices, data, column_ptr, column_rows, column_values, weights, total, features,
    mean, std, label_corr, limit, max_stale, cache, binary, sequence,
):  # fmt: skip
    """One label's search over its usable ``features`` (ascending, with their statistics
    in that order): fills ``sequence`` and returns the best size. ``cache``: the products
    of the searches of labels of the same weights (see :func:`_cfs_kernel`).

    The first maximum of the merits ``num / sqrt(den)`` is found with divisions and square
    roots for the few features that can reach the best merit so far (:func:`_scan`). Once
    a correlation is nan, the merits are all computed, as the reference
    (:func:`_first_maximum`).
    """
    n_usable = len(features)
    scratch = np.empty(len(column_ptr) - 1)
    gathered = np.empty(n_usable)
    pair_corr = np.zeros(n_usable)  # sum of |r_fg| over the chosen g
    chosen = np.zeros(n_usable, dtype=np.bool_)
    has_nan = np.isnan(label_corr).any()
    corr_sum = 0.0
    pair_sum = 0.0
    best_merit = 0.0
    best_size = 0
    stale = 0
    best, gain = -1, -np.inf
    for size in range(1, limit + 1):
        if size == 1 and not has_nan:
            best, gain, has_nan = _scan(corr_sum, label_corr, size, pair_sum, pair_corr, chosen)
        if has_nan:
            best, gain = _first_maximum(corr_sum, label_corr, size, pair_sum, pair_corr, chosen)
        if best < 0 or not np.isfinite(gain):
            break
        if gain > best_merit:
            best_merit = gain
            best_size = size
            stale = 0
        else:
            stale += 1
        feature = features[best]
        sequence[size - 1] = feature
        chosen[best] = True
        corr_sum += label_corr[best]
        pair_sum += pair_corr[best]
        if stale >= max_stale:
            break
        second = _product(
            indptr, indices, data, column_ptr, column_rows, column_values, weights, feature,
            cache, scratch, binary,
        )  # fmt: skip
        # the new feature's correlations (np.true_divide: numpy's division, vectorised)
        new_mean, new_std = mean[best], std[best]
        for k in range(n_usable):  # a gather apart: the loop below vectorises
            gathered[k] = second[features[k]]
        for k in range(n_usable):  # std > 0 on usable features
            covariance = np.true_divide(gathered[k], total) - mean[k] * new_mean
            correlation = np.true_divide(np.abs(covariance), std[k] * new_std)
            pair_corr[k] += np.minimum(correlation, 1.0)
        if not has_nan:
            best, gain, has_nan = _scan(corr_sum, label_corr, size + 1, pair_sum, pair_corr, chosen)
    return best_size


@_compiled.kernel
def _scan(corr_sum, label_corr, size, pair_sum, pair_corr, chosen):
    """The first maximum of the merits of the features not chosen, ``(position, merit,
    False)``, or ``(-1, -inf, True)`` if a merit is nan (then see :func:`_first_maximum`).

    A feature with ``num**2 < bar * den``, ``bar = gain**2 * _SAFE``, in floating point
    has a rounded merit ``num / sqrt(den)`` <= gain (the margin of ``_SAFE`` covers the
    rounding of both sides and of the merit), so it is neither a larger maximum nor an
    earlier one: its merit is not computed.
    """
    best, gain, bar = -1, -np.inf, 0.0  # bar 0: every feature is a candidate
    for k in range(len(label_corr)):
        if chosen[k]:
            continue
        numerator = corr_sum + label_corr[k]
        denominator = size + 2.0 * (pair_sum + pair_corr[k])
        if np.isnan(denominator):
            return -1, -np.inf, True
        if numerator * numerator < bar * denominator:
            continue
        merit = np.true_divide(numerator, np.sqrt(denominator))
        if best < 0 or merit > gain:
            best, gain = k, merit
            bar = gain * gain * _SAFE if gain >= _TINY else 0.0
    return best, gain, False


@_compiled.kernel
def _first_maximum(corr_sum, label_corr, size, pair_sum, pair_corr, chosen):
    """The reference's first maximum of the merits (a nan wins): (position, merit)."""
    merit = np.empty(len(label_corr))
    for k in range(len(label_corr)):
        denominator = np.sqrt(size + 2.0 * (pair_sum + pair_corr[k]))
        merit[k] = -np.inf if chosen[k] else np.true_divide(corr_sum + label_corr[k], denominator)
    best = np.argmax(merit)
    return best, merit[best]


@_compiled.kernel
def _product(
    indptr, indices, data, column_ptr, column_rows, column_values, weights, feature, cache,
    scratch, binary,
):  # fmt: skip
    """``X.T @ (weights * x_feature)`` over the rows where the feature is not 0, or as a
    label of the same weights computed it (``cache``, kept while it has room); 0/1 data
    (``binary``): ``1.0 * c`` is ``c``, not multiplied."""
    products, row_of, feature_of, used = cache
    if row_of[feature] >= 0:
        return products[row_of[feature]]
    second = scratch
    if used[0] < len(feature_of):
        row_of[feature], feature_of[used[0]] = used[0], feature
        second = products[used[0]]
        used[0] += 1
    second[:] = 0.0
    for jj in range(column_ptr[feature], column_ptr[feature + 1]):
        row = column_rows[jj]
        coefficient = weights[row] * column_values[jj]
        if coefficient == 0.0:
            continue
        if binary:
            for kk in range(indptr[row], indptr[row + 1]):
                second[indices[kk]] += coefficient
        else:
            for kk in range(indptr[row], indptr[row + 1]):
                second[indices[kk]] += data[kk] * coefficient
    return second


@_compiled.kernel
def _by_column(indptr, indices, data, n_features):
    """The CSC arrays of a CSR matrix (rows ascending within a column)."""
    column_ptr = np.zeros(n_features + 1, dtype=indptr.dtype)
    for jj in range(len(indices)):
        column_ptr[indices[jj] + 1] += 1
    for f in range(n_features):
        column_ptr[f + 1] += column_ptr[f]
    fill = column_ptr[:-1].copy()
    column_rows = np.empty(len(indices), dtype=indices.dtype)
    column_values = np.empty(len(indices))
    for row in range(len(indptr) - 1):
        for jj in range(indptr[row], indptr[row + 1]):
            at = fill[indices[jj]]
            column_rows[at] = row
            column_values[at] = data[jj]
            fill[indices[jj]] = at + 1
    return column_ptr, column_rows, column_values


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
