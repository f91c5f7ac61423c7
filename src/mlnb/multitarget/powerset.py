"""Label powerset over class-valued outputs: one Naive Bayes over the combinations seen.

Each combination of the outputs' classes met in training is one class of a single-label
Naive Bayes (Tsoumakas and Vlahavas 2007 for label sets; MEKA's multi-target LP). The
prediction is the combination of highest posterior; ``predict_proba`` gives each output's
marginal, the sum of the posteriors of the combinations holding each class. A combination
is numbered by its outputs' codes (mixed radix), so that the statistics of batches and
partitions, which may meet different combinations, align by number when they add or
subtract (:class:`CombinationStats`); a combination whose rows are all forgotten is dropped.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import _check_sample_weight

from ..events.categorical import check_pseudo_count, log_categorical, log_sum_exp_rows
from ..stats import GroupStats, NamedStats, one_hot
from ._base import MultiTargetNB, segment_log_sum_exp
from ._targets import target_codes

__all__ = ["CombinationStats", "MultiTargetPowerset"]


def _on_groups(stats, groups):
    """``stats`` with its groups (sorted combination numbers) placed among ``groups``."""
    if np.array_equal(stats.groups, groups):
        return stats
    placed = stats.placed(np.searchsorted(groups, stats.groups), len(groups))
    placed.groups = groups
    return placed


class CombinationStats(NamedStats):
    """Statistics whose ``features`` groups are numbered combinations (``groups``, sorted):
    ``merge`` and ``subtract`` first bring both operands to the union of their groups."""

    def copy(self, *, deep=True) -> CombinationStats:
        return CombinationStats(**NamedStats.copy(self, deep=deep).parts)

    def _combine(self, other, operation):
        mine, theirs = self.parts["features"], other["features"]
        union = np.union1d(mine.groups, theirs.groups)
        self.parts["features"] = _on_groups(mine, union)
        aligned = CombinationStats(**{**other.parts, "features": _on_groups(theirs, union)})
        return super()._combine(aligned, operation)


class MultiTargetPowerset(MultiTargetNB):
    """Naive Bayes over the combinations of class-valued outputs (multi-target label
    powerset).

    Parameters
    ----------
    events : str, EventModel or Auto, default="auto"
        The event model of X (a name such as ``"categorical"``, an object, or a rule).
    prior_alpha : float, default=0.0
        Pseudo-count of the combinations' prior (0: maximum likelihood).

    Attributes
    ----------
    classes_ : list of ndarray
        Every output's sorted classes.
    combinations_ : ndarray of shape (n_combinations, n_outputs)
        The class codes of the combinations seen (one class of the model each).
    class_count_ : ndarray of shape (n_combinations,)

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import MultiTargetPowerset
    >>> X = np.array([[0, 1], [0, 2], [1, 0], [2, 0]])
    >>> Y = np.array([[0, 1], [0, 1], [1, 2], [2, 2]])
    >>> model = MultiTargetPowerset(events="categorical").fit(X, Y)
    >>> model.predict([[0, 1], [2, 0]])
    array([[0, 1],
           [2, 2]])
    >>> len(model.combinations_)
    3
    """

    _statistics_type = CombinationStats

    def __init__(self, *, events="auto", prior_alpha=0.0):
        self.events = events
        self.prior_alpha = prior_alpha

    def _statistics(self, events, X, Y, classes, sample_weight):
        sizes = [len(c) for c in classes]
        if np.prod(sizes, dtype=float) >= 2.0**62:
            raise ValueError(
                f"{type(self).__name__}: the outputs' classes make more than 2**62 "
                "combinations, too many to number"
            )
        codes = target_codes(Y, classes, caller=type(self).__name__)
        numbers = np.ravel_multi_index(tuple(codes.T), sizes)
        combinations, index = np.unique(numbers, return_inverse=True)
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        prepared = events.prepare(X, caller=type(self).__name__)
        features = GroupStats.from_data(
            prepared,
            one_hot(index.ravel(), len(combinations)),
            weight,
            second_moments=events.second_moments,
        )
        features.groups = combinations
        return CombinationStats(features=features, pairs=None)

    def _install(self, classes, stats, events):
        features = stats["features"]
        seen = features.count > 0
        if not seen.any():
            raise ValueError(
                f"{type(self).__name__}: no row is left (every row forgotten, or of weight 0): "
                "there is no combination to predict"
            )
        if not seen.all():  # combinations whose rows were all forgotten
            groups = features.groups[seen]
            features = features.select_groups(seen)
            features.groups = groups
        self.classes_ = classes if self.outputs_2d_ else classes[0]
        self.n_outputs_ = len(classes)
        self.feature_stats_, self.pair_stats_ = features, None
        self.events_ = events
        sizes = np.array([len(c) for c in classes])
        self.offsets_ = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
        self.combinations_ = np.column_stack(np.unravel_index(features.groups, sizes))
        self.params_ = events.estimate(features)
        self.class_count_ = features.count
        alpha = check_pseudo_count(self.prior_alpha)
        self.class_log_prior_ = log_categorical(
            features.count, features.total_count, len(features.count), alpha
        )

    def _codes(self, joint):
        return self.combinations_[joint.argmax(axis=1)]

    def _log_posteriors(self, joint):
        """Each output's marginal ``log P(y_j = c | x)``: the log-sum-exp of the
        combinations' log posteriors, grouped by the class they give output j (in log space:
        a marginal far below the others stays finite)."""
        log_posterior = joint - log_sum_exp_rows(joint)
        out = np.full((joint.shape[0], self.offsets_[-1]), -np.inf)
        for j in range(self.n_outputs_):  # outputs are few; each is one grouped reduction
            codes = self.combinations_[:, j]
            order = np.argsort(codes, kind="stable")
            present, starts = np.unique(codes[order], return_index=True)
            offsets = np.append(starts, len(order))
            out[:, self.offsets_[j] + present] = segment_log_sum_exp(
                log_posterior[:, order], offsets
            )
        return out
