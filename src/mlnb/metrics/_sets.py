"""The named sets of criteria, in :data:`~mlnb.metrics.METRIC_SETS` (each criterion is
registered in :data:`~mlnb.metrics.METRICS` by the module that defines it):

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
- ``"multi_target"``: MEKA's criteria of multi-target predictions (task
  ``"multi_target"``: n x L class values of any dtype): exact match, Hamming score,
  Hamming loss and zero-one loss (``"mt_exact_match"``, ...; per-target accuracy, one
  value per output, is the function :func:`~mlnb.metrics.multi_target_accuracy`);
- ``"extreme"``: the top-k criteria of large label spaces (Extreme Classification
  Repository), on scores too: precision and nDCG at 1, 3 and 5;
- ``"tuning"``: the fast scores of a decision-rule search (scikit-learn's F1, Jaccard,
  precision and recall with ``zero_division=0``, averaged ``micro``, ``macro``,
  ``samples`` or ``weighted``, and subset accuracy), under the ``scoring`` names of the
  threshold tuner, ``TunedThresholdsCV``: ``"f1_micro"``, ..., and ``"accuracy"`` for
  ``"exact_match"``; :func:`~mlnb.metrics.set_scorer` resolves them.
"""

from __future__ import annotations

from . import (  # noqa: F401  (they register theirs)
    _at_k,
    _multi_target,
    _multilabel,
    _ranking,
    _single_label,
)
from ._counts import SET_AVERAGES, SET_KINDS
from ._registry import METRICS, register_metric_set


def _register_sets():
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
    top_k = [f"{kind}_at_{k}" for kind in ("precision", "ndcg") for k in (1, 3, 5)]
    register_metric_set(
        "ranking",
        [n for n, m in METRICS.items() if m.task == "multilabel_scores" and n not in top_k],
    )
    register_metric_set("extreme", top_k)
    register_metric_set(
        "multi_target",
        ("mt_exact_match", "mt_hamming_score", "mt_hamming_loss", "mt_zero_one_loss"),
    )
    register_metric_set(
        "tuning",
        {
            **{f"{kind}_{avg}": f"{kind}_{avg}" for kind in SET_KINDS for avg in SET_AVERAGES},
            "accuracy": "exact_match",
        },
    )


_register_sets()
