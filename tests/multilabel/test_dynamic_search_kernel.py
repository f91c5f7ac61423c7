"""The greedy chain with per-row orders: the compiled kernel equals the numpy reference
bit for bit, and the search over several order sets equals one search per set.

Scores and label-pair terms on a small grid of halves make scores of exactly 0 common (the
threshold is strict: 0 decides "absent"), and sums of them exact, so any change in the
order of the additions or in the threshold shows.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlnb import _compiled
from mlnb.multilabel._inference import dynamic_greedy_search, dynamic_greedy_searches


@st.composite
def problems(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, L, n_sets = draw(st.integers(1, 30)), draw(st.integers(1, 9)), draw(st.integers(1, 4))
    grid = draw(st.booleans())

    def values(shape):
        if grid:
            return rng.integers(-2, 3, size=shape) / 2.0
        return rng.normal(size=shape) * rng.choice([1e-3, 1.0, 1e3])

    orders = np.stack([np.stack([rng.permutation(L) for _ in range(n)]) for _ in range(n_sets)])
    for s in range(1, n_sets):  # most rows keep their order, as neighbouring widths do
        stay = rng.random(n) < 0.7
        orders[s, stay] = orders[s - 1, stay]
    base = values((n, L))
    if draw(st.booleans()):
        base[rng.random((n, L)) < 0.1] = -np.inf  # a label never seen
    return base, values((L, L)), values((L, L)), orders


@pytest.mark.skipif(not _compiled.enabled(), reason="numba kernels turned off")
@settings(max_examples=200, deadline=None)
@given(problems())
def test_the_kernel_equals_the_numpy_reference(problem):
    base, weight, absent, orders = problem
    with _compiled.using(True):
        labels, log_odds = dynamic_greedy_search(base, weight, absent, orders[0])
    with _compiled.using(False):
        expected_labels, expected_log_odds = dynamic_greedy_search(
            base, weight, absent, orders[0], block=7
        )
    np.testing.assert_array_equal(labels, expected_labels)
    np.testing.assert_array_equal(log_odds, expected_log_odds)  # bit for bit, nan where nan


@settings(max_examples=100, deadline=None)
@given(problems(), st.booleans())
def test_the_searches_in_order_sets_equal_one_search_per_set(problem, compiled):
    base, weight, absent, orders = problem
    if compiled and not _compiled.enabled():
        compiled = False
    with _compiled.using(compiled):
        labels, log_odds = dynamic_greedy_searches(base, weight, absent, orders)
        for s, order in enumerate(orders):
            expected_labels, expected_log_odds = dynamic_greedy_search(base, weight, absent, order)
            np.testing.assert_array_equal(labels[s], expected_labels)
            np.testing.assert_array_equal(log_odds[s], expected_log_odds)


def test_a_hand_made_chain():
    """Two labels; the second's log-odds move by the first's decision."""
    base = np.array([[1.0, -0.5], [1.0, -0.5], [0.0, 2.0]])
    weight = np.array([[0.0, 0.0], [1.0, 0.0]])  # label 1 gains 1 when label 0 is present
    absent = np.array([[0.0, 0.0], [-0.25, 0.0]])  # and -0.25 once label 0 is decided
    orders = np.array([[0, 1], [1, 0], [0, 1]])
    for compiled in {False, _compiled.enabled()}:
        with _compiled.using(compiled):
            labels, log_odds = dynamic_greedy_search(base, weight, absent, orders)
        np.testing.assert_array_equal(labels, [[1, 1], [1, 0], [0, 1]])
        # row 0: label 1 after label 0 = 1: -0.5 - 0.25 + 1; row 2: score 0 decides absent
        np.testing.assert_array_equal(log_odds, [[1.0, 0.25], [1.0, -0.5], [0.0, 1.75]])
