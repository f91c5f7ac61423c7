"""Timing for the benchmark scripts: the best wall time of repeated runs."""

from __future__ import annotations

import time


def best_time(function, repeat=3, min_seconds=0.0):
    """Best wall time of ``function()`` over ``repeat`` runs, or fewer once the runs so far
    took ``min_seconds`` in all; returns (seconds, the last run's result)."""
    best, spent, result = float("inf"), 0.0, None
    for _ in range(max(int(repeat), 1)):
        start = time.perf_counter()
        result = function()
        elapsed = time.perf_counter() - start
        best, spent = min(best, elapsed), spent + elapsed
        if min_seconds and spent >= min_seconds:
            break
    return best, result
