"""best_time: the repeats it makes, on a fake clock (no wall-clock assertion)."""

import types

import pytest

from mlnb.evaluation import _timing, best_time


@pytest.fixture
def clock(monkeypatch):
    """A clock under the test's control: each call of the timed function lasts as the
    next value of ``clock.durations`` says."""
    state = types.SimpleNamespace(now=0.0, durations=[])

    def function():
        state.now += state.durations.pop(0)
        return len(state.durations)

    fake = types.SimpleNamespace(perf_counter=lambda: state.now, process_time=lambda: state.now)
    monkeypatch.setattr(_timing, "time", fake)
    state.function = function
    return state


def test_repeats_and_keeps_the_best_and_the_last_result(clock):
    clock.durations = [0.3, 0.1, 0.2, 9.0]
    timing = best_time(clock.function, repeat=3)
    assert timing.runs == 3 and timing.seconds == pytest.approx(0.1)
    assert timing.result == 1 and timing[:2] == (timing.seconds, 1)
    assert timing.cpu_seconds == pytest.approx(0.1)


def test_more_calls_until_min_seconds_at_most_max_runs(clock):
    clock.durations = [0.1] * 10
    assert best_time(clock.function, repeat=2, min_seconds=0.35).runs == 4
    clock.durations = [0.1] * 10
    assert best_time(clock.function, repeat=2, min_seconds=5.0, max_runs=6).runs == 6


def test_no_call_after_a_slow_one(clock):
    clock.durations = [0.5, 20.0, 0.5, 0.5]
    timing = best_time(clock.function, repeat=4, max_seconds=10)
    assert timing.runs == 2 and timing.seconds == pytest.approx(0.5)
