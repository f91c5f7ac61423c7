"""The switch between compiled kernels and their numpy references.

A few hot loops (the kNN chain step, sparse squared distances, the CFS merit search, the
greedy chain with per-row orders) have two implementations: a
numpy reference, vectorised and readable, which the tests treat as the definition, and a
kernel compiled by numba, which gives the same result (bit for bit where the module says so)
without the reference's temporaries and Python-level steps. numba is a dependency; the
environment variable ``MLNB_KERNELS=numpy`` (or a missing numba) selects the references.

Kernels are compiled on first use and cached on disk beside the module (``cache=True``).

Examples
--------
>>> from mlnb import _compiled
>>> _compiled.enabled() in (True, False)
True
"""

from __future__ import annotations

import os
from contextlib import contextmanager

try:  # pragma: no cover - the import either works or it does not
    import numba
except ImportError:  # pragma: no cover
    numba = None

__all__ = ["enabled", "kernel", "using"]

_state = {"on": numba is not None and os.environ.get("MLNB_KERNELS", "numba") != "numpy"}


def enabled():
    """Whether the compiled kernels run (numba installed and not turned off)."""
    return _state["on"]


@contextmanager
def using(compiled):
    """Run the block with the kernels on (``True``) or the numpy references (``False``)."""
    if compiled and numba is None:
        raise RuntimeError("numba is not installed: the compiled kernels are unavailable")
    before = _state["on"]
    _state["on"] = bool(compiled)
    try:
        yield
    finally:
        _state["on"] = before


def kernel(function):
    """``function`` compiled in nopython mode with an on-disk cache; ``function`` itself,
    uncompiled, when numba is missing (it is then never called by the dispatchers)."""
    if numba is None:  # pragma: no cover
        return function
    return numba.njit(cache=True, nogil=True)(function)
