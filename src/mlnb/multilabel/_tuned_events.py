"""``events="tuned"`` for the multi-label estimators that are refitted, not subtracted.

Ensembles, dynamic chains and label powersets see samples or splits of their rows, so their
own cross-validation would refit them per fold. At ``events="tuned"`` they take the event
model that binary relevance chooses on the same rows by fold subtraction
(:func:`~mlnb.multilabel._resolution.resolve_settings`: one statistics pass per kind of
statistics), a per-label Naive Bayes whose event model suits the same features:

- for an estimator that decides by a rule it fits itself (``rule`` other than
  ``"predict"``: the ensembles and dynamic chains out of bag or held out), the one binary
  relevance chooses with every rule, its features too (``BinaryRelevance()``'s choice:
  medical's chi-squared selection took the chain ensemble from micro F1 0.65 to 0.79, the
  dynamic chain from 0.63 to 0.75);
- for one that decides by its own vote or label sets, the one binary relevance chooses at
  its own 0.5 rule: the event model must then place the probabilities well by itself (a
  multinomial model on dense measurements, mended in BR by a fitted rule, makes
  DynamicChainEnsemble's vote predict almost nothing on scene: micro F1 0.13 against 0.64
  with the Gaussian).
"""

from __future__ import annotations

from ..base.validation import check_label_matrix
from ..events.auto import is_tuned
from ._resolution import OWN_RULE, resolve_settings
from .binary_relevance import BinaryRelevance

__all__ = ["choose_events", "member_events"]


def choose_events(estimator, X, Y, sample_weight=None):
    """Set ``estimator.events_`` to the event model of its ``events`` on rows X, Y.

    At ``events="tuned"``: the one binary relevance chooses with its smoothing, with every
    rule (an estimator that fits its own, ``rule`` other than ``"predict"``) or at its own
    0.5 rule (the others); otherwise nothing is done (the estimator's own fit
    makes the model ``events`` names). X: validated rows; Y: sparse label matrix.
    """
    if not is_tuned(estimator.events):
        return
    Y = check_label_matrix(Y, X.shape[0], sparse=True)
    template = BinaryRelevance(missing=getattr(estimator, "missing", "error"))
    # a rule fitted by the estimator itself: BR's choice with its rules; else BR's at its
    # own 0.5 rule, as the estimator's vote or sets are not mended by a fitted rule
    rule = None if getattr(estimator, "rule", OWN_RULE) != OWN_RULE else OWN_RULE
    # one event model for every label: the estimator's groups are not binary relevance's
    # labels (stacked chains, label sets), so a model per label would not fit them
    resolution = resolve_settings(
        template, X, Y, sample_weight=sample_weight, rule=rule, per_label=False
    )
    estimator.events_ = resolution.events
    estimator.chosen_params_ = {"events": estimator.events_}


def member_events(estimator):
    """The ``events`` to give an ensemble's members: the chosen ``events_`` at
    ``events="tuned"`` (after :func:`choose_events`), else ``events`` as given."""
    return estimator.events_ if is_tuned(estimator.events) else estimator.events
