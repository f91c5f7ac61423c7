"""Synthetic extreme multi-label data: many labels with power-law frequencies, sparse counts."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from ._generators import _positive_int, _rng

__all__ = ["make_extreme_multilabel"]

# Indicative features of each label (fewer when there are fewer features).
_INDICATIVE = 10
# Rounds of redrawing the labels a row drew twice (see _draw_labels).
_ROUNDS = 20


def _real(value, name: str, low: float, high: float = np.inf) -> float:
    """``value`` as a float in [low, high], else a ValueError naming ``name``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not low <= float(value) <= high
    ):
        bounds = f">= {low:g}" if high == np.inf else f"in [{low:g}, {high:g}]"
        raise ValueError(f"{name}: expected a number {bounds}, got {value!r}")
    return float(value)


def _zipf(size: int, power: float, rng: np.random.Generator) -> np.ndarray:
    """Cumulative Zipf weights ``rank^(-power)``, the ranks in a random order."""
    weights = np.arange(1, size + 1, dtype=np.float64) ** -power
    return np.cumsum(rng.permutation(weights))


def _sample(cumulative: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` draws of indices with probabilities given by their cumulative weights."""
    u = rng.random(size) * cumulative[-1]
    return np.minimum(np.searchsorted(cumulative, u, side="right"), cumulative.size - 1)


def _draw_labels(m: np.ndarray, cumulative: np.ndarray, rng: np.random.Generator):
    """``m[i]`` distinct labels for each row i, drawn by frequency: sorted (rows, labels).

    A label drawn twice in a row is drawn again, for up to ``_ROUNDS`` rounds (a row is
    left short only when it asks for nearly every label and the tail labels are rare).
    """
    n, n_labels = m.size, cumulative.size
    rows = np.repeat(np.arange(n, dtype=np.int64), m)
    labels = _sample(cumulative, rows.size, rng)
    for round_ in range(_ROUNDS):
        keys = np.sort(rows * n_labels + labels)
        keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]  # np.unique, faster
        rows, labels = keys // n_labels, keys % n_labels
        missing = m - np.bincount(rows, minlength=n)
        if round_ == _ROUNDS - 1 or not missing.any():
            break
        extra = np.repeat(np.arange(n, dtype=np.int64), missing)
        rows = np.concatenate([rows, extra])
        labels = np.concatenate([labels, _sample(cumulative, extra.size, rng)])
    return rows, labels


def make_extreme_multilabel(
    n_samples: int = 1000,
    n_features: int = 5000,
    n_labels: int = 1000,
    *,
    avg_labels: float = 5.0,
    avg_features: float = 50.0,
    power: float = 1.0,
    signal: float = 0.3,
    random_state=None,
):
    """Sparse extreme multi-label data: power-law label frequencies and word counts.

    A bag-of-words model of an extreme classification set (the Extreme Classification
    Repository's tagging and categorisation data), built in time and memory proportional
    to the non-zeros (nothing n x L or L x d):

    - **labels**: label ``l`` has the weight ``r_l^(-power)`` of its rank ``r_l`` (ranks
      in a random order of the labels; Zipf's law for ``power=1``): a few head labels
      and a long tail of rare ones.  Row ``i`` has ``m_i = 1 + Poisson(avg_labels - 1)``
      labels (at most ``n_labels``), drawn by weight without repetition, so **no row is
      empty** and the mean is ``avg_labels`` (a little less only when rows ask for nearly
      every label); labels of the far tail may have no row at all, as in real data;
    - **features**: each label has its own ``min(10, n_features)`` indicative features
      (drawn at random, so labels may share some).  Row ``i`` has
      ``1 + Poisson(avg_features - 1)`` words: each, with probability ``signal``, an
      indicative feature of one of the row's labels (label and feature uniform), else a
      background word of Zipf frequencies (exponent 1) over all features.  ``X`` holds
      the counts, so no row is empty and a multinomial Naive Bayes can learn the labels
      (``signal=0`` gives features independent of the labels).

    Parameters
    ----------
    n_samples, n_features, n_labels : int, default=1000, 5000, 1000
    avg_labels : float, default=5.0
        Mean number of labels per row, in [1, n_labels].
    avg_features : float, default=50.0
        Mean number of words per row, >= 1 (the non-zeros of a row are its distinct
        words, so a few fewer).
    power : float, default=1.0
        Exponent of the label frequencies' power law, >= 0 (0: all labels equally
        frequent).
    signal : float, default=0.3
        Fraction of a row's words that come from its labels, in [0, 1].
    random_state : int, numpy Generator or None
        The same value gives the same data.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features), float64
        Word counts, sorted indices.
    Y : scipy.sparse.csr_matrix of shape (n_samples, n_labels), uint8
        Label indicator matrix, sorted indices, at least one label per row.

    Examples
    --------
    >>> X, Y = make_extreme_multilabel(500, 2000, 300, avg_labels=3, random_state=0)
    >>> X.shape, X.dtype.name, Y.shape, Y.dtype.name
    ((500, 2000), 'float64', (500, 300), 'uint8')
    >>> bool(Y.sum(axis=1).min() >= 1)  # no row without a label
    True
    """
    n = _positive_int(n_samples, "n_samples")
    d = _positive_int(n_features, "n_features")
    L = _positive_int(n_labels, "n_labels")
    avg_labels = _real(avg_labels, "avg_labels", 1.0, L)
    avg_features = _real(avg_features, "avg_features", 1.0)
    power = _real(power, "power", 0.0)
    signal = _real(signal, "signal", 0.0, 1.0)
    rng = _rng(random_state)

    label_weights = _zipf(L, power, rng)
    m = np.minimum(1 + rng.poisson(avg_labels - 1.0, size=n), L)
    rows, labels = _draw_labels(m, label_weights, rng)
    indptr = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=n))))
    Y = sp.csr_matrix(
        (np.ones(labels.size, dtype=np.uint8), labels.astype(np.int32), indptr), shape=(n, L)
    )

    indicative = rng.integers(0, d, size=(L, min(_INDICATIVE, d)))
    background = _zipf(d, 1.0, rng)
    words = 1 + rng.poisson(avg_features - 1.0, size=n)
    from_labels = rng.binomial(words, signal)
    # Words from the row's labels: a label of the row, then one of its features.
    word_rows = np.repeat(np.arange(n, dtype=np.int64), from_labels)
    n_row_labels = np.diff(indptr)[word_rows]
    pick = indptr[word_rows] + (rng.random(word_rows.size) * n_row_labels).astype(np.int64)
    label_of_word = labels[np.minimum(pick, indptr[word_rows + 1] - 1)]
    feature = indicative[label_of_word, rng.integers(0, indicative.shape[1], word_rows.size)]
    # Background words.
    other_rows = np.repeat(np.arange(n, dtype=np.int64), words - from_labels)
    other = _sample(background, other_rows.size, rng)
    X = sp.csr_matrix(
        (
            np.ones(word_rows.size + other_rows.size),
            (np.concatenate([word_rows, other_rows]), np.concatenate([feature, other])),
        ),
        shape=(n, d),
        dtype=np.float64,
    )
    X.sum_duplicates()
    return X, Y
