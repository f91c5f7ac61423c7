"""The classes a model file may name (:mod:`mlnb.io`), registered as they are defined.

A leaf: event models, parameter objects, decision rules and estimators all derive from
:class:`Registered`, whatever their layer.
"""

from __future__ import annotations

__all__ = ["Registered", "registered_classes"]

# Classes by qualified name, as they are defined (see Registered).
_REGISTRY = {}


class Registered:
    """Base of the classes a model file may name: mlnb's estimators, event models and
    parameter objects, and every subclass of them that a user's code defines.

    A class is registered when it is defined, so :mod:`mlnb.io` can rebuild it; a file can
    only name classes that the loading process has already defined (it never imports).
    """

    #: Qualified names the class had before it moved (files saved then name it so).
    _former_names = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _REGISTRY[f"{cls.__module__}.{cls.__qualname__}"] = cls
        for name in cls.__dict__.get("_former_names", ()):
            _REGISTRY[name] = cls


def registered_classes():
    """Every :class:`Registered` class defined so far, by qualified name."""
    return dict(_REGISTRY)
