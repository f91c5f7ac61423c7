"""The `mlnb` command, driven as a user would: subprocesses in temporary folders."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

MLNB = str(Path(sys.executable).with_name("mlnb"))
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def run(*args, cwd=None, check=True):
    result = subprocess.run(
        [MLNB, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300
    )
    if check and result.returncode != 0:
        raise AssertionError(f"mlnb {args} failed ({result.returncode}):\n{result.stderr}")
    return result


@pytest.mark.parametrize("command", ["", "datasets", "fit", "predict", "evaluate", "compare"])
def test_every_command_has_help_with_examples(command):
    out = run(*([command] if command else []), "--help").stdout
    assert "Usage: mlnb" in out
    if command not in ("", "datasets", "bench"):
        assert "Example" in out


def test_fit_then_predict_on_real_data(tmp_path):
    if not (DATA / "MANIFEST.tsv").is_file():
        pytest.skip("benchmark data not found at ../shared/data")
    model = tmp_path / "emotions.mlnb"
    run("fit", "emotions", "-m", "cc", "-p", "inference=beam", "-o", model, "--data-dir", DATA)
    out = tmp_path / "predictions.csv"
    run("predict", model, "emotions", "-o", out, "--data-dir", DATA)
    lines = out.read_text().splitlines()
    header = lines[0].split(",")
    assert len(header) == 12 and header[6].startswith("P(")  # 6 labels + 6 probabilities
    table = np.array([line.split(",") for line in lines[1:]], dtype=float)
    assert table.shape == (202, 12)  # the emotions test split
    assert set(np.unique(table[:, :6])) <= {0.0, 1.0}


def test_evaluate_json_and_compare_outputs(tmp_path):
    result = run("evaluate", "synthetic-counts", "-m", "br", "-m", "ecc", "--cv", "3", "--json")
    rows = json.loads(result.stdout)
    assert [r["method"] for r in rows] == ["br", "ecc"]
    assert {"hamming", "example_f1_loss", "train_time", "test_time"} <= set(rows[0])
    out = tmp_path / "cmp"
    run(
        "compare",
        "-m",
        "br",
        "-m",
        "cc",
        "-m",
        "lp",
        "--datasets",
        "synthetic-gaussian",
        "--datasets",
        "synthetic-counts",
        "--datasets",
        "synthetic-dependent",
        "--cv",
        "2",
        "--out",
        out,
        "--quiet",
    )
    for name in (
        "ranks.md",
        "ranks.csv",
        "summary.json",
        "means.json",
        "cd_hamming.png",
        "cd_hamming.svg",
    ):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    ranks = summary["criteria"]["hamming"]["average_ranks"]
    assert sorted(ranks) == ["br", "cc", "lp"] and sum(ranks.values()) == pytest.approx(6)


def test_errors_say_what_to_do(tmp_path):
    result = run("evaluate", "synthetic-gaussian", "-m", "svm", check=False)
    assert result.returncode == 1
    assert "unknown method 'svm'" in result.stderr and "br" in result.stderr
    result = run("evaluate", "synthetic-gaussian", "-m", "br", "--split", "1.5", check=False)
    assert result.returncode == 1 and "--split" in result.stderr
    result = run(
        "fit", "synthetic-gaussian", "-m", "br", "-p", "alpha", "-o", tmp_path / "m", check=False
    )
    assert result.returncode == 1 and "KEY=VALUE" in result.stderr
    result = run(
        "fit",
        "synthetic-gaussian",
        "-m",
        "br",
        "-p",
        "nonsense=1",
        "-o",
        tmp_path / "m",
        check=False,
    )
    assert result.returncode == 1 and "no parameter nonsense" in result.stderr
    foreign = tmp_path / "foreign.mlnb"
    foreign.write_text("not a model")
    result = run("predict", foreign, "synthetic-gaussian", check=False)
    assert result.returncode == 1 and "not a readable mlnb model file" in result.stderr
    result = run("evaluate", "no-such-data", "-m", "br", check=False)
    assert result.returncode == 1 and "unknown data set" in result.stderr
    assert run("fit", "synthetic-gaussian", check=False).returncode == 2  # usage error


def test_datasets_lists_generated_sets_without_a_data_folder(tmp_path):
    rows = json.loads(run("datasets", "--data-dir", tmp_path, "--json").stdout)
    assert {r["name"] for r in rows} >= {"synthetic-gaussian", "synthetic-counts"}
    assert all({"n", "d", "L", "LC", "LD", "avIR"} <= set(r) for r in rows)
