"""The Gaussian models' weight tables: made once per parameters object, scores unchanged.

``Gaussian.score`` and ``score_ratio`` keep what does not depend on the rows (precisions,
normalising constants, the weights of the expanded square, the stiff pairs) with the
parameters they come from. The reference below is the scoring as it was before, which
rebuilt those tables at every call: the cached path must give the same bits.
"""

import io
import json
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mlnb import BinaryRelevance, GaussianNB
from mlnb.events import Gaussian, IgnoreMissing
from mlnb.events import gaussian as gaussian_module
from mlnb.io import load, save
from mlnb.missing import split_missing
from mlnb.stats import GroupStats

# ---- the reference: the scoring before the tables were cached (copied unchanged) --------
_LOG_2PI = np.log(2 * np.pi)
_STIFF = 1e4


def _ref_difference(stacked, n_groups):
    return stacked[:n_groups] - stacked[n_groups:]


def reference_score(params, X, row_budget=1 << 17, block_budget=1 << 22):
    mean, precision = params.mean, 1.0 / params.var
    log_norm = -0.5 * (_LOG_2PI + np.log(params.var)).sum(axis=1)
    if sp.issparse(X):
        constant = log_norm - 0.5 * (mean**2 * precision).sum(axis=1)
        squares = X.multiply(X)
        return (
            constant[None, :]
            - 0.5 * np.asarray(squares @ precision.T)
            + np.asarray(X @ (mean * precision).T)
        )
    quadratic = _ref_dense_quadratic(
        X, mean, precision, params.shift, row_budget=row_budget, block_budget=block_budget
    )
    return log_norm[None, :] + quadratic


def reference_score_ratio(params_a, params_b, X, row_budget=1 << 17, block_budget=1 << 22):
    shift = params_a.shift
    if not (params_b.shift is shift or np.array_equal(params_b.shift, shift)):
        return reference_score(params_a, X, row_budget, block_budget) - reference_score(
            params_b, X, row_budget, block_budget
        )
    mean = np.concatenate([params_a.mean, params_b.mean])
    var = np.concatenate([params_a.var, params_b.var])
    precision = 1.0 / var
    n_groups = params_a.mean.shape[0]
    log_var = np.log(var).sum(axis=1)
    log_norm = -0.5 * (log_var[:n_groups] - log_var[n_groups:])
    if sp.issparse(X):
        weighted = mean * precision
        constant = log_norm - 0.5 * _ref_difference((mean**2 * precision).sum(axis=1), n_groups)
        squares = X.multiply(X)
        return (
            constant[None, :]
            - 0.5 * np.asarray(squares @ _ref_difference(precision, n_groups).T)
            + np.asarray(X @ _ref_difference(weighted, n_groups).T)
        )
    quadratic = _ref_dense_quadratic(
        X, mean, precision, shift, difference=True, row_budget=row_budget, block_budget=block_budget
    )
    quadratic += log_norm[None, :]
    return quadratic


def _ref_dense_quadratic(X, mean, precision, shift, *, difference=False, row_budget, block_budget):
    centred_mean = mean - shift
    stiff = centred_mean**2 * precision > _STIFF
    soft = np.where(stiff, 0.0, precision)
    square_weight, linear_weight = soft, centred_mean * soft
    constant = (centred_mean**2 * soft).sum(axis=1)
    n_out = mean.shape[0]
    if difference:
        n_out = n_out // 2
        square_weight = _ref_difference(square_weight, n_out)
        linear_weight = _ref_difference(linear_weight, n_out)
        constant = _ref_difference(constant, n_out)
    quadratic = np.empty((X.shape[0], n_out))
    rows = max(row_budget // (X.shape[1] + n_out), 1)
    for start in range(0, X.shape[0], rows):
        centred = X[start : start + rows] - shift
        linear = centred @ linear_weight.T
        linear *= 2.0
        part = quadratic[start : start + rows]
        np.matmul(np.square(centred, out=centred), square_weight.T, out=part)
        part -= linear
    quadratic += constant[None, :]
    classes, features = np.nonzero(stiff)
    if len(classes):
        values = np.where(classes < n_out, 1.0, -1.0)
        to_class = sp.csr_matrix(
            (values, (np.arange(len(classes)), classes % n_out)),
            shape=(len(classes), n_out),
        )
        rows = max(block_budget // len(classes), 1)
        for start in range(0, X.shape[0], rows):
            block = X[start : start + rows, features] - mean[classes, features]
            exact = block**2 * precision[classes, features]
            quadratic[start : start + rows] += np.asarray((to_class.T @ exact.T).T)
    quadratic *= -0.5
    return quadratic


def reference_zero_terms(params):
    return -0.5 * (_LOG_2PI + np.log(params.var) + params.mean**2 / params.var)


# ---- data --------------------------------------------------------------------------------
def _labelled(seed, n=60, n_features=7, n_labels=3):
    """Rows, labels, and feature 0 constant (1000) within label 0's rows: stiff pairs."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, n_labels)) < 0.4).astype(float)
    Y[:3, 0], Y[3:6, 0] = 1.0, 0.0  # label 0 holds rows and misses rows
    X = rng.normal(size=(n, n_features)) + 2 * np.repeat(Y, n_features, axis=1)[:, :n_features]
    X[Y[:, 0] == 1, 0] = 1000.0
    X[rng.random(X.shape) < 0.3] = 0.0  # zeros: sparse rows have corrections to skip
    return X, Y


def _pair(X, Y, var_smoothing=1e-9):
    """Gaussian parameters of the rows holding each label and of the others."""
    stats = GroupStats.from_data(X, Y, second_moments=True)
    model = Gaussian(var_smoothing=var_smoothing)
    return model, model.estimate(stats), model.estimate(stats.complement())


def _rows(X, kind):
    return sp.csr_matrix(X) if kind == "sparse" else X


KINDS = ["dense", "sparse"]


# ---- the same bits -----------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_score_and_score_ratio_equal_the_uncached_scoring_bit_for_bit(kind):
    X, Y = _labelled(0)
    model, positive, negative = _pair(X, Y)
    rows = _rows(_labelled(1)[0], kind)
    for _ in range(2):  # the first call makes the tables, the second reuses them
        np.testing.assert_array_equal(
            model.score_ratio(positive, negative, rows),
            reference_score_ratio(positive, negative, rows),
        )
        for params in (positive, negative):
            np.testing.assert_array_equal(model.score(params, rows), reference_score(params, rows))
    if kind == "dense":  # the stiff pairs were there, summed exactly
        assert vars(positive)["_table_dense_ratio"][1].stiff is not None


def test_stiff_pairs_present_and_computed_exactly():
    X, Y = _labelled(0)
    model, positive, negative = _pair(X, Y)
    table = gaussian_module._dense_ratio_table(positive, negative)
    assert table.stiff is not None and 0 in table.stiff.features
    # near its class's constant value, the exact path keeps the log-odds finite and large
    row = np.full((1, X.shape[1]), 0.5)
    row[0, 0] = 1000.0
    odds = model.score_ratio(positive, negative, row)
    np.testing.assert_array_equal(odds, reference_score_ratio(positive, negative, row))
    assert np.isfinite(odds).all() and odds[0, 0] > 100


@pytest.mark.parametrize("kind", KINDS)
def test_different_shifts_take_the_sides_apart_with_the_same_bits(kind):
    X, Y = _labelled(2)
    model, positive, negative = _pair(X, Y)
    negative = negative.replace(shift=negative.shift + 3.0)
    rows = _rows(_labelled(3)[0], kind)
    for _ in range(2):
        np.testing.assert_array_equal(
            model.score_ratio(positive, negative, rows),
            reference_score_ratio(positive, negative, rows),
        )
    assert "_table_dense_ratio" not in vars(positive) and "_table_sparse_ratio" not in vars(
        positive
    )


def test_blocks_of_rows_and_of_stiff_pairs_give_the_same_bits(monkeypatch):
    """Small budgets: many blocks of rows in the products and in the exact stiff terms."""
    X, Y = _labelled(4, n=80)
    model, positive, negative = _pair(X, Y)
    monkeypatch.setattr(gaussian_module, "_ROW_BUDGET", 50)
    monkeypatch.setattr(gaussian_module, "_STIFF_BUDGET", 7)
    rows = _labelled(5, n=45)[0]
    budgets = {"row_budget": 50, "block_budget": 7}
    np.testing.assert_array_equal(
        model.score_ratio(positive, negative, rows),
        reference_score_ratio(positive, negative, rows, **budgets),
    )
    np.testing.assert_array_equal(
        model.score(positive, rows), reference_score(positive, rows, **budgets)
    )


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_rows=st.integers(1, 12),
    n_features=st.integers(1, 9),
    scale=st.sampled_from([1e-6, 1.0, 1e6]),
    sparse=st.booleans(),
)
def test_any_data_scores_the_same_bits(seed, n_rows, n_features, scale, sparse):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(30, n_features)), 1) * scale
    X[rng.random(X.shape) < 0.4] = 0.0
    Y = (rng.random((30, 2)) < 0.5).astype(float)
    Y[0], Y[1] = 1.0, 0.0  # every label holds a row and misses one
    model, positive, negative = _pair(X, Y)
    rows = np.round(rng.normal(size=(n_rows, n_features)), 1) * scale
    rows = sp.csr_matrix(rows) if sparse else rows
    np.testing.assert_array_equal(
        model.score_ratio(positive, negative, rows),
        reference_score_ratio(positive, negative, rows),
    )
    np.testing.assert_array_equal(model.score(positive, rows), reference_score(positive, rows))


@pytest.mark.parametrize("kind", KINDS)
def test_missing_entries_are_ignored_with_the_same_bits(kind):
    X, Y = _labelled(6)
    model, positive, negative = _pair(X, Y)
    rows = _labelled(7)[0]
    rows[::2, 1] = np.nan
    rows[1, 0] = np.nan
    rows = _rows(rows, kind)
    bound = IgnoreMissing(model)
    filled, missing = split_missing(rows)
    expected = reference_score(positive, filled) - np.asarray(
        missing @ reference_zero_terms(positive).T
    )
    terms = reference_zero_terms(positive) - reference_zero_terms(negative)
    expected_ratio = reference_score_ratio(positive, negative, filled) - np.asarray(
        missing @ terms.T
    )
    for _ in range(2):
        np.testing.assert_array_equal(bound.score(positive, rows), expected)
        np.testing.assert_array_equal(bound.score_ratio(positive, negative, rows), expected_ratio)


def test_zero_terms_are_made_once_and_read_only():
    X, Y = _labelled(8)
    model, positive, _ = _pair(X, Y)
    terms = model.zero_terms(positive)
    np.testing.assert_array_equal(terms, reference_zero_terms(positive))
    assert model.zero_terms(positive) is terms
    with pytest.raises(ValueError, match="read-only"):
        terms[0, 0] = 0.0


@pytest.mark.parametrize(
    ("name", "n_labels"), [("emotions", None), ("scene", None), ("medical", 8)]
)
def test_binary_relevance_on_real_data_predicts_the_same_bits(
    shared_dataset, monkeypatch, name, n_labels
):
    train, test = shared_dataset(name, "train"), shared_dataset(name, "test")
    Y = train.Y[:, :n_labels]
    model = BinaryRelevance(events="gaussian", rule="predict").fit(train.X, Y)
    rows = test.X[:300]
    scores = [model.decision_function(rows) for _ in range(2)]
    proba = model.predict_proba(rows)
    monkeypatch.setattr(
        Gaussian, "score_ratio", lambda self, a, b, X: reference_score_ratio(a, b, X)
    )
    fresh = BinaryRelevance(events="gaussian", rule="predict").fit(train.X, Y)
    expected = fresh.decision_function(rows)
    for got in scores:
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(proba, fresh.predict_proba(rows))


def test_gaussian_nb_on_real_data_predicts_the_same_bits(shared_dataset, monkeypatch):
    train, test = shared_dataset("scene", "train"), shared_dataset("scene", "test")
    y = train.Y.argmax(axis=1)
    model = GaussianNB().fit(train.X, y)
    first, second = model.predict_log_proba(test.X), model.predict_log_proba(test.X)
    monkeypatch.setattr(Gaussian, "score", lambda self, params, X: reference_score(params, X))
    expected = GaussianNB().fit(train.X, y).predict_log_proba(test.X)
    np.testing.assert_array_equal(first, expected)
    np.testing.assert_array_equal(second, expected)


# ---- made once per fitted state ------------------------------------------------------------
def _counting(monkeypatch, name):
    """Count the calls of the table builder ``name`` of mlnb.events.gaussian."""
    builder, calls = getattr(gaussian_module, name), []

    def counted(*args):
        calls.append(args)
        return builder(*args)

    monkeypatch.setattr(gaussian_module, name, counted)
    return calls


@pytest.mark.parametrize("kind", KINDS)
def test_binary_relevance_builds_its_tables_once_per_fitted_state(monkeypatch, kind):
    calls = _counting(monkeypatch, f"_{kind}_ratio_table")
    (X1, Y1), (X2, Y2), (X3, Y3) = (_labelled(seed) for seed in (10, 11, 12))
    X1, X2, X3 = (_rows(X, kind) for X in (X1, X2, X3))
    model = BinaryRelevance(events="gaussian", rule="predict").fit(X1, Y1)
    first = model.decision_function(X3)
    for rows in (X3, X2[:1], X1):
        model.decision_function(rows)
    model.predict_proba(X3)
    assert len(calls) == 1
    np.testing.assert_array_equal(model.decision_function(X3), first)

    model.partial_fit(X2, Y2)  # new statistics: new parameters, new tables
    after = model.decision_function(X3)
    assert len(calls) == 2
    both = BinaryRelevance(events="gaussian", rule="predict").fit(
        sp.vstack([X1, X2]) if kind == "sparse" else np.vstack([X1, X2]), np.vstack([Y1, Y2])
    )
    np.testing.assert_allclose(after, both.decision_function(X3), rtol=1e-9, atol=1e-9)
    model.decision_function(X1)
    assert len(calls) == 3  # ``both`` made its own

    other = BinaryRelevance(events="gaussian", rule="predict").fit(X3, Y3)
    model.merge(other)
    merged = model.decision_function(X1)
    model.decision_function(X2)
    assert len(calls) == 4  # ``model`` after the merge (``other``, never asked, made none)
    every = BinaryRelevance(events="gaussian", rule="predict").fit(
        sp.vstack([X1, X2, X3]) if kind == "sparse" else np.vstack([X1, X2, X3]),
        np.vstack([Y1, Y2, Y3]),
    )
    np.testing.assert_allclose(merged, every.decision_function(X1), rtol=1e-9, atol=1e-9)


def test_gaussian_nb_rebuilds_its_tables_after_a_one_row_partial_fit(monkeypatch):
    calls = _counting(monkeypatch, "_dense_table")
    X, Y = _labelled(13)
    y = Y[:, 0].astype(int)
    model = GaussianNB().fit(X[:-1], y[:-1])
    model.predict_log_proba(X)
    model.predict_log_proba(X[:1])
    assert len(calls) == 1
    model.partial_fit(X[-1:], y[-1:])  # the fast path: statistics updated in place
    updated = model.predict_log_proba(X)
    assert len(calls) == 2
    whole = GaussianNB().fit(X, y)
    np.testing.assert_allclose(updated, whole.predict_log_proba(X), rtol=1e-9, atol=1e-9)


def _saved_parameters(path):
    """The state of each Parameters object a model file holds, as written (its JSON)."""
    with zipfile.ZipFile(path) as archive:
        meta = json.loads(np.load(io.BytesIO(archive.read("__meta__.npy"))).tobytes())
    found = []

    def walk(node):
        if isinstance(node, dict):
            if str(node.get("__object__", "")).endswith("Parameters"):
                found.append(node["state"]["__dict__"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(meta["model"])
    return found


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("multi_label", [True, False])
def test_model_files_leave_the_tables_out(tmp_path, kind, multi_label):
    """The tables are not written (loading makes its own when its check predicts a row)."""
    X, Y = _labelled(14)
    X = _rows(X, kind)
    if multi_label:
        model = BinaryRelevance(events="gaussian", rule="predict").fit(X, Y)
        params, predict = model._feature_params[0], "decision_function"
    else:
        model = GaussianNB().fit(X, Y[:, 0])
        params, predict = model.params_, "predict_log_proba"
    expected = getattr(model, predict)(X)
    assert any(key.startswith("_table_") for key in vars(params))  # cached before saving
    save(model, tmp_path / "model.mlnb")
    saved = _saved_parameters(tmp_path / "model.mlnb")
    assert saved and all(set(state) == {"mean", "var", "shift"} for state in saved)
    np.testing.assert_array_equal(getattr(load(tmp_path / "model.mlnb"), predict)(X), expected)
