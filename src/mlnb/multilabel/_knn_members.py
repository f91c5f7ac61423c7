"""Nearest-neighbour classifier chains: one loop for many orders and per-label views.

A kNN chain decides label pi(i) of x by the majority of the R training points nearest to x
in the space extended by the labels decided so far (Trajdos and Kurzynski, eqs. 10-11):
``d^2 = base^2 + sum_{l < i} (h_pi(l)(x) - y_pi(l))^2``. Each chain step updates the label
term of every (row, point) pair and takes the R smallest, in blocks of rows. This loop,
:func:`knn_chain_labels`, serves :class:`~mlnb.multilabel.KNNChain`, the kNN members of
:class:`~mlnb.multilabel.DynamicChainEnsemble` and the orders OOCC and the genetic ensemble
score; :func:`choose_neighbours` is the one choice of R.

The ensembles' preprocessing gives each label its own *view*: the points it may use (random
undersampling) and the features its base distance uses (CFS). A row's chain result
depends only on its order, so when many order sets are scored (the orders of every beta of
the local-F1 search), each distinct (row, order) pair is computed once: over beta = 1..10
a row has 1.6 (emotions) to 4 (yeast) distinct orders, not 10.

Sparse rows, compiled, take the exact shortcut of :mod:`._knn_classes`: candidate points
by label vector, the label terms counted once per label vector. Dense rows are pruned to
candidate points where that pays: the label terms add at most the number of labels decided
before the last step to a distance, so a point whose base distance exceeds the R-th
smallest of its view by more than that can never be among a row's R nearest
(:func:`_candidate_points`); on yeast, enron and emotions it keeps 40 to 95 % of the points,
and the chain steps then keep every point (the gathers would cost more than they save).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .. import _compiled
from ._knn_classes import ClassCandidates
from ._neighbourhood import (
    choose_by_folds,
    floored_distance,
    nearest_points,
    sparse_cross_products,
    squared_distances,
    squared_norms,
)

__all__ = [
    "CHAIN_BLOCK",
    "NEIGHBOURS",
    "choose_neighbours",
    "knn_chain_labels",
    "share_log_odds",
    "tiled_orders",
]

#: The values of R the search chooses from.
NEIGHBOURS = (1, 3, 5, 7, 9, 11)

#: Rows per block of :class:`~mlnb.multilabel.KNNChain`'s predictions.
CHAIN_BLOCK = 512


def _views(points, n_labels, keep, masks):
    """(view of every label, list of (points restricted to the view's features, allowed))."""
    everyone = np.ones(points.shape[0], dtype=bool)
    if keep is None and masks is None:
        return np.zeros(n_labels, dtype=int), [(None, everyone)]
    views = []
    for label in range(n_labels):
        columns = None if masks is None else np.flatnonzero(masks[label])
        allowed = everyone if keep is None else np.asarray(keep[:, label], dtype=bool)
        views.append((columns, allowed))
    return np.arange(n_labels), views


def _restricted(matrix, views):
    """``matrix`` restricted to each view's features (sliced once, not once per block)."""
    return [matrix if columns is None else matrix[:, columns] for columns, _ in views]


def _base_distances(view_rows, view_points, views, norms, start, stop):
    """Base squared distances of rows ``start:stop`` to the points in every view, inf where
    not allowed; ``view_rows`` and ``view_points`` as :func:`_restricted` gives them.
    The numpy reference of :func:`_sparse_base_kernel`."""
    n_points = view_points[0].shape[0]
    out = np.empty((len(views), stop - start, n_points))
    for v, (columns, allowed) in enumerate(views):
        if columns is not None and columns.size == 0:
            out[v] = 0.0  # a label with no selected feature: every point at distance 0
        else:
            out[v] = squared_distances(view_rows[v][start:stop], view_points[v], norms[v])
        if not allowed.all():
            out[v] += np.where(allowed, 0.0, np.inf)  # the points not kept: at infinity
    return out


def _view_norms(matrix, views):
    """:func:`~._neighbourhood.squared_norms` of ``matrix`` restricted to each view's
    features, equal bit for bit to the reference's (``squared_norms(matrix[:, columns])``)
    without building the restricted matrices, or None unless ``matrix`` is canonical CSR.

    scipy squares the restricted matrix's stored entries in their order, keeps the
    squares that are not 0, and sums each row's by ``np.add.reduceat`` (pairwise for 8
    values or more): the same arrays are built here and reduced by the same call.
    """
    if getattr(matrix, "format", None) != "csr" or not matrix.has_canonical_format:
        return None
    n_rows = matrix.shape[0]
    squares = matrix.data * matrix.data
    present = squares != 0
    row_of_entry = np.repeat(np.arange(n_rows), np.diff(matrix.indptr))
    norms = []
    for columns, _ in views:
        kept = present
        if columns is not None:
            in_view = np.zeros(matrix.shape[1], dtype=bool)
            in_view[columns] = True
            kept = present & in_view[matrix.indices]
        counts = np.bincount(row_of_entry[kept], minlength=n_rows)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        occupied = np.flatnonzero(counts)
        norm = np.zeros(n_rows)
        if len(occupied):
            norm[occupied] = np.add.reduceat(squares[kept], starts[occupied])
        norms.append(norm)
    return norms


def _view_inputs(X, points, views):
    """What the base distances read: the points' squared norms in every view, and either
    the compiled kernel's inputs (:class:`_SparseViews`) or the rows and points restricted
    to every view (the reference's); ``(norms, sparse_views, view_rows, view_points)``."""
    with np.errstate(over="ignore"):  # an overflow is the clear error below
        if _compiled.enabled() and _sparse_float64(X, points):
            norms, row_norms = _view_norms(points, views), _view_norms(X, views)
            if norms is not None and row_norms is not None:
                _check_no_overflow(X, norms)
                return norms, _SparseViews(X, points, views, row_norms, norms), None, None
        view_points, view_rows = _restricted(points, views), _restricted(X, views)
        norms = [squared_norms(restricted) for restricted in view_points]
        _check_no_overflow(X, norms)
    return norms, None, view_rows, view_points


def _sparse_float64(X, points):
    """Whether :func:`_sparse_base_kernel` takes X and the points: sparse float64."""
    return sp.issparse(X) and sp.issparse(points) and X.dtype == points.dtype == np.float64


def _check_no_overflow(X, point_norms):
    """A clear error where squared distances may overflow (inf - inf: nan neighbours):
    a distance is at most twice the sum of the two squared norms (of the whole rows here,
    a bound for every view)."""
    largest = max((float(norms.max(initial=0.0)) for norms in point_norms), default=0.0)
    largest += float(squared_norms(X).max(initial=0.0))
    if not np.isfinite(2.0 * largest):
        raise ValueError(
            "the squared distances between these rows and the training rows overflow "
            "(values of about 1e154 or more): scale X (e.g. scale=True) before the "
            "nearest-neighbour members compare rows"
        )


class _SparseViews:
    """What :func:`_sparse_base_kernel` reads of sparse rows and points in every view: the
    rows as CSR, the points by feature (CSC), each view's features and allowed points, and
    the squared norms of rows and points in every view, computed as the reference does."""

    def __init__(self, X, points, views, row_norms, point_norms):
        self.rows = X.tocsr()
        columns = points.tocsc()
        self.by_feature = (columns.indptr, columns.indices, columns.data)
        restrict = views[0][0] is not None
        features = np.zeros((len(views), X.shape[1] if restrict else 0), dtype=bool)
        for v, (selected, _) in enumerate(views):
            if restrict:
                features[v, selected] = True
        self.restrict, self.features = restrict, features
        self.allowed = np.stack([allowed for _, allowed in views])
        self.point_norms = np.stack(point_norms)
        self.row_norms = np.stack(row_norms)

    def base_distances(self, start, stop):
        rows = self.rows
        return _sparse_base_kernel(
            rows.indptr, rows.indices, rows.data, start, stop, *self.by_feature,
            self.restrict, self.features, self.allowed, self.row_norms, self.point_norms,
        )  # fmt: skip


@_compiled.kernel
def _sparse_base_kernel(
    indptr, indices, data, start, stop, feature_ptr, feature_points, feature_values,
    restrict, features, allowed, row_norms, point_norms,
):  # fmt: skip
    """:func:`_base_distances` of sparse rows and points, every view in one pass: a view's
    cross products summed in the rows' stored order of features, as scipy's product sums
    them, then ``(|r|^2 + |p|^2) - 2 r.p`` floored at 0, so the distances are equal bit for
    bit without a sparse matrix built per view and block."""
    n_views, n_points = point_norms.shape
    out = np.empty((n_views, stop - start, n_points))
    cross = np.zeros(n_points)
    for v in range(n_views):
        for r in range(start, stop):
            sparse_cross_products(
                indptr, indices, data, r, feature_ptr, feature_points, feature_values,
                restrict, features[v], cross,
            )  # fmt: skip
            norm = row_norms[v, r]
            target = out[v, r - start]
            for p in range(n_points):
                distance = floored_distance(norm, point_norms[v, p], cross[p])
                target[p] = distance if allowed[v, p] else np.inf
    return out


#: Prune only when every row of a block keeps at most this share of the points.
MAX_CANDIDATE_SHARE = 0.25
#: Rows of a block whose candidates are counted first, to give up on pruning cheaply.
PROBE_ROWS = 16


def _candidate_points(base, n_neighbors, slack):
    """The points that can be among a row's ``n_neighbors`` nearest at any chain step.

    ``base`` holds the base squared distances of a block of rows in every view, shape
    (views, rows, m); ``slack`` is the most the label terms can add (the labels decided
    before the last step). A point is a candidate of a row if, in some view, its base
    distance is within ``slack`` of the R-th smallest there (ties at the bound kept).

    Returns ``(index, padding)``, each of shape (rows, C): the candidates' point indices
    in increasing order, padded where a row has fewer than C; or None when some row keeps
    more than :data:`MAX_CANDIDATE_SHARE` of the points.
    """
    _, n_rows, m = base.shape
    if n_rows > PROBE_ROWS and _candidate_points(base[:, :PROBE_ROWS], n_neighbors, slack) is None:
        return None  # a few rows tell, at a fraction of the cost
    R = min(int(n_neighbors), m)
    within = np.zeros((n_rows, m), dtype=bool)
    for view in base:  # a loop over views: one (rows x m) partition each
        bound = np.partition(view, R - 1, axis=1)[:, R - 1] + slack
        within |= view <= bound[:, None]
    counts = within.sum(axis=1)
    width = int(counts.max(initial=0))
    if width > MAX_CANDIDATE_SHARE * m:
        return None
    rows, points = np.nonzero(within)  # by row, then by point
    starts = np.cumsum(counts) - counts
    index = np.zeros((n_rows, width), dtype=np.intp)
    index[rows, np.arange(len(rows)) - np.repeat(starts, counts)] = points
    return index, np.arange(width)[None, :] >= counts[:, None]


def share_log_odds(share, n_neighbors):
    """Label scores of kNN votes: ``log(v + 1) - log(R - v + 1)`` with ``v = share * R``.

    The Laplace-smoothed log-odds of the neighbours' vote: finite, monotone in the share,
    and positive exactly where the majority votes 1.
    """
    votes = share * n_neighbors
    return np.log1p(votes) - np.log1p(n_neighbors - votes)


def tiled_orders(orders, n_samples):
    """Fixed label orders as the (n_orders, n_samples, L) per-instance orders that
    :func:`knn_chain_labels` takes (read-only views, no copies)."""
    return np.stack([np.broadcast_to(order, (n_samples, len(order))) for order in orders])


def _chain_steps(base, view_of_label, local, orders, candidates, label_values, R, extend):
    """The chain steps of a block of (row, order) pairs, in numpy: the reference.

    ``base`` holds the block's base squared distances, shape (views, rows, width), inf at
    points a view does not allow (and at padding); ``local`` the row of every pair in the
    block, ``orders`` its order (pairs, L); ``candidates`` the point index of every column
    of ``base`` per row, or an empty array when the columns are all the points;
    ``label_values`` (L, m) the points' labels. Returns the 0/1 labels of every pair
    (pairs, L) and the share of the valid nearest points holding each label.
    """
    n_pairs, n_labels = orders.shape
    single = base.shape[0] == 1
    if single:
        base = base[0] if n_pairs == base.shape[1] else base[0][local]
    indexed = candidates.size > 0
    decided_labels = np.zeros((n_pairs, n_labels), dtype=np.int8)
    voted = np.zeros((n_pairs, n_labels))
    pairs = np.arange(n_pairs)
    # the label terms: counts of disagreeing decided labels, at most n_labels - 1
    extension = np.zeros((n_pairs, base.shape[-1]), dtype=np.min_scalar_type(n_labels))
    for step in range(n_labels):
        label = orders[:, step]
        distance = base + extension if single else base[view_of_label[label], local] + extension
        nearest = nearest_points(distance, R)
        valid = np.isfinite(np.take_along_axis(distance, nearest, axis=1))
        # (pairs, width): the value of the pair's label at every (candidate) point
        truth = label_values[label[:, None], candidates[local]] if indexed else label_values[label]
        votes = np.take_along_axis(truth, nearest, axis=1) * valid
        count = np.maximum(valid.sum(axis=1), 1)
        decided = votes.sum(axis=1) > 0.5 * count
        decided_labels[pairs, label] = decided
        voted[pairs, label] = votes.sum(axis=1) / count
        if extend and step < n_labels - 1:
            extension += truth != decided[:, None]
    return decided_labels, voted


@_compiled.kernel
def _chain_steps_kernel(base, view_of_label, local, orders, candidates, label_values, R, extend):
    """:func:`_chain_steps` compiled, pair by pair: the R nearest by one pass over the
    points keeping the R smallest (distance, index) in order, so ties go to the lowest index
    as in :func:`~._neighbourhood.nearest_points`; distances are ``base + extension`` in
    float64 as in the reference, so the labels and shares are equal bit for bit."""
    n_pairs, n_labels = orders.shape
    width = base.shape[2]
    indexed = candidates.shape[0] > 0
    decided_labels = np.zeros((n_pairs, n_labels), dtype=np.int8)
    voted = np.zeros((n_pairs, n_labels))
    extension = np.zeros(width)
    best = np.empty(max(R, 1))
    where = np.empty(max(R, 1), dtype=np.intp)
    for pair in range(n_pairs):
        row = local[pair]
        extension[:] = 0.0
        for step in range(n_labels):
            label = orders[pair, step]
            distances = base[view_of_label[label], row]
            size = 0
            for j in range(width):
                d = distances[j] + extension[j]
                if size == R:
                    if not d < best[R - 1]:
                        continue
                    position = R - 1
                else:
                    position = size
                    size += 1
                while position > 0 and best[position - 1] > d:
                    best[position] = best[position - 1]
                    where[position] = where[position - 1]
                    position -= 1
                best[position] = d
                where[position] = j
            votes = 0
            valid = 0
            for i in range(size):
                if np.isfinite(best[i]):
                    valid += 1
                    point = candidates[row, where[i]] if indexed else where[i]
                    votes += label_values[label, point]
            count = max(valid, 1)
            decided = votes > 0.5 * count
            decided_labels[pair, label] = decided
            voted[pair, label] = votes / count
            if extend and step < n_labels - 1:
                for j in range(width):
                    point = candidates[row, j] if indexed else j
                    if label_values[label, point] != decided:
                        extension[j] += 1.0
    return decided_labels, voted


def knn_chain_labels(
    X,
    points,
    point_labels,
    n_neighbors,
    orders,
    *,
    keep=None,
    masks=None,
    extend=True,
    shares=False,
    block=None,
    budget=1 << 24,
):
    """0/1 labels of kNN chains, each row in its own order, for one or many order sets.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
        Rows to label, scaled like ``points``.
    points : ndarray or CSR matrix of shape (m, d)
    point_labels : ndarray of shape (m, L)
    n_neighbors : int
        R.
    orders : ndarray of shape (n, L) or (n_sets, n, L)
        Each row's chain order (per order set).
    keep : ndarray of bool, shape (m, L), optional
        The points that vote on each label (random undersampling).
    masks : ndarray of bool, shape (L, d), optional
        The features each label's base distance uses (feature selection).
    extend : bool, default=True
        False: no label terms, i.e. binary relevance kNN (the order does not matter).
    shares : bool, default=False
        Also return the share of the voting neighbours holding each label.
    block : int or None, default=None
        Rows per block (the result does not depend on it, up to rounding of the
        distances); None: as many as ``budget`` allows.
    budget : int
        Floats per block of work arrays.

    Returns
    -------
    labels : ndarray of int8, shape like ``orders``
    shares : ndarray of float, shape like ``orders`` (only with ``shares=True``)
    """
    orders = np.asarray(orders)
    single = orders.ndim == 2
    orders = orders[None] if single else orders
    n_sets, n, n_labels = orders.shape
    m = points.shape[0]
    label_rows = np.asarray(point_labels, dtype=np.float64).T  # (L, m)
    view_of_label, views = _views(points, n_labels, keep, masks)
    norms, sparse_views, view_rows, view_points = _view_inputs(X, points, views)
    # distinct (row, order) pairs, sorted by row
    keys = np.concatenate(
        [np.broadcast_to(np.arange(n)[None, :, None], (n_sets, n, 1)), orders], axis=2
    ).reshape(n_sets * n, n_labels + 1)
    pairs, inverse = np.unique(keys, axis=0, return_inverse=True)
    pair_row, pair_order = pairs[:, 0], pairs[:, 1:]
    result = np.zeros(pair_order.shape, dtype=np.int8)
    share = np.zeros(pair_order.shape) if shares else None
    per_row = len(pairs) / max(n, 1)
    if block is None:
        block = budget // (m * (len(views) + 2 * per_row))
    block = max(1, int(block))
    R = max(1, min(int(n_neighbors), m))
    label_values = np.ascontiguousarray(np.asarray(point_labels, dtype=bool).T)  # (L, m)
    prune = True  # until a block shows it does not pay
    by_class = None
    if sparse_views is not None and (extend or len(views) > 1):
        by_class = ClassCandidates(
            sparse_views, view_of_label, label_values, R, n_labels - 1 if extend else 0
        )
    for start in range(0, n, block):
        stop = min(start + block, n)
        first, last = np.searchsorted(pair_row, [start, stop])
        local = pair_row[first:last] - start
        if by_class is not None:  # sparse rows: the chain steps over candidates by class
            decided, voted = by_class.labels(start, stop, local, pair_order[first:last], extend)
            result[first:last] = decided
            if shares:
                share[first:last] = voted
            continue
        if sparse_views is None:
            base = _base_distances(view_rows, view_points, views, norms, start, stop)
        else:
            base = sparse_views.base_distances(start, stop)
        if len(views) == 1 and not extend:
            # binary relevance, every label seeing the same points and features: one
            # neighbour search serves every label
            base = base[0] if last - first == stop - start else base[0][local]
            nearest = nearest_points(base, R)
            valid = np.isfinite(np.take_along_axis(base, nearest, axis=1))
            votes = np.zeros((last - first, n_labels))
            for j in range(nearest.shape[1]):
                votes += label_rows[:, nearest[:, j]].T * valid[:, j, None]
            counts = np.maximum(valid.sum(axis=1), 1)[:, None]
            result[first:last] = votes > 0.5 * counts
            if shares:
                share[first:last] = votes / counts
            continue
        pruned = _candidate_points(base, R, n_labels - 1 if extend else 0) if prune else None
        prune = pruned is not None
        candidates = np.empty((0, 0), dtype=np.intp)
        if pruned is not None:  # every step works on the rows' candidate points alone
            index, padding = pruned
            base = np.take_along_axis(base, index[None], axis=2)
            base[:, padding] = np.inf
            candidates = index  # (rows, C)
        steps = _chain_steps_kernel if _compiled.enabled() else _chain_steps
        decided, voted = steps(
            base, view_of_label, local, pair_order[first:last], candidates, label_values, R,
            extend,
        )  # fmt: skip
        result[first:last] = decided
        if shares:
            share[first:last] = voted
    out = result[inverse.ravel()].reshape(orders.shape)
    out = out[0] if single else out
    if not shares:
        return out
    share = share[inverse.ravel()].reshape(orders.shape)
    return out, share[0] if single else share


def choose_neighbours(X, Y, rng, grid=NEIGHBOURS, *, chain_order=None, budget=1 << 24):
    """R, the number of neighbours, from ``grid`` by 3-fold cross-validation on
    example-based F1: how :class:`KNNChain` and the kNN ensembles choose it (Trajdos and
    Kurzynski: "The number of neighbours was ... tuned using 3-fold cross validation").

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
        Rows as the kNN members see them (scaled).
    Y : ndarray of shape (n_samples, n_labels)
    rng : numpy RandomState
        The folds' seed is drawn from it (one draw), so a caller's later draws depend on
        this call as in the estimators.
    grid : sequence of int, default=(1, 3, 5, 7, 9, 11)
    chain_order : array-like of shape (n_labels,) or None, default=None
        None: the cross-validated model is binary relevance kNN, the chain's first step
        (one distance computation per fold serves the whole grid; the ensembles' choice).
        An order: the kNN chain in that order (:class:`KNNChain`'s choice).
    budget : int
        Floats per block of distances.

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.multilabel import choose_neighbours
    >>> rng = np.random.default_rng(0)
    >>> Y = (rng.random((90, 3)) < 0.4).astype(int)
    >>> X = Y @ rng.normal(size=(3, 4)) + rng.normal(scale=0.5, size=(90, 4))
    >>> choose_neighbours(X, Y, np.random.RandomState(0)) in (1, 3, 5, 7, 9, 11)
    True
    """
    Y = np.asarray(Y)

    def fold_labels(train, test):
        if chain_order is None:
            return _binary_relevance_labels(X[train], Y[train], X[test], grid, budget)
        orders = np.tile(chain_order, (len(test), 1))
        return (
            knn_chain_labels(X[test], X[train], Y[train], R, orders, block=CHAIN_BLOCK)
            for R in grid
        )

    return int(choose_by_folds(grid, fold_labels, X, Y, rng, average="samples"))


def _binary_relevance_labels(points, point_labels, X, grid, budget):
    """Binary relevance kNN labels of X for every R of ``grid``: (len(grid), n, L).

    The nearest points of a row are in the order of their distances, ties by index.
    """
    norms = squared_norms(points)
    block = max(1, budget // max(points.shape[0], 1))
    predicted = np.zeros((len(grid), X.shape[0], point_labels.shape[1]), dtype=np.int8)
    for start in range(0, X.shape[0], block):
        distance = squared_distances(X[start : start + block], points, norms)
        order = np.argsort(distance, axis=1, kind="stable")[:, : max(grid)]
        neighbour_labels = point_labels[order]  # (rows, max R, L)
        for i, R in enumerate(grid):
            share = neighbour_labels[:, :R].mean(axis=1)
            predicted[i, start : start + len(order)] = share > 0.5
    return predicted
