"""Categorical event models of nominal features: classical (Lidstone) and Bayesian (Dirichlet).

A nominal feature v holds integer codes ``0 .. K_v - 1`` (e.g. an ARFF nominal attribute's
value indices). Given the group c, its value is one draw of a categorical distribution::

    P(x_v = k | c) = (N_cvk + alpha_vk) / (N_c + A_v),    A_v = sum_{k < K_v} alpha_vk,

with ``N_cvk`` the (weighted) rows of c whose feature v is k and ``N_c`` those of c. With one
``alpha`` for every category it is Lidstone's estimate (:class:`Categorical`, scikit-learn's
``CategoricalNB``); with a Dirichlet(alpha_v0, ..., alpha_v,K-1) prior on each group's
distribution it is the posterior predictive of one new value (:class:`BayesianCategorical`,
which takes asymmetric concentrations). As for the Bernoulli pair, both are one computation.

**The statistics** are those of the *prepared* rows: :meth:`~_DirichletCategorical.prepare`
one-hot encodes every feature with category 0 as the reference, i.e. feature v becomes the
``K_v - 1`` indicator columns of its categories ``1 .. K_v - 1`` (features one after the
other), and ``N_cv0`` is recovered as ``N_c`` minus the counts of the others. A sparse X stays
exactly as sparse (an entry per non-zero code), a 0/1 feature stays one column, and a row's
log-likelihood is one product, as for the Bernoulli model::

    log p(x | c) = sum_v log P(x_v = 0 | c) + x_onehot . [log P(x_v = k | c) - log P(x_v = 0 | c)].

**How many categories.** An event model has no fitted state, so the layout (how many columns
each feature gets) is a hyper-parameter:

- ``n_categories`` given (an int, or one per feature): each feature has exactly that many
  values, all of which count in the smoothing whether seen or not (an ARFF attribute's
  declared values, as Weka's NaiveBayes counts them);
- ``n_categories=None`` (the default): as scikit-learn's ``CategoricalNB``, a feature's
  count is learnt from the statistics: its largest code seen in the rows (of positive
  weight: scikit-learn also counts rows of weight 0), plus one, at least
  ``min_categories``. The layout then holds the codes below ``max_categories`` (or
  ``min_categories`` if larger) for every feature; the codes above the learnt count have
  no probability.

**Values outside the layout** (a code >= ``n_categories`` or >= ``max_categories``, a
negative or non-integer value) raise a ValueError in ``prepare`` that names the feature, the
row and the value, and says what to change; a ``partial_fit`` (or ``merge``) with such a
value raises and leaves the estimator as it was (a wider layout needs a refit: statistics of
different layouts do not add). A new code within the layout is simply counted: with
``n_categories=None`` the feature's count grows with it, so chunked and merged training equal
one fit. With ``n_categories=None`` a row to predict may still hold a code within the layout
that the training rows never showed (scikit-learn raises an IndexError there): that feature
is skipped for that row, as a missing value (it adds nothing to any group's log-likelihood).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._base import EventModel, Parameters, non_negative, pair_table, transposed_difference

__all__ = [
    "BayesianCategorical",
    "Categorical",
    "CategoricalParameters",
    "count_categories",
]

# Pseudo-counts below this are raised to it: alpha = 0 would give log(0) for unseen values.
_MIN_SMOOTHING = 1e-10
# The default number of codes per feature accepted when n_categories is not given.
_DEFAULT_MAX_CATEGORIES = 16
# Counts of category 0 (N_c minus the other categories' counts) below this share of N_c are
# rounding residue of fractional weights: 0.
_RESIDUE = 1e-12
# Cells of a dense X one-hot encoded at once (1 MiB of floats; see _dense_one_hot).
_ONE_HOT_BLOCK = 1 << 17


def count_categories(X):
    """The number of categories of every feature of integer-coded X: its largest code + 1.

    What scikit-learn's ``CategoricalNB`` learns at fit time; give it (computed on all the
    data, or known from the data's description) as ``n_categories`` to fix the layout.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)

    Returns
    -------
    ndarray of int of shape (n_features,)
    """
    if sp.issparse(X):
        largest = np.asarray(sp.csc_matrix(X).max(axis=0).toarray()).ravel()
    else:
        X = np.asarray(X, dtype=np.float64)
        largest = X.max(axis=0) if len(X) else np.zeros(X.shape[1])
    return np.maximum(largest, 0).astype(np.int64) + 1


def _category_counts(value, name, minimum=1):
    """None, or ``value`` as a 0-d or 1-D int array of whole numbers >= ``minimum``."""
    if value is None:
        return None
    array = np.asarray(value)
    if (
        isinstance(value, bool)
        or array.dtype.kind not in "iuf"
        or array.ndim > 1
        or not np.all(np.isfinite(array))
        or not np.all(array == np.round(array))
        or np.any(array < minimum)
    ):
        raise ValueError(
            f"{name} must be None, an integer >= {minimum} or one such integer per feature; "
            f"got {value!r}"
        )
    return array.astype(np.int64)


@dataclass
class CategoricalParameters(Parameters):
    """Log-probabilities of a :class:`Categorical` or :class:`BayesianCategorical` model.

    ``log_odds`` (n_groups x n_columns): ``log P(x_v = k) - log P(x_v = 0)`` of every prepared
    column (feature v, category k >= 1), and minus ``log_base`` of v for the columns of codes
    not counted (so that such a value adds nothing); ``log_base`` (n_groups x n_features):
    ``log P(x_v = 0)``; ``feature`` (n_columns,): the feature of every column; ``n_values``
    (n_features,): the number of categories of every feature; ``log_base_sum`` (n_groups,) is
    derived.
    """

    log_odds: np.ndarray
    log_base: np.ndarray
    feature: np.ndarray
    n_values: np.ndarray
    log_base_sum: np.ndarray = None

    def refreshed(self):
        self.log_base_sum = self.log_base.sum(axis=1)
        return self

    def weights(self):
        """``log_odds.T`` as a C-contiguous array: the right operand of the one-hot's sparse
        product, which scipy would otherwise copy on every call. Made once and kept as a
        private attribute, as :func:`~mlnb.events._base.pair_table` keeps a pair's table:
        parameters never change in place, and model files leave private attributes out."""
        table = vars(self).get("_weights")
        if table is None:
            table = self._weights = np.ascontiguousarray(self.log_odds.T)
        return table


class _Layout:
    """The prepared columns of features with ``codes[v]`` codes each: categories 1.. of v."""

    def __init__(self, codes):
        self.codes = codes
        widths = codes - 1
        self.width = int(widths.sum())
        self.start = np.cumsum(widths) - widths  # first column of each feature
        self.feature = np.repeat(np.arange(len(codes)), widths)
        self.category = np.arange(self.width) - self.start[self.feature] + 1

    def indicator(self):
        """(n_columns x n_features) CSR: column j belongs to feature ``feature[j]``."""
        n_features = len(self.codes)
        return sp.csr_matrix(
            (np.ones(self.width), (np.arange(self.width), self.feature)),
            shape=(self.width, n_features),
        )


class _DirichletCategorical(EventModel):
    """Shared categorical computation; subclasses say which Dirichlet concentrations they mean.

    Hyper-parameters ``n_categories``, ``min_categories`` and ``max_categories`` (the layout)
    as described in :mod:`mlnb.events.categorical_model`.
    """

    input_kind = "categorical"
    keeps_width = False
    _statistics_params = ("n_categories", "min_categories", "max_categories")

    # ---- the layout -----------------------------------------------------------------------
    @property
    def _estimate_reads_totals(self):
        # learnt counts come from the total statistics (every group of one model shares them)
        return self.n_categories is None

    def statistics_key(self):
        """What the statistics depend on: the layout (arrays by value, not by repr)."""
        values = tuple(
            None if (value := getattr(self, name)) is None else tuple(np.ravel(value).tolist())
            for name in self._statistics_params
        )
        return (type(self).__name__, self.second_moments, values)

    def _layout_counts(self):
        """(n_categories, min_categories, max_categories), checked."""
        n_categories = _category_counts(self.n_categories, "n_categories")
        min_categories = _category_counts(self.min_categories, "min_categories", minimum=0)
        max_categories = _category_counts(self.max_categories, "max_categories")
        if max_categories is None or max_categories.ndim:
            raise ValueError(f"max_categories must be an integer >= 1; got {self.max_categories!r}")
        return n_categories, min_categories, int(max_categories)

    def _n_features_given(self):
        """The number of features that an array hyper-parameter fixes, or None."""
        lengths = {
            len(value)
            for value in (self.n_categories, self.min_categories, self.alpha)
            if value is not None and np.ndim(value) >= 1
        }
        if len(lengths) > 1:
            raise ValueError(
                "the per-feature hyper-parameters (n_categories, min_categories, alpha) give "
                f"different numbers of features: {sorted(lengths)}"
            )
        return lengths.pop() if lengths else None

    def _codes(self, n_features):
        """The number of codes each of ``n_features`` features may take (the layout)."""
        n_categories, min_categories, max_categories = self._layout_counts()
        given = self._n_features_given()
        if given is not None and given != n_features:
            raise ValueError(
                f"{type(self).__name__} was given per-feature hyper-parameters for {given} "
                f"features, but X has {n_features}"
            )
        if n_categories is None:
            codes = np.full(n_features, max_categories, dtype=np.int64)
        else:
            codes = np.broadcast_to(n_categories, (n_features,)).copy()
        if min_categories is not None:
            codes = np.maximum(codes, min_categories)
        return np.maximum(codes, 1)

    def prepared_width(self, n_features):
        """The number of prepared columns of ``n_features`` input features (sum of K_v - 1)."""
        return _Layout(self._codes(int(n_features))).width

    def input_width(self, n_prepared):
        """The number of input features whose prepared width is ``n_prepared`` (the inverse
        of :meth:`prepared_width`; a ValueError if none has it)."""
        return len(self._layout_of_width(int(n_prepared)).codes)

    def _layout_of_width(self, width):
        """The layout whose prepared width is ``width`` (that of some statistics)."""
        n_features = self._n_features_given()
        if n_features is None:  # every feature has the same number of codes
            per_feature = int(self._codes(1)[0]) - 1
            if per_feature == 0:
                n_features = 0
            elif width % per_feature == 0:
                n_features = width // per_feature
        layout = None if n_features is None else _Layout(self._codes(n_features))
        if layout is None or layout.width != width:
            raise ValueError(
                f"statistics of {width} columns do not match the layout of {self!r}: they "
                "were made with other n_categories, min_categories or max_categories"
            )
        return layout

    # ---- the protocol ---------------------------------------------------------------------
    def prepare(self, X, *, caller="this model"):
        """Check the codes and one-hot encode them (category 0 the reference, no column).

        A CSR matrix of ``prepared_width`` columns, one entry per non-zero code, for dense
        and sparse X alike: a feature of K codes has K - 1 columns of which at most one is
        1, so that the one-hot is sparse and its products are (on scene's 294 features in
        5 codes, dense against CSR: predict 85 against 24 ms).
        """
        n_samples, n_features = X.shape
        layout = _Layout(self._codes(n_features))
        if sp.issparse(X):
            X = sp.csr_matrix(X, dtype=np.float64, copy=True)
            X.sum_duplicates()
            X.eliminate_zeros()
            self._check_codes(X, layout.codes, caller)
            indices = layout.start[X.indices] + X.data.astype(np.int64) - 1
            indptr = X.indptr.copy()
        else:
            indices, indptr = self._dense_one_hot(np.asarray(X, dtype=np.float64), layout, caller)
        return sp.csr_matrix(
            (np.ones(len(indices)), indices, indptr), shape=(n_samples, layout.width)
        )

    def _dense_one_hot(self, X, layout, caller):
        """The CSR ``(indices, indptr)`` of the one-hot of dense X, checked.

        Code k >= 1 of feature v is prepared column ``start[v] + k - 1``, found by
        whole-block operations and a boolean mask (entries row by row, columns increasing).
        Blocks of ``_ONE_HOT_BLOCK`` cells keep the temporaries small: on scene, whole-array
        temporaries (and ``np.nonzero`` of the 2-D array before them) made predict 1.6x
        scikit-learn's time, blocks 0.5x, most of the difference being fresh memory.
        """
        n_samples, n_features = X.shape
        shift = layout.start - 1.0  # exact: codes and columns are integers below 2**53
        index_type = np.int32 if layout.width <= np.iinfo(np.int32).max else np.int64
        step = max(_ONE_HOT_BLOCK // max(n_features, 1), 1)
        indices, counts = [], []
        for first in range(0, n_samples, step):
            block = X[first : first + step]
            self._check_codes(block, layout.codes, caller, first_row=first)
            present = block != 0
            indices.append((block + shift)[present].astype(index_type))
            counts.append(np.count_nonzero(present, axis=1))
        indptr = np.zeros(n_samples + 1, dtype=np.int64)
        if n_samples:
            np.cumsum(np.concatenate(counts), out=indptr[1:])
        return np.concatenate(indices or [np.zeros(0, index_type)]), indptr

    def _check_codes(self, X, codes, caller, *, first_row=0):
        """A ValueError naming the first value (row by row) that is not a code of the layout.

        X: dense rows (the first being row ``first_row``), or CSR without explicit zeros;
        ``codes``: the number of codes of every feature.
        """
        sparse = sp.issparse(X)
        values = X.data if sparse else X
        limit = codes[X.indices] if sparse else codes
        bad = (values < 0) | (values >= limit) | (values != np.round(values))
        if not bad.any():
            return
        entry = int(np.flatnonzero(bad)[0])
        if sparse:
            row = int(np.searchsorted(X.indptr, entry, side="right")) - 1
            feature = int(X.indices[entry])
        else:
            row, feature = divmod(entry, X.shape[1])
        value = values.flat[entry]
        where = f"{caller}: feature {feature} (row {first_row + row}) has the value {value:g}"
        if value < 0 or value != np.round(value):
            raise ValueError(
                f"{where}; categorical features hold integer codes 0, 1, 2, ...: encode each "
                "feature's categories as codes first (e.g. sklearn.preprocessing.OrdinalEncoder)"
            )
        count = int(codes[feature])
        if self.n_categories is not None:
            cause = f"n_categories gives it {count} categories (codes 0..{count - 1})"
            fix = (
                "give n_categories the full count of every feature (e.g. the attribute's "
                "declared values, or mlnb.events.count_categories of all the data)"
            )
        else:
            cause = (
                f"the layout holds its codes 0..{count - 1} (max_categories={self.max_categories})"
            )
            fix = (
                f"raise max_categories to at least {int(value) + 1} or give n_categories "
                "(e.g. mlnb.events.count_categories of all the data)"
            )
        raise ValueError(
            f"{where}, but {cause}; {fix}, and refit: statistics of different layouts cannot "
            "be combined"
        )

    def _n_values(self, stats, layout):
        """K_v of every feature: the layout's, or learnt from the totals (n_categories=None)."""
        if self.n_categories is not None:
            return layout.codes
        _, min_categories, _ = self._layout_counts()
        seen = stats.total_sums > _RESIDUE * max(stats.total_count, 1.0)
        largest = np.zeros(len(layout.codes), dtype=np.int64)
        np.maximum.at(largest, layout.feature[seen], layout.category[seen])
        n_values = largest + 1
        return n_values if min_categories is None else np.maximum(n_values, min_categories)

    def _concentrations(self, n_features, n_values, width):
        """The Dirichlet concentrations ``alpha[v, k]``, shape (n_features, width): every
        category k < n_values[v] has its own; the others are not used."""
        raise NotImplementedError

    def estimate(self, stats):
        layout = self._layout_of_width(stats.n_features)
        n_features = len(layout.codes)
        n_values = self._n_values(stats, layout)
        width = int(layout.codes.max(initial=1))
        concentration = self._concentrations(n_features, n_values, width)
        counted = np.arange(width)[None, :] < n_values[:, None]
        observed = _observed_per_feature(stats, layout)  # N_c, or N_cv with missing values
        class_total = observed + (concentration * counted).sum(axis=1)[None, :]
        others = np.asarray(layout.indicator().T @ stats.sums.T).T  # (groups x features)
        zero = observed - others  # N_cv0
        zero[zero <= _RESIDUE * observed] = 0.0
        log_zero = np.log(zero + concentration[:, 0])
        log_base = log_zero - np.log(class_total)
        log_odds = np.log(stats.sums + concentration[layout.feature, layout.category])
        log_odds -= log_zero[:, layout.feature]
        uncounted = layout.category >= n_values[layout.feature]
        if uncounted.any():  # such a value adds log_base + log_odds = 0 to the row
            log_odds[:, uncounted] = -log_base[:, layout.feature[uncounted]]
        return CategoricalParameters(log_odds, log_base, layout.feature, n_values)

    def prepared_columns(self, n_features):
        """The feature of every prepared column (its categories 1 .. K_v - 1)."""
        return _Layout(self._codes(int(n_features))).feature

    def zero_terms(self, params):
        """``log P(x_v = 0)`` of each feature, shared equally by its prepared columns (a
        missing value marks all of them, see :meth:`prepare_observed`)."""
        widths = np.bincount(params.feature, minlength=params.log_base.shape[1])
        return params.log_base[:, params.feature] / widths[params.feature]

    def score(self, params, X):
        return np.asarray(X @ params.weights()) + params.log_base_sum[None, :]

    def score_ratio(self, params_a, params_b, X):
        odds = pair_table(
            params_a,
            params_b,
            "log_odds",
            lambda: transposed_difference(params_a.log_odds, params_b.log_odds),
        )
        base = params_a.log_base_sum - params_b.log_base_sum
        return np.asarray(X @ odds) + base[None, :]

    def silence(self, positive, negative, mask):
        """Each side's distribution of every feature coarsened to its selected categories.

        ``mask`` selects prepared columns, i.e. (feature, category) indicators, per group.
        Feature v then keeps its selected categories apart and merges all the others
        (category 0 included) into one value whose probability is their sum: the
        categorical Naive Bayes of the selected indicators. A feature with no selected
        column has a single value of probability 1 on both sides, so it adds exactly
        nothing to the log-odds.
        """
        mask = np.asarray(mask, dtype=bool)
        return tuple(_coarsened(side, mask) for side in (positive, negative))


def _observed_per_feature(stats, layout):
    """Rows of each group whose feature is observed, (n_groups x n_features) or (n_groups x 1).

    With missing values every prepared column of a feature has its feature's count; a
    feature without columns (one category) adds nothing, whatever its count.
    """
    if not stats.has_missing:
        return stats.count[:, None]
    has_columns = layout.codes > 1
    observed = np.repeat(stats.count[:, None], len(layout.codes), axis=1)
    observed[:, has_columns] = stats.observed[:, layout.start[has_columns]]
    return observed


def _coarsened(params, mask):
    """``params`` with each feature's unselected categories merged into one value."""
    feature = params.feature
    n_features = params.log_base.shape[1]
    category = np.arange(len(feature)) - np.searchsorted(feature, feature) + 1
    counted = category < params.n_values[feature]
    selected = mask & counted[None, :]
    log_category = params.log_odds + params.log_base[:, feature]  # log P(x_v = k), k >= 1
    indicator = sp.csr_matrix(
        (np.ones(len(feature)), (np.arange(len(feature)), feature)),
        shape=(len(feature), n_features),
    )
    merged_rest = np.where(counted[None, :] & ~selected, np.exp(log_category), 0.0)
    merged = np.exp(params.log_base) + np.asarray(indicator.T @ merged_rest.T).T
    any_selected = np.asarray(indicator.T @ selected.T.astype(float)).T > 0
    log_merged = np.where(any_selected, np.log(merged), 0.0)  # exactly 0: nothing selected
    log_odds = np.where(selected, log_category - log_merged[:, feature], 0.0)
    log_odds = np.where(counted[None, :], log_odds, -log_merged[:, feature])
    return CategoricalParameters(log_odds, log_merged, feature, params.n_values)


class Categorical(_DirichletCategorical):
    """Classical categorical event model with Lidstone smoothing (scikit-learn's CategoricalNB).

    ``P(x_v = k | c) = (N_cvk + alpha) / (N_c + K_v alpha)`` for integer codes ``k`` of
    ``0 .. K_v - 1``. See :mod:`mlnb.events.categorical_model` for the encoding, the number
    of categories and values outside it.

    Parameters
    ----------
    alpha : float or ndarray of shape (n_features,), default=1.0
        Additive smoothing, one value for all features or one per feature; values below
        1e-10 are raised to 1e-10 (scikit-learn's ``force_alpha=False``).
    n_categories : int, ndarray of shape (n_features,) or None, default=None
        The number of categories K_v of every feature, all counted in the smoothing; None
        learns it from the statistics (largest code seen + 1), as scikit-learn does.
    min_categories : int, ndarray of shape (n_features,) or None, default=None
        A lower bound of every K_v (scikit-learn's ``min_categories``).
    max_categories : int, default=16
        With ``n_categories=None``: the codes accepted are those below ``max_categories``
        (or ``min_categories`` if larger); each feature gets that many columns but one.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import MixedNB
    >>> from mlnb.events import Categorical
    >>> X = np.array([[0, 2], [0, 1], [1, 0], [2, 0]])
    >>> model = MixedNB(blocks=[(Categorical(), slice(None))]).fit(X, [0, 0, 1, 1])
    >>> model.predict([[0, 2], [2, 0]])
    array([0, 1])
    """

    name = "categorical"

    def __init__(
        self,
        alpha=1.0,
        n_categories=None,
        min_categories=None,
        max_categories=_DEFAULT_MAX_CATEGORIES,
    ):
        self.alpha = alpha
        self.n_categories = n_categories
        self.min_categories = min_categories
        self.max_categories = max_categories

    def _concentrations(self, n_features, n_values, width):
        alpha = non_negative(self.alpha, "alpha", floor=_MIN_SMOOTHING)
        if alpha.ndim > 1 or (alpha.ndim == 1 and alpha.shape != (n_features,)):
            raise ValueError(
                f"alpha must be a number or one per feature; got shape {alpha.shape} for "
                f"{n_features} features (asymmetric concentrations: BayesianCategorical)"
            )
        return np.broadcast_to(np.reshape(alpha, (-1, 1)), (n_features, width))


class BayesianCategorical(_DirichletCategorical):
    """Dirichlet-categorical posterior predictive, with asymmetric concentrations.

    With a Dirichlet(alpha_v0, ..., alpha_v,K-1) prior on each group's distribution of
    feature v, the posterior after ``N_cvk`` observations is Dirichlet(alpha_vk + N_cvk),
    and the predictive probability of a new value is its mean::

        P(x_v = k | c, data) = (N_cvk + alpha_vk) / (N_c + A_v),  A_v = sum_k alpha_vk.

    With one concentration per feature (a symmetric prior) it equals :class:`Categorical`
    with that ``alpha``; what the Bayesian model adds is the prior's mean
    ``alpha_vk / A_v``, which need not be uniform (e.g. the overall frequencies of the
    categories times a strength). The posterior predictive of a whole row is the product of
    these: the features' posteriors are independent given the group (their priors are, and
    the likelihood factorises), unlike the multinomial's words, which share one distribution
    (:class:`BayesianMultinomial`, a Dirichlet-multinomial). The MAP estimate would be
    ``(N_cvk + alpha_vk - 1) / (N_c + A_v - K_v)``; it is not what this model computes.

    Parameters
    ----------
    alpha : float, ndarray of shape (n_features,) or (n_features, m), default=1.0
        Dirichlet concentrations: one for every category of every feature, one per feature,
        or ``alpha[v, k]`` for category k of feature v (m at least every feature's number of
        categories; entries beyond it are not used). Values below 1e-10 are raised to 1e-10.
    n_categories, min_categories, max_categories
        As in :class:`Categorical`.
    """

    name = "bayesian_categorical"

    def __init__(
        self,
        alpha=1.0,
        n_categories=None,
        min_categories=None,
        max_categories=_DEFAULT_MAX_CATEGORIES,
    ):
        self.alpha = alpha
        self.n_categories = n_categories
        self.min_categories = min_categories
        self.max_categories = max_categories

    def _concentrations(self, n_features, n_values, width):
        alpha = non_negative(self.alpha, "alpha", floor=_MIN_SMOOTHING)
        if alpha.ndim < 2:
            if alpha.ndim == 1 and alpha.shape != (n_features,):
                raise ValueError(f"alpha has {alpha.shape[0]} values for {n_features} features")
            return np.broadcast_to(np.reshape(alpha, (-1, 1)), (n_features, width))
        if alpha.ndim > 2 or alpha.shape[0] != n_features:
            raise ValueError(
                f"alpha must be a number, one per feature or an (n_features, m) array; got "
                f"shape {alpha.shape} for {n_features} features"
            )
        short = np.flatnonzero(n_values > alpha.shape[1])
        if short.size:
            feature = int(short[0])
            raise ValueError(
                f"alpha gives concentrations of {alpha.shape[1]} categories, but feature "
                f"{feature} has {int(n_values[feature])}: give alpha at least that many columns"
            )
        if alpha.shape[1] >= width:
            return alpha[:, :width]
        # the codes beyond alpha's columns are beyond every n_values: not used
        return np.hstack([alpha, np.ones((n_features, width - alpha.shape[1]))])
