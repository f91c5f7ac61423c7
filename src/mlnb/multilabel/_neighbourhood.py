"""Validation splits, feature scaling and distances of the order-choosing methods.

Shared by the dynamic chains, the kNN chains, OOCC and the genetic ensemble (Trajdos and Kurzynski):
each keeps a validation part of the training set and measures Euclidean distances on
features divided by their standard deviation (the paper standardises; centring does not
change distances, so sparse data stay sparse). A missing entry (NaN, with
``missing="ignore"``) is taken at its feature's mean over the validation rows, for the
distances only (:func:`fill_missing`). Their hyper-parameters (the width beta of
the local-F1 order, the number R of neighbours) are chosen by :func:`choose_by_folds`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import KFold

from .. import _compiled
from ..metrics import f1_score
from ..missing import split_missing

__all__ = [
    "choose_by_folds",
    "divide_columns",
    "feature_scale",
    "fill_missing",
    "nearest_points",
    "squared_distances",
    "squared_norms",
    "three_folds",
    "validation_mask",
]


def validation_mask(n_samples, fraction, rng):
    """A boolean mask of ``round(fraction * n)`` (at least 1) random validation rows."""
    mask = np.zeros(n_samples, dtype=bool)
    if fraction > 0:
        mask[rng.choice(n_samples, max(1, round(fraction * n_samples)), replace=False)] = True
    return mask


def choose_by_folds(grid, fold_labels, X, Y, rng, *, average=None, folds=None, score=None):
    """The value of ``grid`` whose labels score the best over 3 cross-validation folds.

    ``fold_labels(train, test)`` (row indices) returns, or yields in turn, the 0/1 labels
    of the ``test`` rows for every value of ``grid``, from a model fitted on the ``train``
    rows; their score is summed over the folds: ``score(Y_test, labels)`` (higher is
    better), by default F1 with ``average`` ("samples", "macro", ...). The folds are
    :func:`three_folds` of ``rng`` (drawn before ``fold_labels`` is called, which may draw
    from ``rng`` itself), or ``folds`` when given. Ties go to the earlier value.
    """
    folds = three_folds(X, rng) if folds is None else folds
    if score is None:

        def score(truth, labels):
            return f1_score(truth, labels, average=average)

    scores = np.zeros(len(grid))
    for train, test in folds:
        for i, labels in enumerate(fold_labels(train, test)):
            scores[i] += score(Y[test], labels)
    return grid[int(np.argmax(scores))]


def three_folds(X, rng):
    """The (train, test) row indices of 3 shuffled folds, seeded by one draw from ``rng``."""
    return list(KFold(3, shuffle=True, random_state=rng.randint(2**31 - 1)).split(X))


def feature_scale(X):
    """Standard deviation of every feature over its observed entries (1 where it is 0)."""
    X, missing = split_missing(X)
    observed = X.shape[0] - (0 if missing is None else np.asarray(missing.sum(axis=0)).ravel())
    observed = np.maximum(observed, 1)
    squares = X.multiply(X) if sp.issparse(X) else X * X
    mean = np.asarray(X.sum(axis=0)).ravel() / observed
    variance = np.asarray(squares.sum(axis=0)).ravel() / observed - mean**2
    std = np.sqrt(np.maximum(variance, 0.0))
    return np.where(std > 0, std, 1.0)


def fill_missing(X, reference):
    """X and ``reference`` with each missing entry (NaN) at its feature's mean over the
    observed entries of ``reference`` (0 if none): the distances of the order search then
    compare observed values only on the features a row has."""
    filled_reference, reference_missing = split_missing(reference)
    filled, missing = split_missing(X)
    if missing is None and reference_missing is None:
        return X, reference
    n_rows = reference.shape[0]
    absent = 0 if reference_missing is None else np.asarray(reference_missing.sum(axis=0)).ravel()
    observed = n_rows - absent
    mean = np.asarray(filled_reference.sum(axis=0)).ravel() / np.maximum(observed, 1)
    return _at_means(filled, missing, mean), _at_means(filled_reference, reference_missing, mean)


def _at_means(X, missing, mean):
    """X (missing entries at 0) with the entries of ``missing`` set to the column means."""
    if missing is None:
        return X
    return (
        X + sp.csr_matrix(missing.multiply(mean[None, :]))
        if sp.issparse(X)
        else (X + np.asarray(missing.multiply(mean[None, :]).todense()))
    )


def divide_columns(X, scale):
    """X with every column divided by ``scale`` (sparse stays sparse)."""
    if sp.issparse(X):
        return sp.csr_matrix(X.multiply(1.0 / scale[None, :]))
    return X / scale


def squared_norms(X):
    """Squared Euclidean norm of every row."""
    return np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X) else (X * X).sum(1)


def squared_distances(rows, points, point_norms=None):
    """Squared Euclidean distances between rows and points, shape (n_rows, n_points).

    ``|r|^2 + |p|^2 - 2 r.p``, floored at 0. For CSR rows and points of float64, with
    :mod:`mlnb._compiled` on, a numba kernel sums each cross product in the row's stored
    order of features, as scipy's sparse product does, so the distances are equal bit for
    bit without the sparse product's result built and densified.
    """
    if point_norms is None:
        point_norms = squared_norms(points)
    same_width = rows.shape[1] == points.shape[1] and len(point_norms) == points.shape[0]
    if _compiled.enabled() and same_width and _plain_csr(rows) and _plain_csr(points):
        by_feature = points.tocsc()  # what scipy's product reads of points.T
        return _sparse_distances_kernel(
            rows.indptr, rows.indices, rows.data,
            by_feature.indptr, by_feature.indices, by_feature.data,
            squared_norms(rows), np.asarray(point_norms, dtype=np.float64),
        )  # fmt: skip
    cross = rows @ points.T
    cross = cross.toarray() if sp.issparse(cross) else np.array(cross, dtype=np.float64)
    cross *= 2.0  # |r|^2 + |p|^2 - 2 r.p in two arrays, rounded as written
    distances = squared_norms(rows)[:, None] + point_norms
    distances -= cross
    return np.maximum(distances, 0.0, out=distances)


def _plain_csr(matrix):
    return sp.issparse(matrix) and matrix.format == "csr" and matrix.dtype == np.float64


@_compiled.kernel
def _sparse_distances_kernel(
    indptr, indices, data, feature_ptr, feature_points, feature_values, row_norms, point_norms
):
    """:func:`squared_distances` of CSR rows and points (``feature_*``: the points by
    feature, CSC): each cross product summed as scipy's ``csr_matmat`` sums it."""
    n_rows, n_points = len(indptr) - 1, len(point_norms)
    out = np.empty((n_rows, n_points))
    cross = np.zeros(n_points)
    every_feature = np.empty(0, dtype=np.bool_)
    for r in range(n_rows):
        sparse_cross_products(
            indptr, indices, data, r, feature_ptr, feature_points, feature_values,
            False, every_feature, cross,
        )  # fmt: skip
        for p in range(n_points):
            out[r, p] = floored_distance(row_norms[r], point_norms[p], cross[p])
    return out


@_compiled.kernel
def sparse_cross_products(
    indptr, indices, data, r, feature_ptr, feature_points, feature_values,
    restrict, features, cross,
):  # fmt: skip
    """Row ``r``'s dot products with every point into ``cross``, summed in the row's stored
    order of features as scipy's ``csr_matmat`` sums them (``restrict``: over the features
    where ``features`` is True alone). A compiled helper of the distance kernels."""
    cross[:] = 0.0
    add_cross_products(
        indptr, indices, data, r, feature_ptr, feature_points, feature_values,
        restrict, features, cross,
    )  # fmt: skip


@_compiled.kernel
def add_cross_products(
    indptr, indices, data, r, feature_ptr, feature_points, feature_values,
    restrict, features, cross,
):  # fmt: skip
    """:func:`sparse_cross_products` added to ``cross`` as it is (not cleared first)."""
    for jj in range(indptr[r], indptr[r + 1]):
        feature = indices[jj]
        if restrict and not features[feature]:
            continue
        value = data[jj]
        for kk in range(feature_ptr[feature], feature_ptr[feature + 1]):
            cross[feature_points[kk]] += value * feature_values[kk]


@_compiled.kernel
def floored_distance(row_norm, point_norm, cross):
    """``(|r|^2 + |p|^2) - 2 r.p`` floored at 0 as ``np.maximum`` floors it (nan stays)."""
    distance = (row_norm + point_norm) - 2.0 * cross
    return 0.0 if distance < 0.0 else distance


def nearest_points(distances, k):
    """Indices of the k smallest distances of every row, shape (n_rows, k), in increasing
    index order; ties go to the lowest indices.

    Defined ties make a row's neighbours independent of how its distances were laid out
    (``argpartition`` breaks ties by its pivots, which differ between a row and a subset of
    its columns). For k = 1 this is ``argmin`` (9x faster than ``argpartition`` on 1000 x
    3300 distances); otherwise the k-th smallest value by ``partition``, every distance below
    it, and the first ones equal to it.
    """
    distances = np.asarray(distances)
    k = min(int(k), distances.shape[1])
    if k == 1:
        return distances.argmin(axis=1)[:, None]
    kth = np.partition(distances, k - 1, axis=1)[:, k - 1 : k]
    chosen = distances < kth
    equal = distances == kth
    wanted = k - chosen.sum(axis=1)  # at least 1 of the distances equal to the k-th
    crowded = equal.sum(axis=1) > wanted  # ties across the k-th place: the first ones
    if crowded.any():
        rows = np.flatnonzero(crowded)
        equal[rows] &= np.cumsum(equal[rows], axis=1) <= wanted[rows, None]
    chosen |= equal
    return np.nonzero(chosen)[1].reshape(distances.shape[0], k)
