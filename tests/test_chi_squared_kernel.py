"""The compiled chi-squared statistic equals the numpy one bit for bit (scikit-learn's
``chi2`` statistic from group sums, Yang and Pedersen 1997)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlnb import _compiled
from mlnb.events.selection import chi_squared

pytestmark = pytest.mark.skipif(not _compiled.enabled(), reason="numba kernels turned off")


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.integers(1, 30), st.booleans())
def test_the_kernel_equals_numpy(seed, groups, features, counts_of_zero):
    rng = np.random.default_rng(seed)
    sums_a = rng.integers(0, 4, size=(groups, features)) * rng.uniform(0.1, 3.0)
    sums_b = rng.integers(0, 4, size=(groups, features)) * rng.uniform(0.1, 3.0)
    count_a, count_b = (
        rng.integers(0, 50, size=groups) * 1.0,
        rng.integers(0, 50, size=groups) * 1.0,
    )
    if counts_of_zero:
        count_a[0] = count_b[0] = 0.0  # no rows at all: every expected sum 0
    with _compiled.using(True):
        fast = chi_squared(sums_a, count_a, sums_b, count_b)
    with _compiled.using(False):
        reference = chi_squared(sums_a, count_a, sums_b, count_b)
    np.testing.assert_array_equal(fast.view(np.int64), reference.view(np.int64))


def test_a_hand_made_table():
    """Two groups of 2 rows; the feature sums 2 in a and 0 in b: expected 1 and 1, so
    (2 - 1)^2 / 1 + (0 - 1)^2 / 1 = 2; a feature never seen scores 0."""
    for compiled in {False, _compiled.enabled()}:
        with _compiled.using(compiled):
            statistic = chi_squared([[2.0, 0.0]], [2.0], [[0.0, 0.0]], [2.0])
        np.testing.assert_array_equal(statistic, [[2.0, 0.0]])
