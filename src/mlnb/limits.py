"""Bounds on what a fit may plan, for parameters without an upper bound of their own.

Ensemble sizes (``n_chains``, ``n_estimators``, ``n_orders``, ``n_subsets``), searches
(``beam_width``, ``n_draws``, ``n_generations``, ``max_iter``) and neighbourhoods
(``n_neighbors``) are valid at any size, and their cost grows with them. A multi-label
estimator estimates at the start of ``fit`` / ``partial_fit``, from the shape of the data
and its parameters, how much it would hold and do:

- **memory**: float64 values held at once (statistics, sampled memberships, beams and draws
  of one row), against :data:`MAX_VALUES` (2**31 values, 16 GiB);
- **work**: member x row x label steps (a step is a few vectorised operations per feature or
  label), against :data:`MAX_STEPS` (10**11).

Beyond either, the fit raises :class:`ResourceLimitError` at once, naming the estimate and
the parameters behind it. The bounds are far above the benchmark sets at the papers'
settings (ensembles of 10 to 50 members, beam widths up to 10); to go past them knowingly:

- in Python: ``with mlnb.limits.lifted(): model.fit(X, Y)`` (in the calling thread);
- anywhere (the command line, worker processes): the environment variable
  ``MLNB_LIFT_LIMITS=1``.

Examples
--------
>>> import numpy as np
>>> from mlnb import EnsembleClassifierChains
>>> from mlnb.limits import ResourceLimitError, lifted
>>> rng = np.random.default_rng(0)
>>> X, Y = rng.poisson(2, (40, 5)), rng.integers(0, 2, (40, 3))
>>> model = EnsembleClassifierChains(n_chains=100_000_000, events="multinomial")
>>> try:
...     model.fit(X, Y)
... except ResourceLimitError as error:
...     print(str(error)[:55])
EnsembleClassifierChains(n_chains=100000000) on 40 rows
>>> with lifted():
...     big = EnsembleClassifierChains(n_chains=3, events="multinomial").fit(X, Y)
"""

from __future__ import annotations

import contextlib
import os
from contextvars import ContextVar
from typing import NamedTuple

__all__ = [
    "ENVIRONMENT_VARIABLE",
    "MAX_STEPS",
    "MAX_VALUES",
    "Cost",
    "ResourceLimitError",
    "are_lifted",
    "check_cost",
    "lifted",
]

#: float64 values a fit may plan to hold at once: 2**31 (16 GiB).
MAX_VALUES = 2**31
#: member x row x label steps a fit may plan: 10**11 (hours of work, at any width).
MAX_STEPS = 10**11
#: The environment variable that lifts the bounds when set to anything but "", "0" or "false".
ENVIRONMENT_VARIABLE = "MLNB_LIFT_LIMITS"

_LIFTED = ContextVar("mlnb_limits_lifted", default=False)


class ResourceLimitError(ValueError):
    """A fit whose estimated memory or work is beyond the bounds of :mod:`mlnb.limits`."""


class Cost(NamedTuple):
    """What a fit plans: ``values`` (float64 values held at once), ``steps`` (member x row x
    label steps) and ``params``, the parameters that drive them (``{"n_chains": 10}``)."""

    values: float
    steps: float
    params: dict


@contextlib.contextmanager
def lifted():
    """Lift the bounds for the fits inside the ``with`` block (this thread only).

    Examples
    --------
    >>> from mlnb.limits import are_lifted, lifted
    >>> with lifted():
    ...     are_lifted()
    True
    """
    token = _LIFTED.set(True)
    try:
        yield
    finally:
        _LIFTED.reset(token)


def are_lifted() -> bool:
    """Whether the bounds are lifted: inside :func:`lifted`, or by the environment variable
    :data:`ENVIRONMENT_VARIABLE`."""
    flag = os.environ.get(ENVIRONMENT_VARIABLE, "").strip().lower()
    return _LIFTED.get() or flag not in ("", "0", "false", "no")


def check_cost(who, cost, *, n_samples, n_features, n_labels):
    """Raise :class:`ResourceLimitError` when ``cost`` (a :class:`Cost`) is beyond the bounds,
    unless they are lifted; ``who`` names the estimator, the shape is the data's."""
    if cost is None or are_lifted():
        return
    over = []
    if cost.values > MAX_VALUES:
        over.append(
            f"hold about {cost.values:.2g} float64 values ({_bytes(8 * cost.values)}; the "
            f"bound is {MAX_VALUES:.2g}, {_bytes(8 * MAX_VALUES)})"
        )
    if cost.steps > MAX_STEPS:
        over.append(
            f"take about {cost.steps:.2g} member x row x label steps (the bound is {MAX_STEPS:.2g})"
        )
    if not over:
        return
    params = ", ".join(f"{name}={value!r}" for name, value in cost.params.items())
    raise ResourceLimitError(
        f"{who}({params}) on {n_samples} rows x {n_features} features x {n_labels} labels "
        f"would {' and '.join(over)}. Lower {' or '.join(cost.params)}; or, to run it "
        "knowingly, lift the bound: `with mlnb.limits.lifted(): model.fit(X, Y)`, or the "
        f"environment variable {ENVIRONMENT_VARIABLE}=1"
    )


def _bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} PiB"  # pragma: no cover
