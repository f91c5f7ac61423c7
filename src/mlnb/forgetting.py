"""Forgetting old data on a stream: a sliding window of batches, or exponential decay.

A Naive Bayes model is a function of additive statistics (:mod:`mlnb.stats`), so forgetting
is exact arithmetic on them, for any estimator of the statistics protocol
(``batch_statistics`` / ``from_statistics``: binary relevance, chains, iMLNB, NaiBX and the
single-label Naive Bayes classifiers):

- :class:`SlidingWindow` keeps the statistics of the last ``window`` batches: each new batch
  is added and the one leaving the window subtracted, so the model equals a fit on the
  window's rows (up to rounding);
- :class:`ExponentialForgetting` multiplies the statistics by ``decay`` before adding each
  batch, so the model equals a fit on every row so far with weight ``decay ** age`` (age in
  batches).

Both learn by ``partial_fit`` and predict through the model of the current statistics
(``estimator_``), so :func:`mlnb.evaluation.prequential` evaluates them as any online
model.
"""

from __future__ import annotations

from collections import deque
from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .base import Integers, is_additive, takes_classes
from .multilabel import chooses_settings, with_chosen_settings

__all__ = ["ExponentialForgetting", "SlidingWindow"]


def _model_has(method):
    return lambda self: hasattr(self.estimator, method)


class _Forgetting(MetaEstimatorMixin, BaseEstimator):
    """Shared: batch statistics, the model of the current ones, delegated prediction."""

    def fit(self, X, y, sample_weight=None, classes=None):
        """Forget everything, then learn ``(X, y)`` as one batch. Returns self."""
        for name in ("statistics_", "batches_", "estimator_", "classes_", "settings_"):
            self.__dict__.pop(name, None)
        return self.partial_fit(X, y, sample_weight=sample_weight, classes=classes)

    def _batch_statistics(self, X, y, sample_weight, classes):
        estimator = self.estimator
        if not is_additive(estimator):
            raise TypeError(
                f"{type(estimator).__name__} has no statistics protocol (batch_statistics and "
                "from_statistics, with no base_estimator): forgetting needs additive statistics"
            )
        if not hasattr(self, "settings_"):
            # settings chosen from the data (events="tuned", ...) are chosen on the first
            # batch and kept: every batch's statistics then belong to one model
            self.settings_ = estimator
            if chooses_settings(estimator):
                first = clone(estimator).fit(X, y, sample_weight=sample_weight)
                self.settings_ = with_chosen_settings(estimator, first)
        estimator = self.settings_
        if takes_classes(estimator):
            if not hasattr(self, "classes_"):
                if classes is None:
                    raise ValueError("classes must be given to the first partial_fit")
                self.classes_ = np.unique(np.asarray(classes))
            return estimator.batch_statistics(
                X, y, classes=self.classes_, sample_weight=sample_weight
            )
        stats = estimator.batch_statistics(X, y, sample_weight=sample_weight)
        self._check_label_set(y)
        return stats

    def _check_label_set(self, Y):
        """A multi-label stream keeps the label columns of its first batch (Y validated)."""
        n_labels = np.shape(Y)[1]
        if hasattr(self, "estimator_") and n_labels != self.estimator_.n_labels_:
            raise ValueError(
                f"y has {n_labels} label columns; {type(self).__name__} keeps the label set "
                f"of its first batch ({self.estimator_.n_labels_} labels). To learn labels "
                "that appear later, train the estimator itself by partial_fit"
            )

    def _install(self):
        """The model of the current statistics, as ``estimator_``."""
        model = clone(self.settings_)
        options = {"classes": self.classes_} if hasattr(self, "classes_") else {}
        self.estimator_ = model.from_statistics(self.statistics_.copy(deep=False), **options)
        self.n_features_in_ = getattr(self.estimator_, "n_features_in_", None)

    @available_if(_model_has("predict"))
    def predict(self, X):
        """The current model's predictions."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(X)

    @available_if(_model_has("predict_proba"))
    def predict_proba(self, X):
        """The current model's probabilities."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict_proba(X)

    @available_if(_model_has("decision_function"))
    def decision_function(self, X):
        """The current model's scores."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.decision_function(X)


class SlidingWindow(_Forgetting):
    """The model of the last ``window`` batches of a stream.

    Parameters
    ----------
    estimator : estimator with the statistics protocol
        E.g. ``BinaryRelevance(events="multinomial")`` or ``NaiBX()``; not changed.
        Settings it chooses from the data (``events="tuned"``, ``rule="tuned"``) are
        chosen on the first batch and kept (``settings_``: the estimator with them given).
    window : int, default=10
        Batches in the window.

    Attributes
    ----------
    estimator_ : the model of the window's statistics
    statistics_ : NamedStats
        The sum of the window's batches' statistics.
    batches_ : deque of NamedStats
        The statistics of each batch in the window, oldest first.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import BinaryRelevance
    >>> from mlnb.forgetting import SlidingWindow
    >>> rng = np.random.default_rng(0)
    >>> Y = (rng.random((90, 2)) < 0.4).astype(int)
    >>> X = rng.poisson(1 + 3 * Y @ rng.random((2, 5)))
    >>> model = SlidingWindow(BinaryRelevance(events="multinomial"), window=2)
    >>> for i in range(0, 90, 30):
    ...     model = model.partial_fit(X[i : i + 30], Y[i : i + 30])
    >>> last = BinaryRelevance(events="multinomial").fit(X[30:], Y[30:])
    >>> bool(np.allclose(model.decision_function(X), last.decision_function(X)))
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [HasMethods(["batch_statistics", "from_statistics"])],
        "window": [Integers(1, None, closed="left")],
    }

    def __init__(self, estimator, *, window=10):
        self.estimator = estimator
        self.window = window

    def partial_fit(self, X, y, sample_weight=None, classes=None):
        """Add a batch; the oldest leaves when the window is full. Returns self."""
        self._validate_params()
        stats = self._batch_statistics(X, y, sample_weight, classes)
        if not hasattr(self, "statistics_"):
            self.batches_, self.statistics_ = deque(), stats.copy()
        else:
            self.statistics_.merge(stats)
        self.batches_.append(stats)
        while len(self.batches_) > int(self.window):
            self.statistics_.subtract(self.batches_.popleft())
        self._install()
        return self


class ExponentialForgetting(_Forgetting):
    """The model of a stream whose older batches weigh less: ``decay ** age``.

    Parameters
    ----------
    estimator : estimator with the statistics protocol
    decay : float in (0, 1], default=0.9
        The factor applied to the statistics before each new batch is added (1: no
        forgetting). A batch ``k`` batches old weighs ``decay ** k``; the half-life is
        ``log(0.5) / log(decay)`` batches.

    Attributes
    ----------
    estimator_ : the model of the decayed statistics
    statistics_ : NamedStats

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import BinaryRelevance
    >>> from mlnb.forgetting import ExponentialForgetting
    >>> rng = np.random.default_rng(0)
    >>> Y = (rng.random((60, 2)) < 0.4).astype(int)
    >>> X = rng.poisson(1 + 3 * Y @ rng.random((2, 5)))
    >>> model = ExponentialForgetting(BinaryRelevance(events="multinomial"), decay=0.5)
    >>> model = model.partial_fit(X[:30], Y[:30]).partial_fit(X[30:], Y[30:])
    >>> weights = np.repeat([0.5, 1.0], 30)  # the first batch is one batch old
    >>> weighted = BinaryRelevance(events="multinomial").fit(X, Y, sample_weight=weights)
    >>> bool(np.allclose(model.decision_function(X), weighted.decision_function(X)))
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [HasMethods(["batch_statistics", "from_statistics"])],
        "decay": [Interval(Real, 0, 1, closed="right")],
    }

    def __init__(self, estimator, *, decay=0.9):
        self.estimator = estimator
        self.decay = decay

    def partial_fit(self, X, y, sample_weight=None, classes=None):
        """Scale the statistics so far by ``decay``, add the batch. Returns self."""
        self._validate_params()
        stats = self._batch_statistics(X, y, sample_weight, classes)
        if not hasattr(self, "statistics_"):
            self.statistics_ = stats.copy()
        else:
            self.statistics_.scale(self.decay).merge(stats)
        self._install()
        return self
