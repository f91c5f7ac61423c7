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

    # ---- the rest of the protocol, as the wrapped model's ----------------------------------
    @property
    def input_kind(self):
        return self.events.input_kind

    @property
    def second_moments(self):
        return self.events.second_moments

    @property
    def zero_features_silent(self):
        return self.events.zero_features_silent

    @property
    def keeps_width(self):
        return self.events.keeps_width

    def statistics_key(self):
        """The wrapped model's: the option changes no statistics' layout."""
        return self.events.statistics_key()

    def estimate(self, stats):
        return self.events.estimate(stats)

    def silence(self, positive, negative, mask):
        return self.events.silence(positive, negative, mask)

    def zero_terms(self, params):
        return self.events.zero_terms(params)

    def __getattr__(self, name):
        """Any other public attribute of the wrapped model (``prepared_width``,
        ``estimate_columns``, ``stacked_log_odds``, a model's own helpers, ...)."""
        events = vars(self).get("events")
        if name.startswith("_") or events is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(events, name)
