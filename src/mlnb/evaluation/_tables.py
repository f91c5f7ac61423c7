"""Plain-text result tables: Markdown (GitHub pipe tables), LaTeX (booktabs) and CSV.

Written by hand on purpose: pandas' ``to_markdown`` needs ``tabulate`` and ``to_latex``
needs ``jinja2``, two dependencies for a few lines of formatting; CSV uses the standard
library's :mod:`csv` module.  A table is a header (list of column names) and rows (lists
of cells); floats are formatted with ``floatfmt`` and NaN is shown as "-".
"""

from __future__ import annotations

import csv
import io
import math
from numbers import Real

__all__ = ["format_table"]

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _cell(value, floatfmt):
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Real) and not isinstance(value, int):
        value = float(value)
        return "-" if math.isnan(value) else format(value, floatfmt)
    return str(value)


def _latex_escape(text):
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def _is_number(value):
    return isinstance(value, Real) and not isinstance(value, bool)


def format_table(header, rows, *, fmt="markdown", floatfmt=".4f", caption=None):
    """Format ``header`` and ``rows`` as a Markdown, LaTeX or CSV string.

    Parameters
    ----------
    header : sequence of str
        Column names.
    rows : sequence of sequences
        Cells; numbers are right-aligned in Markdown and LaTeX.
    fmt : {"markdown", "latex", "csv"}, default="markdown"
        Output format.  CSV keeps full precision (``repr`` of floats).
    floatfmt : str, default=".4f"
        Format spec of floats in Markdown and LaTeX.
    caption : str, default=None
        LaTeX table caption (ignored by the other formats).

    Returns
    -------
    str
    """
    header = [str(h) for h in header]
    rows = [list(r) for r in rows]
    if any(len(r) != len(header) for r in rows):
        raise ValueError("rows must all have as many cells as header.")
    numeric = [bool(rows) and all(_is_number(r[j]) for r in rows) for j in range(len(header))]
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        return buffer.getvalue()
    cells = [[_cell(v, floatfmt) for v in r] for r in rows]
    if fmt == "markdown":
        escaped = [[c.replace("|", r"\|") for c in r] for r in [header, *cells]]
        widths = [max(len(r[j]) for r in escaped) for j in range(len(header))]
        widths = [max(w, 3) for w in widths]

        def line(r):
            return (
                "| "
                + " | ".join(
                    c.rjust(w) if num else c.ljust(w)
                    for c, w, num in zip(r, widths, numeric, strict=True)
                )
                + " |"
            )

        rule = (
            "|"
            + "|".join(
                "-" * (w + 1) + ":" if num else "-" * (w + 2)
                for w, num in zip(widths, numeric, strict=True)
            )
            + "|"
        )
        return "\n".join([line(escaped[0]), rule, *map(line, escaped[1:])]) + "\n"
    if fmt == "latex":
        spec = "".join("r" if num else "l" for num in numeric)
        body = [" & ".join(_latex_escape(c) for c in r) + r" \\" for r in [header, *cells]]
        lines = [r"\begin{table}[ht]", r"\centering"]
        if caption:
            lines.append(rf"\caption{{{_latex_escape(caption)}}}")
        lines += [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", body[0], r"\midrule", *body[1:]]
        lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
        return "\n".join(lines) + "\n"
    raise ValueError(f"fmt must be 'markdown', 'latex' or 'csv', got {fmt!r}.")
