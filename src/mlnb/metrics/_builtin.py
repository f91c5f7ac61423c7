"""The package's named criteria, registered in :data:`~mlnb.metrics.METRICS` and grouped in
:data:`~mlnb.metrics.METRIC_SETS`:

- ``"dynamic_chains"``: the 11 criteria of the dynamic-chains paper (Trajdos and
  Kurzynski, "Dynamic classifier chains for multi-label learning"; all losses, lower is
  better): Hamming, zero-one, example-based FDR, FNR and F1 loss, macro FDR, FNR and
  F1 loss, micro FDR, FNR and F1 loss;
- ``"naibx"``: zero-one, Hamming, accuracy, precision and recall (the NaiBX paper,
  Mossina and Rachelson 2017);
- ``"single_label"``: accuracy and macro precision, recall and F1 (the criteria of the
  Bayesian Naive Bayes paper, Xu 2018);
- ``"text"``: the ``mlnb`` command's criteria of single-label text corpora: accuracy and
  macro and micro precision, recall and F1, named in the set without the ``sl_`` prefix
  (``"accuracy"``, ``"macro_f1"``, ...; see :func:`~mlnb.metrics.get_metric_set`);
- ``"ranking"``: the criteria of label scores (task ``"multilabel_scores"``: the second
  argument is an n x L score or probability matrix, not 0/1 predictions): coverage,
  ranking loss, label ranking average precision (scikit-learn's names), one-error
  (Schapire and Singer 2000), macro and micro ROC AUC and average precision, and log
  loss (the last needs probabilities);
- ``"tuning"``: the fast scores of a decision-rule search (scikit-learn's F1, Jaccard,
  precision and recall with ``zero_division=0``, averaged ``micro``, ``macro``,
  ``samples`` or ``weighted``, and subset accuracy), under the ``scoring`` names of the
  threshold tuner, ``TunedThresholdsCV``: ``"f1_micro"``, ..., and ``"accuracy"`` for
  ``"exact_match"``; :func:`~mlnb.metrics.set_scorer` resolves them.
"""

from __future__ import annotations

from functools import partial

from . import _counts as ct
from . import _multilabel as ml
from . import _ranking as rk
from . import _single_label as sl
from ._registry import register_metric, register_metric_set


def _loss(score, *args, **kwargs):
    return 1.0 - score(*args, **kwargs)


def _multilabel():
    """The multi-label criteria of 0/1 predictions: (name, function, greater is better, label)."""
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
    return specs


def _single_label():
    """The single-label criteria: (name, function, greater is better, label)."""
    return [
        ("sl_accuracy", sl.single_label_accuracy, True, "Accuracy"),
        ("sl_error", partial(_loss, sl.single_label_accuracy), False, "Error"),
        ("sl_macro_precision", sl.single_label_precision, True, "Macro precision"),
        ("sl_macro_recall", sl.single_label_recall, True, "Macro recall"),
        ("sl_macro_f1", sl.single_label_f1, True, "Macro F1"),
        ("sl_macro_f1_loss", partial(_loss, sl.single_label_f1), False, "Macro F1 loss"),
        # for one class per row the micro averages equal accuracy; users look for them
        (
            "sl_micro_precision",
            partial(sl.single_label_precision, average="micro"),
            True,
            "Micro precision",
        ),
        ("sl_micro_recall", partial(sl.single_label_recall, average="micro"), True, "Micro recall"),
        ("sl_micro_f1", partial(sl.single_label_f1, average="micro"), True, "Micro F1"),
    ]


def _ranking():
    """The criteria of label scores: (name, function, greater is better, label)."""
    return [
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


def _tuning():
    """The fast scores of a decision-rule search: (name, function, greater is better, label)."""
    shown = {"f1": "F1", "jaccard": "Jaccard", "precision": "Precision", "recall": "Recall"}
    specs = [
        (f"{kind}_{avg}", partial(ct.set_score, kind, avg), True, f"{shown[kind]} {avg} (sklearn)")
        for kind in ct.SET_KINDS
        for avg in ct.SET_AVERAGES
    ]
    return [*specs, ("exact_match", ct.exact_match, True, "Exact match")]


def _register_builtins():
    for task, specs in (
        ("multilabel", _multilabel()),
        ("single_label", _single_label()),
        ("multilabel_scores", _ranking()),
        ("multilabel", _tuning()),
    ):
        for name, function, gib, label in specs:
            register_metric(name, function, greater_is_better=gib, task=task, label=label)
    register_metric_set(
        "dynamic_chains",
        (
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
    )
    register_metric_set(
        "naibx", ("zero_one", "hamming", "accuracy", "example_precision", "example_recall")
    )
    register_metric_set(
        "single_label", ("sl_accuracy", "sl_macro_precision", "sl_macro_recall", "sl_macro_f1")
    )
    register_metric_set(
        "text",
        {
            name: f"sl_{name}"
            for name in (
                "accuracy",
                "macro_precision",
                "macro_recall",
                "macro_f1",
                "micro_precision",
                "micro_recall",
                "micro_f1",
            )
        },
    )
    register_metric_set("ranking", [name for name, *_ in _ranking()])
    register_metric_set(
        "tuning",
        {
            **{name: name for name, *_ in _tuning() if name != "exact_match"},
            "accuracy": "exact_match",
        },
    )


_register_builtins()
