"""The ``missing=`` option bound to an event model: :class:`IgnoreMissing`, :func:`bind_missing`.

With ``missing="ignore"`` a NaN entry adds nothing to the statistics or to a row's score
(Weka's semantics, see :mod:`mlnb.missing`). An estimator binds its option to its event model
(:func:`bind_missing`) and then calls ``prepare``, ``score`` and ``score_ratio`` plainly:
:class:`IgnoreMissing` routes them to the model's ``*_observed`` variants; with
``missing="error"`` the model is used as it is (validation has refused NaN already).

The binding is derived, not fitted: estimators keep the plain model (``events_``) and bind it
from their ``missing`` parameter where they prepare or score rows, so model files hold no
wrapper.
"""

from __future__ import annotations

from sklearn.base import BaseEstimator

from .._registered import Registered

__all__ = ["IgnoreMissing", "bind_missing"]


def bind_missing(events, missing):
    """``events`` with the ``missing`` option bound: :class:`IgnoreMissing` for ``"ignore"``.

    Parameters
    ----------
    events : EventModel
    missing : {"error", "ignore"} or None
        An estimator's option (validated by the estimator). Any value but ``"ignore"``
        returns ``events`` itself: validation has refused NaN, and looking for it again
        would cost a pass over X (on scene's 2,407 x 294, a fifth of a multinomial
        prediction).

    Returns
    -------
    EventModel or IgnoreMissing

    Examples
    --------
    >>> from mlnb.events import Multinomial, bind_missing
    >>> type(bind_missing(Multinomial(), "ignore")).__name__
    'IgnoreMissing'
    >>> model = Multinomial()
    >>> bind_missing(model, "error") is model
    True
    """
    if missing != "ignore" or isinstance(events, IgnoreMissing):
        return events
    return IgnoreMissing(events)


class IgnoreMissing(Registered, BaseEstimator):
    """An event model whose rows' missing entries (NaN) add nothing.

    ``prepare``, ``score`` and ``score_ratio`` are the wrapped model's ``prepare_observed``,
    ``score_observed`` and ``score_ratio_observed``; everything else is the wrapped model's
    (its estimates, statistics key, input kind, ...).

    Parameters
    ----------
    events : EventModel
        The model wrapped.
    """

    def __init__(self, events):
        self.events = events

    # ---- the rows: missing entries add nothing -------------------------------------------
    def prepare(self, X, *, caller="this model"):
        """The wrapped model's ``prepare_observed``: missing entries stay NaN."""
        return self.events.prepare_observed(X, caller=caller)

    def score(self, params, X):
        """The wrapped model's ``score_observed``: a NaN entry adds no term."""
        return self.events.score_observed(params, X)

    def score_ratio(self, params_a, params_b, X):
        """The wrapped model's ``score_ratio_observed``: a NaN entry adds no term."""
        return self.events.score_ratio_observed(params_a, params_b, X)

    # ---- the rest of the protocol (estimate, silence, statistics_key, input_kind, ...) ----
    def __getattr__(self, name):
        """Any other public attribute is the wrapped model's: ``estimate``, ``silence``,
        ``zero_terms``, ``statistics_key``, ``input_kind``, ``second_moments``,
        ``zero_features_silent``, ``prepared_width``, a model's own helpers, ..."""
        events = vars(self).get("events")
        if name.startswith("_") or events is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(events, name)
