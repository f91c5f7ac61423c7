"""The estimator contract that every estimator and meta-estimator shares.

- :mod:`mlnb.base.validation`: input validation (rows and the NaN policy, pandas frames,
  label matrices) and the parameter constraints and bounds estimators declare;
- :mod:`mlnb.base.additive`: the statistics protocol, :func:`is_additive` and the
  fold-subtraction engine :class:`FoldStatistics`;
- :mod:`mlnb.base.state`: all-or-nothing updates, merge checks, online checks, state
  transfer;
- :mod:`mlnb.base.instances`: the test instances every estimator declares.

This floor stands on :mod:`mlnb.stats` and :mod:`mlnb.events`; the estimators
(:mod:`mlnb.naive_bayes`, :mod:`mlnb.multilabel`), model selection and everything above
them build on it.
"""

from .additive import (
    FoldStatistics,
    check_additive,
    check_partition,
    is_additive,
    is_partition,
    is_single_label,
    remaining_statistics,
    takes_classes,
)
from .instances import UnitTestParams
from .state import adopt_state, atomic, check_mergeable, check_online, same_params
from .validation import (
    COUNT,
    LOG_ODDS_BOUND,
    MISSING_OPTIONS,
    SHARE,
    Integers,
    check_label_matrix,
    validate_rows,
)

__all__ = [
    "COUNT",
    "LOG_ODDS_BOUND",
    "MISSING_OPTIONS",
    "SHARE",
    "FoldStatistics",
    "Integers",
    "UnitTestParams",
    "adopt_state",
    "atomic",
    "check_additive",
    "check_partition",
    "check_label_matrix",
    "check_mergeable",
    "check_online",
    "is_additive",
    "is_partition",
    "is_single_label",
    "remaining_statistics",
    "same_params",
    "takes_classes",
    "validate_rows",
]
