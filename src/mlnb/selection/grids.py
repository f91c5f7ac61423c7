"""The grids that model selection searches, and the "auto" policy that chooses them.

- :func:`event_grid`: the event models and smoothings that suit rows X;
- :data:`WEAK_LABELS`, :data:`LABEL_GRID`: the label-feature smoothings of chains;
- :func:`auto_stages`: the stages of ``param_grid="auto"`` for an estimator;
- :func:`default_param_grid`: whether a multi-label estimator's event model is chosen with
  its decision rule (``"auto"``) or kept (None): the policy that ``TunedThresholdsCV``'s
  callers (the command line among them) apply when a user asks for a tuned rule.
"""

from __future__ import annotations

from ..base import is_additive
from ..multilabel import LABEL_TERMS, candidate_events
from ..multilabel import WEAK_LABELS as _WEAK_LABELS

__all__ = ["LABEL_GRID", "WEAK_LABELS", "auto_stages", "default_param_grid", "event_grid"]


#: How ``param_grid="auto"`` smooths the label features of chains while it chooses their
#: event model: towards each label's frequency, so strongly (10^6 pseudo-counts) that the
#: chain is nearly binary relevance, whose event model is then the one that is chosen (the
#: chains' own defaults start from the same, :data:`mlnb.multilabel.WEAK_LABELS`).
WEAK_LABELS = dict(_WEAK_LABELS)

#: The second stage of ``param_grid="auto"`` for chains, with the chosen event model: the
#: Laplace smoothing of the label features, and smoothing towards each label's frequency
#: with fewer pseudo-counts than :data:`WEAK_LABELS` (the fewer, the more the chain's
#: labels say about each other); the label terms a chain's defaults try
#: (:data:`mlnb.multilabel.LABEL_TERMS`).
LABEL_GRID = [dict(terms) for terms in LABEL_TERMS]


def event_grid(X):
    """The event models and smoothings that ``param_grid="auto"`` searches for rows X: those
    that a multi-label estimator at ``events="tuned"`` tries
    (:func:`mlnb.multilabel.candidate_events`), as a list of ``{"events": model}``."""
    return [{"events": model} for model in candidate_events(X)]


def auto_stages(estimator, X):
    """The grids of ``param_grid="auto"``, searched one after the other: the event models
    of :func:`event_grid`; for estimators with label features (chains), those smoothed as
    :data:`WEAK_LABELS`, then the label smoothings of :data:`LABEL_GRID`."""
    if not {"label_prior", "label_alpha"} <= set(estimator.get_params()):
        return [event_grid(X)]
    return [[{**params, **WEAK_LABELS} for params in event_grid(X)], LABEL_GRID]


def default_param_grid(estimator, *, events_given=False):
    """``param_grid`` for a tuned decision rule of ``estimator``: ``"auto"`` (choose the
    event model too) when the estimator has an ``events`` parameter that the user did not
    give and fold subtraction makes the choice cheap (:func:`~mlnb.base.is_additive`);
    None otherwise (methods refitted per fold keep their event model).

    Examples
    --------
    >>> from mlnb import BinaryRelevance, EnsembleClassifierChains
    >>> from mlnb.selection import default_param_grid
    >>> default_param_grid(BinaryRelevance())
    'auto'
    >>> default_param_grid(BinaryRelevance(events="bernoulli"), events_given=True) is None
    True
    >>> default_param_grid(EnsembleClassifierChains()) is None  # refitted per fold
    True
    """
    choose_events = "events" in estimator.get_params() and not events_given
    return "auto" if choose_events and is_additive(estimator) else None
