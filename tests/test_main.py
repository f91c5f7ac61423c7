"""The demonstration behind ``python -m mlnb``."""

import subprocess
import sys

from mlnb.__main__ import main


def test_demo_prints_a_row_per_classifier(capsys):
    assert main(["--samples", "300", "--folds", "3"]) == 0
    out = capsys.readouterr().out
    for name in ("MultinomialNB", "BayesianGaussianNB", "MixedNB", "scikit-learn GaussianNB"):
        assert name in out
    rows = [line for line in out.splitlines()[1:] if line.startswith(("mlnb ", "scikit-learn "))]
    assert len(rows) == 10
    accuracies = [float(line[48:].split()[0]) for line in rows]
    assert all(0.3 < accuracy <= 1.0 for accuracy in accuracies)


def test_module_runs_as_a_program():
    result = subprocess.run(
        [sys.executable, "-m", "mlnb", "--samples", "200", "--folds", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "cross-validation" in result.stdout
