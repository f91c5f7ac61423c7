"""The files of a comparison of methods over data sets: what ``mlnb compare`` writes.

:func:`write_comparison` takes the mean score of every (criterion, method, data set), runs
:func:`~mlnb.evaluation.compare` when there are two data sets or more, and writes into one
directory: ``means.json`` and ``summary.json`` always; with two sets or more also one
``means_<criterion>.csv`` per criterion, ``ranks.md`` / ``ranks.csv``, ``wilcoxon_holm.md``
(the table, or one line saying why N sets cannot give a significant pair), critical-difference
diagrams (``cd_<criterion>.png`` and ``.svg``) and the readable ``report.md``
(:func:`~mlnb.evaluation.format_report`). The command line and the experiments use it alike.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ._report import criterion_label, format_report, wilcoxon_summary
from ._statistics import compare

__all__ = ["ComparisonFiles", "write_comparison"]


@dataclass
class ComparisonFiles:
    """What :func:`write_comparison` wrote.

    ``comparison`` is the :class:`~mlnb.evaluation.Comparison` (None with fewer than two
    data sets), ``report`` its plain-text report (None likewise), ``summary`` what
    ``summary.json`` holds and ``written`` the files, in words (e.g. ``"means_*.csv (3)"``).
    """

    comparison: object = None
    report: str | None = None
    summary: dict = field(default_factory=dict)
    written: list = field(default_factory=list)
    incomplete: list = field(default_factory=list)


def write_comparison(
    out_dir,
    means,
    methods,
    datasets,
    *,
    alpha=0.1,
    greater_is_better=None,
    plotted=(),
    title=None,
    protocol=None,
    described=None,
):
    """Compare ``methods`` over ``datasets`` and write the comparison's files.

    Parameters
    ----------
    out_dir : path
        Created if needed.
    means : dict
        ``{criterion: {method: {dataset: mean score}}}``. A criterion missing for some
        (method, data set) is written to ``means.json`` but not ranked
        (``ComparisonFiles.incomplete``).
    methods, datasets : lists of str
        The rows and columns of the tables, in this order.
    alpha : float, default=0.1
    greater_is_better : dict or None
        As :func:`~mlnb.evaluation.compare` (None: its defaults, losses and times lower).
    plotted : sequence of str
        The criteria to draw critical-difference diagrams of (those ranked).
    title, protocol : str or None
        The report's title and how the scores were obtained, in words.
    described : dict or None
        ``{dataset: a few words on its size}`` for the report.

    Returns
    -------
    ComparisonFiles
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    n_runs = len(methods) * len(datasets)
    files = ComparisonFiles(
        incomplete=[c for c, v in means.items() if sum(map(len, v.values())) < n_runs],
        summary={"methods": list(methods), "datasets": list(datasets), "protocol": protocol},
    )
    files.summary["criteria"] = {}
    (out_dir / "means.json").write_text(json.dumps(means, indent=1))
    files.written.append("means.json")
    if len(datasets) >= 2:
        _write_ranked(out_dir, means, methods, datasets, files, alpha, greater_is_better, plotted)
        options = {"protocol": protocol, "datasets": described or {}}
        title = title or f"{len(methods)} methods on {len(datasets)} data sets"
        files.report = format_report(files.comparison, fmt="text", title=title, **options)
        markdown = format_report(files.comparison, fmt="markdown", title=title, **options)
        (out_dir / "report.md").write_text(markdown)
        files.written.insert(0, "report.md")
    (out_dir / "summary.json").write_text(json.dumps(files.summary, indent=1))
    files.written.append("summary.json")
    return files


def _write_ranked(out_dir, means, methods, datasets, files, alpha, greater_is_better, plotted):
    """The tables, tests and diagrams of the criteria known for every run."""
    import pandas as pd

    tables = {
        c: pd.DataFrame(v).T.loc[list(methods), list(datasets)]
        for c, v in means.items()
        if c not in files.incomplete
    }
    for criterion, table in tables.items():
        table.to_csv(out_dir / f"means_{criterion}.csv")
    files.written.append(f"means_*.csv ({len(tables)})")
    comparison = compare(tables, alpha=alpha, greater_is_better=greater_is_better)
    (out_dir / "ranks.md").write_text(comparison.to_markdown("ranks") + "\n")
    comparison.to_csv(out_dir / "ranks.csv", kind="ranks")
    (out_dir / "wilcoxon_holm.md").write_text(_wilcoxon_markdown(comparison))
    files.written += ["ranks.md", "ranks.csv", "wilcoxon_holm.md"]
    drawn = [c for c in plotted if c in comparison.criteria]
    for criterion in drawn:
        comparison.plot_critical_difference(out_dir / f"cd_{criterion}", criterion=criterion)
    if drawn:
        files.written.append(f"cd_*.png and .svg ({', '.join(drawn)})")
    for name, result in comparison.criteria.items():
        files.summary["criteria"][name] = {
            "label": criterion_label(name),
            "greater_is_better": result.greater_is_better,
            "mean_scores": {m: float(v) for m, v in result.scores.mean(axis=1).items()},
            "average_ranks": {m: float(v) for m, v in result.average_ranks.items()},
            "friedman_pvalue": float(result.friedman_pvalue),
            "critical_difference": float(result.critical_difference),
        }
    files.comparison = comparison


def _wilcoxon_markdown(comparison):
    """The Wilcoxon-Holm table, or one line when N data sets cannot give a significant pair."""
    from ._report import wilcoxon_can_reject

    first = next(iter(comparison.criteria.values()))
    if wilcoxon_can_reject(first.n_datasets, len(first.wilcoxon), comparison.alpha):
        return comparison.to_markdown("wilcoxon") + "\n"
    return wilcoxon_summary(comparison) + "\n"
