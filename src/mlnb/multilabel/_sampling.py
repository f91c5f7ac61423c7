"""The rows each member of an ensemble sees: the one sampling code of the ensembles.

:class:`~mlnb.multilabel.EnsembleClassifierChains` and
:class:`~mlnb.multilabel.BaggedBinaryRelevance` both draw here, in the same order (the K
label orders, then the K samples), so that with the same seed member k of one has the rows
of member k of the other: paired comparisons of chains against binary relevance.
"""

from __future__ import annotations

import numpy as np

__all__ = ["chain_draws", "sample_memberships"]


def sample_memberships(rng, n_samples, n_members, fraction, bootstrap, *, online=False):
    """Multiplicity of every row in every member's sample, shape (n_samples, n_members).

    Offline: each member draws ``round(fraction * n_samples)`` rows (at least one), without
    replacement, or with replacement (``bootstrap``). Online (a stream's batch): each row
    joins a member with probability ``fraction``, or ``Poisson(fraction)`` times with
    ``bootstrap`` (Oza 2005).
    """
    K, fraction = int(n_members), float(fraction)
    if online:
        if bootstrap:
            return rng.poisson(fraction, size=(n_samples, K)).astype(float)
        return (rng.random((n_samples, K)) < fraction).astype(float)
    size = max(round(fraction * n_samples), 1)
    weights = np.zeros((n_samples, K))
    for k in range(K):  # K draws: a loop over members, not samples
        if bootstrap:
            np.add.at(weights[:, k], rng.randint(0, n_samples, size), 1.0)
        else:
            weights[rng.choice(n_samples, size, replace=False), k] = 1.0
    return weights


def chain_draws(rng, n_samples, n_labels, n_members, fraction, bootstrap):
    """What an ensemble of chains draws at fit: K label orders, then the K samples
    (:func:`sample_memberships`); returns ``(orders, memberships)``."""
    orders = [rng.permutation(n_labels) for _ in range(int(n_members))]
    return orders, sample_memberships(rng, n_samples, n_members, fraction, bootstrap)
