"""Best-of timing of repeated calls: what ``mlnb bench`` and the benchmark scripts report."""

from __future__ import annotations

import time
from typing import Any, NamedTuple

__all__ = ["Timing", "best_time"]


class Timing(NamedTuple):
    """What :func:`best_time` measured."""

    seconds: float  #: best wall time of one call
    result: Any  #: what the last call returned
    runs: int  #: number of calls
    cpu_seconds: float  #: best CPU time of the process during one call


def best_time(function, repeat=3, *, min_seconds=0.0, max_runs=200, max_seconds=None):
    """Time ``function()`` by the best of repeated calls.

    At least ``repeat`` calls, more while the calls so far took under ``min_seconds`` in
    all (so that a timing of milliseconds is not one noisy sample), at most ``max_runs``,
    and none after a call that took over ``max_seconds``.

    Examples
    --------
    >>> from mlnb.evaluation import best_time
    >>> timing = best_time(lambda: sum(range(1000)), repeat=5)
    >>> timing.runs, timing.result
    (5, 499500)
    >>> seconds, result = timing[:2]  # the best time and the last result
    >>> seconds > 0
    True
    """
    walls, cpus = [], []
    while True:
        cpu, start = time.process_time(), time.perf_counter()
        result = function()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
        if max_seconds is not None and walls[-1] > max_seconds:
            break
        enough = len(walls) >= max(int(repeat), 1) and sum(walls) >= min_seconds
        if enough or len(walls) >= max_runs:
            break
    return Timing(min(walls), result, len(walls), min(cpus))
