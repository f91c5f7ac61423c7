"""Training and prediction on a Dask cluster, exact by additivity of the statistics.

Every estimator whose state is additive statistics (``partial_fit`` and ``merge``) trains
as a map-reduce, with no code specific to it:

1. *map*: a clone of the estimator is fitted (``partial_fit``) on each row partition of
   the data, in a task that runs where the partition lives;
2. *reduce*: the partition models are added with ``merge`` in a tree: pairs of models
   (``split_every`` of them) are merged level by level, so the reduction takes
   ``log2(n_partitions)`` steps and no single task receives every model.

The result equals a single-machine ``fit`` on all rows (to rounding): counts and sums add,
second moments combine with Chan et al.'s pairwise update (:mod:`mlnb.stats`).

*Classes.* A partition may lack some classes. Single-label classifiers (whose
``partial_fit`` takes ``classes=``) are given ``classes`` on every partition if it is given.
Otherwise each partition's model learns the classes of its own rows, and the reduction
aligns two models of different classes before merging them: a class a partition did not
see has zero statistics there, exactly the statistics it would have had with every class
given, so the result is the same, and ``y`` is read once, with X (a classifier that cannot
rebuild itself from aligned statistics, without ``from_statistics``, gets the classes from
a first pass over ``y`` instead). Multi-label estimators see all L label columns in every
partition; a label absent from a partition just has zero counts there.

*Empty partitions* (zero rows, e.g. after filtering a data frame) produce no model and are
skipped by the reduction.

Requires the optional Dask dependencies: ``pip install "mlnb[dask]"``. The computation
runs on the current Dask scheduler: the ``distributed.Client`` in use, if any.

Examples
--------
>>> import dask.array as da
>>> import numpy as np
>>> from mlnb import GaussianNB
>>> from mlnb import distributed as mlnb_dask
>>> rng = np.random.default_rng(0)
>>> X = da.from_array(rng.normal(size=(1000, 4)), chunks=(300, 4))
>>> y = da.from_array(np.repeat([0, 1], 500), chunks=300)
>>> model = mlnb_dask.fit(GaussianNB(), X, y)
>>> model.class_count_
array([500., 500.])
>>> labels = mlnb_dask.predict(model, X)  # lazy, one task per block of X
>>> labels.shape, labels.compute().shape
((1000,), (1000,))
"""

from __future__ import annotations

try:
    import dask
    import dask.array as da
except ImportError as exc:  # pragma: no cover - exercised by simulating a missing Dask
    raise ImportError(
        'mlnb.distributed needs Dask; install it with: pip install "mlnb[dask]"'
    ) from exc

import copy
import functools
import inspect

import numpy as np
import scipy.sparse as sp
from dask.utils import is_dataframe_like, is_series_like
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from .base import adopt_state, check_online, takes_classes
from .labels import is_label_lists, label_matrix
from .multilabel import chooses_settings, with_chosen_settings
from .multilabel._top_k import MODES, check_k, rows_per_chunk
from .stats import GroupStats

__all__ = [
    "fit",
    "fit_delayed",
    "predict",
    "predict_log_proba",
    "predict_proba",
    "predict_top_k",
    "tree_merge",
]


# ---- partitions ---------------------------------------------------------------------------
def _is_dask_frame(data) -> bool:
    """A Dask DataFrame or Series (without importing dask.dataframe)."""
    return dask.is_dask_collection(data) and (is_dataframe_like(data) or is_series_like(data))


def _row_partitions(data, name):
    """The row partitions of a Dask collection, each a list of its column blocks."""
    if _is_dask_frame(data):
        return [[part] for part in data.to_delayed()]
    if isinstance(data, da.Array):
        if data.ndim not in (1, 2):
            raise ValueError(f"{name} must be 1-D or 2-D; got {data.ndim} dimensions")
        # Not optimised one collection at a time: X and y made from one source (y computed
        # from X, or both from one read) then share its tasks in the fit's graph, computed
        # once; optimising each alone fuses the source into both, computed twice (GaussianNB
        # on 500,000 generated rows: 1.00 s against 0.75 s).
        blocks = data.to_delayed(optimize_graph=False)
        return [[block] for block in blocks] if data.ndim == 1 else [list(row) for row in blocks]
    raise TypeError(
        f"{name} must be a Dask array or DataFrame/Series; got {type(data).__name__} "
        "(use the estimator's own fit for in-memory data)"
    )


def _aligned(target, X, name):
    """``target`` (y or sample_weight) as a Dask collection partitioned as X's rows."""
    if target is None or dask.is_dask_collection(target):
        if isinstance(target, da.Array) and isinstance(X, da.Array):
            known = not (np.isnan(X.shape[0]) or np.isnan(target.shape[0]))
            if known and target.chunks[0] != X.chunks[0]:
                return target.rechunk({0: X.chunks[0]})
        return target
    if isinstance(X, da.Array) and not np.isnan(X.shape[0]):
        target = np.asarray(target)
        return da.from_array(target, chunks=(X.chunks[0], *((-1,) * (target.ndim - 1))))
    raise TypeError(
        f"{name} must be a Dask collection partitioned as X (an in-memory array is accepted "
        f"with a Dask array X of known chunk sizes); got {type(target).__name__}"
    )


def _stack(blocks):
    """One partition from its column blocks (numpy, sparse or data frame)."""
    if len(blocks) == 1:
        return blocks[0]
    if any(sp.issparse(block) for block in blocks):
        return sp.hstack(blocks, format="csr")
    return np.hstack(blocks)


def _unique(y):
    """Every distinct value of a Dask array or Series (one pass over ``y``)."""
    values = y.unique() if _is_dask_frame(y) else da.unique(y.ravel())
    return np.unique(np.asarray(values.compute()))


# ---- map and reduce -----------------------------------------------------------------------
def _fit_partition(template, X_blocks, y_blocks, w_blocks, kwargs):
    """A clone of ``template`` fitted on one partition; None for an empty partition."""
    X = _stack(X_blocks)
    if X.shape[0] == 0:
        return None
    y = _stack(y_blocks)
    one_column = getattr(y, "ndim", 1) == 2 and y.shape[1] == 1
    if "classes" in kwargs and one_column and not _class_valued_outputs(template):
        y = np.asarray(y).ravel()
    if "classes" in kwargs and kwargs["classes"] is None:  # this partition's own classes
        kwargs = {**kwargs, "classes": np.unique(np.asarray(y))}
    if w_blocks is not None:
        kwargs = {**kwargs, "sample_weight": _stack(w_blocks)}
    return clone(template).partial_fit(X, y, **kwargs)


def _merge_models(*models):
    """The merge of fitted models (None ones skipped); the inputs are left unchanged."""
    fitted = _on_common_classes([model for model in models if model is not None])
    if not fitted:
        return None
    merged = copy.deepcopy(fitted[0])
    for model in fitted[1:]:
        try:
            merged.merge(model)
        except ValueError as exc:
            raise ValueError(
                f"the models of two partitions do not merge: {exc}. An estimator that draws "
                "random choices when it starts learning (label orders, samples) needs an "
                "integer random_state, so that every partition draws the same ones"
            ) from exc
    return merged


def _class_valued_outputs(estimator):
    """Whether the estimator's targets are class-valued outputs (:mod:`mlnb.multitarget`):
    ``classes`` is then a list, every output's classes."""
    return callable(getattr(estimator, "target_classes", None))


def _output_classes(estimator, y):
    """Every output's sorted classes of a 2-D ``y`` (one pass over a Dask collection); of
    a 1-D ``y`` (one output), its classes. In memory, the estimator's own
    ``target_classes``."""
    if not dask.is_dask_collection(y):
        return estimator.target_classes(y)
    if getattr(y, "ndim", 2) == 1:
        return _unique(y)
    if _is_dask_frame(y):
        found = dask.compute(*[y.iloc[:, j].unique() for j in range(y.shape[1])])
    else:
        found = dask.compute(*[da.unique(y[:, j]) for j in range(y.shape[1])])
    return [np.unique(np.asarray(values)) for values in found]


def _aligns_classes(estimator):
    """Whether partition models of a single-label classifier may each learn their own
    classes and be aligned before merging (:func:`_on_common_classes`): the classifier
    rebuilds itself from per-class statistics (``from_statistics(stats, classes=...)``)."""
    rebuild = getattr(estimator, "from_statistics", None)
    if _class_valued_outputs(estimator):  # every partition is given all classes
        return False
    return callable(rebuild) and "classes" in inspect.signature(rebuild).parameters


def _on_common_classes(models):
    """The models, those of fewer classes than the union of all their classes brought to it.

    A class missing from a model gets zero statistics (:meth:`GroupStats.placed`): what the
    model's ``partial_fit`` makes of a class given but absent from its rows.
    """
    if len(models) < 2 or not _aligns_classes(models[0]):
        return models
    classes = [model.classes_ for model in models]
    if all(np.array_equal(c, classes[0]) for c in classes[1:]):
        return models
    union = functools.reduce(np.union1d, classes)
    return [_with_classes(model, union) for model in models]


def _with_classes(model, classes):
    """A copy of ``model`` with the sorted ``classes``, a superset of its own (``model``
    itself if they are its own)."""
    if np.array_equal(model.classes_, classes):
        return model
    if not isinstance(getattr(model, "stats_", None), GroupStats):
        raise TypeError(f"{type(model).__name__} holds no per-class statistics to align")
    stats = model.stats_.placed(np.searchsorted(classes, model.classes_), len(classes))
    aligned = copy.deepcopy(model)
    return aligned.from_statistics(stats, classes=classes, n_features=model.n_features_in_)


def tree_merge(models, split_every=2):
    """Reduce delayed fitted models (or None) to one delayed model, merging in a tree.

    Parameters
    ----------
    models : list of dask.delayed.Delayed
        Models to add up; each evaluates to a fitted estimator with ``merge``, or None.
    split_every : int, default=2
        Models merged per task: 2 builds a binary tree of ``ceil(log2(len(models)))`` levels.

    Returns
    -------
    dask.delayed.Delayed
        Evaluates to the merged model, or None if every input was None.
    """
    split_every = int(split_every)
    if split_every < 2:
        raise ValueError(f"split_every must be an integer >= 2; got {split_every}")
    level = list(models)
    if not level:
        raise ValueError("models: nothing to merge")
    while len(level) > 1:
        groups = [level[i : i + split_every] for i in range(0, len(level), split_every)]
        level = [g[0] if len(g) == 1 else dask.delayed(_merge_models)(*g) for g in groups]
    return level[0]


def fit_delayed(estimator, X, y=None, *, classes=None, sample_weight=None, split_every=2):
    """The lazy part of :func:`fit`: a Delayed that evaluates to a fitted clone (or None).

    Parameters are those of :func:`fit`. ``classes``, if needed and not given, is learnt by
    each partition and aligned at merge time, or (for a classifier that cannot be aligned)
    computed here with one pass over ``y``.
    """
    check_online(estimator, needs_merge=True)
    if y is None:
        raise ValueError("y is required: a label vector, label matrix or label column name(s)")
    if _is_dask_frame(X) and isinstance(y, (str, list)) and not is_label_lists(y):
        X, y = X.drop(columns=y), X[y]
    names = None
    if not takes_classes(estimator) and not dask.is_dask_collection(y):
        y, names = label_matrix(y)  # label lists or a DataFrame in memory: coded once
        y = y.toarray() if sp.issparse(y) else y
    X_parts = _row_partitions(X, "X")
    y = _aligned(y, X, "y")
    sample_weight = _aligned(sample_weight, X, "sample_weight")
    y_parts = _row_partitions(y, "y")
    w_parts = [None] * len(X_parts)
    if sample_weight is not None:
        w_parts = _row_partitions(sample_weight, "sample_weight")
    if not len(X_parts) == len(y_parts) == len(w_parts):
        raise ValueError(
            f"X has {len(X_parts)} row partitions, y {len(y_parts)} and sample_weight "
            f"{len(w_parts)}; they must be partitioned alike"
        )
    kwargs = {}
    if _class_valued_outputs(estimator):
        kwargs["classes"] = _output_classes(estimator, y) if classes is None else list(classes)
    elif takes_classes(estimator):
        if classes is not None:
            kwargs["classes"] = np.unique(np.asarray(classes))
        else:  # None: each partition's own (see _fit_partition and _on_common_classes)
            kwargs["classes"] = None if _aligns_classes(estimator) else _unique(y)
    template = clone(estimator)
    if chooses_settings(template):
        template = _settings_of_first_partition(template, X_parts, y_parts, w_parts, kwargs)
    models = [
        dask.delayed(_fit_partition)(template, x, t, w, kwargs)
        for x, t, w in zip(X_parts, y_parts, w_parts, strict=True)
    ]
    merged = tree_merge(models, split_every)
    return merged if names is None else dask.delayed(_with_label_names)(merged, names)


def _with_label_names(model, names):
    """The merged model with the names of the labels that were coded before the split."""
    if model is not None:
        model.label_names_ = names
    return model


def _settings_of_first_partition(template, X_parts, y_parts, w_parts, kwargs):
    """The estimator with the settings it chooses from the data (``events="tuned"``, ...)
    chosen on the first non-empty partition (computed now) and given explicitly, so that
    every partition's model is of the same settings and they merge."""
    for x, t, w in zip(X_parts, y_parts, w_parts, strict=True):
        first = dask.compute(dask.delayed(_fit_partition)(template, x, t, w, kwargs))[0]
        if first is not None:
            return with_chosen_settings(template, first)
    return template


def fit(estimator, X, y=None, *, classes=None, sample_weight=None, split_every=2):
    """Fit ``estimator`` on Dask data: a model per partition, merged in a tree.

    Parameters
    ----------
    estimator : estimator with ``partial_fit`` and ``merge``
        Any mlnb Naive Bayes estimator (single-label classifiers, BinaryRelevance,
        ClassifierChain, EnsembleClassifierChains, NaiBX, IMLNB, on their Naive Bayes path).
        Fitted in place (its earlier state is discarded) and returned. Settings it chooses
        from the data (``events="tuned"``, ``rule="tuned"``) are chosen on the first
        non-empty partition (computed first) and used for every partition.
    X : dask array or dask DataFrame of shape (n_samples, n_features)
        Dense or sparse (``scipy.sparse`` blocks) arrays; any chunking of the columns.
    y : dask array, dask Series/DataFrame, ndarray, label lists, or column name(s) of X
        Class labels (n_samples,) or a label-indicator matrix (n_samples, n_labels),
        partitioned as X's rows (a Dask array of other row chunks is rechunked; an
        in-memory array is split along X's chunks). In memory, label lists and a pandas
        DataFrame are coded once (:mod:`mlnb.labels`), and the model keeps their names.
        With a DataFrame X, a column name or list of names takes the labels from X and
        the other columns as features.
    classes : array-like, default=None
        Every class, for single-label classifiers; None: the classes of ``y``, each
        partition's model learning those of its rows (aligned when the models merge, so
        that ``y`` is read once with X). For class-valued outputs (:mod:`mlnb.multitarget`)
        a list of every output's classes; None: read from ``y`` with one pass first.
    sample_weight : dask array or Series of shape (n_samples,), default=None
        Partitioned as X's rows.
    split_every : int, default=2
        Models merged per task of the reduction tree (2: pairwise levels).

    Returns
    -------
    estimator
        The fitted estimator: equal, to rounding, to ``estimator.fit`` on all rows. For
        :class:`~mlnb.EnsembleClassifierChains`, whose ``partial_fit`` samples the rows of
        each chain online, it equals the per-partition ``partial_fit`` models merged.

    Raises
    ------
    ValueError
        If X has no rows, or X, y and sample_weight are partitioned differently.
    TypeError
        If the estimator has no ``partial_fit``/``merge`` or X is not a Dask collection.
    """
    model = dask.compute(
        fit_delayed(
            estimator,
            X,
            y,
            classes=classes,
            sample_weight=sample_weight,
            split_every=split_every,
        )
    )[0]
    if model is None:
        raise ValueError("X has no rows: every partition is empty")
    return adopt_state(estimator, model)


# ---- prediction ---------------------------------------------------------------------------
def _output_spec(estimator, method):
    """(number of output columns or None for a vector, dtype, column labels) of a method."""
    if isinstance(getattr(estimator, "n_labels_", None), (int, np.integer)):
        n_labels = int(estimator.n_labels_)
        if method == "predict":
            return n_labels, np.dtype(int), list(range(n_labels))
        return n_labels, np.dtype(np.float64), list(range(n_labels))
    classes = np.asarray(estimator.classes_)
    if method == "predict":
        return None, classes.dtype, None
    return len(classes), np.dtype(np.float64), list(classes)


def _apply(block, estimator, method, n_columns, dtype):
    """``estimator.<method>(block)``; an empty output for an empty block."""
    if block.shape[0] == 0:
        return np.empty((0,) if n_columns is None else (0, n_columns), dtype=dtype)
    return getattr(estimator, method)(block)


def _apply_frame(part, estimator, method, n_columns, dtype, columns):
    import pandas as pd

    values = _apply(part, estimator, method, n_columns, dtype)
    if n_columns is None:
        return pd.Series(values, index=part.index, name=method)
    return pd.DataFrame(values, index=part.index, columns=columns)


def _map_predict(estimator, X, method):
    check_is_fitted(estimator)
    if not callable(getattr(estimator, method, None)):
        raise AttributeError(f"{type(estimator).__name__} has no {method} method")
    n_columns, dtype, columns = _output_spec(estimator, method)
    model = dask.delayed(estimator)
    if _is_dask_frame(X):
        import pandas as pd

        if n_columns is None:
            meta = pd.Series(np.empty(0, dtype=dtype), name=method)
        else:
            meta = pd.DataFrame(np.empty((0, n_columns), dtype=dtype), columns=columns)
        return X.map_partitions(_apply_frame, model, method, n_columns, dtype, columns, meta=meta)
    if not isinstance(X, da.Array) or X.ndim != 2:
        raise TypeError(f"X must be a 2-D Dask array or DataFrame; got {type(X).__name__}")
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    shape = (0,) if n_columns is None else (0, n_columns)
    extra = {"drop_axis": 1} if n_columns is None else {"chunks": (X.chunks[0], (n_columns,))}
    return X.map_blocks(
        _apply,
        model,
        method,
        n_columns,
        dtype,
        dtype=dtype,
        meta=np.empty(shape, dtype=dtype),
        **extra,
    )


def predict(estimator, X):
    """Lazy ``estimator.predict`` of every block of X (``map_blocks`` / ``map_partitions``).

    Parameters
    ----------
    estimator : fitted estimator
    X : dask array (dense or sparse blocks) or dask DataFrame

    Returns
    -------
    dask array, or dask Series/DataFrame for a DataFrame X
        Classes (n_samples,) of a single-label classifier; 0/1 labels (n_samples, n_labels)
        of a multi-label one.
    """
    return _map_predict(estimator, X, "predict")


def predict_proba(estimator, X):
    """Lazy ``estimator.predict_proba`` of every block of X; see :func:`predict`.

    Returns class probabilities (n_samples, n_classes) of a single-label classifier, or
    per-label probabilities (n_samples, n_labels) of a multi-label one.
    """
    return _map_predict(estimator, X, "predict_proba")


def predict_log_proba(estimator, X):
    """Lazy ``estimator.predict_log_proba`` of every block of X (single-label classifiers)."""
    return _map_predict(estimator, X, "predict_log_proba")


def _top_k_partition(estimator, X_blocks, k, mode, batch_size):
    """``estimator.predict_top_k`` of one row partition (a 0-row matrix for an empty one)."""
    return estimator.predict_top_k(_stack(X_blocks), k, mode=mode, batch_size=batch_size)


def predict_top_k(estimator, X, k=5, *, mode="scores", batch_size=None):
    """Each row's ``k`` best labels, one task per row partition of X, as one sparse matrix.

    Every partition computes the multi-label estimator's
    :meth:`~mlnb.multilabel.BinaryRelevance.predict_top_k` where it lives (in chunks of
    ``batch_size`` rows); the partitions' sparse results, ``n * min(k, L)`` entries in
    all, are computed now (on the current Dask scheduler) and stacked in row order. The
    result equals ``estimator.predict_top_k`` on all rows in memory.

    Parameters
    ----------
    estimator : fitted multi-label estimator
    X : dask array (dense or sparse blocks, any column chunks) or dask DataFrame
    k : int, default=5
        Labels per row, >= 1.
    mode : {"scores", "labels"}, default="scores"
        Store the labels' scores, or 1 at each selected label.
    batch_size : int or None, default=None
        Rows scored at a time within a partition; None: chunks of a few MB.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_labels)
        In memory (not lazy, unlike :func:`predict`): ``min(k, L)`` stored entries per
        row, explicit zeros included.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from mlnb import BinaryRelevance
    >>> from mlnb import distributed as mlnb_dask
    >>> X = np.array([[3, 0, 1], [0, 2, 1], [1, 1, 2], [2, 1, 0]])
    >>> Y = np.array([[1, 0, 0], [0, 1, 1], [1, 1, 0], [1, 0, 0]])
    >>> model = BinaryRelevance(events="multinomial", rule="predict").fit(X, Y)
    >>> top = mlnb_dask.predict_top_k(model, da.from_array(X, chunks=(2, 3)), k=1)
    >>> (top != model.predict_top_k(X, k=1)).nnz
    0
    """
    check_is_fitted(estimator)
    if not callable(getattr(estimator, "predict_top_k", None)):
        raise AttributeError(f"{type(estimator).__name__} has no predict_top_k method")
    k = check_k(k)
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}.")
    rows_per_chunk(1, batch_size)  # a ValueError now, not in a task
    model = dask.delayed(estimator)
    parts = [
        dask.delayed(_top_k_partition)(model, blocks, k, mode, batch_size)
        for blocks in _row_partitions(X, "X")
    ]
    return sp.vstack(dask.compute(*parts), format="csr")
