"""Input validation shared by every estimator: rows, the NaN policy, pandas frames, label
matrices, and the parameter constraints and bounds that estimators declare.

- :func:`validate_rows`: X as float64 (CSR if sparse), NaN accepted only under
  ``missing="ignore"`` (:data:`MISSING_OPTIONS`); a DataFrame's nominal columns coded
  (:func:`coded_frame`);
- :func:`check_label_matrix`: an n x L 0/1 indicator matrix of any dtype, dense or sparse
  (the other forms of :mod:`mlnb.labels` are coded by the estimators' entry points);
- :class:`Integers`, :data:`COUNT`, :data:`SHARE`: ``_parameter_constraints`` entries;
- :data:`LOG_ODDS_BOUND`: the largest log-odds a score reports.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_array, validate_data

from ..labels import is_label_lists

__all__ = [
    "COUNT",
    "LOG_ODDS_BOUND",
    "MISSING_OPTIONS",
    "N_JOBS",
    "SHARE",
    "VERBOSE",
    "Integers",
    "allow_nan",
    "check_label_matrix",
    "coded_frame",
    "validate_rows",
]

#: The largest log-odds a score reports: beyond it a double's probability is exactly 0 or 1
#: (exp(-745) underflows), so larger values say nothing more and are clipped to it.
LOG_ODDS_BOUND = 745.0


class Integers(Interval):
    """scikit-learn's ``Interval(Integral, left, right, closed=...)``, refusing bool.

    A constraint of ``_parameter_constraints``: scikit-learn's own accepts ``True`` as the
    integer 1 (bool is an Integral to Python), which an integer parameter should refuse.
    """

    def __init__(self, left, right, *, closed):
        super().__init__(Integral, left, right, closed=closed)

    def is_satisfied_by(self, val):
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


#: A count of at least 1 (members, neighbours, subsets); bool is refused.
COUNT = Integers(1, None, closed="left")
#: ``n_jobs`` (joblib's meaning, None or an int) and ``verbose`` (an int >= 0): bool refused.
N_JOBS = [Integers(None, None, closed="neither"), None]
VERBOSE = [Integers(0, None, closed="left")]
#: A share of the rows in [0, 1] (the estimators check the open ends they need).
SHARE = Interval(Real, 0, 1, closed="both")

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
    nothing; False: a fitted estimator's rows, a few of them checked by
    :func:`few_fitted_rows`); ``missing`` the estimator's option, None if it has none. A
    NaN refused raises scikit-learn's ValueError with what to do about it appended.
    """
    if reset is False:
        rows = few_fitted_rows(estimator, X, missing)
        if rows is not None:
            return rows
    finite = True if missing is None else allow_nan(missing)
    X = coded_frame(estimator, X, reset, missing)
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


#: Rows up to this many, of a fitted estimator, are checked by :func:`few_fitted_rows`.
FEW_ROWS = 256


_FLOAT64 = np.dtype(np.float64)


def few_fitted_rows(estimator, X, missing):
    """X as :func:`validate_rows` would give it, checked in proportion to its size, or
    None: then the full check, which raises its own errors.

    For a fitted estimator's predictions on a few rows: :func:`fitted_rows` without
    infinity, and without NaN unless ``missing`` is ``"ignore"``. scikit-learn's
    ``validate_data`` costs about 100 us a call whatever the size (its search for a
    DataFrame of any library), half of a one-row prediction of binary relevance.
    """
    X = fitted_rows(estimator, X)
    if X is None:
        return None
    values = X if type(X) is np.ndarray else X.data
    if np.isfinite(values.sum()):
        return X
    if missing == "ignore" and not np.isinf(values).any():
        return X  # NaN marks missing entries
    return None


def fitted_rows(estimator, X):
    """X as float64 if it is a few rows (up to :data:`FEW_ROWS`) of a fitted estimator's
    width, a numeric numpy array or CSR matrix, and the estimator was not fitted on named
    columns (a DataFrame, whose names the full check compares); else None. Values are
    not checked (see :func:`few_fitted_rows`)."""
    dense = type(X) is np.ndarray
    if not (dense or (sp.issparse(X) and X.format == "csr")) or X.ndim != 2:
        return None
    fitted = vars(estimator)
    if (
        not 0 < X.shape[0] <= FEW_ROWS
        or X.shape[1] != fitted.get("n_features_in_")
        or "feature_names_in_" in fitted
    ):
        return None
    if X.dtype is not _FLOAT64:
        if X.dtype.kind not in "fiub" or X.dtype.itemsize > 8:
            return None  # complex, long double, strings, objects: the full check
        X = X.astype(np.float64)
    return X


def coded_frame(estimator, X, reset, missing):
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

    from ..events.auto import encode_frame, frame_to_array

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


def check_label_matrix(Y, n_samples=None, *, n_labels=None, sparse=False, unknown=False):
    """An n x L 0/1 indicator matrix as float64: a dense array, or CSR with ``sparse=True``.

    Any integer, boolean or float dtype, dense or sparse, is accepted and gives the same
    result (the values are checked, never cast modulo 256). ``unknown=True`` accepts
    unknown cells (NaN, masked, None or ``pandas.NA``; see
    :func:`mlnb.labels.split_unknown`) and keeps them as NaN; otherwise they are refused
    with the names of the estimators that learn from the known cells.
    """
    if Y is None:
        raise ValueError("this estimator requires y to be passed, but the target y is None")
    if is_label_lists(Y):
        raise ValueError(
            "Y is given as label lists; here it must be a 0/1 indicator matrix: code the "
            "lists with mlnb.labels.label_matrix(Y), or fit a multi-label estimator, which "
            "takes them as they are"
        )
    Y = _with_unknown_as_nan(Y)
    if Y.ndim != 2:
        raise ValueError(
            f"Y must be a 2-D label-indicator matrix (n_samples x n_labels); got shape {Y.shape}"
        )
    if Y.dtype.kind not in "biuf":
        raise ValueError(f"Y must hold 0/1 numbers; got dtype {Y.dtype}")
    values = Y.data if sp.issparse(Y) else Y
    if values.size and (values.min() < 0 or values.max() > 1 or Y.dtype.kind == "f"):
        bad = (values != 0) & (values != 1)
        n_unknown = int(np.count_nonzero(np.isnan(values))) if Y.dtype.kind == "f" else 0
        if n_unknown and not unknown:
            raise ValueError(
                f"Y has {n_unknown} unknown cells (NaN, masked or None); this estimator "
                f"needs every cell. {UNKNOWN_CELLS_NOTE}"
            )
        if n_unknown:
            bad &= ~np.isnan(values)
        if np.any(bad):
            raise ValueError(f"Y must hold only 0 and 1; found {values[bad].flat[0]!r}")
    if n_samples is not None and Y.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} rows but Y has {Y.shape[0]}")
    if n_labels is not None and Y.shape[1] != n_labels:
        raise ValueError(f"Y has {Y.shape[1]} labels; this model was fitted with {n_labels}")
    if Y.shape[1] == 0:
        raise ValueError("Y has no label columns")
    if sparse:
        return sp.csr_matrix(Y, dtype=np.float64)
    return Y.toarray().astype(np.float64) if sp.issparse(Y) else Y.astype(np.float64)


#: Where unknown label cells are learnt from: said by every refusal of them.
UNKNOWN_CELLS_NOTE = (
    "BinaryRelevance, ClassifierChain, IMLNB and NaiBX (Naive Bayes path) learn each label "
    "from the rows where it is known; or fill the unknown cells first"
)


def _with_unknown_as_nan(Y):
    """Y as a numpy array or CSR matrix, its unknown cells (masked, None, pandas.NA) NaN."""
    if sp.issparse(Y):
        return sp.csr_matrix(Y)
    if isinstance(Y, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(Y)
        if mask.any():
            if Y.dtype.kind not in "biuf":
                raise ValueError(f"Y must hold 0/1 numbers; got dtype {Y.dtype}")
            return np.where(mask, np.nan, np.ma.getdata(Y).astype(np.float64))
        return np.ma.getdata(Y)
    Y = np.asarray(Y)
    if Y.dtype == object:
        holes = np.array([_is_hole(value) for value in Y.ravel()], dtype=bool).reshape(Y.shape)
        if holes.any():
            filled = np.where(holes, np.nan, Y)
            try:
                return filled.astype(np.float64)
            except (TypeError, ValueError):
                raise ValueError("Y must hold 0/1 numbers (or unknown cells)") from None
    return Y


def _is_hole(value):
    """Whether a cell of an object matrix is unknown: None, pandas.NA or a float NaN."""
    if value is None:
        return True
    if isinstance(value, float):
        return value != value
    return type(value).__name__ == "NAType"
