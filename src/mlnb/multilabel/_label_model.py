"""Per-label Naive Bayes statistics, shared by binary relevance and every chain.

For L labels, one pass builds the additive statistics of every label and of every ordered
label pair (what the dynamic classifier chains of Trajdos and Kurzynski train once):

- ``features``: :class:`~mlnb.stats.GroupStats` of X grouped by Y (the rows holding each
  label); the rows *not* holding it are ``features.complement()``;
- ``labels``: the same statistics of Y itself grouped by Y, i.e. the weighted
  co-occurrences ``C = Y.T @ Y``, from which ``P(y_j | y_k = 1)`` and ``P(y_j | y_k = 0)``
  of every ordered pair follow (Bernoulli, Laplace-smoothed).

Everything a Naive Bayes chain needs in any label order is then a matrix of per-label
log-odds from the features (``feature_log_odds``) plus two L x L matrices from the labels
(``label_log_odds``): no refit for a new order.

*Large label spaces.* Where labels x features exceeds :data:`COMPACT_ENTRIES` and the
event model has a compact form (multinomial, Bernoulli), the feature statistics keep
their sums sparse and the log-odds are computed from
:class:`~mlnb.events.compact.CompactLogOdds`: memory in the (label, feature) pairs seen.
The first batch decides (a model grown from dense statistics stays dense).
"""

from __future__ import annotations

import numpy as np

from ..events import Bernoulli
from ..events.categorical import check_pseudo_count
from ..events.compact import CompactLogOdds
from ..stats import GroupStats

__all__ = [
    "COMPACT_ENTRIES",
    "LABEL_PRIORS",
    "feature_log_odds",
    "label_log_odds",
    "label_pairs_with_unknown",
    "label_statistics",
    "log_prior_odds",
    "unknown_parts",
    "unknown_statistics",
]


#: Labels x features above which a count model's statistics are kept compact (2**24: a
#: dense table of 128 MB; no benchmark set of ../shared/data reaches it).
COMPACT_ENTRIES = 1 << 24


def keeps_compact(events, X, n_labels) -> bool:
    """Whether the feature statistics of X under ``n_labels`` labels are kept compact:
    an event model with a compact form for its smoothing (``has_compact_form``) and more
    than :data:`COMPACT_ENTRIES` label-feature pairs (X, dense or sparse, then enters as
    CSR)."""
    n_features = X.shape[1]
    return (
        n_labels * n_features > COMPACT_ENTRIES
        and not events.second_moments
        and hasattr(events, "has_compact_form")
        and events.has_compact_form(n_features)
    )


def label_statistics(X, Y, sample_weight, events, *, with_labels=True):
    """(feature statistics, label statistics) of one batch; X already prepared."""
    features = GroupStats.from_data(
        X,
        Y,
        sample_weight,
        second_moments=events.second_moments,
        compact=keeps_compact(events, X, Y.shape[1]),
    )
    labels = None
    if with_labels:
        labels = GroupStats.from_data(Y, Y, sample_weight, second_moments=False)
    return features, labels


def unknown_statistics(X, unknown, sample_weight, events):
    """The feature statistics of each label's rows where the label is unknown (``unknown``:
    the 0/1 matrix of unknown cells, :func:`mlnb.labels.split_unknown`); X prepared.

    A label's negative rows are then the complement of its positive and of these rows
    (``features.complement(unknown)``) and its prior counts its known rows only: each
    label is learnt from the rows where it is known, exactly as a fit on those rows.
    """
    if keeps_compact(events, X, unknown.shape[1]):
        raise ValueError(
            f"unknown label cells with {unknown.shape[1]} labels x {X.shape[1]} features "
            f"(more than {COMPACT_ENTRIES}: compact statistics) are not supported; fit the "
            "labels in groups, or fill the unknown cells"
        )
    return GroupStats.from_data(X, unknown, sample_weight, second_moments=events.second_moments)


def label_pairs_with_unknown(given, labels, unknown, sample_weight):
    """The label-pair statistics of a batch with unknown cells, and the same statistics of
    each label's rows where it is unknown: Y (``given``, NaN at the unknown cells) grouped
    by its positive cells (``labels``) and by its unknown cells (``unknown``). A label that
    is unknown in a row is a missing feature there (its ``observed`` count leaves the row
    out), so that each label's terms for the others come from the rows where both are
    known: a chain's label k learns from the rows where k is known, the other labels
    entering as features where they are known (the missing-value semantics of
    :mod:`mlnb.missing`).
    """
    pairs = GroupStats.from_data(given, labels, sample_weight, second_moments=False)
    rest = GroupStats.from_data(given, unknown, sample_weight, second_moments=False)
    return pairs, rest


def unknown_parts(stats):
    """The parts of a NamedStats over unknown cells, as keyword arguments (None if absent)."""
    return {"unknown": stats["unknown"], "unknown_labels": stats["unknown_labels"]}


def log_prior_odds(count, total, alpha):
    """``log P(y=1) - log P(y=0)`` with ``P(y=1) = (N_l + alpha) / (N + 2 alpha)``.

    ``alpha = 0`` is the maximum-likelihood prior (scikit-learn's); a label never (always)
    seen then gets -inf (+inf).
    """
    alpha = check_pseudo_count(alpha)
    with np.errstate(divide="ignore"):
        return np.log(count + alpha) - np.log(total - count + alpha)


def feature_log_odds(events, features, X, *, params=None):
    """``log p(x | y_l = 1) - log p(x | y_l = 0)`` for every row and label, (n x L).

    ``events`` scores the prepared rows X as the estimator's option says (bound by
    :func:`mlnb.events.bind_missing`); ``params`` may carry cached ``(positive,
    negative)`` event-model parameters.
    """
    if params is None:
        params = feature_parameters(events, features)
    if isinstance(params, CompactLogOdds):
        return params.score(X)
    positive, negative = params
    return events.score_ratio(positive, negative, X)


def feature_parameters(events, features, negative=None, known=None):
    """Event-model parameters of the label-holding and of the other rows, per label; for
    compact statistics, their :class:`~mlnb.events.compact.CompactLogOdds` instead.

    ``negative``: statistics of the rows taken as not holding each label, when they are
    not simply all the others (e.g. after undersampling); by default the complement.
    ``known``: statistics whose group l holds the rows where label l is known (unknown
    cells): label l's model then takes them as its totals (e.g. the Gaussian's variance
    floor from the largest variance over those rows), through the event model's
    ``estimate_stacked``; a model without that form reads the totals of every row.
    """
    if negative is None and features.compact and hasattr(events, "compact_log_odds"):
        odds = events.compact_log_odds(features)
        if odds is not None:
            return odds
    negative = features.complement() if negative is None else negative
    if known is not None:
        label = np.arange(features.n_groups)
        positive = events.estimate_stacked(features, known, label)
        if positive is not None:
            return positive, events.estimate_stacked(negative, known, label)
    return events.estimate(features), events.estimate(negative)


LABEL_PRIORS = ("uniform", "marginal")


def label_log_odds(labels, alpha=1.0, negative=None, prior="uniform"):
    """Pairwise label terms of a Naive Bayes chain, each (L x L), indexed [k, j].

    ``weight[k, j] * y_j + absent[k, j]`` is what a decided label ``y_j`` adds to
    ``log P(y_k = 1 | ...) - log P(y_k = 0 | ...)``: a Bernoulli feature of the classifier of
    label k, smoothed with ``alpha`` pseudo-counts per value towards a prior: ``P(y_j = 1 |
    y_k = v) = (C + 2 alpha p_j) / (N + 2 alpha)``, with ``p_j = 1/2`` (``prior="uniform"``:
    Laplace) or the label's own frequency (``"marginal"``: the m-estimate of Cestnik 1990
    with m = 2 alpha, Laplace-smoothed frequency). With the marginal prior a large alpha
    takes every term to 0: the chain tends to binary relevance, so ``alpha`` sets how much
    the chain's labels say about each other. The diagonal is zero: a label is never a
    feature of itself. ``negative`` as in :func:`feature_parameters`. With the groups of
    several chains stacked (group ``c * L + k``: label k of chain c), the terms are stacked
    the same way, shape (n_chains * L) x L, each chain's diagonal zero.
    """
    if prior not in LABEL_PRIORS:
        raise ValueError(f"label_prior must be one of {LABEL_PRIORS}; got {prior!r}")
    negative = labels.complement() if negative is None else negative
    if prior == "uniform":
        model = Bernoulli(alpha=alpha, binarize=None)
        positive, negative = model.estimate(labels), model.estimate(negative)
        weight = positive.log_odds - negative.log_odds
        absent = positive.log_absent - negative.log_absent
    else:
        weight, absent = _marginal_prior_terms(labels, negative, check_pseudo_count(alpha))
    group = np.arange(labels.n_groups)  # group c * L + k is label k (of chain c)
    weight[group, group % labels.n_features] = 0.0
    absent[group, group % labels.n_features] = 0.0
    return weight, absent


def _marginal_prior_terms(positive, negative, alpha):
    """``(weight, absent)`` of :func:`label_log_odds` with the marginal prior."""
    ones_1, rows_1 = positive.sums, positive.feature_count  # (rows where y_j is known)
    ones_0, rows_0 = negative.sums, negative.feature_count
    frequency = (ones_1 + ones_0 + 1.0) / (rows_1 + rows_0 + 2.0)  # each group's p_j

    def smoothed(ones, rows):
        total = rows + 2.0 * alpha
        with np.errstate(invalid="ignore", divide="ignore"):
            p = (ones + 2.0 * alpha * frequency) / total
        return np.clip(np.where(total > 0, p, frequency), 1e-300, 1.0 - 1e-16)

    p_1, p_0 = smoothed(ones_1, rows_1), smoothed(ones_0, rows_0)
    absent = np.log1p(-p_1) - np.log1p(-p_0)
    weight = np.log(p_1) - np.log(p_0) - absent
    return weight, absent
