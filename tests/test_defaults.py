"""The multi-label estimators at their defaults: settings chosen from the data.

``events="tuned"`` and ``rule="tuned"`` choose the event model and the decision rule by
fold subtraction (:mod:`mlnb.multilabel._resolution`). Checked here: the one-pass
out-of-fold scores equal refitted folds for every candidate; explicit settings give the
models of before the tuned defaults bit for bit; what is chosen is reported and reused
(``chosen_``, ``chosen_params_``, ``__repr__``); online learning, merging, Dask and the
forgetting wrappers keep one choice; the cardinality warning; untied scores; the command
line gives the Python predictions.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import KFold
from threadpoolctl import threadpool_limits

from mlnb import (
    IMLNB,
    BaggedBinaryRelevance,
    BinaryRelevance,
    ClassifierChain,
    EnsembleClassifierChains,
    NaiBX,
    TunedThresholdsCV,
)
from mlnb.datasets import load_dataset
from mlnb.decision_rules import RULES, MicroCuts, RCut, SCut, Threshold
from mlnb.events import Bernoulli, ChiSquaredSelection, Multinomial, PerLabel
from mlnb.forgetting import SlidingWindow
from mlnb.multilabel import CardinalityWarning, candidate_events, finite_scores
from mlnb.multilabel._resolution import (
    FINALISTS,
    OWN_RULE,
    _out_of_fold,
    resolve_settings,
)

DATA = Path(__file__).parent / "data"
ADDITIVE = [BinaryRelevance, ClassifierChain, IMLNB, NaiBX]


def _counts(seed=0, n=160, n_labels=4, n_features=24):
    """Word counts whose rates depend on the labels (non-negative data)."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, n_labels)) < 0.3).astype(int)
    X = rng.poisson(0.3 + 3 * Y @ rng.random((n_labels, n_features)))
    return X, Y


@pytest.fixture(scope="module")
def medical():
    data = load_dataset("medical")
    return data.train.X[:300], data.train.Y[:300], data.test.X[:60]


# ---- the one-pass search equals refitted folds ----------------------------------------------
@pytest.mark.parametrize("estimator", [BinaryRelevance, ClassifierChain, IMLNB, NaiBX])
def test_out_of_fold_scores_of_every_candidate_equal_refitted_folds(estimator):
    X, Y = _counts()
    Y = sp.csr_matrix(Y)
    folds = [test for _, test in KFold(4, shuffle=True, random_state=1).split(X)]
    template = estimator(rule=OWN_RULE)
    candidates = candidate_events(X)
    assert len(candidates) >= 8  # multinomial, Bernoulli (3 smoothings each), Bayesian, ...
    # each label's best features, selected from each fold's own training rows
    candidates += [
        ChiSquaredSelection(Multinomial(alpha=0.1), k=5),
        ChiSquaredSelection(Bernoulli(), k=7),
    ]
    for candidate in _out_of_fold(template, candidates, X, Y, folds, None):
        for test in folds:
            train = np.setdiff1d(np.arange(X.shape[0]), test)
            refit = clone(template).set_params(events=candidate.events)
            refit.fit(X[train], Y[train])
            np.testing.assert_allclose(
                candidate.scores[test],
                finite_scores(refit.decision_function(X[test])),
                rtol=1e-9,
                atol=1e-9,
            )
            np.testing.assert_array_equal(candidate.own[test], refit.predict(X[test]))


def test_the_search_keeps_the_plain_setting_unless_a_richer_one_wins():
    """Labels that no feature predicts: nothing beats the plainest setting out of fold."""
    rng = np.random.default_rng(3)
    X = rng.poisson(2.0, size=(200, 10))
    Y = (rng.random((200, 3)) < 0.5).astype(int)
    Y[:, 0] = 1 - Y[:, 1]
    resolution = resolve_settings(BinaryRelevance(), X, sp.csr_matrix(Y))
    assert resolution.results  # every (event model, rule) tried is reported
    names = [repr(events) for events in candidate_events(X)]
    # beside the candidates, at most a per-label model (binary relevance), not chosen here
    assert set(resolution.results) - set(names) <= {
        name for name in resolution.results if name.startswith("PerLabel(")
    }
    assert set(names) <= set(resolution.results)
    # every candidate with its own predict; the plainest and the finalists of the screen
    # (the plainest may be one) with every rule
    sizes = sorted(len(resolution.results[name]) for name in names)
    every = sizes.count(len(RULES) + 1)
    assert every in (FINALISTS, FINALISTS + 1)
    assert sizes == [1] * (len(sizes) - every) + [len(RULES) + 1] * every
    assert len(resolution.results[names[0]]) == len(RULES) + 1
    assert all(OWN_RULE in rules for rules in resolution.results.values())
    best = max(max(rules.values()) for rules in resolution.results.values())
    chosen = resolution.results[repr(resolution.events)][resolution.rule_name]
    assert chosen <= best
    plain = resolution.results[repr(candidate_events(X)[0])][OWN_RULE]
    if (repr(resolution.events), resolution.rule_name) != (repr(candidate_events(X)[0]), OWN_RULE):
        assert chosen > plain


def test_micro_cuts_maximise_micro_f1_jointly():
    """Unshrunk, the per-label cuts reach at least the micro F1 of every single threshold
    and of SCut's per-label F1 cuts, and equal a brute-force search on two labels."""
    from itertools import product

    from mlnb.metrics import f1_score

    rng = np.random.default_rng(0)
    truth = rng.random((60, 2)) < [0.1, 0.4]
    scores = truth * rng.normal(1.0, 1.0, truth.shape) + rng.normal(0, 1, truth.shape)
    cuts = MicroCuts(shrinkage=0).fit(scores, truth)
    got = f1_score(truth, cuts.predict(scores), average="micro")
    for other in (SCut(shrinkage=0), Threshold()):
        other.fit(scores, truth)
        assert got >= f1_score(truth, other.predict(scores), average="micro") - 1e-12
    columns = [np.r_[np.inf, np.sort(scores[:, j])] for j in range(2)]
    brute = max(
        f1_score(truth, (scores >= [a, b]).astype(int), average="micro")
        for a, b in product(*columns)
    )
    assert got == pytest.approx(brute)


# ---- explicit settings are the models of before ---------------------------------------------
def _before():
    with np.load(DATA / "explicit_settings_before.npz") as stored:
        return dict(stored)


@pytest.mark.parametrize(
    ("name", "events"),
    [
        ("emotions", "gaussian"),
        ("scene", "gaussian"),
        ("scene", "multinomial"),
        ("medical", "multinomial"),
        ("medical", "bernoulli"),
        ("medical", "gaussian"),
    ],
)
def test_explicit_settings_give_the_models_of_before_bit_for_bit(name, events):
    """Arrays made by the code before the tuned defaults (commit 89c98f9) with the same
    calls, ``rule="predict"`` being the old behaviour: the same labels, and scores equal
    to rounding (see :func:`_compare_with_before`). One BLAS thread on both sides: the
    order of a dense product's sums depends on the threads, and with it the last bit."""
    with threadpool_limits(1):
        _compare_with_before(name, events)


#: Ensembles whose members' log-odds were clipped at +-745 before their mean: now only
#: +-inf is bounded (so that scores rank, and a cut fitted to them keeps its place), so
#: their scores differ by design; their labels are compared (tests/multilabel/
#: test_out_of_bag.py checks the new scores).
BOUND_BEFORE = ("EnsembleClassifierChains", "BaggedBinaryRelevance")


def _compare_with_before(name, events):
    before = _before()
    data = load_dataset(name)
    X, Y, X_test = data.train.X[:300], data.train.Y[:300], data.test.X[:40]
    makers = {
        "BinaryRelevance": lambda: BinaryRelevance(events=events, rule="predict"),
        "ClassifierChain": lambda: ClassifierChain(events=events, rule="predict"),
        "IMLNB": lambda: IMLNB(events=events, rule="predict"),
        "NaiBX": lambda: NaiBX(events=events, rule="predict"),
        "EnsembleClassifierChains": lambda: EnsembleClassifierChains(
            events=events, n_chains=3, rule="predict", random_state=0
        ),
        "BaggedBinaryRelevance": lambda: BaggedBinaryRelevance(
            events=events, n_estimators=3, rule="predict", random_state=0
        ),
    }
    for method, make in makers.items():
        model = make().fit(X, Y)
        key = f"{name}/{events}/{method}"
        np.testing.assert_array_equal(model.predict(X_test), before[key + "/predict"], key)
        if key + "/decision_function" in before and method not in BOUND_BEFORE:
            # bit for bit on the machine that made the arrays; another CPU's BLAS sums a
            # product in another order (one to a few units in the last place: 2e-13
            # relative, measured on an AMD EPYC against the arrays of the first machine)
            np.testing.assert_allclose(
                np.asarray(model.decision_function(X_test), dtype=float),
                before[key + "/decision_function"],
                rtol=1e-9,
                atol=1e-9,
                err_msg=key,
            )


# ---- what is chosen is said and reused ---------------------------------------------------------
@pytest.mark.parametrize("estimator", ADDITIVE)
def test_defaults_say_what_they_chose_and_the_plain_model_repeats_it(estimator, medical):
    X, Y, X_test = medical
    model = estimator().fit(X, Y)
    assert set(model.chosen_) >= {"events", "rule", "out_of_fold_micro_f1", "labels_per_row"}
    assert f"rule={model.chosen_['rule']!r}" in repr(model)
    assert model.chosen_["events"] is model.events_
    plain = clone(model).set_params(**model.chosen_params_).fit(X, Y)
    assert plain.chosen_ is None  # nothing was searched
    np.testing.assert_array_equal(plain.predict(X_test), model.predict(X_test))
    np.testing.assert_array_equal(plain.decision_function(X_test), model.decision_function(X_test))


def test_defaults_beat_the_gaussian_on_word_counts(medical):
    """The issue's case: the old default (Gaussian, 0.5 rule) on sparse 0/1 words."""
    data = load_dataset("medical")
    X, Y, X_test, Y_test = data.train.X, data.train.Y, data.test.X, data.test.Y
    from mlnb.metrics import f1_score

    old = BinaryRelevance(events="gaussian", rule="predict").fit(X, Y)
    new = BinaryRelevance().fit(X, Y)
    assert (
        f1_score(Y_test, new.predict(X_test), average="micro")
        > f1_score(Y_test, old.predict(X_test), average="micro") + 0.2
    )
    chosen = new.events_.models[0] if isinstance(new.events_, PerLabel) else new.events_
    chosen = chosen.events if isinstance(chosen, ChiSquaredSelection) else chosen
    assert chosen.name in {
        "multinomial",
        "bernoulli",
        "bayesian_multinomial",
        "bayesian_bernoulli",
    }


def test_a_given_rule_is_fitted_out_of_fold_and_a_given_cut_is_used_as_is():
    X, Y = _counts()
    scut = BinaryRelevance(events="multinomial", rule="scut").fit(X, Y)
    assert isinstance(scut.rule_, SCut) and scut.chosen_["rule"] == "scut"
    cut = BinaryRelevance(events="multinomial", rule=Threshold(2.0)).fit(X, Y)
    assert cut.chosen_ is None and cut.rule_.threshold_ == 2.0
    np.testing.assert_array_equal(cut.predict(X), (cut.decision_function(X) >= 2.0).astype(int))


def test_tuned_thresholds_around_a_default_estimator_chooses_its_event_model():
    X, Y = _counts()
    tuned = TunedThresholdsCV(BinaryRelevance()).fit(X, Y)
    assert "events" in tuned.best_params_ or tuned.best_params_ == {}
    assert tuned.predict(X).shape == Y.shape


# ---- one choice for a stream, merges, Dask and forgetting ---------------------------------
@pytest.mark.parametrize("estimator", ADDITIVE)
def test_partial_fit_chooses_on_the_first_batch_and_keeps_the_choice(estimator):
    X, Y = _counts(n=240)
    model = estimator().partial_fit(X[:120], Y[:120])
    events, rule = model.events_, model.rule_
    first = dict(model.chosen_)
    model.partial_fit(X[120:], Y[120:])
    assert model.events_ is events and model.rule_ is rule and model.chosen_ == first
    plain = clone(model).set_params(**model.chosen_params_).fit(X, Y)
    np.testing.assert_allclose(plain.decision_function(X), model.decision_function(X))


def test_retune_chooses_the_rule_again_on_new_rows():
    X, Y = _counts(n=300)
    model = BinaryRelevance(events="multinomial", rule="predict").fit(X[:150], Y[:150])
    assert model.rule_ is None
    model.retune(X[150:], Y[150:])
    from mlnb.metrics import f1_score

    after = f1_score(Y[150:], model.predict(X[150:]), average="micro")
    before = f1_score(Y[150:], (model.decision_function(X[150:]) > 0).astype(int), average="micro")
    assert after >= before


def test_models_that_chose_different_event_models_do_not_merge():
    X, Y = _counts()
    a = BinaryRelevance(events="tuned", rule="predict").fit(X, Y)
    b = BinaryRelevance(events="tuned", rule="predict").fit(X[:40] * 0.5, Y[:40])
    b.events_ = candidate_events(X)[-1]  # as if its rows had chosen another model
    with pytest.raises(ValueError, match="different event models"):
        a.merge(b)


def test_dask_chooses_on_the_first_partition_and_merges():
    da = pytest.importorskip("dask.array")
    from mlnb import distributed

    X, Y = _counts(n=240)
    model = distributed.fit(
        BinaryRelevance(), da.from_array(X, chunks=(80, -1)), da.from_array(Y, chunks=(80, -1))
    )
    first = BinaryRelevance().fit(X[:80], Y[:80])
    assert repr(model.events_) == repr(first.events_)
    plain = clone(first).set_params(**first.chosen_params_).fit(X, Y)
    np.testing.assert_allclose(model.decision_function(X), plain.decision_function(X))
    np.testing.assert_array_equal(model.predict(X), plain.predict(X))


def test_forgetting_wrappers_choose_on_the_first_batch():
    X, Y = _counts(n=240)
    window = SlidingWindow(BinaryRelevance(), window=2)
    window.partial_fit(X[:80], Y[:80]).partial_fit(X[80:160], Y[80:160])
    first = BinaryRelevance().fit(X[:80], Y[:80])
    assert window.settings_.get_params()["events"] is not None
    assert repr(window.estimator_.events_) == repr(first.events_)
    window.partial_fit(X[160:], Y[160:])  # the oldest batch leaves; the settings stay
    assert repr(window.estimator_.events_) == repr(first.events_)
    assert window.predict(X).shape == Y.shape


# ---- the cardinality warning ---------------------------------------------------------------
def test_fit_warns_when_out_of_fold_label_sets_are_far_too_large():
    rng = np.random.default_rng(0)
    Y = np.eye(12, dtype=int)[rng.integers(0, 12, 200)]  # one label per row
    X = rng.poisson(1 + 3 * Y @ rng.random((12, 30)))
    with pytest.warns(CardinalityWarning, match=r"12\.00 labels per row predicted.*defaults"):
        BinaryRelevance(events="multinomial", rule=RCut(k=12)).fit(X, Y)


def test_the_warning_suggests_the_defaults_only_away_from_them():
    from mlnb.multilabel import at_defaults, warn_cardinality

    assert at_defaults(BinaryRelevance()) and at_defaults(EnsembleClassifierChains())
    assert not at_defaults(BinaryRelevance(events="gaussian"))
    assert not at_defaults(BinaryRelevance(rule="predict"))
    with pytest.warns(CardinalityWarning, match="try the defaults"):
        warn_cardinality(8.0, 1.0, where="here", estimator=BinaryRelevance(events="gaussian"))
    with pytest.warns(CardinalityWarning, match="at the defaults, no setting tried") as caught:
        warn_cardinality(8.0, 1.0, where="here", estimator=BinaryRelevance())
    assert "try the defaults" not in str(caught[0].message)


def test_fit_warns_when_out_of_fold_label_sets_are_far_too_small():
    rng = np.random.default_rng(0)
    Y = (rng.random((200, 6)) < 0.7).astype(int)
    X = rng.poisson(1 + 3 * Y @ rng.random((6, 30)))
    with pytest.warns(CardinalityWarning, match="1.00 labels per row predicted"):
        BinaryRelevance(events="multinomial", rule=RCut(k=1)).fit(X, Y)


def test_no_cardinality_warning_where_the_sizes_are_right():
    X, Y = _counts()
    with warnings.catch_warnings():
        warnings.simplefilter("error", CardinalityWarning)
        BinaryRelevance().fit(X, Y)
        BinaryRelevance(events="multinomial", rule=RCut(k=1)).fit(X, Y)


def test_evaluation_warns_about_label_sets_far_too_large():
    from mlnb.evaluation import cross_validate

    rng = np.random.default_rng(0)
    Y = np.eye(12, dtype=int)[rng.integers(0, 12, 200)]
    X = rng.poisson(1 + 3 * Y @ rng.random((12, 30)))
    model = BinaryRelevance(events="multinomial", rule=Threshold(-1e9))  # every label
    with pytest.warns(Warning) as caught:
        cross_validate(model, X, Y, cv=3, metrics=["hamming"])
    assert caught  # the degenerate "almost every label" warning or the cardinality one


# ---- scores rank: only infinite log-odds are bounded ----------------------------------------
def test_gaussian_log_odds_on_sparse_words_are_not_clipped_into_ties(medical):
    from mlnb.selection import label_scores

    X, Y, X_test = medical
    model = BinaryRelevance(events="gaussian", rule="predict").fit(X, Y)
    raw = model.decision_function(X_test)
    scores = label_scores(model, X_test)
    finite = np.isfinite(raw)
    np.testing.assert_array_equal(scores[finite], raw[finite])
    assert np.abs(raw[finite]).max() > 745  # such scores were clipped, and tied, before
    assert np.all(np.abs(scores[~finite]) >= 1e300)


def test_the_command_line_predicts_as_python(tmp_path):
    from click.testing import CliRunner

    from mlnb.cli import main

    data = load_dataset("emotions")
    runner = CliRunner()
    model_file = tmp_path / "br.mlnb"
    out = tmp_path / "predictions.csv"
    result = runner.invoke(main, ["fit", "emotions", "-m", "br", "-o", str(model_file)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(
        main,
        ["predict", str(model_file), "emotions", "--part", "test", "--no-proba", "-o", str(out)],
    )
    assert result.exit_code == 0, result.output
    from_cli = np.loadtxt(out, delimiter=",", skiprows=1, dtype=int, ndmin=2)
    python = BinaryRelevance().fit(data.train.X, data.train.Y).predict(data.test.X)
    np.testing.assert_array_equal(from_cli, python)


def test_large_data_screen_on_one_fold_then_score_the_finalists_on_every_fold(monkeypatch):
    """Above SCREEN_ENTRIES label entries the candidates are screened on the first fold;
    the plainest candidate and the finalists are then scored on every fold, with the same
    out-of-fold results as the search over every candidate gives them."""
    from mlnb.multilabel import _resolution

    X, Y = _counts(seed=5, n=150)
    Y = sp.csr_matrix(Y)
    full = resolve_settings(BinaryRelevance(), X, Y)
    monkeypatch.setattr(_resolution, "SCREEN_ENTRIES", 0)
    screened = resolve_settings(BinaryRelevance(), X, Y)
    plainest = repr(candidate_events(X)[0])
    assert plainest in screened.results
    searched = {e: r for e, r in screened.results.items() if "ChiSquared" not in e}
    assert len(searched) <= FINALISTS + 1 < len(full.results)
    assert len(screened.results[plainest]) == len(RULES) + 1
    every = sum(len(rules) == len(RULES) + 1 for rules in searched.values())
    assert every == len(searched) and every in (FINALISTS, FINALISTS + 1)
    for events, rules in searched.items():
        for name, value in rules.items():
            assert value == full.results[events][name]


def test_large_data_screen_the_numbers_of_features_kept_on_one_fold(monkeypatch):
    """Above SCREEN_ENTRIES the numbers of features kept are screened on the first fold
    too; only the best one is then scored on every fold."""
    from mlnb.multilabel import _resolution

    calls, original = [], _resolution._out_of_fold

    def spy(template, candidates, *args, only=None, **kwargs):
        calls.append(([repr(c) for c in candidates], only))
        return original(template, candidates, *args, only=only, **kwargs)

    monkeypatch.setattr(_resolution, "_out_of_fold", spy)
    monkeypatch.setattr(_resolution, "SCREEN_ENTRIES", 0)
    X, Y = _counts(seed=3, n=200, n_features=64)
    resolve_settings(BinaryRelevance(), X, sp.csr_matrix(Y), rule="threshold")
    kept = [(names, only) for names, only in calls if "ChiSquared" in names[0]]
    assert len(kept) >= 2
    assert all(only == [0] for _, only in kept[:-1])
    assert kept[-1][1] is None and len(kept[-1][0]) == 1  # the best number, every fold
    screened = {name for names, _ in kept[:-1] for name in names}
    assert kept[-1][0][0] in screened


def test_each_rule_is_judged_on_folds_it_was_not_fitted_to():
    """A rule's reported out-of-fold micro F1 is that of label sets where every fold is
    decided by the rule fitted to the other folds' out-of-fold scores (cross-fitted), not
    by the rule fitted to all the scores it is judged on."""
    from mlnb.metrics import f1_score
    from mlnb.multilabel._resolution import _folds

    X, Y = _counts(seed=8, n=140)
    Y = sp.csr_matrix(Y)
    resolution = resolve_settings(BinaryRelevance(), X, Y)
    folds = _folds(X.shape[0], 0)
    truth = Y.toarray()
    finalists = [e for e, rules in resolution.results.items() if len(rules) > 1]
    assert finalists
    for events in candidate_events(X):
        if repr(events) not in finalists:
            continue
        template = BinaryRelevance(rule=OWN_RULE)
        (candidate,) = _out_of_fold(template, [events], X, Y, folds, None)
        for name in ("scut", "microcuts", "pcut"):
            predicted = np.empty(truth.shape, dtype=int)
            for test in folds:
                train = np.setdiff1d(np.arange(len(truth)), test)
                rule = RULES[name]().fit(candidate.scores[train], truth[train])
                predicted[test] = rule.predict(candidate.scores[test])
            expected = f1_score(truth, predicted, average="micro")
            assert resolution.results[repr(events)][name] == pytest.approx(expected, abs=1e-12)


# ---- a chain's label terms -----------------------------------------------------------------
def test_a_chain_chooses_its_label_terms_from_binary_relevance_upwards(monkeypatch):
    """The event model and rule are chosen with the label terms nearly silent (binary
    relevance's scores); the best label smoothing replaces them only if it wins by one
    standard error (forced here both ways), and chosen_params_ give the same chain."""
    from mlnb.multilabel import LABEL_TERMS, WEAK_LABELS, _resolution

    X, Y = _counts(seed=4, n=200)
    default = ClassifierChain().fit(X, Y)
    assert default.label_terms_ in [WEAK_LABELS, *LABEL_TERMS]
    assert default.chosen_["label_terms"] == default.label_terms_
    assert any(" with {" in key for key in default.chosen_["out_of_fold_micro_f1"])
    again = clone(default).set_params(**default.chosen_params_).fit(X, Y)
    assert again.chosen_ is None  # nothing chosen
    np.testing.assert_array_equal(again.predict(X), default.predict(X))
    np.testing.assert_array_equal(again.decision_function(X), default.decision_function(X))
    for wins, expected in ((False, [WEAK_LABELS]), (True, list(LABEL_TERMS))):
        monkeypatch.setattr(_resolution, "wins_by_one_standard_error", lambda *a, w=wins: w)
        assert ClassifierChain().fit(X, Y).label_terms_ in expected
    # label terms given: none tried; event model and rule given too: the classic chain
    given = ClassifierChain(label_alpha=1.0, label_prior="uniform").fit(X, Y)
    assert not hasattr(given, "label_terms_")
    assert not any(" with {" in key for key in given.chosen_["out_of_fold_micro_f1"])
    plain = ClassifierChain(events="multinomial", rule="predict").fit(X, Y)
    classic = ClassifierChain(
        events="multinomial", rule="predict", label_alpha=1.0, label_prior="uniform"
    ).fit(X, Y)
    np.testing.assert_array_equal(plain.decision_function(X), classic.decision_function(X))


def test_an_ensemble_of_chains_takes_its_label_terms_from_one_chains_search(monkeypatch):
    """EnsembleClassifierChains at its defaults takes its chains' label terms from the
    search of one chain (no refit of its chains); chosen_params_ repeat the ensemble; with
    the event model and rule given, its label terms are the classic chain's."""
    from mlnb.multilabel import LABEL_TERMS, WEAK_LABELS, _resolution

    X, Y = _counts(seed=4, n=200)
    default = EnsembleClassifierChains(n_chains=3, random_state=0).fit(X, Y)
    assert default.label_terms_ in [WEAK_LABELS, *LABEL_TERMS]
    assert default.chosen_["label_terms"] == default.label_terms_
    assert {k: default.chosen_params_[k] for k in WEAK_LABELS} == default.label_terms_
    assert f"label_alpha={default.label_terms_['label_alpha']!r}]" in repr(default)
    again = clone(default).set_params(**default.chosen_params_).fit(X, Y)
    assert not hasattr(again, "label_terms_")  # nothing chosen: the terms as given
    np.testing.assert_array_equal(again.predict(X), default.predict(X))
    np.testing.assert_array_equal(again.decision_function(X), default.decision_function(X))
    for wins, expected in ((False, [WEAK_LABELS]), (True, list(LABEL_TERMS))):
        monkeypatch.setattr(_resolution, "wins_by_one_standard_error", lambda *a, w=wins: w)
        model = EnsembleClassifierChains(n_chains=3, random_state=0).fit(X, Y)
        assert model.label_terms_ in expected
    monkeypatch.undo()
    # the terms chosen are the ones used: other terms give other scores
    other = clone(default).set_params(
        **{**default.chosen_params_, "label_prior": "uniform", "label_alpha": 1.0}
    )
    if default.label_terms_ != {"label_prior": "uniform", "label_alpha": 1.0}:
        assert not np.array_equal(
            other.fit(X, Y).decision_function(X), default.decision_function(X)
        )
    # event model and rule given: the classic chain's terms, as before the tuned terms
    plain = EnsembleClassifierChains(
        n_chains=3, events="multinomial", rule="predict", random_state=0
    ).fit(X, Y)
    classic = EnsembleClassifierChains(
        n_chains=3,
        events="multinomial",
        rule="predict",
        label_alpha=1.0,
        label_prior="uniform",
        random_state=0,
    ).fit(X, Y)
    assert not hasattr(plain, "label_terms_")
    np.testing.assert_array_equal(plain.decision_function(X), classic.decision_function(X))


def test_ensembles_of_chains_that_chose_different_label_terms_do_not_merge(monkeypatch):
    from mlnb.multilabel import WEAK_LABELS, _resolution

    X, Y = _counts(seed=4, n=200)

    def make():
        return EnsembleClassifierChains(n_chains=2, events="multinomial", random_state=0)

    models = []
    for wins in (False, True):  # the label terms kept silent, or others chosen
        monkeypatch.setattr(_resolution, "wins_by_one_standard_error", lambda *a, w=wins: w)
        models.append(make().fit(X, Y))
    assert models[0].label_terms_ == WEAK_LABELS != models[1].label_terms_
    with pytest.raises(ValueError, match="different label terms"):
        models[0].merge(models[1])
    again = make().fit(X, Y)  # the same choice (wins: True) merges
    assert again.label_terms_ == models[1].label_terms_
    count = again.feature_stats_.count.sum()
    assert again.merge(models[1]).feature_stats_.count.sum() == 2 * count


def test_the_plainest_candidate_is_tried_with_every_rule_whatever_its_screen(monkeypatch):
    """The plainest candidate (the first) is tried with every rule even when the screen
    ranks it last (the data type's natural model with a rule may still win)."""
    from mlnb.multilabel import _resolution

    X, Y = _counts(seed=2, n=200)
    plainest = Multinomial(alpha=1e6)  # smoothed flat: the screen's worst
    others = [Multinomial(alpha=1.0), Multinomial(alpha=0.1), Bernoulli(alpha=1.0)]
    monkeypatch.setattr(_resolution, "candidate_events", lambda X, n: [plainest, *others])
    resolution = resolve_settings(BinaryRelevance(), X, sp.csr_matrix(Y), per_label=False)
    sizes = [len(resolution.results[repr(events)]) for events in [plainest, *others]]
    assert sizes[0] == len(RULES) + 1
    assert sorted(sizes) == [1] + [len(RULES) + 1] * 3


def test_a_dynamic_chain_ensemble_takes_its_label_terms_from_one_chains_search():
    """DynamicChainEnsemble's Naive Bayes members take the label terms one chain's search
    chose, in the final members and in the beta search's fold models alike; with the event
    model and rule given, Laplace's terms (the paper's runs)."""
    from mlnb import DynamicChainEnsemble
    from mlnb.multilabel import LABEL_TERMS, WEAK_LABELS
    from mlnb.multilabel._members import members_of

    X, Y = _counts(seed=4, n=200)
    settings = {"n_chains": 2, "random_state": 0, "max_imbalance": None}
    default = DynamicChainEnsemble(**settings).fit(X, Y)
    assert default.label_terms_ in [WEAK_LABELS, *LABEL_TERMS]
    assert {k: default.chosen_params_[k] for k in WEAK_LABELS} == default.label_terms_
    assert members_of(default).fold_settings()["label_alpha"] == default.label_terms_["label_alpha"]
    again = clone(default).set_params(**default.chosen_params_).fit(X, Y)
    np.testing.assert_array_equal(again.predict(X), default.predict(X))
    np.testing.assert_array_equal(again.decision_function(X), default.decision_function(X))
    given = {**settings, "events": "multinomial", "rule": "predict"}
    plain = DynamicChainEnsemble(**given).fit(X, Y)
    classic = DynamicChainEnsemble(**given, label_alpha=1.0, label_prior="uniform").fit(X, Y)
    assert not hasattr(plain, "label_terms_")
    np.testing.assert_array_equal(plain.decision_function(X), classic.decision_function(X))
