"""Bernoulli event models: classical (Laplace/Lidstone) and Bayesian (Beta prior).

Both are the same computation: the Beta(a, b) posterior predictive of a word's presence,
``p_cv = (m_cv + a) / (l_c + a + b)`` (Xu 2018, eq. 21), with ``m_cv`` the (weighted) number
of documents of class c containing word v. The classical estimate (eq. 6) is the case
``a = b = alpha``; the MAP estimate (eq. 15) would be ``a = b = alpha + 1`` (the paper's
sentence after eq. 21 says ``alpha + 1`` for the predictive too: that holds for the MAP form
only). Absent words count: ``log(1 - p_cv)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._base import (
    EventModel,
    Parameters,
    check_weights_dtype,
    pair_table,
    transposed_difference,
    weighted_product,
)
from .compact import CompactLogOdds, value_classes
from .multinomial import per_feature_smoothing

#: The largest table of the distinct (negative rows, feature total) pairs that a compact
#: Bernoulli model keeps (2**22 entries: 32 MB); beyond it the tables are dense.
MAX_PAIR_TABLE = 1 << 22

__all__ = ["BayesianBernoulli", "Bernoulli", "BernoulliParameters"]


@dataclass
class BernoulliParameters(Parameters):
    """``log_odds = log p - log(1 - p)`` and ``log_absent = log(1 - p)`` of every group and
    feature (n_groups x n_features); ``log_absent_sum`` (n_groups,) is derived."""

    log_odds: np.ndarray
    log_absent: np.ndarray
    log_absent_sum: np.ndarray = None

    per_feature = ("log_odds", "log_absent")

    def refreshed(self):
        self.log_absent_sum = self.log_absent.sum(axis=1)
        return self


class _BetaBernoulli(EventModel):
    """Shared Bernoulli computation; subclasses say which Beta(a, b) prior they mean."""

    input_kind = "binary"
    _statistics_params = ("binarize",)
    _estimate_reads_totals = False
    #: The names of the pseudo-counts of presence and absence, for messages.
    _prior_names = ("a", "b")

    def _beta_prior(self):
        raise NotImplementedError

    def _force_prior(self):
        """Whether pseudo-counts below 1e-10 are kept as given (else raised to 1e-10)."""
        return False

    def prepare(self, X, *, caller="this model"):
        threshold = self.binarize
        if threshold is None:
            values = X.data if sp.issparse(X) else X
            if values.size and not np.all((values == 0) | (values == 1)):
                raise ValueError(
                    f"{caller} was given binarize=None, so X must hold only 0 and 1; "
                    "set binarize to a threshold to binarise other values"
                )
            return X
        if sp.issparse(X):
            if threshold < 0:
                raise ValueError(
                    f"binarize={threshold} < 0 would turn every zero of a sparse X into 1; "
                    "use a threshold >= 0 or dense input"
                )
            X = X.copy()
            X.data = (X.data > threshold).astype(float)
            return X
        return (X > threshold).astype(float)

    def pseudo_counts(self, n_features):
        """The pseudo-counts ``(a, b)`` of presence and absence in use (checked, floored
        as :meth:`estimate` floors them): ``p_cv = (m_cv + a) / (l_c + a + b)``."""
        return self._smoothing(n_features)

    def _smoothing(self, n_features):
        force = self._force_prior()
        return tuple(
            per_feature_smoothing(value, name, n_features, force)
            for value, name in zip(self._beta_prior(), self._prior_names, strict=True)
        )

    def log_presence(self, stats):
        """``log p_cv``, the log-probability of presence, shape (n_groups, n_features)."""
        a, b = self._smoothing(stats.n_features)
        return np.log(_dense(stats.sums) + a) - np.log(stats.feature_count + a + b)

    def estimate(self, stats):
        check_weights_dtype(getattr(self, "dtype", "float64"))  # at fit, not first at predict
        a, b = self._smoothing(stats.n_features)
        count = stats.feature_count
        sums = _dense(stats.sums)  # compact statistics given to the dense form
        log_total = np.log(count + a + b)  # made once: a log per (group, feature) fewer
        log_present = np.log(sums + a) - log_total
        log_absent = np.log(count - sums + b) - log_total
        return BernoulliParameters(log_present - log_absent, log_absent)

    def has_compact_form(self, n_features) -> bool:
        """Whether :meth:`compact_log_odds` may apply: one pseudo-count of each kind, > 0."""
        a, b = self._smoothing(n_features)
        return a.ndim == 0 and b.ndim == 0 and a > 0 and b > 0

    def compact_log_odds(self, stats):
        """The log-odds of every group against the rest of the rows (binary relevance),
        in the compact form of :class:`~mlnb.events.compact.CompactLogOdds` (its module
        docstring derives it), or None where that form does not pay: missing entries,
        or more distinct pairs of (negative rows, feature total) than
        :data:`MAX_PAIR_TABLE` (weighted rows).
        """
        if stats.has_missing or not self.has_compact_form(stats.n_features):
            return None
        a, b = (float(v) for v in self._smoothing(stats.n_features))
        own = np.asarray(stats.count, dtype=np.float64)
        rest = max(float(stats.total_count), 0.0) - own  # negative rows of each label
        total = np.asarray(stats.total_sums, dtype=np.float64)  # rows holding each feature
        rest_values, label_class = value_classes(rest)
        total_values, feature_class = value_classes(total)
        if rest_values.size * total_values.size > MAX_PAIR_TABLE:
            return None
        with np.errstate(divide="ignore", invalid="ignore"):
            # log(r - T + b): the negatives lacking an unseen word (pairs that cannot be
            # unseen get 0, which their corrections undo)
            spread = rest_values[:, None] - total_values[None, :] + b
            table = np.where(spread > 0, np.log(np.where(spread > 0, spread, 1.0)), 0.0)
        length = np.log(a) - np.log(own + b)  # times the row's number of present words
        base = -np.log(total + a)
        unseen_absent = np.log(own + b) - np.log(own + a + b) + np.log(rest + a + b)
        multiplicity = np.bincount(feature_class, minlength=total_values.size)
        constant = stats.n_features * unseen_absent - (table @ multiplicity)[label_class]
        corrections = sp.csr_matrix(stats.sums.T, dtype=np.float64, copy=True)
        feature = np.repeat(np.arange(stats.n_features), np.diff(corrections.indptr))
        label = corrections.indices
        seen, t, r, c = corrections.data, total[feature], rest[label], own[label]
        pair = table[label_class[label], feature_class[feature]]
        weight = np.log(seen + a) - np.log(c - seen + b) - np.log(t - seen + a)
        weight += np.log(r - t + seen + b)
        corrections.data = weight - (length[label] + base[feature] + pair)
        absent = np.log(c - seen + b) - np.log(r - t + seen + b)
        unseen = np.log(c + b) - pair
        constant += np.bincount(label, weights=absent - unseen, minlength=own.size)
        return CompactLogOdds(
            base, length, corrections, constant, table, label_class, feature_class
        )

    def zero_terms(self, params):
        return params.log_absent

    def score(self, params, X):
        return np.asarray(X @ params.log_odds.T) + params.log_absent_sum[None, :]

    def score_ratio(self, params_a, params_b, X):
        dtype = check_weights_dtype(getattr(self, "dtype", "float64"))
        odds = pair_table(
            params_a,
            params_b,
            f"log_odds_{dtype.name}",
            lambda: transposed_difference(params_a.log_odds, params_b.log_odds).astype(
                dtype, copy=False
            ),
        )
        absent = params_a.log_absent_sum - params_b.log_absent_sum
        return weighted_product(X, odds) + absent[None, :]


def _dense(sums):
    """``sums`` as an ndarray (compact statistics hold a sparse matrix)."""
    return sums.toarray() if sp.issparse(sums) else sums


class Bernoulli(_BetaBernoulli):
    """Classical Bernoulli event model: ``p_cv = (m_cv + alpha) / (l_c + 2 alpha)`` (eq. 6).

    Parameters
    ----------
    alpha : float or ndarray of shape (n_features,), default=1.0
        Additive smoothing (the paper's beta), one value for all features or one per feature.
    binarize : float or None, default=0.0
        Threshold above which a feature counts as present; None if X is already 0/1.
    force_alpha : bool, default=False
        If False, values of alpha below 1e-10 are raised to 1e-10 (silently); if True,
        alpha is used as given.
    dtype : {"float64", "float32"}, default="float64"
        Storage of the log-odds weight tables a fitted label model keeps, as for
        :class:`~mlnb.events.Multinomial`.
    """

    name = "bernoulli"
    _prior_names = ("alpha", "alpha")

    def __init__(self, alpha=1.0, binarize=0.0, force_alpha=False, dtype="float64"):
        self.alpha = alpha
        self.binarize = binarize
        self.force_alpha = force_alpha
        self.dtype = dtype

    def _beta_prior(self):
        return self.alpha, self.alpha

    def _force_prior(self):
        return bool(self.force_alpha)


class BayesianBernoulli(_BetaBernoulli):
    """Beta-Bernoulli posterior predictive: ``p_cv = (m_cv + a) / (l_c + a + b)`` (eq. 21).

    With ``a = b`` it equals :class:`Bernoulli` with ``alpha = a``.

    Parameters
    ----------
    a, b : float or ndarray of shape (n_features,), default=1.0
        Beta prior pseudo-counts of presence and absence (eq. 14); values below 1e-10 are
        raised to 1e-10.
    binarize : float or None, default=0.0
        Threshold above which a feature counts as present; None if X is already 0/1.
    """

    name = "bayesian_bernoulli"

    def __init__(self, a=1.0, b=1.0, binarize=0.0):
        self.a = a
        self.b = b
        self.binarize = binarize

    def _beta_prior(self):
        return self.a, self.b
