"""Per-label event models (:class:`mlnb.events.PerLabel`) and the defaults' choice of a
model for each label (binary relevance)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.metrics import label_ranking_loss
from sklearn.model_selection import KFold

from mlnb import IMLNB, BinaryRelevance
from mlnb.datasets import load_dataset
from mlnb.decision_rules import SortedScores
from mlnb.events import (
    BayesianGaussian,
    Bernoulli,
    ChiSquaredSelection,
    Gaussian,
    Multinomial,
    PerLabel,
)
from mlnb.io import load, save
from mlnb.multilabel import finite_scores
from mlnb.multilabel._per_label import (
    MIN_POSITIVES,
    _misordered,
    label_average_precision,
    per_label_choice,
    ranking_safe_choice,
)
from mlnb.multilabel._resolution import OWN_RULE, _out_of_fold


def _counts(seed=0, n=120, n_labels=3, n_features=20):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, n_labels)) < 0.4).astype(int)
    X = rng.poisson(0.4 + 2 * Y @ rng.random((n_labels, n_features)))
    return X, Y


MEMBERS = {
    "counts": [
        Multinomial(alpha=1.0),
        Multinomial(alpha=0.01),
        ChiSquaredSelection(Multinomial(alpha=0.1), k=4),
    ],
    "binary": [Bernoulli(alpha=1.0), ChiSquaredSelection(Bernoulli(alpha=0.1), k=3)],
    "real": [Gaussian(), Gaussian(var_smoothing=1e-2)],
}


@pytest.mark.parametrize("kind", sorted(MEMBERS))
def test_each_label_is_scored_by_its_own_model(kind):
    X, Y = _counts()
    if kind == "real":
        X = X + np.random.default_rng(1).normal(size=X.shape)
    members = MEMBERS[kind]
    choice = [i % len(members) for i in range(Y.shape[1])]
    model = BinaryRelevance(events=PerLabel(members, choice), rule=OWN_RULE).fit(X, Y)
    scores = model.decision_function(X)
    for label, index in enumerate(choice):
        alone = BinaryRelevance(events=members[index], rule=OWN_RULE).fit(X, Y)
        np.testing.assert_allclose(scores[:, label], alone.decision_function(X)[:, label])
        np.testing.assert_array_equal(model.predict(X)[:, label], alone.predict(X)[:, label])


def test_per_label_statistics_add_and_subtract():
    """partial_fit in batches equals fit; every fold's model (total minus fold) equals a
    refit on the fold's training rows."""
    X, Y = _counts(seed=2)
    events = PerLabel(MEMBERS["counts"], choice=(2, 0, 1))
    whole = BinaryRelevance(events=events, rule=OWN_RULE).fit(X, Y)
    online = BinaryRelevance(events=events, rule=OWN_RULE)
    for start in range(0, X.shape[0], 35):
        online.partial_fit(X[start : start + 35], Y[start : start + 35])
    np.testing.assert_allclose(online.decision_function(X), whole.decision_function(X))
    folds = [test for _, test in KFold(4, shuffle=True, random_state=0).split(X)]
    template = BinaryRelevance(rule=OWN_RULE)
    [scored] = _out_of_fold(template, [events], X, sp.csr_matrix(Y), folds, None)
    for test in folds:
        train = np.setdiff1d(np.arange(X.shape[0]), test)
        refit = BinaryRelevance(events=events, rule=OWN_RULE).fit(X[train], Y[train])
        np.testing.assert_allclose(
            scored.scores[test], finite_scores(refit.decision_function(X[test])), rtol=1e-9
        )


@pytest.mark.parametrize(
    ("events", "message"),
    [
        (PerLabel([Multinomial(), Gaussian()], choice=(0, 1, 1)), "share their statistics"),
        (PerLabel([Gaussian(), BayesianGaussian()], choice=(0, 1, 1)), "share their statistics"),
        (PerLabel([Multinomial(), Multinomial(alpha=2)], choice=(0, 1)), "for 2 labels"),
        (PerLabel([Multinomial()], choice=(0, 1, 0)), r"lie in 0\.\.0"),
        (PerLabel([Multinomial()], choice=(0.5, 1, 0)), "sequence of integers"),
        (PerLabel([], choice=(0, 0, 0)), "at least one event model"),
    ],
)
def test_bad_per_label_models_are_refused_by_name(events, message):
    X, Y = _counts()
    with pytest.raises(ValueError, match=message):
        BinaryRelevance(events=events).fit(X, Y)


def test_a_model_file_keeps_the_per_label_models(tmp_path):
    X, Y = _counts(seed=4)
    events = PerLabel(MEMBERS["counts"], choice=(0, 2, 2))
    model = BinaryRelevance(events=events, rule="scut").fit(X, Y)
    save(model, tmp_path / "model.mlnb")
    loaded = load(tmp_path / "model.mlnb")
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert "3 labels" in repr(loaded.events_)


# ---- the choice of each label's model --------------------------------------------------------
def test_average_precision_by_hand():
    scores = np.array([[3.0, 0.0], [2.0, 1.0], [1.0, 2.0], [0.0, 3.0]])
    truth = np.array([[0, 1], [1, 0], [0, 0], [1, 0]])
    # label 0: positives at ranks 2 and 4 -> (1/2 + 2/4) / 2; label 1: rank 4 -> 1/4
    precision = label_average_precision(SortedScores(scores, truth))
    np.testing.assert_allclose(precision, [0.5, 0.25])
    assert np.isnan(label_average_precision(SortedScores(scores, np.zeros((4, 2)))))[0]


def test_labels_keep_the_common_model_unless_another_ranks_them_better():
    # candidates x labels
    precisions = np.array([[0.5, 0.7, 0.9], [0.6, 0.7, 0.95], [0.4, 0.7, np.nan]])
    n_positive = np.array([MIN_POSITIVES, MIN_POSITIVES, MIN_POSITIVES - 1])
    # label 0: candidate 1 ranks it best; label 1: all tie with the base; label 2: too few
    # positives to tell
    assert per_label_choice(precisions, n_positive, base=1).tolist() == [1, 1, 1]
    assert per_label_choice(precisions, n_positive, base=0).tolist() == [1, 0, 0]
    assert per_label_choice(precisions, n_positive + 1, base=0).tolist() == [1, 0, 1]


def _ranking_loss(truth, scores):
    return label_ranking_loss(truth, scores) * truth.shape[0]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.booleans())
def test_a_label_changes_model_only_if_the_ranking_loss_does_not_rise(seed, ties):
    rng = np.random.default_rng(seed)
    n, n_labels, n_candidates = 30, 5, 3
    truth = (rng.random((n, n_labels)) < 0.4).astype(int)
    scores = [rng.normal(size=(n, n_labels)) for _ in range(n_candidates)]
    if ties:  # coarse scores: many ties within rows
        scores = [np.round(s) for s in scores]
    # the pair count of each label is that of scikit-learn's ranking loss (each pair twice)
    pairs = truth.sum(axis=1) * (n_labels - truth.sum(axis=1))
    weight = np.divide(1.0, pairs, out=np.zeros(n), where=pairs > 0)
    base = scores[0]
    twice = sum(
        _misordered(base, truth.astype(bool), label, base[:, label], weight)
        for label in range(n_labels)
    )
    np.testing.assert_allclose(twice / 2, _ranking_loss(truth, base))
    choice = rng.integers(0, n_candidates, size=n_labels)
    kept = ranking_safe_choice(choice, 0, scores, truth, rng.random(n_labels))
    assert np.all((kept == choice) | (kept == 0))
    composite = np.column_stack([scores[c][:, label] for label, c in enumerate(kept)])
    assert _ranking_loss(truth, composite) <= _ranking_loss(truth, base) + 1e-9


@pytest.mark.parametrize("estimator", [BinaryRelevance, IMLNB])
def test_the_defaults_give_labels_their_own_models_where_that_wins(estimator):
    """medical: some labels are told by a handful of words, others by many; the search
    keeps the per-label model, and giving it explicitly repeats the model."""
    data = load_dataset("medical")
    X, Y = data.train.X, data.train.Y
    model = estimator().fit(X, Y)
    assert isinstance(model.events_, PerLabel)
    assert repr(model.events_) in model.chosen_["out_of_fold_micro_f1"]
    plain = clone(model).set_params(**model.chosen_params_).fit(X, Y)
    np.testing.assert_array_equal(
        plain.decision_function(data.test.X), model.decision_function(data.test.X)
    )
    np.testing.assert_array_equal(plain.predict(data.test.X), model.predict(data.test.X))


def test_a_per_label_model_that_ranks_worse_is_not_kept(monkeypatch):
    """medical's per-label model, with its out-of-fold ranking loss made worse than the
    common model's: the common model is kept (and the per-label one reported)."""
    from mlnb.multilabel import _resolution

    data = load_dataset("medical")
    original = _resolution._with_per_label_choice

    def spied(chosen, search, results, pool, with_own):
        monkeypatch.setattr(
            _resolution,
            "_ranking_loss",
            lambda truth, scores: 1.0 if scores is not chosen[1].scores else 0.0,
        )
        return original(chosen, search, results, pool, with_own)

    monkeypatch.setattr(_resolution, "_with_per_label_choice", spied)
    model = BinaryRelevance().fit(data.train.X, data.train.Y)
    assert not isinstance(model.events_, PerLabel)
    assert any(name.startswith("PerLabel(") for name in model.chosen_["out_of_fold_micro_f1"])


def test_per_label_models_score_compact_statistics_through_the_dense_tables(monkeypatch):
    """In a large label space the search's statistics are compact (the multinomials'):
    a per-label model made of them scores as a refit."""
    from mlnb.multilabel import _label_model

    X, Y = _counts(seed=8, n_labels=4)
    monkeypatch.setattr(_label_model, "COMPACT_ENTRIES", 10)
    events = PerLabel(MEMBERS["counts"], choice=(0, 1, 2, 0))
    folds = [test for _, test in KFold(3, shuffle=True, random_state=0).split(X)]
    engines = {}
    template = BinaryRelevance(rule=OWN_RULE)
    _, mixed = _out_of_fold(
        template, [Multinomial(), events], X, sp.csr_matrix(Y), folds, None, engines=engines
    )
    assert len(engines) == 1 and next(iter(engines.values())).total["features"].compact
    for test in folds:
        train = np.setdiff1d(np.arange(X.shape[0]), test)
        refit = BinaryRelevance(events=events, rule=OWN_RULE).fit(X[train], Y[train])
        np.testing.assert_allclose(
            mixed.scores[test], finite_scores(refit.decision_function(X[test])), rtol=1e-9
        )


def test_naibx_scores_its_labels_per_label_and_its_sizes_with_the_common_model():
    """NaiBX's label stage takes a model per label (its p(x | y)); its size stage, whose
    groups are label-set sizes, the PerLabel's common (first) model."""
    from mlnb import NaiBX

    X, Y = _counts(1, n_labels=4)
    members = MEMBERS["counts"]
    choice = (0, 1, 2, 0)
    model = NaiBX(events=PerLabel(members, choice), rule=OWN_RULE).fit(X, Y)
    common = NaiBX(events=members[0], rule=OWN_RULE).fit(X, Y)
    np.testing.assert_array_equal(model.log_size_prior_, common.log_size_prior_)
    np.testing.assert_allclose(
        model._size_joint(X, model._model()), common._size_joint(X, common._model())
    )
    label_params = model._model()["label_params"]
    for label, index in enumerate(choice):
        alone = NaiBX(events=members[index], rule=OWN_RULE).fit(X, Y)
        expected = alone._bound_events().score(alone._model()["label_params"], X)[:, label]
        got = model._bound_events().score(label_params, X)[:, label]
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    online = NaiBX(events=PerLabel(members, choice), rule=OWN_RULE)
    online.partial_fit(X[:60], Y[:60]).partial_fit(X[60:], Y[60:])
    np.testing.assert_allclose(online.predict_proba(X), model.predict_proba(X), rtol=1e-10)


def test_naibx_label_stage_models_per_label_are_tried_when_asked():
    """Not at NaiBX's defaults (never chosen on the benchmark sets, up to 35 % more
    cost); the search tries them when asked."""
    from mlnb import NaiBX
    from mlnb.multilabel._resolution import resolve_settings

    data = load_dataset("medical")
    X, Y = data.train.X, sp.csr_matrix(data.train.Y)
    asked = resolve_settings(NaiBX(), X, Y, per_label=True)
    assert any("PerLabel" in name for name in asked.results)
    default = NaiBX().fit(data.train.X, data.train.Y)
    assert not any("PerLabel" in name for name in default.chosen_["out_of_fold_micro_f1"])
