"""IMLNB: binary relevance NB with correlated labels as Bernoulli features (Chitra et al.)."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from mlnb import MixedNB
from mlnb.datasets import make_multilabel
from mlnb.metrics import f1_score
from mlnb.multilabel import BinaryRelevance
from mlnb.multilabel.imlnb import IMLNB, label_correlation

from .test_api import _EXPECTED_FAILURES, assert_checks_fail_as_expected, decision_failures
from .test_chain import dependent_labels


def correlated_data(seed=0, n=400, counts=False):
    """dependent_labels plus a label that is nearly the negation of label 0."""
    X, Y = dependent_labels(seed, n=n, counts=counts)
    rng = np.random.default_rng(seed + 100)
    Y[:, 5] = (1 - Y[:, 0]) ^ (rng.random(len(Y)) < 0.1)
    return X, Y


# ---- the label features, by hand ---------------------------------------------------------
# Three labels on six rows: a and b agree on 5 of 6 rows, c is nearly the negation of a.
TINY_Y = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 0], [0, 0, 1], [0, 0, 1], [0, 1, 1]])
TINY_X = np.array([[0.0], [0.5], [1.0], [3.0], [3.5], [4.0]])


def test_tiny_example_correlations_and_selection_by_hand():
    # N = 6, N_a = N_b = N_c = 3; C_ab = 2, C_ac = 0, C_bc = 1.
    # r = (N C - N_j N_k) / sqrt(N_j (N - N_j) N_k (N - N_k)) = (6 C - 9) / 9
    expected = np.array(
        [[1.0, 1 / 3, -1.0], [1 / 3, 1.0, -1 / 3], [-1.0, -1 / 3, 1.0]],
    )
    model = IMLNB().fit(TINY_X, TINY_Y)
    np.testing.assert_allclose(model.label_correlation_, expected, atol=1e-15)
    np.testing.assert_allclose(model.label_correlation_, np.corrcoef(TINY_Y.T), atol=1e-15)
    # |r| > 0.5 pairs only (a, c); signed r > 0.5: none; |r| > 0.3: every pair
    assert model.selected_.tolist() == [[False, False, True], [False] * 3, [True, False, False]]
    assert not IMLNB(correlation="signed").fit(TINY_X, TINY_Y).selected_.any()
    assert IMLNB(threshold=0.3).fit(TINY_X, TINY_Y).selected_.sum() == 6
    assert IMLNB(threshold=0.3, correlation="signed").fit(TINY_X, TINY_Y).selected_.sum() == 2


def test_tiny_example_bernoulli_terms_by_hand():
    # Label a's classifier sees y_c; Laplace: P(y_c = 1 | y_a = v) = (C + 1) / (N_v + 2).
    # Rows with a: c present 0 of 3 -> 1/5; rows without a: c present 3 of 3 -> 4/5.
    # weight[a, c] = log(1/5 / (4/5)) - log(4/5 / (1/5)) = 2 log(1/4)
    # offset[a]    = log P(y_c = 0 | a) - log P(y_c = 0 | not a) = log(4/5) - log(1/5)
    model = IMLNB().fit(TINY_X, TINY_Y)
    weight = np.zeros((3, 3))
    weight[0, 2] = weight[2, 0] = 2 * np.log(1 / 4)
    np.testing.assert_allclose(model.label_weight_, weight, rtol=1e-14)
    np.testing.assert_allclose(model.label_offset_, [np.log(4), 0.0, np.log(4)], rtol=1e-14)
    # Lidstone 0.5: (0 + .5) / (3 + 1) = 1/8 against 7/8
    lidstone = IMLNB(label_alpha=0.5).fit(TINY_X, TINY_Y)
    np.testing.assert_allclose(lidstone.label_weight_[0, 2], 2 * np.log(1 / 7), rtol=1e-14)
    # Stage 2 of row x: base + w * y_c(stage 1) + offset, for label a
    X_new = np.array([[0.2], [3.8], [2.0]])
    stages = model.predict_stages(X_new)
    base = BinaryRelevance().fit(TINY_X, TINY_Y).predict_log_odds(X_new)
    y_c = stages.first_stage[:, 2]
    np.testing.assert_allclose(
        stages.log_odds[:, 0], base[:, 0] + weight[0, 2] * y_c + np.log(4), rtol=1e-12
    )
    np.testing.assert_array_equal(stages.log_odds[:, 1], base[:, 1])


def test_label_correlation_matches_numpy_and_handles_constant_labels():
    _, Y = correlated_data(3)
    Y[:, 3], Y[:, 4] = 0, 1
    model = IMLNB().fit(np.random.default_rng(0).normal(size=(len(Y), 2)), Y)
    varying = [0, 1, 2, 5]
    np.testing.assert_allclose(
        model.label_correlation_[np.ix_(varying, varying)], np.corrcoef(Y[:, varying].T)
    )
    assert np.all(model.label_correlation_[[3, 4]] == 0)
    assert not model.selected_[:, [3, 4]].any() and not model.selected_[[3, 4]].any()
    assert np.all(model.predict(np.zeros((3, 2)))[:, [3, 4]] == [0, 1])
    assert np.all(np.isfinite(model.label_weight_))


# ---- the definition: label k's classifier is a mixed NB over [X, Y_selected] ---------------
@pytest.mark.parametrize(
    "events,counts,threshold",
    [("gaussian", False, 0.5), ("gaussian", False, 0.2), ("multinomial", True, 0.3)],
)
def test_each_label_is_a_mixed_nb_over_features_and_selected_labels(events, counts, threshold):
    X, Y = correlated_data(1, counts=counts)
    X_test, _ = correlated_data(2, n=200, counts=counts)
    model = IMLNB(events=events, rule="predict", threshold=threshold).fit(X, Y)
    assert model.selected_.any()
    stages = model.predict_stages(X_test)
    # stage 1 is binary relevance with its own 0.5 rule
    first = BinaryRelevance(events=events, rule="predict").fit(X, Y).predict(X_test)
    np.testing.assert_array_equal(stages.first_stage, first)
    d = X.shape[1]
    for k in range(Y.shape[1]):
        chosen = np.flatnonzero(model.selected_[k])
        blocks = [(events, slice(0, d))] + ([("bernoulli", slice(d, None))] if chosen.size else [])
        reference = MixedNB(blocks=blocks).fit(np.hstack([X, Y[:, chosen]]), Y[:, k])
        inputs = np.hstack([X_test, first[:, chosen]])
        joint = reference.predict_joint_log_proba(inputs)
        np.testing.assert_allclose(stages.log_odds[:, k], joint[:, 1] - joint[:, 0], atol=1e-9)
        np.testing.assert_array_equal(stages.labels[:, k], reference.predict(inputs))


@pytest.mark.parametrize("events,counts", [("gaussian", False), ("multinomial", True)])
def test_threshold_above_every_correlation_is_binary_relevance(events, counts):
    X, Y = correlated_data(0, counts=counts)
    correlation = IMLNB().fit(X, Y).label_correlation_
    highest = np.max(np.abs(correlation - np.eye(len(correlation))))
    # the own rule: a tuned one is fitted to out-of-fold scores, and at threshold=highest
    # the models of the folds (a subset of the rows) select labels
    br = BinaryRelevance(events=events, rule="predict").fit(X, Y)
    for threshold in (highest, 1.0, 7.0):
        for variant in ({}, {"fixed_point": True}, {"correlation": "signed"}):
            model = IMLNB(events=events, rule="predict", threshold=threshold, **variant)
            model.fit(X, Y)
            assert not model.selected_.any()
            np.testing.assert_array_equal(model.predict(X), br.predict(X))
            np.testing.assert_array_equal(model.predict_proba(X), br.predict_proba(X))


# ---- does it help? -----------------------------------------------------------------------
def strongly_dependent(seed, hidden_labels=0):
    """make_multilabel with strongly dependent labels and weak features; 1000 + 2000 rows.

    ``hidden_labels=k``: the k rarest labels leave no trace in the features.
    """
    X, Y = make_multilabel(
        3000,
        10,
        6,
        cardinality=2.0,
        label_dependence=0.9,
        separation=0.5,
        hidden_labels=hidden_labels,
        random_state=seed,
    )
    return X[:1000], Y[:1000], X[1000:], Y[1000:]


# The paper's models, of the measurements quoted here and in docs/experiments/imlnb.md:
# Gaussian events and the 0.5 rule, not the settings chosen from the data by default.
PAPER = {"events": "gaussian", "rule": "predict"}


def example_f1_gains(seed, hidden_labels=0):
    """iMLNB's example F1 minus BR's, with stage 1 (BR's predictions, the true labels)."""
    X, Y, X_test, Y_test = strongly_dependent(seed, hidden_labels)
    br = BinaryRelevance(**PAPER).fit(X, Y).predict(X_test)
    br = f1_score(Y_test, br, average="samples")
    model = IMLNB(**PAPER).fit(X, Y)
    paper = f1_score(Y_test, model.predict(X_test), average="samples")
    oracle = model.predict_stages(X_test, first_stage=Y_test).labels
    return paper - br, f1_score(Y_test, oracle, average="samples") - br


@pytest.mark.parametrize("seed", range(3))
def test_label_features_improve_example_f1_given_correct_stage_one(seed):
    # The label model is right: fed the true labels of the selected labels, iMLNB's
    # stage 2 beats binary relevance clearly (by 0.03 to 0.10 F1 on seeds 0 to 5).
    X, Y, X_test, Y_test = strongly_dependent(seed)
    model = IMLNB().fit(X, Y)
    assert model.selected_.sum() >= 4
    br = f1_score(Y_test, BinaryRelevance().fit(X, Y).predict(X_test), average="samples")
    oracle = model.predict_stages(X_test, first_stage=Y_test).labels
    assert f1_score(Y_test, oracle, average="samples") > br + 0.02


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="measured: fed the BR predictions (the paper's stage 1), iMLNB does not beat BR "
    "on make_multilabel data where every label shifts the features (F1 -0.062 to -0.013 on "
    "these seeds; 3 wins in 10 seeds, median -0.008; 1 configuration of 120 random ones "
    "improved on 5 of 5 seeds). The stage-1 predictions are computed from the same features, "
    "so the label features count their evidence a second time; see "
    "docs/experiments/imlnb.md",
)
@pytest.mark.parametrize("seed", range(3))
def test_two_stage_prediction_improves_example_f1_over_binary_relevance(seed):
    assert example_f1_gains(seed)[0] > 0


# Hidden labels: the three rarest of the six labels get no feature signal, so they can be
# inferred only through the labels they depend on: the scenario iMLNB is designed for.
HIDDEN = 3
SEEDS = range(10)


def test_hidden_labels_make_error_free_label_features_worth_more():
    # Oracle stage 1 over BR, seeds 0-9: +0.08 to +0.17 F1 with hidden labels, +0.02 to
    # +0.11 on the same data without them; larger with them on every seed.
    for seed in SEEDS:
        _, hidden = example_f1_gains(seed, HIDDEN)
        _, shown = example_f1_gains(seed)
        assert hidden > max(shown, 0.05)


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="measured: with the 3 rarest of 6 labels hidden, iMLNB (BR predictions as stage "
    "1) minus BR example F1 on seeds 0-9 is -0.073 to +0.032, median +0.002, 6 wins in 10 "
    "(seeds 10-29: 13 wins in 20, median +0.007). Stage 1 is too poor to feed stage 2: the "
    "visible labels are predicted with accuracy 0.79, the hidden ones no better than by their "
    "prior and half as often as they occur. The visible labels, which take those predictions "
    "as features too (the selection is symmetric), lose 0.6 to 4.4 points of accuracy on "
    "every seed (0.6 to 2.2 without hidden labels). See docs/experiments/imlnb.md",
)
def test_two_stage_prediction_with_hidden_labels_improves_example_f1():
    gains = np.array([example_f1_gains(seed, HIDDEN)[0] for seed in SEEDS])
    # better on at least 9 of 10 seeds (one-sided sign test, p = 0.011), median above 0
    assert (gains > 0).sum() >= 9 and np.median(gains) > 0


# ---- fixed point -------------------------------------------------------------------------
def oscillating():
    """Two labels that are rarely together, with equal priors above 1/2 and no features.

    Stage 1 predicts both (prior 0.6); each then sees the other as present and drops
    (P(other | self) = 21/62 against 41/42), then both come back: a 2-cycle.
    """
    Y = np.array([[1, 0]] * 40 + [[0, 1]] * 40 + [[1, 1]] * 20)
    X = np.zeros((len(Y), 1))
    return X, Y


def test_fixed_point_stops_at_a_fixed_point_or_after_max_iter():
    X, Y = correlated_data(4)
    X_test, _ = correlated_data(5, n=300)
    model = IMLNB(threshold=0.3, fixed_point=True).fit(X, Y)
    stages = model.predict_stages(X_test)
    assert stages.rounds.min() >= 1 and stages.rounds.max() <= model.max_iter
    assert stages.converged.mean() > 0.95
    # a converged row reproduces itself under one more stage-2 round
    again = model.predict_stages(X_test, first_stage=stages.labels)
    done = stages.converged
    np.testing.assert_array_equal(again.labels[done], stages.labels[done])
    assert np.all(again.rounds[done] == 1)
    # max_iter=1 is the paper's single round
    one = IMLNB(threshold=0.3, fixed_point=True, max_iter=1).fit(X, Y)
    paper = IMLNB(threshold=0.3).fit(X, Y)
    np.testing.assert_array_equal(one.predict(X_test), paper.predict(X_test))
    assert np.all(paper.predict_stages(X_test).rounds == 1)


def test_fixed_point_oscillation_stops_after_max_iter():
    X, Y = oscillating()
    model = IMLNB(fixed_point=True, max_iter=5).fit(X, Y)
    assert model.selected_[0, 1] and model.label_correlation_[0, 1] < -0.5
    stages = model.predict_stages(np.zeros((2, 1)))
    np.testing.assert_array_equal(stages.first_stage, [[1, 1], [1, 1]])
    np.testing.assert_array_equal(stages.rounds, [5, 5])
    assert not stages.converged.any()
    np.testing.assert_array_equal(stages.labels, [[0, 0], [0, 0]])  # odd round: dropped
    even = IMLNB(fixed_point=True, max_iter=4).fit(X, Y).predict(np.zeros((1, 1)))
    np.testing.assert_array_equal(even, [[1, 1]])


# ---- online learning and merging ---------------------------------------------------------
def test_partial_fit_equals_fit_while_the_selection_changes():
    X, Y = correlated_data(6)
    # the first batch has label 3 following label 4, which the rest of the data undoes
    Y[:100, 3] = Y[:100, 4]
    whole = IMLNB(events="gaussian").fit(X, Y)
    online = IMLNB(events="gaussian")
    selections = []
    for rows in (np.arange(100), np.arange(100, 250), np.arange(250, len(X))):
        online.partial_fit(X[rows], Y[rows])
        selections.append(online.selected_.copy())
    assert selections[0][3, 4] and not selections[-1][3, 4]
    np.testing.assert_array_equal(online.selected_, whole.selected_)
    np.testing.assert_allclose(online.label_correlation_, whole.label_correlation_, atol=1e-12)
    np.testing.assert_allclose(online.label_weight_, whole.label_weight_, rtol=1e-12)
    np.testing.assert_allclose(online.predict_proba(X), whole.predict_proba(X), rtol=1e-9)


def test_merge_equals_fit_and_checks_its_partner():
    X, Y = correlated_data(7, counts=True)
    whole = IMLNB(events="multinomial", threshold=0.3).fit(X, Y)
    merged = IMLNB(events="multinomial", threshold=0.3).fit(X[:150], Y[:150])
    merged.merge(IMLNB(events="multinomial", threshold=0.3).fit(X[150:], Y[150:]))
    np.testing.assert_array_equal(merged.selected_, whole.selected_)
    np.testing.assert_allclose(merged.predict_proba(X), whole.predict_proba(X), rtol=1e-9)
    with pytest.raises(ValueError, match="hyper-parameters"):
        merged.merge(IMLNB(events="multinomial", threshold=0.5).fit(X, Y))


# ---- input forms -------------------------------------------------------------------------
def test_input_forms_weights_rows_and_pickling():
    X, Y = correlated_data(8, counts=True)
    model = IMLNB(events="multinomial", threshold=0.3).fit(X, Y)
    expected = model.predict_proba(X)
    for X_in, Y_in in [(sp.csr_matrix(X), sp.csr_matrix(Y)), (X, Y.astype(bool))]:
        got = clone(model).fit(X_in, Y_in).predict_proba(X_in)
        np.testing.assert_allclose(got, expected, rtol=1e-9)
    weights = np.random.default_rng(0).integers(1, 4, len(Y))
    weighted = clone(model).fit(X, Y, sample_weight=weights)
    repeated = clone(model).fit(np.repeat(X, weights, 0), np.repeat(Y, weights, 0))
    np.testing.assert_allclose(weighted.label_correlation_, repeated.label_correlation_)
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-9)
    permutation = np.random.default_rng(1).permutation(len(X))
    predicted = model.predict(X)
    np.testing.assert_array_equal(model.predict(X[permutation]), predicted[permutation])
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict(X), predicted)


# ---- bad input ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "params,error,match",
    [
        ({"threshold": "high"}, TypeError, "threshold"),
        ({"threshold": np.nan}, ValueError, "threshold"),
        ({"correlation": "pearson"}, ValueError, "correlation"),
        ({"fixed_point": "yes"}, TypeError, "fixed_point"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"max_iter": 2.5}, ValueError, "max_iter"),
        ({"prior_alpha": -1.0}, ValueError, "prior_alpha"),
    ],
)
def test_bad_parameters_are_named(params, error, match):
    X, Y = correlated_data(0, n=60)
    with pytest.raises(error, match=match):
        IMLNB(**params).fit(X, Y)


def test_bad_data_and_failed_batches_change_nothing():
    X, Y = correlated_data(0, n=120)
    with pytest.raises(NotFittedError):
        IMLNB().predict(X)
    with pytest.raises(ValueError, match="only 0 and 1"):
        IMLNB().fit(X, Y * 2)
    model = IMLNB().fit(X, Y)
    before = (model.selected_.copy(), model.predict_proba(X))
    with pytest.raises(ValueError, match="labels"):
        model.partial_fit(X, Y[:, :4])
    with pytest.raises(ValueError, match="features"):
        model.partial_fit(X[:, :3], Y)
    np.testing.assert_array_equal(model.selected_, before[0])
    np.testing.assert_array_equal(model.predict_proba(X), before[1])
    with pytest.raises(ValueError, match="labels"):
        model.predict_stages(X, first_stage=Y[:, :4])
    with pytest.raises(ValueError, match="rows"):
        model.predict_stages(X, first_stage=Y[:10])


def test_label_correlation_of_statistics_without_rows_is_zero():
    from mlnb.stats import GroupStats

    assert np.all(label_correlation(GroupStats(3, 3, second_moments=False)) == 0)


# ---- scikit-learn conformance (as the other multi-label estimators, test_api.py) -----------
def expected_failures(estimator):
    failures = dict(_EXPECTED_FAILURES)
    failures.update(decision_failures(estimator))
    failures["check_non_transformer_estimators_n_iter"] = (
        "run because of max_iter, it fits on multi-class targets (iris); max_iter bounds the "
        "rounds of prediction, tested here"
    )
    return failures


def test_scikit_learn_checks():
    estimator = IMLNB()
    assert_checks_fail_as_expected(estimator, expected_failures(estimator))
