"""Multinomial event models: classical (Lidstone) and Bayesian (Dirichlet-multinomial).

Xu (2018), "Bayesian Naive Bayes classifiers to text classification": eq. 4 for the
classical estimate, eq. 20 for the posterior predictive. Statistics used: the per-class word
counts ``n_cv`` (``stats.sums``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from ..missing import split_missing
from ._base import (
    EventModel,
    Parameters,
    check_counts,
    check_weights_dtype,
    entrywise_sums,
    non_negative,
    pair_table,
    transposed_difference,
    weighted_product,
)
from .compact import CompactLogOdds

__all__ = [
    "BayesianMultinomial",
    "DirichletMultinomialParameters",
    "Multinomial",
    "MultinomialParameters",
    "per_feature_smoothing",
]

# alpha = 0 gives log(0) for unseen words: floored here unless force_alpha (scikit-learn's bound).
_MIN_SMOOTHING = 1e-10
# Floats of the temporaries of Multinomial.stacked_log_odds (2**16: 512 KiB).
_RATIO_BLOCK = 1 << 16


@dataclass
class MultinomialParameters(Parameters):
    """``log_phi``: log word probabilities, shape (n_groups, n_features)."""

    log_phi: np.ndarray


@dataclass
class DirichletMultinomialParameters(Parameters):
    """Posterior of :class:`BayesianMultinomial`.

    ``smoothed``: ``beta + n_cv`` (n_groups x n_features); ``class_total``: ``V beta + n_c``
    over the words that count (n_groups,); ``words``: None (every word counts) or the 0/1
    (n_groups x n_features) mask of the words that count (after :meth:`~EventModel.silence`).
    """

    smoothed: np.ndarray
    class_total: np.ndarray
    words: np.ndarray | None = None


class _CountModel(EventModel):
    """Shared input check: counts (or any non-negative values)."""

    input_kind = "counts"
    zero_features_silent = True
    _estimate_reads_totals = False

    def prepare(self, X, *, caller="this model"):
        return check_counts(X, caller, "multinomial")

    def zero_terms(self, params):
        """Zeros: a word absent from a document adds nothing (a missing count is absent)."""
        n_groups, n_features = _parameter_shape(params)
        return np.zeros((n_groups, n_features))


class Multinomial(_CountModel):
    """Classical multinomial event model with Lidstone smoothing.

    ``phi_cv = (n_cv + alpha) / (n_c + V alpha)`` (Xu 2018, eq. 4, where it is called beta);
    ``log p(x | c) = sum_v x_v log phi_cv`` (the multinomial coefficient is class-independent
    and dropped, as in scikit-learn).

    Parameters
    ----------
    alpha : float or ndarray of shape (n_features,), default=1.0
        Additive (Laplace/Lidstone) smoothing, one value for all words or one per word.
    force_alpha : bool, default=False
        If False, values of alpha below 1e-10 are raised to 1e-10 (silently); if True,
        alpha is used as given (0 is unsmoothed: unseen words get ``log 0 = -inf``).
    dtype : {"float64", "float32"}, default="float64"
        Storage of the dense log-odds weight table a fitted label model keeps;
        ``"float32"`` halves it and computes its product with X in single precision
        (scores to about 1e-6 relative; on seven benchmark sets no decision and no top-5
        changed). Statistics, estimates, scores and the compact form stay float64.
    """

    name = "multinomial"

    def __init__(self, alpha=1.0, force_alpha=False, dtype="float64"):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.dtype = dtype

    def smoothing(self, n_features):
        """The alpha used: checked, floored unless ``force_alpha``; 0-d or (n_features,)."""
        return per_feature_smoothing(self.alpha, "alpha", n_features, self.force_alpha)

    def estimate(self, stats):
        return self.estimate_columns(stats, slice(None))

    def estimate_columns(self, stats, columns):
        check_weights_dtype(self.dtype)  # at fit, not first at predict
        alpha = self.smoothing(stats.n_features)
        sums = stats.sums[:, columns]
        sums = sums.toarray() if sp.issparse(sums) else sums  # compact statistics
        if alpha.ndim:
            class_total = stats.group_sums()[:, None] + alpha.sum()
            log_phi = sums + alpha[columns]
        else:
            class_total = stats.group_sums()[:, None] + stats.n_features * alpha
            log_phi = sums + alpha
        np.log(log_phi, out=log_phi)  # in place: one (groups x features) array, not three
        log_phi -= np.log(class_total)
        return MultinomialParameters(log_phi)

    def score(self, params, X):
        return np.asarray(X @ params.log_phi.T)

    def silence(self, positive, negative, mask):
        """Each side's word distribution renormalised over the selected words.

        Naive Bayes on the selected words alone: an unselected word adds nothing to either
        side's log-likelihood.
        """
        return tuple(
            MultinomialParameters(_renormalised(side.log_phi, mask))
            for side in (positive, negative)
        )

    def has_compact_form(self, n_features) -> bool:
        """Whether :meth:`compact_log_odds` applies: every alpha > 0."""
        return bool(np.all(self.smoothing(n_features) > 0))

    def compact_log_odds(self, stats):
        """The log-odds weights of every group against the rest of the rows (binary
        relevance: ``phi`` of a label's rows against ``phi`` of the others, each by Xu
        2018, eq. 4), in the compact form of :class:`~mlnb.events.compact.CompactLogOdds`:
        memory in the non-zero sums of ``stats`` (compact or not).
        """
        alpha = np.broadcast_to(self.smoothing(stats.n_features), (stats.n_features,))
        total = np.asarray(stats.total_sums, dtype=np.float64)
        own = stats.group_sums()
        smoothing = float(alpha.sum())
        rest = max(float(total.sum()), 0.0) - own
        with np.errstate(divide="ignore"):  # alpha = 0 (force_alpha): log 0 as the dense path
            base = np.log(alpha) - np.log(total + alpha)
            length = np.log(rest + smoothing) - np.log(own + smoothing)
            corrections = sp.csr_matrix(stats.sums.T, dtype=np.float64, copy=True)
            feature = np.repeat(np.arange(stats.n_features), np.diff(corrections.indptr))
            seen = corrections.data
            corrections.data = (
                np.log(seen + alpha[feature])
                - np.log(total[feature] - seen + alpha[feature])
                - base[feature]
            )
        return CompactLogOdds(base, length, corrections)

    def stacked_log_odds(self, stats, groups, totals, member, X):
        """One pass from the statistics to the weights of the product, for several models.

        ``log phi+ - log phi-`` is computed as one logarithm of a ratio, written straight
        into the transposed layout that the product with X takes without a copy: one
        logarithm instead of two per weight, and no complement statistics, parameter or
        difference arrays. Equal to the generic path up to rounding (about 1e-15).
        """
        totals = np.asarray(totals)
        n_models = len(totals)
        positive = stats.select_groups(groups, copy=False)
        n_groups, n_features = positive.n_groups, positive.n_features
        per_model = n_groups // max(n_models, 1)
        blocks = np.repeat(np.arange(n_models), per_model)
        if n_groups != per_model * n_models or not np.array_equal(member, blocks):
            return super().stacked_log_odds(stats, groups, totals, member, X)
        alpha = self.smoothing(n_features)
        if alpha.ndim:  # one alpha per word: the generic path
            return super().stacked_log_odds(stats, groups, totals, member, X)
        alpha = float(alpha)
        if stats.compact:  # the tuner's tables are dense
            stats = stats.copy(deep=False)
            stats.sums = stats.sums.toarray()
            positive = stats.select_groups(groups, copy=False)
        sums = positive.sums.reshape(n_models, per_model, n_features)
        model_sums = stats.sums[totals][:, None, :]
        # weights.T[v, g] = log((n_gv + alpha) / (N_mv - n_gv + alpha)) - log(totals ratio)
        weights = np.empty((n_features, n_groups))
        by_model = weights.reshape(n_features, n_models, per_model).transpose(1, 2, 0)
        np.subtract(model_sums, sums, out=by_model)
        weights += alpha
        rows = max(_RATIO_BLOCK // max(n_groups, 1), 1)  # features at a time: small temporaries
        for start in range(0, n_features, rows):
            block = weights[start : start + rows]
            np.divide(positive.sums[:, start : start + rows].T + alpha, block, out=block)
        np.log(weights, out=weights)
        own = positive.group_sums()
        rest = stats.group_sums()[totals][member] - own
        smoothing = n_features * alpha
        weights -= (np.log(own + smoothing) - np.log(rest + smoothing))[None, :]
        return np.asarray(split_missing(X)[0] @ weights)  # a missing count adds nothing

    def score_ratio(self, params_a, params_b, X):
        dtype = check_weights_dtype(self.dtype)
        weights = pair_table(
            params_a,
            params_b,
            f"log_phi_{dtype.name}",
            lambda: transposed_difference(params_a.log_phi, params_b.log_phi).astype(
                dtype, copy=False
            ),
        )
        return weighted_product(X, weights)


def per_feature_smoothing(value, name, n_features, force=False):
    """A smoothing hyper-parameter checked to be >= 0, scalar or one value per feature.

    Below 1e-10 it is raised to 1e-10 unless ``force`` (scikit-learn's ``force_alpha``).
    Returns a 0-d array or an array of shape (n_features,).
    """
    value = non_negative(value, name, floor=0.0 if force else _MIN_SMOOTHING)
    if value.ndim > 1 or (value.ndim == 1 and value.shape[0] != n_features):
        raise ValueError(
            f"{name} must be a number or an array of one value per feature; got shape "
            f"{value.shape} for {n_features} features"
        )
    return value


def _parameter_shape(params):
    """(n_groups, n_features) of a multinomial model's parameters."""
    for name in ("log_phi", "smoothed", "weights"):
        if hasattr(params, name):
            return getattr(params, name).shape
    raise TypeError(f"no per-feature array in {type(params).__name__}")


def _renormalised(log_phi, mask):
    """``log_phi`` renormalised over the masked words of each group, 0 elsewhere."""
    log_phi = np.where(mask, log_phi, -np.inf)
    peak = np.max(log_phi, axis=1, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    # a group with no selected word has log_total = -inf: every entry below is then 0
    with np.errstate(divide="ignore", invalid="ignore"):
        log_total = peak + np.log(np.exp(log_phi - peak).sum(axis=1, keepdims=True))
        return np.where(mask, log_phi - log_total, 0.0)


def _dirichlet_multinomial_term(x, smoothed_count, log_gamma_smoothed):
    """``lgamma(beta + n_cv + x) - lgamma(beta + n_cv)``: zero at x = 0. The second
    logarithm depends on the class and word alone: it is given (``log_gamma_smoothed``),
    made once per (class, word) rather than once per entry."""
    return gammaln(smoothed_count + x) - log_gamma_smoothed


def _log_gamma_smoothed(params):
    """``gammaln(params.smoothed)``, made once per parameter object and kept as its
    private attribute, as :func:`~mlnb.events._base.pair_table` keeps weight tables
    (parameters never change in place; model files leave it out, pickles keep it)."""
    cached = vars(params).get("_log_gamma_smoothed")
    if cached is None:
        cached = gammaln(params.smoothed)
        params._log_gamma_smoothed = cached
    return cached


class BayesianMultinomial(_CountModel):
    """Dirichlet-multinomial posterior predictive (Xu 2018, eq. 20).

    With a symmetric Dirichlet(beta) prior on each class's word distribution, a document with
    counts ``x_v`` (``N = sum_v x_v``) has::

        log p(x | c) = lgamma(B + n_c) - lgamma(B + n_c + N)
                       + sum_{v: x_v > 0} [lgamma(beta + n_cv + x_v) - lgamma(beta + n_cv)]

    with ``B = V beta``. The last sum runs over the document's non-zero words only.

    Parameters
    ----------
    beta : float, default=1.0
        Dirichlet concentration of every word (the paper tunes log2(beta) in -15..1).
    """

    name = "bayesian_multinomial"

    def __init__(self, beta=1.0):
        self.beta = beta

    def estimate(self, stats):
        return self.estimate_columns(stats, slice(None))

    def estimate_columns(self, stats, columns):
        beta = non_negative(self.beta, "beta", floor=_MIN_SMOOTHING)
        class_total = stats.group_sums() + stats.n_features * beta
        return DirichletMultinomialParameters(stats.sums[:, columns] + beta, class_total)

    def score(self, params, X):
        return self._scores([params], X)[0]

    def score_ratio(self, params_a, params_b, X):
        """``score(a, X) - score(b, X)``, the sides' word terms summed by one pass over X
        (its features' distinct values found once, see
        :func:`~mlnb.events._base.entrywise_sums`)."""
        score_a, score_b = self._scores([params_a, params_b], X)
        return score_a - score_b

    @staticmethod
    def _scores(param_sets, X):
        """:meth:`score` of X under each of several parameter objects."""
        X = sp.csr_matrix(X) if not sp.issparse(X) else X
        masked = [params.words is not None for params in param_sets]
        if any(masked) and not all(masked):  # a plain and a silenced side: apart
            return [BayesianMultinomial._scores([params], X)[0] for params in param_sets]
        terms = [[params.smoothed, _log_gamma_smoothed(params)] for params in param_sets]
        masks = [params.words for params in param_sets] if all(masked) else None
        words = entrywise_sums(X, _dirichlet_multinomial_term, terms, masks=masks)
        scores = []
        for params, word_terms in zip(param_sets, words, strict=True):
            class_total = params.class_total[None, :]
            if params.words is None:
                doc_length = np.asarray(X.sum(axis=1)).ravel()[:, None]
            else:
                doc_length = np.asarray(X @ params.words.T)
            # a document with none of the selected words has probability 1 under them (a
            # label whose selection is empty has a class total of 0: no inf - inf)
            with np.errstate(invalid="ignore"):
                length_term = gammaln(class_total) - gammaln(class_total + doc_length)
            scores.append(np.where(doc_length > 0, length_term, 0.0) + word_terms)
        return scores

    def silence(self, positive, negative, mask):
        """Each side's predictive over the selected words alone (Dirichlet-multinomial of
        the document restricted to them: its length counts those words only)."""
        words = np.asarray(mask, dtype=float)
        silenced = []
        for side in (positive, negative):
            params = DirichletMultinomialParameters(
                side.smoothed, (side.smoothed * words).sum(axis=1), words
            )
            # the same smoothed counts: their gammaln made once for every silencing
            params._log_gamma_smoothed = _log_gamma_smoothed(side)
            silenced.append(params)
        return tuple(silenced)
