"""Gaussian event models: classical (maximum likelihood) and Bayesian (Normal-Gamma prior).

Statistics used: per-class counts ``l_c``, means and centred second moments, and the mean and
variance over all rows. Sparse input stays sparse: a row's log-likelihood is a per-class
constant (every feature at zero) plus corrections for its non-zero entries only.

The classical model's weight tables (precisions, normalising constants, the weights of the
expanded squares, of the difference of two sets of parameters for a log-likelihood ratio)
are made from the parameters at their first use and kept with them (private attributes,
see :func:`~mlnb.events._base.pair_table`): predictions do only the products with the rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from ._base import (
    EventModel,
    Parameters,
    entrywise_sum,
    non_negative,
    pair_table,
    transposed_difference,
)

__all__ = [
    "BayesianGaussian",
    "Gaussian",
    "GaussianParameters",
    "StudentTParameters",
    "check_range",
]

_LOG_2PI = np.log(2 * np.pi)
# Largest |x| a Gaussian model takes: sums of squared deviations over a million rows,
# n (2 x)**2, stay below float64's 1.8e308; a feature whose largest |x| is below the
# smallest magnitude its squares hold without underflow (1e-150) has no variance either.
MAX_ABS_VALUE = 1e150
MIN_FEATURE_SCALE = 1e-150


def check_range(X, caller="this model"):
    """Raise a ValueError naming X unless its values fit the Gaussian statistics.

    Squared deviations of values beyond ``MAX_ABS_VALUE`` overflow, and a feature whose
    non-zero values are all below ``MIN_FEATURE_SCALE`` in magnitude has squares that
    underflow: NaN or wrong variances instead of a model. Rescaling such features by a
    constant leaves a Gaussian NB's predictions unchanged. NaN (a missing entry) is skipped.
    """
    values = X.data if sp.issparse(X) else X
    observed = ~np.isnan(values)
    magnitude = np.abs(values)
    if np.max(magnitude, initial=0.0, where=observed) > MAX_ABS_VALUE:
        raise ValueError(
            f"X passed to {caller} holds values of magnitude above {MAX_ABS_VALUE:g}: their "
            "squared deviations overflow float64 in a Gaussian model; rescale X (a Gaussian "
            "NB's predictions do not depend on the scale of a feature)"
        )
    if sp.issparse(X):
        absolute = X.copy()
        absolute.data = np.where(observed, magnitude, 0.0)
        largest = absolute.max(axis=0).toarray().ravel()
    else:
        largest = np.max(magnitude, axis=0, initial=0.0, where=observed)
    if np.any((largest > 0) & (largest < MIN_FEATURE_SCALE)):
        raise ValueError(
            f"X passed to {caller} has features whose values are all below "
            f"{MIN_FEATURE_SCALE:g} in magnitude: their squares underflow float64 in a "
            "Gaussian model; rescale X (a Gaussian NB's predictions do not depend on the "
            "scale of a feature)"
        )
    return X


@dataclass
class GaussianParameters(Parameters):
    """Class means and floored variances (n_groups x n_features), and ``shift``, the centre
    (n_features,) about which dense rows' squares are expanded (a conditioning choice)."""

    mean: np.ndarray
    var: np.ndarray
    shift: np.ndarray

    per_feature = ("mean", "var")


@dataclass
class StudentTParameters(Parameters):
    """Student-t posterior predictive of :class:`BayesianGaussian`, each (n_groups x
    n_features): the posterior mean, the scale ``lam_D / (2 (lam_D + 1))``, the rate
    ``b_D``, the exponent ``a_D + 1/2`` and ``log_norm``, each feature's log-density at 0;
    ``at_zero`` (n_groups,) is the log-density of the all-zero row (derived)."""

    mean: np.ndarray
    scale: np.ndarray
    rate: np.ndarray
    exponent: np.ndarray
    log_norm: np.ndarray
    at_zero: np.ndarray = None

    per_feature = ("mean", "scale", "rate", "exponent", "log_norm")

    def refreshed(self):
        self.at_zero = self.log_norm.sum(axis=1)
        return self


class Gaussian(EventModel):
    """Classical Gaussian event model (Xu 2018, section 3.3; scikit-learn's GaussianNB).

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

    name = "gaussian"

    def __init__(self, var_smoothing=1e-9):
        self.var_smoothing = var_smoothing

    def prepare(self, X, *, caller="this model"):
        return check_range(X, caller)

    def variance_floor(self, stats):
        """The variance added to every class's: ``var_smoothing * max_v var_v`` (a float).

        ``var_v`` is the (weighted) variance of feature v over all rows of ``stats``;
        ``var_smoothing`` itself when every feature is constant.
        """
        epsilon = float(non_negative(self.var_smoothing, "var_smoothing"))
        largest_var = stats.total_var.max() if stats.n_features else 0.0
        return epsilon * largest_var if largest_var > 0 else epsilon

    def estimate(self, stats):
        return self._parameters(stats, self.variance_floor(stats), stats.total_mean)

    def estimate_stacked(self, stats, totals, member):
        """Each group's variance floor from its own model's totals; one shift for all.

        The shift (the centre of the expanded squares, see :class:`_DenseTable`) only
        conditions the arithmetic: the stack uses the mean over all the models' rows.
        """
        epsilon = float(non_negative(self.var_smoothing, "var_smoothing"))
        largest_var = totals.var.max(axis=1) if stats.n_features else np.zeros(totals.n_groups)
        floor = np.where(largest_var > 0, epsilon * largest_var, epsilon)[member]
        count = totals.count.sum()
        shift = totals.sums.sum(axis=0) / count if count > 0 else np.zeros(stats.n_features)
        return self._parameters(stats, floor[:, None], shift)

    @staticmethod
    def _parameters(stats, floor, shift):
        var = stats.var + floor
        if np.any(var <= 0):
            raise ValueError("var_smoothing must be > 0 when a class has a constant feature")
        return GaussianParameters(stats.mean, var, shift)

    def zero_terms(self, params):
        """What a feature at 0 adds, read-only and made once per parameters object: the
        missing-value path takes it at every prediction (see
        :meth:`~mlnb.events.EventModel.score_observed`)."""
        return _own_table(params, "zero_terms", lambda: _zero_terms(params))

    def score(self, params, X):
        """``log p(x | group)`` from the weight tables of ``params`` (made at the first call,
        one for dense and one for sparse rows, and reused)."""
        if sp.issparse(X):
            return _own_table(params, "sparse", lambda: _sparse_table(params)).scores(X)
        return _own_table(params, "dense", lambda: _dense_table(params)).scores(X)

    def score_ratio(self, params_a, params_b, X):
        """Both sides in one pass: one set of products with the difference of the weights.

        The normalising constants' ``log(2 pi)`` cancel; with different shifts (not the
        case for a model's groups and their complements) the sides are scored apart. The
        tables of the difference are made at the first call for the pair and reused.
        """
        shift = params_a.shift
        if not (params_b.shift is shift or np.array_equal(params_b.shift, shift)):
            return super().score_ratio(params_a, params_b, X)
        if sp.issparse(X):
            name, build = "sparse_ratio", _sparse_ratio_table
        else:
            name, build = "dense_ratio", _dense_ratio_table
        return pair_table(params_a, params_b, name, lambda: build(params_a, params_b)).scores(X)


# Rounding error of the expanded square is about 1e-16 * (mean - shift)**2 * precision; pairs
# where that factor exceeds this bound are computed exactly instead.
_STIFF = 1e4
# Floats of the per-block temporaries of _DenseTable.scores (2**17: 1 MiB).
_ROW_BUDGET = 1 << 17
# Floats of the per-block temporaries of the stiff pairs' exact terms (2**16: 512 KiB, in
# cache: genbase's 93 rows x 5600 pairs took 11 ms in one block of 2**22, 2.8 ms in these).
_STIFF_BUDGET = 1 << 16


# ---- weight tables: everything scoring rows needs that does not depend on the rows ------
def _own_table(params, name, build):
    """``build()`` made once per parameters object and kept with it: :func:`pair_table`
    without a partner (parameters never change in place; model files leave it out)."""
    return pair_table(params, None, name, build)


def _zero_terms(params):
    terms = -0.5 * (_LOG_2PI + np.log(params.var) + params.mean**2 / params.var)
    terms.setflags(write=False)  # shared by every call: no caller may change it
    return terms


@dataclass(eq=False, frozen=True)
class _SparseTable:
    """Scores of sparse rows: ``constant - 0.5 (X * X) @ precision + X @ weighted``.

    From ``sum_v (x - m)^2 p = sum_v m^2 p + sum_{x_v != 0} (x^2 p - 2 x m p)``: a
    per-group constant (normalisation included) and corrections for the non-zero entries
    only. ``precision`` and ``weighted`` (``mean * precision``) are (n_features x n_groups)
    and C-contiguous: the right operands of scipy's products, which copy any other layout.
    """

    constant: np.ndarray
    precision: np.ndarray
    weighted: np.ndarray

    def scores(self, X):
        squares = X.multiply(X)
        return (
            self.constant[None, :]
            - 0.5 * np.asarray(squares @ self.precision)
            + np.asarray(X @ self.weighted)
        )


@dataclass(eq=False, frozen=True)
class _StiffPairs:
    """(class, feature) pairs whose squares are summed exactly: each pair's feature, mean
    and precision, and ``to_class`` (n_pairs x n_groups), +1 where a pair adds to a group
    (-1 for the second side of a difference)."""

    features: np.ndarray
    mean: np.ndarray
    precision: np.ndarray
    to_class: sp.csr_matrix

    def add_to(self, quadratic, X):
        """Add each pair's ``(x - mean)**2 * precision`` to its group's column."""
        rows = max(_STIFF_BUDGET // len(self.features), 1)
        for start in range(0, X.shape[0], rows):
            block = X[start : start + rows, self.features] - self.mean
            exact = block**2 * self.precision
            quadratic[start : start + rows] += np.asarray((self.to_class.T @ exact.T).T)


@dataclass(eq=False, frozen=True)
class _DenseTable:
    """Scores of dense rows: ``log_norm - 0.5 * sum_v (x_v - mean_cv)**2 * precision_cv``.

    Matrix products on the square expanded about the overall mean ``shift``::

        (x - s)**2 @ square_weight.T - 2 (x - s) @ linear_weight.T + constant

    That expansion cancels badly where a class has a tiny variance and a mean far from
    ``shift`` (a feature constant within the class): those few ``stiff`` pairs weigh 0 in
    the products and are summed exactly. For the log-likelihood ratio of two sets of
    parameters each weight is the difference of the two sides': one product per term.
    """

    shift: np.ndarray
    square_weight: np.ndarray
    linear_weight: np.ndarray
    constant: np.ndarray
    log_norm: np.ndarray
    stiff: _StiffPairs | None

    def scores(self, X):
        n_out = len(self.constant)
        # Blocks of rows keep the temporaries (centred rows, linear term) small.
        quadratic = np.empty((X.shape[0], n_out))
        rows = max(_ROW_BUDGET // (X.shape[1] + n_out), 1)
        for start in range(0, X.shape[0], rows):
            centred = X[start : start + rows] - self.shift
            linear = centred @ self.linear_weight.T
            linear *= 2.0
            part = quadratic[start : start + rows]
            np.matmul(np.square(centred, out=centred), self.square_weight.T, out=part)
            part -= linear
        quadratic += self.constant[None, :]
        if self.stiff is not None:
            self.stiff.add_to(quadratic, X)
        quadratic *= -0.5
        quadratic += self.log_norm[None, :]
        return quadratic


def _sparse_table(params):
    mean, precision = params.mean, 1.0 / params.var
    constant = _log_norm(params.var) - 0.5 * (mean**2 * precision).sum(axis=1)
    return _SparseTable(constant, _transposed(precision), _transposed(mean * precision))


def _sparse_ratio_table(params_a, params_b):
    mean, precision, log_norm, n_groups = _stacked(params_a, params_b)
    constant = log_norm - 0.5 * _difference((mean**2 * precision).sum(axis=1), n_groups)
    weighted = mean * precision
    return _SparseTable(
        constant,
        transposed_difference(precision[:n_groups], precision[n_groups:]),
        transposed_difference(weighted[:n_groups], weighted[n_groups:]),
    )


def _dense_table(params):
    precision = 1.0 / params.var
    return _quadratic_table(params.mean, precision, params.shift, _log_norm(params.var))


def _dense_ratio_table(params_a, params_b):
    mean, precision, log_norm, _ = _stacked(params_a, params_b)
    return _quadratic_table(mean, precision, params_a.shift, log_norm, difference=True)


def _log_norm(var):
    """Each group's ``-0.5 * sum_v log(2 pi var_v)``."""
    return -0.5 * (_LOG_2PI + np.log(var)).sum(axis=1)


def _stacked(params_a, params_b):
    """Both sides' means and precisions, a's groups over b's; the difference of their
    normalising constants (``log(2 pi)`` cancels); the number of groups of a side."""
    mean = np.concatenate([params_a.mean, params_b.mean])
    var = np.concatenate([params_a.var, params_b.var])
    precision = 1.0 / var
    n_groups = params_a.mean.shape[0]
    log_var = np.log(var).sum(axis=1)
    return mean, precision, -0.5 * (log_var[:n_groups] - log_var[n_groups:]), n_groups


def _quadratic_table(mean, precision, shift, log_norm, *, difference=False):
    """The :class:`_DenseTable` of these classes; with ``difference``, the 2h classes are
    two sets of h and its scores are those of the first set minus those of the second."""
    centred_mean = mean - shift
    stiff = centred_mean**2 * precision > _STIFF
    soft = np.where(stiff, 0.0, precision)
    square_weight, linear_weight = soft, centred_mean * soft
    constant = (centred_mean**2 * soft).sum(axis=1)
    n_out = mean.shape[0]
    if difference:
        n_out = n_out // 2
        square_weight = _difference(square_weight, n_out)
        linear_weight = _difference(linear_weight, n_out)
        constant = _difference(constant, n_out)
    classes, features = np.nonzero(stiff)
    pairs = None
    if len(classes):
        values = np.where(classes < n_out, 1.0, -1.0)
        to_class = sp.csr_matrix(
            (values, (np.arange(len(classes)), classes % n_out)),
            shape=(len(classes), n_out),
        )
        pairs = _StiffPairs(
            features, mean[classes, features], precision[classes, features], to_class
        )
    return _DenseTable(shift, square_weight, linear_weight, constant, log_norm, pairs)


def _difference(stacked, n_groups):
    """``a - b`` of an array stacking a's groups over b's."""
    return stacked[:n_groups] - stacked[n_groups:]


def _transposed(array):
    """``array.T`` as a C-contiguous array (what scipy's sparse products take as it is)."""
    return np.ascontiguousarray(array.T)


def _student_t_term(x, mean, scale, b_post, exponent, log_at_zero):
    """``-(a+1/2) [log(b + k (x - mu)^2) - log(b + k mu^2)]``: the part that varies with x.

    ``log_at_zero`` is ``log(b + k mu^2)``, which depends on the group and feature alone:
    made once per (group, feature) rather than once per entry."""
    return -exponent * (np.log(b_post + scale * (x - mean) ** 2) - log_at_zero)


class BayesianGaussian(EventModel):
    """Normal-Gamma prior, Student-t posterior predictive (Xu 2018, eqs. 17 and 22).

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

    name = "bayesian_gaussian"

    def __init__(self, mu=None, lam=1.0, a=1.0, b=1.0):
        self.mu = mu
        self.lam = lam
        self.a = a
        self.b = b

    def prepare(self, X, *, caller="this model"):
        return check_range(X, caller)

    def estimate(self, stats):
        return self._posterior(stats, stats.total_mean)

    def estimate_stacked(self, stats, totals, member):
        """Each group's prior mean (``mu=None``) over its own model's rows (group
        ``member[g]`` of ``totals``)."""
        return self._posterior(stats, totals.mean[member])

    def _posterior(self, stats, total_mean):
        lam = non_negative(self.lam, "lam")
        a = non_negative(self.a, "a")
        b = non_negative(self.b, "b")
        if np.any(lam <= 0) or np.any(a <= 0) or np.any(b <= 0):
            raise ValueError("lam, a and b of the Normal-Gamma prior must be > 0")
        if self.mu is None:
            mu = total_mean
        else:
            mu = np.asarray(self.mu, dtype=float)
            if not np.all(np.isfinite(mu)):
                raise ValueError(f"mu must be finite; got {self.mu!r}")
        count = stats.feature_count
        xbar = stats.mean
        lam_post = lam + count
        mean_post = (lam * mu + count * xbar) / lam_post
        a_post = np.broadcast_to(a + count / 2.0, xbar.shape)
        b_post = b + 0.5 * (stats.m2 + lam * count * (xbar - mu) ** 2 / lam_post)
        scale = lam_post / (2.0 * (lam_post + 1.0))
        exponent = a_post + 0.5
        rate = np.broadcast_to(b_post, xbar.shape)
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
        return StudentTParameters(mean_post, scale, rate, exponent, log_norm)

    def zero_terms(self, params):
        return params.log_norm

    def score(self, params, X):
        # Entrywise: each term depends on x inside a logarithm, so there is no table of the
        # parameters alone to keep (at_zero is derived once, with the parameters).
        terms = [params.mean, params.scale, params.rate, params.exponent]
        terms.append(np.log(params.rate + params.scale * params.mean**2))
        corrections = entrywise_sum(X, _student_t_term, terms)
        return params.at_zero[None, :] + corrections
