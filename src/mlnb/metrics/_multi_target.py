"""Multi-target (multi-dimensional) classification criteria.

A multi-target problem has ``n_outputs`` class variables, each with two or more values
(a multi-label problem is the special case of 0/1 outputs). ``Y_true`` and ``Y_pred`` are
n x L arrays of class values of any dtype (integers, strings, ...; a pandas DataFrame
too, columns of different dtypes included): one row per instance, one column per output,
and a cell is right when its predicted value equals the true one.

The criteria are MEKA's for multi-target data (``MLEvalUtils.getMTStats`` and
``meka.core.Metrics``), with scikit-learn's ``sample_weight`` (a weighted average over
rows):

- per-target accuracy (:func:`multi_target_accuracy`): the share of rows whose output j
  is right, one value per output; each equals scikit-learn's ``accuracy_score`` of
  column j;
- Hamming score (:func:`multi_target_hamming_score`): the mean of the per-target
  accuracies, i.e. the share of right cells;
- exact match (:func:`multi_target_exact_match`): the share of rows with every output
  right (scikit-learn's ``accuracy_score`` of the whole matrix where it accepts it);
- Hamming loss and zero-one loss: ``1 - Hamming score`` and ``1 - exact match``.

Every cell must hold a class value: a missing one (NaN, None, ``pd.NA``, a masked cell)
is refused with a ValueError (MEKA skips missing true values; these functions leave that
choice to the caller). Numbers, strings and bytes are never equal to each other: a
numeric array against a string array is refused rather than scored 0.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._registry import register_metric

__all__ = [
    "multi_target_accuracy",
    "multi_target_exact_match",
    "multi_target_hamming_loss",
    "multi_target_hamming_score",
    "multi_target_zero_one_loss",
]

_NUMBER_KINDS = "biuf"
# what the values of a dtype kind are, for the dtypes whose values never equal another's
_KIND_OF_VALUE = {"U": "str", "T": "str", "S": "bytes", **dict.fromkeys(_NUMBER_KINDS, "number")}


def _as_matrix(Y, name):
    """``Y`` as a 2-D ndarray of class values, with its missing cells refused."""
    masked = np.ma.getmaskarray(Y) if isinstance(Y, np.ma.MaskedArray) else None
    if sp.issparse(Y):
        Y = Y.toarray()
    Y = np.asarray(np.ma.getdata(Y) if masked is not None else Y)
    if Y.ndim != 2:
        hint = (
            "; a 1-D array is not multi-target: reshape a single output to (n_samples, 1), "
            "or use the single_label_* functions"
            if Y.ndim == 1
            else ""
        )
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_outputs) with one column per "
            f"output, got an array of shape {Y.shape}{hint}."
        )
    missing = masked if masked is not None and masked.any() else None
    if missing is None:
        missing = _missing_cells(Y, name)
    if missing is not None:
        rows, cols = np.nonzero(missing)
        raise ValueError(
            f"{name} has {rows.size} missing cell(s) (NaN, None, NA or masked), the first "
            f"at row {rows[0]}, output {cols[0]}; multi-target criteria need a class value "
            "in every cell."
        )
    return Y


def _missing_cells(Y, name):
    """Boolean mask of the NaN / None / NA cells of ``Y``, or None if there is none."""
    if Y.dtype.kind in "fc":
        mask = np.isnan(Y)
    elif Y.dtype.kind == "O":
        try:
            mask = np.equal(Y, None) | np.not_equal(Y, Y)  # None; NaN != NaN
        except TypeError:  # pd.NA and the like refuse to be a truth value
            raise ValueError(
                f"{name} has missing cells (NA); multi-target criteria need a class value "
                "in every cell."
            ) from None
    else:
        return None
    return mask if mask.any() else None


def _check_weights(sample_weight, n_samples):
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight)
    if w.ndim != 1 or w.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight must be a 1-D array of one weight per row ({n_samples}), "
            f"got shape {w.shape}."
        )
    if w.dtype.kind not in _NUMBER_KINDS:
        raise ValueError(f"sample_weight must be numeric, got dtype {w.dtype}.")
    w = w.astype(np.float64)
    if not np.all(np.isfinite(w)) or np.any(w < 0) or not w.sum() > 0:
        raise ValueError(
            "sample_weight must be finite and non-negative with a positive sum, got "
            f"sum {float(w.sum())} and minimum {float(w.min())}."
        )
    return w


def _column_kinds(Y):
    """The kind of every column's values ("str", "bytes", "number"; None: mixed or other).
    An object column (a pandas frame's strings) is read by the types of its distinct
    values."""
    if Y.dtype.kind != "O":
        return [_KIND_OF_VALUE.get(Y.dtype.kind)] * Y.shape[1]
    kinds = []
    for column in Y.T:  # outputs are few; their distinct values too
        found = {_KIND_OF_VALUE.get(np.asarray(v).dtype.kind) for v in set(column.tolist())}
        kinds.append(found.pop() if len(found) == 1 else None)
    return kinds


def _correct(Y_true, Y_pred, sample_weight):
    """The n x L boolean matrix of right cells, and the checked row weights."""
    Y_true = _as_matrix(Y_true, "Y_true")
    Y_pred = _as_matrix(Y_pred, "Y_pred")
    if Y_true.shape != Y_pred.shape:
        raise ValueError(
            "Y_true and Y_pred must have the same shape (n_samples, n_outputs), got "
            f"{Y_true.shape} and {Y_pred.shape}."
        )
    if Y_true.size == 0:
        raise ValueError(
            f"Y_true and Y_pred must have at least one row and one output, got {Y_true.shape}."
        )
    for j, kinds in enumerate(zip(_column_kinds(Y_true), _column_kinds(Y_pred), strict=True)):
        if None not in kinds and kinds[0] != kinds[1]:
            raise ValueError(
                f"Y_true and Y_pred hold class values of different kinds in output {j} "
                f"({' and '.join(kinds)}; dtypes {Y_true.dtype} and {Y_pred.dtype}), which "
                "are never equal; encode both alike."
            )
    try:
        correct = np.asarray(Y_true == Y_pred, dtype=bool)
    except TypeError as error:  # dtypes without an equality loop
        raise ValueError(
            f"Y_true and Y_pred hold class values that cannot be compared (dtypes "
            f"{Y_true.dtype} and {Y_pred.dtype}): {error}"
        ) from None
    if correct.shape != Y_true.shape:  # numpy gave up comparing element by element
        raise ValueError(
            f"Y_true and Y_pred hold class values that cannot be compared (dtypes "
            f"{Y_true.dtype} and {Y_pred.dtype})."
        )
    return correct, _check_weights(sample_weight, Y_true.shape[0])


def multi_target_accuracy(Y_true, Y_pred, *, sample_weight=None):
    """Per-target accuracy: for each output, the share of rows whose value is right.

    MEKA's per-target accuracy of a multi-target evaluation; output j's value equals
    scikit-learn's ``accuracy_score(Y_true[:, j], Y_pred[:, j], sample_weight=...)``.

    Parameters
    ----------
    Y_true, Y_pred : array-like or DataFrame of shape (n_samples, n_outputs)
        True and predicted class values (any dtype: integers, strings, ...), one column
        per output. Every cell must hold a value (NaN, None and masked cells are
        refused).
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights (finite, non-negative, with a positive sum); each accuracy is the
        weighted share of right rows.

    Returns
    -------
    ndarray of shape (n_outputs,)
        Float accuracies in [0, 1], higher is better.

    Raises
    ------
    ValueError
        If an input is not 2-D, the shapes differ, an input is empty or has missing
        cells, one holds strings and the other numbers (or bytes), or ``sample_weight``
        is not one valid weight per row.

    See Also
    --------
    multi_target_hamming_score : Their mean.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.metrics import multi_target_accuracy
    >>> Y_true = np.array([["red", "s"], ["blue", "m"], ["red", "l"], ["green", "m"]])
    >>> Y_pred = np.array([["red", "s"], ["red", "m"], ["red", "s"], ["green", "l"]])
    >>> multi_target_accuracy(Y_true, Y_pred)
    array([0.75, 0.5 ])
    >>> multi_target_accuracy(Y_true, Y_pred, sample_weight=[1, 0, 0, 1])
    array([1. , 0.5])
    """
    correct, weights = _correct(Y_true, Y_pred, sample_weight)
    return np.average(correct, axis=0, weights=weights)


def multi_target_hamming_score(Y_true, Y_pred, *, sample_weight=None):
    """Hamming score: the mean per-target accuracy, i.e. the share of right cells.

    MEKA's "Hamming score" of a multi-target evaluation: the mean over outputs of
    :func:`multi_target_accuracy` (equivalently the weighted mean over rows of each
    row's share of right outputs).

    Parameters
    ----------
    Y_true, Y_pred : array-like or DataFrame of shape (n_samples, n_outputs)
        True and predicted class values (any dtype), one column per output; no missing
        cells.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights (finite, non-negative, with a positive sum).

    Returns
    -------
    float
        In [0, 1], higher is better.

    Raises
    ------
    ValueError
        As :func:`multi_target_accuracy`.

    See Also
    --------
    multi_target_hamming_loss : ``1 -`` this score.
    multi_target_exact_match : The share of rows with every output right.

    Examples
    --------
    >>> from mlnb.metrics import multi_target_hamming_score
    >>> Y_true = [[0, 2, 1], [1, 0, 1]]
    >>> Y_pred = [[0, 2, 0], [1, 1, 1]]
    >>> multi_target_hamming_score(Y_true, Y_pred)  # 4 of 6 cells right
    0.6666666666666666
    """
    return float(np.mean(multi_target_accuracy(Y_true, Y_pred, sample_weight=sample_weight)))


def multi_target_hamming_loss(Y_true, Y_pred, *, sample_weight=None):
    """Hamming loss: ``1 -`` :func:`multi_target_hamming_score`, the share of wrong cells.

    MEKA's "Hamming loss" of a multi-target evaluation.

    Parameters
    ----------
    Y_true, Y_pred : array-like or DataFrame of shape (n_samples, n_outputs)
        True and predicted class values (any dtype), one column per output; no missing
        cells.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights (finite, non-negative, with a positive sum).

    Returns
    -------
    float
        In [0, 1], lower is better.

    Raises
    ------
    ValueError
        As :func:`multi_target_accuracy`.

    See Also
    --------
    multi_target_hamming_score : ``1 -`` this loss.
    multi_target_zero_one_loss : The share of rows with a wrong output.

    Examples
    --------
    >>> from mlnb.metrics import multi_target_hamming_loss
    >>> Y_true = [["a", "x"], ["b", "y"]]
    >>> Y_pred = [["a", "y"], ["b", "y"]]
    >>> multi_target_hamming_loss(Y_true, Y_pred)  # 1 of 4 cells wrong
    0.25
    """
    return 1.0 - multi_target_hamming_score(Y_true, Y_pred, sample_weight=sample_weight)


def multi_target_exact_match(Y_true, Y_pred, *, sample_weight=None):
    """Exact match: the share of rows whose every output is right.

    MEKA's "Exact match" of a multi-target evaluation (subset accuracy).

    Parameters
    ----------
    Y_true, Y_pred : array-like or DataFrame of shape (n_samples, n_outputs)
        True and predicted class values (any dtype), one column per output; no missing
        cells.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights (finite, non-negative, with a positive sum).

    Returns
    -------
    float
        In [0, 1], higher is better.

    Raises
    ------
    ValueError
        As :func:`multi_target_accuracy`.

    See Also
    --------
    multi_target_zero_one_loss : ``1 -`` this score.

    Examples
    --------
    >>> from mlnb.metrics import multi_target_exact_match
    >>> Y_true = [[0, 2, 1], [1, 0, 1], [2, 2, 0]]
    >>> Y_pred = [[0, 2, 1], [1, 1, 1], [2, 2, 0]]
    >>> multi_target_exact_match(Y_true, Y_pred)
    0.6666666666666666
    >>> multi_target_exact_match(Y_true, Y_pred, sample_weight=[1, 2, 1])
    0.5
    """
    correct, weights = _correct(Y_true, Y_pred, sample_weight)
    return float(np.average(correct.all(axis=1), weights=weights))


def multi_target_zero_one_loss(Y_true, Y_pred, *, sample_weight=None):
    """Zero-one loss: the share of rows with a wrong output, ``1 -`` the exact match.

    MEKA's "ZeroOne loss" of a multi-target evaluation.

    Parameters
    ----------
    Y_true, Y_pred : array-like or DataFrame of shape (n_samples, n_outputs)
        True and predicted class values (any dtype), one column per output; no missing
        cells.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights (finite, non-negative, with a positive sum).

    Returns
    -------
    float
        In [0, 1], lower is better.

    Raises
    ------
    ValueError
        As :func:`multi_target_accuracy`.

    See Also
    --------
    multi_target_exact_match : ``1 -`` this loss.
    multi_target_hamming_loss : The share of wrong cells.

    Examples
    --------
    >>> from mlnb.metrics import multi_target_zero_one_loss
    >>> Y_true = [[0, 2, 1], [1, 0, 1], [2, 2, 0], [0, 0, 0]]
    >>> Y_pred = [[0, 2, 1], [1, 1, 1], [2, 2, 0], [0, 0, 1]]
    >>> multi_target_zero_one_loss(Y_true, Y_pred)
    0.5
    """
    return 1.0 - multi_target_exact_match(Y_true, Y_pred, sample_weight=sample_weight)


# ---- the criteria this module registers in mlnb.metrics.METRICS ---------------------------------
def _criteria():
    """The multi-target criteria: (name, function, greater is better, label as MEKA shows it).

    Per-target accuracy is one value per output, not a scalar criterion: it stays a
    function (:func:`multi_target_accuracy`).
    """
    return [
        ("mt_exact_match", multi_target_exact_match, True, "Exact match"),
        ("mt_hamming_score", multi_target_hamming_score, True, "Hamming score"),
        ("mt_hamming_loss", multi_target_hamming_loss, False, "Hamming loss"),
        ("mt_zero_one_loss", multi_target_zero_one_loss, False, "ZeroOne loss"),
    ]


for _name, _function, _greater, _label in _criteria():
    register_metric(_name, _function, greater_is_better=_greater, task="multi_target", label=_label)
