"""Evaluation criteria of the papers, as losses and scores.

Multi-label inputs are n x L indicator matrices ``Y_true`` and ``Y_pred``: dense arrays
of any integer or boolean dtype, or scipy sparse matrices/arrays, all with the same
result; sparse inputs stay sparse.  Every function is vectorised over instances and
labels.

**The 0/0 convention** (one rule, everywhere; Mulan's ``InformationRetrievalMeasures``):
when a ratio has a zero denominator, its value is **1 if the true set and the predicted
set are both empty** (the instance, label or class is perfectly right) and **0
otherwise**.  So an instance with no true and no predicted labels has precision =
recall = F1 = Jaccard = 1; an empty prediction against a non-empty truth has precision
0, a non-empty prediction against an empty truth has recall 0.  FDR = 1 - precision and
FNR = 1 - recall inherit it; F1 and Jaccard are 0/0 only when both sets are empty.

Relation to scikit-learn: ``hamming_loss``, ``zero_one_loss`` and ``subset_accuracy``
equal scikit-learn's; ``f1_score`` and ``jaccard_score`` equal scikit-learn's with
``zero_division=1.0`` for every ``average``; ``precision_score`` and ``recall_score``
equal scikit-learn's ``zero_division=0.0`` values except that both-empty units score 1
(scikit-learn's single ``zero_division`` value cannot express the rule above).

Ranking criteria of n x L label *scores* (higher = more likely) rather than 0/1
predictions: ``coverage_error``, ``label_ranking_loss`` and
``label_ranking_average_precision_score`` (equal to scikit-learn's), ``one_error``,
``roc_auc``, ``average_precision`` (macro or micro) and ``log_loss`` (of probabilities);
their docstrings state how ties, empty rows and constant labels count. **Unknown cells**
of ``Y_true`` (NaN, stored NaN of a sparse matrix, masked cells) are skipped by every
criterion of 0/1 predictions and of scores: a row or label counts its known cells only.
Top-k criteria of large label spaces (``precision_at_k``, ``ndcg_at_k``, ``psprecision_at_k`` with
``label_propensities``) take dense scores or a sparse matrix of each row's top scores.

Multi-target criteria (MEKA's, for n x L matrices of class *values* of any dtype, e.g.
integers or strings, one column per output with two or more classes; a pandas DataFrame
too): ``multi_target_accuracy`` (per-target accuracy, one value per output, equal to
scikit-learn's ``accuracy_score`` of each column), ``multi_target_hamming_score`` (their
mean: the share of right cells), ``multi_target_exact_match`` (the share of rows with
every output right), ``multi_target_hamming_loss`` and ``multi_target_zero_one_loss``
(one minus those); all take ``sample_weight``. Every cell must hold a class value (NaN,
None and masked cells are refused). They are registered under task ``"multi_target"`` as
``"mt_exact_match"``, ``"mt_hamming_score"``, ``"mt_hamming_loss"`` and
``"mt_zero_one_loss"``, the set ``"multi_target"``.

Named criteria (the 11 losses of the dynamic-chains paper, Trajdos and Kurzynski, the
scores, the single-label ones, the ranking ones, the multi-target ones, the fast scores of
a decision-rule search) are in ``METRICS`` and ``METRIC_SETS``, the one registry that
evaluation, the tuner and the ``mlnb`` command read; see :func:`get_metrics`,
:func:`get_metric_set` and :func:`set_scorer`. :func:`register_metric` adds a criterion
(also as a decorator)::

    @register_metric("my_score", greater_is_better=True, task="multilabel")
    def my_score(Y_true, Y_pred): ...

This package is a leaf: it imports nothing else of mlnb.
"""

from . import _sets  # noqa: F401  (the criteria register where defined; _sets names groups)
from ._at_k import (
    label_propensities,
    ndcg_at_k,
    precision_at_k,
    psprecision_at_k,
    top_k_labels,
)
from ._multi_target import (
    multi_target_accuracy,
    multi_target_exact_match,
    multi_target_hamming_loss,
    multi_target_hamming_score,
    multi_target_zero_one_loss,
)
from ._multilabel import (
    f1_score,
    fdr,
    fnr,
    hamming_loss,
    jaccard_score,
    precision_score,
    recall_score,
    subset_accuracy,
    zero_one_loss,
)
from ._ranking import (
    average_precision,
    coverage_error,
    label_ranking_average_precision_score,
    label_ranking_loss,
    log_loss,
    one_error,
    roc_auc,
)
from ._registry import (
    METRIC_SETS,
    METRICS,
    Metric,
    get_metric_set,
    get_metrics,
    register_metric,
    register_metric_set,
    set_scorer,
)
from ._single_label import (
    single_label_accuracy,
    single_label_f1,
    single_label_precision,
    single_label_recall,
)

__all__ = [
    "METRICS",
    "METRIC_SETS",
    "Metric",
    "average_precision",
    "coverage_error",
    "f1_score",
    "fdr",
    "fnr",
    "get_metric_set",
    "get_metrics",
    "hamming_loss",
    "jaccard_score",
    "label_propensities",
    "label_ranking_average_precision_score",
    "label_ranking_loss",
    "log_loss",
    "multi_target_accuracy",
    "multi_target_exact_match",
    "multi_target_hamming_loss",
    "multi_target_hamming_score",
    "multi_target_zero_one_loss",
    "ndcg_at_k",
    "one_error",
    "precision_at_k",
    "precision_score",
    "psprecision_at_k",
    "top_k_labels",
    "recall_score",
    "register_metric",
    "register_metric_set",
    "roc_auc",
    "set_scorer",
    "single_label_accuracy",
    "single_label_f1",
    "single_label_precision",
    "single_label_recall",
    "subset_accuracy",
    "zero_one_loss",
]
