"""Deprecated import path: the decision-rule tuner now lives in :mod:`mlnb.selection`
(``from mlnb.selection import TunedThresholdsCV``); this module re-exports its names for one
release."""

from .base import is_additive
from .selection.grids import LABEL_GRID, WEAK_LABELS, event_grid
from .selection.thresholds import OWN_RULE, TunedThresholdsCV, label_scores, scoring_function

__all__ = [
    "LABEL_GRID",
    "OWN_RULE",
    "WEAK_LABELS",
    "TunedThresholdsCV",
    "event_grid",
    "is_additive",
    "label_scores",
    "scoring_function",
]
