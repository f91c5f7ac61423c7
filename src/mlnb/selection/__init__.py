"""Model selection on the fold-subtraction engine (:class:`mlnb.base.FoldStatistics`).

- :class:`FoldSubtractionSearchCV` (:mod:`.search`): scikit-learn's grid search, each fold's
  model from total minus fold statistics;
- :class:`TunedThresholdsCV` (:mod:`.thresholds`): a multi-label model's decision rule (and,
  with ``param_grid``, its event model and smoothing) chosen on out-of-fold scores;
- :mod:`.grids`: what ``param_grid="auto"`` searches, and when it is used.
"""

from .grids import LABEL_GRID, WEAK_LABELS, auto_stages, default_param_grid, event_grid
from .search import FoldSubtractionSearchCV
from .thresholds import OWN_RULE, TunedThresholdsCV, label_scores, scoring_function

__all__ = [
    "LABEL_GRID",
    "OWN_RULE",
    "WEAK_LABELS",
    "FoldSubtractionSearchCV",
    "TunedThresholdsCV",
    "auto_stages",
    "default_param_grid",
    "event_grid",
    "label_scores",
    "scoring_function",
]
