"""Synthetic multi-label data: a general generator and NaiBX's power-plant problem."""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr, ndtri

__all__ = ["make_multilabel", "make_subset_selection"]


def _rng(random_state) -> np.random.Generator:
    if isinstance(random_state, np.random.RandomState):
        random_state = random_state.randint(2**31)
    return np.random.default_rng(random_state)


def _positive_int(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name}: expected an int >= {minimum}, got {value!r}")
    return int(value)


def _marginals(n_labels: int, cardinality: float, rng: np.random.Generator) -> np.ndarray:
    """Label frequencies p_l summing to ``cardinality``, imbalanced (Zipf-like, exponent 1/2)."""
    w = 1.0 / np.sqrt(np.arange(1, n_labels + 1))
    rng.shuffle(w)
    p = cardinality * w / w.sum()
    for _ in range(n_labels):  # cap at 0.95 and spread the excess over the other labels
        over = p > 0.95
        if not over.any():
            break
        excess = (p[over] - 0.95).sum()
        p[over] = 0.95
        free = ~over & (p < 0.95)
        p[free] += excess * p[free] / p[free].sum()
    return p


def _hidden(hidden_labels, p: np.ndarray) -> np.ndarray:
    """Indices of the labels without feature signal: the k rarest, or the given ones."""
    L = len(p)
    if isinstance(hidden_labels, (int, np.integer)) and not isinstance(hidden_labels, bool):
        if not 0 <= hidden_labels < L:
            raise ValueError(
                f"hidden_labels: expected an int in [0, n_labels - 1 = {L - 1}] or label "
                f"indices, got {hidden_labels!r}"
            )
        return np.sort(np.argsort(p, kind="stable")[: int(hidden_labels)])
    try:
        index = np.asarray(hidden_labels)
    except (TypeError, ValueError):
        index = None
    if (
        index is None
        or index.ndim != 1
        or (index.size and index.dtype.kind not in "iu")
        or np.any(index < 0)
        or np.any(index >= L)
        or len(np.unique(index)) != index.size
        or index.size >= L
    ):
        raise ValueError(
            f"hidden_labels: expected an int or distinct label indices in [0, {L - 1}] "
            f"leaving at least one label visible, got {hidden_labels!r}"
        )
    return np.sort(index.astype(np.intp))


def make_multilabel(
    n_samples: int = 500,
    n_features: int = 20,
    n_labels: int = 5,
    *,
    cardinality: float = 2.0,
    label_dependence: float = 0.0,
    features: str = "gaussian",
    separation: float = 1.0,
    doc_length: int = 100,
    hidden_labels=0,
    drift_at=None,
    random_state=None,
):
    """Random multi-label data with a chosen label cardinality and label dependence.

    Labels come from a Gaussian copula: label l is on when
    ``Z_l = sqrt(r) s_l F_g(l) + sqrt(1 - r) E_l`` exceeds the quantile that gives it the
    frequency p_l, where ``r = label_dependence``, labels are split into about sqrt(L)
    groups g sharing a latent factor F, and ``s_l = +-1`` makes some pairs attract and
    others repel. Z_l is standard normal whatever r, so the expected cardinality is
    ``sum p_l = cardinality`` at every dependence level; r = 0 gives independent labels,
    r = 1 labels that are functions of their group's factor. Frequencies are imbalanced
    (p_l proportional to l^(-1/2), at most 0.95).

    Features depend on the labels: ``"gaussian"``: ``x = y @ M + N(0, I)`` with label
    means ``M ~ N(0, separation^2)``; ``"counts"``: a bag of words, ``Poisson(doc_length)``
    words drawn from the mixture of a background distribution and the word distributions of
    the row's labels (weight ``separation`` each).

    ``hidden_labels`` takes the feature signal away from some labels: their rows of M are
    zero (``"gaussian"``) or their word distributions get weight 0 (``"counts"``). Given
    the other labels, X then does not depend on a hidden label, which can be inferred only
    through the labels it depends on (with label_dependence > 0). The labels are those
    drawn without the option, and so are the other labels' rows of M or word
    distributions, and the Gaussian noise.

    Parameters
    ----------
    n_samples, n_features, n_labels : int
    cardinality : float
        Expected number of labels per row, 0 < cardinality < 0.95 * n_labels.
    label_dependence : float in [0, 1]
    features : {"gaussian", "counts"}
    separation : float
        How strongly the features depend on the labels.
    doc_length : int
        Mean number of words per row for ``features="counts"``.
    hidden_labels : int or sequence of int, default=0
        Labels without feature signal: an int k hides the k rarest labels (smallest
        frequency p_l; k < n_labels), a sequence gives their indices (at least one label
        stays visible). 0 or an empty sequence hides none: the output is then the same, bit
        for bit, as without the option.
    drift_at : int or None, default=None
        A stream that changes at this row (concept drift): from it on, the sign ``s_l`` of
        every odd-numbered label flips, so a pair of an odd and an even label that attracted
        repels and the other way round (pairs of the same parity stay), and the features'
        dependence on the labels (M, or the word distributions) is drawn anew; the label
        frequencies stay. None: no drift (the output is the same, bit for bit, as
        without the option).
    random_state : int, numpy Generator or None
        The same value gives the same data.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    Y : ndarray of shape (n_samples, n_labels), uint8

    Examples
    --------
    >>> X, Y = make_multilabel(200, 5, 4, cardinality=1.5, random_state=0)
    >>> X.shape, Y.shape, Y.dtype.name
    ((200, 5), (200, 4), 'uint8')
    """
    n = _positive_int(n_samples, "n_samples")
    d = _positive_int(n_features, "n_features")
    L = _positive_int(n_labels, "n_labels")
    if not 0 < cardinality < 0.95 * L:
        raise ValueError(
            f"cardinality: expected 0 < cardinality < 0.95 * n_labels = {0.95 * L:g}, "
            f"got {cardinality!r}"
        )
    if not 0 <= label_dependence <= 1:
        raise ValueError(f"label_dependence: expected a number in [0, 1], got {label_dependence!r}")
    if features not in ("gaussian", "counts"):
        raise ValueError(f"features: expected 'gaussian' or 'counts', got {features!r}")
    if separation < 0:
        raise ValueError(f"separation: expected a number >= 0, got {separation!r}")
    if drift_at is not None:
        drift_at = _positive_int(drift_at, "drift_at", minimum=0)
        if drift_at > n:
            raise ValueError(f"drift_at: expected a row in [0, n_samples = {n}], got {drift_at}")
    rng = _rng(random_state)
    p = _marginals(L, float(cardinality), rng)
    hidden = _hidden(hidden_labels, p)
    n_groups = max(1, round(np.sqrt(L)))
    group = rng.permutation(np.arange(L) % n_groups)
    sign = rng.choice([-1.0, 1.0], size=L)
    sign[0] = 1.0
    F = rng.standard_normal((n, n_groups))
    E = rng.standard_normal((n, L))
    r = float(label_dependence)
    signs = np.broadcast_to(sign, (n, L)).copy()
    after = slice(n if drift_at is None else drift_at, n)  # the rows after the drift
    flipped = np.where(np.arange(L) % 2 == 1, -sign, sign)  # every other label's sign
    signs[after] = flipped
    Z = np.sqrt(r) * signs * F[:, group] + np.sqrt(1.0 - r) * E
    Y = (Z > ndtri(1.0 - p)).astype(np.uint8)
    if features == "gaussian":
        M = rng.normal(0.0, separation, size=(L, d))
        M[hidden] = 0.0
        X = Y @ M + rng.standard_normal((n, d))
        if drift_at is not None:
            M_after = rng.normal(0.0, separation, size=(L, d))
            M_after[hidden] = 0.0
            X[after] += Y[after] @ (M_after - M)
    else:
        length = _positive_int(doc_length, "doc_length")
        background = rng.dirichlet(np.ones(d))
        words = rng.dirichlet(np.full(d, 0.1), size=L)
        words[hidden] = 0.0
        theta = background + separation * (Y @ words)
        if drift_at is not None:
            words_after = rng.dirichlet(np.full(d, 0.1), size=L)
            words_after[hidden] = 0.0
            theta[after] = background + separation * (Y[after] @ words_after)
        theta /= theta.sum(axis=1, keepdims=True)
        X = rng.multinomial(rng.poisson(length, size=n), theta).astype(np.float64)
    return X, Y


def make_subset_selection(
    n_samples: int = 500,
    *,
    n_items: int = 20,
    subset_size: int | tuple[int, int] = 5,
    n_twins: int = 2,
    n_features: int = 10,
    noise: float = 0.5,
    return_twins: bool = False,
    random_state=None,
):
    """The power-plant problem of the NaiBX paper: choose m of K items given features.

    Each item k (a power plant) has a profile ``c_k`` (d numbers); a row's features x
    (e.g. the demand forecast) are standard normal, and item k's merit is
    ``c_k . x + noise * e_k``. The chosen subset is the ``m`` items of highest merit,
    except that items ``2j`` and ``2j + 1`` (j < n_twins) are twins with the same profile:
    an optimal plan holds at most one of them (the better one that row), and the next item
    takes the freed place. So every row has exactly ``m`` items and twins never occur
    together, a dependence that binary relevance cannot capture (Seed: NaiBX, section 3.3).

    Parameters
    ----------
    n_samples : int
    n_items : int
        K, the number of items (labels).
    subset_size : int or (int, int)
        m. A pair (low, high) makes m vary with the data: m = low + the quantile bin of
        the first feature among high - low + 1 equal-probability bins.
    n_twins : int
        Number of twin pairs (items 0-1, 2-3, ...); needs m <= K - n_twins.
    n_features : int
    noise : float
        Standard deviation of the per-item merit noise (0: a deterministic rule).
    return_twins : bool
        Also return the twin pairs as an (n_twins, 2) int array.
    random_state : int, numpy Generator or None

    Returns
    -------
    X : ndarray (n_samples, n_features), float64
    Y : ndarray (n_samples, n_items), uint8, each row with exactly m ones
    twins : ndarray (n_twins, 2), only if ``return_twins``

    Examples
    --------
    >>> X, Y = make_subset_selection(100, n_items=8, subset_size=3, n_twins=1, random_state=0)
    >>> set(Y.sum(axis=1).tolist()), int((Y[:, 0] & Y[:, 1]).sum())
    ({3}, 0)
    """
    n = _positive_int(n_samples, "n_samples")
    K = _positive_int(n_items, "n_items", 2)
    d = _positive_int(n_features, "n_features")
    t = _positive_int(n_twins, "n_twins", 0)
    if 2 * t > K:
        raise ValueError(f"n_twins: expected at most n_items // 2 = {K // 2}, got {n_twins!r}")
    if isinstance(subset_size, (tuple, list)) and len(subset_size) == 2:
        low = _positive_int(subset_size[0], "subset_size[0]")
        high = _positive_int(subset_size[1], "subset_size[1]", low)
    else:
        low = high = _positive_int(subset_size, "subset_size")
    if high > K - t:
        raise ValueError(
            f"subset_size: at most n_items - n_twins = {K - t} items can be chosen "
            f"without twins, got {subset_size!r}"
        )
    if noise < 0:
        raise ValueError(f"noise: expected a number >= 0, got {noise!r}")
    rng = _rng(random_state)
    C = rng.standard_normal((K, d))
    twins = np.arange(2 * t).reshape(t, 2)
    C[twins[:, 1]] = C[twins[:, 0]]
    X = rng.standard_normal((n, d))
    merit = X @ C.T + noise * rng.standard_normal((n, K))
    a, b = twins[:, 0], twins[:, 1]
    loser = np.where(merit[:, a] >= merit[:, b], b, a)  # (n, t): the worse twin of each pair
    merit[np.arange(n)[:, None], loser] = -np.inf
    if low == high:
        m = np.full(n, low)
    else:
        m = low + np.minimum((ndtr(X[:, 0]) * (high - low + 1)).astype(int), high - low)
    rank = np.argsort(np.argsort(-merit, axis=1, kind="stable"), axis=1, kind="stable")
    Y = (rank < m[:, None]).astype(np.uint8)
    return (X, Y, twins) if return_twins else (X, Y)
