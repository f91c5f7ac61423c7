"""Binary relevance: one independent classifier per label.

The Naive Bayes path builds every label's statistics in one pass (the rows holding label l
from ``Y.T @ X``; the others as total minus those) and predicts all labels with two
log-likelihood matrices, where one-vs-rest libraries fit L models in L passes. The generic
path fits a clone of any scikit-learn classifier per label.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logit
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base.validation import check_label_matrix
from ._base import AdditiveLabelNB, probability
from ._generic import check_nb_path, fit_binary, positive_proba, predict_binary
from ._labels import binary_classes

__all__ = ["BinaryRelevance"]


class BinaryRelevance(AdditiveLabelNB):
    """Binary relevance with Naive Bayes (all labels in one pass) or any base classifier.

    Parameters
    ----------
    events : str or event model, default="gaussian"
        Event model of the features (:mod:`mlnb.events`), e.g. ``"multinomial"`` for counts.
    prior_alpha : float, default=0.0
        Pseudo-count of each label's prior ``P(y_l = 1) = (N_l + a) / (N + 2a)``; 0 is the
        maximum-likelihood prior (as scikit-learn's NB classifiers).
    base_estimator : classifier or None, default=None
        If given, one clone of it is fitted per label instead of the Naive Bayes path.
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.

    Attributes
    ----------
    feature_stats_ : GroupStats
        Statistics of X over the rows holding each label (NB path).
    prior_log_odds_ : ndarray of shape (n_labels,)
    estimators_ : list of fitted classifiers or constants (generic path)

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import BinaryRelevance
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 4, 1], [0, 3, 2]])
    >>> Y = np.array([[1, 0], [1, 0], [0, 1], [1, 1]])
    >>> BinaryRelevance(events="multinomial").fit(X, Y).predict([[4, 0, 0], [0, 5, 1]])
    array([[1, 0],
           [0, 1]])
    """

    def __init__(self, *, events="gaussian", prior_alpha=0.0, base_estimator=None, missing="error"):
        self.events = events
        self.prior_alpha = prior_alpha
        self.base_estimator = base_estimator
        self.missing = missing

    # ---- generic path -----------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        if self.base_estimator is None:
            return super().fit(X, y, sample_weight)
        self._validate_params()
        X = validate_data(self, X, accept_sparse="csr", reset=True)
        Y = check_label_matrix(y, X.shape[0])
        self.n_labels_ = Y.shape[1]
        self.classes_ = binary_classes(self.n_labels_)
        self.estimators_ = [fit_binary(self.base_estimator, X, y, sample_weight) for y in Y.T]
        return self

    def partial_fit(self, X, y, sample_weight=None):
        """Add a batch of rows (NB path). A batch may bring new labels: columns after the
        known ones, taken as 0 in every earlier row (the model equals a fit on the whole
        stream with those zeros); a call that raises changes nothing."""
        check_nb_path(self, "partial_fit")
        return super().partial_fit(X, y, sample_weight)

    def predict_log_odds(self, X):
        """``log P(y_l = 1 | x) - log P(y_l = 0 | x)`` per row and label (NB path)."""
        return self._independent_log_odds(X)

    def decision_function(self, X):
        """Label scores for ranking and thresholding, (n_samples, n_labels): the log-odds
        (NB path), else each label model's ``decision_function`` or the log-odds of its
        probability."""
        if self.base_estimator is None:
            return self._independent_log_odds(X)
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        with np.errstate(divide="ignore"):
            columns = [
                model.decision_function(X)
                if hasattr(model, "decision_function")
                else logit(positive_proba(model, X))
                for model in self.estimators_
            ]
        return np.column_stack(columns)

    def predict_proba(self, X):
        """Marginal probability of every label, shape (n_samples, n_labels)."""
        if self.base_estimator is None:
            return probability(self._independent_log_odds(X))
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        return np.column_stack([positive_proba(model, X) for model in self.estimators_])

    def predict(self, X):
        """0/1 prediction of every label, shape (n_samples, n_labels)."""
        if self.base_estimator is None:
            return (self._independent_log_odds(X) > 0).astype(int)
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        return np.column_stack([predict_binary(model, X) for model in self.estimators_])
