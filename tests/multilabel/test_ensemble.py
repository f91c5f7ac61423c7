"""EnsembleClassifierChains: one weighted pass equals K chains fitted on their samples.

The members decide by their own 0.5 rule, so the chains they are compared with are given
``rule="predict"`` (a ClassifierChain's default chooses a decision rule at fit), and the
event model is given explicitly (at ``events="tuned"`` it is chosen from the data).
"""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.utils import check_random_state

from mlnb import ClassifierChain, EnsembleClassifierChains
from mlnb.multilabel._sampling import sample_memberships

from .test_chain import dependent_labels


def test_one_chain_on_all_rows_is_a_classifier_chain():
    X, Y = dependent_labels(0)
    ensemble = EnsembleClassifierChains(
        n_chains=1, sample_fraction=1.0, events="gaussian", rule="predict", random_state=3
    )
    ensemble.fit(X, Y)
    chain = ClassifierChain(events="gaussian", rule="predict", order=ensemble.orders_[0])
    chain.fit(X, Y)
    np.testing.assert_array_equal(ensemble.predict(X), chain.predict(X))


@pytest.mark.parametrize("bootstrap", [False, True])
def test_each_member_equals_a_chain_fitted_on_its_sample(bootstrap):
    X, Y = dependent_labels(1, counts=True)
    K, seed = 5, 11
    ensemble = EnsembleClassifierChains(
        n_chains=K,
        events="multinomial",
        bootstrap=bootstrap,
        voting="soft",
        rule="predict",
        random_state=seed,
    ).fit(X, Y)
    rng = check_random_state(seed)
    orders = [rng.permutation(Y.shape[1]) for _ in range(K)]
    membership = sample_memberships(rng, len(X), K, 0.66, bootstrap)
    assert np.allclose(membership.sum(axis=0), round(0.66 * len(X)))
    members = [
        ClassifierChain(events="multinomial", rule="predict", order=order).fit(
            X, Y, sample_weight=membership[:, k]
        )
        for k, order in enumerate(orders)
    ]
    for order, expected in zip(ensemble.orders_, orders, strict=True):
        np.testing.assert_array_equal(order, expected)
    expected = np.mean([m.predict_proba(X) for m in members], axis=0)
    np.testing.assert_allclose(ensemble.predict_proba(X), expected, rtol=1e-9)
    hard = ensemble.set_params(voting="hard").predict(X)
    votes = np.mean([m.predict(X) for m in members], axis=0)
    np.testing.assert_array_equal(hard, (votes > 0.5).astype(int))


def test_same_seed_same_ensemble_and_merge_of_partitions():
    X, Y = dependent_labels(2)
    a = EnsembleClassifierChains(n_chains=4, random_state=0).fit(X, Y)
    b = EnsembleClassifierChains(n_chains=4, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    online = EnsembleClassifierChains(n_chains=4, random_state=0)
    for rows in np.array_split(np.arange(len(X)), 3):
        online.partial_fit(X[rows], Y[rows])
    assert online.predict(X).shape == Y.shape
    first = EnsembleClassifierChains(n_chains=4, random_state=0).partial_fit(X[:150], Y[:150])
    second = EnsembleClassifierChains(n_chains=4, random_state=0).partial_fit(X[150:], Y[150:])
    with pytest.raises(ValueError, match="same type and hyper-parameters"):
        first.merge(EnsembleClassifierChains(n_chains=4, random_state=1).fit(X, Y))
    merged = first.merge(second)
    assert merged.feature_stats_.total_count == len(X)


def test_generic_base_and_bad_parameters():
    X, Y = dependent_labels(3)
    model = EnsembleClassifierChains(
        n_chains=3, base_estimator=LogisticRegression(), random_state=0
    )
    predicted = model.fit(X, Y).predict(X)
    assert predicted.shape == Y.shape and (predicted == Y).mean() > 0.8
    for bad, message in [
        ({"n_chains": 0}, "n_chains"),
        ({"sample_fraction": 1.5}, "sample_fraction"),
        ({"voting": "median"}, "voting"),
    ]:
        with pytest.raises(ValueError, match=message):
            EnsembleClassifierChains(**bad).fit(X, Y)


@pytest.mark.parametrize(
    "events,inference,budget",
    [
        ("gaussian", "greedy", 1),  # one chain per stacked batch
        ("multinomial", "beam", None),  # stacked scoring, one beam search per chain
        ("bayesian_gaussian", "greedy", None),  # no stacked estimate: chain by chain
        ("bernoulli", "greedy", None),
    ],
)
def test_every_prediction_path_equals_the_members(events, inference, budget, monkeypatch):
    import mlnb.multilabel.ensemble as ensemble_module

    if budget is not None:
        monkeypatch.setattr(ensemble_module, "_STACK_BUDGET", budget)
    X, Y = dependent_labels(4, counts=events != "gaussian" and events != "bayesian_gaussian")
    K, seed = 3, 5
    ensemble = EnsembleClassifierChains(
        n_chains=K,
        events=events,
        inference=inference,
        voting="soft",
        rule="predict",
        random_state=seed,
    ).fit(X, Y)
    rng = check_random_state(seed)
    orders = [rng.permutation(Y.shape[1]) for _ in range(K)]
    membership = sample_memberships(rng, len(X), K, 0.66, False)
    members = [
        ClassifierChain(events=events, rule="predict", inference=inference, order=order).fit(
            X, Y, sample_weight=membership[:, k]
        )
        for k, order in enumerate(orders)
    ]
    expected = np.mean([m.predict_proba(X) for m in members], axis=0)
    np.testing.assert_allclose(ensemble.predict_proba(X), expected, rtol=1e-9, atol=1e-12)
    votes = np.mean([m.predict(X) for m in members], axis=0)
    hard = ensemble.set_params(voting="hard").predict(X)
    np.testing.assert_array_equal(hard, (votes > 0.5).astype(int))


def test_soft_scores_rank_better_than_hard_votes(shared_dataset):
    from mlnb.metrics import label_ranking_loss

    train, test = shared_dataset("yeast", "train"), shared_dataset("yeast", "test")
    model = EnsembleClassifierChains(n_chains=10, random_state=0).fit(train.X, train.Y)
    scores = model.decision_function(test.X)
    assert np.all(np.isfinite(scores)) and scores.shape == test.Y.shape
    soft = label_ranking_loss(test.Y, scores)
    hard = label_ranking_loss(test.Y, model.predict_proba(test.X))  # vote fractions
    assert soft < hard - 0.02
