"""Mixed event model: column blocks with different event models (iMLNB's mixed NB).

A row's log-likelihood is the sum of its blocks' log-likelihoods (features are independent
given the group). Used, for example, for Gaussian features beside Bernoulli label features
(seed 002, iMLNB) and for chains retrained with label features.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._base import EventModel

__all__ = ["Mixed"]


class Mixed(EventModel):
    """Sum of event models over disjoint column blocks.

    Internally the columns are reordered block after block (``prepare`` does it, at fit and
    at prediction time alike), so statistics computed on prepared data have the features in
    block order.

    Parameters
    ----------
    blocks : list of (event model or name, columns)
        Each block's event model (an object of :mod:`mlnb.events` or a name such as
        ``"gaussian"``) and its columns (indices, a boolean mask or a slice). Every column
        must belong to exactly one block.
    """

    _statistics_params = ("blocks",)

    def __init__(self, blocks=None):
        self.blocks = blocks

    @property
    def second_moments(self):
        return any(model.second_moments for model, _ in self._resolved_blocks())

    def _resolved_blocks(self):
        from . import make_event_model

        if not self.blocks:
            raise ValueError("Mixed needs at least one (event model, columns) block")
        return [(make_event_model(model), columns) for model, columns in self.blocks]

    def _layout(self, n_features):
        """Per block: (model, original column indices, slice in the reordered layout)."""
        layout, seen, start = [], np.zeros(n_features, dtype=int), 0
        for model, columns in self._resolved_blocks():
            try:
                indices = np.arange(n_features)[columns]
            except IndexError as error:
                raise ValueError(f"block columns {columns!r} out of range: {error}") from None
            indices = np.atleast_1d(indices)
            seen[indices] += 1
            layout.append((model, indices, slice(start, start + len(indices))))
            start += len(indices)
        if np.any(seen != 1):
            missing = np.flatnonzero(seen == 0).tolist()
            repeated = np.flatnonzero(seen > 1).tolist()
            raise ValueError(
                "every column must belong to exactly one block; "
                f"in no block: {missing[:10]}, in several: {repeated[:10]}"
            )
        return layout

    def prepare(self, X, *, caller="this model"):
        layout = self._layout(X.shape[1])
        parts = [model.prepare(X[:, indices], caller=caller) for model, indices, _ in layout]
        if sp.issparse(X):
            return sp.hstack(parts, format="csr")
        return np.hstack(parts)

    def estimate(self, stats):
        layout = self._layout(stats.n_features)
        return [
            (model, part, model.estimate(stats.select_features(part))) for model, _, part in layout
        ]

    def _log_likelihood(self, params, X):
        return sum(model._log_likelihood(block, X[:, part]) for model, part, block in params)
