"""Per-label event models: each group (a label against its other rows) with its own model.

Binary relevance solves one binary problem per label, and nothing asks every label to use
the same smoothing or the same features: a frequent tag may want many words and little
smoothing, a rare one a handful of words and much. :class:`PerLabel` scores group ``g``
with ``models[choice[g]]``. The models must share one set of statistics (equal
:meth:`~mlnb.events.EventModel.statistics_key`: the smoothings of one event model, and its
chi-squared selections of any size), so that the model is still a function of the same
additive statistics: ``partial_fit``, ``merge``, fold subtraction and model files work as
for any event model. What the defaults' search chooses per label (see
:func:`mlnb.multilabel.resolve_settings`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._base import EventModel, Parameters

__all__ = ["PerLabel", "PerLabelParameters"]


@dataclass
class PerLabelParameters(Parameters):
    """Per model used: (event model, its groups' indices, its parameters of those groups),
    and the number of groups in all."""

    blocks: list
    n_groups: int


class PerLabel(EventModel):
    """Group ``g`` (label ``g`` in binary relevance) scored by ``models[choice[g]]``.

    Parameters
    ----------
    models : sequence of EventModel
        The models to choose from; they must share their statistics (equal
        ``statistics_key()``), e.g. ``Multinomial(alpha=a)`` for several ``a`` and
        ``ChiSquaredSelection(Multinomial(alpha=a), k=k)`` for several ``k``.
    choice : sequence of int
        The index in ``models`` of every group's model (one per label).

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import BinaryRelevance
    >>> from mlnb.events import ChiSquaredSelection, Multinomial, PerLabel
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.poisson(1.0, size=(40, 12)), rng.integers(0, 2, size=(40, 3))
    >>> events = PerLabel([Multinomial(alpha=1.0), ChiSquaredSelection(Multinomial(), k=4)],
    ...                   choice=[0, 1, 1])
    >>> mixed = BinaryRelevance(events=events, rule="predict").fit(X, Y)
    >>> alone = BinaryRelevance(events=Multinomial(alpha=1.0), rule="predict").fit(X, Y)
    >>> bool(np.allclose(mixed.decision_function(X)[:, 0], alone.decision_function(X)[:, 0]))
    True
    """

    def __init__(self, models=None, choice=None):
        self.models = models
        self.choice = choice

    def __repr__(self, N_CHAR_MAX=700):
        try:
            members, choice = self._members(), self._choice()
        except (TypeError, ValueError):
            return super().__repr__(N_CHAR_MAX)
        used = np.bincount(choice, minlength=len(members))
        parts = ", ".join(
            f"{model!r}: {count}" for model, count in zip(members, used, strict=True) if count
        )
        return f"{type(self).__name__}(<{len(choice)} labels: {parts}>)"

    def _members(self):
        from . import make_event_model

        if not self.models:
            raise ValueError("PerLabel needs at least one event model in models")
        members = [make_event_model(model) for model in self.models]
        keys = [model.statistics_key() for model in members]
        different = [repr(m) for m, key in zip(members, keys, strict=True) if key != keys[0]]
        if different:
            raise ValueError(
                "PerLabel's models must share their statistics (equal statistics_key); "
                f"{different[:3]} differ from {members[0]!r}"
            )
        return members

    def _choice(self, n_groups=None):
        choice = np.asarray(self.choice if self.choice is not None else [])
        if choice.ndim != 1 or choice.size == 0 or not np.issubdtype(choice.dtype, np.integer):
            raise ValueError(
                "PerLabel's choice must be a non-empty sequence of integers (the model of "
                f"each label); got {self.choice!r}"
            )
        n_models = len(self.models)
        if choice.min() < 0 or choice.max() >= n_models:
            raise ValueError(f"PerLabel's choice must lie in 0..{n_models - 1} (its models)")
        if n_groups is not None and choice.size != n_groups:
            raise ValueError(
                f"PerLabel has a choice for {choice.size} labels; the statistics hold "
                f"{n_groups} (it scores binary problems, one per label)"
            )
        return choice.astype(np.intp)

    # ---- what every member shares ---------------------------------------------------------
    def _first(self):
        return self._members()[0]

    def common_model(self):
        """The first of ``models``, which scores groups that are not labels (NaiBX's
        label-set sizes): the model the defaults' search chose for every label before
        giving some labels their own."""
        return self._first()

    @property
    def input_kind(self):
        return self._first().input_kind

    @property
    def second_moments(self):
        return self._first().second_moments

    @property
    def keeps_width(self):
        return self._first().keeps_width

    @property
    def zero_features_silent(self):
        return all(model.zero_features_silent for model in self._members())

    def statistics_key(self):
        """The members' key: a per-label model shares its members' statistics."""
        return self._first().statistics_key()

    def prepare(self, X, *, caller="this model"):
        return self._first().prepare(X, caller=caller)

    def prepare_observed(self, X, *, caller="this model"):
        return self._first().prepare_observed(X, caller=caller)

    def prepared_width(self, n_features):
        return self._first().prepared_width(n_features)

    def input_width(self, n_prepared):
        return self._first().input_width(n_prepared)

    # ---- estimates and scores, block by block ---------------------------------------------
    def estimate(self, stats):
        return self._by_member(stats, lambda model, part, groups: model.estimate(part))

    def estimate_stacked(self, stats, totals, member):
        """As :meth:`estimate`, each member's groups with their own models' totals; None if
        a member used has no stacked form."""
        member = np.asarray(member)
        return self._by_member(
            stats, lambda model, part, groups: model.estimate_stacked(part, totals, member[groups])
        )

    def _by_member(self, stats, estimate):
        """Each member's ``estimate(model, its groups' statistics, groups)`` in one
        parameters object; None if a member's is None."""
        members, choice = self._members(), self._choice(stats.n_groups)
        blocks = []
        for index, model in enumerate(members):
            groups = np.flatnonzero(choice == index)
            if groups.size:
                block = estimate(model, stats.select_groups(groups), groups)
                if block is None:
                    return None
                blocks.append((model, groups, block))
        return PerLabelParameters(blocks, int(stats.n_groups))

    def score(self, params, X):
        out = np.empty((X.shape[0], params.n_groups))
        for model, groups, block in params.blocks:
            out[:, groups] = model.score(block, X)
        return out

    def score_ratio(self, params_a, params_b, X):
        """``log p(x | a) - log p(x | b)`` of each group by its own model (one call per
        model used, on the groups it scores)."""
        out = np.empty((X.shape[0], params_a.n_groups))
        for (model, groups, a), (_, _, b) in zip(params_a.blocks, params_b.blocks, strict=True):
            out[:, groups] = model.score_ratio(a, b, X)
        return out

    def zero_terms(self, params):
        blocks = [(groups, model.zero_terms(block)) for model, groups, block in params.blocks]
        out = np.empty((params.n_groups, blocks[0][1].shape[1]))
        for groups, terms in blocks:
            out[groups] = terms
        return out

    def silence(self, positive, negative, mask):
        """Each model silences the features of its own groups (``mask`` per group)."""
        silenced = [
            model.silence(a, b, mask[groups])
            for (model, groups, a), (_, _, b) in zip(positive.blocks, negative.blocks, strict=True)
        ]
        return tuple(
            PerLabelParameters(
                [
                    (model, groups, pair[side])
                    for (model, groups, _), pair in zip(positive.blocks, silenced, strict=True)
                ],
                positive.n_groups,
            )
            for side in (0, 1)
        )
