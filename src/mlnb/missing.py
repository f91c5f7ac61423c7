"""Missing values: NaN marks an entry that adds nothing, in training and in prediction.

Weka's NaiveBayes (the papers' reference) skips a missing value: the row still counts for
its class, but the feature's estimator is not updated, and at prediction the feature adds
no term to any class's log-likelihood. mlnb does the same for every event model when an
estimator is given ``missing="ignore"``:

- the statistics (:class:`mlnb.stats.GroupStats`) count, per group *and feature*, the rows
  whose entry is observed (``observed``), and sums and second moments over those rows only;
- scoring (:meth:`mlnb.events.EventModel.score_observed`) scores the rows with their missing
  entries at 0 and takes away what a 0 there adds (:meth:`~mlnb.events.EventModel.zero_terms`).

An estimator decides the option once: :func:`mlnb.events.bind_missing` gives its event model
wrapped in :class:`mlnb.events.IgnoreMissing` (whose ``prepare`` / ``score`` /
``score_ratio`` are the ``*_observed`` ones) for ``"ignore"``, the model itself otherwise.
With ``missing="error"`` (the default) a NaN raises a ValueError that names the option
(:func:`mlnb.base.validation.validate_rows`).
A sparse X marks a missing entry by a stored NaN; an unstored entry is a 0, as always.

This module is a leaf of NaN helpers (it imports nothing from mlnb).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["has_missing", "split_missing", "with_missing"]


def has_missing(X) -> bool:
    """Whether X (dense or sparse) holds a NaN; one pass, no temporary of X's size."""
    values = X.data if sp.issparse(X) else np.asarray(X)
    if values.dtype.kind != "f" or not values.size:
        return False
    return bool(np.isnan(np.sum(values)))


def split_missing(X):
    """``(filled, mask)``: X with its NaN entries set to 0, and where they were.

    ``mask`` is a CSR matrix of 0/1 floats (X's shape), or None when nothing is missing,
    in which case ``filled`` is X itself. A sparse X stays sparse (the NaN entries are
    removed from its storage).
    """
    if not has_missing(X):
        return X, None
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)
        nan = np.isnan(X.data)
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        mask = sp.csr_matrix((np.ones(int(nan.sum())), (rows[nan], X.indices[nan])), shape=X.shape)
        X.data[nan] = 0.0
        X.eliminate_zeros()
        return X, mask
    nan = np.isnan(X)
    return np.where(nan, 0.0, X), sp.csr_matrix(nan, dtype=np.float64)


def with_missing(X, mask):
    """X with NaN where ``mask`` (CSR 0/1, or None) is 1: the inverse of :func:`split_missing`."""
    if mask is None or not mask.nnz:
        return X
    mask = sp.coo_matrix(mask)
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        kept = X - X.multiply(mask)  # the entries at missing positions removed
        kept.eliminate_zeros()
        nan = sp.csr_matrix((np.full(mask.nnz, np.nan), (mask.row, mask.col)), shape=X.shape)
        return sp.csr_matrix(kept + nan)
    X = np.array(X, dtype=np.float64, copy=True)
    X[mask.row, mask.col] = np.nan
    return X
