"""iMLNB: binary relevance Naive Bayes whose input space is expanded with correlated labels.

Chitra et al., "Label dependency modeling in Multi-Label Naive Bayes through input space
expansion": the classifier of label k sees the original
features and, as Bernoulli features, the other labels whose Pearson correlation with k
exceeds a threshold (0.5; eqs. 15-17). Continuous features are Gaussian, so each label's
model is a *mixed* Naive Bayes (eqs. 20-21); the label features are Laplace-smoothed
(eq. 23). Training uses the true labels as features; prediction first predicts every label
with plain binary relevance (the paper's "MLNB"), then feeds those predictions in.

Everything comes from the statistics of one pass (:mod:`._label_model`):

- the feature statistics grouped by Y give every label's log-odds from X (binary relevance);
- the label-pair statistics of Y grouped by Y (the co-occurrences ``C = Y.T @ Y`` with the
  counts ``N_k`` and ``N``) give both the correlations, ``r_kj = (N C_kj - N_k N_j) /
  sqrt(N_k (N - N_k) N_j (N - N_j))``, and the Bernoulli parameters ``P(y_j | y_k)``.

A label feature ``y_j`` adds ``weight[k, j] * y_j + absent[k, j]`` to label k's log-odds
(:func:`._label_model.label_log_odds`). Masking those two L x L matrices with the selection
turns stage 2 into one product: ``log-odds = base + Y1 @ W.T + b`` with ``Y1`` the stage-1
predictions, ``W = weight * selected`` and ``b = (absent * selected).sum(axis=1)``.
"""

from __future__ import annotations

from numbers import Real
from typing import ClassVar, NamedTuple

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ..base.validation import COUNT, check_label_matrix
from ..limits import Cost
from ._base import NB_CONSTRAINTS, AdditiveLabelNB, probability

__all__ = ["IMLNB", "Stages", "label_correlation"]

CORRELATIONS = ("absolute", "signed")


def label_correlation(labels, unknown=None):
    """Pearson correlation of every pair of labels, from the label-pair statistics.

    Parameters
    ----------
    labels : GroupStats
        Statistics of Y grouped by Y: ``count[k] = N_k``, ``sums[k, j] = C_kj`` (weighted
        co-occurrences), ``total_count = N``, ``total_sums[j] = N_j``.
    unknown : GroupStats, optional
        Y grouped by its unknown cells (labels with unknown cells): each pair's
        correlation is then over the rows where both labels are known (pairwise
        complete), ``N``, ``N_k`` and ``N_j`` counted on those rows.

    Returns
    -------
    ndarray of shape (n_labels, n_labels)
        ``r_kj = (N C_kj - N_k N_j) / sqrt(N_k (N - N_k) N_j (N - N_j))`` (Chitra et al.,
        eqs. 16-17, for 0/1 variables, weighted by the sample weights); 0 where a label is
        constant (never or always present), whose correlation is undefined.
    """
    if unknown is None:
        total = float(labels.total_count)
        present = np.asarray(labels.total_sums, dtype=float)
        covariance = total * labels.sums - np.outer(present, present)
        spread = present * (total - present)
        denominator = np.sqrt(np.outer(spread, spread))
    else:  # [k, j]: over the rows where k and j are known
        total = labels.total_feature_count[None, :] - unknown.feature_count
        row, column = labels.feature_count, labels.feature_count.T  # N_k, N_j on those rows
        covariance = total * labels.sums - row * column
        denominator = np.sqrt(np.maximum(row * (total - row) * column * (total - column), 0.0))
    correlation = np.zeros_like(covariance)
    np.divide(covariance, denominator, out=correlation, where=denominator > 0)
    return np.clip(correlation, -1.0, 1.0)


class Stages(NamedTuple):
    """What :meth:`IMLNB.predict_stages` returns.

    Attributes
    ----------
    labels : ndarray of shape (n_samples, n_labels), int
        The final predictions.
    log_odds : ndarray of shape (n_samples, n_labels)
        Log-odds of the last stage-2 round.
    first_stage : ndarray of shape (n_samples, n_labels), int
        The binary relevance (stage 1) predictions.
    rounds : ndarray of shape (n_samples,), int
        Stage-2 rounds evaluated for each row.
    converged : ndarray of shape (n_samples,), bool
        Whether the row's last round reproduced its input labels (a fixed point).
    """

    labels: np.ndarray
    log_odds: np.ndarray
    first_stage: np.ndarray
    rounds: np.ndarray
    converged: np.ndarray


class IMLNB(AdditiveLabelNB):
    """Binary relevance NB with label-space input expansion (iMLNB, Chitra et al.).

    Label k's classifier is a mixed Naive Bayes over the original features (the event
    model ``events``) and the labels j whose correlation with k exceeds ``threshold``
    (Bernoulli, Laplace-smoothed with ``label_alpha``). It is trained on the true labels;
    prediction is two-stage: binary relevance first, then each label again with the
    stage-1 predictions of its selected labels as the label features.

    Parameters
    ----------
    events : str or event model, default="tuned"
        Event model of the original features (:mod:`mlnb.events`): ``"gaussian"`` as the
        paper, ``"multinomial"`` / ``"bernoulli"`` for bag-of-words data; ``"tuned"``:
        chosen with its smoothing by cross-validation on the training rows (``chosen_``).
    rule : "tuned", "predict", a rule name or a rule object, default="tuned"
        How the stage-2 scores become label sets: ``"predict"``, the paper's (stage-2
        log-odds > 0); a rule of :data:`mlnb.decision_rules.RULES` fitted to out-of-fold
        scores; ``"tuned"``: the best by out-of-fold micro F1, kept only if it beats
        ``"predict"`` by more than one standard error (see :class:`~mlnb.BinaryRelevance`).
    threshold : float, default=0.5
        A label j becomes a feature of label k when ``r_kj > threshold`` (Chitra et al.: "the
        responses with correlation p > 0.5"); a threshold >= 1 selects nothing and gives
        binary relevance.
    correlation : {"absolute", "signed"}, default="absolute"
        Compare ``|r_kj|`` (strongly negatively correlated labels are informative too) or
        ``r_kj`` itself (only positive dependence, the paper's literal reading).
    fixed_point : bool, default=False
        Beyond the paper: repeat stage 2, feeding each round's predictions to the next,
        until the predictions stop changing or ``max_iter`` rounds have run.
    max_iter : int, default=10
        Largest number of stage-2 rounds when ``fixed_point`` is True.
    prior_alpha : float, default=0.0
        Pseudo-count of each label's prior ``P(y_k = 1) = (N_k + a) / (N + 2a)``
        (0: maximum likelihood, the paper's ``P(L = l_j)`` of eq. 20).
    label_alpha : float, default=1.0
        Smoothing of the label features, ``P(y_j = 1 | y_k = v) = (C + a) / (N_v + 2a)``
        (1: Laplace, eq. 23).
    label_prior : {"uniform", "marginal"}, default="uniform"
        As in :class:`ClassifierChain`: ``"marginal"`` smooths towards label j's frequency.
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.

    Attributes
    ----------
    label_correlation_ : ndarray of shape (n_labels, n_labels)
        Pearson correlation of the training labels (see :func:`label_correlation`).
    selected_ : ndarray of shape (n_labels, n_labels), bool
        ``selected_[k, j]``: label j is a feature of label k's classifier (symmetric, with
        a False diagonal).
    label_weight_ : ndarray of shape (n_labels, n_labels)
        ``log-odds(y_j = 1 | y_k = 1) - log-odds(y_j = 1 | y_k = 0)`` where selected, else 0.
    label_offset_ : ndarray of shape (n_labels,)
        ``sum_j selected_[k, j] * (log P(y_j = 0 | y_k = 1) - log P(y_j = 0 | y_k = 0))``:
        stage 2 gives label k the log-odds ``base_k + (Y1 @ label_weight_.T)_k +
        label_offset_[k]``.
    feature_stats_, label_stats_ : GroupStats
        Statistics of X and of Y grouped by Y (all the model is derived from).
    prior_log_odds_ : ndarray of shape (n_labels,)

    Notes
    -----
    Two readings of the paper. Eq. 23 as extracted, ``(1 + f_kj) / (q + sum_k f_kj)``, looks like a
    multinomial Laplace estimate over the q label features, but the text calls the label features
    Bernoulli; this follows the text: a Bernoulli feature per selected label with its own Laplace
    estimate. "p > 0.5" does not say whether a strong negative correlation counts; ``correlation``
    chooses.

    Training costs one pass of statistics for all labels: no per-label refit and no
    expanded data matrix. ``partial_fit`` and ``merge`` add statistics, then recompute the
    correlations and the selection from the accumulated statistics, so the model after any
    sequence of batches equals the model fitted on all of them at once; the selection may
    change from batch to batch (nothing learnt depends on it: it is only a mask).

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.multilabel.imlnb import IMLNB
    >>> X = np.array([[0.0, 1.0], [0.2, 1.1], [2.0, 0.1], [2.1, 0.0], [1.1, 0.4]])
    >>> Y = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 1], [1, 0, 1]])
    >>> model = IMLNB(events="gaussian", rule="predict").fit(X, Y)
    >>> model.selected_.astype(int)
    array([[0, 1, 1],
           [1, 0, 1],
           [1, 1, 0]])
    >>> model.predict([[0.1, 1.0], [2.0, 0.0]])
    array([[1, 1, 0],
           [0, 0, 1]])
    """

    _uses_label_pairs = True
    #: Unknown cells of Y: each label learnt from the rows where it is known, the other
    #: labels entering as features where they are known (missing elsewhere).
    _learns_unknown_cells = True
    #: Each label's classifier over the features is binary relevance's: the defaults'
    #: search may give each label its own smoothing and features
    #: (:class:`~mlnb.events.PerLabel`).
    _chooses_per_label = True

    def __init__(
        self,
        *,
        events="tuned",
        rule="tuned",
        threshold=0.5,
        correlation="absolute",
        fixed_point=False,
        max_iter=10,
        prior_alpha=0.0,
        label_alpha=1.0,
        label_prior="uniform",
        missing="error",
    ):
        self.events = events
        self.rule = rule
        self.threshold = threshold
        self.correlation = correlation
        self.fixed_point = fixed_point
        self.max_iter = max_iter
        self.prior_alpha = prior_alpha
        self.label_alpha = label_alpha
        self.label_prior = label_prior
        self.missing = missing

    _parameter_constraints: ClassVar[dict] = {
        **NB_CONSTRAINTS,
        "threshold": [Interval(Real, None, None, closed="neither")],
        "correlation": [StrOptions(set(CORRELATIONS))],
        "fixed_point": ["boolean"],
        "max_iter": [COUNT],
    }

    def _planned_cost(self, n_samples, n_features, n_labels):
        """The rounds of the fixed point (``fixed_point=True``); a step per round, row and
        label."""
        if not self.fixed_point:
            return None
        T = int(self.max_iter)
        return Cost(0, T * n_samples * n_labels, {"max_iter": T})

    # ---- fitting ------------------------------------------------------------------------
    def _install(self, features, labels, events=None, **unknown):
        """Install the statistics; derive the correlations, the selection, the label terms."""
        self._validate_params()
        super()._install(features, labels, events, **unknown)
        weight, absent = self._label_pairs
        correlation = label_correlation(labels, unknown.get("unknown_labels"))
        strength = np.abs(correlation) if self.correlation == "absolute" else correlation
        selected = strength > self.threshold
        np.fill_diagonal(selected, False)
        self.label_correlation_ = correlation
        self.selected_ = selected
        self.label_weight_ = np.where(selected, weight, 0.0)
        self.label_offset_ = np.where(selected, absent, 0.0).sum(axis=1)

    # ---- prediction ---------------------------------------------------------------------
    def predict_stages(self, X, first_stage=None):
        """Both stages of the prediction, with the rounds each row took.

        Stage 1 is binary relevance; each stage-2 round scores every label from its
        features and the previous round's predictions of its selected labels. One round
        (the paper) unless ``fixed_point``: then rounds repeat, only for the rows whose
        predictions still change, until none changes or ``max_iter`` rounds have run; a
        row still changing then (the labels can oscillate) keeps its last round.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        first_stage : array-like of shape (n_samples, n_labels), default=None
            0/1 labels to feed stage 2 instead of the binary relevance predictions: the
            predictions of another classifier, or the true labels (an oracle, to measure
            what the label features could give with error-free stage-1 predictions).

        Returns
        -------
        Stages
            ``labels``, ``log_odds``, ``first_stage``, ``rounds``, ``converged``.
        """
        self._validate_params()
        base = self._independent_log_odds(X)
        if first_stage is None:
            first = (base > 0).astype(int)
        else:
            first = check_label_matrix(first_stage, base.shape[0], n_labels=self.n_labels_)
            first = first.astype(int)
        labels, log_odds = first.copy(), base.copy()
        n_samples = base.shape[0]
        rounds = np.zeros(n_samples, dtype=int)
        converged = np.zeros(n_samples, dtype=bool)
        # Only labels selected by some classifier feed stage 2: the product shrinks to them.
        active = np.flatnonzero(self.selected_.any(axis=0))
        weight = self.label_weight_[:, active].T
        max_rounds = int(self.max_iter) if self.fixed_point else 1
        pending = np.arange(n_samples)
        for _ in range(max_rounds):  # rounds, not samples or labels
            previous = labels[pending]
            odds = base[pending] + previous[:, active] @ weight + self.label_offset_
            current = (odds > 0).astype(int)
            labels[pending], log_odds[pending] = current, odds
            rounds[pending] += 1
            still = np.any(current != previous, axis=1)
            converged[pending[~still]] = True
            pending = pending[still]
            if pending.size == 0:
                break
        return Stages(labels, log_odds, first, rounds, converged)

    def predict_log_odds(self, X):
        """Stage-2 ``log P(y_k = 1 | x, y_selected) - log P(y_k = 0 | ...)``, (n x L)."""
        return self.predict_stages(X).log_odds

    def _scores_and_own_labels(self, X):
        """The stage-2 log-odds and labels, from one pass through the stages."""
        stages = self.predict_stages(X)
        return stages.log_odds, stages.labels

    def decision_function(self, X):
        """Label scores for ranking and thresholding: the stage-2 log-odds (n x L)."""
        return self.predict_log_odds(X)

    def predict_proba(self, X):
        """``P(y_k = 1 | x, stage-1 predictions of k's selected labels)``, (n x L).

        With ``fixed_point``, the selected labels are those of the last round's input.
        """
        return probability(self.predict_log_odds(X))

    def predict(self, X):
        """0/1 prediction of every label, shape (n_samples, n_labels)."""
        decided = self._decided(X)
        if decided is not None:
            return decided
        return self.predict_stages(X).labels
