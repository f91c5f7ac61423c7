"""Evaluation: cross-validation runs with timings, statistical comparison, plots, tables.

- :func:`cross_validate`: k-fold or holdout runs of any ``fit``/``predict`` estimator,
  the criteria of :mod:`mlnb.metrics` per fold plus T_train and T_test (seconds);
  optional iterative stratification of multi-label targets; ranking criteria of label
  scores; multi-target class matrices scored by the ``"multi_target"`` criteria; a
  :class:`DegeneratePredictionWarning` when a model predicts no label or almost every
  label out of fold.
- :func:`compare`: average ranks, Friedman and Iman-Davenport tests, Nemenyi post-hoc test
  and critical difference, Wilcoxon signed-rank and paired t-tests with Holm's correction
  (Demsar 2006); tables as Markdown, LaTeX and CSV; critical-difference diagram and radar
  plot as PNG and SVG; :func:`format_report`, the comparison as text or Markdown a person
  can read, with :func:`criterion_label`, the one display name of each criterion;
  :func:`write_comparison`, every file of a comparison (what ``mlnb compare`` writes).
- :func:`prequential`: test-then-train evaluation over a stream of batches, with running
  and windowed criteria and throughput; :func:`plot_prequential` draws them.
- :func:`run_folds`: a resumable, parallel run of methods x data sets x folds into one CSV,
  with a deadline, failing folds recorded (:class:`Failure`) and :func:`fit_and_score`.
- :func:`best_time`: the best wall and CPU time of repeated calls (``mlnb bench`` and the
  benchmark scripts).

Only numpy, scipy and scikit-learn are needed to import this package; ``compare`` and
iterative stratification need ``mlnb[stats]``, the plots ``mlnb[plot]``.
"""

from ._cross_validation import CVResult, DegeneratePredictionWarning, cross_validate
from ._plots import plot_critical_difference, plot_radar
from ._prequential import PrequentialResult, plot_prequential, prequential
from ._report import criterion_label, format_report, wilcoxon_can_reject, wilcoxon_summary
from ._runner import Failure, fit_and_score, run_folds
from ._statistics import Comparison, CriterionComparison, compare
from ._tables import format_table
from ._timing import Timing, best_time
from ._written import ComparisonFiles, write_comparison

__all__ = [
    "CVResult",
    "Comparison",
    "ComparisonFiles",
    "CriterionComparison",
    "DegeneratePredictionWarning",
    "Failure",
    "PrequentialResult",
    "Timing",
    "best_time",
    "compare",
    "criterion_label",
    "cross_validate",
    "fit_and_score",
    "format_report",
    "format_table",
    "plot_critical_difference",
    "plot_prequential",
    "plot_radar",
    "prequential",
    "run_folds",
    "wilcoxon_can_reject",
    "wilcoxon_summary",
    "write_comparison",
]
