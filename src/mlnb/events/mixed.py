"""Mixed event model: column blocks with different event models (iMLNB's mixed NB).

A row's log-likelihood is the sum of its blocks' log-likelihoods (features are independent
given the group). Used, for example, for Gaussian features beside Bernoulli label features
(iMLNB, Chitra et al.) and for chains retrained with label features.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._base import EventModel, Parameters

__all__ = ["Mixed", "MixedParameters"]


@dataclass
class MixedParameters(Parameters):
    """Per block: (event model, its columns in the prepared layout, its parameters)."""

    blocks: list


class Mixed(EventModel):
    """Sum of event models over disjoint column blocks.

    Internally the columns are reordered block after block (``prepare`` does it, at fit and
    at prediction time alike), so statistics computed on prepared data have the features in
    block order. A block's model may change its number of columns (a categorical model
    one-hot encodes: its ``keeps_width`` is False); at most one block may then be given by
    columns whose number depends on the input width (an open slice such as
    ``slice(None)`` or ``slice(3, None)``), so that the input width follows from the
    statistics'.

    Parameters
    ----------
    blocks : list of (event model or name, columns)
        Each block's event model (an object of :mod:`mlnb.events` or a name such as
        ``"gaussian"``) and its columns (indices, a boolean mask or a slice). Every column
        must belong to exactly one block.
    """

    input_kind = "mixed"
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
        """Per block: (model, original column indices, slice in the prepared layout)."""
        layout, seen, start = [], np.zeros(n_features, dtype=int), 0
        for model, columns in self._resolved_blocks():
            try:
                indices = np.arange(n_features)[columns]
            except IndexError as error:
                raise ValueError(f"block columns {columns!r} out of range: {error}") from None
            indices = np.atleast_1d(indices)
            seen[indices] += 1
            width = model.prepared_width(len(indices))
            layout.append((model, indices, slice(start, start + width)))
            start += width
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
        sparse = [sp.issparse(part) for part in parts]
        if sp.issparse(X) or all(sparse):
            return sp.hstack(parts, format="csr")
        # dense rows stay dense beside dense blocks (e.g. a categorical one-hot beside
        # Gaussian columns, whose dense arithmetic is the faster)
        return np.hstack(
            [
                part.toarray() if is_sparse else part
                for part, is_sparse in zip(parts, sparse, strict=True)
            ]
        )

    @property
    def keeps_width(self):
        return all(model.keeps_width for model, _ in self._resolved_blocks())

    def prepared_width(self, n_features):
        return sum(part.stop - part.start for _, _, part in self._layout(n_features))

    def input_width(self, n_prepared):
        """The number of input columns whose prepared blocks have ``n_prepared`` in all."""
        if self.keeps_width:
            return n_prepared
        blocks = self._resolved_blocks()
        for _, columns in blocks:
            if not isinstance(columns, slice) and np.asarray(columns).dtype == bool:
                return len(columns)  # a mask is as long as the input
        n_input, rest, open_blocks = 0, n_prepared, []
        for model, columns in blocks:
            length = _fixed_length(columns)
            if length is None:
                open_blocks.append(model)
                continue
            n_input += length
            rest -= model.prepared_width(length)
        if len(open_blocks) > 1:
            raise ValueError(
                "a block changes its number of columns: give the columns of every block but "
                "one as indices (or slices with non-negative bounds)"
            )
        if open_blocks:
            n_input += int(open_blocks[0].input_width(rest))
        return n_input

    def estimate(self, stats):
        layout = self._layout(self.input_width(stats.n_features))
        blocks = [
            (model, part, model.estimate(stats.select_features(part))) for model, _, part in layout
        ]
        return MixedParameters(blocks)

    def prepared_columns(self, n_features):
        """The input column of every prepared column, block after block."""
        columns = [
            indices[model.prepared_columns(len(indices))]
            for model, indices, _ in self._layout(n_features)
        ]
        return np.concatenate(columns) if columns else np.zeros(0, dtype=np.intp)

    def zero_terms(self, params):
        return np.hstack([model.zero_terms(block) for model, _, block in params.blocks])

    def score(self, params, X):
        return sum(model.score(block, X[:, part]) for model, part, block in params.blocks)

    def silence(self, positive, negative, mask):
        """Each block silenced by its own model (``mask`` in the prepared column order)."""
        pairs = [
            model.silence(a, b, mask[:, part])
            for (model, part, a), (_, _, b) in zip(positive.blocks, negative.blocks, strict=True)
        ]
        return tuple(
            MixedParameters(
                [
                    (model, part, pair[side])
                    for (model, part, _), pair in zip(positive.blocks, pairs, strict=True)
                ]
            )
            for side in (0, 1)
        )


def _fixed_length(columns):
    """The number of columns a block names whatever the input width, or None."""
    if isinstance(columns, slice):
        start, stop, step = columns.start, columns.stop, columns.step or 1
        if start is None and step > 0:
            start = 0
        if None in (start, stop) or start < 0 or stop < 0:
            return None  # its length depends on the input width
        return len(range(start, stop, step))
    return int(np.atleast_1d(np.asarray(columns)).size)
