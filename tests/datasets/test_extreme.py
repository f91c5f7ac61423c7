"""make_extreme_multilabel: sparse types, determinism, the power law, no empty rows, the
label-feature signal, memory proportional to the non-zeros, clear errors."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from mlnb import BinaryRelevance
from mlnb.datasets import make_extreme_multilabel
from mlnb.metrics import precision_at_k


def _label_counts(Y):
    return np.asarray(Y.sum(axis=0)).ravel()


def test_types_shapes_and_counts():
    X, Y = make_extreme_multilabel(400, 3000, 500, random_state=0)
    assert isinstance(X, sp.csr_matrix) and isinstance(Y, sp.csr_matrix)
    assert X.shape == (400, 3000) and X.dtype == np.float64
    assert Y.shape == (400, 500) and Y.dtype == np.uint8
    assert X.has_canonical_format and Y.has_canonical_format
    assert np.all(X.data >= 1) and np.all(X.data == np.round(X.data))  # word counts
    assert np.all(Y.data == 1)


def test_deterministic_with_random_state():
    a = make_extreme_multilabel(200, 1000, 300, random_state=3)
    b = make_extreme_multilabel(200, 1000, 300, random_state=3)
    c = make_extreme_multilabel(200, 1000, 300, random_state=4)
    for u, v in zip(a, b, strict=True):
        assert (u != v).nnz == 0
    assert (a[1] != c[1]).nnz > 0
    X, Y = make_extreme_multilabel(20, 50, 30, random_state=np.random.default_rng(9))
    assert X.shape == (20, 50) and Y.shape == (20, 30)
    X, Y = make_extreme_multilabel(20, 50, 30, random_state=np.random.RandomState(9))
    assert X.shape == (20, 50)


@pytest.mark.parametrize("avg_labels", [1.0, 2.5, 8.0])
def test_no_empty_rows_and_the_means_near_their_targets(avg_labels):
    X, Y = make_extreme_multilabel(
        3000, 2000, 400, avg_labels=avg_labels, avg_features=30, random_state=1
    )
    labels_per_row = np.diff(Y.indptr)
    assert labels_per_row.min() >= 1 and np.diff(X.indptr).min() >= 1
    assert labels_per_row.mean() == pytest.approx(avg_labels, rel=0.05)
    assert X.sum(axis=1).mean() == pytest.approx(30, rel=0.05)  # words per row
    if avg_labels == 1.0:
        assert np.all(labels_per_row == 1)


def test_rows_asking_for_every_label_get_them():
    _, Y = make_extreme_multilabel(50, 20, 4, avg_labels=4, power=1.0, random_state=2)
    assert np.diff(Y.indptr).max() == 4 and np.diff(Y.indptr).mean() > 2.5


def test_label_frequencies_follow_a_power_law():
    _, Y = make_extreme_multilabel(20_000, 5000, 2000, avg_labels=4, random_state=5)
    counts = np.sort(_label_counts(Y))[::-1]
    assert counts[0] > 100 * max(np.median(counts), 1)  # a few head labels, a long tail
    assert counts[:20].sum() > 0.35 * counts.sum()  # the top 1 % of labels: over a third
    # Zipf: log count against log rank has slope about -power among the frequent labels
    ranks = np.arange(1, 201)
    slope = np.polyfit(np.log(ranks[5:]), np.log(counts[5:200]), 1)[0]
    assert slope == pytest.approx(-1.0, abs=0.2)
    _, Y_steep = make_extreme_multilabel(
        20_000, 5000, 2000, avg_labels=4, power=1.5, random_state=5
    )
    steep = np.sort(_label_counts(Y_steep))[::-1]
    assert np.polyfit(np.log(ranks[5:]), np.log(steep[5:200]), 1)[0] < slope - 0.2
    _, Y_flat = make_extreme_multilabel(20_000, 5000, 200, avg_labels=4, power=0, random_state=5)
    flat = _label_counts(Y_flat)
    assert flat.max() < 1.5 * np.median(flat)  # power 0: all labels alike


def _precision_at_1(signal):
    X, Y = make_extreme_multilabel(1500, 1000, 100, avg_labels=3, signal=signal, random_state=0)
    model = BinaryRelevance(events="multinomial", rule="predict").fit(X[:1000], Y[:1000])
    learned = precision_at_k(Y[1000:], model.decision_function(X[1000:]), k=1)
    # the best constant ranking: the most frequent training labels first
    frequent = np.tile(_label_counts(Y[:1000]).astype(float), (500, 1))
    return learned, precision_at_k(Y[1000:], frequent, k=1)


def test_naive_bayes_learns_the_labels_from_the_features():
    learned, base = _precision_at_1(signal=0.3)
    assert learned > 0.9 and learned > base + 0.4
    learned, base = _precision_at_1(signal=0.0)  # no signal: no better than the base rate
    assert learned < base + 0.05


def test_memory_is_proportional_to_the_non_zeros():
    n, d, L = 20_000, 50_000, 50_000  # dense n x L alone would take 1 GB as uint8
    tracemalloc.start()
    try:
        X, Y = make_extreme_multilabel(n, d, L, avg_features=20, random_state=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    nnz = X.nnz + Y.nnz
    assert nnz < 600_000
    assert peak < 200 * nnz + 20 * (d + L), (peak, nnz)  # some bytes per non-zero


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_samples": 0}, "n_samples: expected an int >= 1"),
        ({"n_features": 2.5}, "n_features: expected an int >= 1"),
        ({"n_labels": True}, "n_labels: expected an int >= 1"),
        ({"avg_labels": 0.5}, r"avg_labels: expected a number in \[1, 50\]"),
        ({"avg_labels": 51}, r"avg_labels: expected a number in \[1, 50\]"),
        ({"avg_labels": float("nan")}, "avg_labels: expected a number"),
        ({"avg_features": 0}, "avg_features: expected a number >= 1"),
        ({"avg_features": "many"}, "avg_features: expected a number >= 1"),
        ({"power": -1}, "power: expected a number >= 0"),
        ({"signal": 1.5}, r"signal: expected a number in \[0, 1\]"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    arguments = {"n_samples": 10, "n_features": 20, "n_labels": 50, **kwargs}
    with pytest.raises(ValueError, match=message):
        make_extreme_multilabel(**arguments)
