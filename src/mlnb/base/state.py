"""Estimator state helpers: all-or-nothing updates, merge compatibility checks, and the
checks and state transfer that training from chunks (:mod:`mlnb.streaming`) and from
partitions (:mod:`mlnb.distributed`) share."""

from __future__ import annotations

import functools

import numpy as np
from sklearn.utils.validation import check_is_fitted

__all__ = [
    "adopt_state",
    "atomic",
    "check_mergeable",
    "check_online",
    "same_params",
]


def atomic(method):
    """Decorate a method so that a call that raises leaves the object as it was.

    The attributes are restored from a shallow snapshot: methods that replace arrays
    (rather than modify them in place) are fully undone.
    """

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        snapshot = dict(self.__dict__)
        try:
            return method(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(snapshot)
            raise

    return wrapper


def check_mergeable(estimator, other, *attributes):
    """Raise unless ``other`` can be merged into ``estimator``.

    Both must be fitted, of the same type and hyper-parameters, and agree on the fitted
    ``attributes`` (for example ``n_features_in_`` or ``classes_``).
    """
    check_is_fitted(estimator)
    check_is_fitted(other)
    if type(other) is not type(estimator) or not same_params(
        other.get_params(deep=False), estimator.get_params(deep=False)
    ):
        raise ValueError("can only merge estimators of the same type and hyper-parameters")
    for name in attributes:
        mine, theirs = getattr(estimator, name), getattr(other, name)
        if isinstance(mine, list):
            same = len(mine) == len(theirs) and all(
                np.array_equal(a, b) for a, b in zip(mine, theirs, strict=True)
            )
        else:
            same = np.array_equal(mine, theirs)
        if not same:
            raise ValueError(f"{name} differ: {mine!r} and {theirs!r}")


def same_params(a, b):
    """Whether two hyper-parameter values are equal: estimators (event models) by type and
    parameters, arrays by value, containers element by element."""
    if hasattr(a, "get_params") and hasattr(b, "get_params"):
        return type(a) is type(b) and same_params(
            a.get_params(deep=False), b.get_params(deep=False)
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_params(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(same_params(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b)
    return a is b or a == b


def check_online(estimator, *, needs_merge=False):
    """Raise unless the estimator learns from batches (and, if asked, merges models)."""
    if getattr(estimator, "base_estimator", None) is not None:
        raise ValueError(
            f"{type(estimator).__name__} with a base_estimator has no partial_fit or merge; "
            "only the Naive Bayes path (base_estimator=None) trains from chunks"
        )
    required = ("partial_fit", "merge") if needs_merge else ("partial_fit",)
    missing = [name for name in required if not callable(getattr(estimator, name, None))]
    if missing:
        raise TypeError(
            f"{type(estimator).__name__} has no {' or '.join(missing)} method: it cannot be "
            "trained " + ("partition by partition" if needs_merge else "from chunks")
        )


def adopt_state(estimator, fitted):
    """Give ``estimator`` the fitted state of ``fitted`` (a fitted clone of it); return it.

    Hyper-parameters stay the estimator's own objects; every other attribute (the fitted
    state) is replaced, as ``estimator.fit`` would do.
    """
    params = estimator.get_params(deep=False)
    for name in [name for name in vars(estimator) if name not in params]:
        delattr(estimator, name)
    vars(estimator).update({k: v for k, v in vars(fitted).items() if k not in params})
    return estimator
