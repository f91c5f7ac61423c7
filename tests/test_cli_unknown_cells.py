"""The ``mlnb`` command on training files with unknown label cells (MEKA's ``?``): binary
relevance learns around them, the metrics skip them, other methods refuse by name."""

from __future__ import annotations

import numpy as np
from click.testing import CliRunner

from mlnb import BinaryRelevance
from mlnb.cli import main
from mlnb.datasets import load_arff
from mlnb.io import load


def _arff(path, n=60, hidden=0.3, seed=0):
    """A 3-label ARFF of counts with ``hidden`` of the label cells written as ``?``."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 3)) < 0.4).astype(int)
    X = rng.poisson(1.0 + 3.0 * Y @ rng.random((3, 5)))
    lines = ["@relation 'partial: -C 3'"]
    lines += [f"@attribute y{j} {{0,1}}" for j in range(3)]
    lines += [f"@attribute x{j} numeric" for j in range(5)] + ["@data"]
    unknown = rng.random(Y.shape) < hidden
    unknown[:6] = False
    for labels, features, gaps in zip(Y, X, unknown, strict=True):
        cells = ["?" if gap else str(value) for value, gap in zip(labels, gaps, strict=True)]
        lines.append(",".join(cells + [str(v) for v in features]))
    path.write_text("\n".join(lines) + "\n")
    return int(unknown.sum())


def test_fit_learns_around_the_unknown_cells(tmp_path):
    data = tmp_path / "partial.arff"
    n_unknown = _arff(data)
    model_file = tmp_path / "model.mlnb"
    args = ["fit", str(data), "-m", "br", "-p", "events=multinomial", "-p", "rule=predict"]
    result = CliRunner().invoke(main, [*args, "-o", str(model_file)])
    assert result.exit_code == 0, result.output
    assert f"{n_unknown} unknown label cells" in result.output
    loaded = load_arff(data, unknown_labels="cells")
    assert np.isnan(loaded.Y).sum() == n_unknown
    expected = BinaryRelevance(events="multinomial", rule="predict").fit(loaded.X, loaded.Y)
    np.testing.assert_allclose(
        load(model_file).predict_log_odds(loaded.X), expected.predict_log_odds(loaded.X)
    )


def test_evaluate_scores_the_known_cells_and_other_methods_refuse(tmp_path):
    data = tmp_path / "partial.arff"
    _arff(data, n=90)
    result = CliRunner().invoke(main, ["evaluate", str(data), "-m", "br", "--cv", "3", "--json"])
    assert result.exit_code == 0, result.output
    assert "micro_f1_loss" in result.output
    refused = CliRunner().invoke(main, ["evaluate", str(data), "-m", "lp", "--cv", "3"])
    assert refused.exit_code == 1
    assert "unknown cells" in refused.output and "BinaryRelevance" in refused.output
    assert "Traceback" not in refused.output


def test_compare_names_every_method_that_cannot_learn_the_unknown_cells(tmp_path):
    data = tmp_path / "partial.arff"
    n_unknown = _arff(data, n=90)
    args = ["compare", "-m", "br,cc,lp,ecc", "--datasets", str(data), "--cv", "3"]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert f"lp on partial ({n_unknown} unknown label cells), ecc on partial" in result.output
    assert "br on" not in result.output and "fold" not in result.output  # before any run
    learnt = CliRunner().invoke(
        main, ["compare", "-m", "br,cc", "--datasets", str(data), "--cv", "3", "-q",
               "--out", str(tmp_path / "ok")],
    )  # fmt: skip
    assert learnt.exit_code == 0, learnt.output
