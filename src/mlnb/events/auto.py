"""Event models chosen per column from the data: ``events="auto"`` and ``events="weka"``.

A table's columns need not share an event model: nominal attributes are categorical, 0/1
indicators Bernoulli, word counts multinomial, measurements Gaussian. :func:`resolve` reads
what the data say (the columns' types, when a loader or a pandas frame gives them, and the
values) and returns one event model, or a :class:`~mlnb.events.Mixed` of column blocks when
the kinds differ. :func:`column_kinds` gives the kind of every column on its own.

**Rule "auto".** Missing entries (NaN) are ignored; the implicit zeros of a sparse X count.

- a nominal column (``column_types``: a Dataset's nominal attributes, a pandas categorical,
  object or bool column) is *categorical*, whatever its codes;
- a column whose values are all 0 or 1 is *bernoulli*;
- a column of non-negative integers, some above 1, is a count. Counts are *multinomial* in a
  count table, one whose non-nominal columns all hold non-negative integers (a bag of words):
  all of them, 0/1 columns included (a rare word's column holds 0 and 1 only), make one
  multinomial over the table's words. A multinomial models how a row's total divides among
  its block's columns, not the total: beside real-valued columns, integer columns are
  magnitudes (ages, ordinal grades, counts of events) and are *gaussian*, and so is a lone
  count column (its one-column multinomial would have probability 1 whatever the group);
- any other column (real values) is *gaussian*.

Models: :class:`~mlnb.events.Categorical` (``alpha=1``, the declared number of values when
known), :class:`~mlnb.events.Bernoulli` (``alpha=1``, ``binarize=None``: the 0/1 values used
as they are, and any other value an error), :class:`~mlnb.events.Multinomial` (``alpha=1``)
and :class:`~mlnb.events.Gaussian`.

**Rule "weka"** reproduces the event models of Weka's NaiveBayes (John and Langley 1995,
"Estimating continuous distributions in Bayesian classifiers", UAI), the Naive Bayes of
Trajdos and Kurzynski's dynamic classifier chains:

- a nominal attribute has Weka's Laplace ``DiscreteEstimator``: every declared value starts
  with a count of 1, i.e. ``Categorical(alpha=1, n_categories=<declared values>)``; one of
  two values is :class:`~mlnb.events.Bernoulli` (``alpha=1``), the same probabilities in a
  cheaper form (without a declaration: codes 0 and 1 only);
- every numeric attribute, whatever its values, has Weka's ``NormalEstimator``, which is
  mlnb's :class:`~mlnb.events.DiscretisedGaussian`, at the precision Weka computes from the
  training rows (:func:`~mlnb.events.weka_precision`, missing values left out).

**pandas.** :func:`frame_to_array` turns a DataFrame into a float array, its column types
and the labels of its nominal columns; :func:`encode_frame` codes new rows by those labels.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from .._registered import Registered
from .bernoulli import Bernoulli
from .categorical_model import Categorical
from .discretised import DiscretisedGaussian, weka_precision
from .gaussian import Gaussian
from .mixed import Mixed
from .multinomial import Multinomial

__all__ = [
    "KINDS",
    "RULES",
    "TUNED",
    "Auto",
    "is_tuned",
    "column_kinds",
    "encode_frame",
    "frame_to_array",
    "estimator_events",
    "is_rule",
    "resolve",
    "resolve_events",
]

#: The rules :func:`resolve` knows.
RULES = ("auto", "weka")
#: ``events="tuned"``: the event model a multi-label estimator chooses by cross-validation
#: at fit (see :mod:`mlnb.multilabel`); once fitted, the model it chose (``events_``).
TUNED = "tuned"


def is_tuned(value):
    """Whether a parameter's value is :data:`TUNED` (chosen from the data at fit)."""
    return isinstance(value, str) and value == TUNED


#: The kinds :func:`column_kinds` gives, under either rule.
KINDS = ("categorical", "bernoulli", "multinomial", "gaussian", "discretised_gaussian")
_COLUMN_TYPES = ("nominal", "numeric")
# Rows per block when summarising a dense X: bounds the boolean temporaries (about 32 MB).
_BLOCK_BUDGET = 1 << 22


# ---- what the columns hold ---------------------------------------------------------------
def _summary(X):
    """Per column: whether every observed value is a non-negative integer, and the largest
    observed value (-inf when none is); NaN entries are not observed."""
    n_samples, n_features = X.shape
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        data, columns = X.data, X.indices
        missing = np.isnan(data)
        bad = ~missing & _not_count(data)
        integer = np.bincount(columns[bad], minlength=n_features) == 0
        if n_samples == 0:
            return integer, np.full(n_features, -np.inf)
        observed = X.copy()
        observed.data = np.where(missing, -np.inf, data)  # max counts the implicit zeros
        largest = np.asarray(observed.max(axis=0).toarray(), dtype=np.float64).ravel()
        return integer, largest
    X = np.asarray(X, dtype=np.float64)
    integer = np.ones(n_features, dtype=bool)
    largest = np.full(n_features, -np.inf)
    step = max(_BLOCK_BUDGET // max(n_features, 1), 1)
    for start in range(0, n_samples, step):  # blocks of rows: one pass, small temporaries
        block = X[start : start + step]
        missing = np.isnan(block)
        integer &= ~(~missing & _not_count(block)).any(axis=0)
        np.maximum(largest, np.where(missing, -np.inf, block).max(axis=0), out=largest)
    return integer, largest


def _not_count(values):
    """Where values are not non-negative integers (NaN included)."""
    with np.errstate(invalid="ignore"):
        return ~np.isfinite(values) | (values < 0) | (values != np.floor(values))


def _check_X(X):
    """X as a float ndarray or CSR matrix with at least one column."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
    else:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features); got shape {X.shape}")
    if X.shape[1] == 0:
        raise ValueError("X has no columns: there is no event model to choose")
    return X


def _nominal_mask(column_types, n_features):
    """The boolean mask of nominal columns (None: none is)."""
    if column_types is None:
        return np.zeros(n_features, dtype=bool)
    types = np.asarray(list(column_types), dtype=object)
    if types.shape != (n_features,):
        raise ValueError(
            f"column_types must give one type per column: X has {n_features} columns, "
            f"column_types {types.size}"
        )
    unknown = [t for t in types if t not in _COLUMN_TYPES]
    if unknown:
        raise ValueError(
            f"column_types holds {unknown[0]!r}; each entry must be 'nominal' or 'numeric'"
        )
    return types == "nominal"


def _declared(n_categories, n_features):
    """The declared number of values of every column (0 where unknown), as int."""
    if n_categories is None:
        return np.zeros(n_features, dtype=np.int64)
    if isinstance(n_categories, dict):
        counts = np.zeros(n_features, dtype=np.int64)
        for column, value in n_categories.items():
            if not 0 <= int(column) < n_features:
                raise ValueError(
                    f"n_categories names column {column!r}; X has {n_features} columns"
                )
            counts[int(column)] = value if np.ndim(value) == 0 else len(value)
        return counts
    counts = np.asarray(n_categories)
    if (
        counts.shape != (n_features,)
        or counts.dtype.kind not in "iuf"
        or not np.all(counts == np.round(counts))
    ):
        raise ValueError(
            "n_categories must be None, a dict {column: labels or count} or one whole number "
            f"per column ({n_features}, 0 where unknown); got {n_categories!r}"
        )
    return np.maximum(counts, 0).astype(np.int64)


def _kinds(X, column_types, rule, n_categories):
    """The kinds of :func:`column_kinds`, with the per-column largest values and counts."""
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}; got {rule!r}")
    X = _check_X(X)
    n_features = X.shape[1]
    nominal = _nominal_mask(column_types, n_features)
    declared = _declared(n_categories, n_features)
    integer, largest = _summary(X)
    bad = np.flatnonzero(nominal & ~integer)
    if bad.size:
        raise ValueError(
            f"column_types marks column {int(bad[0])} nominal, but it holds values that are "
            "not codes: nominal columns hold integer codes 0, 1, 2, ... (NaN if missing)"
        )
    over = np.flatnonzero(nominal & (declared > 0) & (largest >= declared))
    if over.size:
        column = int(over[0])
        raise ValueError(
            f"n_categories gives column {column} {int(declared[column])} values (codes 0.."
            f"{int(declared[column]) - 1}), but it holds the code {largest[column]:g}"
        )
    kinds = np.full(n_features, "gaussian", dtype=object)
    binary = integer & (largest <= 1)
    if rule == "weka":
        two_valued = np.where(declared > 0, declared == 2, binary)
        kinds[:] = "discretised_gaussian"
        kinds[nominal] = np.where(two_valued[nominal], "bernoulli", "categorical")
    else:
        counts = ~nominal & integer
        count_table = counts.sum() >= 2 and np.all(counts | nominal) and np.any(counts & ~binary)
        kinds[~nominal & binary] = "bernoulli"
        if count_table:
            kinds[counts] = "multinomial"
        kinds[nominal] = "categorical"
    return kinds.astype(str), X, largest, declared


def column_kinds(X, column_types=None, *, rule="auto", n_categories=None):
    """The kind of event model of every column under ``rule`` (see :mod:`mlnb.events.auto`).

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
        Training rows (float; NaN marks a missing entry and is ignored).
    column_types : sequence of {"nominal", "numeric"}, optional
        The type of every column (e.g. ``Dataset.column_types``); None: all numeric.
    rule : {"auto", "weka"}, default="auto"
    n_categories : array-like of shape (n_features,) or dict, optional
        The declared number of values of the nominal columns (0 where unknown, e.g.
        ``Dataset.n_categories``), or ``{column: labels}`` (as :func:`frame_to_array`
        returns); rule "weka" reads it to tell two-valued attributes.

    Returns
    -------
    ndarray of str of shape (n_features,)
        Under "auto": "categorical", "bernoulli", "multinomial" or "gaussian"; under
        "weka": "bernoulli", "categorical" or "discretised_gaussian".
    """
    return _kinds(X, column_types, rule, n_categories)[0]


# ---- the models ---------------------------------------------------------------------------
def _categorical(declared, largest):
    """Categorical(alpha=1) of columns with ``declared`` values (0: unknown)."""
    if np.all(declared > 0):
        return Categorical(alpha=1.0, n_categories=declared)
    # learnt counts; the layout holds every code seen (at least 0 and 1) and every
    # declared value, and min_categories makes a declared column count all its values
    seen = np.where(np.isfinite(largest), largest + 1, 0).astype(np.int64)
    max_categories = int(max(2, seen.max(), declared.max()))
    min_categories = declared if np.any(declared > 0) else None
    return Categorical(
        alpha=1.0, n_categories=None, min_categories=min_categories, max_categories=max_categories
    )


def _model(kind, X, columns, largest, declared):
    """The event model of ``kind`` for the given columns."""
    if kind == "categorical":
        return _categorical(declared[columns], largest[columns])
    if kind == "bernoulli":
        return Bernoulli(alpha=1.0, binarize=None)
    if kind == "multinomial":
        return Multinomial(alpha=1.0)
    if kind == "gaussian":
        return Gaussian()
    return DiscretisedGaussian(precision=weka_precision(X[:, columns]))  # NaN left out


def resolve(rule, X, column_types=None, *, n_categories=None):
    """The event model that ``rule`` chooses for the columns of ``X``.

    Parameters
    ----------
    rule : {"auto", "weka"}
        See :mod:`mlnb.events.auto`.
    X : ndarray or CSR matrix of shape (n_samples, n_features)
        Training rows (float; NaN marks a missing entry and is ignored). Rule "weka" takes
        the numeric columns' precisions from them.
    column_types : sequence of {"nominal", "numeric"}, optional
        The type of every column (e.g. ``Dataset.column_types``); None: all numeric.
    n_categories : array-like of shape (n_features,) or dict, optional
        The declared number of values of the nominal columns, 0 where unknown (e.g.
        ``Dataset.n_categories``), or ``{column: labels}`` (as :func:`frame_to_array`
        returns). Without it a categorical column's count is learnt (its largest code +
        1), with a layout that holds the largest code of the training rows.

    Returns
    -------
    EventModel
        One model when every column has the same kind, else a :class:`~mlnb.events.Mixed`
        with one block per kind, in the order of each kind's first column, its columns an
        int ndarray in increasing order.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0, 1.5], [1, -0.2], [1, 0.3]])
    >>> resolve("auto", X).blocks
    [(Bernoulli(binarize=None), array([0])), (Gaussian(), array([1]))]
    """
    kinds, X, largest, declared = _kinds(X, column_types, rule, n_categories)
    order = list(dict.fromkeys(kinds.tolist()))  # the kinds by their first column
    blocks = []
    for kind in order:
        columns = np.flatnonzero(kinds == kind)
        blocks.append((_model(kind, X, columns, largest, declared), columns))
    if len(blocks) == 1:
        return blocks[0][0]
    return Mixed(blocks=blocks)


class Auto(Registered, BaseEstimator):
    """An estimator's ``events`` chosen per column from its training rows by ``rule``.

    ``events="auto"`` and ``events="weka"`` are ``Auto("auto")`` and ``Auto("weka")``
    with the column types of the training data (a DataFrame's categorical, object and bool
    columns are nominal); give ``column_types`` (and ``n_categories``) to name the
    nominal columns of an array, e.g. those of a loaded :class:`~mlnb.datasets.Dataset`.
    The estimator resolves it once, at its first fit (``events_`` is the result); later
    ``partial_fit`` batches keep that model.

    Parameters
    ----------
    rule : {"auto", "weka"}, default="auto"
        See :mod:`mlnb.events.auto`.
    column_types : sequence of {"nominal", "numeric"}, optional
        The type of every column, e.g. ``Dataset.column_types``.
    n_categories : array-like of int, optional
        The declared number of values of every nominal column (0 where unknown), e.g.
        ``Dataset.n_categories``.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import BinaryRelevance
    >>> X = np.array([[0, 1.5], [1, -0.2], [1, 0.3], [0, 2.0]])
    >>> Y = np.array([[1, 0], [0, 1], [0, 1], [1, 0]])
    >>> model = BinaryRelevance(events=Auto("weka", column_types=["nominal", "numeric"]))
    >>> type(model.fit(X, Y).events_).__name__
    'Mixed'
    """

    def __init__(self, rule="auto", *, column_types=None, n_categories=None):
        self.rule = rule
        self.column_types = column_types
        self.n_categories = n_categories


def is_rule(spec):
    """Whether an ``events`` value is chosen from the data ("auto", "weka" or an Auto)."""
    return isinstance(spec, Auto) or (isinstance(spec, str) and spec in RULES)


def resolve_events(spec, X, *, column_types=None, n_categories=None):
    """The event model of an estimator's ``events`` value for training rows X.

    A rule (see :func:`is_rule`) is resolved with :func:`resolve`, its own column types
    first, else those given (the training frame's); an event model or a name is returned
    as :func:`~mlnb.events.make_event_model` makes it.
    """
    if not is_rule(spec):
        from . import make_event_model

        return make_event_model(spec)
    if isinstance(spec, Auto):
        if spec.column_types is not None:
            column_types, n_categories = spec.column_types, spec.n_categories
        rule = spec.rule
    else:
        rule = spec
    if rule not in RULES:
        raise ValueError(f"Auto: rule must be one of {RULES}; got {rule!r}")
    return resolve(rule, X, column_types, n_categories=n_categories)


def estimator_events(estimator, spec, X=None):
    """The event model of an estimator's ``events`` value ``spec``.

    A rule is resolved from the training rows ``X`` with the column types that the
    estimator's validation found in a training DataFrame (``column_types_``,
    ``feature_categories_``); without X it is the model the estimator's first fit chose
    (``events_``). Anything else is made by :func:`~mlnb.events.make_event_model`.
    """
    fitted = vars(estimator)
    if is_tuned(spec):
        if "events_" in fitted:
            return fitted["events_"]
        raise ValueError(
            f"{type(estimator).__name__}: events={TUNED!r} is chosen by cross-validation "
            "when the estimator is fitted: fit it first, or give an event model"
        )
    if not is_rule(spec):
        return resolve_events(spec, X)
    if X is not None:
        return resolve_events(
            spec,
            X,
            column_types=fitted.get("column_types_"),
            n_categories=fitted.get("feature_categories_"),
        )
    if "events_" in fitted:
        return fitted["events_"]
    raise ValueError(
        f"{type(estimator).__name__}: events={spec!r} is chosen from the training rows: fit "
        "first, or give the model that mlnb.events.auto.resolve chooses"
    )


# ---- pandas -------------------------------------------------------------------------------
def _labels(series, pd):
    """The labels of a nominal column, or None if the column is numeric."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return tuple(dtype.categories.tolist())
    if pd.api.types.is_bool_dtype(dtype):
        return (False, True)
    if pd.api.types.is_numeric_dtype(dtype):
        return None
    if pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
        values = pd.unique(series.dropna().to_numpy())
        try:
            return tuple(sorted(values.tolist()))
        except TypeError:  # mixed types: a fixed order all the same
            return tuple(sorted(values.tolist(), key=lambda v: (type(v).__name__, repr(v))))
    raise ValueError(
        f"frame: column {series.name!r} has dtype {dtype}; give numeric, bool, categorical, "
        "object or string columns (e.g. convert dates to numbers)"
    )


def _check_frame(frame, pd):
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame; got {type(frame).__name__}")


def frame_to_array(frame):
    """A DataFrame as a float array, with its column types and its nominal columns' labels.

    Categorical columns keep their categories (unused ones too: they are declared values);
    object and string columns get their sorted distinct non-null values; bool columns
    ``(False, True)``. A nominal entry becomes the index of its label, a missing one NaN;
    numeric columns become floats (missing values NaN).

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    X : ndarray of shape (n_samples, n_columns), float64
    column_types : tuple of {"nominal", "numeric"}
    categories : dict
        Column index -> tuple of labels, for the nominal columns (pass it to
        :func:`encode_frame` at prediction time, and to :func:`resolve` as n_categories).
    """
    import pandas as pd

    _check_frame(frame, pd)
    categories = {}
    for index in range(frame.shape[1]):
        labels = _labels(frame.iloc[:, index], pd)
        if labels is not None:
            categories[index] = labels
    column_types = tuple(
        "nominal" if index in categories else "numeric" for index in range(frame.shape[1])
    )
    return encode_frame(frame, categories), column_types, categories


def encode_frame(frame, categories, *, unknown="error"):
    """A DataFrame's rows coded with the labels of :func:`frame_to_array` (e.g. at fit).

    Parameters
    ----------
    frame : pandas.DataFrame
        The columns in the order of the frame that ``categories`` was made from. A
        categorical column is coded by its labels, whatever the order of its categories.
    categories : dict
        Column index -> tuple of labels (the third result of :func:`frame_to_array`).
    unknown : {"error", "nan"}, default="error"
        What a label outside a column's ``categories`` becomes: a ValueError naming the
        column and the label, or NaN (a missing entry).

    Returns
    -------
    ndarray of shape (n_samples, n_columns), float64
    """
    import pandas as pd

    _check_frame(frame, pd)
    if unknown not in ("error", "nan"):
        raise ValueError(f"unknown must be 'error' or 'nan'; got {unknown!r}")
    outside = [index for index in categories if not 0 <= index < frame.shape[1]]
    if outside:
        raise ValueError(
            f"categories names column {outside[0]!r}, but frame has {frame.shape[1]} columns"
        )
    X = np.empty(frame.shape, dtype=np.float64)
    for index in range(frame.shape[1]):
        series = frame.iloc[:, index]
        if index not in categories:
            try:
                X[:, index] = series.to_numpy(dtype=np.float64, na_value=np.nan)
            except (TypeError, ValueError):
                raise ValueError(
                    f"frame: column {series.name!r} was numeric, but holds {series.dtype} "
                    "values that are not numbers"
                ) from None
            continue
        codes = pd.Index(categories[index]).get_indexer(series.to_numpy(dtype=object))
        missing = series.isna().to_numpy()
        new = (codes < 0) & ~missing
        if new.any() and unknown == "error":
            label = series.to_numpy(dtype=object)[np.flatnonzero(new)[0]]
            raise ValueError(
                f"frame: column {series.name!r} holds {label!r}, not among its categories "
                f"{_preview(categories[index])}; pass unknown='nan' to treat it as missing"
            )
        X[:, index] = np.where(codes < 0, np.nan, codes)
    return X


def _preview(labels, limit=10):
    """Labels for a message, cut after ``limit``."""
    shown = ", ".join(repr(label) for label in labels[:limit])
    return f"({shown}{', ...' if len(labels) > limit else ''})"
