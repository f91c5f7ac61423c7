"""A fitted estimator's few rows are validated in proportion to their size, with the
results and the errors of the full check."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from mlnb import BinaryRelevance, GaussianNB
from mlnb.base import validation
from mlnb.base.validation import few_fitted_rows


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    X = rng.poisson(2.0, size=(60, 5)).astype(float)
    Y = (rng.random((60, 3)) < 0.4).astype(int)
    return BinaryRelevance(events="gaussian", rule="predict").fit(X, Y), X


@pytest.mark.parametrize(
    "form",
    [
        lambda X: X,
        lambda X: X.astype(np.float32),
        lambda X: X.astype(np.int64),
        lambda X: sp.csr_matrix(X),
    ],
)
def test_the_few_rows_check_gives_the_full_check_result(fitted, form, monkeypatch):
    model, X = fitted
    rows = form(X[:3])
    fast = model.decision_function(rows)
    assert few_fitted_rows(model, rows, None) is not None  # the fast check took them
    monkeypatch.setattr(validation, "FEW_ROWS", 0)  # every call: the full check
    np.testing.assert_array_equal(fast, model.decision_function(rows))


@pytest.mark.parametrize(
    "rows, message",
    [
        (np.full((1, 5), np.inf), "infinity"),
        (np.full((1, 5), np.nan), "NaN"),
        (np.ones((1, 4)), "features"),
        (np.ones(5), "2D array"),
        (np.ones((1, 5), dtype=complex), "omplex"),
    ],
)
def test_rows_the_fast_check_refuses_get_the_full_checks_error(fitted, rows, message):
    model, _ = fitted
    assert few_fitted_rows(model, rows, None) is None
    with pytest.raises(ValueError, match=message):
        model.predict(rows)


def test_nan_passes_only_where_missing_entries_are_ignored():
    X = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 0.5], [0.5, 3.0]])
    model = GaussianNB(missing="ignore").fit(X, [0, 1, 0, 1])
    row = np.array([[np.nan, 2.0]])
    assert few_fitted_rows(model, row, "ignore") is row
    assert few_fitted_rows(model, np.array([[np.inf, 2.0]]), "ignore") is None
    assert model.predict(row).shape == (1,)


def test_a_model_fitted_on_named_columns_takes_the_full_check(fitted):
    _, X = fitted
    frame = pd.DataFrame(X, columns=list("abcde"))
    model = BinaryRelevance(events="gaussian", rule="predict").fit(frame, np.eye(60, 3, dtype=int))
    assert few_fitted_rows(model, X[:2], None) is None
    with pytest.warns(UserWarning, match="feature names"):
        model.predict(X[:2])
