"""Tests of the ranking metrics of mlnb.metrics: hand-computed cases, scikit-learn equality."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from mlnb import metrics as M

SK_NAMED = ("coverage_error", "label_ranking_loss", "label_ranking_average_precision_score")
SCORE_FUNCS = (*SK_NAMED, "one_error", "roc_auc", "average_precision")
EXACT = {"rel": 1e-12, "abs": 1e-15}

# Hand-computed example.  Row 0: label 0 relevant, tied at the top with irrelevant label 2;
# row 1: labels 1 and 2 relevant and tied at the top; row 2: no relevant label.
Y = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0]])
S = np.array([[3.0, 1.0, 3.0], [1.0, 2.0, 2.0], [0.0, 1.0, 2.0]])
# Per row: coverage (2, 2, 0), ranking loss (1/2, 0, 0), LRAP (1/2, 1, 1),
# one-error (1/2, 0, 1).
W = np.array([1.0, 2.0, 1.0])


def _random(seed, n=40, n_labels=6, ties=True):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, n_labels)) < 0.4).astype(int)
    Y[0] = 0  # a row with no relevant label
    Y[1] = 1  # a row with only relevant labels
    Y[:, 0] = Y[:, 0] | (np.arange(n) == 2)  # every label has both classes
    Y[3, :] = np.where(Y.all(axis=0), 0, Y[3, :])
    scores = rng.integers(-2, 3, Y.shape).astype(float) if ties else rng.normal(size=Y.shape)
    return Y, scores, rng.random(n) + 0.1


def _sparse_kinds(Y):
    return [Y, sp.csr_matrix(Y), sp.csr_array(Y), sp.coo_matrix(Y), Y.astype(bool)]


# ---------------------------------------------------------------- by hand


def test_hand_computed_values():
    assert M.coverage_error(Y, S) == pytest.approx(4 / 3, **EXACT)
    assert M.label_ranking_loss(Y, S) == pytest.approx(1 / 6, **EXACT)
    assert M.label_ranking_average_precision_score(Y, S) == pytest.approx(5 / 6, **EXACT)
    assert M.one_error(Y, S) == pytest.approx(1 / 2, **EXACT)


def test_hand_computed_weighted_values():
    assert M.coverage_error(Y, S, sample_weight=W) == pytest.approx(6 / 4, **EXACT)
    assert M.label_ranking_loss(Y, S, sample_weight=W) == pytest.approx(1 / 8, **EXACT)
    lrap = M.label_ranking_average_precision_score(Y, S, sample_weight=W)
    assert lrap == pytest.approx(3.5 / 4, **EXACT)
    assert M.one_error(Y, S, sample_weight=W) == pytest.approx(1.5 / 4, **EXACT)


def test_hand_computed_values_equal_scikit_learn():
    for name in SK_NAMED:
        for w in (None, W):
            ours = getattr(M, name)(Y, S, sample_weight=w)
            assert ours == pytest.approx(getattr(skm, name)(Y, S, sample_weight=w), **EXACT)


def test_one_error_ties_are_averaged_and_order_free():
    Y1 = np.array([[1, 0, 0, 0]])
    assert M.one_error(Y1, [[5.0, 5.0, 5.0, 1.0]]) == pytest.approx(2 / 3, **EXACT)
    assert M.one_error(Y1, [[5.0, 1.0, 1.0, 1.0]]) == 0.0
    assert M.one_error(Y1, [[1.0, 5.0, 1.0, 1.0]]) == 1.0
    Yr, scores, _ = _random(3)
    perm = np.random.default_rng(0).permutation(Yr.shape[1])
    assert M.one_error(Yr[:, perm], scores[:, perm]) == pytest.approx(
        M.one_error(Yr, scores), **EXACT
    )


def test_one_error_matches_a_loop_reference():
    Yr, scores, w = _random(5)
    per_row = []
    for y, s in zip(Yr, scores, strict=True):
        top = np.flatnonzero(s == s.max())
        per_row.append(1.0 - y[top].mean())
    assert M.one_error(Yr, scores) == pytest.approx(np.mean(per_row), **EXACT)
    assert M.one_error(sp.csr_matrix(Yr), scores, sample_weight=w) == pytest.approx(
        np.average(per_row, weights=w), **EXACT
    )


def test_one_error_counts_empty_rows_as_errors():
    assert M.one_error([[0, 0], [1, 0]], [[1.0, 0.0], [1.0, 0.0]]) == 0.5


ROC_Y = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 0]])
ROC_S = np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.1], [0.5, 0.3, 0.7], [0.1, 0.8, 0.2]])
# Label 0: AUC 1; label 1 (positives .8, .3; negatives .1, .8 tied): 2.5 / 4; label 2 constant.
# Pooled over the first two labels (positives .9, .5, .8, .3; negatives .1, .2, .1, .8):
# 4 + 3 + 3.5 + 3 = 13.5 of 16 pairs.


def test_roc_auc_by_hand_skips_constant_labels():
    assert M.roc_auc(ROC_Y, ROC_S, average="macro") == pytest.approx((1 + 0.625) / 2, **EXACT)
    assert M.roc_auc(ROC_Y[:, :2], ROC_S[:, :2], average="micro") == pytest.approx(
        13.5 / 16, **EXACT
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(M.roc_auc(ROC_Y[:, 2:], ROC_S[:, 2:]))
        assert np.isnan(M.roc_auc(np.ones((3, 2)), np.eye(3, 2), average="micro"))
        assert np.isnan(M.average_precision(np.zeros((3, 2)), np.eye(3, 2)))


def test_roc_auc_equals_scikit_learn_on_the_labels_with_both_classes():
    for average in ("macro", "micro"):
        want = skm.roc_auc_score(ROC_Y[:, :2], ROC_S[:, :2], average=average)
        assert M.roc_auc(ROC_Y[:, :2], ROC_S[:, :2], average=average) == pytest.approx(
            want, **EXACT
        )
    assert M.roc_auc(ROC_Y, ROC_S, average="micro") == pytest.approx(
        skm.roc_auc_score(ROC_Y.ravel(), ROC_S.ravel()), **EXACT
    )


def test_log_loss_by_hand():
    assert M.log_loss([[1, 0]], [[0.8, 0.4]]) == pytest.approx(
        -(np.log(0.8) + np.log(0.6)) / 2, **EXACT
    )
    assert M.log_loss([[1, 0]], [[0.0, 1.0]], eps=1e-3) == pytest.approx(-np.log(1e-3), **EXACT)
    assert M.log_loss(
        [[1, 0], [0, 0]], [[0.8, 0.4], [0.5, 0.5]], sample_weight=[3, 1]
    ) == pytest.approx(
        (3 * -(np.log(0.8) + np.log(0.6)) / 2 + 1 * -np.log(0.5)) / 4,
        **EXACT,
    )


# ---------------------------------------------------------------- scikit-learn equality


@pytest.mark.parametrize("name", SK_NAMED)
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", [True, False])
def test_sklearn_named_metrics_equal_scikit_learn(name, seed, ties):
    Yr, scores, w = _random(seed, ties=ties)
    for weight in (None, w):
        want = getattr(skm, name)(Yr, scores, sample_weight=weight)
        for Yk in _sparse_kinds(Yr):
            got = getattr(M, name)(Yk, scores, sample_weight=weight)
            assert got == pytest.approx(want, **EXACT)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("average", ["macro", "micro"])
def test_roc_auc_and_average_precision_equal_scikit_learn(seed, average):
    Yr, scores, w = _random(seed)
    for weight in (None, w):
        want_auc = skm.roc_auc_score(Yr, scores, average=average, sample_weight=weight)
        want_ap = skm.average_precision_score(Yr, scores, average=average, sample_weight=weight)
        for Yk in _sparse_kinds(Yr):
            got = M.roc_auc(Yk, scores, average=average, sample_weight=weight)
            assert got == pytest.approx(want_auc, **EXACT)
            got = M.average_precision(Yk, scores, average=average, sample_weight=weight)
            assert got == pytest.approx(want_ap, **EXACT)


@pytest.mark.parametrize("seed", range(4))
def test_log_loss_equals_scikit_learn_on_the_flattened_matrix(seed):
    Yr, _, w = _random(seed)
    proba = np.random.default_rng(seed).random(Yr.shape)
    proba[0, 0], proba[1, 1] = 0.0, 1.0  # clipped
    for weight in (None, w):
        want = skm.log_loss(
            Yr.ravel(),
            proba.ravel(),
            labels=[0, 1],
            sample_weight=None if weight is None else np.repeat(weight, Yr.shape[1]),
        )
        for Yk in _sparse_kinds(Yr):
            assert M.log_loss(Yk, proba, sample_weight=weight) == pytest.approx(want, **EXACT)


@pytest.mark.parametrize("name", SCORE_FUNCS)
def test_infinite_scores_rank_like_extreme_finite_ones(name):
    Yr, scores, _ = _random(7)
    with_inf = scores.copy()
    with_inf[scores == 2] = np.inf
    with_inf[scores == -2] = -np.inf
    finite = np.where(np.isposinf(with_inf), 1e300, np.where(np.isneginf(with_inf), -1e300, scores))
    func = getattr(M, name)
    assert func(Yr, with_inf) == pytest.approx(func(Yr, finite), **EXACT)
    if name in SK_NAMED:
        assert func(Yr, with_inf) == pytest.approx(getattr(skm, name)(Yr, finite), **EXACT)


def test_scores_are_compared_not_measured():
    Yr, scores, _ = _random(8, ties=False)
    for name in SCORE_FUNCS:
        func = getattr(M, name)
        assert func(Yr, np.exp(scores)) == pytest.approx(func(Yr, scores), **EXACT)


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("name", SCORE_FUNCS)
def test_nan_scores_raise(name):
    scores = S.copy()
    scores[1, 2] = np.nan
    with pytest.raises(ValueError, match="scores must not contain NaN"):
        getattr(M, name)(Y, scores)


def test_input_errors_name_the_argument():
    with pytest.raises(ValueError, match="proba must not contain NaN"):
        M.log_loss(Y, np.full(Y.shape, np.nan))
    with pytest.raises(ValueError, match=r"proba must contain probabilities in \[0, 1\]"):
        M.log_loss(Y, S)
    with pytest.raises(ValueError, match="eps must be in"):
        M.log_loss(Y, np.full(Y.shape, 0.5), eps=0.5)
    with pytest.raises(ValueError, match="Y_true and scores must have the same shape"):
        M.coverage_error(Y, S[:, :2])
    with pytest.raises(ValueError, match="Y_true must contain only 0 and 1"):
        M.label_ranking_loss(2 * Y, S)
    with pytest.raises(ValueError, match="scores must be real-valued"):
        M.one_error(Y, S.astype(str))
    with pytest.raises(ValueError, match="average must be one of"):
        M.roc_auc(Y, S, average="samples")
    with pytest.raises(ValueError, match=r"sample_weight must have shape \(3,\)"):
        M.coverage_error(Y, S, sample_weight=[1, 2])
    with pytest.raises(ValueError, match="sample_weight must be finite and non-negative"):
        M.one_error(Y, S, sample_weight=[1, -1, 1])
    with pytest.raises(ValueError, match="sample_weight must have a positive sum"):
        M.label_ranking_average_precision_score(Y, S, sample_weight=[0, 0, 0])
    with pytest.raises(ValueError, match="must be non-empty"):
        M.roc_auc(np.zeros((0, 2)), np.zeros((0, 2)))


# ---------------------------------------------------------------- registry

DIRECTIONS = {
    "coverage_error": False,
    "label_ranking_loss": False,
    "label_ranking_average_precision_score": True,
    "one_error": False,
    "macro_roc_auc": True,
    "micro_roc_auc": True,
    "macro_average_precision": True,
    "micro_average_precision": True,
    "log_loss": False,
}


def test_registry_lists_the_ranking_metrics_with_their_direction():
    assert set(M.METRIC_SETS["ranking"]) == set(DIRECTIONS)
    metrics = M.get_metrics("ranking", task="multilabel_scores")
    assert list(metrics) == list(M.METRIC_SETS["ranking"])
    for name, metric in metrics.items():
        assert metric.greater_is_better is DIRECTIONS[name]
        assert metric.task == "multilabel_scores"
        assert metric.label
    with pytest.raises(ValueError, match="do not score multilabel targets"):
        M.get_metrics("ranking", task="multilabel")


def test_registry_values_match_the_functions():
    Yr, scores, _ = _random(9)
    proba = 1 / (1 + np.exp(-scores))
    metrics = M.METRICS
    assert metrics["coverage_error"](Yr, scores) == skm.coverage_error(Yr, scores)
    assert metrics["one_error"](Yr, scores) == M.one_error(Yr, scores)
    assert metrics["macro_roc_auc"](Yr, scores) == M.roc_auc(Yr, scores, average="macro")
    assert metrics["micro_roc_auc"](Yr, scores) == M.roc_auc(Yr, scores, average="micro")
    assert metrics["micro_average_precision"](Yr, scores) == M.average_precision(
        Yr, scores, average="micro"
    )
    assert metrics["log_loss"](Yr, proba) == M.log_loss(Yr, proba)
    assert metrics["macro_roc_auc"](Yr, scores) != metrics["micro_roc_auc"](Yr, scores)


# ---- unknown cells of Y_true: every criterion over the known cells -------------------------
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), sparse_truth=st.booleans())
def test_ranking_criteria_skip_unknown_cells(seed, sparse_truth):
    from sklearn.metrics import average_precision_score, roc_auc_score

    from mlnb.metrics import (
        average_precision,
        coverage_error,
        label_ranking_average_precision_score,
        label_ranking_loss,
        log_loss,
        one_error,
        roc_auc,
    )

    rng = np.random.default_rng(seed)
    truth = (rng.random((14, 5)) < 0.4).astype(float)
    scores = np.round(rng.normal(size=truth.shape), 1)  # ties too
    unknown = rng.random(truth.shape) < 0.3
    cells = np.where(unknown, np.nan, truth)
    cells = sp.csr_matrix(cells) if sparse_truth else cells

    def per_row(criterion):  # each row alone, over its known cells
        values = [
            criterion(truth[[i]][:, ~unknown[i]], scores[[i]][:, ~unknown[i]])
            if (~unknown[i]).any()
            else None
            for i in range(len(truth))
        ]
        return values

    for criterion in (label_ranking_loss, label_ranking_average_precision_score, one_error):
        values = per_row(criterion)
        defaults = {one_error: 1.0, label_ranking_loss: 0.0}
        expected = np.mean([defaults.get(criterion, 1.0) if v is None else v for v in values])
        assert criterion(cells, scores) == pytest.approx(expected), criterion.__name__
    coverage = [0 if v is None else v for v in per_row(coverage_error)]
    assert coverage_error(cells, scores) == pytest.approx(np.mean(coverage))
    known = ~unknown
    for name, ours, theirs in (
        ("auc", roc_auc, roc_auc_score),
        ("ap", average_precision, average_precision_score),
    ):
        labels = []
        for j in range(truth.shape[1]):
            column = truth[known[:, j], j]
            if name == "auc" and 0 < column.sum() < len(column):
                labels.append(theirs(column, scores[known[:, j], j]))
            if name == "ap" and column.sum() > 0:
                labels.append(theirs(column, scores[known[:, j], j]))
        if labels:
            assert ours(cells, scores, average="macro") == pytest.approx(np.mean(labels))
        assert ours(cells, scores, average="micro") == pytest.approx(
            theirs(truth[known], scores[known])
        )
    proba = 1 / (1 + np.exp(-scores))
    losses = np.where(truth[known] == 1, -np.log(proba[known]), -np.log1p(-proba[known]))
    assert log_loss(cells, proba) == pytest.approx(losses.mean())
