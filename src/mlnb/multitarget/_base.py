"""Naive Bayes over class-valued outputs, on additive statistics.

Output j's model is a categorical Naive Bayes: ``log P(y_j = c) + log p(x | y_j = c)`` with
the event model of ``events``. The statistics of every (output, class) pair come from one
pass: the rows grouped by the one-hot matrix of their classes (:mod:`._targets`), so
``partial_fit`` adds batches, ``merge`` adds partitions, ``forget`` subtracts rows and fold
subtraction (:class:`mlnb.base.FoldStatistics`) gives every fold's model, exactly as for
binary labels. A chain also keeps the outputs' class co-occurrences (the same grouping
applied to itself).

Class prior: ``P(y_j = c) = (N_jc + alpha) / (N + K_j alpha)`` with ``alpha`` the
``prior_alpha`` (0: the maximum-likelihood prior, scikit-learn's ``CategoricalNB``).
"""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from .._registered import Registered
from ..base.additive import remaining_statistics
from ..base.instances import UnitTestParams
from ..base.state import atomic, check_mergeable, same_params
from ..base.validation import validate_rows
from ..events import EventModel
from ..events.auto import Auto, estimator_events
from ..events.categorical import check_pseudo_count, log_categorical
from ..metrics import multi_target_exact_match
from ..stats import GroupStats, NamedStats
from ._targets import (
    as_output_list,
    check_targets,
    one_hot_targets,
    output_classes,
    target_codes,
)

__all__ = ["MultiTargetNB", "segment_log_normalise", "segment_log_sum_exp"]


def segment_log_sum_exp(values, offsets):
    """The row-wise logsumexp of every block of columns ``offsets[j]:offsets[j + 1]``
    (``offsets`` increasing, from 0 to the number of columns), shape (n_rows, n_blocks);
    a block of ``-inf`` only gives ``-inf``."""
    starts = offsets[:-1]
    largest = np.maximum.reduceat(values, starts, axis=1)
    largest = np.where(np.isfinite(largest), largest, 0.0)
    block = np.repeat(np.arange(len(starts)), np.diff(offsets))
    with np.errstate(divide="ignore"):
        return largest + np.log(np.add.reduceat(np.exp(values - largest[:, block]), starts, axis=1))


def segment_log_normalise(joint, offsets):
    """Each block of columns ``offsets[j]:offsets[j + 1]`` of ``joint`` minus its row-wise
    logsumexp: ``log P(y_j = c | x)`` from ``log P(x, y_j = c)``, every output at once."""
    block = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    return joint - segment_log_sum_exp(joint, offsets)[:, block]


def _stacked(columns):
    """The (n, m) array of the outputs' predicted classes (object if their types differ)."""
    kinds = {column.dtype.kind for column in columns}
    if len(kinds) == 1 or kinds <= set("biu") or kinds <= set("biuf"):
        return np.stack(columns, axis=1)
    out = np.empty((len(columns[0]), len(columns)), dtype=object)
    for j, column in enumerate(columns):
        out[:, j] = column
    return out


class MultiTargetNB(UnitTestParams, Registered, ClassifierMixin, BaseEstimator):
    """Base of the multi-target Naive Bayes estimators (not for direct use).

    A subclass says whether it keeps the outputs' co-occurrences (``_uses_pairs``),
    installs what it derives from them (``_install_pairs``) and predicts (``_codes``).
    """

    _parameter_constraints: ClassVar[dict] = {
        "events": [str, EventModel, Auto],
        "prior_alpha": [Interval(Real, 0, None, closed="left")],
    }
    _uses_pairs = False
    #: The statistics object of the model (:meth:`fitted_statistics`).
    _statistics_type = NamedStats

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = True
        tags.classifier_tags.multi_class = True
        return tags

    def event_model(self, X=None):
        """The event model that ``events`` names (resolved from X for a rule such as
        ``"auto"``; without X, the one the first fit chose)."""
        return estimator_events(self, self.events, X)

    # ---- fitting ------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit from scratch.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples, n_outputs)
            A class per output (ints, strings, ...). A 1-D ``y`` is one output: ``predict``
            then gives a 1-D array and ``predict_proba`` one array, as a single-label
            classifier does.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        self._validate_params()
        for name in [name for name in vars(self) if name.endswith("_")]:
            del self.__dict__[name]
        X = validate_rows(self, X, reset=True)
        Y, self.outputs_2d_ = check_targets(y, X.shape[0], caller=type(self).__name__)
        return self._learn(X, Y, output_classes(Y), sample_weight)

    @atomic
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Learn one more batch of rows.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples, n_outputs)
        classes : list of array-like, one per output, default=None
            Every class each output can ever take (for a 1-D ``y``, one array); required
            on the first call (as scikit-learn's ``MultiOutputClassifier.partial_fit``),
            optional later.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        first = not hasattr(self, "feature_stats_")
        caller = type(self).__name__
        if first:
            self._validate_params()
            if classes is None:
                raise ValueError(
                    f"{caller}.partial_fit: classes= (every output's classes) is required on "
                    "the first call"
                )
        X = validate_rows(self, X, reset=first)
        Y, outputs_2d = check_targets(y, X.shape[0], caller=caller)
        if classes is not None:
            classes = [np.unique(np.asarray(c)) for c in (classes if outputs_2d else [classes])]
        if first:
            self.outputs_2d_ = outputs_2d
        elif classes is not None and not same_params(classes, self._output_classes()):
            raise ValueError(f"{caller}.partial_fit: classes differ from the first call's")
        return self._learn(X, Y, classes or self._output_classes(), sample_weight)

    def _output_classes(self):
        """Every output's classes (a list, also for a 1-D ``y``)."""
        return self.classes_ if self.outputs_2d_ else [self.classes_]

    def _learn(self, X, Y, classes, sample_weight):
        fitted = hasattr(self, "feature_stats_")
        events = self.events_ if fitted else self.event_model(X)
        self._check_hyper_parameters(len(classes))
        batch = self._statistics(events, X, Y, classes, sample_weight)
        stats = self.fitted_statistics().merge(batch) if fitted else batch
        self._install(classes, stats, events)
        return self

    def _check_hyper_parameters(self, n_outputs):
        """Checks of fit beyond ``_parameter_constraints`` (a subclass adds its own)."""

    def _statistics(self, events, X, Y, classes, sample_weight):
        """The statistics of validated rows X with targets Y (classes per output fixed)."""
        codes = target_codes(Y, classes, caller=type(self).__name__)
        groups, _ = one_hot_targets(codes, [len(c) for c in classes])
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        prepared = events.prepare(X, caller=type(self).__name__)
        features = GroupStats.from_data(
            prepared, groups, weight, second_moments=events.second_moments
        )
        pairs = None
        if self._uses_pairs:
            pairs = GroupStats.from_data(groups, groups, weight, second_moments=False)
        return NamedStats(features=features, pairs=pairs)

    def _install(self, classes, stats, events):
        """Install statistics and everything derived from them."""
        self.classes_ = classes if self.outputs_2d_ else classes[0]
        self.n_outputs_ = len(classes)
        self.feature_stats_ = features = stats["features"]
        self.pair_stats_ = stats["pairs"]
        self.events_ = events
        sizes = np.array([len(c) for c in classes])
        self.offsets_ = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
        self.params_ = events.estimate(features)
        self.class_count_ = features.count
        alpha = check_pseudo_count(self.prior_alpha)
        self.class_log_prior_ = log_categorical(
            features.count, features.total_count, np.repeat(sizes, sizes), alpha
        )
        if self._uses_pairs:
            self._install_pairs(stats["pairs"], sizes)

    def _install_pairs(self, pairs, sizes):
        """Derive what a subclass needs from the co-occurrence statistics."""

    def merge(self, other):
        """Add the statistics of a model of the same kind fitted on other rows (in place;
        returns self): ``a.fit(X1, Y1).merge(b.fit(X2, Y2))`` equals a fit on both, when
        both know the same classes (``partial_fit(..., classes=...)``)."""
        check_mergeable(self, other, "n_features_in_")
        if not same_params(self._output_classes(), other._output_classes()):
            raise ValueError(
                f"classes_ differ: {self.classes_!r} and {other.classes_!r}; fit the models of "
                "the partitions with partial_fit(..., classes=every output's classes)"
            )
        if not same_params(self.events_, other.events_):
            raise ValueError(
                f"the two models chose different event models ({self.events_!r} and "
                f"{other.events_!r}): give events= explicitly"
            )
        merged = self.fitted_statistics().merge(other.fitted_statistics())
        self._install(self._output_classes(), merged, self.events_)
        return self

    def fitted_statistics(self):
        """The model's statistics (a copy sharing nothing it changes): what
        :meth:`batch_statistics` gives of the rows it learnt."""
        parts = {"features": self.feature_stats_, "pairs": self.pair_stats_}
        return self._statistics_type(**parts).copy()

    @atomic
    def forget(self, X, y, sample_weight=None):
        """Take learnt rows out again (in place; returns self): the model becomes that of
        the other rows, exactly. A call that raises changes nothing."""
        check_is_fitted(self)
        X = validate_rows(self, X, reset=False)
        Y, _ = check_targets(y, X.shape[0], caller=type(self).__name__)
        classes = self._output_classes()
        batch = self._statistics(self.events_, X, Y, classes, sample_weight)
        remaining = remaining_statistics(self.fitted_statistics(), batch, type(self).__name__)
        self._install(classes, remaining, self.events_)
        return self

    # ---- the statistics protocol (fold subtraction) -------------------------------------
    def statistics_key(self):
        """What the statistics depend on: estimators with equal keys share statistics."""
        return (type(self).__name__, self.event_model().statistics_key())

    def target_classes(self, y):
        """Every output's sorted classes in ``y`` (a list; for a 1-D ``y``, one array, as
        ``classes_``): what :meth:`batch_statistics` and :meth:`from_statistics` take as
        ``classes``, so that batches align."""
        Y, outputs_2d = check_targets(y, np.shape(y)[0], caller=type(self).__name__)
        classes = output_classes(Y)
        return classes if outputs_2d else classes[0]

    def batch_statistics(self, X, y, *, classes=None, sample_weight=None):
        """The statistics of a batch of rows; nothing is fitted.

        ``classes`` (default: the batch's own) fixes every output's classes, so that the
        statistics of batches add and subtract (``merge``, ``subtract``).
        """
        X = validate_rows(self, X)
        Y, _ = check_targets(y, X.shape[0], caller=type(self).__name__)
        classes = output_classes(Y) if classes is None else as_output_list(classes)[0]
        return self._statistics(self.event_model(), X, Y, classes, sample_weight)

    def from_statistics(self, stats, *, classes, n_features=None):
        """Make this estimator the model of statistics (from :meth:`batch_statistics`,
        merged or subtracted) with every output's ``classes`` (a list; one array: one output,
        a 1-D ``y``, as :meth:`target_classes` gives them); returns self."""
        events = self.event_model()
        features = stats["features"]
        self.n_features_in_ = features.n_features if n_features is None else n_features
        classes, self.outputs_2d_ = as_output_list(classes)
        self._install(classes, stats, events)
        return self

    # ---- prediction ---------------------------------------------------------------------
    def _joint_log_likelihood(self, X):
        """``log P(x, y_j = c)`` of every row and (output, class) pair, outputs side by side
        (columns ``offsets_[j]:offsets_[j + 1]``)."""
        check_is_fitted(self)
        X = validate_rows(self, X, reset=False)
        prepared = self.events_.prepare(X, caller=type(self).__name__)
        return self.events_.score(self.params_, prepared) + self.class_log_prior_[None, :]

    def _split(self, table):
        return [table[:, a:b] for a, b in zip(self.offsets_[:-1], self.offsets_[1:], strict=True)]

    def predict(self, X):
        """Every output's class, shape (n_samples, n_outputs) (1-D for a 1-D ``y``)."""
        codes = self._codes(self._joint_log_likelihood(X))
        columns = [known[codes[:, j]] for j, known in enumerate(self._output_classes())]
        return _stacked(columns) if self.outputs_2d_ else columns[0]

    def predict_log_proba(self, X):
        """``log P(y_j = c | x)`` as a list of (n_samples, n_classes_j) arrays, one per
        output (scikit-learn's ``MultiOutputClassifier`` convention; one array for a 1-D
        ``y``)."""
        blocks = self._split(self._log_posteriors(self._joint_log_likelihood(X)))
        return blocks if self.outputs_2d_ else blocks[0]

    def predict_proba(self, X):
        """``P(y_j = c | x)``: a list of (n_samples, n_classes_j) arrays, one per output
        (one array for a 1-D ``y``)."""
        log_proba = self.predict_log_proba(X)
        if not self.outputs_2d_:
            return np.exp(log_proba)
        return [np.exp(block) for block in log_proba]

    def score(self, X, y, sample_weight=None):
        """Exact match: the (weighted) share of rows with every output right."""
        Y, _ = check_targets(y, np.shape(y)[0], caller=type(self).__name__)
        predicted = self.predict(X).reshape(len(Y), -1)
        return multi_target_exact_match(Y, predicted, sample_weight=sample_weight)

    def _log_posteriors(self, joint):
        """Every output's log posterior from the joint, side by side (as the joint)."""
        return segment_log_normalise(joint, self.offsets_)

    def _codes(self, joint):
        """The predicted class code of every output, shape (n_samples, n_outputs)."""
        raise NotImplementedError
