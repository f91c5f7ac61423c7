"""Shared machinery of the Naive Bayes multi-label estimators.

Validation, ``fit`` / ``partial_fit`` / ``merge`` on per-label statistics
(:mod:`._label_model`), and the per-label log-odds that every inference strategy starts from.
A subclass says whether it needs the label-pair statistics and how it predicts.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .._state import atomic, check_mergeable
from ..events import make_event_model
from ._label_model import (
    feature_log_odds,
    feature_parameters,
    label_log_odds,
    label_statistics,
    log_prior_odds,
)
from ._labels import binary_classes, check_label_matrix

__all__ = ["MultiLabelClassifierMixin", "MultiLabelNB"]


class MultiLabelClassifierMixin(ClassifierMixin):
    """scikit-learn tags of a multi-label classifier: 0/1 indicator targets, sparse X."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        tags.classifier_tags.multi_label = True
        return tags


class MultiLabelNB(MultiLabelClassifierMixin, BaseEstimator):
    """Base class: statistics of X and Y grouped by each label, learnt online and mergeable.

    Subclasses set ``_uses_label_pairs`` and implement ``predict`` / ``predict_proba``.
    Parameters every subclass has: ``events`` (event-model name or object),
    ``prior_alpha`` (pseudo-count of each label's prior) and, for chains,
    ``label_alpha`` (Laplace smoothing of the label features).
    """

    _uses_label_pairs = False

    def _event_model(self):
        return make_event_model(self.events)

    def _validate_X(self, X, *, reset):
        return validate_data(
            self, X, accept_sparse="csr", dtype=np.float64, reset=reset, ensure_all_finite=True
        )

    # ---- fitting ------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit from scratch on X (n x d) and the label-indicator matrix Y (n x L)."""
        for attribute in ("feature_stats_", "label_stats_", "n_labels_"):
            self.__dict__.pop(attribute, None)
        return self.partial_fit(X, y, sample_weight=sample_weight)

    def partial_fit(self, X, y, sample_weight=None):
        """Add a batch of rows (online learning); a call that raises changes nothing."""
        return self._partial_fit(X, y, sample_weight)

    @atomic
    def _partial_fit(self, X, Y, sample_weight):
        first_call = not hasattr(self, "feature_stats_")
        X = self._validate_X(X, reset=first_call)
        Y = check_label_matrix(
            Y, X.shape[0], n_labels=None if first_call else self.n_labels_, sparse=True
        )
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        events = self._event_model()
        prepared = events.prepare(X, caller=type(self).__name__)
        features, labels = label_statistics(
            prepared, Y, weight, events, with_labels=self._uses_label_pairs
        )
        if not first_call:
            features = self.feature_stats_.copy().merge(features)
            if labels is not None:
                labels = self.label_stats_.copy().merge(labels)
        self._install(features, labels, events)
        return self

    def _install(self, features, labels, events=None):
        """Install statistics and recompute what is derived from them."""
        events = self._event_model() if events is None else events
        params = feature_parameters(events, features)
        prior = log_prior_odds(features.count, features.total_count, self.prior_alpha)
        pairs = label_log_odds(labels, self.label_alpha) if labels is not None else None
        self.events_ = events
        self.feature_stats_ = features
        self.label_stats_ = labels
        self.n_labels_ = features.n_groups
        self.classes_ = binary_classes(self.n_labels_)
        self._feature_params = params
        self.prior_log_odds_ = prior
        self._label_pairs = pairs

    def _from_statistics(self, features, labels, n_features):
        """Become an estimator fitted to these statistics (e.g. fold-subtracted ones)."""
        self.n_features_in_ = n_features
        self._install(features, labels)
        return self

    def merge(self, other):
        """Add the statistics of an estimator fitted on other rows (in place; returns self)."""
        check_mergeable(self, other, "n_labels_", "n_features_in_")
        labels = None
        if self.label_stats_ is not None:
            labels = self.label_stats_.copy().merge(other.label_stats_)
        self._install(self.feature_stats_.copy().merge(other.feature_stats_), labels)
        return self

    # ---- prediction ---------------------------------------------------------------------
    def _prepared(self, X):
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        return self.events_.prepare(X, caller=type(self).__name__)

    def _independent_log_odds(self, X):
        """``log P(y_l = 1 | x) - log P(y_l = 0 | x)`` of every label alone, (n x L)."""
        prepared = self._prepared(X)
        odds = feature_log_odds(
            self.events_, self.feature_stats_, prepared, params=self._feature_params
        )
        return odds + self.prior_log_odds_[None, :]


def probability(log_odds):
    """``P(y = 1)`` from log-odds, exact at +-inf (constant labels)."""
    return expit(log_odds)
