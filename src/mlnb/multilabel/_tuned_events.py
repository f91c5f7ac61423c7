"""``events="tuned"`` for the multi-label estimators that are refitted, not subtracted.

Ensembles, dynamic chains and label powersets see samples or splits of their rows, so their
own cross-validation would refit them per fold. At ``events="tuned"`` they take the event
model that binary relevance chooses on the same rows by fold subtraction
(:func:`~mlnb.multilabel._resolution.resolve_settings`: one statistics pass per kind of
statistics), a per-label Naive Bayes whose event model suits the same features, judged at
BR's own 0.5 rule: these estimators decide by their own votes or label sets, so the event
model must place the probabilities well by itself (a multinomial model on dense
measurements, mended in BR by a fitted rule, makes DynamicChainEnsemble's vote predict
almost nothing on scene: micro F1 0.13 against 0.64 with the Gaussian).
"""

from __future__ import annotations

from ..base.validation import check_label_matrix
from ..events.auto import is_tuned
from ._resolution import OWN_RULE, resolve_settings
from .binary_relevance import BinaryRelevance

__all__ = ["choose_events", "member_events"]


def choose_events(estimator, X, Y, sample_weight=None):
    """Set ``estimator.events_`` to the event model of its ``events`` on rows X, Y.

    At ``events="tuned"``: the one binary relevance chooses with its smoothing at its own
    0.5 rule; otherwise nothing is done (the estimator's own fit
    makes the model ``events`` names). X: validated rows; Y: sparse label matrix.
    """
    if not is_tuned(estimator.events):
        return
    Y = check_label_matrix(Y, X.shape[0], sparse=True)
    template = BinaryRelevance(missing=getattr(estimator, "missing", "error"))
    # with BR's own 0.5 rule: these estimators decide by their own votes or sets, not by
    # a fitted rule that would mend a model whose probabilities are badly placed
    resolution = resolve_settings(template, X, Y, sample_weight=sample_weight, rule=OWN_RULE)
    estimator.events_ = resolution.events
    estimator.chosen_params_ = {"events": estimator.events_}


def member_events(estimator):
    """The ``events`` to give an ensemble's members: the chosen ``events_`` at
    ``events="tuned"`` (after :func:`choose_events`), else ``events`` as given."""
    return estimator.events_ if is_tuned(estimator.events) else estimator.events
