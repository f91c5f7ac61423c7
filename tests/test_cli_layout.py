"""The command's modules: help generated from the registries, names kept, no import circles."""

import ast
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import mlnb.cli
from mlnb.cli import main
from mlnb.cli._options import threshold_help
from mlnb.decision_rules import RULES, Threshold
from mlnb.metrics import get_metric_set

CLI = Path(mlnb.cli.__file__).parent


def _option_help(command, option):
    """The help text of one option of ``mlnb COMMAND --help``, on one line."""
    result = CliRunner().invoke(main, [command, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    row = re.compile(rf"^  (-\w, )?{option} ")
    options = lines.index("Options:")  # the option's row, not a mention in the text above
    start = next(i for i in range(options, len(lines)) if row.match(lines[i]))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("  -"))
    return " ".join(" ".join(lines[start:end]).split())


@pytest.mark.parametrize("command", ["fit", "evaluate", "compare"])
def test_threshold_help_names_every_rule(command, monkeypatch):
    text = _option_help(command, "--threshold")
    for name in ("tuned", *RULES):
        assert name in text, name
    monkeypatch.setitem(RULES, "newcut", Threshold)
    assert "cardinality, newcut: that rule" in _option_help(command, "--threshold")


def test_threshold_help_keeps_its_wording():
    assert threshold_help() == (
        "Decision rule of the multi-label methods, fitted on 5-fold out-of-fold scores (micro "
        "F1). tuned: the best of the rules; pcut, pcutl, rcut, mcut, scut, microcuts, "
        "cardinality: that rule; threshold: one cut fitted for micro F1; a number T: labels "
        "with log-odds >= T (0 is about the 0.5 rule). br, cc, pcc, imlnb and naibx take it as "
        "their rule= (their default is tuned, which also keeps their own rule unless a rule "
        "beats it; -p rule=predict is the 0.5 rule); other methods are wrapped in "
        "mlnb.TunedThresholdsCV."
    )


def test_text_criteria_come_from_the_metric_registry():
    text = get_metric_set("text")
    assert list(mlnb.cli.SINGLE_LABEL_CRITERIA) == list(text)
    assert all(mlnb.cli.SINGLE_LABEL_CRITERIA[n] is m.function for n, m in text.items())
    assert ("Text corpora: " + ", ".join(text) + ".") in _option_help("evaluate", "--metrics")


def test_names_other_code_imports_stay_in_mlnb_cli():
    for name in (
        "main",
        "DEFAULT_COMPARE_METHODS",
        "SINGLE_LABEL_CRITERIA",
        "PLOTTED",
        "METRIC_SET_NAMES",
        "Failure",
        "Progress",
        "_estimator",
        "_xy",
        "_scores",
    ):
        assert hasattr(mlnb.cli, name), name


def _imports(path):
    """(level, module, names) of every import of a module of the cli package."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            yield node.level, node.module or "", [a.name for a in node.names]


def test_no_import_circles_inside_the_cli():
    graph = {
        path.stem: {m for level, m, _ in _imports(path) if level == 1 and m}
        for path in CLI.glob("*.py")
    }
    graph["__init__"] |= {m for m in graph if m != "__init__"}  # it holds the group

    def visit(module, path):
        assert module not in path, " -> ".join([*path, module])
        for other in graph.get(module, ()):
            visit(other, [*path, module])

    for module in graph:
        if module != "__init__":
            assert "__init__" not in graph[module], module
            visit(module, [])


def test_cli_modules_read_public_names_of_other_packages():
    # private modules of other packages whose names have no public home yet
    known = {
        "..evaluation._optional",
        "..datasets._dataset",
        "..datasets._text",
        "..datasets._files",
        "..datasets._table",
    }
    for path in CLI.glob("*.py"):
        for level, module, names in _imports(path):
            if level == 2:
                dotted = ".." + module
                private = any(part.startswith("_") for part in module.split("."))
                assert not private or dotted in known, (path.name, dotted)
                assert not any(n.startswith("_") for n in names), (path.name, dotted, names)
