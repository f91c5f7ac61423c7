"""Weight tables built once per fitted state: reused by every prediction, never stale."""

from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mlnb import BinaryRelevance, ClassifierChain
from mlnb.events import Bernoulli, Multinomial
from mlnb.multilabel import _label_model


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


OPERATIONS = ("predict", "one row", "batch", "merge", "fit")


@settings(max_examples=40, deadline=None)
@given(
    events=st.sampled_from(["multinomial", "bernoulli", "gaussian"]),
    estimator=st.sampled_from([BinaryRelevance, ClassifierChain]),
    compact=st.booleans(),
    operations=st.lists(st.sampled_from(OPERATIONS), min_size=1, max_size=8),
    seed=st.integers(0, 10_000),
)
def test_cached_tables_follow_any_sequence_of_state_changes(
    events, estimator, compact, operations, seed
):
    """After any sequence of fit / partial_fit (one row: the fast path; a batch) / merge,
    with predictions between them (which cache the tables), the scores equal a model
    fitted afresh on the rows seen so far."""
    rng = np.random.default_rng(seed)
    X_all, Y_all = _data(seed, n=400)
    X_all = sp.csr_matrix(X_all.astype(float))
    probe = X_all[:20]
    taken = 20

    def take(n):
        nonlocal taken
        taken += n
        return X_all[taken - n : taken], Y_all[taken - n : taken]

    with mock.patch.object(_label_model, "COMPACT_ENTRIES", 0 if compact else 1 << 40):
        seen_X, seen_Y = take(15)
        seen_X, seen_Y = [seen_X], [seen_Y]
        model = estimator(events=events, rule="predict").fit(seen_X[0], seen_Y[0])
        for operation in operations:
            if operation == "predict":
                model.decision_function(probe)
                continue
            if operation == "fit":
                X, Y = take(10)
                model.fit(X, Y)
                seen_X, seen_Y = [X], [Y]
                continue
            X, Y = take(1 if operation == "one row" else int(rng.integers(2, 9)))
            if operation == "merge":
                model.merge(estimator(events=events, rule="predict").fit(X, Y))
            else:
                model.partial_fit(X.toarray() if operation == "one row" else X, Y)
            seen_X.append(X)
            seen_Y.append(Y)
            afresh = estimator(events=events, rule="predict").fit(
                sp.vstack(seen_X), np.vstack(seen_Y)
            )
            expected = afresh.decision_function(probe)
            # a count feature constant among a label's rows has a variance of 0 up to the
            # rounding of Welford's update against the batch formula, which the floored
            # variance turns into log-odds near 1e9 equal to about 1e-7 relative; a stale
            # table differs by a whole batch of rows
            gaussian = events == "gaussian"
            scale = 1e-13 * np.abs(expected).max()
            np.testing.assert_allclose(
                model.decision_function(probe),
                expected,
                rtol=1e-6 if gaussian else 1e-9,
                atol=1e-9 + scale,
            )
            if events != "gaussian":
                assert model.feature_stats_.compact == compact
