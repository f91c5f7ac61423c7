"""Inference in a Naive Bayes classifier chain of any label order.

Every chain here scores label k, given the labels decided before it, by the log-odds::

    s_k = base_k + sum_{j decided} (weight[k, j] * y_j + absent[k, j])

(``base`` from the features and the label prior, ``weight`` and ``absent`` from the label
pair statistics; see :mod:`._label_model`). The chain's joint probability of a label vector
is ``prod_k sigmoid(+-s_k)`` along the order (PCC, Dembczynski et al. 2010).

- :func:`beam_search` keeps the ``width`` most probable partial vectors; width 1 is the
  classic greedy chain. Labels are processed in blocks: inside a block the scores of the
  block's labels are updated step by step; the labels after the block are brought up to
  date with one matrix product, so there is no Python loop over samples and the loop over
  labels does O(n * width * block) work per step.
- :func:`exact_search` scores all ``2**L`` vectors (L <= 20) and returns the most probable.
- :func:`chain_marginals` gives each label's marginal log-odds ``log P(y_k = 1 | x) -
  log P(y_k = 0 | x)`` under the chain's joint: by enumeration for L <= 10, else by
  ancestral sampling (each draw is a greedy chain whose thresholds are logistic noise),
  Rao-Blackwellised: the estimate averages ``P(y_k = 1 | x, sampled earlier labels)``,
  not the sampled 0/1 values, so it is finite and ranks finely.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from .. import _compiled

__all__ = [
    "MAX_EXACT_LABELS",
    "MAX_EXACT_MARGINAL_LABELS",
    "beam_search",
    "chain_layout",
    "chain_marginals",
    "chain_search",
    "conditional_log_odds",
    "dynamic_greedy_search",
    "dynamic_greedy_searches",
    "exact_search",
    "greedy_search",
    "joint_log_proba",
    "stacked_block",
    "stacked_layout",
    "stacked_search",
]

MAX_EXACT_LABELS = 20
MAX_EXACT_MARGINAL_LABELS = 10


def _log_sigmoid(x):
    """``log(1 / (1 + exp(-x)))`` without overflow."""
    return np.minimum(x, 0.0) - np.log1p(np.exp(-np.abs(x)))


def joint_log_proba(labels, conditional_log_odds):
    """Log of the chain's probability of ``labels``: ``sum_k log sigmoid(+-s_k)``."""
    return _log_sigmoid((2.0 * labels - 1.0) * conditional_log_odds).sum(axis=1)


def _take(array, index):
    """``array[i, index[i, j], ...]`` for every sample i and kept hypothesis j."""
    return np.take_along_axis(array, index.reshape(index.shape + (1,) * (array.ndim - 2)), axis=1)


def beam_search(base, weight, absent, order, *, width=1, block=32):
    """Most probable label vectors of the chain by beam search.

    Parameters
    ----------
    base : ndarray of shape (n_samples, n_labels)
        Log-odds of each label from the features and its prior.
    weight, absent : ndarray of shape (n_labels, n_labels)
        Pairwise chain terms, indexed [label scored, label decided].
    order : ndarray of shape (n_labels,)
        The chain order.
    width : int, default=1
        Beam width; 1 is the greedy chain.
    block : int, default=32
        Labels per block (speed only: every block size gives the same result).

    Returns
    -------
    labels : ndarray of shape (n_samples, n_labels), int
    conditional_log_odds : ndarray of shape (n_samples, n_labels)
        ``s_k`` of each label along the returned vector.
    """
    if int(width) < 1:
        raise ValueError(f"beam width must be >= 1; got {width}")
    if int(width) == 1:
        return greedy_search(base, weight, absent, order, block=block)
    n_samples, n_labels = base.shape
    labels = np.zeros((n_samples, 1, n_labels), dtype=np.int8)
    conditional = np.zeros((n_samples, 1, n_labels))
    log_proba = np.zeros((n_samples, 1))
    decided = np.zeros(0, dtype=np.intp)
    for start in range(0, n_labels, block):
        members = np.asarray(order[start : start + block])
        scores = np.repeat(base[:, None, members], labels.shape[1], axis=1)
        if len(decided):
            previous = labels[:, :, decided].astype(np.float64)
            scores += previous @ weight[np.ix_(members, decided)].T
            scores += absent[np.ix_(members, decided)].sum(axis=1)
        n_hyp = labels.shape[1]
        origin = np.broadcast_to(np.arange(n_hyp), (n_samples, n_hyp))
        local = np.zeros((n_samples, n_hyp, len(members)), dtype=np.int8)
        local_conditional = np.zeros((n_samples, n_hyp, len(members)))
        for i, label in enumerate(members):
            step = scores[:, :, i]
            candidates = np.concatenate(
                [log_proba + _log_sigmoid(-step), log_proba + _log_sigmoid(step)], axis=1
            )
            kept = min(int(width), 2 * n_hyp)
            # stable: on ties the value 0 and the earlier hypothesis win
            index = np.argsort(-candidates, axis=1, kind="stable")[:, :kept]
            parent, value = index % n_hyp, index // n_hyp
            log_proba = np.take_along_axis(candidates, index, axis=1)
            if n_hyp > 1 or kept > 1:  # reorder the hypotheses (the greedy chain never does)
                origin = np.take_along_axis(origin, parent, axis=1)
                local = _take(local, parent)
                local_conditional = _take(local_conditional, parent)
                scores = _take(scores, parent)
                step = np.take_along_axis(step, parent, axis=1)
            local[:, :, i] = value
            local_conditional[:, :, i] = step
            later = members[i + 1 :]
            if len(later):
                scores[:, :, i + 1 :] += value[:, :, None] * weight[later, label]
                scores[:, :, i + 1 :] += absent[later, label]
            n_hyp = kept
        if labels.shape[1] > 1 or n_hyp > 1:
            labels = _take(labels, origin)
            conditional = _take(conditional, origin)
        labels[:, :, members] = local
        conditional[:, :, members] = local_conditional
        decided = np.concatenate([decided, members])
    best = np.argmax(log_proba, axis=1)
    rows = np.arange(n_samples)
    return labels[rows, best].astype(int), conditional[rows, best]


def chain_layout(weight, absent, order):
    """The pairwise terms of one order, laid out for :func:`greedy_search`.

    Returns ``(order, weight_in_order, absent_offset)``: the weights with rows and columns
    in chain order, and for each position the sum of the "absent" terms of every earlier
    label (each decided label adds its absent term whatever its value). Models that predict
    often in one order keep this instead of recomputing it per call.
    """
    order = np.asarray(order)
    weight_in_order = weight[np.ix_(order, order)]
    absent_offset = np.tril(absent[np.ix_(order, order)], -1).sum(axis=1)
    return order, weight_in_order, absent_offset


def greedy_search(
    base, weight, absent, order, *, block=64, layout=None, conditional=True, noise=None
):
    """The classic greedy chain: each label decided by the sign of its log-odds.

    Same contract as :func:`beam_search` with width 1 (``layout`` from
    :func:`chain_layout` may replace ``weight``, ``absent`` and ``order``; with
    ``conditional=False`` the log-odds are not returned, None instead). ``noise`` (n_samples
    x n_labels, by chain position) replaces the threshold 0: standard logistic noise makes
    each row one draw from the chain's joint distribution. Works in the chain
    order's own column layout (Fortran order, so each label's column and "the labels
    decided so far" are contiguous): a block's scores get the earlier blocks' decisions in
    one matrix product, and each label the decisions inside its block in one
    matrix-vector product.
    """
    if layout is None:
        layout = chain_layout(weight, absent, order)
    order, weight_in_order, absent_offset = layout
    n_samples, n_labels = base.shape
    folded = base[:, order] + absent_offset
    decided = np.zeros((n_samples, n_labels), order="F")
    log_odds = np.zeros((n_samples, n_labels), order="F") if conditional else None
    for start in range(0, n_labels, block):
        stop = min(start + block, n_labels)
        scores = folded[:, start:stop]
        if start:
            scores = scores + decided[:, :start] @ weight_in_order[start:stop, :start].T
        for position in range(start, stop):
            step = scores[:, position - start]
            if position > start:
                step = step + decided[:, start:position] @ weight_in_order[position, start:position]
            decided[:, position] = step > (0.0 if noise is None else noise[:, position])
            if conditional:
                log_odds[:, position] = step
    labels = np.empty((n_samples, n_labels), dtype=int)
    labels[:, order] = decided
    if not conditional:
        return labels, None
    conditional_by_label = np.empty((n_samples, n_labels))
    conditional_by_label[:, order] = log_odds
    return labels, conditional_by_label


def stacked_layout(base, weight, absent, orders):
    """Several greedy chains at once (an ensemble): the inputs of :func:`stacked_search`.

    ``base`` (n_samples x n_chains * n_labels) holds every chain's log-odds from the features and
    the prior, chain after chain; ``weight`` and ``absent`` (n_chains x n_labels x n_labels) each
    chain's pairwise terms, as in :func:`beam_search`; ``orders`` (n_chains x n_labels) each chain's
    order. Returns ``(folded, weight_in_order, orders)``: the base log-odds plus the earlier labels'
    "absent" terms in (chain, position, sample) layout, and the weights with rows and columns in
    each chain's order. A caller that drops its ``base`` before the search holds one such array
    less.
    """
    orders = np.asarray(orders)
    n_chains, n_labels = orders.shape
    n_samples = base.shape[0]
    chains = np.arange(n_chains)[:, None, None]
    rows, columns = orders[:, :, None], orders[:, None, :]
    weight_in_order = weight[chains, rows, columns]
    absent_offset = np.tril(absent[chains, rows, columns], -1).sum(axis=2)
    folded = np.empty((n_chains, n_labels, n_samples))
    # A chain at a time (small temporaries); for many labels also in tiles of rows, which
    # keeps the transposition in cache (delicious, 3185 x 983: 8 ms instead of 24 ms).
    tile = n_samples if n_labels < 256 else 256
    for k in range(n_chains):
        columns = k * n_labels + orders[k]
        for start in range(0, n_samples, tile):
            rows = slice(start, start + tile)
            np.add(base[rows, columns].T, absent_offset[k, :, None], out=folded[k][:, rows])
    return folded, weight_in_order, orders


def stacked_block(n_labels):
    """Labels per block of :func:`stacked_search`: 16, up to 128 for many labels.

    Measured on the benchmark sets (one BLAS thread): 16 to 32 are best for tens to a
    couple of hundred labels, larger blocks for delicious' 983 (its block products
    dominate and grow more efficient).
    """
    return max(16, min(128, n_labels // 8))


def stacked_search(folded, weight_in_order, orders, *, block=None, conditional=True):
    """Several greedy chains on :func:`stacked_layout`'s arrays: (labels, log-odds).

    The same arithmetic as :func:`greedy_search` chain by chain, but each step of the loop
    over labels advances every chain (batched matrix products), so the Python-level work
    does not grow with the number of chains. ``folded`` is overwritten with the
    conditional log-odds (in chain order). Returns the labels (n_chains x n_samples x
    n_labels, int8 0/1) and the conditional log-odds of the same shape, or None without
    ``conditional``; ``block`` is the labels per block (speed only; None:
    :func:`stacked_block`).
    """
    n_chains, n_labels, n_samples = folded.shape
    block = stacked_block(n_labels) if block is None else int(block)
    chains = np.arange(n_chains)[:, None, None]
    decided = np.zeros((n_chains, n_labels, n_samples))
    for start in range(0, n_labels, block):
        stop = min(start + block, n_labels)
        scores = folded[:, start:stop]
        if start:  # (not in place: measured slower)
            scores = scores + weight_in_order[:, start:stop, :start] @ decided[:, :start]
        for position in range(start, stop):
            step = scores[:, position - start]
            if position > start:
                within = weight_in_order[:, position, None, start:position]
                step = step + (within @ decided[:, start:position])[:, 0]
            np.greater(step, 0.0, out=decided[:, position])
            if conditional and position > 0:
                folded[:, position] = step
    log_odds = folded
    labels = np.empty(decided.shape, dtype=np.int8)
    labels[chains[:, :, 0], orders] = decided
    if not conditional:
        return labels.transpose(0, 2, 1), None
    by_label = np.empty_like(log_odds)
    by_label[chains[:, :, 0], orders] = log_odds
    return labels.transpose(0, 2, 1), by_label.transpose(0, 2, 1)


def chain_search(
    base, weight, absent, order, inference, *, beam_width=5, layout=None, conditional=True
):
    """The chain's labels by ``inference``: "greedy", "beam" (``beam_width``) or "exact".

    ``layout`` and ``conditional`` are passed to :func:`greedy_search`; the other searches
    always return the conditional log-odds.
    """
    if inference == "exact":
        return exact_search(base, weight, absent, order)
    if inference == "greedy":
        return greedy_search(base, weight, absent, order, layout=layout, conditional=conditional)
    return beam_search(base, weight, absent, order, width=beam_width)


def chain_marginals(base, weight, absent, order, *, n_draws=200, random_state=0, budget=1 << 22):
    """Each label's marginal log-odds under the chain's joint distribution.

    Parameters
    ----------
    base, weight, absent, order
        As :func:`beam_search`.
    n_draws : int, default=200
        Draws per row when the labels are too many to enumerate (L > 10).
    random_state : int or numpy Generator, default=0
        Seeds the draws.

    Returns
    -------
    ndarray of shape (n_samples, n_labels)
        ``log P(y_k = 1 | x) - log P(y_k = 0 | x)``: exact for L <= 10; else the
        Rao-Blackwellised estimate from ``n_draws`` ancestral samples (the first label of
        the order is always exact).
    """
    if base.shape[1] <= MAX_EXACT_MARGINAL_LABELS:
        return _enumerated_marginals(base, weight, absent, order, budget=budget)
    return _sampled_marginals(base, weight, absent, order, int(n_draws), random_state, budget)


def _enumerated_marginals(base, weight, absent, order, *, budget):
    n_samples, n_labels = base.shape
    vectors, chain_terms = _all_vectors(weight, absent, order)
    sign = 2.0 * vectors - 1.0
    ones = vectors.T.astype(bool)  # [label, vector]
    marginal = np.empty((n_samples, n_labels))
    rows_per_chunk = max(budget // (len(vectors) * n_labels), 1)
    for s0 in range(0, n_samples, rows_per_chunk):
        rows = slice(s0, s0 + rows_per_chunk)
        log_joint = _log_sigmoid(sign[None] * (base[rows, None, :] + chain_terms[None])).sum(2)
        # a loop over at most 10 labels: measured 2.5x faster (2000 rows, L = 10) than
        # one log-sum-exp of the masked (rows, vectors, labels) array
        for k in range(n_labels):
            marginal[rows, k] = logsumexp(log_joint[:, ones[k]], axis=1) - logsumexp(
                log_joint[:, ~ones[k]], axis=1
            )
    return marginal


def _sampled_marginals(base, weight, absent, order, n_draws, random_state, budget):
    if n_draws < 1:
        raise ValueError(f"n_draws must be >= 1; got {n_draws}")
    rng = np.random.default_rng(random_state)
    n_samples, n_labels = base.shape
    layout = chain_layout(weight, absent, order)
    marginal = np.empty((n_samples, n_labels))
    rows_per_chunk = max(budget // (n_draws * n_labels), 1)
    for s0 in range(0, n_samples, rows_per_chunk):
        chunk = base[s0 : s0 + rows_per_chunk]
        repeated = np.repeat(chunk, n_draws, axis=0)  # a row's draws are consecutive
        noise = rng.logistic(size=repeated.shape)
        _, log_odds = greedy_search(repeated, None, None, None, layout=layout, noise=noise)
        log_odds = log_odds.reshape(len(chunk), n_draws, n_labels)
        marginal[s0 : s0 + len(chunk)] = logsumexp(_log_sigmoid(log_odds), axis=1) - logsumexp(
            _log_sigmoid(-log_odds), axis=1
        )
    return marginal


def _all_vectors(weight, absent, order):
    """All ``2**L`` label vectors and the chain terms each adds to the base log-odds."""
    n_labels = len(order)
    position = np.empty(n_labels, dtype=np.intp)
    position[np.asarray(order)] = np.arange(n_labels)
    before = position[None, :] < position[:, None]  # [k, j]: j is decided before k
    vectors = (np.arange(2**n_labels)[:, None] >> np.arange(n_labels)[None, :]) & 1
    chain_terms = vectors @ (weight * before).T + (absent * before).sum(axis=1)
    return vectors, chain_terms


def dynamic_greedy_search(base, weight, absent, orders, *, block=1024):
    """The greedy chain with a label order per row (Trajdos and Kurzynski).

    Parameters
    ----------
    base, weight, absent
        As :func:`beam_search`.
    orders : ndarray of shape (n_samples, n_labels)
        Each row's chain order.

    Returns
    -------
    labels, conditional_log_odds : as :func:`beam_search`.

    Notes
    -----
    Vectorised over rows: at step t every row decides its own t-th label, and every row's
    scores of all labels are updated with the decided label's column of ``weight`` and
    ``absent`` (gathered per row). That costs O(n L^2) elementwise work in all, against the
    fixed order's matrix products: fine for the dozens or hundreds of labels of the
    benchmark sets, slow for thousands. With :mod:`mlnb._compiled` on, a numba kernel
    does the same additions in the same order (equal results bit for bit) without the
    gathered (n x L) temporaries of every step.
    """
    orders = np.asarray(orders)
    n_samples, n_labels = base.shape
    weight_by_decided, absent_by_decided = weight.T.copy(), absent.T.copy()  # [j, k]
    if _compiled.enabled():
        labels = np.zeros((n_samples, n_labels), dtype=np.int64)
        conditional = np.zeros((n_samples, n_labels))
        _dynamic_greedy_kernel(
            np.ascontiguousarray(base, dtype=np.float64),
            np.ascontiguousarray(weight_by_decided, dtype=np.float64),
            np.ascontiguousarray(absent_by_decided, dtype=np.float64),
            np.ascontiguousarray(orders, dtype=np.intp),
            labels,
            conditional,
        )
        return labels.astype(int, copy=False), conditional
    labels = np.zeros((n_samples, n_labels), dtype=int)
    conditional = np.zeros((n_samples, n_labels))
    for start in range(0, n_samples, block):
        rows = np.arange(start, min(start + block, n_samples))
        scores = base[rows].copy()
        local = np.arange(len(rows))
        for step in range(n_labels):
            label = orders[rows, step]
            value = scores[local, label] > 0
            labels[rows, label] = value
            conditional[rows, label] = scores[local, label]
            scores += absent_by_decided[label]
            scores[value] += weight_by_decided[label[value]]
    return labels, conditional


@_compiled.kernel
def _dynamic_greedy_kernel(base, weight_by_decided, absent_by_decided, orders, labels, out):
    """:func:`dynamic_greedy_search`'s loop, one row at a time, into ``labels``, ``out``."""
    n_samples, n_labels = base.shape
    scores = np.empty(n_labels)
    for i in range(n_samples):
        scores[:] = base[i]
        for step in range(n_labels):
            label = orders[i, step]
            score = scores[label]
            labels[i, label] = 1 if score > 0 else 0
            out[i, label] = score
            for k in range(n_labels):
                scores[k] += absent_by_decided[label, k]
            if score > 0:
                for k in range(n_labels):
                    scores[k] += weight_by_decided[label, k]


def dynamic_greedy_searches(base, weight, absent, order_sets):
    """:func:`dynamic_greedy_search` in each of several sets of per-row orders.

    ``order_sets`` (n_sets, n_samples, n_labels), e.g. the local-F1 orders of every width
    of a search over beta. A row's search depends only on its ``base`` scores and its
    order, so a row whose order equals its order in the previous set copies that set's
    result (the same labels and log-odds bit for bit); only the rows whose order changed
    are searched again. Returns labels and conditional log-odds, (n_sets, n_samples,
    n_labels) each.
    """
    order_sets = np.asarray(order_sets)
    n_sets = order_sets.shape[0]
    labels = np.empty(order_sets.shape, dtype=int)
    conditional = np.empty(order_sets.shape)
    for s in range(n_sets):
        if s == 0:
            rows = np.arange(order_sets.shape[1])
        else:
            rows = np.flatnonzero((order_sets[s] != order_sets[s - 1]).any(axis=1))
            labels[s], conditional[s] = labels[s - 1], conditional[s - 1]
        if len(rows):
            found = dynamic_greedy_search(base[rows], weight, absent, order_sets[s][rows])
            labels[s, rows], conditional[s, rows] = found
    return labels, conditional


def exact_search(base, weight, absent, order, *, budget=1 << 22):
    """The most probable label vector of the chain, over all ``2**L`` vectors (L <= 20)."""
    n_samples, n_labels = base.shape
    if n_labels > MAX_EXACT_LABELS:
        raise ValueError(
            f"exact inference enumerates 2**L label vectors and is limited to L <= "
            f"{MAX_EXACT_LABELS}; this model has L = {n_labels}: use inference='beam'"
        )
    vectors, chain_terms = _all_vectors(weight, absent, order)
    sign = 2.0 * vectors - 1.0
    best_log_proba = np.full(n_samples, -np.inf)
    best_vector = np.zeros(n_samples, dtype=np.intp)
    vectors_per_chunk = max(budget // n_labels, 1)
    samples_per_chunk = max(budget // (min(vectors_per_chunk, len(vectors)) * n_labels), 1)
    for v0 in range(0, len(vectors), vectors_per_chunk):
        terms, signs = chain_terms[v0 : v0 + vectors_per_chunk], sign[v0 : v0 + vectors_per_chunk]
        for s0 in range(0, n_samples, samples_per_chunk):
            scores = base[s0 : s0 + samples_per_chunk, None, :] + terms[None]
            log_proba = _log_sigmoid(signs[None] * scores).sum(axis=2)
            local_best = np.argmax(log_proba, axis=1)
            value = log_proba[np.arange(len(local_best)), local_best]
            better = value > best_log_proba[s0 : s0 + samples_per_chunk]
            best_log_proba[s0 : s0 + samples_per_chunk][better] = value[better]
            best_vector[s0 : s0 + samples_per_chunk][better] = v0 + local_best[better]
    labels = vectors[best_vector]
    return labels.astype(int), conditional_log_odds(base, weight, absent, order, labels)


def conditional_log_odds(base, weight, absent, order, labels):
    """``s_k`` of every label along the given label vectors."""
    position = np.empty(len(order), dtype=np.intp)
    position[np.asarray(order)] = np.arange(len(order))
    before = position[None, :] < position[:, None]
    return base + labels @ (weight * before).T + (absent * before).sum(axis=1)
