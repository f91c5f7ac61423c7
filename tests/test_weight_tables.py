"""Weight tables built once per fitted state: reused by every prediction, never stale."""

import numpy as np
import pytest

from mlnb import BinaryRelevance, ClassifierChain
from mlnb.events import Bernoulli, Multinomial


def _data(seed, n=80):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 3)) < 0.4).astype(int)
    return rng.poisson(1.0 + 2 * np.repeat(Y, 4, axis=1)), Y


@pytest.mark.parametrize("events", [Multinomial(alpha=0.5), Bernoulli(alpha=0.5)])
@pytest.mark.parametrize("estimator", [BinaryRelevance, ClassifierChain])
def test_tables_cached_by_a_prediction_follow_every_change_of_the_statistics(events, estimator):
    """Predict (which caches the tables), then partial_fit and merge: the scores equal a
    model fitted afresh on the same rows, and repeated calls give identical scores."""
    X1, Y1 = _data(1)
    X2, Y2 = _data(2)
    X3, Y3 = _data(3)
    model = estimator(events=events, rule="predict").fit(X1, Y1)
    first = model.decision_function(X3)
    np.testing.assert_array_equal(model.decision_function(X3), first)  # from the cache
    model.partial_fit(X2, Y2)
    both = estimator(events=events, rule="predict").fit(np.vstack([X1, X2]), np.vstack([Y1, Y2]))
    np.testing.assert_allclose(model.decision_function(X3), both.decision_function(X3))
    other = estimator(events=events, rule="predict").fit(X3, Y3)
    model.merge(other)
    every = estimator(events=events, rule="predict").fit(
        np.vstack([X1, X2, X3]), np.vstack([Y1, Y2, Y3])
    )
    np.testing.assert_allclose(model.decision_function(X1), every.decision_function(X1))
