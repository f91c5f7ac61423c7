"""Every estimator of mlnb, found in its subpackages, and the instances the tests check.

The estimators are the scikit-learn estimators that :mod:`mlnb.naive_bayes`,
:mod:`mlnb.multilabel`, :mod:`mlnb.multitarget` and :mod:`mlnb.selection` export (their
``__all__``) and that a model file may hold (registered classes, :mod:`mlnb.io`): the models.
A search whose model is its ``best_estimator_``
(:class:`~mlnb.selection.FoldSubtractionSearchCV`) is not one.

Each estimator class declares the small, fast instances that the shared tests check as a
classmethod ``_unit_test_params()``: a list of keyword-argument dicts (as river's). The
single- and multi-label base classes give ``[{}]``, the defaults; a meta-estimator says
which estimator it wraps.

Examples
--------
>>> from mlnb.estimators import all_estimators, test_instances
>>> [cls.__name__ for cls in all_estimators("meta")]
['TunedThresholdsCV']
>>> [name for name, _ in test_instances("multi_label") if name.startswith("ClassifierC")][:2]
['ClassifierChain', 'ClassifierChain-inference=marginal']
"""

from __future__ import annotations

import importlib

from sklearn.base import BaseEstimator, MetaEstimatorMixin
from sklearn.utils import get_tags

from ._registered import Registered

__all__ = ["KINDS", "all_estimators", "test_instances"]

#: The kinds of estimator: a 1-D target, a 0/1 label matrix, a class per output, or a
#: wrapper of another one.
KINDS = ("single_label", "multi_label", "multi_target", "meta")
_MODULES = ("mlnb.naive_bayes", "mlnb.multilabel", "mlnb.multitarget", "mlnb.selection")


def all_estimators(kind=None):
    """The estimator classes that mlnb's subpackages export.

    Parameters
    ----------
    kind : {"single_label", "multi_label", "multi_target", "meta"} or None, default=None
        Only the estimators of this kind (None: all). ``"meta"``: scikit-learn's
        ``MetaEstimatorMixin``; the others by the ``multi_output`` and ``multi_label``
        tags of their first test instance.

    Returns
    -------
    list of type
        Sorted by class name.
    """
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS} or None; got {kind!r}")
    found = set()
    for module_name in _MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            # Registered: a model (a model file may hold it), not a search
            if (
                isinstance(obj, type)
                and issubclass(obj, BaseEstimator)
                and issubclass(obj, Registered)
            ):
                found.add(obj)
    classes = sorted(found, key=lambda cls: cls.__name__)
    return [cls for cls in classes if kind is None or _kind(cls) == kind]


def test_instances(kind=None):
    """An instance of every estimator for each of its ``_unit_test_params()``, with an id.

    Parameters
    ----------
    kind : {"single_label", "multi_label", "multi_target", "meta"} or None, default=None
        As :func:`all_estimators`.

    Returns
    -------
    list of (str, estimator)
        New, unfitted instances. The id is the class name; a second instance's adds the
        parameters that differ from the first's (``"ClassifierChain-inference=marginal"``).
    """
    pairs = []
    for cls in all_estimators(kind):
        params = _params(cls)
        for i, kwargs in enumerate(params):
            pairs.append((_id(cls, kwargs, params[0], i), cls(**kwargs)))
    return pairs


test_instances.__test__ = False  # not a test, when a test module imports it


def _params(cls):
    declared = getattr(cls, "_unit_test_params", None)
    if declared is None:
        raise TypeError(f"{cls.__name__} declares no _unit_test_params (see mlnb.estimators)")
    return list(declared())


def _kind(cls):
    if issubclass(cls, MetaEstimatorMixin):
        return "meta"
    tags = get_tags(cls(**_params(cls)[0]))
    if not tags.target_tags.multi_output:
        return "single_label"
    return "multi_label" if tags.classifier_tags.multi_label else "multi_target"


def _id(cls, kwargs, first, index):
    if index == 0:
        return cls.__name__
    changed = [
        f"{key}={_short(value)}"
        for key, value in kwargs.items()
        if key not in first or repr(first[key]) != repr(value)
    ]
    return "-".join([cls.__name__, *(changed or [str(index)])])


def _short(value):
    if value is None or isinstance(value, (str, bool, int, float)):
        return str(value)
    return type(value).__name__
