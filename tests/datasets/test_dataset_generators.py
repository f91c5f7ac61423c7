"""Generators: determinism, cardinality, the dependence knob, the twin constraint."""

from __future__ import annotations

import numpy as np
import pytest

from mlnb.datasets import describe, make_multilabel, make_subset_selection


def _mean_abs_label_correlation(Y: np.ndarray) -> float:
    c = np.corrcoef(Y.T.astype(float))
    return float(np.abs(c[np.triu_indices_from(c, 1)]).mean())


@pytest.mark.parametrize("features", ["gaussian", "counts"])
def test_make_multilabel_is_deterministic(features):
    a = make_multilabel(50, 6, 4, features=features, random_state=3)
    b = make_multilabel(50, 6, 4, features=features, random_state=3)
    c = make_multilabel(50, 6, 4, features=features, random_state=4)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])
    rng = np.random.default_rng(9)
    assert make_multilabel(5, 2, 2, cardinality=1, random_state=rng)[0].shape == (5, 2)


@pytest.mark.parametrize("dependence", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("cardinality", [0.8, 2.5])
def test_cardinality_near_target_at_every_dependence(cardinality, dependence):
    X, Y = make_multilabel(
        6000, 3, 8, cardinality=cardinality, label_dependence=dependence, random_state=1
    )
    assert Y.dtype == np.uint8 and X.shape == (6000, 3) and X.dtype == np.float64
    assert describe(Y).cardinality == pytest.approx(cardinality, rel=0.06)


def test_dependence_knob_increases_label_correlation():
    corr = [
        _mean_abs_label_correlation(
            make_multilabel(5000, 2, 6, cardinality=2.0, label_dependence=r, random_state=0)[1]
        )
        for r in (0.0, 0.5, 1.0)
    ]
    assert corr[0] < 0.03  # independent labels: sampling noise only
    assert corr[0] < corr[1] < corr[2]
    assert corr[2] > 0.15


def test_labels_are_imbalanced_and_features_informative():
    X, Y = make_multilabel(4000, 5, 6, cardinality=2.0, separation=2.0, random_state=2)
    freq = Y.mean(axis=0)
    assert freq.max() / freq.min() > 1.5
    gap = np.abs(X[Y[:, 0] == 1].mean(axis=0) - X[Y[:, 0] == 0].mean(axis=0))
    assert gap.max() > 0.5


def test_count_features_are_non_negative_integers():
    X, _ = make_multilabel(300, 40, 5, features="counts", doc_length=50, random_state=0)
    assert X.min() >= 0 and np.array_equal(X, np.round(X))
    assert X.sum(axis=1).mean() == pytest.approx(50, rel=0.1)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"cardinality": 0}, "cardinality"),
        ({"cardinality": 3.9}, "cardinality"),
        ({"label_dependence": 1.5}, "label_dependence"),
        ({"features": "binary"}, "features"),
        ({"separation": -1}, "separation"),
        ({"n_samples": 0}, "n_samples"),
        ({"n_labels": 2.5}, "n_labels"),
    ],
)
def test_make_multilabel_bad_arguments(kwargs, match):
    args = {"n_samples": 10, "n_features": 2, "n_labels": 4, **kwargs}
    with pytest.raises(ValueError, match=match):
        make_multilabel(**args)


# ------------------------------------------------------------------ subset selection


def test_subset_selection_fixed_size_and_twins_never_together():
    X, Y, twins = make_subset_selection(
        3000, n_items=12, subset_size=5, n_twins=3, return_twins=True, random_state=0
    )
    assert X.shape == (3000, 10) and Y.shape == (3000, 12) and Y.dtype == np.uint8
    np.testing.assert_array_equal(Y.sum(axis=1), 5)
    np.testing.assert_array_equal(twins, [[0, 1], [2, 3], [4, 5]])
    for a, b in twins:
        assert not np.any(Y[:, a] & Y[:, b])
        assert Y[:, a].sum() > 0 and Y[:, b].sum() > 0  # both twins are chosen sometimes
    # twins share a profile: each is chosen about half as often as an ordinary item
    freq = Y.mean(axis=0)
    assert freq[:6].mean() < 0.75 * freq[6:].mean()


def test_subset_selection_depends_on_features():
    X, Y = make_subset_selection(
        4000, n_items=10, subset_size=3, n_twins=1, noise=0.1, random_state=1
    )
    # each non-twin item's choice is predictable from x: its members have shifted means
    shift = [np.abs(X[Y[:, k] == 1].mean(0) - X[Y[:, k] == 0].mean(0)).max() for k in range(10)]
    assert min(shift) > 0.3


def test_subset_selection_variable_size_follows_first_feature():
    X, Y = make_subset_selection(3000, n_items=10, subset_size=(2, 5), n_twins=2, random_state=2)
    size = Y.sum(axis=1)
    assert set(np.unique(size)) == {2, 3, 4, 5}
    assert np.corrcoef(X[:, 0], size)[0, 1] > 0.9
    assert not np.any(Y[:, 0] & Y[:, 1]) and not np.any(Y[:, 2] & Y[:, 3])


def test_subset_selection_is_deterministic():
    a = make_subset_selection(100, random_state=5)
    b = make_subset_selection(100, random_state=5)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[1], make_subset_selection(100, random_state=6)[1])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_items": 6, "n_twins": 4}, "n_twins"),
        ({"n_items": 6, "n_twins": 3, "subset_size": 4}, "subset_size"),
        ({"subset_size": (4, 2)}, "subset_size"),
        ({"subset_size": 0}, "subset_size"),
        ({"noise": -0.1}, "noise"),
    ],
)
def test_subset_selection_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_subset_selection(10, **kwargs)
