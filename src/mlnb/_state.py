"""Estimator state helpers: all-or-nothing updates and merge compatibility checks."""

from __future__ import annotations

import functools

import numpy as np
from sklearn.utils.validation import check_is_fitted

__all__ = ["atomic", "check_mergeable"]


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
    if type(other) is not type(estimator) or other.get_params() != estimator.get_params():
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
