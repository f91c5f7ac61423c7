"""The categorical distribution: class priors, label-set priors, size and pair tables.

Every Naive Bayes model in mlnb has a prior over a finite set of values (classes, label
sets, label-set sizes) estimated from weighted counts ``N_v`` with ``K`` values and a
pseudo-count ``alpha`` (Lidstone; Laplace for ``alpha = 1``; the maximum-likelihood
estimate, as scikit-learn's, for ``alpha = 0``)::

    log P(v) = log(N_v + alpha) - log(N + K alpha)

which is also the posterior predictive of a symmetric Dirichlet(alpha) prior (Rodríguez et
al. 2011, eq. 19; Laplace smoothing in NaiBX, eq. 11). One home for the classifiers of
:mod:`mlnb.naive_bayes`, label powerset / RAkEL and NaiBX.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["check_pseudo_count", "log_categorical", "log_normalise", "log_sum_exp_rows"]


def check_pseudo_count(alpha, name="prior_alpha"):
    """``alpha`` as a float, checked to be a finite number >= 0 (the message names it)."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 <= alpha < np.inf:
        raise ValueError(f"{name} must be a finite number >= 0; got {alpha!r}")
    return float(alpha)


def log_categorical(count, total, n_values, alpha):
    """``log((N_v + alpha) / (N + K alpha))`` elementwise (arrays broadcast, ``K`` too).

    With ``alpha = 0`` and nothing observed (``N = 0``) the estimate is 0/0; its limit as
    alpha goes to 0, the uniform ``1 / K``, is used. A value never seen gets ``-inf`` when
    ``alpha = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> np.exp(log_categorical(np.array([3.0, 1.0, 0.0]), 4.0, 3, 1.0))
    array([0.57142857, 0.28571429, 0.14285714])
    """
    n_values = np.maximum(np.asarray(n_values, dtype=float), 1)
    count, total = np.asarray(count, dtype=float), np.asarray(total, dtype=float)
    denominator = total + n_values * alpha
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(count + alpha) - np.log(denominator)
    return np.where(np.broadcast_to(denominator == 0, out.shape), -np.log(n_values), out)


def log_sum_exp_rows(values):
    """``log(sum(exp(values), axis=1))``, stable, as a column (n_rows x 1).

    The arithmetic of ``scipy.special.logsumexp`` without its generality: 4x faster on the
    few-class matrices of prediction (0.12 ms against 0.52 ms for 2,407 x 15, scene), which
    made predict_proba slower than scikit-learn's on small data. All ``-inf`` gives ``-inf``.
    """
    largest = values.max(axis=1, keepdims=True)
    largest = np.where(np.isfinite(largest), largest, 0.0)
    with np.errstate(divide="ignore"):
        return largest + np.log(np.exp(values - largest).sum(axis=1, keepdims=True))


def log_normalise(joint):
    """``log P(v | x)`` from the joint ``log P(x, v)``: each row minus its logsumexp."""
    return joint - log_sum_exp_rows(joint)
