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

An ensemble of chains whose label terms are ``"tuned"`` takes them, with its event model,
from one chain's search (:func:`choose_events`): on bibtex the classic chain's label terms
(Laplace's, towards 1/2) made EnsembleClassifierChains' micro F1 0.332, those chosen 0.383;
on delicious 0.157 and 0.348.
"""

from __future__ import annotations

from ..base.validation import check_label_matrix
from ..events.auto import is_tuned
from ._resolution import OWN_RULE, TUNED, label_terms_to_try, resolve_settings
from .binary_relevance import BinaryRelevance
from .chain import ClassifierChain

__all__ = ["choose_events", "member_events"]


def choose_events(estimator, X, Y, sample_weight=None):
    """Set ``estimator.events_`` to the event model of its ``events`` on rows X, Y, and
    its ``label_terms_`` where its label terms are ``"tuned"``.

    At ``events="tuned"``: the one binary relevance chooses with its smoothing, with every
    rule (an estimator that fits its own, ``rule`` other than ``"predict"``) or at its own
    0.5 rule (the others); otherwise nothing is done (the estimator's own fit
    makes the model ``events`` names). An estimator whose ``label_prior`` or
    ``label_alpha`` is ``"tuned"`` (an ensemble of chains) takes both from one search of
    a :class:`~mlnb.ClassifierChain` with its label terms tuned (the event model chosen
    with the label terms silent, as binary relevance's, then the label terms with it;
    the given event model if ``events`` is not ``"tuned"``): the chain's label terms
    chosen out of fold, at the cost of one chain's search and no refit of the members.
    A chain's search judges the label terms on its own order; an ensemble's chains have
    others, which the label terms (each label's smoothing towards a prior) do not depend
    on. With the event model and rule given, such label terms are the classic chain's
    (:data:`~._resolution.CLASSIC_LABELS`). X: validated rows; Y: sparse label matrix.
    """
    chooses_terms = bool(label_terms_to_try(estimator))
    estimator.__dict__.pop("label_terms_", None)
    searched = is_tuned(estimator.events) or getattr(estimator, "rule", OWN_RULE) == TUNED
    if not is_tuned(estimator.events) and not (chooses_terms and searched):
        return
    Y = check_label_matrix(Y, X.shape[0], sparse=True)
    missing = getattr(estimator, "missing", "error")
    # a rule fitted by the estimator itself: BR's choice with its rules; else BR's at its
    # own 0.5 rule, as the estimator's vote or sets are not mended by a fitted rule
    rule = None if getattr(estimator, "rule", OWN_RULE) != OWN_RULE else OWN_RULE
    if chooses_terms:
        params = estimator.get_params(deep=False)
        terms = {key: params[key] for key in ("label_prior", "label_alpha")}
        template = ClassifierChain(missing=missing, **terms)
    else:
        template = BinaryRelevance(missing=missing)
    given = None if is_tuned(estimator.events) else estimator.event_model(X)
    # one event model for every label: the estimator's groups are not binary relevance's
    # labels (stacked chains, label sets), so a model per label would not fit them
    resolution = resolve_settings(
        template, X, Y, sample_weight=sample_weight, events=given, rule=rule, per_label=False
    )
    if is_tuned(estimator.events):
        estimator.events_ = resolution.events
    chosen = {"events": resolution.events} if is_tuned(estimator.events) else {}
    if chooses_terms:
        estimator.label_terms_ = dict(resolution.params)
        chosen.update(resolution.params)
    estimator.chosen_params_ = chosen


def member_events(estimator):
    """The ``events`` to give an ensemble's members: the chosen ``events_`` at
    ``events="tuned"`` (after :func:`choose_events`), else ``events`` as given."""
    return estimator.events_ if is_tuned(estimator.events) else estimator.events
