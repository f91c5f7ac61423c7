"""Tests of the Markdown / LaTeX / CSV table formatter."""

import pytest

from mlnb.evaluation import format_table

HEADER = ["method", "rank", "p", "significant"]
ROWS = [["C4.5", 3.142857, float("nan"), False], ["a|b_c&d", 2, 0.01, True]]


def test_markdown():
    lines = format_table(HEADER, ROWS, floatfmt=".2f").splitlines()
    assert lines[0] == "| method   | rank |    p | significant |"
    assert lines[1] == "|----------|-----:|-----:|-------------|"
    assert lines[2] == "| C4.5     | 3.14 |    - | no          |"
    assert lines[3] == r"| a\|b_c&d |    2 | 0.01 | yes         |"


def test_latex_escapes_and_alignment():
    text = format_table(HEADER, ROWS, fmt="latex", caption="50% of a_b")
    assert r"\begin{tabular}{lrrl}" in text
    assert r"\caption{50\% of a\_b}" in text
    assert r"a|b\_c\&d & 2 & 0.0100 & yes \\" in text
    assert text.count(r"\midrule") == 1


def test_csv_keeps_full_precision():
    text = format_table(HEADER, ROWS, fmt="csv")
    assert text.splitlines() == [
        "method,rank,p,significant",
        "C4.5,3.142857,nan,False",
        "a|b_c&d,2,0.01,True",
    ]


def test_errors():
    with pytest.raises(ValueError, match="fmt must be"):
        format_table(HEADER, ROWS, fmt="html")
    with pytest.raises(ValueError, match="as many cells"):
        format_table(HEADER, [[1, 2]])
