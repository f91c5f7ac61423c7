"""Multi-target Naive Bayes: equal to scikit-learn's where the model is the same, to a
brute-force search for exact inference, and additive (partial_fit, merge, forget, folds,
Dask, model files)."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.multioutput import ClassifierChain, MultiOutputClassifier
from sklearn.naive_bayes import CategoricalNB
from sklearn.utils.estimator_checks import check_estimator

from mlnb import MultiTargetChain, MultiTargetPowerset, MultiTargetRelevance
from mlnb.base import FoldStatistics
from mlnb.estimators import test_instances
from mlnb.io import load, save

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
INSTANCES = test_instances("multi_target")
MODELS = (MultiTargetRelevance, MultiTargetChain, MultiTargetPowerset)


def categorical_data(seed, n=120, n_features=5, sizes=(3, 2, 4)):
    """Categorical X whose columns depend on the outputs, and class-valued outputs."""
    rng = np.random.default_rng(seed)
    Y = np.column_stack([rng.integers(0, k, n) for k in sizes])
    Y[:, 1] = (Y[:, 0] + rng.integers(0, 2, n)) % sizes[1]  # outputs that depend
    noise = rng.integers(0, 3, (n, n_features))
    X = (noise + Y[:, [0, 1, 2, 0, 2][:n_features]]) % 4
    return X, Y


def sf2():
    from mlnb.datasets import load_dataset

    if not (DATA / "MANIFEST.tsv").is_file():
        pytest.skip(f"benchmark data not found at {DATA}")
    data = load_dataset("sf2", DATA, split="full", multi_target=True)
    return data.X.astype(int), data.Y


def close_lists(a, b, **tolerance):
    assert len(a) == len(b)
    for p, q in zip(a, b, strict=True):
        np.testing.assert_allclose(p, q, **tolerance)


# ---- scikit-learn's models --------------------------------------------------------------
def test_relevance_is_multi_output_categorical_nb_on_sf2():
    X, Y = sf2()
    train, test = slice(0, 800), slice(800, None)
    mine = MultiTargetRelevance(events="categorical").fit(X[train], Y[train])
    theirs = MultiOutputClassifier(CategoricalNB()).fit(X[train], Y[train])
    np.testing.assert_array_equal(mine.predict(X[test]), theirs.predict(X[test]))
    close_lists(mine.predict_proba(X[test]), theirs.predict_proba(X[test]), rtol=1e-12, atol=0)
    assert all(np.array_equal(a, b) for a, b in zip(mine.classes_, theirs.classes_, strict=True))


def test_relevance_with_string_and_integer_outputs():
    X, Y = categorical_data(1)
    labels = np.column_stack([np.array(["low", "mid", "high"])[Y[:, 0]], Y[:, 1:]]).astype(object)
    labels[:, 1:] = Y[:, 1:]
    mine = MultiTargetRelevance(events="categorical").fit(X, labels)
    predicted = mine.predict(X)
    for j in range(3):  # MultiOutputClassifier cannot sort outputs of different types
        theirs = CategoricalNB().fit(X, labels[:, j].tolist())
        np.testing.assert_array_equal(predicted[:, j], theirs.predict(X))
    assert mine.classes_[0].tolist() == ["high", "low", "mid"]
    assert mine.classes_[1].tolist() == [0, 1]


@pytest.mark.parametrize("order", [[0, 1, 2], [2, 0, 1]])
def test_greedy_chain_is_classifier_chain_of_categorical_nb(order):
    # scikit-learn's chain appends the parents' classes as features: coded 0..K-1, the
    # categorical model of those features is the chain's parent term
    X, Y = sf2()
    codes = np.column_stack([np.unique(column, return_inverse=True)[1] for column in Y.T])
    train, test = slice(0, 800), slice(800, None)
    mine = MultiTargetChain(events="categorical", order=order).fit(X[train], codes[train])
    theirs = ClassifierChain(CategoricalNB(), order=order).fit(X[train], codes[train])
    np.testing.assert_array_equal(mine.predict(X[test]), theirs.predict(X[test]))
    for seed in range(3):
        X, Y = categorical_data(seed)
        mine = MultiTargetChain(events="categorical", order=order).fit(X, Y)
        theirs = ClassifierChain(CategoricalNB(), order=order).fit(X, Y)
        np.testing.assert_array_equal(mine.predict(X), theirs.predict(X))


def test_powerset_is_categorical_nb_over_the_combinations():
    X, Y = sf2()
    train, test = slice(0, 800), slice(800, None)
    names = np.array(["-".join(map(str, row)) for row in Y])
    mine = MultiTargetPowerset(events="categorical").fit(X[train], Y[train])
    theirs = CategoricalNB().fit(X[train], names[train])
    predicted = np.array(["-".join(map(str, row)) for row in mine.predict(X[test])])
    np.testing.assert_array_equal(predicted, theirs.predict(X[test]))
    # each output's marginal: the combinations' posteriors summed by that output's class
    proba = theirs.predict_proba(X[test])
    combos = np.array([name.split("-") for name in theirs.classes_]).astype(int)
    for j, block in enumerate(mine.predict_proba(X[test])):
        expected = np.column_stack(
            [proba[:, combos[:, j] == c].sum(axis=1) for c in mine.classes_[j]]
        )
        np.testing.assert_allclose(block, expected, rtol=1e-9, atol=1e-15)
    assert len(mine.combinations_) == len(theirs.classes_)


def reference_chain_scores(X, Y, X_new, order):
    """``sum_j log P(y_j | x, parents)`` of every combination of classes, from one
    CategoricalNB per output on X and its parents' classes: shape (n_new, n_combinations)."""
    sizes = [len(np.unique(column)) for column in Y.T]
    combos = np.array(list(itertools.product(*[range(k) for k in sizes])))
    n_features = X.shape[1]
    models = {}
    for place, j in enumerate(order):
        parents = list(order[:place])
        models[j] = (parents, CategoricalNB().fit(np.column_stack([X, Y[:, parents]]), Y[:, j]))
    scores = np.zeros((len(X_new), len(combos)))
    for c, combo in enumerate(combos):
        for j, (parents, model) in models.items():
            rows = np.column_stack([X_new, np.tile(combo[parents], (len(X_new), 1))])
            # parent classes beyond those the model saw as features are impossible here
            assert rows.shape[1] == n_features + len(parents)
            scores[:, c] += model.predict_log_proba(rows)[:, combo[j]]
    return scores, combos


@pytest.mark.parametrize("seed", range(4))
def test_exact_inference_finds_the_best_combination(seed):
    X, Y = categorical_data(seed, n=80)
    order = [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1]][seed]
    scores, combos = reference_chain_scores(X, Y, X, order)
    best = scores.max(axis=1)
    exact = MultiTargetChain(events="categorical", inference="exact", order=order).fit(X, Y)
    predicted = exact.predict(X)
    found = scores[np.arange(len(X)), [combos.tolist().index(list(row)) for row in predicted]]
    np.testing.assert_allclose(found, best, rtol=1e-12)
    # a beam as wide as every combination is exact; a beam of 1 is greedy
    wide = exact.set_params(inference="beam", beam_width=len(combos))
    np.testing.assert_array_equal(wide.predict(X), predicted)
    greedy = MultiTargetChain(events="categorical", order=order).fit(X, Y)
    one = MultiTargetChain(events="categorical", order=order, inference="beam", beam_width=1)
    np.testing.assert_array_equal(one.fit(X, Y).predict(X), greedy.predict(X))
    # the beam never scores below greedy
    beam = MultiTargetChain(events="categorical", order=order, inference="beam", beam_width=3)

    def score_of(model):
        rows = [combos.tolist().index(list(row)) for row in model.fit(X, Y).predict(X)]
        return scores[np.arange(len(X)), rows]

    assert np.all(score_of(beam) >= score_of(greedy) - 1e-12)


def test_chain_probabilities_are_the_conditionals_along_the_prediction():
    X, Y = categorical_data(3)
    model = MultiTargetChain(events="categorical", order=[2, 0, 1]).fit(X, Y)
    predicted = model.predict(X)
    proba = model.predict_proba(X)
    for j in range(3):
        np.testing.assert_allclose(proba[j].sum(axis=1), 1.0)
        np.testing.assert_array_equal(proba[j].argmax(axis=1), predicted[:, j])  # greedy
    parents = Y[:, [2, 0]]
    theirs = CategoricalNB().fit(np.column_stack([X, parents]), Y[:, 1])
    np.testing.assert_allclose(
        proba[1], theirs.predict_proba(np.column_stack([X, predicted[:, [2, 0]]])), rtol=1e-12
    )


# ---- additivity ---------------------------------------------------------------------------
def models_of(events):
    return [
        MultiTargetRelevance(events=events, prior_alpha=0.5),
        MultiTargetChain(events=events, parent_alpha=0.5, inference="beam", beam_width=2),
        MultiTargetPowerset(events=events, prior_alpha=0.5),
    ]


def same_subtracted(a, b, events):
    """``a`` (fitted on some rows) equals ``b`` (statistics minus other rows): in its
    predictions, or with Gaussian events in its statistics. A Gaussian's variances after a
    subtraction (Chan et al.'s removal) equal a refit's to rounding, but a group of one row
    (or equal rows) has variance 0 in a refit and rounding noise after a subtraction, which
    ``var_smoothing``'s tiny variance magnifies in the likelihoods."""
    if events != "gaussian":
        same_model(a, b, rtol=1e-9)
        return
    for mine, theirs in ((a.feature_stats_, b.feature_stats_), (a.pair_stats_, b.pair_stats_)):
        if mine is None:
            assert theirs is None
            continue
        np.testing.assert_allclose(mine.count, theirs.count, rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(mine.mean, theirs.mean, rtol=1e-9, atol=1e-9)
        if mine.second_moments:
            np.testing.assert_allclose(mine.var, theirs.var, rtol=1e-9, atol=1e-9)


def same_model(a, b, rtol=1e-9):
    X = a._probe
    close_lists(a.predict_proba(X), b.predict_proba(X), rtol=rtol, atol=1e-12)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    cut=st.integers(5, 55),
    events=st.sampled_from(["gaussian", "multinomial", "categorical"]),
)
def test_fit_equals_partial_fit_equals_merge_and_forget_equals_refit(seed, cut, events):
    X, Y = categorical_data(seed, n=60)
    rng = np.random.default_rng(seed)
    weight = rng.integers(1, 4, len(X)).astype(float)
    for model in models_of(events):
        whole = model.__class__(**model.get_params()).fit(X, Y, sample_weight=weight)
        whole._probe = X
        classes = whole.classes_
        chunks = model.__class__(**model.get_params())
        chunks.partial_fit(X[:cut], Y[:cut], classes=classes, sample_weight=weight[:cut])
        chunks.partial_fit(X[cut:], Y[cut:], sample_weight=weight[cut:])
        same_model(whole, chunks)
        left = model.__class__(**model.get_params()).partial_fit(
            X[:cut], Y[:cut], classes=classes, sample_weight=weight[:cut]
        )
        right = model.__class__(**model.get_params()).partial_fit(
            X[cut:], Y[cut:], classes=classes, sample_weight=weight[cut:]
        )
        same_model(whole, left.merge(right))
        rest = model.__class__(**model.get_params()).partial_fit(
            X[cut:], Y[cut:], classes=classes, sample_weight=weight[cut:]
        )
        rest._probe = X
        forgot = whole.forget(X[:cut], Y[:cut], sample_weight=weight[:cut])
        same_subtracted(rest, forgot, events)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), events=st.sampled_from(["gaussian", "categorical"]))
def test_fold_subtraction_equals_refit(seed, events):
    X, Y = categorical_data(seed, n=45)
    folds = [np.arange(k, len(X), 3) for k in range(3)]
    for model in models_of(events):
        engine = FoldStatistics(model, X, Y, folds)
        for k, test in enumerate(folds):
            train = np.setdiff1d(np.arange(len(X)), test)
            refit = model.__class__(**model.get_params()).partial_fit(
                X[train], Y[train], classes=engine.output_classes
            )
            refit._probe = X
            same_subtracted(refit, engine.model(k), events)
        whole = model.__class__(**model.get_params()).fit(X, Y)
        whole._probe = X
        same_model(whole, engine.full_model())


def test_dask_fit_equals_fit(client):
    da = pytest.importorskip("dask.array")
    from mlnb import distributed

    X, Y = categorical_data(5, n=90)
    for model in models_of("multinomial"):
        whole = model.__class__(**model.get_params()).fit(X, Y)
        whole._probe = X
        parts = distributed.fit(
            model, da.from_array(X, chunks=(25, 5)), da.from_array(Y, chunks=(25, 3))
        )
        same_model(whole, parts)


def test_sparse_rows_give_the_dense_model():
    X, Y = categorical_data(2)
    for model in models_of("multinomial"):
        dense = model.__class__(**model.get_params()).fit(X, Y)
        dense._probe = X
        sparse = model.__class__(**model.get_params()).fit(sp.csr_matrix(X), Y)
        close_lists(dense.predict_proba(X), sparse.predict_proba(sp.csr_matrix(X)), rtol=1e-12)


@pytest.mark.parametrize("cls", MODELS)
def test_model_file_round_trip(cls, tmp_path):
    X, Y = categorical_data(4)
    labels = Y.astype(object)
    labels[:, 0] = np.array(["a", "b", "c"])[Y[:, 0]]
    for target in (labels, Y[:, 2]):
        model = cls(events="categorical").fit(X, target)
        save(model, tmp_path / "model.mlnb")
        restored = load(tmp_path / "model.mlnb")
        np.testing.assert_array_equal(restored.predict(X), model.predict(X))
        if model.outputs_2d_:
            close_lists(restored.predict_proba(X), model.predict_proba(X), rtol=0)
        else:
            np.testing.assert_array_equal(restored.predict_proba(X), model.predict_proba(X))
        restored.partial_fit(X[:5], target[:5])
        model.partial_fit(X[:5], target[:5])
        np.testing.assert_array_equal(restored.predict(X), model.predict(X))


def test_one_output_is_a_single_label_classifier():
    X, Y = categorical_data(6)
    for cls in MODELS:
        model = cls(events="categorical").fit(X, Y[:, 0])
        theirs = CategoricalNB().fit(X, Y[:, 0])
        assert model.predict(X).shape == (len(X),)
        np.testing.assert_allclose(model.predict_proba(X), theirs.predict_proba(X), rtol=1e-12)


# ---- errors -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("y", "message"),
    [
        (None, "requires y to be passed"),
        (np.full((10, 2), 0.5), "Unknown label type: continuous"),
        (np.array([[0, np.nan]] * 10), "NaN"),
        (np.zeros((9, 2)), "X has 10 rows but y has 9"),
        (np.zeros((10, 2, 1)), "shape"),
        (sp.csr_matrix(np.zeros((10, 2))), "dense"),
    ],
)
def test_bad_targets_are_refused_by_name(y, message):
    for cls in MODELS:
        with pytest.raises(ValueError, match=message):
            cls().fit(np.ones((10, 2)), y)


def test_partial_fit_needs_classes_first_and_refuses_unknown_classes():
    X, Y = categorical_data(0)
    model = MultiTargetRelevance(events="categorical")
    with pytest.raises(ValueError, match=r"classes= .* required on the first call"):
        model.partial_fit(X, Y)
    model.partial_fit(X[:10], Y[:10], classes=[[0, 1, 2], [0, 1], [0, 1, 2, 3]])
    before = model.predict_proba(X)
    bad = Y[:5].copy()
    bad[0, 1] = 7
    with pytest.raises(ValueError, match="output 1 holds classes not among"):
        model.partial_fit(X[:5], bad)
    close_lists(model.predict_proba(X), before, rtol=0)  # nothing changed


def test_chain_refuses_a_bad_order_and_a_too_large_exact_search():
    X, Y = categorical_data(0)
    with pytest.raises(ValueError, match="order must be a permutation"):
        MultiTargetChain(order=[0, 0, 1]).fit(X, Y)
    many = np.column_stack([np.arange(120) % 50] * 3)
    model = MultiTargetChain(events="categorical", inference="exact").fit(X, many)
    with pytest.raises(ValueError, match=r"125,000 combinations.*inference=.beam."):
        model.predict(X)


def test_merge_refuses_other_classes():
    X, Y = categorical_data(0)
    a = MultiTargetRelevance(events="categorical").fit(X, Y)
    b = MultiTargetRelevance(events="categorical").fit(X[:3], Y[:3])
    with pytest.raises(ValueError, match="classes_ differ"):
        a.merge(b)


# ---- scikit-learn's checks ---------------------------------------------------------------
@pytest.mark.parametrize(("name", "estimator"), INSTANCES, ids=[name for name, _ in INSTANCES])
def test_scikit_learn_checks(name, estimator):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(estimator, on_skip=None, on_fail=None)
    failed = [r["check_name"] for r in results if r["status"] == "failed"]
    assert not failed, failed


# ---- edge cases a user meets ----------------------------------------------------------------
def test_one_output_through_dask_and_fold_subtraction(client):
    da = pytest.importorskip("dask.array")
    from mlnb import distributed

    X, Y = categorical_data(7, n=60)
    for cls in MODELS:
        whole = cls(events="multinomial").fit(X, Y[:, 0])
        parts = distributed.fit(
            cls(events="multinomial"), da.from_array(X, chunks=(20, 5)), da.from_array(Y[:, 0], 20)
        )
        np.testing.assert_allclose(parts.predict_proba(X), whole.predict_proba(X), rtol=1e-12)
        engine = FoldStatistics(
            cls(events="multinomial"), X, Y[:, 0], [np.arange(60) % 2 == k for k in (0, 1)]
        )
        fold = engine.full_model()
        assert fold.predict(X).shape == (60,)
        np.testing.assert_allclose(fold.predict_proba(X), whole.predict_proba(X), rtol=1e-12)


def test_powerset_marginals_stay_finite_far_from_the_data():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(5.0, 1.0, (200, 3)), rng.integers(0, 3, (200, 2))
    model = MultiTargetPowerset(events="gaussian").fit(X, Y)
    far = np.array([[150.0, 5.0, 5.0]])
    for j, block in enumerate(model.predict_log_proba(far)):
        assert np.all(np.isfinite(block))  # exp would underflow: the sums are in log space
        joint = model._joint_log_likelihood(far)
        joint = joint - np.logaddexp.reduce(joint, axis=1, keepdims=True)
        expected = [np.logaddexp.reduce(joint[0, model.combinations_[:, j] == c]) for c in range(3)]
        np.testing.assert_allclose(block[0], expected, rtol=1e-12)


def test_missing_and_mixed_cells_and_emptied_powerset_are_clear_errors():
    import pandas as pd

    X = np.ones((4, 2))
    with pytest.raises(ValueError, match=r"missing cell \(row 1, output 0\)"):
        MultiTargetRelevance().fit(X, pd.DataFrame({"a": ["x", None, "x", "y"], "b": [1, 2, 1, 2]}))
    with pytest.raises(ValueError, match="output 0 of y mixes classes of types int, str"):
        MultiTargetRelevance().fit(X, np.array([[1, 0], ["a", 1], [1, 0], [2, 1]], dtype=object))
    model = MultiTargetPowerset(events="multinomial").fit(X, [[0, 1], [1, 0], [0, 0], [1, 1]])
    with pytest.raises(ValueError, match="no row is left"):
        model.forget(X, [[0, 1], [1, 0], [0, 0], [1, 1]])
    with pytest.raises(ValueError, match="order must be a permutation"):
        MultiTargetChain(order=[1.0, 0.0]).fit(X, [[0, 1], [1, 0], [0, 0], [1, 1]])


def test_cross_validate_scores_multi_target_criteria_by_default():
    from mlnb.evaluation import cross_validate

    X, Y = categorical_data(8, n=60)
    result = cross_validate(MultiTargetChain(events="categorical"), X, Y, cv=3, random_state=0)
    assert set(result.scores) == {
        "mt_exact_match",
        "mt_hamming_score",
        "mt_hamming_loss",
        "mt_zero_one_loss",
    }
