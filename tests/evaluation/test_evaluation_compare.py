"""Tests of mlnb.evaluation.compare: inputs, degenerate cases, tables."""

import csv
import io
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mlnb.evaluation import Comparison, compare
from mlnb.evaluation._statistics import _friedman_from_ranks

RNG = np.random.default_rng(0)
METHODS = ["BR", "CC", "ECC"]
CRITERIA = {
    name: pd.DataFrame(
        RNG.random((3, 8)) + np.array([[0.0], [0.2], [0.4]]),
        index=METHODS,
        columns=[f"d{j}" for j in range(8)],
    )
    for name in ("hamming", "zero_one", "accuracy")
}


@pytest.fixture(scope="module")
def result():
    return compare(CRITERIA)


def test_several_criteria(result):
    assert isinstance(result, Comparison)
    assert list(result.criteria) == ["hamming", "zero_one", "accuracy"]
    assert result.methods == METHODS
    assert result.alpha == 0.1
    # Registered names know their direction: losses rank low values first, accuracy high.
    assert not result["hamming"].greater_is_better
    assert result["accuracy"].greater_is_better
    expected = stats.rankdata(CRITERIA["hamming"].to_numpy(), axis=0).mean(axis=1)
    np.testing.assert_allclose(result["hamming"].average_ranks, expected)
    expected = stats.rankdata(-CRITERIA["accuracy"].to_numpy(), axis=0).mean(axis=1)
    np.testing.assert_allclose(result["accuracy"].average_ranks, expected)
    ranks = result.average_ranks()
    assert list(ranks.index) == list(CRITERIA) and list(ranks.columns) == METHODS
    # Ranks of every data set are a permutation of 1..k (no ties in random data).
    np.testing.assert_allclose(result["zero_one"].ranks.sum(axis=0), 6.0)


def test_input_formats_agree():
    frame = CRITERIA["hamming"]
    from_frame = compare(frame, criterion="hamming")["hamming"]
    from_dict = compare({m: list(frame.loc[m]) for m in METHODS}, criterion="hamming")["hamming"]
    from_array = compare(frame.to_numpy(), criterion="hamming")["hamming"]
    for other in (from_dict, from_array):
        np.testing.assert_allclose(other.average_ranks, from_frame.average_ranks)
        assert other.friedman_pvalue == pytest.approx(from_frame.friedman_pvalue)
    assert list(from_dict.average_ranks.index) == METHODS
    assert list(from_array.average_ranks.index) == ["method 0", "method 1", "method 2"]


def test_unknown_criterion_defaults_to_a_loss_and_flag_per_criterion():
    frame = CRITERIA["hamming"]
    res = compare({"mine": frame, "theirs": frame}, greater_is_better={"theirs": True})
    np.testing.assert_allclose(res["mine"].average_ranks + res["theirs"].average_ranks, 4.0)


def test_degenerate_inputs_are_defined():
    tied = pd.DataFrame(np.ones((3, 5)), index=METHODS)
    res = compare(tied)["score"]
    assert res.friedman_statistic == 0.0 and res.friedman_pvalue == 1.0
    assert res.iman_davenport_pvalue == pytest.approx(1.0)
    assert (res.wilcoxon["pvalue"] == 1.0).all() and (res.ttest["pvalue"] == 1.0).all()
    # Perfect separation: chi2 = N(k-1), F_F infinite; constant differences: |t| infinite.
    separated = pd.DataFrame(np.arange(3.0)[:, None] + np.zeros((3, 6)), index=METHODS)
    res = compare(separated)["score"]
    assert res.friedman_statistic == pytest.approx(12.0)
    assert res.iman_davenport_statistic == np.inf and res.iman_davenport_pvalue == 0.0
    assert (np.abs(res.ttest["statistic"]) == np.inf).all()
    assert not res.ttest.isna().any().any() and not res.wilcoxon.isna().any().any()


def test_differences_equal_up_to_rounding_are_constant_without_a_warning():
    base = np.array([0.1, 0.7, 0.3, 0.9, 0.55])
    frame = pd.DataFrame([base, base + 0.1, base], index=METHODS)
    assert np.ptp(frame.iloc[1] - frame.iloc[0]) > 0  # rounding: not exactly equal
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = compare(frame)["score"]
    first = res.ttest.set_index(["method_a", "method_b"]).loc[(METHODS[0], METHODS[1])]
    assert np.abs(first["statistic"]) == np.inf and first["pvalue"] == 0.0
    same = res.ttest.set_index(["method_a", "method_b"]).loc[(METHODS[0], METHODS[2])]
    assert same["statistic"] == 0.0 and same["pvalue"] == 1.0


def test_two_methods():
    # 7 wins of 10 without ties: Friedman chi2 = (W - L)^2 / N = 1.6 with 1 degree of freedom.
    a = np.arange(10.0)
    b = a + np.where(np.arange(10) < 7, 1.0, -1.0)
    res = compare(np.vstack([a, b]))["score"]
    assert res.friedman_statistic == pytest.approx(1.6)
    assert res.friedman_pvalue == pytest.approx(stats.chi2.sf(1.6, 1))
    assert res.q_alpha == pytest.approx(stats.norm.ppf(0.95))  # Nemenyi with k=2 is a z-test
    assert len(res.wilcoxon) == 1


def test_hand_written_tie_correction_is_scipys():
    rng = np.random.default_rng(1)
    for k in (3, 5):
        values = rng.integers(0, 3, size=(k, 12)).astype(float)  # many ties
        ranks = stats.rankdata(values, axis=0)
        expected = stats.friedmanchisquare(*values)
        chi2, p = _friedman_from_ranks(ranks, tie_correction=True)
        assert chi2 == pytest.approx(expected.statistic)
        assert p == pytest.approx(expected.pvalue)


@pytest.mark.parametrize(
    ("scores", "kwargs", "match"),
    [
        (np.ones((1, 4)), {}, "at least 2 methods"),
        (np.ones((3, 1)), {}, "2 data sets"),
        (np.ones(3), {}, "methods x data sets"),
        (
            pd.DataFrame([[1.0, np.nan], [2.0, 3.0]], index=["a", "b"], columns=["x", "y"]),
            {},
            "'a' on data set 'y'",
        ),
        (np.ones((2, 3)), {"alpha": 0}, "alpha must be in"),
        (np.ones((2, 3)), {"control": "zz"}, "control must be one of"),
        (np.ones((2, 3)), {"zero_method": "drop"}, "zero_method"),
        ({"x": CRITERIA["hamming"], "y": CRITERIA["hamming"].iloc[:2]}, {}, "compares methods"),
        (pd.DataFrame([["a", "b"], ["c", "d"]]), {}, "must be numeric"),
    ],
)
def test_bad_inputs(scores, kwargs, match):
    with pytest.raises(ValueError, match=match):
        compare(scores, **kwargs)


def test_tables(result, tmp_path):
    md = result.to_markdown()
    lines = md.splitlines()
    assert lines[0].startswith("| criterion |") and "Friedman p" in lines[0]
    assert len(lines) == 2 + 3
    assert f"{result['hamming'].average_ranks['BR']:.3f}" in lines[2]
    latex = result.to_latex("wilcoxon", caption="Wilcoxon-Holm")
    assert r"\begin{tabular}{lllrrrrl}" in latex and r"\caption{Wilcoxon-Holm}" in latex
    assert latex.count(r"\\") == 1 + 3 * 3
    text = result.to_csv(tmp_path / "ranks.csv")
    assert (tmp_path / "ranks.csv").read_text() == text
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][:4] == ["criterion", "BR", "CC", "ECC"]
    np.testing.assert_allclose([float(v) for v in rows[1][1:4]], result["hamming"].average_ranks)
    scores = list(csv.reader(io.StringIO(result.to_csv(kind="scores"))))
    assert len(scores) == 1 + 3 * 8
    assert float(scores[1][2]) == CRITERIA["hamming"].loc["BR", "d0"]
    assert "significant" in result.to_markdown("ttest")
    with pytest.raises(ValueError, match="kind must be"):
        result.to_markdown("nemenyi")


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # t-test of equal steps
def test_report_text_and_markdown():
    from mlnb.evaluation import criterion_label, format_report, wilcoxon_can_reject

    methods = ["A", "B", "C"]
    good = np.tile([0.1, 0.2, 0.3], (10, 1)).T + np.linspace(0, 0.01, 10)  # A best everywhere
    result = compare({"hamming": pd.DataFrame(good, index=methods)}, alpha=0.1)
    text = format_report(result, protocol="3-fold cross-validation, seed 0")
    assert "Hamming loss" in text and "3-fold cross-validation, seed 0" in text
    row = next(line for line in text.splitlines() if line.startswith("Hamming loss"))
    assert row.split()[3:6] == ["0.105*", "0.205", "0.305"]
    assert "Friedman p < 0.001 < 0.1; beyond CD: A better than B and C; B better than C." in text
    assert "3 of 3 pairs significant" in text  # N = 10 allows Holm over 3 pairs
    markdown = format_report(result, fmt="markdown")
    assert "| Hamming loss | lower | **0.105** | 0.205 | 0.305 |" in markdown
    few = compare({"hamming": pd.DataFrame(good[:, :4], index=methods)})
    assert "Wilcoxon-Holm: not shown: with N = 4 data sets" in format_report(few)
    assert wilcoxon_can_reject(5, 1, 0.1) and not wilcoxon_can_reject(4, 1, 0.1)
    assert not wilcoxon_can_reject(8, 15, 0.1) and wilcoxon_can_reject(9, 15, 0.1)
    assert [criterion_label(n) for n in ("example_f1_loss", "micro_fdr", "train_time")] == [
        "Example-based F1 loss", "Micro FDR", "Training time (s)"
    ]  # fmt: skip
