"""The label-noise audit: exact leave-one-out log-odds and the cells they contradict."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mlnb import BinaryRelevance
from mlnb.audit import audit_labels, leave_one_out_log_odds
from mlnb.events import Bernoulli, Multinomial


def _rows(seed, n=25, n_features=7, n_labels=3):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, n_labels)) < 0.4).astype(int)
    Y[0, 0], Y[1, 0] = 1, 0  # every label with a positive and a negative row at least
    X = rng.poisson(0.3 + 2.0 * Y @ rng.random((n_labels, n_features)))
    return X, Y


def _refitted(X, Y, events, prior_alpha=1.0):
    out = np.empty(Y.shape)
    for i in range(X.shape[0]):
        rest = np.delete(np.arange(X.shape[0]), i)
        model = BinaryRelevance(events=events, rule="predict", prior_alpha=prior_alpha)
        out[i] = model.fit(X[rest], Y[rest]).decision_function(X[[i]])[0]
    return out


@pytest.mark.parametrize(
    "events",
    [Multinomial(), Multinomial(alpha=0.05), Bernoulli(), Bernoulli(alpha=0.3), "gaussian"],
    ids=repr,
)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), sparse=st.booleans())
def test_leave_one_out_log_odds_equal_a_refit_per_row(events, seed, sparse):
    X, Y = _rows(seed)
    if sparse:
        X = sp.csr_matrix(X)
    # the Gaussian's log-odds reach 1e8 where a feature is constant among a label's other
    # rows (the variance floor): subtraction agrees with a refit to 1e-7 there, measured
    rtol = 1e-6 if events == "gaussian" else 1e-9
    np.testing.assert_allclose(
        leave_one_out_log_odds(X, Y, events=events),
        _refitted(X, Y, events),
        rtol=rtol,
        atol=1e-9,
    )


def test_a_label_whose_only_positive_is_left_out_keeps_a_finite_log_odds():
    X, Y = _rows(3)
    Y[:, 2] = 0
    Y[5, 2] = 1
    odds = leave_one_out_log_odds(X, Y)
    assert np.isfinite(odds).all()
    np.testing.assert_allclose(odds, _refitted(X, Y, "multinomial"), rtol=1e-9)


def test_the_audit_ranks_cells_by_their_contradiction():
    X, Y = _rows(4)
    table = audit_labels(X, Y)
    assert len(table) == Y.size
    assert table["contradiction"].is_monotonic_decreasing
    odds = leave_one_out_log_odds(X, Y)
    row, label = table.loc[0, ["row", "label"]]
    expected = -odds[row, label] if Y[row, label] else odds[row, label]
    assert table.loc[0, "contradiction"] == pytest.approx(expected)
    assert (table["given"].to_numpy() == Y[table["row"], table["label"]]).all()
    assert len(audit_labels(X, Y, top=5)) == 5


def test_flipped_cells_come_first():
    """Cells flipped at random in informative data: most are found at the top."""
    rng = np.random.default_rng(0)
    Y = (rng.random((300, 4)) < 0.3).astype(int)
    X = rng.poisson(0.2 + 3.0 * np.repeat(Y, 6, axis=1))
    flipped = rng.choice(Y.size, size=30, replace=False)
    noisy = Y.copy().ravel()
    noisy[flipped] = 1 - noisy[flipped]
    noisy = noisy.reshape(Y.shape)
    table = audit_labels(X, noisy, top=60)
    found = set(zip(table["row"], table["label"], strict=True))
    truth = {tuple(cell) for cell in np.column_stack(np.unravel_index(flipped, Y.shape))}
    assert len(found & truth) >= 25


def test_the_command_line_lists_the_most_contradicted_cells(tmp_path):
    from click.testing import CliRunner

    from mlnb.cli import main

    out = tmp_path / "cells.csv"
    result = CliRunner().invoke(
        main, ["audit", "medical", "--part", "train", "--top", "3", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("medical-train: 333 rows x 45 labels")
    assert len([line for line in lines if line.strip()[:1].isdigit()]) == 3
    table = __import__("pandas").read_csv(out)
    assert len(table) == 333 * 45 and table["contradiction"].is_monotonic_decreasing
    refused = CliRunner().invoke(main, ["audit", "webkb"])
    assert refused.exit_code == 1 and "text corpus" in refused.output


def test_unknown_label_cells_are_refused_by_name():
    X = np.array([[2, 0], [0, 3], [1, 1], [3, 0]])
    Y = np.array([[1, 0], [0, np.nan], [1, 1], [1, 0]])
    for audit in (audit_labels, leave_one_out_log_odds):
        with pytest.raises(ValueError, match="the audit needs every label cell given: Y has 1"):
            audit(X, Y)
