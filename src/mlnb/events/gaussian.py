"""Gaussian event models: classical (maximum likelihood) and Bayesian (Normal-Gamma prior).

Statistics used: per-class counts ``l_c``, means and centred second moments, and the mean and
variance over all rows. Sparse input stays sparse: a row's log-likelihood is a per-class
constant (every feature at zero) plus corrections for its non-zero entries only.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from ._base import EventModel, _positive, entrywise_sum

__all__ = ["Gaussian", "BayesianGaussian"]

_LOG_2PI = np.log(2 * np.pi)


class Gaussian(EventModel):
    """Classical Gaussian event model (seed 001, section 2.3; scikit-learn's GaussianNB).

    Per class and feature the maximum-likelihood mean and variance, the variance raised by
    ``var_smoothing * max_v var_v`` where ``var_v`` is feature v's variance over *all rows
    seen so far* (not only the last batch, unlike scikit-learn's partial_fit). When every
    feature is constant that floor is 0, and ``var_smoothing`` itself is used instead.

    Parameters
    ----------
    var_smoothing : float, default=1e-9
        The epsilon of the variance floor.
    """

    second_moments = True

    def __init__(self, var_smoothing=1e-9):
        self.var_smoothing = var_smoothing

    def estimate(self, stats):
        epsilon = float(_positive(self.var_smoothing, "var_smoothing"))
        largest_var = stats.total_var.max() if stats.n_features else 0.0
        floor = epsilon * largest_var if largest_var > 0 else epsilon
        var = stats.var + floor
        if np.any(var <= 0):
            raise ValueError("var_smoothing must be > 0 when a class has a constant feature")
        return {"mean": stats.mean, "var": var, "shift": stats.total_mean}

    def _log_likelihood(self, params, X):
        mean, precision = params["mean"], 1.0 / params["var"]
        log_norm = -0.5 * (_LOG_2PI + np.log(params["var"])).sum(axis=1)
        if sp.issparse(X):
            # sum_v (x - m)^2 p = sum_v m^2 p + sum_{x_v != 0} (x^2 p - 2 x m p)
            constant = log_norm - 0.5 * (mean**2 * precision).sum(axis=1)
            squares = X.multiply(X)
            return (
                constant[None, :]
                - 0.5 * np.asarray(squares @ precision.T)
                + np.asarray(X @ (mean * precision).T)
            )
        return log_norm[None, :] + _dense_quadratic(X, mean, precision, params["shift"])


# Rounding error of the expanded square is about 1e-16 * (mean - shift)**2 * precision; pairs
# where that factor exceeds this bound are computed exactly instead.
_STIFF = 1e4


def _dense_quadratic(X, mean, precision, shift, *, block_budget=1 << 22):
    """``-0.5 * sum_v (x_v - mean_cv)**2 * precision_cv`` for dense X, shape (n, g).

    Matrix products on the square expanded about the overall mean ``shift``. That expansion
    cancels badly where a class has a tiny variance and a mean far from ``shift`` (a feature
    constant within the class): those few "stiff" (class, feature) pairs are summed exactly.
    """
    centred = X - shift
    centred_mean = mean - shift
    stiff = centred_mean**2 * precision > _STIFF
    soft = np.where(stiff, 0.0, precision)
    quadratic = (
        (centred**2) @ soft.T
        - 2.0 * centred @ (centred_mean * soft).T
        + (centred_mean**2 * soft).sum(axis=1)[None, :]
    )
    classes, features = np.nonzero(stiff)
    if len(classes):
        to_class = sp.csr_matrix(
            (np.ones(len(classes)), (np.arange(len(classes)), classes)),
            shape=(len(classes), mean.shape[0]),
        )
        rows = max(block_budget // len(classes), 1)
        for start in range(0, X.shape[0], rows):
            block = X[start : start + rows, features] - mean[classes, features]
            exact = block**2 * precision[classes, features]
            quadratic[start : start + rows] += np.asarray((to_class.T @ exact.T).T)
    return -0.5 * quadratic


def _student_t_term(x, mean, scale, b_post, exponent):
    """``-(a+1/2) [log(b + k (x - mu)^2) - log(b + k mu^2)]``: the part that varies with x."""
    return -exponent * (np.log(b_post + scale * (x - mean) ** 2) - np.log(b_post + scale * mean**2))


class BayesianGaussian(EventModel):
    """Normal-Gamma prior, Student-t posterior predictive (seed 001, eqs. 17 and 22).

    Posterior of class c and feature v from ``l_c``, the mean ``xbar`` and ML variance ``s2``::

        mu_D = (lam mu + l xbar) / (lam + l),   lam_D = lam + l,   a_D = a + l / 2,
        b_D  = b + (l s2 + lam l (xbar - mu)^2 / (lam + l)) / 2

    and the predictive log-density of a value w::

        a_D log b_D + log(lam_D) / 2 - lgamma(a_D) + lgamma(a_D + 1/2)
        - (a_D + 1/2) log(b_D + lam_D (w - mu_D)^2 / (2 (lam_D + 1)))
        - log(lam_D + 1) / 2 - log(2 pi) / 2

    Parameters
    ----------
    mu : float, ndarray of shape (n_features,) or None, default=None
        Prior mean; None means each feature's mean over all rows (the paper's choice).
    lam : float or ndarray, default=1.0
        Prior precision scale lambda (the paper fixes 1).
    a, b : float or ndarray, default=1.0
        Gamma prior shape and rate (the paper tunes beta = a = b, log2 beta in -20..-4).
    """

    second_moments = True

    def __init__(self, mu=None, lam=1.0, a=1.0, b=1.0):
        self.mu = mu
        self.lam = lam
        self.a = a
        self.b = b

    def estimate(self, stats):
        lam = _positive(self.lam, "lam")
        a = _positive(self.a, "a")
        b = _positive(self.b, "b")
        if np.any(lam <= 0) or np.any(a <= 0) or np.any(b <= 0):
            raise ValueError("lam, a and b of the Normal-Gamma prior must be > 0")
        if self.mu is None:
            mu = stats.total_mean
        else:
            mu = np.asarray(self.mu, dtype=float)
            if not np.all(np.isfinite(mu)):
                raise ValueError(f"mu must be finite; got {self.mu!r}")
        count = stats.count[:, None]
        xbar = stats.mean
        lam_post = lam + count
        mean_post = (lam * mu + count * xbar) / lam_post
        a_post = np.broadcast_to(a + count / 2.0, xbar.shape)
        b_post = b + 0.5 * (stats.m2 + lam * count * (xbar - mu) ** 2 / lam_post)
        scale = lam_post / (2.0 * (lam_post + 1.0))
        exponent = a_post + 0.5
        log_norm = (
            a_post * np.log(b_post)
            + 0.5 * np.log(lam_post)
            - gammaln(a_post)
            + gammaln(exponent)
            - exponent * np.log(b_post + scale * mean_post**2)
            - 0.5 * np.log(lam_post + 1.0)
            - 0.5 * _LOG_2PI
        )
        mean_post = np.broadcast_to(mean_post, xbar.shape)
        scale = np.broadcast_to(scale, xbar.shape)
        return {
            "at_zero": log_norm.sum(axis=1),
            "terms": [mean_post, scale, np.broadcast_to(b_post, xbar.shape), exponent],
        }

    def _log_likelihood(self, params, X):
        corrections = entrywise_sum(X, _student_t_term, params["terms"])
        return params["at_zero"][None, :] + corrections
