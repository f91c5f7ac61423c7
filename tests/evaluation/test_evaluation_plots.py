"""Critical-difference diagram and radar plot files; the optional-dependency messages."""

import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from mlnb.evaluation import compare, plot_critical_difference, plot_radar
from mlnb.metrics import METRIC_SETS

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def comparison():
    rng = np.random.default_rng(0)
    methods = ["BR-NB", "CC-NB", "DCC-NB", "ECC-NB", "OOCC-NB"]
    shift = np.linspace(0.0, 0.6, len(methods))[:, None]
    scores = {
        name: pd.DataFrame(rng.random((5, 12)) + shift, index=methods)
        for name in METRIC_SETS["dynamic_chains"]
    }
    return compare(scores)


def _check_svg(path, *texts):
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    content = path.read_text()
    for text in texts:
        assert text in content


def test_critical_difference_diagram(comparison, tmp_path):
    result = comparison["hamming"]
    written = comparison.plot_critical_difference(tmp_path / "cd.png", criterion="hamming")
    assert written == [tmp_path / "cd.png", tmp_path / "cd.svg"]
    assert written[0].read_bytes()[:8] == PNG_MAGIC and written[0].stat().st_size > 5000
    cd_label = f"CD = {result.critical_difference:.3f}"
    _check_svg(written[1], cd_label, "BR-NB", "OOCC-NB", "Hamming loss: average ranks")


def test_radar_plot(comparison, tmp_path):
    written = plot_radar(comparison, tmp_path / "sub" / "radar", formats=["svg", "png"])
    assert [p.suffix for p in written] == [".svg", ".png"]
    assert written[1].read_bytes()[:8] == PNG_MAGIC
    _check_svg(written[0], "Example-based FDR", "Micro F1 loss", "DCC-NB")


def test_plot_arguments(comparison, tmp_path):
    with pytest.raises(ValueError, match="criterion must name one of"):
        comparison.plot_critical_difference(tmp_path / "cd")
    with pytest.raises(ValueError, match="formats must be"):
        plot_critical_difference(comparison["hamming"], tmp_path / "cd", formats=["jpg"])
    two = compare({n: comparison[n].scores for n in ("hamming", "zero_one")})
    with pytest.raises(ValueError, match="at least 3 criteria"):
        two.plot_radar(tmp_path / "radar")


def test_missing_matplotlib_message(comparison, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r'pip install "mlnb\[plot\]"'):
        plot_radar(comparison, tmp_path / "radar")


def test_imports_without_the_optional_extras():
    blocked = ["pandas", "statsmodels", "scikit_posthocs", "matplotlib", "iterstrat"]
    code = f"""
import importlib.abc
import sys

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ImportError(f"No module named {{name!r}} (blocked)")

sys.meta_path.insert(0, Block())
import numpy as np
import mlnb.metrics, mlnb.evaluation
from sklearn.naive_bayes import GaussianNB
X = np.random.default_rng(0).normal(size=(40, 3)); y = (X[:, 0] > 0).astype(int)
print(mlnb.evaluation.cross_validate(GaussianNB(), X, y, cv=4, random_state=0).to_table())
for call in (lambda: mlnb.evaluation.compare(np.ones((3, 4))),
             lambda: mlnb.evaluation.cross_validate(GaussianNB(), X, np.c_[y, y], cv=4,
                                                    stratify="iterative")):
    try:
        call()
    except ImportError as exc:
        print("ImportError:", exc)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "| sl_accuracy" in out.stdout
    messages = [line for line in out.stdout.splitlines() if line.startswith("ImportError")]
    assert len(messages) == 2
    assert "'pandas'" in messages[0] and 'pip install "mlnb[stats]"' in messages[0]
    assert "'iterative-stratification'" in messages[1] and "mlnb[stats]" in messages[1]


def test_critical_difference_diagram_with_many_methods(tmp_path):
    rng = np.random.default_rng(1)
    scores = pd.DataFrame(rng.random((12, 6)), index=[f"method {i}" for i in range(12)])
    written = compare(scores, criterion="micro_f1_loss")["micro_f1_loss"].plot_critical_difference(
        tmp_path / "cd", formats="svg"
    )
    assert written == [tmp_path / "cd.svg"]
    _check_svg(written[0], "method 11", "Micro F1 loss")


def test_path_none_returns_the_figure_and_writes_nothing(comparison, tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    monkeypatch.chdir(tmp_path)
    cd = comparison.plot_critical_difference(None, criterion="hamming")
    radar = plot_radar(comparison, None)
    assert isinstance(cd, Figure) and isinstance(radar, Figure)
    assert "CD = " in " ".join(t.get_text() for t in cd.findobj(lambda a: hasattr(a, "get_text")))
    assert list(tmp_path.iterdir()) == []
