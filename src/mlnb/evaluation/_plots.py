"""Critical-difference diagram and radar plot of average ranks, written as PNG and SVG.

Plotting is the optional extra ``mlnb[plot]`` (matplotlib).  Figures are built on
``matplotlib.figure.Figure`` objects, never through pyplot, so no global backend is set
and nothing is shown; saving to PNG uses matplotlib's Agg renderer.

The critical-difference diagram is scikit-posthocs' ``critical_difference_diagram``
(which also needs ``mlnb[stats]``): methods placed at their average ranks, crossbars
joining methods that Nemenyi's test does not separate, and the CD bar (its ``cd``
argument).  The radar plot follows Figure 2 of the dynamic-chains paper (Trajdos and
Kurzynski, "Dynamic classifier chains for multi-label learning"): one axis per criterion, a
method's average rank along it (closer to the centre is better), and a black bar of
length CD laid along each axis, starting at the best method's rank, when ``show_cd``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ._optional import require
from ._report import criterion_label

__all__ = ["new_figure", "plot_critical_difference", "plot_radar", "save_figure"]

_FORMATS = ("png", "svg", "pdf")


def _paths(path, formats):
    if isinstance(formats, str):
        formats = (formats,)
    formats = tuple(f.lower().lstrip(".") for f in formats)
    bad = [f for f in formats if f not in _FORMATS]
    if bad or not formats:
        raise ValueError(f"formats must be a non-empty subset of {_FORMATS}, got {formats!r}.")
    path = Path(path)
    if path.suffix.lower().lstrip(".") in _FORMATS:
        path = path.with_suffix("")
    path.parent.mkdir(parents=True, exist_ok=True)
    return [path.with_name(f"{path.name}.{f}") for f in formats]


def new_figure(figsize):
    """A matplotlib Figure (no pyplot, no backend set); ImportError naming ``mlnb[plot]``."""
    require("matplotlib", "plotting")
    from matplotlib.figure import Figure

    return Figure(figsize=figsize)


def save_figure(fig, path, formats):
    """Write ``fig`` as each of ``formats`` (SVG text as text, without a date); the paths.

    ``path=None`` writes nothing and returns ``fig`` (to show it, e.g. in a notebook).
    """
    if path is None:
        return fig
    import matplotlib

    written = []
    # SVG text stays text (searchable, editable), and without a date (reproducible).
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "mlnb"}):
        for target in _paths(path, formats):
            metadata = {"Date": None} if target.suffix == ".svg" else None
            fig.savefig(target, dpi=150, bbox_inches="tight", metadata=metadata)
            written.append(target)
    return written


def plot_critical_difference(result, path, *, formats=("png", "svg"), title=None):
    """Write the critical-difference diagram of one criterion.

    Parameters
    ----------
    result : CriterionComparison
        One criterion of :func:`mlnb.evaluation.compare`.
    path : str, Path or None
        Output path; its suffix, if any, is replaced by each format's. None: return the
        matplotlib Figure instead of writing it.
    formats : sequence of {"png", "svg", "pdf"}, default=("png", "svg")
        Files to write.
    title : str, default=None
        Figure title; default: the criterion, alpha and N.

    Returns
    -------
    list of Path or Figure
        The files written (the Figure if ``path`` is None).
    """
    fig = new_figure((7.0, 3.0))
    posthocs = require("scikit_posthocs", "the critical-difference diagram")
    import matplotlib

    k = result.n_methods
    palette = None  # matplotlib's 10-colour cycle, unless more methods need distinct colours
    if k > 10:
        cmap = matplotlib.colormaps["tab20" if k <= 20 else "turbo"]
        dark_first = [*range(0, 20, 2), *range(1, 20, 2)]  # tab20's dark shades, then light
        palette = (
            [cmap(dark_first[i]) for i in range(k)] if k <= 20 else list(cmap(np.linspace(0, 1, k)))
        )
    ax = fig.add_subplot()
    posthocs.critical_difference_diagram(
        result.average_ranks,
        result.nemenyi_pvalues,
        alpha=result.alpha,
        ax=ax,
        label_fmt_left="{label} ({rank:.2f})",
        label_fmt_right="({rank:.2f}) {label}",
        color_palette=palette,
    )
    # a gap of 4 points between each leader line's end and its label
    from matplotlib.transforms import ScaledTranslation

    for text in ax.texts:
        shift = {"right": -4 / 72, "left": 4 / 72}.get(text.get_horizontalalignment(), 0.0)
        text.set_transform(text.get_transform() + ScaledTranslation(shift, 0, fig.dpi_scale_trans))
    # The CD bar is drawn here rather than by scikit-posthocs' ``cd=``: that one sits
    # half a unit above the axis, on top of the rank tick labels, and prints CD to two
    # significant digits.  Like Demsar's figures, the axis spans ranks 1..k and the bar
    # starts at rank 1.
    cd = result.critical_difference
    right = max(float(k), 1.0 + cd)
    ax.set_xlim(1.0 - 0.02 * right, right + 0.02 * right)
    if k <= 20:
        ax.set_xticks(np.arange(1, k + 1))
    ax.plot([1.0, 1.0 + cd], [1.5, 1.5], color="black", linewidth=2, solid_capstyle="butt")
    ax.plot([1.0, 1.0], [1.3, 1.7], [1.0 + cd, 1.0 + cd], [1.3, 1.7], color="black", lw=1)
    ax.text(1.0 + cd / 2, 1.8, f"CD = {cd:.3f}", ha="center", va="bottom", fontsize=9)
    bottom = ax.get_ylim()[0]
    ax.set_ylim(bottom, 2.6)
    fig.set_size_inches(7.0, 0.28 * (2.6 - bottom) + 0.5)
    if title is None:
        title = f"{criterion_label(result.name)}: average ranks, Nemenyi test "
        title += f"(alpha = {result.alpha:g}, N = {result.n_datasets})"
    ax.set_title(title, fontsize=10)
    return save_figure(fig, path, formats)


def plot_radar(comparison, path, *, formats=("png", "svg"), show_cd=True, title=None):
    """Write a radar plot of average ranks: one axis per criterion, one polygon per method.

    Parameters
    ----------
    comparison : Comparison
        Result of :func:`mlnb.evaluation.compare` with at least 3 criteria.
    path : str, Path or None
        Output path; its suffix, if any, is replaced by each format's. None: return the
        matplotlib Figure instead of writing it.
    formats : sequence of {"png", "svg", "pdf"}, default=("png", "svg")
        Files to write.
    show_cd : bool, default=True
        Draw each criterion's Nemenyi CD as a black bar along its axis, from the best
        average rank outwards: methods whose point lies beyond the bar differ
        significantly from the best one.
    title : str, default=None
        Figure title.

    Returns
    -------
    list of Path or Figure
        The files written (the Figure if ``path`` is None).
    """
    criteria = list(comparison.criteria.values())
    if len(criteria) < 3:
        raise ValueError(f"a radar plot needs at least 3 criteria, got {len(criteria)}.")
    methods = comparison.methods
    ranks = np.array([[c.average_ranks[m] for c in criteria] for m in methods])
    angles = np.linspace(0.0, 2.0 * np.pi, len(criteria), endpoint=False)
    closed = np.append(angles, angles[0])
    fig = new_figure((7.5, 6.5))
    ax = fig.add_subplot(projection="polar")
    ax.set_theta_offset(np.pi / 2)
    ax.set_theta_direction(-1)
    for method, row in zip(methods, ranks, strict=True):
        values = np.append(row, row[0])
        ax.plot(closed, values, marker="o", markersize=3, linewidth=1.3, label=str(method))
        ax.fill(closed, values, alpha=0.06)
    if show_cd:
        for angle, crit in zip(angles, criteria, strict=True):
            start = float(crit.average_ranks.min())
            ax.plot(
                [angle, angle],
                [start, start + crit.critical_difference],
                color="black",
                linewidth=3,
                solid_capstyle="butt",
                zorder=5,
            )
    ax.set_xticks(angles)
    labels = [criterion_label(c.name) for c in criteria]
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylim(0, len(methods) + 0.2)
    ax.set_yticks(np.arange(1, len(methods) + 1))
    ax.tick_params(axis="y", labelsize=7)
    ax.legend(loc="upper left", bbox_to_anchor=(1.05, 1.0), fontsize=8, frameon=False)
    if title is None:
        title = "Average ranks (closer to the centre is better)"
        if show_cd:
            title += f"; bars: Nemenyi CD, alpha = {comparison.alpha:g}"
    ax.set_title(title, fontsize=10, pad=18)
    return save_figure(fig, path, formats)
