"""The complement Naive Bayes event model (Rennie et al. 2003).

A group's word weights come from the counts of the rows *outside* it, which are many more
than its own when the groups are many or unbalanced (text categories)::

    theta_cv = (N_v - n_cv + alpha) / sum_u (N_u - n_cu + alpha)      (complement counts)
    w_cv     = -log theta_cv,   or with ``norm``  log theta_cv / sum_u log theta_cu
    score(x, c) = sum_v x_v w_cv

with ``N_v`` the total count of word v over all rows (``stats.total_sums``) and ``n_cv``
the group's. A group's score is high when its complement explains the row badly. As in
scikit-learn's ComplementNB the score is a weighting, not a normalised likelihood: the
single-label classifier ignores the class prior (it only matters with one class).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._base import EventModel, Parameters, check_counts, non_negative, transposed_difference

__all__ = ["Complement", "ComplementParameters"]

# alpha = 0 would give log(0) for a word present in every row: floored as the multinomial.
_MIN_SMOOTHING = 1e-10


@dataclass
class ComplementParameters(Parameters):
    """``weights``: the word weights ``w_cv`` of every group, (n_groups x n_features)."""

    weights: np.ndarray

    per_feature = ("weights",)


class Complement(EventModel):
    """Complement Naive Bayes weights (Rennie et al. 2003, section 3.2 and, with ``norm``,
    the weight normalisation of section 4.1).

    Parameters
    ----------
    alpha : float or ndarray of shape (n_features,), default=1.0
        Additive smoothing of the complement counts.
    norm : bool, default=False
        Normalise each group's weights by their sum (Rennie et al.'s weight normalisation).

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import MixedNB
    >>> from mlnb.events import Complement
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 4, 1], [0, 3, 2]])
    >>> MixedNB(blocks=[(Complement(), slice(None))]).fit(X, [0, 0, 1, 1]).predict([[1, 0, 0]])
    array([0])
    """

    name = "complement"
    input_kind = "counts"
    zero_features_silent = True

    def __init__(self, alpha=1.0, norm=False):
        self.alpha = alpha
        self.norm = norm

    def prepare(self, X, *, caller="this model"):
        return check_counts(X, caller, "complement")

    def estimate(self, stats):
        return self._weights(stats, stats.total_sums[None, :])

    def estimate_stacked(self, stats, totals, member):
        """Each group's complement within its own model's rows (group ``member[g]`` of
        ``totals``)."""
        return self._weights(stats, np.asarray(totals.sums)[member])

    def _weights(self, stats, total_sums):
        alpha = non_negative(self.alpha, "alpha", floor=_MIN_SMOOTHING)
        complement = total_sums - stats.sums
        np.maximum(complement, 0.0, out=complement)  # rounding of total minus group
        complement += alpha
        logged = np.log(complement) - np.log(complement.sum(axis=1, keepdims=True))
        if self.norm:
            return ComplementParameters(logged / logged.sum(axis=1, keepdims=True))
        return ComplementParameters(-logged)

    def estimate_columns(self, stats, columns):
        # the weights of a word depend on every word's counts (the normalisations)
        return ComplementParameters(self.estimate(stats).weights[:, columns])

    def zero_terms(self, params):
        """Zeros: an absent (or missing) count adds nothing to a group's score."""
        return np.zeros_like(params.weights)

    def score(self, params, X):
        return np.asarray(X @ params.weights.T)

    def score_ratio(self, params_a, params_b, X):
        return np.asarray(X @ transposed_difference(params_a.weights, params_b.weights))
