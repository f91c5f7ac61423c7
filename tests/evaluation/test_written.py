"""write_comparison: the files of a comparison, as mlnb compare writes them."""

import json

import pandas as pd

from mlnb.evaluation import compare, write_comparison

METHODS, SETS = ["br", "cc", "ecc"], ["a", "b", "c", "d"]


def means():
    hamming = {
        m: {d: 0.1 * (i + 1) + 0.01 * j for j, d in enumerate(SETS)} for i, m in enumerate(METHODS)
    }
    partial = {"br": {"a": 0.5}}  # known for one run only
    return {"hamming": hamming, "log_loss": partial}


def test_every_file_of_a_comparison(tmp_path):
    files = write_comparison(
        tmp_path / "out", means(), METHODS, SETS, plotted=["hamming"], protocol="2-fold CV"
    )
    out = tmp_path / "out"
    for name in ("means.json", "summary.json", "means_hamming.csv", "ranks.md", "ranks.csv",
                 "wilcoxon_holm.md", "report.md", "cd_hamming.svg", "cd_hamming.png"):  # fmt: skip
        assert (out / name).is_file(), name
    assert not (out / "means_log_loss.csv").exists() and files.incomplete == ["log_loss"]
    assert json.loads((out / "means.json").read_text()) == means()
    summary = json.loads((out / "summary.json").read_text())
    assert summary == files.summary and summary["protocol"] == "2-fold CV"
    expected = compare({"hamming": pd.DataFrame(means()["hamming"]).T.loc[METHODS, SETS]})
    ranks = summary["criteria"]["hamming"]["average_ranks"]
    assert ranks == {m: float(v) for m, v in expected["hamming"].average_ranks.items()}
    assert ranks == {"br": 1.0, "cc": 2.0, "ecc": 3.0}
    assert files.written[0] == "report.md" and "Hamming loss" in files.report
    # 4 data sets cannot give a significant Wilcoxon-Holm pair: one line says why
    assert "no pair can be significant" in (out / "wilcoxon_holm.md").read_text()


def test_one_data_set_writes_the_means_only(tmp_path):
    one = {"hamming": {m: {"a": 0.1} for m in METHODS}}
    files = write_comparison(tmp_path, one, METHODS, ["a"])
    assert files.comparison is None and files.report is None
    assert files.written == ["means.json", "summary.json"]
    assert not (tmp_path / "ranks.md").exists()
