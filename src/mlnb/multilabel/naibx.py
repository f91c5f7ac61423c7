"""NaiBX, the online Naive Bayes cascade for label-subset prediction.

Mossina and Rachelson (2017), "Naive Bayes Classification for Subset Selection". A label set is
predicted as its size first, then its elements one at a time, each step a Naive Bayes classifier
over the labels not chosen yet, given the ones already chosen::

    f0(x)      = argmax_m  P(M = m) prod_i p(x_i | M = m)
    f_k(x, m)  = argmax_{y not chosen}  P(y) prod_i p(x_i | y) P(M = m | y)
                                        prod_{j < k} P(Y' = y_j | Y = y)       (eq. 9)

Every factor is one of the six univariate distributions of the paper's Table 1, estimated
from additive counts that one vectorised pass over a batch produces:

=====  ==============================  ==========================================
Table  distribution                    statistics (attribute)
=====  ==============================  ==========================================
1      ``P(M = m)``                    size histogram (``size_stats_.count``)
2      ``p(x_i | M = m)``              X grouped by one-hot sizes (``size_feature_stats_``)
3      ``P(Y = y)``                    label counts (``label_stats_.count``)
4      ``p(x_i | y in Y)``             X grouped by Y (``feature_stats_``)
5      ``P(M = m | y in Y)``           ``onehot(m).T @ Y`` (``size_stats_.sums``)
6      ``P(Y' = y' | Y = y)``          ``Y.T @ Y`` off the diagonal (``label_stats_.sums``)
=====  ==============================  ==========================================

The discrete distributions use the paper's Laplace smoothing (its Equation 11),
``(N_v + alpha) / (N + K alpha)`` with ``alpha = prior_alpha`` (1 in the paper) and K the
number of values the variable can take:

- ``P(M)``: K = L + 1 (sizes 0..L), N = number of examples;
- ``P(Y)``: K = L, N = number of label occurrences (a label is counted once per example
  holding it);
- ``P(M | y)``: K = L, N = N_y. Given ``y in Y`` the size is one of 1..L: m = 0 is
  impossible, the argument the paper makes for ``P(Y' | Y)``;
- ``P(Y' | Y = y)``: K = L - 1 (``y' = y`` is forbidden), N = number of (y, y') pairs
  observed, ``sum_{y' != y} C[y, y']``.

Storage is O(L (kappa d + L)) numbers, whatever the number of examples.

*Unknown label cells* (NaN in Y): Table 4 counts the rows known to hold each label;
Tables 3 and 6 each label's rate over the rows where it (for a pair: the other label) is
known, scaled to all the rows (``N_y / known_y * N``); Tables 1, 2 and 5 the rows whose
every label is known (a row's size is unknown otherwise).
"""

from __future__ import annotations

import numbers
from typing import ClassVar, NamedTuple

import numpy as np
from scipy.special import logsumexp
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from ..base.state import same_params
from ..base.validation import Integers
from ..events import PerLabel
from ..events.categorical import check_pseudo_count, log_categorical
from ..labels import split_unknown
from ..stats import GroupStats, NamedStats, one_hot
from . import _online_rows
from ._base import NB_CONSTRAINTS, AdditiveLabelNB, count_new_labels
from ._labels import binary_classes
from ._resolution import OWN_RULE, is_tuned

__all__ = ["CascadeSteps", "NaiBX"]


_FITTED = (
    "feature_stats_",
    "label_stats_",
    "size_stats_",
    "size_feature_stats_",
    "n_labels_",
    "classes_",
    "events_",
    "_cache",
)


def _rate_times(count, known, total):
    """``count / known * total``: a count over the rows where a label is known, scaled to
    all the rows (0 where nothing is known)."""
    out = np.zeros(np.broadcast_shapes(np.shape(count), np.shape(known), np.shape(total)))
    np.divide(count * total, known, out=out, where=np.asarray(known) > 0)
    return out


class CascadeSteps(NamedTuple):
    """The decisions of the cascade for each sample (:meth:`NaiBX.predict_steps`).

    Attributes
    ----------
    sizes : ndarray of shape (n_samples,)
        The size m of each predicted label set (predicted, fixed or given).
    labels : ndarray of shape (n_samples, max(sizes))
        ``labels[i, k]`` is the label chosen at step k + 1; -1 after the last step of row i.
    proba : ndarray of shape (n_samples, max(sizes))
        The normalised probability of that choice among the candidate labels (eq. 9);
        NaN after the last step of row i.
    """

    sizes: np.ndarray
    labels: np.ndarray
    proba: np.ndarray


_STATISTICS = ("feature_stats_", "label_stats_", "size_stats_", "size_feature_stats_")


class NaiBX(AdditiveLabelNB):
    """NaiBX: predict a label set's size, then its labels one by one (a Naive Bayes cascade).

    Online (``partial_fit`` takes one example or a batch), mergeable (``merge`` adds the
    statistics of a model fitted on other rows) and of storage independent of the number
    of examples. See the module docstring for the six distributions and their smoothing.

    Parameters
    ----------
    events : str or event model, default="tuned"
        Event model of the features, shared by ``p(x | y)`` and ``p(x | m)``
        (:mod:`mlnb.events`): ``"gaussian"`` for continuous data, ``"bernoulli"`` for a
        binary bag of words, ``"multinomial"`` for counts, or a ``"bayesian_*"`` model;
        ``"tuned"``: chosen with its smoothing by cross-validation on the training rows.
    rule : "tuned", "predict", a rule name or a rule object, default="tuned"
        ``"predict"``: the size cascade (the paper's); a rule of
        :data:`mlnb.decision_rules.RULES` fitted to out-of-fold scores
        (:meth:`decision_function`); ``"tuned"``: the best of them and the cascade by
        out-of-fold micro F1, the cascade kept unless a rule beats it by more than one
        standard error over the folds (see ``chosen_``). With ``fixed_size`` the cascade
        decides (``"tuned"`` searches no rule).
    fixed_size : int or None, default=None
        If given, every predicted set has this size and no size predictor is built (the
        power-plant task: choose m of K items). Must not exceed the number of labels.
    prior_alpha : float, default=1.0
        Pseudo-count ``alpha`` of the Laplace smoothing of ``P(M)``, ``P(Y)``, ``P(M | Y)``
        and ``P(Y' | Y)`` (paper eq. 11: alpha = 1). 0 gives maximum-likelihood estimates:
        then a pair of labels never seen together is never chosen together unless no other
        label is left.
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.

    Attributes
    ----------
    n_labels_ : int
        L, the number of labels.
    feature_stats_ : GroupStats
        Statistics of X over the rows holding each label (Table 1, rows 3-4).
    label_stats_ : GroupStats
        Statistics of Y grouped by Y: label counts and co-occurrences ``Y.T @ Y`` (row 6).
    size_stats_ : GroupStats
        Statistics of Y grouped by one-hot sizes 0..max size seen: the size histogram and
        ``N[m, y]`` (rows 1 and 5).
    size_feature_stats_ : GroupStats or None
        Statistics of X grouped by one-hot sizes (row 2); None with ``fixed_size``.
    log_size_prior_, log_label_prior_, log_size_given_label_, log_pair_ : ndarray
        The smoothed discrete distributions (read-only, derived from the statistics):
        ``log P(M = m)`` (L + 1,), ``log P(Y = y)`` (L,), ``log P(M = m | y)``
        (L + 1, L) and ``log P(Y' = y' | Y = y)`` indexed [y, y'] (L, L; -inf on the
        diagonal, the forbidden value).

    Notes
    -----
    *Sizes.* M takes the values 0..L. Statistics are kept for the sizes 0..(largest seen),
    extended when ``partial_fit`` or ``merge`` brings a larger one; the counts of larger
    sizes are 0. The size predictor ``f0`` chooses among the sizes seen in training (a size
    never seen has no feature model). An empty label set (m = 0) is a size like any other:
    learnt from examples without labels and predicted as an empty row. With ``sizes=``
    (the paper's "TrueM" mode) any size 0..L can be asked for; a size never seen gets
    ``P(M = m | y) = alpha / (N_y + L alpha)`` for every label.

    *Labels never seen* (zero weighted count) have no feature model: they are chosen only
    when the size asks for more labels than the seen ones still available, in index order
    and as equally probable.

    *Online learning.* A ``partial_fit`` of a few rows (up to 256, numpy arrays or CSR
    matrices) of the fitted labels and label-set sizes updates the statistics in place
    (Welford's update) and defers the estimation of the distributions to the next
    prediction, as the paper's ``add_example`` does; larger batches take one vectorised
    pass. Either way a rejected call leaves the model unchanged.

    *Relation to single-label Naive Bayes.* If every example has exactly one label, the
    first step of the cascade is the multi-class Naive Bayes classifier of the same event
    model with the class prior ``P(Y)``, times ``P(M = 1 | y) = (N_y + alpha) /
    (N_y + L alpha)``. With ``prior_alpha=0`` that factor is 1 and NaiBX predicts exactly as
    the multi-class NB with the maximum-likelihood prior (scikit-learn's default); with
    ``prior_alpha=1`` it predicts as the NB with a Laplace prior when the classes are
    equally frequent. L = 2 gives a binary classifier (the paper's remark in section 4.1).

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.multilabel.naibx import NaiBX
    >>> X = np.array([[0.0], [0.2], [1.0], [1.2], [2.0], [2.2]])
    >>> Y = np.array([[1, 0, 0], [1, 0, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 1, 1]])
    >>> model = NaiBX(events="gaussian", rule="predict").fit(X, Y)
    >>> model.predict_size([[0.1], [2.1]])
    array([1, 2])
    >>> model.predict([[0.1], [2.1]])
    array([[1, 0, 0],
           [0, 1, 1]])
    >>> steps = model.predict_steps([[0.1], [2.1]])
    >>> steps.labels  # label 2 first, then label 1 given label 2
    array([[ 0, -1],
           [ 2,  1]])
    >>> steps.proba.round(3)
    array([[0.996,   nan],
           [0.546, 0.989]])
    >>> model.predict([[2.1]], sizes=[1])  # the paper's "TrueM" mode
    array([[0, 0, 1]])
    """

    _parameter_constraints: ClassVar[dict] = {
        **NB_CONSTRAINTS,
        "fixed_size": [Integers(0, None, closed="left"), None],
    }

    #: The statistics a row adds to (:mod:`._online_rows`): X and Y by the labels it holds
    #: and by its number of labels; the distributions derived from them are cached.
    _ONLINE_STATISTICS = (
        ("feature_stats_", "X", "labels"),
        ("label_stats_", "Y", "labels"),
        ("size_stats_", "Y", "sizes"),
        ("size_feature_stats_", "X", "sizes"),
    )
    _DERIVED = ("_cache",)
    #: Unknown cells of Y: the label stage learns each label from the rows where it is
    #: known, the size stage from the rows whose every label is known (see ``_model``).
    _learns_unknown_cells = True
    #: The label stage's feature models are per label and may each be its own
    #: (:class:`~mlnb.events.PerLabel`; the size stage keeps the common one), but the
    #: defaults' search does not try it: tried, it was chosen on none of the 13 benchmark
    #: sets with a split and cost up to 35 % more (tmc2007, 2026-12-02);
    #: ``resolve_settings(NaiBX(), X, Y, per_label=True)`` tries it.
    _chooses_per_label = False

    def __init__(
        self, *, events="tuned", rule="tuned", fixed_size=None, prior_alpha=1.0, missing="error"
    ):
        self.events = events
        self.rule = rule
        self.fixed_size = fixed_size
        self.prior_alpha = prior_alpha
        self.missing = missing

    # ---- fitting ------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit from scratch.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like or sparse matrix of shape (n_samples, n_labels)
            0/1 label-indicator matrix; a row of zeros is an empty label set.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        snapshot = dict(self.__dict__)
        for name in _FITTED:
            self.__dict__.pop(name, None)
        try:
            return self.partial_fit(X, y, sample_weight)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(snapshot)
            raise

    def partial_fit(self, X, y, sample_weight=None):
        """Learn one example or a batch (online); a call that raises changes nothing.

        A batch may bring new labels: columns after the known ones, taken as 0 in every
        earlier row (the model equals a fit on the whole stream with those zeros).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like or sparse matrix of shape (n_samples, n_labels)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        return super().partial_fit(X, y, sample_weight)

    def _partial_fit(self, X, Y, sample_weight):
        first_call = not hasattr(self, "feature_stats_")
        self._validate_params()
        X = self._validate_X(X, reset=first_call)
        Y = self._check_labels(Y, X.shape[0])
        new_labels = 0 if first_call else count_new_labels(self, Y.shape[1])
        self._check_fixed_size(Y.shape[1])
        self._check_alpha()
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        events = self.event_model(X) if first_call else self.events_
        prepared = self._bound_events(events).prepare(X, caller=type(self).__name__)
        batch = self._batch_statistics(prepared, Y, weight, events)
        if not first_call:  # sizes seen in one of them only get empty groups in the other
            so_far = self._statistics_so_far(new_labels)
            batch = so_far.merge(NamedStats(**batch)).parts
        self._install_statistics(batch, events)
        _online_rows.own(self)  # new statistics, made under checked hyper-parameters
        return self

    def _statistics_so_far(self, new_labels=0):
        """The four statistics as a new NamedStats (sharing arrays: ``merge`` replaces them).

        ``new_labels``: with that many labels appended, 0 in every row so far (empty label
        groups, zero label features).
        """
        stats = NamedStats(**{name: getattr(self, name) for name in _STATISTICS})
        if not new_labels:
            return stats.copy(deep=False)
        parts = stats.parts
        return NamedStats(
            feature_stats_=parts["feature_stats_"].add_groups(new_labels),
            label_stats_=parts["label_stats_"].add_groups(new_labels).add_features(new_labels),
            size_stats_=parts["size_stats_"].add_features(new_labels),
            size_feature_stats_=parts["size_feature_stats_"],
        ).copy(deep=False)

    def _fitted_statistics(self):
        return self._statistics_so_far()

    def _replace_statistics(self, stats):
        """Install the four statistics; label-set sizes no longer seen keep their (empty)
        groups, as after ``partial_fit``."""
        self._install_statistics(stats.parts, self.events_)

    def _install_statistics(self, stats, events):
        """Install the four statistics (a dict by attribute name); estimates are lazy."""
        self.__dict__.update(stats)
        self.n_labels_ = stats["label_stats_"].n_groups
        self.classes_ = binary_classes(self.n_labels_)
        self.events_ = events
        self._cache = None

    def _rule_to_fit(self):
        """With ``fixed_size`` the cascade's sets of that size are the decision: the rule
        is not searched (``"tuned"`` keeps the cascade)."""
        if self.fixed_size is not None and is_tuned(self.rule):
            return OWN_RULE
        return super()._rule_to_fit()

    def statistics_key(self):
        """What the statistics depend on: estimators with equal keys share statistics."""
        return (type(self).__name__, self.fixed_size is None, self.event_model().statistics_key())

    def _named_statistics(self, events, X, Y, weight):
        """The four statistics of validated rows, named as the fitted attributes."""
        prepared = self._bound_events(events).prepare(X, caller=type(self).__name__)
        return NamedStats(**self._batch_statistics(prepared, Y, weight, events))

    def from_statistics(self, stats, *, n_features=None):
        """Become the NaiBX fitted to ``stats`` (from :meth:`batch_statistics`); returns self."""
        self._check_fixed_size(stats["label_stats_"].n_groups)
        self._check_alpha()
        events = self.event_model()
        if n_features is None:
            n_features = events.input_width(stats["feature_stats_"].n_features)
        self.n_features_in_ = int(n_features)
        own = {k: None if v is None else v.copy() for k, v in stats.parts.items()}
        self._install_statistics(own, events)  # copies: not shared with the caller's
        self._settings_given()
        return self

    def _check_alpha(self):
        return check_pseudo_count(self.prior_alpha)

    def _check_fixed_size(self, n_labels):
        size = self.fixed_size
        if size is None:
            return
        if not isinstance(size, numbers.Integral) or isinstance(size, bool) or size < 0:
            raise ValueError(f"fixed_size must be None or an integer >= 0; got {size!r}")
        if size > n_labels:
            raise ValueError(f"fixed_size={size} exceeds the number of labels, {n_labels}")

    def _batch_statistics(self, X, Y, weight, events):
        """The four GroupStats of one batch: one product per (rows, grouping) pair.

        With unknown cells (NaN in Y): the labels' statistics take Y with those cells
        missing (each pair counted where both labels are known), and the sizes' the rows
        whose every label is known (a row's size is unknown otherwise; the others weigh 0).
        """
        given, (Y, unknown) = Y, split_unknown(Y)
        sizes = np.rint(np.asarray(Y.sum(axis=1)).ravel()).astype(np.intp)
        by_size = one_hot(sizes, int(sizes.max()) + 1)
        moments = events.second_moments
        sized = weight
        if unknown is not None:
            sized = np.where(np.diff(unknown.indptr) == 0, weight, 0.0)
        return {
            "feature_stats_": GroupStats.from_data(X, Y, weight, second_moments=moments),
            "label_stats_": GroupStats.from_data(given, Y, weight, second_moments=False),
            "size_stats_": GroupStats.from_data(Y, by_size, sized, second_moments=False),
            "size_feature_stats_": None
            if self.fixed_size is not None
            else GroupStats.from_data(X, by_size, sized, second_moments=moments),
        }

    def _refresh_fitted(self):
        """The distributions are derived at their first use (:meth:`_model`): what the fast
        path of ``partial_fit`` dropped is their cache, empty until then."""
        if vars(self).pop(_online_rows.DROPPED, False):
            vars(self).setdefault("_cache", None)

    def merge(self, other):
        """Add the statistics of a NaiBX fitted on other rows (in place; returns self).

        ``a.fit(X1, Y1).merge(b.fit(X2, Y2))`` predicts as a fit on both batches.
        """
        check_is_fitted(self)
        check_is_fitted(other)
        if type(other) is not type(self) or not same_params(
            other.get_params(deep=False), self.get_params(deep=False)
        ):
            raise ValueError("can only merge estimators of the same type and hyper-parameters")
        if (other.n_labels_, other.n_features_in_) != (self.n_labels_, self.n_features_in_):
            raise ValueError(
                f"shapes differ: {self.n_features_in_} features x {self.n_labels_} labels and "
                f"{other.n_features_in_} x {other.n_labels_}"
            )
        self.__dict__.update(self._statistics_so_far().merge(other._statistics_so_far()).parts)
        self._cache = None
        return self

    # ---- the distributions of Table 1 ----------------------------------------------------
    def _model(self):
        """Smoothed distributions and event-model parameters, cached until the next update."""
        check_is_fitted(self)
        cached = self.__dict__.get("_cache")
        if cached is not None:
            return cached
        n_labels, alpha = self.n_labels_, self._check_alpha()
        labels = self.label_stats_
        label_count, pairs = labels.count, labels.sums.copy()
        size_count = self.size_stats_.count
        by_size = self.size_stats_.sums
        holding = label_count  # rows holding each label, of known size
        if labels.has_missing:  # unknown cells learnt: each label's rate where it is known
            pairs = _rate_times(pairs, labels.observed, labels.count[:, None])
            label_count = _rate_times(label_count, labels.total_observed, labels.total_count)
            holding = by_size.sum(axis=0)
        np.fill_diagonal(pairs, 0.0)
        log_pair = log_categorical(pairs, pairs.sum(axis=1)[:, None], n_labels - 1, alpha)
        np.fill_diagonal(log_pair, -np.inf)
        # Rows m = 0..S of P(M = m | y), then one row shared by every larger size.
        size_given_label = log_categorical(
            np.vstack([by_size, np.zeros((1, n_labels))]), holding, n_labels, alpha
        )
        # f0 chooses among the sizes seen (all stored sizes if none has weight): a size never
        # seen has no feature model, and skipping it spares the event model empty groups.
        size_groups = np.flatnonzero(size_count > 0) if np.any(size_count > 0) else slice(None)
        model = {
            "log_size_prior": log_categorical(
                size_count, self.size_stats_.total_count, n_labels + 1, alpha
            ),
            "log_label_prior": log_categorical(label_count, label_count.sum(), n_labels, alpha),
            "log_size_given_label": size_given_label,
            "log_pair": log_pair,
            "seen_labels": label_count > 0,
            "size_groups": np.arange(len(size_count))[size_groups],
            "label_params": self.events_.estimate(self.feature_stats_),
            "size_params": None
            if self.size_feature_stats_ is None
            else self._size_events().estimate(self.size_feature_stats_.select_groups(size_groups)),
        }
        self._cache = model
        return model

    def _all_sizes(self, row_values, beyond):
        """A per-size array over sizes 0..L from the stored sizes' rows and a fill value."""
        stored = row_values[: self.size_stats_.n_groups]
        missing = self.n_labels_ + 1 - len(stored)
        return np.concatenate([stored, np.broadcast_to(beyond, (missing, *stored.shape[1:]))])

    @property
    def log_size_prior_(self):
        """``log P(M = m)`` for m = 0..L, shape (L + 1,)."""
        model = self._model()
        n_values = self.n_labels_ + 1
        beyond = log_categorical(0.0, self.size_stats_.total_count, n_values, self.prior_alpha)
        return self._all_sizes(model["log_size_prior"], beyond)

    @property
    def log_label_prior_(self):
        """``log P(Y = y)``, shape (L,)."""
        return self._model()["log_label_prior"].copy()

    @property
    def log_size_given_label_(self):
        """``log P(M = m | y in Y)`` indexed [m, y], shape (L + 1, L)."""
        table = self._model()["log_size_given_label"]
        return self._all_sizes(table[:-1], table[-1])

    @property
    def log_pair_(self):
        """``log P(Y' = y' | Y = y)`` indexed [y, y'], shape (L, L); -inf on the diagonal."""
        return self._model()["log_pair"].copy()

    def _size_events(self):
        """The event model of the size stage: the fitted one, or, for a model per label
        (:class:`~mlnb.events.PerLabel`), its common model."""
        events = self.events_
        return events.common_model() if isinstance(events, PerLabel) else events

    # ---- prediction ---------------------------------------------------------------------
    def _size_joint(self, X, model):
        """``log P(M = m) + sum_i log p(x_i | m)`` of f0 over the stored sizes; -inf if unseen."""
        groups = model["size_groups"]
        joint = np.full((X.shape[0], self.size_stats_.n_groups), -np.inf)
        joint[:, groups] = self._bound_events(self._size_events()).score(model["size_params"], X)
        joint[:, groups] += model["log_size_prior"][groups]
        return joint

    def _resolve_sizes(self, X, sizes, model):
        n_samples = X.shape[0]
        if sizes is not None:
            values = np.asarray(sizes)
            if values.ndim == 0:
                values = np.full(n_samples, values)
            integral = values.dtype.kind in "iu" or (
                values.dtype.kind == "f"
                and np.all(np.isfinite(values) & (values == np.rint(values)))
            )
            if values.shape != (n_samples,) or not integral:
                raise ValueError(
                    f"sizes must be an integer or {n_samples} integers (one per row of X); "
                    f"got shape {values.shape} and dtype {values.dtype}"
                )
            values = values.astype(np.intp)
            if values.size and (values.min() < 0 or values.max() > self.n_labels_):
                raise ValueError(
                    f"sizes must lie in 0..{self.n_labels_} (the number of labels); got "
                    f"values from {values.min()} to {values.max()}"
                )
            return values
        if self.fixed_size is not None:
            return np.full(n_samples, self.fixed_size, dtype=np.intp)
        return np.argmax(self._size_joint(X, model), axis=1)

    def _cascade(self, X, sizes, *, with_proba=True):
        """Run the cascade: (sizes, chosen labels, step probabilities, 0/1 label sets).

        Rows are processed sorted by decreasing size, so that the rows still active at a
        step are a prefix and every step works on views (no copies). Chosen labels and
        labels never seen score -inf; the eq. 9 probability of the best label is
        ``1 / sum_y exp(s_y - s_best)``.
        """
        model = self._model()
        prepared = self._prepared(X)
        sizes = self._resolve_sizes(prepared, sizes, model)
        n_samples, n_labels = len(sizes), self.n_labels_
        seen = model["seen_labels"]
        unseen = np.flatnonzero(~seen)
        order = np.argsort(-sizes, kind="stable")
        sorted_sizes = sizes[order]
        # Terms that do not depend on the step: log P(y) + sum_i log p(x_i | y) + log P(m | y).
        score = self._bound_events().score(model["label_params"], prepared[order])
        score += model["log_label_prior"]
        score += model["log_size_given_label"][np.minimum(sorted_sizes, self.size_stats_.n_groups)]
        score[:, unseen] = -np.inf
        pair_by_choice = np.ascontiguousarray(model["log_pair"].T)  # [y', y] = log P(y' | y)
        n_steps = int(sizes.max(initial=0))
        labels = np.full((n_samples, n_steps), -1, dtype=np.intp)
        proba = np.full((n_samples, n_steps), np.nan)
        chosen = np.zeros((n_samples, n_labels), dtype=bool)
        for step in range(n_steps):  # a loop over the cascade's steps, vectorised over rows
            active = int(np.searchsorted(-sorted_sizes, -step, side="left"))
            view, rows = score[:active], np.arange(active)
            if step >= len(seen) - len(unseen):  # only labels never seen are left
                pick = np.full(active, unseen[step - (n_labels - len(unseen))])
                step_proba = np.full(active, 1.0 / (n_labels - step))
            else:
                pick = np.argmax(view, axis=1)
                top = view[rows, pick]
                stuck = np.isneginf(top)
                if with_proba:
                    with np.errstate(invalid="ignore"):
                        step_proba = 1.0 / np.exp(view - top[:, None]).sum(axis=1)
                if np.any(stuck):  # every candidate has probability 0 (prior_alpha=0 only)
                    free = ~chosen[:active][stuck] & seen
                    pick[stuck] = np.argmax(free, axis=1)
                    if with_proba:
                        step_proba[stuck] = 1.0 / free.sum(axis=1)
            chosen[rows, pick] = True
            labels[:active, step] = pick
            if with_proba:
                proba[:active, step] = step_proba
            view[rows, pick] = -np.inf
            # The next steps condition on the choice: + log P(Y' = pick | Y = y), every y.
            view += pair_by_choice[pick]
        inverse = np.empty_like(order)
        inverse[order] = np.arange(n_samples)
        return sizes, labels[inverse], proba[inverse], chosen[inverse]

    def predict(self, X, sizes=None):
        """Predict label sets: size first (``f0``), then the cascade.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        sizes : int or array-like of shape (n_samples,), default=None
            Sizes to use instead of predicting them (the paper's "TrueM" mode), each in
            0..L. Overrides ``fixed_size``.

        Returns
        -------
        ndarray of shape (n_samples, n_labels)
            0/1 indicator of the predicted sets (of the fitted ``rule_`` when it is not
            the cascade and no ``sizes`` are given).
        """
        decided = self._decided(X) if sizes is None else None
        if decided is not None:
            return decided
        return self._cascade(X, sizes, with_proba=False)[3].astype(int)

    def predict_proba(self, X):
        """The probability of each label being in the row's set, shape (n_samples, n_labels).

        NaiBX predicts a set, and the cascade's marginals have no closed form; this is the
        size-weighted first step of the cascade (eq. 9 at its first choice)::

            P(y in S | x) = sum_m P(M = m | x) min(1, m pi_m(y | x)),
            pi_m(y | x) proportional to P(y) p(x | y) P(M = m | y),

        so that the probabilities of a row sum to its expected size ``E[M | x]`` unless a
        term is clipped at 1. It ranks labels as the cascade's first choice does (for
        ranking metrics and scikit-learn's scorers); :meth:`predict` is the cascade's set,
        not a threshold of these. On single-label data with ``prior_alpha=0`` it is the
        multi-class Naive Bayes posterior.
        """
        prepared = self._prepared(X)
        proba = np.zeros((prepared.shape[0], self.n_labels_))
        for weight, size, log_pi in self._first_steps(prepared):
            proba += weight[:, None] * np.minimum(1.0, size * np.exp(log_pi))
        return np.minimum(proba, 1.0)  # rounding of the weights' sum

    def decision_function(self, X):
        """Finite label scores for ranking and thresholding, (n_samples, n_labels).

        ``log sum_m P(M = m | x) m pi_m(y | x)`` (:meth:`predict_proba` before its clipping
        at 1): the log expected number of times y would be drawn first, which saturates
        nowhere. A label never seen in training scores 1 below the row's lowest other score.

        With ``pi_m(y | x) = exp(b_y + t_my - n_m)`` (``b`` the label's prior and features,
        ``t_my = log P(M = m | y)``, ``n_m`` the normaliser over labels), the sum is
        ``exp(b_y) sum_m c_m exp(t_my)`` with ``c_m = P(M = m | x) m exp(-n_m)``: two matrix
        products over the sizes, each factor scaled by its maximum, instead of a
        log-sum-exp over labels for every size (delicious: 11 s to under 1 s for 3185
        rows). Rows where that scaling cannot hold every term take the size-by-size sum.
        """
        prepared = self._prepared(X)
        model = self._model()
        base, sizes, weights = self._first_step_terms(prepared, model)
        keep = sizes > 0
        if not keep.any() or not model["seen_labels"].any():  # only empty sets seen
            return np.zeros((prepared.shape[0], self.n_labels_))
        sizes, weights = sizes[keep], weights[:, keep]
        table = model["log_size_given_label"][np.minimum(sizes, self.size_stats_.n_groups)]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            row_max = base.max(axis=1, keepdims=True)
            scaled_base = np.exp(base - row_max)
            size_max = table.max(axis=1)
            norm = row_max + size_max + np.log(scaled_base @ np.exp(table - size_max[:, None]).T)
            log_c = np.log(weights) + np.log(sizes) - norm
            c_max = log_c.max(axis=1, keepdims=True)
            label_max = table.max(axis=0)
            total = np.exp(log_c - c_max) @ np.exp(table - label_max)
            scores = base + c_max + label_max + np.log(total)
        seen = np.isfinite(base)
        unsettled = np.flatnonzero(
            ~np.isfinite(row_max[:, 0])
            | ~np.isfinite(c_max[:, 0])
            | np.any(seen & ~np.isfinite(scores), axis=1)
        )
        if unsettled.size:
            scores[unsettled] = self._size_by_size_scores(prepared[unsettled])
        finite = np.isfinite(scores)
        floor = np.where(finite, scores, np.inf).min(axis=1, keepdims=True)
        floor = np.where(np.isfinite(floor), floor - 1.0, 0.0)
        return np.where(finite, scores, floor)

    def _size_by_size_scores(self, prepared):
        """:meth:`decision_function`'s sum, one size at a time (before its floor)."""
        terms = []
        for weight, size, log_pi in self._first_steps(prepared):
            with np.errstate(divide="ignore"):
                terms.append(np.log(weight)[:, None] + np.log(size) + log_pi)
        if not terms:
            return np.full((prepared.shape[0], self.n_labels_), -np.inf)
        return logsumexp(np.stack(terms), axis=0)

    def _first_step_terms(self, prepared, model):
        """``(b, sizes, P(M = m | x))``: the labels' log prior plus feature log-likelihood
        (-inf for labels never seen), the sizes m the size model knows, their weights."""
        n_samples = prepared.shape[0]
        base = self._bound_events().score(model["label_params"], prepared)
        base += model["log_label_prior"]
        base[:, ~model["seen_labels"]] = -np.inf
        if self.fixed_size is not None:
            return base, np.array([self.fixed_size]), np.ones((n_samples, 1))
        joint = self._size_joint(prepared, model)
        weights = np.exp(joint - logsumexp(joint, axis=1, keepdims=True))
        return base, np.arange(joint.shape[1]), weights

    def _first_steps(self, prepared):
        """``(P(M = m | x), m, log pi_m(y | x))`` of every size m > 0 a prepared row may have."""
        model = self._model()
        n_labels = self.n_labels_
        base, sizes, weights = self._first_step_terms(prepared, model)
        table, last = model["log_size_given_label"], self.size_stats_.n_groups
        for column, size in enumerate(sizes):  # a loop over the sizes seen, not rows
            weight = weights[:, column]
            if size == 0 or not weight.any():
                continue
            first = base + table[min(size, last)]
            norm = logsumexp(first, axis=1, keepdims=True)
            with np.errstate(invalid="ignore"):  # no label seen: every one equally likely
                log_pi = np.where(np.isfinite(norm), first - norm, -np.log(n_labels))
            yield weight, size, log_pi

    def predict_steps(self, X, sizes=None):
        """The cascade's choices and their normalised probabilities (eq. 9), step by step.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        sizes : int or array-like of shape (n_samples,), default=None
            As in :meth:`predict`.

        Returns
        -------
        CascadeSteps
            ``(sizes, labels, proba)``; ``proba[i, k]`` is ``p(y_k | x, m, y_1..y_{k-1})``
            of the label chosen at step k + 1, normalised over the candidates of that step.
        """
        sizes, labels, proba, _ = self._cascade(X, sizes)
        return CascadeSteps(sizes, labels, proba)

    def predict_size_proba(self, X):
        """``P(M = m | x)`` of the size predictor ``f0``, shape (n_samples, L + 1).

        Sizes never seen in training get 0. With ``fixed_size``, a one-hot at that size.
        """
        model = self._model()
        prepared = self._prepared(X)
        out = np.zeros((prepared.shape[0], self.n_labels_ + 1))
        if self.fixed_size is not None:
            out[:, self.fixed_size] = 1.0
            return out
        joint = self._size_joint(prepared, model)
        stored = np.exp(joint - logsumexp(joint, axis=1, keepdims=True))
        out[:, : stored.shape[1]] = stored
        return out

    def predict_size(self, X):
        """The size of each row's label set: ``f0(x)``, or ``fixed_size``."""
        model = self._model()
        prepared = self._prepared(X)
        return self._resolve_sizes(prepared, None, model)
