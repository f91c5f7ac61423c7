"""Binary relevance: one independent classifier per label.

The Naive Bayes path builds every label's statistics in one pass (the rows holding label l
from ``Y.T @ X``; the others as total minus those) and predicts all labels with two
log-likelihood matrices, where one-vs-rest libraries fit L models in L passes. The generic
path fits a clone of any scikit-learn classifier per label.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logit
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ..base.validation import check_label_matrix, validate_rows
from ._base import AdditiveLabelNB, probability
from ._generic import check_nb_path, fit_binary, positive_proba, predict_binary
from ._labels import binary_classes

__all__ = ["BinaryRelevance"]


class BinaryRelevance(AdditiveLabelNB):
    """Binary relevance with Naive Bayes (all labels in one pass) or any base classifier.

    Parameters
    ----------
    events : str or event model, default="tuned"
        Event model of the features (:mod:`mlnb.events`), e.g. ``"multinomial"`` for counts;
        ``"tuned"``: chosen with its smoothing by 5-fold cross-validation on the training
        rows, among those that suit the data type (see ``chosen_``).
    rule : "tuned", "predict", a rule name or a rule object, default="tuned"
        The decision rule that turns label scores into label sets (NB path): ``"predict"``,
        the 0.5 rule (log-odds > 0); a rule of :data:`mlnb.decision_rules.RULES` (or a rule
        object), fitted to out-of-fold scores (a fitted rule object is applied as it is);
        ``"tuned"``: the rule with the best out-of-fold micro F1, kept only if it beats the
        0.5 rule by more than one standard error over the folds. Choosing costs one pass
        over the data per kind of statistics (fold subtraction), not a refit per fold.
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
    chosen_ : dict or None
        What fitting chose (``"events"``, ``"rule"``, the out-of-fold micro F1 of every
        setting tried, labels per row predicted out of fold and in truth); None when
        nothing was chosen (explicit ``events`` and ``rule="predict"``).
    chosen_params_ : dict
        ``events`` and ``rule`` that give the same model without a search:
        ``clone(model).set_params(**model.chosen_params_)``.
    rule_ : fitted rule or None
        None: the 0.5 rule.
    feature_stats_ : GroupStats
        Statistics of X over the rows holding each label (NB path).
    prior_log_odds_ : ndarray of shape (n_labels,)
    estimators_ : list of fitted classifiers or constants (generic path)
    label_names_ : ndarray of shape (n_labels,)
        The label of every column: Y's tags, sorted, or its DataFrame's column names;
        ``0 .. L-1`` for a 0/1 matrix (every multi-label estimator has it).

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import BinaryRelevance
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 4, 1], [0, 3, 2]])
    >>> Y = np.array([[1, 0], [1, 0], [0, 1], [1, 1]])
    >>> plain = BinaryRelevance(events="multinomial", rule="predict").fit(X, Y)
    >>> plain.predict([[4, 0, 0], [0, 5, 1]])
    array([[1, 0],
           [0, 1]])
    >>> rng = np.random.default_rng(0)
    >>> Y = (rng.random((200, 4)) < 0.3).astype(int)
    >>> X = rng.poisson(0.5 + 3 * Y @ rng.random((4, 20)))
    >>> model = BinaryRelevance().fit(X, Y)  # event model and rule chosen from the data
    >>> sorted(model.chosen_params_)
    ['events', 'rule']

    Cells of Y may be unknown (NaN, or masked): each label is learnt from the rows where
    it is known, exactly as if fitted on those rows alone (NB path):

    >>> Y = np.array([[1, 0], [1, np.nan], [0, 1], [np.nan, 1]])
    >>> partial = BinaryRelevance(events="multinomial", rule="predict").fit(X[:4], Y)
    >>> alone = BinaryRelevance(events="multinomial", rule="predict").fit(X[:3], Y[:3, :1])
    >>> bool(np.allclose(partial.predict_log_odds(X)[:, 0], alone.predict_log_odds(X)[:, 0]))
    True

    Y may be label lists (or a DataFrame of named 0/1 columns); the predictions turn back
    into names with :func:`mlnb.labels.to_label_lists`:

    >>> from mlnb.labels import to_label_lists
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 4, 1], [0, 3, 2]])
    >>> tags = [["sport"], ["sport"], ["news"], ["news", "sport"]]
    >>> model = BinaryRelevance(events="multinomial", rule="predict").fit(X, tags)
    >>> model.label_names_
    array(['news', 'sport'], dtype='<U5')
    >>> to_label_lists(model.predict([[4, 0, 0], [0, 5, 1]]), model.label_names_)
    [['sport'], ['news']]
    """

    #: Its labels are separate problems: the defaults' search may give each its own
    #: smoothing and features (:class:`~mlnb.events.PerLabel`), and each is learnt from the
    #: rows where it is known (unknown cells of Y).
    _chooses_per_label = True
    _learns_unknown_cells = True

    def __init__(
        self,
        *,
        events="tuned",
        rule="tuned",
        prior_alpha=0.0,
        base_estimator=None,
        missing="error",
    ):
        self.events = events
        self.rule = rule
        self.prior_alpha = prior_alpha
        self.base_estimator = base_estimator
        self.missing = missing

    def soft_statistics(self, X, proba, sample_weight=None):
        """The statistics of rows whose labels are uncertain: row i counts ``proba[i, l]``
        times (times its weight) among label l's rows, and the rest among its other rows;
        nothing is fitted. What the M-step of expectation-maximisation adds for unlabelled
        rows (:class:`mlnb.semi_supervised.SemiSupervisedNB`; Nigam et al. 2000).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        proba : array-like of shape (n_samples, n_labels)
            Each row's probability of every label.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        NamedStats
            As :meth:`batch_statistics` gives them (the fitted event model's, if fitted).
        """
        events = self.events_ if hasattr(self, "events_") else self.event_model()
        X = validate_rows(self, X, missing=self.missing)
        proba = np.asarray(proba, dtype=np.float64)
        if proba.ndim != 2 or proba.shape[0] != X.shape[0]:
            raise ValueError(f"proba has shape {proba.shape}; expected ({X.shape[0]}, n_labels)")
        if not np.all(np.isfinite(proba)) or proba.min(initial=0.0) < 0 or proba.max(initial=0) > 1:
            raise ValueError("proba must hold probabilities (finite, in [0, 1])")
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        return self._named_statistics(events, X, proba, weight)  # proba as the label grouping

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

    def _scores_and_own_labels(self, X):
        """The log-odds and the 0.5 rule's labels, from one pass (NB path)."""
        log_odds = self._independent_log_odds(X)
        return log_odds, (log_odds > 0).astype(int)

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
            decided = self._decided(X)
            if decided is not None:
                return decided
            return (self._independent_log_odds(X) > 0).astype(int)
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        return np.column_stack([predict_binary(model, X) for model in self.estimators_])
