"""LabelPowerset and RAkEL."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from mlnb import LabelPowerset, MultinomialNB, RAkEL

from .test_chain import dependent_labels


def test_label_powerset_is_multiclass_nb_on_label_sets():
    X, Y = dependent_labels(0, counts=True)
    sets, classes = np.unique(Y, axis=0, return_inverse=True)
    expected = sets[MultinomialNB().fit(X, classes.ravel()).predict(X)]
    model = LabelPowerset(events="multinomial").fit(X, Y)
    np.testing.assert_array_equal(model.predict(X), expected)
    posterior = MultinomialNB().fit(X, classes.ravel()).predict_proba(X)
    np.testing.assert_allclose(model.predict_proba(X), posterior @ sets, rtol=1e-9)


def test_partial_fit_with_label_sets_first_seen_later_equals_fit():
    X, Y = dependent_labels(1, counts=True)
    order = np.argsort(Y.sum(axis=1), kind="stable")  # small label sets first
    X, Y = X[order], Y[order]
    whole = LabelPowerset(events="multinomial").fit(X, Y)
    online = LabelPowerset(events="multinomial")
    for rows in np.array_split(np.arange(len(X)), 5):
        online.partial_fit(X[rows], Y[rows])
    np.testing.assert_array_equal(online.predict(X), whole.predict(X))
    np.testing.assert_allclose(online.predict_proba(X), whole.predict_proba(X), rtol=1e-9)


def test_rakel_disjoint_with_all_labels_is_label_powerset_and_subsets_are_valid():
    X, Y = dependent_labels(2)
    lp = LabelPowerset().fit(X, Y).predict(X)
    np.testing.assert_array_equal(RAkEL(k=6, mode="disjoint").fit(X, Y).predict(X), lp)
    disjoint = RAkEL(k=4, mode="disjoint", random_state=0).fit(X, Y)
    assert sorted(np.concatenate(disjoint.subsets_)) == list(range(6))
    overlapping = RAkEL(k=3, n_subsets=10, random_state=0).fit(X, Y)
    subsets = {tuple(s) for s in overlapping.subsets_}
    assert len(subsets) == 10 and all(len(s) == 3 for s in subsets)
    again = RAkEL(k=3, n_subsets=10, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(again.predict(X), overlapping.predict(X))
    assert (overlapping.predict(X) == Y).mean() > 0.75


def test_rakel_votes_by_hand():
    # two subsets {0, 1} and {1, 2}: label 1 gets the mean of two votes
    X, Y = dependent_labels(3, n_labels=3)
    model = RAkEL(k=2, n_subsets=3, random_state=0).fit(X, Y)
    per_subset = list(model._subset_marginals(X))
    votes = np.zeros(Y.shape)
    counts = np.zeros(3)
    for subset, _, predicted in per_subset:
        votes[:, subset] += predicted
        counts[subset] += 1
    np.testing.assert_array_equal(model.predict(X), (votes / counts > 0.5).astype(int))


def test_generic_base_and_bad_parameters():
    X, Y = dependent_labels(4)
    model = RAkEL(base_estimator=LogisticRegression(max_iter=1000), random_state=0).fit(X, Y)
    assert (model.predict(X) == Y).mean() > 0.8
    assert np.all((model.predict_proba(X) >= 0) & (model.predict_proba(X) <= 1))
    with pytest.raises(ValueError, match="mode"):
        RAkEL(mode="nested").fit(X, Y)
    with pytest.raises(ValueError, match="'k' parameter"):
        RAkEL(k=0).fit(X, Y)


def test_merge_of_partitions_with_different_label_sets_equals_fit():
    X, Y = dependent_labels(5, counts=True)
    order = np.argsort(Y.sum(axis=1), kind="stable")  # partitions see different label sets
    X, Y = X[order], Y[order]
    for model in (LabelPowerset(events="multinomial"), RAkEL(events="multinomial", random_state=0)):
        whole = model.__class__(**model.get_params()).fit(X, Y)
        first = model.__class__(**model.get_params()).fit(X[:150], Y[:150])
        second = model.__class__(**model.get_params()).fit(X[150:], Y[150:])
        merged = first.merge(second)
        np.testing.assert_array_equal(merged.predict(X), whole.predict(X))
        np.testing.assert_allclose(merged.predict_proba(X), whole.predict_proba(X), rtol=1e-9)


@pytest.mark.parametrize("make", [lambda: LabelPowerset(), lambda: RAkEL(random_state=0)])
def test_decision_function_is_the_unsaturated_log_odds_of_predict_proba(make, shared_dataset):
    from scipy.special import logit

    train, test = shared_dataset("yeast", "train"), shared_dataset("yeast", "test")
    model = make().fit(train.X, train.Y)
    scores, proba = model.decision_function(test.X), model.predict_proba(test.X)
    assert np.all(np.isfinite(scores))
    inside = (proba > 1e-9) & (proba < 1 - 1e-9)
    np.testing.assert_allclose(scores[inside], logit(proba[inside]), atol=1e-4)
    # where the probabilities saturate the scores still order the labels
    assert np.all(scores[proba == 1.0] > 20) and np.all(scores[proba == 0.0] < -20)


def test_log_sides_equal_brute_force_sums_far_below_the_best():
    from scipy.special import logsumexp

    from mlnb.multilabel.powerset import _log_sides

    rng = np.random.default_rng(0)
    joint = rng.normal(scale=2000.0, size=(30, 12))  # sides thousands below the best
    joint[0, :] = -np.inf  # an impossible row
    joint[1, 3] = -np.inf
    sets = rng.integers(0, 2, size=(12, 5)).astype(float)
    sets[:, 4] = 1.0  # a label in every set: its lacking side is empty
    holding, lacking, total = _log_sides(joint, sets)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(total.ravel(), logsumexp(joint, axis=1), rtol=1e-12)
    for label in range(5):
        on = sets[:, label] > 0
        with np.errstate(divide="ignore"):
            expected_holding = logsumexp(np.where(on, joint, -np.inf), axis=1)
            expected_lacking = logsumexp(np.where(~on, joint, -np.inf), axis=1)
        np.testing.assert_allclose(holding[:, label], expected_holding, rtol=1e-12)
        np.testing.assert_allclose(lacking[:, label], expected_lacking, rtol=1e-12)
    assert np.isneginf(lacking[:, 4]).all()
    assert (
        np.isfinite(holding[1:]).all()
        and (holding[1:] - joint[1:].max(axis=1, keepdims=True) < -745).any()
    )


def test_decision_function_keeps_log_odds_beyond_745(shared_dataset):
    train, test = shared_dataset("scene", "train"), shared_dataset("scene", "test")
    model = LabelPowerset(events="gaussian").fit(train.X, train.Y)  # far-apart label sets
    scores = model.decision_function(test.X)
    assert np.isfinite(scores).all()
    beyond = np.abs(scores) > 745
    assert beyond.any()
    assert len(np.unique(scores[beyond])) > 0.9 * beyond.sum()  # ranked, not tied at a bound
