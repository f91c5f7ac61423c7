"""The ensembles' decision rule chosen out of bag (``rule="tuned"``, their default)."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone

from mlnb.decision_rules import Threshold
from mlnb.multilabel import (
    OOCC,
    BaggedBinaryRelevance,
    CardinalityWarning,
    DynamicChain,
    DynamicChainEnsemble,
    EnsembleClassifierChains,
    GeneticChainEnsemble,
)
from mlnb.multilabel._out_of_bag import OutOfBag

from .test_chain import dependent_labels

ENSEMBLES = {
    "ECC": lambda **kw: EnsembleClassifierChains(n_chains=4, random_state=0, **kw),
    "bagged BR": lambda **kw: BaggedBinaryRelevance(n_estimators=4, random_state=0, **kw),
    "DCE": lambda **kw: DynamicChainEnsemble(n_chains=3, beta=2.0, random_state=0, **kw),
    "DC": lambda **kw: DynamicChain(beta=2.0, random_state=0, **kw),  # its validation rows
    "DC fixed order": lambda **kw: DynamicChain(order=None, random_state=0, **kw),  # 3 folds
    "OOCC": lambda **kw: OOCC(n_orders=4, random_state=0, **kw),  # its validation rows
    "GA": lambda **kw: GeneticChainEnsemble(n_chains=3, n_generations=2, random_state=0, **kw),
}


def test_oocc_scores_each_validation_row_by_its_nearest_other_rows_orders():
    X, Y = dependent_labels(7)
    model = OOCC(n_orders=4, n_neighbors=1, rule="predict", random_state=0).fit(X, Y)
    validation = model.validation_X_ * model.scale_  # the rows, unscaled
    rows = np.arange(len(validation))
    predictions = model._predict_orders(validation, model.orders_)
    scores, votes = model._held_out(validation, predictions, rows)
    distances = ((model.validation_X_[:, None, :] - model.validation_X_[None]) ** 2).sum(-1)
    np.fill_diagonal(distances, np.inf)
    neighbour = np.argmin(distances, axis=1)  # (no ties in continuous data)
    order = model.best_order_[neighbour]
    in_orders = model._scores_in_orders(validation, model.orders_)
    np.testing.assert_allclose(scores, in_orders[order, rows], rtol=1e-12)
    np.testing.assert_array_equal(votes, predictions[order, rows])
    assert (neighbour != rows).all()


def test_out_of_bag_means_only_the_members_that_left_a_row_out():
    held_out = OutOfBag(3, 2)
    held_out.add(np.array([[1.0, -1], [2, -2], [3, -3]]), np.array([[1, 0], [1, 0], [1, 0]]), [0])
    held_out.add(
        np.array([[5.0, 5], [0, 4], [np.inf, 1]]), np.array([[1, 1], [0, 1], [1, 1]]), [0, 1]
    )
    np.testing.assert_array_equal(held_out.rows(), [False, True, True])
    # row 1: the first member only; row 2: both (the infinite score bounded)
    np.testing.assert_array_equal(held_out.scores()[0], [2, -2])
    assert held_out.scores()[1, 0] > 1e299 and held_out.scores()[1, 1] == -1
    np.testing.assert_array_equal(held_out.own_labels(), [[1, 0], [1, 0]])  # 1/2 is not > 0.5


def test_bagged_out_of_bag_scores_are_those_of_the_members_that_did_not_see_the_row():
    X, Y = dependent_labels(3)
    model = BaggedBinaryRelevance(n_estimators=5, events="gaussian", random_state=2)
    model.fit(X, Y)
    memberships = model.memberships(len(X), Y.shape[1])
    held_out = model._out_of_bag(model._validate_X(X, reset=False), memberships)
    scores = np.array([member.decision_function(X) for member in model.estimators_])
    out = (memberships == 0).T[:, :, None]
    rows = out.any(axis=0)[:, 0]
    expected = (scores * out).sum(axis=0)[rows] / out.sum(axis=0)[rows]
    np.testing.assert_allclose(held_out.scores(), expected, rtol=1e-12)
    # and the scores a rule cuts at prediction: the members' mean, +-inf alone bounded
    np.testing.assert_array_equal(
        model.decision_function(X), np.clip(scores, -1e300, 1e300).mean(axis=0)
    )


@pytest.mark.parametrize("name", ENSEMBLES)
def test_a_chosen_rule_decides_and_chosen_params_give_the_same_model(name):
    X, Y = dependent_labels(5)
    model = ENSEMBLES[name]().fit(X[:200], Y[:200])
    held_out = "out_of_bag" if name in ("ECC", "bagged BR", "DCE") else "held_out"
    assert model.chosen_["rule"] in model.chosen_[f"{held_out}_micro_f1"]
    assert "rule=" in repr(model)
    if model.rule_ is not None:  # the rule's cut on the label scores
        expected = model.rule_.predict(model.decision_function(X[200:]))
        np.testing.assert_array_equal(model.predict(X[200:]), expected)
    again = clone(model).set_params(**model.chosen_params_).fit(X[:200], Y[:200])
    np.testing.assert_array_equal(again.predict(X[200:]), model.predict(X[200:]))
    assert again.chosen_ is None  # nothing chosen: the settings were given


@pytest.mark.parametrize("name", ENSEMBLES)
def test_rule_predict_is_the_vote_at_one_half(name):
    X, Y = dependent_labels(6)
    model = ENSEMBLES[name](rule="predict").fit(X[:200], Y[:200])
    assert model.rule_ is None and model.chosen_ is None
    vote = (model.predict_proba(X[200:]) > 0.5).astype(int)
    np.testing.assert_array_equal(model.predict(X[200:]), vote)


def test_a_rule_predicting_every_label_out_of_bag_warns():
    rng = np.random.RandomState(0)
    X = rng.rand(150, 4)
    Y = (rng.rand(150, 8) < 0.1).astype(int)  # 0.8 labels per row
    everything = Threshold(threshold=-1e300)  # given: every label of every row
    with pytest.warns(CardinalityWarning, match=r"out of bag: 8.00 labels per row"):
        EnsembleClassifierChains(n_chains=3, rule=everything, random_state=0).fit(X, Y)


def test_the_vote_that_predicts_too_much_is_mended_on_birds(shared_dataset):
    """The Gaussian chains' vote at 0.5 on birds: 4.7 labels per row (0.97 in truth)."""
    train, test = shared_dataset("birds", "train"), shared_dataset("birds", "test")
    vote = EnsembleClassifierChains(events="gaussian", rule="predict", random_state=0)
    tuned = EnsembleClassifierChains(events="gaussian", random_state=0)
    truth = np.asarray(test.Y.toarray() if hasattr(test.Y, "toarray") else test.Y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CardinalityWarning)
        tuned.fit(train.X, train.Y)
    labels = {"vote": vote.fit(train.X, train.Y).predict(test.X), "tuned": tuned.predict(test.X)}
    per_row = {key: value.sum(axis=1).mean() for key, value in labels.items()}
    assert per_row["vote"] > 4 * truth.sum(axis=1).mean()
    assert per_row["tuned"] < 2 * truth.sum(axis=1).mean()
    from mlnb.metrics import f1_score

    f1 = {key: f1_score(truth, value, average="micro") for key, value in labels.items()}
    assert f1["tuned"] > f1["vote"] + 0.05


def test_online_ecc_keeps_the_rule_of_its_first_batch_until_new_labels():
    X, Y = dependent_labels(7)
    model = EnsembleClassifierChains(n_chains=4, rule="threshold", random_state=0)
    model.partial_fit(X[:150], Y[:150])
    rule = model.rule_
    assert model.chosen_["rule"] == "threshold"
    model.partial_fit(X[150:], Y[150:])
    assert model.rule_ is rule
    grown = np.hstack([Y[150:], np.ones((len(Y) - 150, 1), dtype=int)])
    with pytest.warns(UserWarning, match="fitted to 6 labels and the model now has 7"):
        model.partial_fit(X[150:], grown)
    assert model.rule_ is None and model.chosen_["rule"] == "predict"


@pytest.mark.parametrize("name", ENSEMBLES)
def test_scores_beyond_745_keep_their_order_and_the_rule_its_place(name):
    """Far-apart classes give log-odds of thousands: clipped at +-745 they tied, and a cut
    fitted out of bag below -745 then took every label (genbase: 22 labels per row)."""
    rng = np.random.RandomState(1)
    Y = (rng.rand(200, 3) < 0.3).astype(int)
    X = np.hstack([Y * 50.0, Y * 50.0]) + rng.normal(0, 1, (200, 6))
    model = ENSEMBLES[name](events="gaussian", rule="threshold").fit(X[:150], Y[:150])
    scores = model.decision_function(X[150:])
    assert np.abs(scores).max() > 745
    assert len(np.unique(scores)) > 0.9 * scores.size  # no ties at the bound
    np.testing.assert_array_equal(model.predict(X[150:]), Y[150:])


def test_at_most_max_scored_rows_are_scored(monkeypatch):
    from mlnb.multilabel import _out_of_bag

    monkeypatch.setattr(_out_of_bag, "MAX_SCORED_ROWS", 60)
    X, Y = dependent_labels(8)
    scored = []
    original = EnsembleClassifierChains._out_of_bag

    def spy(self, X_rows, membership):
        scored.append(X_rows.shape[0])
        return original(self, X_rows, membership)

    monkeypatch.setattr(EnsembleClassifierChains, "_out_of_bag", spy)
    model = EnsembleClassifierChains(n_chains=4, random_state=0).fit(X, Y)
    assert scored == [60] and len(X) > 60
    rows = _out_of_bag.scored_rows(len(X))
    assert len(np.unique(rows)) == 60 and np.all(np.diff(rows) > 0)
    assert model.chosen_["rule"] in model.chosen_["out_of_bag_micro_f1"]


def test_deciding_by_its_own_fitted_rule_an_ensemble_takes_binary_relevances_choice():
    """With a rule of its own (rule="tuned"), the members' event model is the one
    BinaryRelevance() chooses with its rules; deciding by the vote, the one BR chooses at
    its own 0.5 rule."""
    import scipy.sparse as sp

    from mlnb import BinaryRelevance
    from mlnb.multilabel._resolution import resolve_settings

    X, Y = dependent_labels(9, counts=True)
    full = BinaryRelevance().fit(X, Y).chosen_["events"]
    own = resolve_settings(BinaryRelevance(), X, sp.csr_matrix(Y), rule="predict").events
    assert repr(full) != repr(own)  # the two choices differ on these rows
    for name in ("ECC", "bagged BR", "DC"):
        tuned, vote = ENSEMBLES[name]().fit(X, Y), ENSEMBLES[name](rule="predict").fit(X, Y)
        assert repr(tuned.events_) == repr(full), name
        assert repr(vote.events_) == repr(own), name
