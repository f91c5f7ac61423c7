"""A readable report of a :class:`~mlnb.evaluation.Comparison`, as plain text or Markdown.

Per criterion: the mean of each method over the data sets (the best marked), the average
ranks, the Friedman test and which pairs of methods the Nemenyi critical difference
separates; then the Wilcoxon-Holm pairs, or one line saying why N data sets cannot give a
significant pair (the exact two-sided Wilcoxon p-value of N pairs is at least
``2 / 2**N``, and Holm's first step asks for ``p <= alpha / m`` over m tests).

:func:`criterion_label` is the one display name of a criterion, used by the tables, the
report and the diagram titles.
"""

from __future__ import annotations

import math
import textwrap

from ..metrics import METRICS

__all__ = ["criterion_label", "format_report", "wilcoxon_can_reject", "wilcoxon_summary"]

_NAMES = {
    "hamming": "Hamming loss",
    "zero_one": "Zero-one loss",
    "accuracy": "Accuracy",
    "subset_accuracy": "Subset accuracy",
    "train_time": "Training time (s)",
    "test_time": "Prediction time (s)",
}
_PREFIXES = {"example_": "Example-based ", "macro_": "Macro ", "micro_": "Micro "}
_SUFFIXES = {
    "fdr": "FDR",
    "fnr": "FNR",
    "f1_loss": "F1 loss",
    "f1": "F1",
    "precision": "precision",
    "recall": "recall",
}
_TIMES = ("train_time", "test_time")


def criterion_label(name):
    """The display name of criterion ``name`` (e.g. ``"example_f1_loss"``: "Example-based
    F1 loss"; ``"train_time"``: "Training time (s)").

    Parameters
    ----------
    name : str
        A criterion name (:data:`mlnb.metrics.METRICS`, ``train_time``, ``test_time`` or
        any other, shown with spaces for underscores).

    Returns
    -------
    str
    """
    if name in _NAMES:
        return _NAMES[name]
    for prefix, shown in _PREFIXES.items():
        rest = name.removeprefix(prefix)
        if rest != name and rest in _SUFFIXES:
            return shown + _SUFFIXES[rest]
    if name in METRICS:
        return METRICS[name].label
    text = name.replace("_", " ")
    return text[:1].upper() + text[1:]


def wilcoxon_can_reject(n_datasets, n_tests, alpha):
    """Whether a Wilcoxon signed-rank test over ``n_datasets`` pairs can be significant
    after Holm's correction over ``n_tests`` tests: ``2 / 2**N <= alpha / m``.

    Parameters
    ----------
    n_datasets : int
        N, the paired values of each test.
    n_tests : int
        m, the tests Holm's procedure corrects for.
    alpha : float
        Significance level.

    Returns
    -------
    bool
    """
    return 2.0 ** (1 - n_datasets) <= alpha / max(n_tests, 1)


def _datasets_needed(n_tests, alpha):
    return 1 + math.ceil(math.log2(max(n_tests, 1) / alpha))


def _p(value):
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def _p_is(value):
    return "p < 0.001" if value < 0.001 else f"p = {value:.3f}"


def _number(value, criterion):
    if not math.isfinite(value):
        return "-"
    if criterion in _TIMES or abs(value) >= 10:
        return f"{value:.3g}"
    return f"{value:.3f}"


def _best(cells, values, greater):
    """The columns whose shown value equals the best one's."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return set()
    target = max(finite) if greater else min(finite)
    shown = cells[values.index(target)]
    return {j for j, cell in enumerate(cells) if cell == shown}


def _pairs_beyond_cd(result):
    """``{better: [worse, ...]}`` for the pairs whose average ranks differ by more than CD."""
    ranks = result.average_ranks
    beyond = {}
    for a in ranks.index:
        worse = [b for b in ranks.index if ranks[b] - ranks[a] > result.critical_difference]
        if worse:
            beyond[a] = worse
    return beyond


def _and(names):
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _criterion_sentence(result):
    label, alpha = criterion_label(result.name), result.alpha
    p = result.friedman_pvalue
    if not p < alpha:
        return f"{label}: Friedman {_p_is(p)} >= {alpha:g}, no significant difference."
    beyond = _pairs_beyond_cd(result)
    if not beyond:
        return (
            f"{label}: Friedman {_p_is(p)} < {alpha:g}, the ranks differ, but no two methods "
            "differ by more than CD."
        )
    grouped = {}  # the methods better than the same ones, together
    for better, worse in beyond.items():
        grouped.setdefault(tuple(worse), []).append(better)
    pairs = "; ".join(
        f"{_and(better)} better than {_and(list(worse))}" for worse, better in grouped.items()
    )
    return f"{label}: Friedman {_p_is(p)} < {alpha:g}; beyond CD: {pairs}."


def _blocks(comparison, title, protocol, datasets):
    """The report as blocks: ("text", str), ("table", header, rows, best cells), ("list", items)."""
    results = list(comparison.criteria.values())
    first = results[0]
    methods, names = list(first.scores.index), list(first.scores.columns)
    k, n, alpha = first.n_methods, first.n_datasets, comparison.alpha
    blocks = [("heading", title or f"Comparison of {k} methods on {n} data sets")]
    lines = [f"Methods: {', '.join(methods)}."]
    described = [f"{d} ({datasets[d]})" if datasets and d in datasets else str(d) for d in names]
    lines.append(f"Data sets (N = {n}): {', '.join(described)}.")
    if protocol:
        lines.append(f"Protocol: {protocol}.")
    lines.append(f"Significance level alpha = {alpha:g}.")
    blocks.append(("list", lines))
    blocks.append(("text", f"Mean of each criterion over the {n} data sets ({{best}}):"))
    rows, best = [], set()
    for i, result in enumerate(results):
        values = [float(v) for v in result.scores.mean(axis=1)]
        cells = [_number(v, result.name) for v in values]
        best |= {(i, 2 + j) for j in _best(cells, values, result.greater_is_better)}
        better = "higher" if result.greater_is_better else "lower"
        rows.append([criterion_label(result.name), better, *cells])
    blocks.append(("table", ["criterion", "better", *methods], rows, best))
    blocks.append(("text", f"Average rank over the {n} data sets (1 = best; {{best}}):"))
    rows, best = [], set()
    for i, result in enumerate(results):
        values = [float(result.average_ranks[m]) for m in methods]
        cells = [f"{v:.2f}" for v in values]
        best |= {(i, 1 + j) for j in _best(cells, values, False)}
        rows.append([criterion_label(result.name), *cells, _p(result.friedman_pvalue)])
    blocks.append(("table", ["criterion", *methods, "Friedman p"], rows, best))
    cds = {round(r.critical_difference, 3) for r in results}
    cd = f"{first.critical_difference:.2f}" if len(cds) == 1 else "as in ranks.csv"
    blocks.append(
        (
            "text",
            "The Friedman test asks whether the ranks differ more than chance allows: a "
            f"p-value below {alpha:g} says some methods differ. The critical difference "
            f"CD = {cd} (Nemenyi test, k = {k} methods, N = {n} data sets) is the least "
            "difference of average ranks that is significant; pairs beyond it are listed "
            "where the Friedman test is significant.",
        )
    )
    blocks.append(("list", [_criterion_sentence(r) for r in results]))
    blocks.append(("text", wilcoxon_summary(comparison)))
    significant = [
        [criterion_label(r.name), a, b, _number(float(d), r.name), _p(float(p))]
        for r in results
        for a, b, d, _, _, p, s in r.wilcoxon.itertuples(index=False, name=None)
        if s
    ]
    if significant and wilcoxon_can_reject(n, len(first.wilcoxon), alpha):
        header = ["criterion", "method A", "method B", "mean A-B", "p (Holm)"]
        blocks.append(("table", header, significant, set()))
    return blocks


def wilcoxon_summary(comparison):
    """One sentence on the Wilcoxon-Holm tests of ``comparison``: how many pairs are
    significant, or why N data sets cannot give a significant pair."""
    first = next(iter(comparison.criteria.values()))
    n, m, alpha = first.n_datasets, len(first.wilcoxon), comparison.alpha
    if not wilcoxon_can_reject(n, m, alpha):
        return (
            f"Wilcoxon-Holm: not shown: with N = {n} data sets the smallest two-sided "
            f"Wilcoxon p-value is {2.0 ** (1 - n):.3g}, and Holm's correction over {m} pairs "
            f"needs p <= {alpha / m:.3g}: no pair can be significant (N >= "
            f"{_datasets_needed(m, alpha)} can)."
        )
    count = sum(int(r.wilcoxon["significant"].sum()) for r in comparison.criteria.values())
    total = sum(len(r.wilcoxon) for r in comparison.criteria.values())
    return (
        f"Wilcoxon signed-rank tests with Holm's correction (alpha = {alpha:g}): {count} of "
        f"{total} pairs significant{':' if count else '.'}"
    )


def _text_table(header, rows, best):
    cells = [list(header)] + [
        [f"{c}*" if (i, j) in best else c for j, c in enumerate(row)] for i, row in enumerate(rows)
    ]
    widths = [max(len(r[j]) for r in cells) for j in range(len(header))]
    numeric = [j > 0 and all(_numeric(r[j]) for r in cells[1:]) for j in range(len(header))]
    lines = []
    for row in cells:
        parts = [
            c.rjust(w) if num else c.ljust(w)
            for c, w, num in zip(row, widths, numeric, strict=True)
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def _numeric(cell):
    return cell.rstrip("*").lstrip("<- ").replace(".", "", 1).isdigit() or cell == "-"


def _markdown_table(header, rows, best):
    def escape(text):
        return text.replace("|", r"\|").replace("*", r"\*")

    lines = ["| " + " | ".join(map(escape, header)) + " |"]
    numeric = [j > 0 and all(_numeric(r[j]) for r in rows) for j in range(len(header))]
    lines.append("|" + "|".join("---:" if num else "---" for num in numeric) + "|")
    for i, row in enumerate(rows):
        cells = [f"**{escape(c)}**" if (i, j) in best else escape(c) for j, c in enumerate(row)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def format_report(comparison, *, fmt="text", title=None, protocol=None, datasets=None):
    """The comparison as a report a person can read, in plain text or Markdown.

    Parameters
    ----------
    comparison : Comparison
        Result of :func:`mlnb.evaluation.compare`.
    fmt : {"text", "markdown"}, default="text"
        Aligned plain text (the best value marked ``*``) or Markdown (the best in bold).
    title : str, default=None
        First line; default "Comparison of k methods on N data sets".
    protocol : str, default=None
        How the scores were obtained, e.g. "5-fold cross-validation, seed 0".
    datasets : dict of str to str, default=None
        A short description of each data set, e.g. its size.

    Returns
    -------
    str
    """
    if fmt not in ("text", "markdown"):
        raise ValueError(f"fmt must be 'text' or 'markdown', got {fmt!r}.")
    out, marked = [], "the best in bold" if fmt == "markdown" else "* marks the best"
    for kind, *content in _blocks(comparison, title, protocol, datasets):
        if kind == "heading":
            out.append(f"# {content[0]}" if fmt == "markdown" else content[0])
        elif kind == "text":
            text = content[0].replace("{best}", marked)
            out.append(text if fmt == "markdown" else textwrap.fill(text, 100))
        elif kind == "list":
            if fmt == "markdown":
                out.append("\n".join(f"- {item}" for item in content[0]))
            else:
                wrap = textwrap.TextWrapper(100, initial_indent="  ", subsequent_indent="    ")
                out.append("\n".join(wrap.fill(item) for item in content[0]))
        else:
            render = _markdown_table if fmt == "markdown" else _text_table
            out.append(render(*content))
    return "\n\n".join(out) + "\n"
