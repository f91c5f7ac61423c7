"""Statistical comparison of several methods over several data sets (Demsar 2006).

For each criterion, a methods x data sets table of scores gives:

- ranks per data set (1 = best; ties share the average rank) and average ranks;
- the Friedman test, ``scipy.stats.friedmanchisquare`` (with its tie correction), and the
  Iman-Davenport F statistic ``F_F = (N-1) chi2 / (N(k-1) - chi2)`` with (k-1, (k-1)(N-1))
  degrees of freedom (Demsar 2006, section 3.2.2);
- the Nemenyi post-hoc test, ``scikit_posthocs.posthoc_nemenyi_friedman``, and its critical
  difference ``CD = q_alpha sqrt(k(k+1) / (6N))`` with ``q_alpha`` the studentized range
  quantile ``scipy.stats.studentized_range.ppf(1 - alpha, k, inf) / sqrt(2)``; a pair
  differs significantly exactly when its average ranks differ by more than CD;
- pairwise Wilcoxon signed-rank tests, ``scipy.stats.wilcoxon`` (zero differences split
  between the two rank sums by default, as Demsar does; the statistic is
  ``T = min(R+, R-)``), with Holm's correction,
  ``statsmodels.stats.multitest.multipletests(method="holm")`` (alpha = 0.1, as in the
  dynamic-chains paper, Trajdos and Kurzynski, section 3);
- pairwise paired t-tests, ``scipy.stats.ttest_rel``, Holm-corrected likewise (Xu 2018,
  Table 3, compares per-category F1 with it).

Two pieces are written here, with reasons: the Friedman statistic without tie correction
(Demsar's equation, ``tie_correction=False``), which scipy does not offer and which is
needed to reproduce published figures; and for two methods, which scipy's Friedman test
refuses, the same equation with the standard tie correction
``1 - sum(t^3 - t) / (N k (k^2 - 1))``.  Degenerate inputs are defined, not NaN: a pair
with no non-zero difference has p = 1; a t-test whose differences are all equal and
non-zero has |t| = inf and p = 0.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

from ..metrics import METRICS
from ._optional import require
from ._tables import format_table

__all__ = ["Comparison", "CriterionComparison", "compare"]


@dataclass(frozen=True)
class CriterionComparison:
    """Comparison of k methods on N data sets for one criterion.

    Attributes
    ----------
    name : str
        Criterion name.
    greater_is_better : bool
        Whether the scores are scores (True) or losses (False).
    alpha : float
        Significance level of Nemenyi's CD, Holm's procedure and ``significant`` flags.
    scores : pandas.DataFrame
        Methods x data sets.
    ranks : pandas.DataFrame
        Methods x data sets; 1 is the best, ties share the average rank.
    average_ranks : pandas.Series
        Mean rank of each method.
    friedman_statistic, friedman_pvalue : float
        Friedman chi-square (k-1 degrees of freedom) and its p-value.
    iman_davenport_statistic, iman_davenport_pvalue : float
        Iman-Davenport F_F and its p-value.
    nemenyi_pvalues : pandas.DataFrame
        k x k Nemenyi p-values.
    q_alpha, critical_difference : float
        Nemenyi's critical value and critical difference of average ranks.
    wilcoxon, ttest : pandas.DataFrame
        One row per compared pair: ``method_a``, ``method_b``, ``mean_difference``
        (mean of a - b), ``statistic``, ``pvalue``, ``pvalue_holm``, ``significant``.
    """

    name: str
    greater_is_better: bool
    alpha: float
    scores: object
    ranks: object
    average_ranks: object
    friedman_statistic: float
    friedman_pvalue: float
    iman_davenport_statistic: float
    iman_davenport_pvalue: float
    nemenyi_pvalues: object
    q_alpha: float
    critical_difference: float
    wilcoxon: object
    ttest: object

    @property
    def n_methods(self):
        """Number of methods k."""
        return self.scores.shape[0]

    @property
    def n_datasets(self):
        """Number of data sets N."""
        return self.scores.shape[1]

    def plot_critical_difference(self, path, *, formats=("png", "svg"), title=None):
        """Write the critical-difference diagram; see :func:`plot_critical_difference`."""
        from ._plots import plot_critical_difference

        return plot_critical_difference(self, path, formats=formats, title=title)


@dataclass(frozen=True)
class Comparison:
    """Comparisons of the same methods under one or several criteria.

    Attributes
    ----------
    criteria : dict of str to CriterionComparison
        One entry per criterion, in input order.
    alpha : float
        Significance level.
    """

    criteria: dict
    alpha: float

    def __getitem__(self, name):
        return self.criteria[name]

    @property
    def methods(self):
        """Method names, in input order."""
        return list(next(iter(self.criteria.values())).scores.index)

    def average_ranks(self):
        """Criteria x methods DataFrame of average ranks."""
        pd = require("pandas", "Comparison.average_ranks")
        return pd.DataFrame({n: c.average_ranks for n, c in self.criteria.items()}).T

    def _table(self, kind):
        if kind == "ranks":
            header = ["criterion", *self.methods, "Friedman p", "Iman-Davenport p", "CD"]
            rows = [
                [
                    n,
                    *map(float, c.average_ranks),
                    c.friedman_pvalue,
                    c.iman_davenport_pvalue,
                    c.critical_difference,
                ]
                for n, c in self.criteria.items()
            ]
        elif kind in ("wilcoxon", "ttest"):
            header = ["criterion", "method A", "method B", "mean A-B", "statistic", "p"]
            header += ["p (Holm)", f"significant (alpha={self.alpha:g})"]
            rows = [
                [n, *row]
                for n, c in self.criteria.items()
                for row in getattr(c, kind).itertuples(index=False, name=None)
            ]
            rows = [[*r[:3], *map(float, r[3:7]), bool(r[7])] for r in rows]
        elif kind == "scores":
            header = ["criterion", "data set", *self.methods]
            rows = [
                [n, str(d), *map(float, c.scores[d])]
                for n, c in self.criteria.items()
                for d in c.scores.columns
            ]
        else:
            raise ValueError(
                f"kind must be 'ranks', 'wilcoxon', 'ttest' or 'scores', got {kind!r}."
            )
        return header, rows

    def to_markdown(self, kind="ranks", *, floatfmt=".3f"):
        """Markdown table of ``kind`` ("ranks", "wilcoxon", "ttest" or "scores")."""
        return format_table(*self._table(kind), fmt="markdown", floatfmt=floatfmt)

    def to_latex(self, kind="ranks", *, floatfmt=".3f", caption=None):
        """LaTeX (booktabs) table of ``kind`` ("ranks", "wilcoxon", "ttest" or "scores")."""
        return format_table(*self._table(kind), fmt="latex", floatfmt=floatfmt, caption=caption)

    def to_csv(self, path=None, kind="ranks"):
        """CSV text of ``kind``; written to ``path`` too when given."""
        text = format_table(*self._table(kind), fmt="csv")
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    def plot_critical_difference(self, path, *, criterion=None, formats=("png", "svg"), title=None):
        """Write one criterion's critical-difference diagram (PNG and SVG by default).

        ``criterion`` may be omitted when there is only one.
        """
        if criterion is None:
            if len(self.criteria) != 1:
                raise ValueError(f"criterion must name one of {list(self.criteria)}.")
            criterion = next(iter(self.criteria))
        if criterion not in self.criteria:
            raise ValueError(f"criterion must be one of {list(self.criteria)}, got {criterion!r}.")
        return self.criteria[criterion].plot_critical_difference(path, formats=formats, title=title)

    def plot_radar(self, path, *, formats=("png", "svg"), show_cd=True, title=None):
        """Write the radar plot of average ranks; see :func:`plot_radar`."""
        from ._plots import plot_radar

        return plot_radar(self, path, formats=formats, show_cd=show_cd, title=title)


def _as_frames(scores, criterion, pd):
    """Normalise the accepted inputs to ``{criterion: DataFrame (methods x data sets)}``."""

    def table(value, name):
        if isinstance(value, pd.DataFrame):
            frame = value.copy()
        elif isinstance(value, Mapping):
            frame = pd.DataFrame.from_dict(
                {k: list(np.ravel(v)) for k, v in value.items()}, orient="index"
            )
        else:
            array = np.asarray(value)
            if array.ndim != 2:
                raise ValueError(
                    f"scores[{name!r}] must be a methods x data sets table, got shape "
                    f"{array.shape}."
                )
            frame = pd.DataFrame(
                array,
                index=[f"method {i}" for i in range(array.shape[0])],
                columns=[f"data set {j}" for j in range(array.shape[1])],
            )
        try:
            frame = frame.astype(float)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"scores[{name!r}] must be numeric.") from exc
        if frame.shape[0] < 2 or frame.shape[1] < 2:
            raise ValueError(
                f"scores[{name!r}] needs at least 2 methods (rows) and 2 data sets (columns), "
                f"got {frame.shape[0]} x {frame.shape[1]}."
            )
        if not frame.index.is_unique or not frame.columns.is_unique:
            raise ValueError(f"scores[{name!r}] has duplicate method or data set names.")
        bad = ~np.isfinite(frame.to_numpy())
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise ValueError(
                f"scores[{name!r}] has a missing or non-finite value for method "
                f"{frame.index[i]!r} on data set {frame.columns[j]!r}."
            )
        return frame

    per_criterion = isinstance(scores, Mapping) and all(
        isinstance(v, pd.DataFrame) or np.ndim(v) == 2 for v in scores.values()
    )
    if per_criterion:
        if not scores:
            raise ValueError("scores must hold at least one criterion.")
        frames = {str(k): table(v, str(k)) for k, v in scores.items()}
    else:
        frames = {criterion: table(scores, criterion)}
    first = next(iter(frames.values()))
    for name, frame in frames.items():
        if set(frame.index) != set(first.index):
            raise ValueError(
                f"scores[{name!r}] compares methods {list(frame.index)}, but the first "
                f"criterion compares {list(first.index)}."
            )
        frames[name] = frame.loc[first.index]
    return frames


def _friedman_from_ranks(ranks, tie_correction):
    """Friedman chi-square from the k x N rank matrix (Demsar 2006, eq. of section 3.2.2).

    With ``tie_correction`` the statistic is divided by ``1 - sum(t^3 - t) / (N k (k^2-1))``
    over the tie groups t of every data set, as scipy does.
    """
    k, n = ranks.shape
    mean_ranks = ranks.mean(axis=1)
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(mean_ranks**2) - k * (k + 1) ** 2 / 4.0)
    if tie_correction:
        counts = (np.unique(column, return_counts=True)[1] for column in ranks.T)
        ties = sum(float(np.sum(c**3 - c)) for c in counts)
        correction = 1.0 - ties / (n * k * (k * k - 1))
        if correction <= 0:  # every data set ties all methods
            return 0.0, 1.0
        chi2 /= correction
    chi2 = max(float(chi2), 0.0)
    return chi2, float(stats.chi2.sf(chi2, k - 1))


def _friedman(values, ranks, tie_correction):
    """Friedman chi-square and p-value; ``values`` and ``ranks`` are k x N."""
    if values.shape[0] >= 3 and tie_correction:
        if np.all(ranks == ranks[:1]):  # every data set ties all methods
            return 0.0, 1.0
        result = stats.friedmanchisquare(*values)
        return float(result.statistic), float(result.pvalue)
    return _friedman_from_ranks(ranks, tie_correction)


def _iman_davenport(chi2, k, n):
    denominator = n * (k - 1) - chi2
    if denominator <= 0:
        return float("inf"), 0.0
    f_stat = (n - 1) * chi2 / denominator
    return float(f_stat), float(stats.f.sf(f_stat, k - 1, (k - 1) * (n - 1)))


def _wilcoxon(a, b, zero_method):
    if np.all(a == b):
        return 0.0, 1.0
    result = stats.wilcoxon(a, b, zero_method=zero_method)
    return float(result.statistic), float(result.pvalue)


def _ttest(a, b):
    d = a - b
    # differences equal up to rounding (scipy would warn of catastrophic cancellation and
    # give a t of rounding noise): the limit of the test, t = +-inf or no difference
    if np.ptp(d) <= 1e-12 * max(1.0, float(np.max(np.abs(d)))):
        if np.max(np.abs(d)) <= 1e-12:
            return 0.0, 1.0
        return float(np.sign(np.mean(d)) * np.inf), 0.0
    result = stats.ttest_rel(a, b)
    return float(result.statistic), float(result.pvalue)


def _pairwise(frame, pairs, test, alpha, pd, multipletests):
    records = []
    for a, b in pairs:
        x, y = frame.loc[a].to_numpy(), frame.loc[b].to_numpy()
        statistic, pvalue = test(x, y)
        records.append([a, b, float(np.mean(x - y)), statistic, pvalue])
    pvalues = np.array([r[-1] for r in records])
    reject, adjusted, _, _ = multipletests(pvalues, alpha=alpha, method="holm")
    columns = ["method_a", "method_b", "mean_difference", "statistic", "pvalue"]
    out = pd.DataFrame(records, columns=columns)
    out["pvalue_holm"] = adjusted
    out["significant"] = reject
    return out


def _compare_one(name, frame, greater_is_better, options, modules):
    alpha, control, tie_correction, zero_method = options
    pd, posthocs, multipletests = modules
    values = frame.to_numpy()
    k, n = values.shape
    oriented = -values if greater_is_better else values  # lower is better
    ranks = stats.rankdata(oriented, axis=0, method="average")
    chi2, p_chi2 = _friedman(values, ranks, tie_correction)
    f_stat, p_f = _iman_davenport(chi2, k, n)
    nemenyi = posthocs.posthoc_nemenyi_friedman(oriented.T)
    nemenyi.index = nemenyi.columns = frame.index
    q_alpha = float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))
    methods = list(frame.index)
    if control is None:
        pairs = list(itertools.combinations(methods, 2))
    else:
        pairs = [(control, m) for m in methods if m != control]
    return CriterionComparison(
        name=name,
        greater_is_better=bool(greater_is_better),
        alpha=alpha,
        scores=frame,
        ranks=pd.DataFrame(ranks, index=frame.index, columns=frame.columns),
        average_ranks=pd.Series(ranks.mean(axis=1), index=frame.index, name=name),
        friedman_statistic=chi2,
        friedman_pvalue=p_chi2,
        iman_davenport_statistic=f_stat,
        iman_davenport_pvalue=p_f,
        nemenyi_pvalues=nemenyi,
        q_alpha=q_alpha,
        critical_difference=q_alpha * float(np.sqrt(k * (k + 1) / (6.0 * n))),
        wilcoxon=_pairwise(
            frame, pairs, lambda x, y: _wilcoxon(x, y, zero_method), alpha, pd, multipletests
        ),
        ttest=_pairwise(frame, pairs, _ttest, alpha, pd, multipletests),
    )


def compare(
    scores,
    *,
    greater_is_better=None,
    alpha=0.1,
    control=None,
    tie_correction=True,
    zero_method="zsplit",
    criterion="score",
):
    """Compare methods over data sets: ranks, Friedman, Nemenyi, Wilcoxon-Holm, t-tests.

    Needs ``mlnb[stats]`` (pandas, statsmodels, scikit-posthocs).

    Parameters
    ----------
    scores : DataFrame, 2-D array, or dict
        A methods x data sets table (rows methods, columns data sets), or a dict
        ``{criterion name: table}`` for several criteria over the same methods.  A dict
        whose values are 1-D (``{method: per-data-set scores}``) is one table.
    greater_is_better : bool or dict, default=None
        Whether higher values are better, for all criteria or per criterion name.
        ``None``: the flag of :data:`mlnb.metrics.METRICS` for registered names, else
        False (losses, lower is better, as the 11 criteria of the dynamic-chains paper).
    alpha : float, default=0.1
        Significance level (the dynamic-chains paper, Trajdos and Kurzynski, uses 0.1).
    control : str, default=None
        Compare this method with each other one (k - 1 Wilcoxon / t-tests) instead of all
        k (k - 1) / 2 pairs; Holm's correction runs over the tests made.
    tie_correction : bool, default=True
        Friedman statistic with scipy's tie correction; False gives Demsar's (2006)
        uncorrected equation, as used for his published figures.
    zero_method : {"zsplit", "wilcox", "pratt"}, default="zsplit"
        Treatment of zero differences in the Wilcoxon test (scipy's option); "zsplit"
        splits their ranks between the two sums, as in Demsar (2006).
    criterion : str, default="score"
        Name of the criterion when ``scores`` is a single table.

    Returns
    -------
    Comparison
    """
    pd = require("pandas", "compare")
    posthocs = require("scikit_posthocs", "compare (Nemenyi test)")
    multitest = require("statsmodels.stats.multitest", "compare (Holm correction)")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}.")
    if zero_method not in ("zsplit", "wilcox", "pratt"):
        raise ValueError(f"zero_method must be 'zsplit', 'wilcox' or 'pratt', got {zero_method!r}.")
    frames = _as_frames(scores, criterion, pd)
    if control is not None and control not in next(iter(frames.values())).index:
        raise ValueError(f"control must be one of the methods, got {control!r}.")
    results = {}
    for name, frame in frames.items():
        if isinstance(greater_is_better, Mapping):
            gib = greater_is_better.get(name)
        else:
            gib = greater_is_better
        if gib is None:
            gib = METRICS[name].greater_is_better if name in METRICS else False
        options = (alpha, control, tie_correction, zero_method)
        modules = (pd, posthocs, multitest.multipletests)
        results[name] = _compare_one(name, frame, gib, options, modules)
    return Comparison(criteria=results, alpha=alpha)
