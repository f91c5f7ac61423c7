"""Registry of named criteria, so that evaluation and the CLI can ask for them by name.

``METRICS`` maps a name to a :class:`Metric` (its function, whether greater is better,
and whether it scores multi-label 0/1 predictions, multi-label label scores or
single-label class vectors).
``METRIC_SETS`` names groups of criteria used by the papers:

- ``"dynamic_chains"``: the 11 criteria of the dynamic-chains paper (Trajdos and
  Kurzynski, "Dynamic classifier chains for multi-label learning"; all losses, lower is
  better): Hamming, zero-one, example-based FDR, FNR and F1 loss, macro FDR, FNR and
  F1 loss, micro FDR, FNR and F1 loss;
- ``"naibx"``: zero-one, Hamming, accuracy, precision and recall (the NaiBX paper,
  Mossina and Rachelson 2017);
- ``"single_label"``: accuracy and macro precision, recall and F1 (the criteria of the
  Bayesian Naive Bayes paper, Xu 2018);
- ``"ranking"``: the criteria of label scores (task ``"multilabel_scores"``: the second
  argument is an n x L score or probability matrix, not 0/1 predictions): coverage,
  ranking loss, label ranking average precision (scikit-learn's names), one-error
  (Schapire and Singer 2000), macro and micro ROC AUC and average precision, and log
  loss (the last needs probabilities).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial

from . import _multilabel as ml
from . import _ranking as rk
from . import _single_label as sl

__all__ = ["METRICS", "METRIC_SETS", "Metric", "get_metrics"]


@dataclass(frozen=True)
class Metric:
    """A named criterion.

    Attributes
    ----------
    name : str
        Registry key.
    function : callable
        ``function(y_true, y_pred) -> float``.
    greater_is_better : bool
        True for scores, False for losses.
    task : {"multilabel", "multilabel_scores", "single_label"}
        What the function scores: multi-label 0/1 predictions, multi-label label scores
        (``y_pred`` is an n x L matrix of real scores, higher = more likely; log loss
        needs probabilities), or single-label class vectors.
    label : str
        Short display name for tables and plots.
    """

    name: str
    function: Callable
    greater_is_better: bool
    task: str
    label: str

    def __call__(self, y_true, y_pred):
        return self.function(y_true, y_pred)


def _loss(score, *args, **kwargs):
    return 1.0 - score(*args, **kwargs)


def _build():
    specs = [
        ("hamming", ml.hamming_loss, False, "Hamming"),
        ("zero_one", ml.zero_one_loss, False, "Zero-One"),
    ]
    groups = (
        ("samples", "example", "EX"),
        ("macro", "macro", "Macro"),
        ("micro", "micro", "Micro"),
    )
    for avg, prefix, tag in groups:
        specs += [
            (f"{prefix}_fdr", partial(ml.fdr, average=avg), False, f"{tag} FDR"),
            (f"{prefix}_fnr", partial(ml.fnr, average=avg), False, f"{tag} FNR"),
            (
                f"{prefix}_f1_loss",
                partial(_loss, ml.f1_score, average=avg),
                False,
                f"{tag} F1 loss",
            ),
            (
                f"{prefix}_precision",
                partial(ml.precision_score, average=avg),
                True,
                f"{tag} precision",
            ),
            (f"{prefix}_recall", partial(ml.recall_score, average=avg), True, f"{tag} recall"),
            (f"{prefix}_f1", partial(ml.f1_score, average=avg), True, f"{tag} F1"),
        ]
    specs += [
        ("accuracy", ml.jaccard_score, True, "Accuracy"),
        ("subset_accuracy", ml.subset_accuracy, True, "Subset accuracy"),
    ]
    registry = {name: Metric(name, f, gib, "multilabel", lab) for name, f, gib, lab in specs}
    single = [
        ("sl_accuracy", sl.single_label_accuracy, True, "Accuracy"),
        ("sl_error", partial(_loss, sl.single_label_accuracy), False, "Error"),
        ("sl_macro_precision", sl.single_label_precision, True, "Macro precision"),
        ("sl_macro_recall", sl.single_label_recall, True, "Macro recall"),
        ("sl_macro_f1", sl.single_label_f1, True, "Macro F1"),
        ("sl_macro_f1_loss", partial(_loss, sl.single_label_f1), False, "Macro F1 loss"),
    ]
    registry.update(
        {name: Metric(name, f, gib, "single_label", lab) for name, f, gib, lab in single}
    )
    ranking = [
        ("coverage_error", rk.coverage_error, False, "Coverage"),
        ("label_ranking_loss", rk.label_ranking_loss, False, "Ranking loss"),
        (
            "label_ranking_average_precision_score",
            rk.label_ranking_average_precision_score,
            True,
            "LRAP",
        ),
        ("one_error", rk.one_error, False, "One-error"),
        ("macro_roc_auc", partial(rk.roc_auc, average="macro"), True, "Macro AUC"),
        ("micro_roc_auc", partial(rk.roc_auc, average="micro"), True, "Micro AUC"),
        (
            "macro_average_precision",
            partial(rk.average_precision, average="macro"),
            True,
            "Macro AP",
        ),
        (
            "micro_average_precision",
            partial(rk.average_precision, average="micro"),
            True,
            "Micro AP",
        ),
        ("log_loss", rk.log_loss, False, "Log loss"),
    ]
    registry.update(
        {name: Metric(name, f, gib, "multilabel_scores", lab) for name, f, gib, lab in ranking}
    )
    return registry


METRICS: dict[str, Metric] = _build()

METRIC_SETS: dict[str, tuple[str, ...]] = {
    "dynamic_chains": (
        "hamming",
        "zero_one",
        "example_fdr",
        "example_fnr",
        "example_f1_loss",
        "macro_fdr",
        "macro_fnr",
        "macro_f1_loss",
        "micro_fdr",
        "micro_fnr",
        "micro_f1_loss",
    ),
    "naibx": ("zero_one", "hamming", "accuracy", "example_precision", "example_recall"),
    "single_label": ("sl_accuracy", "sl_macro_precision", "sl_macro_recall", "sl_macro_f1"),
    "ranking": (
        "coverage_error",
        "label_ranking_loss",
        "label_ranking_average_precision_score",
        "one_error",
        "macro_roc_auc",
        "micro_roc_auc",
        "macro_average_precision",
        "micro_average_precision",
        "log_loss",
    ),
}


def get_metrics(names, *, task=None):
    """Resolve metric names or set names to an ordered ``{name: Metric}`` dict.

    Parameters
    ----------
    names : str or iterable of str
        Metric names of ``METRICS`` and/or set names of ``METRIC_SETS``.
    task : {"multilabel", "multilabel_scores", "single_label"}, default=None
        If given, every metric must score this target type (see :attr:`Metric.task`).

    Returns
    -------
    dict of str to Metric
    """
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, Iterable):
        raise ValueError(f"metrics must be a name or a list of names, got {names!r}.")
    out = {}
    for name in names:
        if name in METRIC_SETS:
            out.update((n, METRICS[n]) for n in METRIC_SETS[name])
        elif name in METRICS:
            out[name] = METRICS[name]
        else:
            raise ValueError(
                f"metrics: unknown name {name!r}; known sets "
                f"{sorted(METRIC_SETS)}, "
                f"known metrics {sorted(METRICS)}."
            )
    if not out:
        raise ValueError("metrics must name at least one metric.")
    if task is not None:
        wrong = [n for n, m in out.items() if m.task != task]
        if wrong:
            raise ValueError(f"metrics {wrong} do not score {task} targets.")
    return out
