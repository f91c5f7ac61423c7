"""Per-label feature selection by the chi-squared statistic, as an event model.

Where many features say nothing about a label (a bibliography's 1,836 words against one
tag), a Naive Bayes model adds their noise to every log-odds. :class:`ChiSquaredSelection`
keeps, for each binary problem (a label against its other rows), the ``k`` features whose
chi-squared statistic against the label is largest, and silences the others (they add
nothing to the log-odds: :meth:`~mlnb.events.EventModel.silence`). The statistic is that of
scikit-learn's ``chi2`` (Yang and Pedersen 1997 for text), computed from the statistics the
model is fitted to, so no pass over the data is needed and fold subtraction gives each
fold's selection from its own training rows:

    chi2_lf = sum over the two groups g of (O_gf - E_gf)^2 / E_gf,

with ``O_gf`` the sum of feature f over the rows of group g and ``E_gf`` that sum over all
rows times the share of rows in g. Non-negative features only (counts, 0/1, TF-IDF).

Selection is a property of a pair of groups, so it applies where a model scores log-odds
(``score_ratio``: binary relevance, the label stage of NaiBX, iMLNB, the chains' feature
terms); ``score`` of one group alone is the wrapped model's, unselected.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _compiled
from ._base import EventModel, Parameters, pair_table

__all__ = ["ChiSquaredSelection", "SelectedParameters", "chi_squared"]


def chi_squared(sums_a, count_a, sums_b, count_b):
    """The chi-squared statistic of every feature against the split of rows into groups a
    and b, one row per pair of groups: ``sums_*`` (n_groups x n_features) feature sums,
    ``count_*`` (n_groups,) rows (weights). A feature never non-zero scores 0."""
    sums_a, sums_b = np.asarray(sums_a, dtype=np.float64), np.asarray(sums_b, dtype=np.float64)
    count_a = np.asarray(count_a, dtype=np.float64)[:, None]
    count_b = np.asarray(count_b, dtype=np.float64)[:, None]
    n_groups = sums_a.shape[0] if sums_a.ndim == 2 else -1
    same = sums_a.shape == sums_b.shape and len(count_a) == len(count_b) == n_groups
    if _compiled.enabled() and same:
        return _chi_squared_kernel(sums_a, count_a[:, 0], sums_b, count_b[:, 0])
    total = sums_a + sums_b
    rows = np.maximum(count_a + count_b, 1e-300)
    statistic = np.zeros(total.shape)
    for observed, count in ((sums_a, count_a), (sums_b, count_b)):
        expected = total * (count / rows)
        np.add(
            statistic,
            np.divide(
                (observed - expected) ** 2,
                expected,
                out=np.zeros_like(expected),
                where=expected > 0,
            ),
            out=statistic,
        )
    return statistic


@_compiled.kernel
def _chi_squared_kernel(sums_a, count_a, sums_b, count_b):
    """:func:`chi_squared`'s arithmetic entry by entry, in its order (the same values bit
    for bit) without its seven (groups x features) temporaries."""
    n_groups, n_features = sums_a.shape
    statistic = np.empty((n_groups, n_features))
    for g in range(n_groups):
        rows = max(count_a[g] + count_b[g], 1e-300)
        share_a, share_b = count_a[g] / rows, count_b[g] / rows
        for f in range(n_features):
            a, b = sums_a[g, f], sums_b[g, f]
            total = a + b
            value = 0.0
            expected = total * share_a
            if expected > 0:
                value += (a - expected) * (a - expected) / expected
            expected = total * share_b
            if expected > 0:
                value += (b - expected) * (b - expected) / expected
            statistic[g, f] = value
    return statistic


def _top_mask(statistic, k):
    """Each row's ``k`` largest entries (ties: the first columns), as a boolean mask: a
    partition finds each row's k-th largest value, not a sort of the row."""
    n_features = statistic.shape[1]
    if k >= n_features:
        return np.ones(statistic.shape, dtype=bool)
    kth = np.partition(statistic, n_features - k, axis=1)[:, n_features - k, None]
    mask = statistic > kth
    ties = statistic == kth
    wanted = k - mask.sum(axis=1, keepdims=True)  # of the ties, the first columns
    return mask | (ties & (np.cumsum(ties, axis=1) <= wanted))


@dataclass
class SelectedParameters(Parameters):
    """The wrapped model's parameters of some groups and the feature sums and row counts
    of those groups (what the chi-squared statistic needs)."""

    inner: Parameters
    sums: np.ndarray
    count: np.ndarray


class ChiSquaredSelection(EventModel):
    """An event model with each label's ``k`` features of largest chi-squared kept.

    Parameters
    ----------
    events : EventModel
        The model of the features kept (multinomial, Bernoulli, ...; non-negative X).
    k : int, default=100
        Features kept per label (all of them when ``k`` is at least their number).

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import BinaryRelevance
    >>> from mlnb.events import ChiSquaredSelection, Multinomial
    >>> from mlnb.events.selection import chi_squared
    >>> rng = np.random.default_rng(0)
    >>> Y = rng.integers(0, 2, size=(60, 2))
    >>> X = rng.poisson(1.0, size=(60, 30))
    >>> X[:, :2] += 4 * Y  # word 0 tells label 0, word 1 label 1; 28 words of noise
    >>> statistic = chi_squared(Y.T @ X, Y.sum(axis=0), (1 - Y).T @ X, (1 - Y).sum(axis=0))
    >>> statistic.argmax(axis=1).tolist()
    [0, 1]
    >>> events = ChiSquaredSelection(Multinomial(), k=2)
    >>> BinaryRelevance(events=events, rule="scut").fit(X, Y).predict(X).shape
    (60, 2)
    """

    def __init__(self, events=None, k=100):
        self.events = events
        self.k = k

    def __repr__(self, N_CHAR_MAX=700):
        # the wrapped model's own repr (a discretised Gaussian's precision summarised)
        if not isinstance(self.events, EventModel):
            return super().__repr__(N_CHAR_MAX)
        return f"{type(self).__name__}(events={self.events!r}, k={self.k!r})"

    def _inner(self):
        from . import Multinomial, make_event_model

        return Multinomial() if self.events is None else make_event_model(self.events)

    def _k(self):
        k = self.k
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"ChiSquaredSelection: k must be an integer >= 1; got {k!r}")
        return int(k)

    # ---- what the wrapped model decides --------------------------------------------------
    @property
    def input_kind(self):
        return self._inner().input_kind

    @property
    def second_moments(self):
        return self._inner().second_moments

    @property
    def keeps_width(self):
        return self._inner().keeps_width

    @property
    def zero_features_silent(self):
        return self._inner().zero_features_silent

    def statistics_key(self):
        """The wrapped model's: a selection shares the statistics of the model it wraps."""
        return self._inner().statistics_key()

    def prepare(self, X, *, caller="this model"):
        return self._inner().prepare(X, caller=caller)

    def prepare_observed(self, X, *, caller="this model"):
        return self._inner().prepare_observed(X, caller=caller)

    def prepared_width(self, n_features):
        return self._inner().prepared_width(n_features)

    def zero_terms(self, params):
        return self._inner().zero_terms(params.inner)

    # ---- estimates, selection and scores -------------------------------------------------
    def estimate(self, stats):
        return self._selecting(self._inner().estimate(stats), stats)

    def estimate_stacked(self, stats, totals, member):
        inner = self._inner().estimate_stacked(stats, totals, member)
        return None if inner is None else self._selecting(inner, stats)

    def _selecting(self, inner, stats):
        """The wrapped model's parameters with the sums and counts its selection reads."""
        self._k()
        sums = stats.sums.toarray() if hasattr(stats.sums, "toarray") else stats.sums  # compact
        return SelectedParameters(inner, np.asarray(sums), np.asarray(stats.count))

    def selected(self, params_a, params_b):
        """Each group's mask of kept features (n_groups x n_features) against the other."""
        statistic = chi_squared(params_a.sums, params_a.count, params_b.sums, params_b.count)
        return _top_mask(statistic, self._k())

    def _selection(self, params_a, params_b):
        """:meth:`selected`, made once per pair (:func:`~mlnb.events._base.pair_table`)."""
        return pair_table(
            params_a, params_b, f"mask_{self._k()}", lambda: self.selected(params_a, params_b)
        )

    def _silenced(self, params_a, params_b):
        """The wrapped model's parameters of a against b with the unselected features
        silenced, made once per pair (:func:`~mlnb.events._base.pair_table`): the masks
        and weight tables are not rebuilt per call."""
        k = self._k()
        return pair_table(
            params_a,
            params_b,
            f"selected_{k}",
            lambda: self._inner().silence(
                params_a.inner, params_b.inner, self._selection(params_a, params_b)
            ),
        )

    def score(self, params, X):
        """``log p(x | group)`` of the wrapped model, every feature (selection is a
        property of a pair of groups: see :meth:`score_ratio`)."""
        return self._inner().score(params.inner, X)

    def score_ratio(self, params_a, params_b, X):
        """``log p(x | a) - log p(x | b)`` over each group's kept features."""
        silenced_a, silenced_b = self._silenced(params_a, params_b)
        return self._inner().score_ratio(silenced_a, silenced_b, X)

    def score_observed(self, params, X):
        return self._inner().score_observed(params.inner, X)

    def score_ratio_observed(self, params_a, params_b, X):
        silenced_a, silenced_b = self._silenced(params_a, params_b)
        return self._inner().score_ratio_observed(silenced_a, silenced_b, X)

    def silence(self, positive, negative, mask):
        """Silence ``mask``'s complement on top of the chi-squared selection."""
        silenced_a, silenced_b = self._silenced(positive, negative)
        inner_a, inner_b = self._inner().silence(silenced_a, silenced_b, mask)
        result = (
            SelectedParameters(inner_a, positive.sums, positive.count),
            SelectedParameters(inner_b, negative.sums, negative.count),
        )
        # the result's selection reads the same sums and counts: the same mask, not
        # computed again when its scores are
        selection = self._selection(positive, negative)
        pair_table(*result, f"mask_{self._k()}", lambda: selection)
        return result
