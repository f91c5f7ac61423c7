"""The kNN chain step on sparse rows by label vector: few candidates, the same labels.

At a chain step a point's distance is ``base + e`` (Trajdos and Kurzynski, eq. 10), where
the label term ``e`` counts the decided labels the point disagrees with, so it depends only
on the point's label vector. Within the points of one label vector (a *class*) every step
therefore keeps the order of the base distances, and the R nearest points of a step lie
among every class's R nearest by base distance. On text the classes are few (yahoo_arts and
ohsumed members: 110 to 220 label vectors among 530 to 790 points) and most points have no
selected feature, all at one distance from a row; so each (view, row) keeps a short list of
candidates (50 to 100 against 530 to 790 points), and every chain step of the row scans that
list and updates one label term per class instead of one per point. A list is built from
the points the row's features touch and the few others that can still matter: a point the
row does not touch is never nearer than R featureless points of its class with lower
indices, and a class no scanned point enters keeps those, at one distance.
Measured (``benchmarks/bench_knn_chains.py``, 6,000 training rows, kNN-DCE fit and
predict): 2.0x on yahoo_arts, 1.3x on ohsumed; at 2,000 rows 1.1-1.3x and 0.8-0.9x.

Exactness: the candidates are every point that can be among the R nearest by
``(base + e, index)`` at any step, as the reference (:func:`._knn_members._chain_steps`)
ranks them, so labels and shares are equal bit for bit. A point is left out only when R
points of its class are ahead of it at every label term: lower or equal base and lower
index, or a base lower by more than rounding can close (``fl(b + e)`` is monotone in ``b``;
a gap above one ulp of ``b + e_max`` survives the rounding), or when its base exceeds the
R-th smallest of the view plus the largest label term. The tests compare with the reference
on tie-heavy and rounding-heavy inputs.

The kernels write their ordered insertions out in the loops rather than call a helper: a
numba call that updates arrays cost about 45 ns here, 20 times the insertion itself.
"""

from __future__ import annotations

import numpy as np

from .. import _compiled
from ._neighbourhood import add_cross_products, floored_distance

__all__ = ["ClassCandidates"]

#: A base distance lower by more than this share of ``b + e_max + 1`` stays lower after
#: adding any label term (at least 4 ulps of ``b + e_max``).
ROUNDING_GAP = 2.0**-50


class ClassCandidates:
    """Candidate points of every (view, row), and the chain steps over them.

    ``views`` is a :class:`~._knn_members._SparseViews` (rows, points by feature, each view's
    features, allowed points and squared norms), ``view_of_label`` the view of every label,
    ``label_values`` (L, m) the points' labels (bool), ``slack`` the largest label term.
    """

    def __init__(self, views, view_of_label, label_values, n_neighbors, slack):
        self.views, self.view_of_label = views, view_of_label
        self.R, self.slack = int(n_neighbors), float(slack)
        classes, self.point_class = np.unique(label_values.T, axis=0, return_inverse=True)
        self.point_class = self.point_class.ravel().astype(np.intp)
        self.class_labels = np.ascontiguousarray(classes.T)  # (L, n_classes)
        self.label_values = label_values
        feature_ptr, feature_points, _ = views.by_feature
        self.layout = _scan_lists(
            feature_ptr, feature_points, views.restrict, views.features, views.allowed,
            self.point_class, len(classes), self.R,
        )  # fmt: skip

    def labels(self, start, stop, local, orders, extend):
        """The chain steps of the (row, order) pairs of rows ``start:stop``: what
        :func:`._knn_members._chain_steps` returns for them."""
        views = self.views
        rows = views.rows
        offsets, points, distances = _candidates(
            rows.indptr, rows.indices, rows.data, start, stop, *views.by_feature,
            views.restrict, views.features, views.allowed, views.row_norms, views.point_norms,
            *self.layout, self.point_class, self.R, self.slack,
        )  # fmt: skip
        return _class_chain_steps(
            offsets, points, distances, stop - start, self.view_of_label, local, orders,
            self.point_class, self.class_labels, self.label_values, self.R, extend,
        )  # fmt: skip


@_compiled.kernel
def _scan_lists(
    feature_ptr, feature_points, restrict, features, allowed, point_class, n_classes, R
):
    """What a row's pass scans in every view, beside the points its features touch.

    Returns ``(alike, n_alike, pointer, listed)``: each class's R lowest-indexed allowed
    points with no stored entry in the view's features, ``(views, classes * R)`` padded
    with -1, and their number ``(views, classes)`` (all at one distance from any row, so
    the class's other such points never come nearer); and, CSR-like by view, the allowed
    points with a stored entry that a row not touching them must still scan: those without
    R such points of their class before them (the others are never nearer than those).
    """
    n_views, m = allowed.shape
    n_features = len(feature_ptr) - 1
    pointer = np.zeros(n_views + 1, dtype=np.intp)
    listed = np.empty(n_views * m, dtype=np.intp)
    alike = np.full((n_views, n_classes * R), -1, dtype=np.intp)
    n_alike = np.zeros((n_views, n_classes), dtype=np.intp)
    stored = np.zeros(m, dtype=np.bool_)
    size = 0
    for v in range(n_views):
        stored[:] = False
        for f in range(n_features):
            if restrict and not features[v, f]:
                continue
            for kk in range(feature_ptr[f], feature_ptr[f + 1]):
                stored[feature_points[kk]] = True
        for p in range(m):
            c = point_class[p]
            if allowed[v, p] and not stored[p] and n_alike[v, c] < R:
                alike[v, c * R + n_alike[v, c]] = p
                n_alike[v, c] += 1
        for p in range(m):
            c = point_class[p]
            if allowed[v, p] and stored[p] and (n_alike[v, c] < R or alike[v, c * R + R - 1] > p):
                listed[size] = p
                size += 1
        pointer[v + 1] = size
    return alike, n_alike, pointer, listed[:size].copy()


@_compiled.kernel
def _candidates(
    indptr, indices, data, start, stop, feature_ptr, feature_points, feature_values,
    restrict, features, allowed, row_norms, point_norms, alike, n_alike, pointer, listed,
    point_class, R, slack,
):  # fmt: skip
    """The candidate points of rows ``start:stop`` in every view and their base distances:
    ``(offsets, points, distances)``, the list of (view v, row r) at
    ``offsets[v * rows + r] : offsets[v * rows + r + 1]``."""
    n_views, m = point_norms.shape
    n_classes = n_alike.shape[1]
    n_rows = stop - start
    offsets = np.zeros(n_views * n_rows + 1, dtype=np.intp)
    capacity = max(16, n_views * n_rows * min(m, 2 * n_classes * R))
    points = np.empty(capacity, dtype=np.intp)
    distances = np.empty(capacity)
    cross = np.zeros(m)
    touched = np.empty(m, dtype=np.intp)  # the points the row's features touch
    marked = np.zeros(m, dtype=np.bool_)
    pending_p = np.empty(m, dtype=np.intp)  # scanned points that may still be listed
    pending_d = np.empty(m)
    # every class's R best by (distance, index), at c * R; a class no scanned point entered
    # ("clean") keeps its points without a stored entry, at the one distance ``without``
    best_d = np.empty(n_classes * R)
    best_p = np.empty(n_classes * R, dtype=np.intp)
    filled = np.zeros(n_classes, dtype=np.intp)
    dirty = np.zeros(n_classes, dtype=np.bool_)
    dirty_list = np.empty(n_classes, dtype=np.intp)
    smallest = np.empty(R)  # the view's R smallest distances
    size = 0
    for v in range(n_views):
        first, last = pointer[v], pointer[v + 1]
        view_features = features[v]
        view_alike = n_alike[v].sum()
        for r in range(start, stop):
            norm = row_norms[v, r]
            without = floored_distance(norm, 0.0, 0.0)  # the points without a stored entry
            add_cross_products(
                indptr, indices, data, r, feature_ptr, feature_points, feature_values,
                restrict, view_features, cross,
            )  # fmt: skip
            n_touched = 0
            for jj in range(indptr[r], indptr[r + 1]):
                feature = indices[jj]
                if restrict and not view_features[feature]:
                    continue
                for kk in range(feature_ptr[feature], feature_ptr[feature + 1]):
                    p = feature_points[kk]
                    if not marked[p]:
                        marked[p] = True
                        touched[n_touched] = p
                        n_touched += 1
            n_pending = 0
            n_dirty = 0
            for t in range(n_touched + last - first):
                if t < n_touched:
                    p = touched[t]
                    if not allowed[v, p]:
                        continue
                else:
                    p = listed[first + t - n_touched]
                    if marked[p]:
                        continue  # scanned as touched
                d = floored_distance(norm, point_norms[v, p], cross[p])
                c = point_class[p]
                at = c * R
                count = filled[c] if dirty[c] else n_alike[v, c]
                if count == R:  # insert (d, p) into the class's R best
                    q = at + R - 1
                    last_d = best_d[q] if dirty[c] else without
                    last_p = best_p[q] if dirty[c] else alike[v, q]
                    if not (d < last_d or (d == last_d and p < last_p)):
                        if d - last_d <= (d + slack + 1.0) * ROUNDING_GAP:
                            if not dirty[c]:
                                n_dirty = _make_dirty(
                                    c, v, R, without, alike, n_alike, best_d, best_p, filled,
                                    dirty, dirty_list, n_dirty,
                                )  # fmt: skip
                            pending_p[n_pending] = p  # rounding may tie it with them
                            pending_d[n_pending] = d
                            n_pending += 1
                        continue  # else its class's R best (and later ones) stay ahead
                else:
                    q = at + count
                if not dirty[c]:
                    n_dirty = _make_dirty(
                        c, v, R, without, alike, n_alike, best_d, best_p, filled, dirty,
                        dirty_list, n_dirty,
                    )  # fmt: skip
                if count < R:
                    filled[c] = count + 1
                pending_p[n_pending] = p
                pending_d[n_pending] = d
                n_pending += 1
                while q > at and (d < best_d[q - 1] or (d == best_d[q - 1] and p < best_p[q - 1])):
                    best_d[q] = best_d[q - 1]
                    best_p[q] = best_p[q - 1]
                    q -= 1
                best_d[q] = d
                best_p[q] = p
            for t in range(n_touched):
                cross[touched[t]] = 0.0
                marked[touched[t]] = False
            if size + n_pending + 2 * n_classes * R > len(points):  # room for this list
                points = _grown(points, 2 * len(points) + n_pending + 2 * n_classes * R)
                distances = _grown(distances, len(points))
            # the view's R-th smallest distance: the clean classes' at ``without``, and the
            # dirty classes' R best
            n_smallest = 0
            clean = view_alike
            for j in range(n_dirty + 1):
                if j < n_dirty:
                    c = dirty_list[j]
                    clean -= n_alike[v, c]
                    at, count = c * R, filled[c]
                else:  # then the clean classes' points, at ``without``
                    at, count = -1, min(clean, R)
                for q in range(count):
                    d = best_d[at + q] if at >= 0 else without
                    if n_smallest == R:
                        if not d < smallest[R - 1]:
                            continue
                        i = R - 1
                    else:
                        i = n_smallest
                        n_smallest += 1
                    while i > 0 and d < smallest[i - 1]:
                        smallest[i] = smallest[i - 1]
                        i -= 1
                    smallest[i] = d
            bound = smallest[R - 1] + slack if n_smallest == R else np.inf
            for c in range(n_classes):  # every class's R best within the bound
                if dirty[c]:
                    for q in range(c * R, c * R + filled[c]):
                        if best_d[q] <= bound:
                            points[size] = best_p[q]
                            distances[size] = best_d[q]
                            size += 1
                elif without <= bound:
                    for q in range(c * R, c * R + n_alike[v, c]):
                        points[size] = alike[v, q]
                        distances[size] = without
                        size += 1
            # and the points rounding may tie with them: the dirty classes' scanned points
            # and their points without a stored entry that those pushed out of the R best
            n_alike_dirty = n_dirty * R
            for j in range(n_pending + n_alike_dirty):
                if j < n_pending:
                    p, d = pending_p[j], pending_d[j]
                else:
                    q = j - n_pending
                    p, d = alike[v, dirty_list[q // R] * R + q % R], without
                    if p < 0:
                        continue  # no such point
                c = point_class[p]
                q = c * R + R - 1
                if (
                    d > bound
                    or filled[c] < R
                    or not (best_d[q] < d or (best_d[q] == d and best_p[q] < p))
                ):
                    continue  # beyond the view's bound, or among its class's R best
                gap = (d + slack + 1.0) * ROUNDING_GAP
                ahead = 0  # its class's R best that stay ahead of it at every label term
                for i in range(c * R, c * R + R):
                    if (best_d[i] <= d and best_p[i] < p) or d - best_d[i] > gap:
                        ahead += 1
                if ahead < R:
                    points[size] = p
                    distances[size] = d
                    size += 1
            for j in range(n_dirty):
                dirty[dirty_list[j]] = False
            offsets[(v * n_rows) + (r - start) + 1] = size
    return offsets, points[:size], distances[:size]


@_compiled.kernel
def _make_dirty(
    c, v, R, without, alike, n_alike, best_d, best_p, filled, dirty, dirty_list, n_dirty
):
    """Class ``c``'s R best set out from its points without a stored entry, before a
    scanned point enters them; the new number of such ("dirty") classes."""
    dirty[c] = True
    dirty_list[n_dirty] = c
    filled[c] = n_alike[v, c]
    for i in range(c * R, c * R + filled[c]):
        best_d[i] = without
        best_p[i] = alike[v, i]
    return n_dirty + 1


@_compiled.kernel
def _grown(array, capacity):
    out = np.empty(capacity, dtype=array.dtype)
    out[: len(array)] = array
    return out


@_compiled.kernel
def _class_chain_steps(
    offsets, points, distances, n_rows, view_of_label, local, orders, point_class,
    class_labels, label_values, R, extend,
):  # fmt: skip
    """The chain steps of (row, order) pairs over the candidate lists: each step ranks its
    view's candidates by ``(base + e, index)`` and keeps the R first; the label terms are
    counted once per class."""
    n_pairs, n_labels = orders.shape
    n_classes = class_labels.shape[1]
    decided_labels = np.zeros((n_pairs, n_labels), dtype=np.int8)
    voted = np.zeros((n_pairs, n_labels))
    extension = np.zeros(n_classes)
    best = np.empty(R)
    where = np.empty(R, dtype=np.intp)
    for pair in range(n_pairs):
        row = local[pair]
        extension[:] = 0.0
        for step in range(n_labels):
            label = orders[pair, step]
            at = view_of_label[label] * n_rows + row
            size = 0
            for k in range(offsets[at], offsets[at + 1]):
                p = points[k]
                d = distances[k] + extension[point_class[p]]
                if size == R:  # insert (d, p) into the R best by (distance, index)
                    if not (d < best[R - 1] or (d == best[R - 1] and p < where[R - 1])):
                        continue
                    i = R - 1
                else:
                    i = size
                    size += 1
                while i > 0 and (d < best[i - 1] or (d == best[i - 1] and p < where[i - 1])):
                    best[i] = best[i - 1]
                    where[i] = where[i - 1]
                    i -= 1
                best[i] = d
                where[i] = p
            votes = 0
            for i in range(size):
                votes += label_values[label, where[i]]
            count = max(size, 1)
            decided = votes > 0.5 * count
            decided_labels[pair, label] = decided
            voted[pair, label] = votes / count
            if extend and step < n_labels - 1:
                for c in range(n_classes):
                    if class_labels[label, c] != decided:
                        extension[c] += 1.0
    return decided_labels, voted
