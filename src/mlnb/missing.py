"""Missing values: NaN marks an entry that adds nothing, in training and in prediction.

Weka's NaiveBayes (the papers' reference) skips a missing value: the row still counts for
its class, but the feature's estimator is not updated, and at prediction the feature adds
no term to any class's log-likelihood. mlnb does the same for every event model when an
estimator is given ``missing="ignore"``:

- the statistics (:class:`mlnb.stats.GroupStats`) count, per group *and feature*, the rows
  whose entry is observed (``observed``), and sums and second moments over those rows only;
- scoring (:meth:`mlnb.events.EventModel.score_observed`) scores the rows with their missing
  entries at 0 and takes away what a 0 there adds (:meth:`~mlnb.events.EventModel.zero_terms`).

With ``missing="error"`` (the default) a NaN raises a ValueError that names the option.
A sparse X marks a missing entry by a stored NaN; an unstored entry is a 0, as always.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array, validate_data

__all__ = [
    "MISSING_OPTIONS",
    "prepare_rows",
    "score_ratio_rows",
    "score_rows",
    "allow_nan",
    "has_missing",
    "split_missing",
    "validate_rows",
    "with_missing",
]

#: Values of the estimators' ``missing`` parameter.
MISSING_OPTIONS = ("error", "ignore")


def allow_nan(missing):
    """The ``ensure_all_finite`` argument of scikit-learn's validation for ``missing``."""
    if missing not in MISSING_OPTIONS:
        raise ValueError(f"missing must be one of {MISSING_OPTIONS}; got {missing!r}")
    return "allow-nan" if missing == "ignore" else True


def validate_rows(estimator, X, *, reset=None, missing=None):
    """X validated as floats (CSR if sparse) for ``estimator``; NaN only if ``missing`` is
    ``"ignore"``.

    ``reset`` as scikit-learn's ``validate_data`` (None: only check the array, recording
    nothing); ``missing`` the estimator's option, None if it has none. A NaN refused raises
    scikit-learn's ValueError with what to do about it appended.
    """
    finite = True if missing is None else allow_nan(missing)
    X = _coded_frame(estimator, X, reset, missing)
    try:
        if reset is None:
            return check_array(X, accept_sparse="csr", dtype=np.float64, ensure_all_finite=finite)
        return validate_data(
            estimator,
            X,
            accept_sparse="csr",
            dtype=np.float64,
            reset=reset,
            ensure_all_finite=finite,
        )
    except ValueError as error:
        if "NaN" not in str(error):
            raise
        name = type(estimator).__name__
        hint = (
            f"{name} ignores missing entries with missing='ignore' (Weka's semantics: a missing "
            "value adds nothing to the statistics or to a row's score)"
            if missing is not None
            else f"{name} has no way to handle them: impute them first, or use a Naive Bayes "
            "estimator with missing='ignore'"
        )
        raise ValueError(f"Input X contains NaN (missing values); {hint}") from None


def _coded_frame(estimator, X, reset, missing):
    """A DataFrame's nominal columns (categorical, object, bool) as codes.

    At a fit (``reset``) the labels are learnt and kept with the column types
    (``feature_categories_``, ``column_types_``: what ``events="auto"`` reads); later rows
    are coded with them (a new label is an error, or a missing entry with
    ``missing="ignore"``). A frame of numbers and anything else is returned as it is.
    """
    if reset:
        vars(estimator).pop("feature_categories_", None)
        vars(estimator).pop("column_types_", None)
    if not (hasattr(X, "columns") and hasattr(X, "dtypes")):
        return X
    import pandas as pd

    from .events.auto import encode_frame, frame_to_array

    categories = vars(estimator).get("feature_categories_")
    if reset or reset is None:
        if all(
            pd.api.types.is_numeric_dtype(t) and not pd.api.types.is_bool_dtype(t) for t in X.dtypes
        ):
            return X
        values, column_types, categories = frame_to_array(X)
        if reset:
            estimator.feature_categories_, estimator.column_types_ = categories, column_types
    elif categories is not None:
        values = encode_frame(X, categories, unknown="nan" if missing == "ignore" else "error")
    else:
        return X
    return pd.DataFrame(values, columns=X.columns, index=X.index)


def prepare_rows(events, X, missing, *, caller):
    """``events.prepare`` of validated rows; ``prepare_observed`` with ``missing="ignore"``.

    Under any other option validation has refused NaN, so the rows go straight to
    ``prepare``: looking for NaN again would cost a pass over X (on scene's 2,407 x 294,
    a fifth of a multinomial prediction).
    """
    if missing == "ignore":
        return events.prepare_observed(X, caller=caller)
    return events.prepare(X, caller=caller)


def score_rows(events, params, X, missing):
    """``events.score`` of prepared rows; ``score_observed`` with ``missing="ignore"``."""
    if missing == "ignore":
        return events.score_observed(params, X)
    return events.score(params, X)


def score_ratio_rows(events, params_a, params_b, X, missing):
    """``events.score_ratio``; ``score_ratio_observed`` with ``missing="ignore"``."""
    if missing == "ignore":
        return events.score_ratio_observed(params_a, params_b, X)
    return events.score_ratio(params_a, params_b, X)


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
