"""The entry points of a multi-label estimator that take ``Y``: label forms and bounds.

:class:`~mlnb.multilabel._base.MultiLabelEstimator` wraps the ``fit``, ``partial_fit`` and
``retune`` that a subclass defines (as scikit-learn's ``set_output`` wraps ``transform``),
so that every estimator, present or future, takes ``Y`` in every form of
:mod:`mlnb.labels` without code of its own:

- ``Y`` is turned into a 0/1 matrix before the method runs (on the fitted ``label_names_``
  for ``partial_fit``, which may bring new labels, and ``retune``);
- a fit first checks its planned cost (the estimator's ``_planned_cost``) against the
  bounds of :mod:`mlnb.limits`;
- a fit that succeeds records ``label_names_``; one that raises leaves it as it was.

It wraps ``predict`` too, to give the label matrix in a chosen form:
``predict(X, output="dense")`` is the subclass's own (an int array), ``output="bool"`` a
bool array (an eighth of the memory) and ``output="sparse"`` a CSR matrix; both are made
a chunk of rows at a time (``batch_size`` rows, by default about 8 MB of dense labels),
so that a large label space never holds the dense n x L matrix (20,000 labels and 100,000
rows: 16 GB as int64). A chunk's labels are those of a prediction of its rows (equal for
every estimator whose labels of a row do not depend on the other rows predicted with it).

A fit that calls another entry point of the same estimator (``fit`` calling
``partial_fit``, a subclass calling ``super().fit``) passes the matrix on untouched: only
the outermost call converts, checks and records.
"""

from __future__ import annotations

import functools
from contextvars import ContextVar
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _num_samples

from ..labels import label_matrix
from ..limits import check_cost

__all__ = ["OUTPUTS", "fitted_names", "gives_label_forms", "takes_label_forms", "wrap_entry_points"]

#: The forms ``predict(X, output=...)`` gives the labels in.
OUTPUTS = ("dense", "bool", "sparse")

#: The methods wrapped, and whether each one fits (records names) and may add labels.
WRAPPED = {
    "fit": (True, False),
    "partial_fit": (True, True),
    "retune": (False, False),
    "forget": (False, False),
}


def wrap_entry_points(cls):
    """Wrap the ``fit``, ``partial_fit``, ``retune`` and ``forget`` that ``cls`` defines to
    take every label form, and its ``merge`` to refuse a model of other labels."""
    for name, (fits, grows) in WRAPPED.items():
        if name in vars(cls):
            setattr(cls, name, takes_label_forms(vars(cls)[name], fits=fits, grows=grows))
    if "merge" in vars(cls):
        cls.merge = merges_same_labels(vars(cls)["merge"])
    if "predict" in vars(cls):
        cls.predict = gives_label_forms(vars(cls)["predict"])


#: ids of the estimators inside a wrapped call (nested calls on them pass through).
_INSIDE = ContextVar("mlnb_label_forms_inside", default=frozenset())


def takes_label_forms(method, *, fits, grows):
    """``method(self, X, y, ...)`` taking ``y`` in any form of :mod:`mlnb.labels`."""
    if getattr(method, "_takes_label_forms", False):
        return method

    @functools.wraps(method)
    def wrapper(self, X, y=None, *args, **kwargs):
        inside = _INSIDE.get()
        if id(self) in inside:
            return method(self, X, y, *args, **kwargs)
        known = fitted_names(self) if (grows or not fits) else None
        Y, names = label_matrix(y, known, grow=grows)
        if fits and names is not None:
            _check_planned_cost(self, X, len(names))
        token = _INSIDE.set(inside | {id(self)})
        try:
            result = method(self, X, Y, *args, **kwargs)
        finally:
            _INSIDE.reset(token)
        if fits:
            self.label_names_ = names
        return result

    wrapper._takes_label_forms = True
    return wrapper


def gives_label_forms(method):
    """``predict(self, X)`` giving the labels in the form ``output`` of :data:`OUTPUTS`
    (see the module docstring)."""
    if getattr(method, "_gives_label_forms", False):
        return method

    @functools.wraps(method)
    def wrapper(self, X, *args, output="dense", batch_size=None, **kwargs):
        if output == "dense" and batch_size is None:
            return method(self, X, *args, **kwargs)
        if output not in OUTPUTS:
            raise ValueError(f"output must be one of {OUTPUTS}; got {output!r}")
        from ._top_k import rows_per_chunk  # (it imports the estimators' search)

        n_labels = getattr(self, "n_labels_", 1)
        step = rows_per_chunk(n_labels, batch_size)
        n_samples = _num_samples(X)
        parts = []
        for start in range(0, max(n_samples, 1), step):
            labels = method(self, _safe_indexing(X, slice(start, start + step)), *args, **kwargs)
            if output == "sparse":
                parts.append(sp.csr_matrix(labels))
            else:
                parts.append(np.asarray(labels, dtype=bool if output == "bool" else None))
        if output == "sparse":
            return sp.vstack(parts, format="csr") if len(parts) > 1 else parts[0]
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    wrapper._gives_label_forms = True
    return wrapper


def merges_same_labels(method):
    """``merge(self, other)`` refusing a model whose labels have other names (the same
    number of columns would be merged column by column, whatever they mean)."""
    if getattr(method, "_takes_label_forms", False):
        return method

    @functools.wraps(method)
    def wrapper(self, other, *args, **kwargs):
        mine, theirs = fitted_names(self), fitted_names(other)
        if mine is not None and theirs is not None and len(mine) == len(theirs):
            _check_same_names(mine.tolist(), theirs.tolist())  # other widths: merge says so
        return method(self, other, *args, **kwargs)

    wrapper._takes_label_forms = True
    return wrapper


def _check_same_names(mine, theirs):
    for column, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        if a != b:
            raise ValueError(
                f"cannot merge models of different labels: column {column} is {a!r} here and "
                f"{b!r} in the other; fit every part with Y coded on the same labels "
                "(mlnb.labels.label_matrix(Y, names))"
            )


def fitted_names(estimator):
    """The fitted ``label_names_``; ``0 .. L-1`` for a model fitted before they were kept
    (an older model file); None if not fitted."""
    names = vars(estimator).get("label_names_")
    if names is None and isinstance(vars(estimator).get("n_labels_"), Integral):
        return np.arange(estimator.n_labels_)
    return names


def _check_planned_cost(estimator, X, n_labels):
    """The bounds of :mod:`mlnb.limits` on the estimator's planned cost for X's shape."""
    shape = _shape(X)
    if shape is None:
        return  # not a table: the estimator's validation says what is wrong
    n_samples, n_features = shape
    estimator._validate_params()  # the cost reads the parameters: checked first
    cost = estimator._planned_cost(n_samples, n_features, n_labels)
    check_cost(
        type(estimator).__name__,
        cost,
        n_samples=n_samples,
        n_features=n_features,
        n_labels=n_labels,
    )


def _shape(X):
    """(rows, columns) of a table of any kind, without copying it; None if not 2-D."""
    shape = getattr(X, "shape", None) if sp.issparse(X) or hasattr(X, "shape") else None
    if shape is None:
        try:
            shape = np.shape(X)
        except ValueError:  # ragged rows
            return None
    return tuple(int(n) for n in shape) if len(shape) == 2 else None
