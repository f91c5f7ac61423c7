"""Weka's Gaussian estimator: a normal distribution over intervals of a feature's precision.

Weka's NaiveBayes (used by the dynamic-chains paper, Trajdos and Kurzynski) models a numeric
attribute with ``weka.estimators.NormalEstimator``: values are rounded to the attribute's
precision p (the mean gap between its distinct sorted training values), the standard deviation
is at least ``p / 6``, and the "likelihood" of a value x is the probability of the interval
``[x - p/2, x + p/2]``:

    P(x | c) = Phi((x - mu_c + p/2) / s_c) - Phi((x - mu_c - p/2) / s_c),
    s_c = max(std_c, p / 6)   (p / 6 also when std_c <= 1e-10).

For a 0/1 word feature (p = 1) that bounds how much one word can say (a class that never
saw the word still gives it ``Phi(0.5 / s) - Phi(-0.5 / s)``-sized odds), where the density
of :class:`~mlnb.events.Gaussian` with a tiny variance floor makes it decisive. The
statistics are the Gaussian ones (counts, sums, centred second moments), so everything
additive still holds; only the precision, a property of the data, is given up front
(:func:`weka_precision` computes Weka's rule from training data).

The interval's log-probability is written out by hand (:func:`_log_interval`) rather than
taken as ``log(norm.cdf(b) - norm.cdf(a))``: that form loses every digit in the tails, and
scoring evaluates it once per stored entry and group (the cost of the model). Away from
the lower tail it is ``log(ndtr(high) - ndtr(low))`` of the interval mirrored below its
mean (two CDF values never both near 1), about twice as fast as the ``log_ndtr`` form kept
for the tail, where ``ndtr`` would underflow.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import log_ndtr, ndtr

from ._base import EventModel, Parameters, entrywise_sum

__all__ = ["DiscretisedGaussian", "DiscretisedGaussianParameters", "weka_precision"]

_WEKA_DEFAULT_PRECISION = 0.01
# Standardised upper bounds below this take the interval's mass from log_ndtr: ndtr is
# exact to rounding down to its underflow near -37.5, and Phi(-20) = 2.8e-89 is far above.
_TAIL = -20.0


def weka_precision(X):
    """Weka's precision of every feature: the mean gap between its distinct sorted values.

    ``(max - min) / (number of distinct values - 1)``; 0.01 (Weka's default) for a
    constant feature. Zeros of a sparse matrix count as values; missing entries (NaN) do
    not (Weka skips them).
    """
    if sp.issparse(X):
        X = sp.csc_matrix(X)
        precision = np.full(X.shape[1], _WEKA_DEFAULT_PRECISION)
        for column in range(X.shape[1]):  # a loop over features, not samples: once per fit
            values = X.data[X.indptr[column] : X.indptr[column + 1]]
            values = values[~np.isnan(values)]
            if X.indptr[column + 1] - X.indptr[column] < X.shape[0]:
                values = np.append(values, 0.0)
            distinct = np.unique(values)
            if distinct.size > 1:
                precision[column] = (distinct[-1] - distinct[0]) / (distinct.size - 1)
        return precision
    X = np.asarray(X, dtype=np.float64)
    ordered = np.sort(X, axis=0)  # NaN last: their gaps are NaN, never > 0
    gaps = np.diff(ordered, axis=0)
    distinct_gaps = (gaps > 0).sum(axis=0)
    span = np.zeros(X.shape[1])
    if distinct_gaps.any():
        varied = distinct_gaps > 0
        span[varied] = np.nanmax(X[:, varied], axis=0) - np.nanmin(X[:, varied], axis=0)
    return np.where(distinct_gaps > 0, span / np.maximum(distinct_gaps, 1), _WEKA_DEFAULT_PRECISION)


def _log_interval(x, mean, std, precision):
    """``log(Phi((x - mean + p/2) / std) - Phi((x - mean - p/2) / std))``, stably.

    An interval above the mean is mirrored below it (the same mass), so that the bounds
    ``low < high`` have ``low <= 0``; then ``log(ndtr(high) - ndtr(low))``, except where
    ``high < _TAIL``: there ``log_ndtr(high) + log1p(-exp(log_ndtr(low) - log_ndtr(high)))``,
    which does not underflow.
    """
    centred, half = x - mean, precision / 2
    lower = (centred - half) / std
    upper = (centred + half) / std
    flip = lower > 0
    low = np.where(flip, -upper, lower)
    high = np.where(flip, -lower, upper)
    out = ndtr(high, out=np.empty_like(high))
    out -= ndtr(low)
    with np.errstate(divide="ignore"):  # an empty interval: -inf, as log1p(-1) gives
        np.log(out, out=out)
    tail = high < _TAIL
    if tail.any():
        low, high = low[tail], high[tail]
        log_high = log_ndtr(high)
        out[tail] = log_high + np.log1p(-np.exp(log_ndtr(low) - log_high))
    return out


def _correction(x, mean, std, precision, at_zero):
    """What a stored value x adds over the value 0 (vanishes at x = 0)."""
    out = _log_interval(x, mean, std, precision)
    out -= at_zero
    np.copyto(out, 0.0, where=np.asarray(x) == 0)
    return out


@dataclass
class DiscretisedGaussianParameters(Parameters):
    """Means, deviations and interval widths (n_groups x n_features); ``zero``, the log
    probability of the interval around 0 (derived)."""

    mean: np.ndarray
    std: np.ndarray
    precision: np.ndarray
    zero: np.ndarray = None

    per_feature = ("mean", "std")

    def refreshed(self):
        self.zero = _log_interval(0.0, self.mean, self.std, self.precision)
        return self


class DiscretisedGaussian(EventModel):
    """Weka's NormalEstimator as an event model (Trajdos and Kurzynski's Naive Bayes).

    Parameters
    ----------
    precision : float or array-like of shape (n_features,), default=0.01
        The interval width p of every feature (see :func:`weka_precision`).
    """

    name = "discretised_gaussian"
    second_moments = True

    def __init__(self, precision=_WEKA_DEFAULT_PRECISION):
        self.precision = precision

    def __repr__(self, N_CHAR_MAX=700):
        precision = np.asarray(self.precision)
        if precision.ndim == 0 or precision.size == 0:
            return super().__repr__(N_CHAR_MAX)
        return (
            f"{type(self).__name__}(precision=<{precision.size} values, "
            f"{precision.min():.3g} to {precision.max():.3g}>)"
        )

    def _precision(self, n_features):
        precision = np.asarray(self.precision, dtype=np.float64)
        if precision.ndim == 0:
            precision = np.full(n_features, float(precision))
        if precision.shape != (n_features,) or not np.all(np.isfinite(precision)):
            raise ValueError(
                f"precision must be a finite number or {n_features} of them; got shape "
                f"{precision.shape}"
            )
        if np.any(precision <= 0):
            raise ValueError("precision must be > 0")
        return precision

    def prepare(self, X, *, caller="this model"):
        """Round every value to its feature's precision grid (as Weka does)."""
        precision = self._precision(X.shape[1])
        if sp.issparse(X):
            X = sp.csr_matrix(X, copy=True)
            step = precision[X.indices]
            X.data = np.round(X.data / step) * step
            return X
        return np.round(X / precision) * precision

    def estimate(self, stats):
        precision = self._precision(stats.n_features)
        count = stats.feature_count
        mean = np.where(count > 0, stats.mean, 0.0)
        std = np.sqrt(np.where(count > 0, np.maximum(stats.var, 0.0), 0.0))
        floor = np.broadcast_to(precision / 6.0, mean.shape)
        std = np.where(std > 1e-10, np.maximum(std, floor), floor)
        return DiscretisedGaussianParameters(mean, std, np.broadcast_to(precision, mean.shape))

    def zero_terms(self, params):
        return params.zero

    def score(self, params, X):
        terms = [params.mean, params.std, params.precision, params.zero]
        return params.zero.sum(axis=1)[None, :] + entrywise_sum(X, _correction, terms)
