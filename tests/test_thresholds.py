"""Decision rules on hand-made scores, and TunedThresholdsCV's out-of-fold scores."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from mlnb import BinaryRelevance, ClassifierChain, DynamicChainEnsemble, NaiBX, TunedThresholdsCV
from mlnb.decision_rules import (
    RULES,
    Cardinality,
    MCut,
    PCut,
    PCutL,
    RCut,
    SCut,
    SortedScores,
    Threshold,
    fit_rules,
    make_rule,
)
from mlnb.events import Bernoulli, Multinomial
from mlnb.selection import OWN_RULE, event_grid, label_scores, scoring_function

SCORES = np.array(
    [
        [3.0, 1.0, -2.0, 0.5],
        [0.2, 2.5, 2.4, -1.0],
        [-3.0, -1.0, -0.5, -4.0],
        [1.5, -0.2, 0.1, 4.0],
    ]
)
Y = np.array([[1, 0, 0, 0], [0, 1, 1, 0], [0, 0, 1, 0], [1, 0, 0, 1]])


def test_fixed_and_fitted_threshold():
    np.testing.assert_array_equal(Threshold(0.0).fit(SCORES, Y).predict(SCORES), SCORES >= 0)
    rule = Threshold().fit(SCORES, Y)
    # the six positives score 4, 3, 2.5, 2.4, 1.5, -0.5: the micro-F1-best cut keeps the
    # top five (TP 5 of 5 predicted, F1 = 10/11) rather than reaching down to -0.5
    assert 1.0 < rule.threshold_ < 1.5
    assert rule.predict(SCORES).sum() == 5


def test_pcut_matches_the_training_density():
    rule = PCut().fit(SCORES, Y)  # 6 of 16 positive
    assert rule.predict(SCORES).sum() == 6
    assert rule.density_ == pytest.approx(6 / 16)


def test_pcutl_matches_each_label_frequency():
    predicted = PCutL().fit(SCORES, Y).predict(SCORES)
    np.testing.assert_array_equal(predicted.sum(axis=0), Y.sum(axis=0))
    np.testing.assert_array_equal(predicted[:, 0], [1, 0, 0, 1])  # label 0's two best rows


def test_rcut_keeps_the_k_best_of_each_row():
    rule = RCut().fit(SCORES, Y)  # cardinality 1.5 -> 2
    assert rule.k_ == 2
    np.testing.assert_array_equal(
        rule.predict(SCORES), [[1, 1, 0, 0], [0, 1, 1, 0], [0, 1, 1, 0], [1, 0, 0, 1]]
    )
    np.testing.assert_array_equal(RCut(k=1).fit(SCORES, Y).predict(SCORES).sum(axis=1), 1)


def test_mcut_cuts_each_row_at_its_largest_gap():
    # row 1 sorted: 2.5, 2.4 | 0.2, -1.0 (largest gap 2.2): labels 1 and 2
    predicted = MCut().fit(SCORES, Y).predict(SCORES)
    np.testing.assert_array_equal(predicted[1], [0, 1, 1, 0])
    np.testing.assert_array_equal(predicted[0], [1, 1, 0, 1])  # 3, 1, 0.5 | -2 (gap 2.5)
    assert np.all(predicted.sum(axis=1) >= 1)


def test_scut_thresholds_are_shrunk_towards_the_global_one():
    loose = SCut(shrinkage=0.0).fit(SCORES, Y)
    tight = SCut(shrinkage=1e9).fit(SCORES, Y)
    overall = Threshold().fit(SCORES, Y).threshold_
    np.testing.assert_allclose(tight.thresholds_, overall, rtol=1e-6)
    # unshrunk, label 2 (2.4 T, 0.1 F, -0.5 T, -2 F) is best cut below -0.5 (F1 0.8)
    assert -2.0 < loose.thresholds_[2] < -0.5
    np.testing.assert_array_equal(loose.predict(SCORES)[:, 2], [0, 1, 1, 1])


def test_rules_refuse_nan_and_unknown_names():
    with pytest.raises(ValueError, match="NaN"):
        PCut().fit(np.full((2, 2), np.nan), np.eye(2))
    with pytest.raises(ValueError, match="unknown decision rule"):
        make_rule("topk")


def data(n=150, seed=0):
    rng = np.random.default_rng(seed)
    weights = np.random.default_rng(99).random((5, 20))  # the same for every sample
    Y = (rng.random((n, 5)) < 0.25).astype(int)
    X = rng.poisson(1.0 + 3 * Y @ weights).astype(float)
    return X, Y


@pytest.mark.parametrize(
    "estimator",
    [
        BinaryRelevance(events="multinomial"),
        ClassifierChain(events="bernoulli", label_prior="uniform", label_alpha=1.0),
        ClassifierChain(events="multinomial", label_prior="marginal", label_alpha=10.0),
        NaiBX(events="gaussian", rule="predict"),  # the model NaiBX() was before "tuned"
    ],
    ids=["BR", "CC", "CC-marginal-labels", "NaiBX"],
)
def test_fold_subtraction_scores_equal_refitted_folds(estimator):
    X, Y = data()
    search = TunedThresholdsCV(estimator, cv=4)
    scores = search.out_of_fold_scores(X, Y)
    for test in search._folds(len(Y)):
        train = np.setdiff1d(np.arange(len(Y)), test)
        refit = clone(estimator).fit(X[train], Y[train])
        np.testing.assert_allclose(scores[test], label_scores(refit, X[test]), atol=1e-9)


def test_tuned_rule_beats_the_half_rule_out_of_fold():
    X, Y = data(n=300)
    X_test, Y_test = data(n=300, seed=1)
    from mlnb.metrics import f1_score

    # rule="predict": the estimator's own 0.5 rule, which the tuned rules compete with; the
    # Gaussian on counts, whose 0.5 rule cuts in the wrong place (judged cross-fitted, the
    # rules do not beat the multinomial's 0.5 rule by a standard error on these rows)
    model = BinaryRelevance(events="gaussian", rule="predict")
    half = clone(model).fit(X, Y).predict(X_test)
    tuned = TunedThresholdsCV(model).fit(X, Y)
    assert set(tuned.cv_results_["strategy"]) == {*RULES, OWN_RULE}
    assert tuned.best_strategy_ != OWN_RULE  # the rules gain clearly here
    assert f1_score(Y_test, tuned.predict(X_test), average="micro") > f1_score(
        Y_test, half, average="micro"
    )


class _OwnPredictKnowsBest:
    """predict reads the labels hidden in X's first columns; its scores are noise."""

    def fit(self, X, Y):
        self.n_labels = np.shape(Y)[1]
        return self

    def predict(self, X):
        return np.asarray(X)[:, : self.n_labels].astype(int)

    def decision_function(self, X):
        return np.asarray(X)[:, self.n_labels : 2 * self.n_labels]

    def get_params(self, deep=True):
        return {}


def test_auto_keeps_the_estimators_own_predict_when_no_rule_beats_it():
    rng = np.random.default_rng(0)
    Y = (rng.random((150, 4)) < 0.3).astype(int)
    X = np.hstack([Y, rng.normal(size=Y.shape)])
    tuned = TunedThresholdsCV(_OwnPredictKnowsBest(), cv=3).fit(X, Y)
    assert tuned.best_strategy_ == OWN_RULE and tuned.rule_ is None
    assert tuned.cv_results_["strategy"][-1] == OWN_RULE
    assert tuned.cv_results_["score"][-1] == 1.0
    np.testing.assert_array_equal(tuned.predict(X), Y)
    # a named rule is that rule, whatever the estimator's own predict does
    pcut = TunedThresholdsCV(_OwnPredictKnowsBest(), strategy="pcut", cv=3).fit(X, Y)
    assert pcut.best_strategy_ == "pcut" and OWN_RULE not in pcut.cv_results_["strategy"]


@pytest.mark.parametrize("seed", range(6))
def test_a_rule_replaces_the_own_predict_only_if_it_gains_one_standard_error(seed):
    """The choice against the folds' gains, recomputed from the out-of-fold results."""
    X, Y = data(n=90, seed=seed)
    # its own predict (rule="predict") is a size cascade, not a cut
    model = NaiBX(events="multinomial", rule="predict")
    tuned = TunedThresholdsCV(model, cv=3, random_state=seed).fit(X, Y)
    folds = tuned._folds(len(Y))
    own = np.empty(Y.shape, dtype=int)
    for test in folds:
        train = np.setdiff1d(np.arange(len(Y)), test)
        own[test] = clone(model).fit(X[train], Y[train]).predict(X[test])
    score = scoring_function("f1_micro")
    np.testing.assert_allclose(tuned.cv_results_["score"][-1], score(Y, own))
    rules = tuned.cv_results_["score"][:-1]
    best = int(np.argmax(rules))
    rule = clone(make_rule(tuned.cv_results_["strategy"][best]))
    oof = tuned.out_of_fold_scores(X, Y)
    predicted = rule.fit(oof, Y).predict(oof)
    gains = [score(Y[t], predicted[t]) - score(Y[t], own[t]) for t in folds]
    replaced = np.mean(gains) > np.std(gains, ddof=1) / np.sqrt(len(folds))
    assert (tuned.best_strategy_ != OWN_RULE) == replaced
    if not replaced:
        np.testing.assert_array_equal(tuned.predict(X), clone(model).fit(X, Y).predict(X))


def test_other_estimators_are_refitted_per_fold():
    X, Y = data(n=120)
    model = DynamicChainEnsemble(  # the vote: the tuner chooses the rule
        n_chains=2, beta=2.0, random_state=0, events="multinomial", rule="predict"
    )
    tuned = TunedThresholdsCV(model, strategy="pcutl", cv=3).fit(X, Y)
    assert tuned.best_strategy_ == "pcutl" and tuned.predict(X).shape == Y.shape


def test_a_given_threshold_needs_no_out_of_fold_scores():
    X, Y = data()
    # rule="predict": the estimator's own 0.5 rule, which the cut at log-odds 0 is
    model = BinaryRelevance(events="multinomial", rule="predict")
    tuned = TunedThresholdsCV(model, strategy=Threshold(0.0))
    tuned.fit(X, Y)
    assert tuned.oof_scores_ is None and np.isnan(tuned.cv_results_["score"]).all()
    half = clone(model).fit(X, Y)
    np.testing.assert_array_equal(tuned.predict(X), half.predict(X))


def test_predict_proba_only_where_the_estimator_has_it():
    class Scores:
        def fit(self, X, Y):
            self.n_labels = np.shape(Y)[1]
            return self

        def decision_function(self, X):
            return np.asarray(X)[:, : self.n_labels] - 1.0

        def get_params(self, deep=True):
            return {}

    X, Y = data()
    tuned = TunedThresholdsCV(Scores(), strategy="pcut", cv=3).fit(X, Y)
    assert not hasattr(tuned, "predict_proba")
    assert tuned.predict(X).shape == Y.shape


def test_label_scores_take_a_list_of_per_label_probabilities():
    class ListProba:
        def predict_proba(self, X):
            return [
                np.column_stack([1 - p, p]) for p in (np.array([0.2, 0.9]), np.array([1.0, 0.5]))
            ]

    scores = label_scores(ListProba(), None)
    np.testing.assert_allclose(scores[:, 0], np.log([0.25, 9.0]))
    assert scores[0, 1] == 745.0 and scores[1, 1] == 0.0


def test_a_grid_shares_statistics_and_refits_from_the_total(monkeypatch):
    X, Y = data(n=200)
    calls = []
    original = BinaryRelevance.batch_statistics

    def counted(self, *args, **kwargs):
        calls.append(type(self.event_model()).__name__)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(BinaryRelevance, "batch_statistics", counted)
    grid = {"events": [Multinomial(alpha=a) for a in (1.0, 0.1, 0.01)] + [Bernoulli()]}
    tuned = TunedThresholdsCV(BinaryRelevance(), param_grid=grid, cv=4).fit(X, Y)
    # one pass per fold for the three multinomial smoothings together, one for Bernoulli
    assert calls.count("Multinomial") == 4 and calls.count("Bernoulli") == 4
    assert len(tuned.cv_results_["score"]) == 4 * len(RULES) + 1  # and the own predict
    rows = zip(tuned.cv_results_["params"], tuned.cv_results_["strategy"], strict=True)
    assert (tuned.best_params_, tuned.best_strategy_) in list(rows)
    # each grid value's out-of-fold scores are those of its own search
    alone = TunedThresholdsCV(BinaryRelevance(**tuned.best_params_), cv=4)
    np.testing.assert_allclose(alone.out_of_fold_scores(X, Y), tuned.oof_scores_)
    # the final model, made from the total statistics, is the fit on every row
    refit = BinaryRelevance(**tuned.best_params_).fit(X, Y)
    np.testing.assert_allclose(tuned.decision_function(X), refit.decision_function(X))


def test_auto_grid_searches_models_that_suit_the_data():
    counts, Y = data(n=300)
    models = {type(p["events"]).__name__ for p in event_grid(counts)}
    assert models == {
        "Multinomial",
        "BayesianMultinomial",
        "Bernoulli",
        "BayesianBernoulli",
        "Gaussian",
        "DiscretisedGaussian",
    }
    # the grid depends on the values, not on how they are stored
    assert {type(p["events"]).__name__ for p in event_grid(sp.csr_matrix(counts))} == models
    real = {type(p["events"]).__name__ for p in event_grid(counts - 1.0)}
    assert real == {"Gaussian", "BayesianGaussian", "DiscretisedGaussian"}
    # the categorical model cannot score codes beyond its training layout: never in "auto"
    few = {type(p["events"]).__name__ for p in event_grid(np.minimum(counts, 3.0))}
    assert "Categorical" not in few and few == models
    X_test, Y_test = data(n=300, seed=1)
    from mlnb.metrics import f1_score

    tuned = TunedThresholdsCV(BinaryRelevance(), param_grid="auto").fit(counts, Y)
    # the default before "tuned": Gaussian events, the 0.5 rule
    default = BinaryRelevance(events="gaussian", rule="predict").fit(counts, Y)
    assert f1_score(Y_test, tuned.predict(X_test), average="micro") > f1_score(
        Y_test, default.predict(X_test), average="micro"
    )


@pytest.mark.parametrize("kind", ["f1", "jaccard", "precision", "recall"])
@pytest.mark.parametrize("average", ["micro", "macro", "samples", "weighted"])
def test_scoring_functions_equal_scikit_learns(kind, average):
    import sklearn.metrics

    rng = np.random.default_rng(0)
    Y = (rng.random((200, 7)) < 0.2).astype(int)
    P = (rng.random((200, 7)) < 0.3).astype(int)
    Y[:, 3], P[:5], Y[:3] = 0, 0, 0  # an empty label, empty predictions, empty rows
    theirs = getattr(sklearn.metrics, f"{kind}_score")(Y, P, average=average, zero_division=0)
    assert scoring_function(f"{kind}_{average}")(Y, P) == pytest.approx(theirs, abs=1e-12)


def test_scut_thresholds_equal_label_by_label_searches():
    rng = np.random.default_rng(1)
    scores = np.round(rng.normal(size=(120, 6)), 1)  # ties
    truth = rng.random((120, 6)) < 0.3
    truth[:, 2] = False
    fitted = SCut(shrinkage=0.0).fit(scores, truth).thresholds_
    overall = Threshold().fit(scores, truth).threshold_
    for label in range(6):
        alone = Threshold().fit(scores[:, [label]], truth[:, [label]]).threshold_
        expected = alone if np.isfinite(alone) else overall
        assert fitted[label] == pytest.approx(expected)


def test_cardinality_predicts_each_rows_set_size_from_its_scores():
    rng = np.random.default_rng(2)
    n, n_labels = 200, 6
    truth = np.zeros((n, n_labels), dtype=int)
    scores = rng.normal(0, 0.1, size=(n, n_labels))
    big = np.arange(n) % 2 == 0  # even rows: three labels at 2; odd rows: one label at 5
    for row in range(n):
        chosen = rng.choice(n_labels, 3 if big[row] else 1, replace=False)
        truth[row, chosen] = 1
        scores[row, chosen] += 2.0 if big[row] else 5.0
    rule = Cardinality(n_top=4).fit(scores, truth)
    predicted = rule.predict(scores)
    np.testing.assert_array_equal(predicted.sum(axis=1), np.where(big, 3, 1))
    np.testing.assert_array_equal(predicted, truth)


def brute_micro_f1_cut(scores, truth):
    """The micro-F1-best cut by trying every distinct score (the definition)."""
    flat, positive = scores.ravel(), truth.ravel().astype(bool)
    best, best_cut = -1.0, np.inf
    for cut in np.unique(flat)[::-1]:  # high to low: the first best is the highest cut
        predicted = flat >= cut
        f1 = 2 * (predicted & positive).sum() / (predicted.sum() + positive.sum())
        if f1 > best:
            best, best_cut = f1, cut
    return best, best_cut


@pytest.mark.parametrize("density", [0.001, 0.01, 0.2])
@pytest.mark.parametrize("signal", [0.0, 3.0])
def test_micro_f1_cut_from_the_top_scores_equals_the_full_search(density, signal):
    rng = np.random.default_rng(int(density * 1000) + int(signal))
    truth = rng.random((3000, 40)) < density
    scores = np.round(rng.normal(size=truth.shape) + signal * truth, 1)  # many ties
    rule = Threshold().fit(scores, truth)
    best, cut = brute_micro_f1_cut(scores, truth)
    predicted = rule.predict(scores).astype(bool)
    f1 = 2 * (predicted & truth).sum() / (predicted.sum() + truth.sum())
    assert f1 == pytest.approx(best)
    np.testing.assert_array_equal(predicted, scores >= cut)


def test_auto_grid_of_a_chain_chooses_events_nearly_as_br_then_its_label_smoothing():
    from mlnb.selection import LABEL_GRID, WEAK_LABELS

    X, Y = data(n=200)
    tuned = TunedThresholdsCV(ClassifierChain(), param_grid="auto").fit(X, Y)
    n_rules = len(tuned._candidates())
    grid = event_grid(X)
    assert tuned.cv_results_["strategy"][-1] == OWN_RULE  # the chain as given, last
    params = tuned.cv_results_["params"][:-1:n_rules]
    assert len(params) == len(grid) + len(LABEL_GRID)
    first, second = params[: len(grid)], params[len(grid) :]
    assert [repr(p) for p in first] == [repr({**g, **WEAK_LABELS}) for g in grid]
    scores = tuned.cv_results_["score"][:-1].reshape(-1, n_rules).max(axis=1)
    chosen_events = first[int(np.argmax(scores[: len(grid)]))]["events"]
    assert all(p["events"] is chosen_events for p in second)
    assert [{k: p[k] for k in ("label_prior", "label_alpha")} for p in second] == LABEL_GRID
    assert tuned.best_strategy_ != OWN_RULE
    assert tuned.best_params_ == params[int(np.argmax(scores))]


def test_rules_fitted_together_on_sorted_scores_equal_rules_fitted_alone():
    """fit_rules shares one sort of the labels and rows among the rules: every rule ends
    with the same cuts and the same label sets as when fitted alone to the plain array,
    with ties and infinite scores (constant labels) among the scores."""
    rng = np.random.default_rng(7)
    scores = np.round(rng.normal(size=(120, 9)), 1)  # many ties
    scores[:, 3] = -np.inf  # a label never seen
    scores[:5, 4] = np.inf
    Y = (rng.random((120, 9)) < 0.3).astype(int)
    Y[:, 3] = 0
    shared = SortedScores(scores, Y)
    together = fit_rules(list(RULES), shared)
    for name, rule in RULES.items():
        alone = rule().fit(scores, Y)
        for attribute in ("threshold_", "thresholds_", "k_"):
            if hasattr(alone, attribute):
                np.testing.assert_array_equal(
                    getattr(together[name], attribute), getattr(alone, attribute)
                )
        np.testing.assert_array_equal(together[name].predict(shared), alone.predict(scores))


def test_sorted_scores_without_truth_refuse_to_fit():
    with pytest.raises(ValueError, match="true label sets"):
        PCutL().fit(SortedScores(np.zeros((3, 2))))


def test_rcut_breaks_ties_by_column_order():
    """Among tied scores the first columns are taken, whatever else is in the row."""
    scores = np.array([[1.0, 1.0, 1.0, -np.inf], [0.0, 2.0, 2.0, 2.0]])
    rule = RCut(k=2).fit(scores, np.zeros((2, 4)))
    assert rule.predict(scores).tolist() == [[1, 1, 0, 0], [0, 1, 1, 0]]


def test_rules_fitted_to_some_rows_of_sorted_scores_equal_rules_fitted_to_those_rows():
    """SortedScores.rows carries the sorts over to a part of the rows (no new sort): the
    rules fitted to it and applied to it match the rules on the part's plain array."""
    rng = np.random.default_rng(11)
    scores = rng.normal(size=(90, 7))
    scores[:, 2] = -np.inf
    Y = (rng.random((90, 7)) < 0.35).astype(int)
    Y[:, 2] = 0
    shared = SortedScores(scores, Y)
    _ = shared.by_label, shared.by_row  # sorted once, before the parts
    for selected in (rng.random(90) < 0.8, np.arange(90) % 5 == 0):
        part = shared.rows(selected)
        together = fit_rules(list(RULES), part)
        for name, rule in RULES.items():
            alone = rule().fit(scores[selected], Y[selected])
            np.testing.assert_array_equal(
                together[name].predict(part), alone.predict(scores[selected]), err_msg=name
            )


def test_each_rule_is_judged_cross_fitted():
    """A rule's cv_results_ score is that of label sets where each fold's rows are decided
    by the rule fitted to the other folds' out-of-fold scores, not to their own; the
    rule kept is fitted to every row's scores."""
    from mlnb.metrics import f1_score

    X, Y = data(n=200)
    tuned = TunedThresholdsCV(BinaryRelevance(events="multinomial"), strategy="scut")
    tuned.fit(X, Y)
    scores, folds = tuned.oof_scores_, tuned._folds(len(Y))
    labels = np.zeros_like(Y)
    for test in folds:
        train = np.setdiff1d(np.arange(len(Y)), test)
        labels[test] = SCut().fit(scores[train], Y[train]).predict(scores[test])
    expected = f1_score(Y, labels, average="micro")
    assert tuned.cv_results_["score"][0] == pytest.approx(expected, abs=1e-12)
    in_sample = f1_score(Y, SCut().fit(scores, Y).predict(scores), average="micro")
    assert expected != pytest.approx(in_sample)
    np.testing.assert_array_equal(
        tuned.rule_.predict(scores), SCut().fit(scores, Y).predict(scores)
    )
