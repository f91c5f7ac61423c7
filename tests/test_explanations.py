"""Explanations of the multi-label Naive Bayes estimators: a row's log-odds of a label as
baseline + feature contributions + rest (exact), and each label's top features."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm
from sklearn.linear_model import LogisticRegression

from mlnb import (
    IMLNB,
    BinaryRelevance,
    ClassifierChain,
    DynamicChain,
    EnsembleClassifierChains,
    NaiBX,
)
from mlnb.cli import main
from mlnb.events import (
    Bernoulli,
    Categorical,
    ChiSquaredSelection,
    Gaussian,
    Mixed,
    Multinomial,
    PerLabel,
)
from mlnb.io import save

EVENTS = ["multinomial", "bernoulli", "gaussian", "bayesian_multinomial"]
SEPARABLE = ["multinomial", "bernoulli", "gaussian", "complement", "bayesian_bernoulli"]


def _data(seed, n=30, d=7, L=3):
    rng = np.random.default_rng(seed)
    X = rng.poisson(0.8, (n, d)).astype(float)
    Y = (rng.random((n, L)) < 0.4).astype(int)
    Y[0], Y[1] = 1, 0  # every label has rows with and without it
    return X, Y


def _dense(matrix):
    return matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)


def _check_sum(model, X, label):
    why = model.explain(X, label)
    assert why.contributions.shape == (X.shape[0], X.shape[1])
    assert sp.issparse(why.contributions) == sp.issparse(X)
    total = why.baseline + _dense(why.contributions).sum(axis=1) + why.rest
    # to rounding: 1e-9, relative where the terms are large (a Gaussian feature constant
    # within a label has a variance at its floor: log-odds of 1e9)
    scale = 1 + np.abs(why.baseline) + np.abs(_dense(why.contributions)).sum(axis=1)
    assert np.all(np.abs(total - why.log_odds) <= 1e-9 * scale)
    np.testing.assert_allclose(why.log_odds, model.decision_function(X)[:, label], atol=0)
    # a feature at 0 contributes exactly nothing
    assert np.all(_dense(why.contributions)[_dense(X) == 0] == 0)
    return why


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), sparse=st.booleans())
@pytest.mark.parametrize("events", EVENTS)
@pytest.mark.parametrize("estimator", [BinaryRelevance, ClassifierChain])
def test_parts_sum_to_the_decision_function(estimator, events, seed, sparse):
    X, Y = _data(seed)
    X = sp.csr_matrix(X) if sparse else X
    model = estimator(events=events, rule="predict").fit(X, Y)
    for label in range(Y.shape[1]):
        why = _check_sum(model, X, label)
        if estimator is BinaryRelevance and events != "bayesian_multinomial":
            scale = 1 + np.abs(why.baseline) + np.abs(_dense(why.contributions)).sum(axis=1)
            assert np.all(np.abs(why.rest) <= 1e-9 * scale)


@pytest.mark.parametrize("events", SEPARABLE)
def test_rest_is_zero_for_binary_relevance_with_a_separable_model(events):
    X, Y = _data(3)
    for matrix in (X, sp.csr_matrix(X)):
        model = BinaryRelevance(events=events, rule="predict").fit(matrix, Y)
        for label in range(Y.shape[1]):
            np.testing.assert_allclose(model.explain(matrix, label).rest, 0, atol=1e-9)


def test_rest_holds_the_non_separable_parts():
    X, Y = _data(4)
    bayesian = BinaryRelevance(events="bayesian_multinomial", rule="predict").fit(X, Y)
    assert np.abs(bayesian.explain(X, 0).rest).max() > 1e-6  # the document-length term
    chain = ClassifierChain(events="multinomial").fit(X, Y)
    assert np.abs(chain.explain(X, 2).rest).max() > 1e-6  # the chain's label terms


@pytest.mark.parametrize(
    ("events", "selected"),
    [
        (PerLabel([Multinomial(alpha=0.5), Multinomial(alpha=2.0)], choice=[0, 1, 1]), 7),
        (
            PerLabel(
                [
                    ChiSquaredSelection(events=Bernoulli(alpha=0.01), k=5),
                    ChiSquaredSelection(events=Bernoulli(alpha=0.01), k=2),
                ],
                choice=[1, 0, 1],
            ),
            2,  # label 0's model keeps 2 features
        ),
        (ChiSquaredSelection(events=Bernoulli(alpha=0.1), k=3), 3),
        (ChiSquaredSelection(events=Multinomial(), k=2), 2),
    ],
)
def test_per_label_and_selected_models(events, selected):
    X, Y = _data(5)
    model = BinaryRelevance(events=events, rule="predict").fit(X, Y)
    for label in range(3):
        why = _check_sum(model, X, label)
        np.testing.assert_allclose(why.rest, 0, atol=1e-9)
    # a feature left out adds nothing, so at most the selected ones are listed
    top = model.top_features(0, k=7)
    assert 0 < len(top.raising) + len(top.lowering) <= selected
    columns = np.flatnonzero(np.abs(_dense(model.explain(X, 0).contributions)).sum(axis=0))
    assert columns.size <= selected


def test_missing_entries_ignored_remove_their_zero_term():
    X, Y = _data(8)
    X[2, 1] = X[5, 3] = np.nan
    model = BinaryRelevance(events="gaussian", missing="ignore", rule="predict").fit(X, Y)
    why = model.explain(X, 1)
    total = why.baseline + why.contributions.sum(axis=1) + why.rest
    np.testing.assert_allclose(total, why.log_odds, atol=1e-9)
    np.testing.assert_allclose(why.rest, 0, atol=1e-9)
    assert why.contributions[2, 1] != 0  # what a 0 would have added is taken away


@pytest.mark.parametrize(
    "events", [Categorical(), Mixed([(Categorical(), [0, 1]), (Gaussian(), slice(2, None))])]
)
def test_models_that_encode_columns_are_summed_back_onto_them(events):
    X, Y = _data(6)
    X[:, :2] = np.minimum(X[:, :2], 2)
    for matrix in (X, sp.csr_matrix(X)):
        model = BinaryRelevance(events=events, rule="predict").fit(matrix, Y)
        assert model.feature_stats_.n_features != X.shape[1]  # the one-hot is wider
        for label in range(3):
            why = _check_sum(model, matrix, label)
            np.testing.assert_allclose(why.rest, 0, atol=1e-9)
        with pytest.raises(TypeError, match="use explain on rows"):
            model.top_features(0)


def test_other_estimators_sum_or_refuse_by_name():
    X, Y = _data(9, n=60)
    for model in (IMLNB(events="multinomial"), DynamicChain(events="multinomial")):
        model.fit(X, Y)
        for sparse in (False, True):
            _check_sum(model, sp.csr_matrix(X) if sparse else X, 1)
    with pytest.raises(TypeError, match="NaiBX does not score a label"):
        NaiBX(events="multinomial").fit(X, Y).explain(X, 0)
    ensemble = EnsembleClassifierChains(events="multinomial", n_chains=3).fit(X, Y)
    with pytest.raises(TypeError, match="BinaryRelevance fitted on the same rows"):
        ensemble.top_features(0)
    other = BinaryRelevance(base_estimator=LogisticRegression()).fit(X, Y)
    with pytest.raises(TypeError, match="base_estimator is not a Naive Bayes model"):
        other.explain(X, 0)


# ---- exact small cases by hand --------------------------------------------------------------
X_SMALL = np.array([[3, 0, 1], [0, 2, 1], [1, 1, 2], [2, 1, 0], [0, 0, 3]], dtype=float)
Y_SMALL = np.array([[1, 0], [0, 1], [1, 1], [1, 0], [0, 0]])


def _prior(Y, label, alpha):
    n_l = Y[:, label].sum()
    return np.log(n_l + alpha) - np.log(len(Y) - n_l + alpha)


def test_multinomial_by_hand():
    alpha, prior_alpha = 0.5, 1.0
    model = BinaryRelevance(
        events=Multinomial(alpha=alpha), prior_alpha=prior_alpha, rule="predict"
    ).fit(X_SMALL, Y_SMALL)
    d = X_SMALL.shape[1]
    for label in (0, 1):
        on = Y_SMALL[:, label] == 1
        phi_1 = (X_SMALL[on].sum(0) + alpha) / (X_SMALL[on].sum() + d * alpha)
        phi_0 = (X_SMALL[~on].sum(0) + alpha) / (X_SMALL[~on].sum() + d * alpha)
        why = model.explain(X_SMALL, label)
        expected = X_SMALL * (np.log(phi_1) - np.log(phi_0))
        np.testing.assert_allclose(why.contributions, expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(why.baseline, _prior(Y_SMALL, label, prior_alpha), rtol=1e-12)


def test_bernoulli_by_hand():
    alpha, prior_alpha = 1.0, 0.5
    model = BinaryRelevance(
        events=Bernoulli(alpha=alpha), prior_alpha=prior_alpha, rule="predict"
    ).fit(X_SMALL, Y_SMALL)
    B = (X_SMALL > 0).astype(float)
    for label in (0, 1):
        on = Y_SMALL[:, label] == 1
        p_1 = (B[on].sum(0) + alpha) / (on.sum() + 2 * alpha)
        p_0 = (B[~on].sum(0) + alpha) / ((~on).sum() + 2 * alpha)
        absent = np.log1p(-p_1) - np.log1p(-p_0)
        present = np.log(p_1) - np.log(p_0)
        why = model.explain(X_SMALL, label)
        np.testing.assert_allclose(why.baseline, _prior(Y_SMALL, label, prior_alpha) + absent.sum())
        np.testing.assert_allclose(why.contributions, B * (present - absent), atol=1e-12)
        # one occurrence: presence instead of absence
        top = model.top_features(label, k=3)
        weights = dict(top.raising + top.lowering)
        for j, w in enumerate(present - absent):
            assert weights.get(f"x{j}", 0.0) == pytest.approx(w, abs=1e-12)


def test_gaussian_by_hand():
    rng = np.random.default_rng(7)
    X = rng.normal(1.0, 2.0, (12, 3))
    Y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]] * 3)
    eps = 1e-9
    model = BinaryRelevance(events=Gaussian(var_smoothing=eps), rule="predict").fit(X, Y)
    floor = eps * X.var(axis=0).max()
    for label in (0, 1):
        on = Y[:, label] == 1
        sides = [(X[s].mean(0), X[s].var(0) + floor) for s in (on, ~on)]

        def log_ratio(x, sides=sides):
            (m1, v1), (m0, v0) = sides
            return norm.logpdf(x, m1, np.sqrt(v1)) - norm.logpdf(x, m0, np.sqrt(v0))

        why = model.explain(X, label)
        expected = np.where(X != 0, log_ratio(X) - log_ratio(np.zeros_like(X)), 0.0)
        np.testing.assert_allclose(why.contributions, expected, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(why.rest, 0, atol=1e-9)
        # top features: at the label's mean minus at the other rows' mean
        (m1, v1), (m0, v0) = sides
        gap = log_ratio(m1) - log_ratio(m0)
        np.testing.assert_allclose(gap, (m1 - m0) ** 2 * (1 / v1 + 1 / v0) / 2, rtol=1e-9)
        weights = np.sign(m1 - m0) * gap  # larger in the label's rows: raising
        top = model.top_features(label, k=3)
        got = dict(top.raising + top.lowering)
        for j, w in enumerate(weights):
            assert got.get(f"x{j}", 0.0) == pytest.approx(w, rel=1e-9, abs=1e-12)


def test_top_features_order_by_hand():
    # word 0 only with the label, word 1 only without, word 2 everywhere, word 3 a little
    # more often with the label
    X = np.array([[4, 0, 1, 1], [3, 0, 1, 1], [0, 4, 1, 0], [0, 3, 1, 1]], dtype=float)
    Y = np.array([[1], [1], [0], [0]])
    model = BinaryRelevance(events="multinomial", rule="predict").fit(X, Y)
    top = model.top_features(0, k=5, feature_names=["ball", "vote", "the", "team"])
    assert [name for name, _ in top.raising] == ["ball", "team"]
    assert [name for name, _ in top.lowering] == ["vote", "the"]
    assert top.raising[0][1] > top.raising[1][1] > 0 > top.lowering[1][1] > top.lowering[0][1]
    # k cuts each side
    top = model.top_features(0, k=1, feature_names=["ball", "vote", "the", "team"])
    assert [n for n, _ in top.raising] == ["ball"] and [n for n, _ in top.lowering] == ["vote"]
    assert "ball" in str(top) and "vote" in str(top)


def test_names_from_a_dataframe_and_labels_by_name():
    X = pd.DataFrame(X_SMALL, columns=["ball", "vote", "team"])
    Y = pd.DataFrame(Y_SMALL, columns=["sport", "politics"])
    model = BinaryRelevance(events="multinomial", rule="predict").fit(X, Y)
    top = model.top_features("politics", k=3)
    assert top.label == "politics"
    assert {n for n, _ in top.raising + top.lowering} <= {"ball", "vote", "team"}
    why = model.explain(X, "sport")
    assert why.label == "sport" and why.label_index == 0
    assert list(why.feature_names) == ["ball", "vote", "team"]
    listed = why.top(row=0, k=2)
    assert listed.raising[0][0] == "ball"


def test_errors_say_what_is_wrong():
    model = BinaryRelevance(events="multinomial", rule="predict")
    with pytest.raises(Exception, match="not fitted"):
        model.explain(X_SMALL, 0)
    with pytest.raises(Exception, match="not fitted"):
        model.top_features(0)
    model.fit(X_SMALL, Y_SMALL)
    with pytest.raises(ValueError, match="label 2 is out of range: the model has 2 labels"):
        model.explain(X_SMALL, 2)
    with pytest.raises(ValueError, match="out of range"):
        model.top_features(-1)
    with pytest.raises(ValueError, match="unknown label 'sport'"):
        model.top_features("sport")
    with pytest.raises(ValueError, match="feature_names holds 2 names; the model has 3"):
        model.top_features(0, feature_names=["a", "b"])
    with pytest.raises(ValueError, match="k must be a positive integer"):
        model.top_features(0, k=0)
    with pytest.raises(IndexError, match="row 9 is out of range"):
        model.explain(X_SMALL, 0).top(row=9)
    with pytest.raises(ValueError, match="features"):
        model.explain(X_SMALL[:, :2], 0)


# ---- the command line --------------------------------------------------------------------------
_ARFF = """@relation 'news: -C 2'
@attribute sport {0,1}
@attribute politics {0,1}
@attribute ball numeric
@attribute vote numeric
@attribute team numeric
@data
"""


def test_explain_command_on_a_saved_model(tmp_path):
    data = tmp_path / "news.arff"
    rows = "\n".join(
        ",".join(str(int(v)) for v in (*y, *x)) for x, y in zip(X_SMALL, Y_SMALL, strict=True)
    )
    data.write_text(_ARFF + rows + "\n")
    model = BinaryRelevance(events="multinomial", rule="predict").fit(X_SMALL, Y_SMALL)
    path = tmp_path / "news.mlnb"
    save(model, path)
    result = CliRunner().invoke(
        main, ["explain", str(path), str(data), "--row", "0", "--label", "0", "--top", "2"]
    )
    assert result.exit_code == 0, result.output
    out = result.output
    why = model.explain(X_SMALL[:1], 0)
    assert f"{why.log_odds[0]:+.4f}" in out and f"{why.baseline[0]:+.4f}" in out
    assert "rest" in out and "ball" in out and "team" in out
    ball = why.contributions[0, 0]
    assert f"ball  {ball:+.4f}" in out
    # by name, and the default label: the row's highest-scoring one
    named = CliRunner().invoke(
        main, ["explain", str(path), str(data), "--row", "0", "--label", "sport"]
    )
    assert named.exit_code == 0 and named.output.splitlines()[1:] == out.splitlines()[1:]
    best = CliRunner().invoke(main, ["explain", str(path), str(data), "--row", "1"])
    label = int(np.argmax(model.decision_function(X_SMALL[1:2])[0]))
    assert best.exit_code == 0 and f"(index {label})" in best.output
    # errors: one line, exit code 1
    for args, message in (
        (["--row", "9"], "--row 9 is out of range"),
        (["--row", "0", "--label", "weather"], "--label weather: no such label"),
        (["--row", "0", "--label", "5"], "label 5 is out of range"),
    ):
        result = CliRunner().invoke(main, ["explain", str(path), str(data), *args])
        assert result.exit_code == 1 and message in result.output, result.output


def test_explain_command_names_the_words_of_real_data(tmp_path):
    from pathlib import Path

    data = Path(__file__).resolve().parents[1].parent / "shared" / "data"
    if not (data / "multilabel" / "medical").is_dir():
        pytest.skip(f"benchmark data not found at {data}")
    from mlnb.datasets import load_dataset

    medical = load_dataset("medical", data)
    train = medical.train
    model = BinaryRelevance(events="multinomial", rule="predict").fit(train.X, train.Y)
    path = tmp_path / "medical.mlnb"
    save(model, path)
    args = ["explain", str(path), "medical", "--row", "3", "--label", "Class-4-753_0", "--top", "3"]
    result = CliRunner().invoke(main, [*args, "--data-dir", str(data)])
    assert result.exit_code == 0, result.output
    words = medical.test.feature_names
    why = model.explain(medical.test.X[3], 4, feature_names=words)
    best = why.top(0, k=1).raising[0]
    line = rf"\n  {re.escape(best[0])} +{re.escape(f'{best[1]:+.4f}')}\n"
    assert re.search(line, result.output)  # a word of the ARFF header, not x123
    assert "label Class-4-753_0 (index 4)" in result.output
