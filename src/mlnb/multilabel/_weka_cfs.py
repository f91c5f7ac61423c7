"""Weka's correlation-based feature selection (CfsSubsetEval), for every label.

Trajdos and Kurzynski (2017) select features per label with Weka's CfsSubsetEval (Hall
1999). Beside the merit of :mod:`._feature_selection` (``sum r_cf / sqrt(k + 2 sum r_fg)``),
Weka differs from the Pearson version there in three ways, all reproduced here:

1. Association is symmetrical uncertainty between discrete variables,
   ``SU(A, B) = 2 (H(A) + H(B) - H(A, B)) / (H(A) + H(B))`` (entropies in bits, 0 when
   both are constant). As Weka's ``symmUncertCorr``, an SU within 1e-6 of 0 counts as 0
   with the label but as 1 between two features, and every SU is stored in single
   precision (Weka's correlation matrix is ``float[][]``).
2. Numeric features are first discretised with respect to the label by Fayyad and Irani's
   MDL method (Weka's supervised ``Discretize`` with ``useBetterEncoding``, as
   CfsSubsetEval sets it): the cut minimising the class entropy is kept when

       gain > (log2(number of candidate cuts) + log2(3^k - 2) - k H(S) + k1 H(S1) + k2 H(S2)) / N

   and both sides are split again. A feature left with one interval has SU 0 with
   everything. ``nominal=True`` instead takes every distinct value as its own category
   (Weka's nominal attributes; for 0/1 data the two values).
3. After the search Weka adds "locally predictive" features: in decreasing SU with the
   label, every unselected feature whose SU with the label is at least its SU with each
   feature selected so far (Weka rejects a feature only on a strictly larger SU).

The search is the greedy forward search of :func:`~._feature_selection.cfs_masks` (up to
``max_stale`` additions without a better merit, keeping the best subset met), with
BestFirst's tolerance: a merit counts as better only if it exceeds the best by more than
1e-5. Weka's BestFirst also backtracks to earlier subsets. A label whose features all fall
in one interval (e.g. a constant label) selects none (Weka's locally predictive step would
then add the first attribute).

Written by hand: neither scikit-learn nor scipy has MDL discretisation or CFS. Features
with at most two distinct values (words) are discretised for every label at once from two
products; the others are sorted once and cut per label (their recursion runs only for
features whose first cut is accepted). The search is a loop over labels, because every
label discretises the features on its own rows (undersampling); within a label all work is
vectorised over features.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._feature_selection import cap_selection

__all__ = ["weka_cfs_masks"]

#: ``nominal=True`` refuses features with more distinct values (numeric data, not categories).
_MAX_NOMINAL_VALUES = 64

#: A label's interval indicators up to this size are searched as a dense array.
_DENSE_ENTRIES = 4_000_000
#: Weka's BestFirst (forward) takes a merit as better only when it gains more than this.
_MIN_IMPROVEMENT = 1e-5
#: Weka's ``Utils.eq`` tolerance: an SU closer to 0 is 0 with the label, 1 between features.
_ZERO_SU = 1e-6


def _xlog2x(a):
    a = np.maximum(a, 0.0)
    return np.where(a > 0, a * np.log2(np.where(a > 0, a, 1.0)), 0.0)


def _entropy(counts):
    """Entropy in bits of the class counts along the last axis."""
    total = counts.sum(axis=-1)
    safe = np.where(total > 0, total, 1.0)
    return np.where(total > 0, np.log2(safe) - _xlog2x(counts).sum(axis=-1) / safe, 0.0)


def _mdl_accepts(prior, left, n_cut_points):
    """Fayyad-Irani's test of the cut giving the (…, 2) class counts ``left`` of ``prior``."""
    right = prior - left
    total = prior.sum(axis=-1)
    left_total, right_total = left.sum(axis=-1), right.sum(axis=-1)
    h, h_left, h_right = _entropy(prior), _entropy(left), _entropy(right)
    safe = np.where(total > 0, total, 1.0)
    gain = h - (left_total * h_left + right_total * h_right) / safe
    k, k_left, k_right = ((c > 0).sum(axis=-1) for c in (prior, left, right))
    delta = np.log2(3.0**k - 2) - (k * h - k_left * h_left - k_right * h_right)
    threshold = (np.log2(np.maximum(n_cut_points, 1)) + delta) / safe
    # one class: no gain (Weka's entropies are then exactly 0; ours may be off by rounding,
    # which with a single candidate cut, log2(1) = 0, would accept the cut)
    return (k > 1) & (gain > 0) & (gain > threshold) & (left_total > 0) & (right_total > 0)


def _best_cuts(values, positive, weight):
    """Best entropy cut of every row of sorted ``values`` (g x n): index, class counts.

    Cut ``i`` separates sorted positions ``<= i`` from the rest; only positions where the
    value changes are candidates. Returns the cut index (-1: none), the (g, 2) left counts,
    the (g, 2) prior counts and the number of candidate cuts.
    """
    cum_weight, cum_positive = np.cumsum(weight, axis=1), np.cumsum(positive, axis=1)
    total, total_positive = cum_weight[:, -1:], cum_positive[:, -1:]
    prior = np.concatenate([total - total_positive, total_positive], axis=1)
    safe = np.where(total > 0, total, 1.0)
    candidate = values[:, 1:] > values[:, :-1]
    row, cut = np.nonzero(candidate)  # entropies only where the value changes
    left = np.stack([cum_weight[row, cut] - cum_positive[row, cut], cum_positive[row, cut]], -1)
    right = prior[row] - left
    conditional = np.full(candidate.shape, np.inf)
    conditional[row, cut] = (
        left.sum(-1) * _entropy(left) + right.sum(-1) * _entropy(right)
    ) / safe[row, 0]
    best = np.argmin(conditional, axis=1) if conditional.shape[1] else np.zeros(len(values), int)
    has_cut = candidate.any(axis=1)
    rows = np.arange(len(values))
    best_left = np.stack(
        [cum_weight[rows, best] - cum_positive[rows, best], cum_positive[rows, best]], axis=-1
    )
    return np.where(has_cut, best, -1), best_left, prior, candidate.sum(axis=1)


def _mdl_cuts(values, positive, weight):
    """Fayyad-Irani cut points of one sorted feature (Weka's recursive ``Discretize``)."""
    best, left, prior, n_cuts = (
        a[0] for a in _best_cuts(values[None], positive[None], weight[None])
    )
    if best < 0 or not _mdl_accepts(prior, left, n_cuts):
        return []
    cut = (values[best] + values[best + 1]) / 2.0
    low, high = slice(0, best + 1), slice(best + 1, None)
    lower = _mdl_cuts(values[low], positive[low], weight[low])
    return [*lower, cut, *_mdl_cuts(values[high], positive[high], weight[high])]


def _symmetrical_uncertainty(E, e_starts, T, t_starts, weight):
    """SU between every feature coded in ``E`` and every one coded in ``T`` (F x G).

    A feature is a block of indicator columns (its non-reference categories, starting at
    ``*_starts``); its reference category is every row outside them.
    """
    total = weight.sum()
    if sp.issparse(E):
        joint = (E.T @ sp.csc_matrix(T.multiply(weight[:, None]))).toarray()
    else:
        joint = E.T @ (np.asarray(T.todense() if sp.issparse(T) else T) * weight[:, None])
    row_total = np.asarray(E.T @ weight).ravel()
    column_total = np.asarray(T.T @ weight).ravel()

    def rows(a):
        return np.add.reduceat(a, e_starts, axis=0)

    def columns(a):
        return np.add.reduceat(a, t_starts, axis=1)

    block = rows(columns(joint))  # F x G: joint mass of the non-reference categories
    f_total, g_total = rows(row_total), np.add.reduceat(column_total, t_starts)
    cells = (
        rows(columns(_xlog2x(joint)))
        + rows(_xlog2x(row_total[:, None] - columns(joint)))
        + columns(_xlog2x(column_total[None, :] - rows(joint)))
        + _xlog2x(total - f_total[:, None] - g_total[None, :] + block)
    )
    log_total = np.log2(total)
    h_joint = log_total - cells / total
    h_f = log_total - (rows(_xlog2x(row_total)) + _xlog2x(total - f_total)) / total
    h_g = (
        log_total
        - (np.add.reduceat(_xlog2x(column_total), t_starts) + _xlog2x(total - g_total)) / total
    )
    denominator = h_f[:, None] + h_g[None, :]
    su = np.zeros_like(denominator)
    np.divide(2.0 * (denominator - h_joint), denominator, out=su, where=denominator > 1e-12)
    return np.clip(su, 0.0, 1.0)


def _two_valued(X):
    """Features with at most two distinct values: mask, and the indicator of the value that
    is not the reference (0 if present, else the smaller value), as a CSC matrix."""
    n_rows = X.shape[0]
    if sp.issparse(X):
        X = sp.csc_matrix(X, copy=True)  # eliminate_zeros must not edit the caller's X
        X.eliminate_zeros()
        counts = np.diff(X.indptr)
        has_data = counts > 0
        low = np.full(X.shape[1], np.inf)
        high = np.full(X.shape[1], -np.inf)
        starts = X.indptr[:-1][has_data]
        low[has_data] = np.minimum.reduceat(X.data, starts)
        high[has_data] = np.maximum.reduceat(X.data, starts)
        two = (low == high) & (counts < n_rows)  # 0 and one other value
        indicator = sp.csc_matrix((np.ones_like(X.data), X.indices, X.indptr), shape=X.shape)
        return two, indicator, ~has_data
    X = np.asarray(X)
    low, high = X.min(axis=0), X.max(axis=0)
    two = ((X == low) | (X == high)).all(axis=0) & (low < high)
    reference = np.where((low == 0) | (high != 0), low, high)
    return two, sp.csc_matrix((X != reference) & two), low == high


def _interval_indicators(values, cuts):
    """0/1 columns of the non-reference intervals (reference: holds 0) of every column of
    ``values`` (n x g) cut at ``cuts`` (g lists), as one CSC matrix; and the g block sizes."""
    rows, columns, offset = [], [], 0
    for j, feature_cuts in enumerate(cuts):  # a loop over features, not samples
        codes = np.searchsorted(feature_cuts, values[:, j])
        reference = np.searchsorted(feature_cuts, 0.0)
        hit = np.flatnonzero(codes != reference)
        rows.append(hit)
        columns.append(offset + codes[hit] - (codes[hit] > reference))  # skip the reference
        offset += len(feature_cuts)
    rows, columns = np.concatenate([[], *rows]), np.concatenate([[], *columns])
    matrix = sp.csc_matrix(
        (np.ones(len(rows)), (rows.astype(np.intp), columns.astype(np.intp))),
        shape=(len(values), offset),
    )
    return matrix, np.array([len(c) for c in cuts], dtype=int)


def _general_cuts(values, positive, weight, nominal):
    """Cut points of every sorted row of ``values`` (g x n) that has more than two values."""
    if nominal:
        boundary, middle = values[:, 1:] > values[:, :-1], (values[:, 1:] + values[:, :-1]) / 2.0
        return [list(m[b]) for m, b in zip(middle, boundary, strict=True)]
    best, left, prior, n_cuts = _best_cuts(values, positive, weight)
    accepted = (best >= 0) & _mdl_accepts(prior, left, n_cuts)
    cuts = [[] for _ in range(len(values))]
    for row in np.flatnonzero(accepted):  # a loop over accepted features, not samples
        cuts[row] = _mdl_cuts(values[row], positive[row], weight[row])
    return cuts


def _check_few_values(sorted_X, features):
    """Nominal features are categories: refuse numeric ones (each value a category)."""
    n_values = (np.diff(sorted_X, axis=0) > 0).sum(axis=0) + 1
    if np.any(n_values > _MAX_NOMINAL_VALUES):
        worst = int(np.argmax(n_values))
        raise ValueError(
            f"nominal=True takes every distinct value of a feature as a category, but feature "
            f"{features[worst]} has {n_values[worst]} distinct values (at most "
            f"{_MAX_NOMINAL_VALUES} allowed): discretise numeric features by MDL "
            '(nominal=False, feature_selection="cfs-weka")'
        )


def weka_cfs_masks(X, Y, weights, *, nominal=False, max_features=300, max_stale=5, rng=None):
    """Features selected by Weka's CfsSubsetEval for every label, shape (n_labels, n_features).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
    Y : ndarray of shape (n_samples, n_labels)
        0/1 labels.
    weights : ndarray of shape (n_samples, n_labels)
        Weight of every row in every label's problem (0 drops it, e.g. undersampling).
    nominal : bool, default=False
        Take every distinct value of a feature as a category (Weka's nominal attributes)
        instead of discretising it by MDL (Weka's numeric attributes). A feature with more
        than 64 distinct values is then a ValueError (it is numeric).
    max_features : int or None, default=300
        A larger subset keeps a random ``max_features`` of it (Trajdos and Kurzynski, section 2.5);
        the forward search stops at ``2 * max_features``.
    max_stale : int, default=5
        Additions without a better merit before a label's search stops.
    rng : numpy RandomState, optional
        For the random reduction to ``max_features``.
    """
    X = sp.csc_matrix(X) if sp.issparse(X) else X  # any sparse format; columns are sliced
    Y = np.asarray(Y, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    n_features, n_labels = X.shape[1], Y.shape[1]
    positive = weights * Y
    two, indicator, constant = _two_valued(X)
    # two-valued features: one candidate cut, tested for all labels at once
    with_value = np.asarray(indicator.T @ weights)  # d x L
    with_positive = np.asarray(indicator.T @ positive)
    total, total_positive = weights.sum(axis=0), positive.sum(axis=0)
    both_present = (with_value > 0) & (with_value < total[None, :])
    if nominal:
        two_cut = both_present
    else:
        left = np.stack([with_value - with_positive, with_positive], axis=-1)
        prior = np.broadcast_to(np.stack([total - total_positive, total_positive], -1), left.shape)
        two_cut = both_present & _mdl_accepts(prior, left, 1)
    two_cut &= two[:, None]
    general = np.flatnonzero(~two & ~constant)
    if general.size:
        general_X = X[:, general]
        general_X = general_X.toarray() if sp.issparse(general_X) else np.asarray(general_X)
        order = np.argsort(general_X, axis=0, kind="stable").T  # g x n
        if nominal:
            _check_few_values(np.take_along_axis(general_X, order.T, axis=0), general)
    mask = np.zeros((n_labels, n_features), dtype=bool)
    for label in range(n_labels):  # each label discretises on its own rows (see above)
        if not 0 < total_positive[label] < total[label]:
            continue
        keep = weights[:, label] > 0
        weight = weights[keep, label]
        features = list(np.flatnonzero(two_cut[:, label]))
        blocks, sizes = [indicator[keep][:, features]], [np.ones(len(features), dtype=int)]
        if general.size:
            sorted_rows = order[keep[order]].reshape(general.size, -1)
            values = np.take_along_axis(general_X.T, sorted_rows, axis=1)
            cuts = _general_cuts(
                values, positive[sorted_rows, label], weights[sorted_rows, label], nominal
            )
            cut = [j for j, feature_cuts in enumerate(cuts) if feature_cuts]
            features.extend(general[cut])
            block, block_sizes = _interval_indicators(
                general_X[np.ix_(keep, cut)], [cuts[j] for j in cut]
            )
            blocks.append(block)
            sizes.append(block_sizes)
        if features:
            sizes = np.concatenate(sizes)
            E = sp.hstack(blocks, format="csc")
            by_index = np.argsort(features, kind="stable")  # Weka breaks ties by index
            starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            E = E[:, np.concatenate([np.arange(starts[f], starts[f] + sizes[f]) for f in by_index])]
            features = np.asarray(features)[by_index]
            chosen = _search(E, sizes[by_index], Y[keep, label], weight, max_features, max_stale)
            mask[label, features[chosen]] = True
    return cap_selection(mask, max_features, rng)


def _weka_correlation(su, with_label):
    """SU as CfsSubsetEval keeps it (``symmUncertCorr``, stored in a ``float[][]``).

    An SU within 1e-6 of 0 becomes 0 with the label and 1 between two features (Weka's
    reading: no measurable association between features counts as full redundancy).
    """
    su = np.where(su < _ZERO_SU, 0.0 if with_label else 1.0, su)
    return su.astype(np.float32).astype(np.float64)


def _search(E, sizes, y, weight, max_features, max_stale, block_size=64):
    """Indices (into the features of ``E``) of the features CFS selects for one label.

    ``E`` holds consecutive blocks of ``sizes`` interval indicators, one block per feature.
    """
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    n_live = len(sizes)

    if E.shape[0] * E.shape[1] <= _DENSE_ENTRIES:  # dense products: far less overhead
        E = E.toarray()

    def su_with(features):
        columns = np.concatenate([np.arange(starts[f], starts[f] + sizes[f]) for f in features])
        t_starts = np.concatenate([[0], np.cumsum(sizes[features])[:-1]])
        su = _symmetrical_uncertainty(E, starts, E[:, columns], t_starts, weight)
        return _weka_correlation(su, with_label=False)

    label_su = _symmetrical_uncertainty(
        E, starts, sp.csc_matrix(y[:, None]), np.array([0]), weight
    )[:, 0]
    label_su = _weka_correlation(label_su, with_label=True)
    limit = n_live if max_features is None else min(n_live, 2 * int(max_features))
    chosen = np.zeros(n_live, dtype=bool)
    sequence, pair_su = [], np.zeros(n_live)  # sum of SU with the chosen, per feature
    su_sum = pair_sum = best_merit = 0.0
    best_size = stale = 0
    for size in range(1, limit + 1):
        merit = (su_sum + label_su) / np.sqrt(size + 2.0 * (pair_sum + pair_su))
        merit[chosen] = -np.inf
        feature = int(np.argmax(merit))
        if merit[feature] - best_merit > _MIN_IMPROVEMENT:  # BestFirst's test
            best_merit, best_size, stale = merit[feature], size, 0
        else:
            stale += 1
        sequence.append(feature)
        chosen[feature] = True
        su_sum += label_su[feature]
        pair_sum += pair_su[feature]
        if stale >= max_stale:
            break
        pair_su += su_with([feature])[:, 0]
    selected = np.zeros(n_live, dtype=bool)
    selected[sequence[:best_size]] = True
    # locally predictive features (Weka's default), in decreasing SU with the label
    max_su = np.zeros(n_live)  # largest SU with a selected feature, per feature
    if selected.any():
        max_su = su_with(np.flatnonzero(selected)).max(axis=1)
    candidates = np.flatnonzero(~selected)
    candidates = candidates[np.argsort(-label_su[candidates], kind="stable")]
    for start in range(0, len(candidates), block_size):
        block = candidates[start : start + block_size]
        columns = None
        for i, feature in enumerate(block):  # sequential: each addition raises the bar
            if selected.any() and max_su[feature] > label_su[feature]:  # Weka: ">"
                continue
            selected[feature] = True
            columns = su_with(block) if columns is None else columns
            max_su = np.maximum(max_su, columns[:, i])
    return np.flatnonzero(selected)
