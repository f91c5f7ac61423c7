"""Each label's own event model, chosen from out-of-fold scores (the defaults' search).

Binary relevance's labels are separate binary problems, so the search may give each its
own smoothing and its own number of features (:class:`~mlnb.events.PerLabel`). Every
candidate that shares the chosen model's statistics has scored the same held-out rows; for
each label the candidate whose scores rank that label's rows best (average precision, which
needs no threshold) is kept, the chosen model where none ranks better or where the label
has too few positive rows to tell (:data:`MIN_POSITIVES`). A label's scores on another
model's scale can rank it badly against the other labels of a row (the label ranking loss),
so each label's change is kept only if it does not add to the held-out ranking loss
(:func:`ranking_safe_choice`). Whether the per-label model is
used at all is judged by the search as a whole (one standard error of micro F1, with its
rule refitted and cross-fitted): see :func:`mlnb.multilabel.resolve_settings`.

Average precision is written here rather than taken from
:func:`mlnb.metrics.average_precision` (which gives the mean over labels, after a sort of
all the scores) because the search needs it label by label, from the sort of each label's
scores it has already made (:class:`~mlnb.decision_rules.SortedScores`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["MIN_POSITIVES", "label_average_precision", "per_label_choice", "ranking_safe_choice"]

#: Labels with fewer positive held-out rows keep the model chosen for all labels: a
#: ranking of two or three positives cannot tell smoothings apart.
MIN_POSITIVES = 10


def label_average_precision(sorted_scores):
    """Each label's average precision over the rows of ``sorted_scores`` (a
    :class:`~mlnb.decision_rules.SortedScores` with truth; its label sort is reused), NaN
    for a label without positive rows. Rows tied in score count in the order of the sort.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.decision_rules import SortedScores
    >>> scores = np.array([[0.9, 0.1], [0.8, 0.7], [0.1, 0.3]])
    >>> truth = np.array([[1, 0], [0, 1], [1, 0]])
    >>> label_average_precision(SortedScores(scores, truth)).round(3).tolist()
    [0.833, 1.0]
    """
    _, positive = sorted_scores.by_label  # (n_labels, n_samples), by decreasing score
    hits = np.cumsum(positive, axis=1, dtype=np.float64)
    precision = hits / np.arange(1, positive.shape[1] + 1)[None, :]
    n_positive = positive.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(positive, precision, 0.0).sum(axis=1) / n_positive


def per_label_choice(precisions, n_positive, base):
    """The candidate of every label: the one of largest average precision
    (``precisions``, candidates x labels), ``base`` (the index of the model chosen for all
    labels) where it is as large, or where the label has fewer than
    :data:`MIN_POSITIVES` positive rows (``n_positive``)."""
    precisions = np.nan_to_num(np.asarray(precisions, dtype=np.float64), nan=-np.inf)
    choice = np.argmax(precisions, axis=0)
    labels = np.arange(precisions.shape[1])
    keep = precisions[choice, labels] <= precisions[base]
    keep |= np.asarray(n_positive) < MIN_POSITIVES
    return np.where(keep, base, choice)


def ranking_safe_choice(choice, base, scores, truth, gains):
    """``choice`` with each label's change of model (away from ``base``) kept only if,
    made on top of the changes kept so far, it does not raise the label ranking loss of
    the held-out rows; labels in decreasing order of ``gains`` (their gain in average
    precision). ``scores``: every candidate's held-out scores (n x L each), ``truth`` their
    0/1 labels. Exact: a change of label l alters only the pairs (l, j) of each row, which
    are counted in one vectorised pass per label (no sort).

    Examples
    --------
    >>> import numpy as np
    >>> truth = np.array([[1, 0], [0, 1]])
    >>> base = np.array([[2.0, 0.0], [0.0, 1.0]])  # ranks both rows right
    >>> worse = np.array([[2.0, 5.0], [0.0, 1.0]])  # label 1 above label 0 in row 0
    >>> ranking_safe_choice(np.array([0, 1]), 0, [base, worse], truth, [0.0, 1.0]).tolist()
    [0, 0]
    """
    truth = np.asarray(truth, dtype=bool)
    current = np.array(scores[base], dtype=np.float64)
    n_relevant = truth.sum(axis=1)
    pairs = n_relevant * (truth.shape[1] - n_relevant)
    weight = np.divide(1.0, pairs, out=np.zeros(len(pairs)), where=pairs > 0)
    choice = np.array(choice)
    for label in np.argsort(-np.asarray(gains), kind="stable"):
        if choice[label] == base:
            continue
        new = np.asarray(scores[choice[label]][:, label], dtype=np.float64)
        old = current[:, label]
        if _misordered(current, truth, label, new, weight) <= _misordered(
            current, truth, label, old, weight
        ):
            current[:, label] = new
        else:
            choice[label] = base
    return choice


def _misordered(scores, truth, label, column, weight):
    """The weighted count of each row's misordered pairs (label, j) with ``label`` scored
    ``column``: a relevant label at or below an irrelevant one (a tie is misordered, as in
    scikit-learn's label ranking loss). The label's own column never counts (its truth is
    the label's), so every column is compared, with no copy of the others."""
    mine = column[:, None]
    relevant = truth[:, label][:, None]
    above = (scores >= mine) & ~truth & relevant  # the label relevant, an irrelevant above
    below = (scores <= mine) & truth & ~relevant  # the label irrelevant, a relevant below
    return float(weight @ (above.sum(axis=1) + below.sum(axis=1)))
