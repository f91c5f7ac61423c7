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
        ({"hidden_labels": 4}, "hidden_labels"),
        ({"hidden_labels": -1}, "hidden_labels"),
        ({"hidden_labels": True}, "hidden_labels"),
        ({"hidden_labels": None}, "hidden_labels"),
        ({"hidden_labels": [0, 0]}, "hidden_labels"),
        ({"hidden_labels": [4]}, "hidden_labels"),
        ({"hidden_labels": [-1]}, "hidden_labels"),
        ({"hidden_labels": [0.5]}, "hidden_labels"),
        ({"hidden_labels": [[0]]}, "hidden_labels"),
        ({"hidden_labels": [0, 1, 2, 3]}, "hidden_labels"),
    ],
)
def test_make_multilabel_bad_arguments(kwargs, match):
    args = {"n_samples": 10, "n_features": 2, "n_labels": 4, **kwargs}
    with pytest.raises(ValueError, match=match):
        make_multilabel(**args)


# ------------------------------------------------------------------ hidden labels

# Values of make_multilabel(200, 6, 5, label_dependence=0.7, features=f, random_state=seed)
# before hidden_labels existed: column sums of Y, X.sum() and X[0, :3].
BEFORE_HIDDEN_LABELS = {
    ("gaussian", 0): (
        [83, 43, 59, 132, 78],
        24.00903201725174,
        [1.2673712132137398, 0.8520715282890425, 0.15432041576149166],
    ),
    ("gaussian", 1): (
        [52, 140, 81, 60, 67],
        -63.859519932740014,
        [2.6195027202085663, 0.583836286802332, -1.9404187045465258],
    ),
    ("counts", 0): ([83, 43, 59, 132, 78], 20034.0, [0.0, 23.0, 5.0]),
    ("counts", 1): ([52, 140, 81, 60, 67], 20064.0, [47.0, 4.0, 11.0]),
}


@pytest.mark.parametrize("features", ["gaussian", "counts"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_hidden_labels_default_is_the_output_without_the_option(features, seed):
    kwargs = {"label_dependence": 0.7, "features": features, "random_state": seed}
    X, Y = make_multilabel(200, 6, 5, **kwargs)
    for none in (0, [], (), np.array([], dtype=int)):
        X_none, Y_none = make_multilabel(200, 6, 5, hidden_labels=none, **kwargs)
        assert X_none.dtype == X.dtype and Y_none.dtype == Y.dtype
        np.testing.assert_array_equal(X_none, X, strict=True)
        np.testing.assert_array_equal(Y_none, Y, strict=True)
    if (features, seed) in BEFORE_HIDDEN_LABELS:  # the same as before the option existed
        counts, total, first = BEFORE_HIDDEN_LABELS[features, seed]
        assert Y.sum(axis=0).tolist() == counts
        np.testing.assert_allclose(X.sum(), total, rtol=1e-12)
        np.testing.assert_allclose(X[0, :3], first, rtol=1e-12)


@pytest.mark.parametrize("hidden", [2, [1, 3]])
def test_hidden_labels_have_zero_rows_of_m(hidden):
    # Same seed with and without the option: the same labels, M and noise, so
    # X_shown - X_hidden = Y @ B exactly, where B holds M's rows of the hidden labels and
    # zeros elsewhere. Least squares on that noise-free difference recovers B.
    kwargs = {"label_dependence": 0.9, "separation": 1.0, "random_state": 5}
    X_shown, Y = make_multilabel(3000, 8, 5, **kwargs)
    X_hidden, Y_hidden = make_multilabel(3000, 8, 5, hidden_labels=hidden, **kwargs)
    np.testing.assert_array_equal(Y_hidden, Y)
    B = np.linalg.lstsq(Y.astype(float), X_shown - X_hidden, rcond=None)[0]
    np.testing.assert_allclose(Y @ B, X_shown - X_hidden, atol=1e-12)
    if isinstance(hidden, int):  # the k rarest labels (frequencies far apart here)
        expected = np.sort(np.argsort(Y.mean(axis=0))[:hidden])
    else:
        expected = np.array(hidden)
    visible = np.setdiff1d(np.arange(5), expected)
    assert np.abs(B[visible]).max() < 1e-12
    assert np.all(np.abs(B[expected]).max(axis=1) > 0.1)  # the rows of M left out
    untouched = Y[:, expected].sum(axis=1) == 0
    np.testing.assert_array_equal(X_hidden[untouched], X_shown[untouched])


def _stratified_z(X, Y, label, strata):
    """z statistic, per column of X, of E[x | y_label = 1] - E[x | y_label = 0] given strata.

    Rows are grouped by their values of the labels ``strata``; within each group the two
    means are compared with a Welch standard error, and the differences are pooled with
    inverse-variance weights: z = sum(d_s / v_s) / sqrt(sum(1 / v_s)). If X given the strata
    does not depend on y_label, every z is approximately standard normal.
    """
    keys = np.unique(Y[:, strata], axis=0, return_inverse=True)[1].ravel()
    num = np.zeros(X.shape[1])
    den = np.zeros(X.shape[1])
    for s in np.unique(keys):
        rows = keys == s
        on, off = X[rows & (Y[:, label] == 1)], X[rows & (Y[:, label] == 0)]
        if len(on) < 30 or len(off) < 30:
            continue
        v = on.var(axis=0, ddof=1) / len(on) + off.var(axis=0, ddof=1) / len(off)
        num += (on.mean(axis=0) - off.mean(axis=0)) / v
        den += 1.0 / v
    return num / np.sqrt(den)


@pytest.mark.parametrize("features", ["gaussian", "counts"])
def test_hidden_labels_leave_no_trace_in_x_given_the_other_labels(features):
    # Given the visible labels, X does not depend on a hidden label (though it does
    # marginally, through the labels the hidden one depends on). Each z is ~N(0, 1) under
    # that claim; 6 labels x 12 columns < 100 tests, and P(|z| > 4.5) = 7e-6, so a
    # max |z| above 4.5 refutes it. The visible labels, tested the same way, show it has
    # the power to: their max |z| is far above.
    hidden, visible = [0, 2, 5], [1, 3, 4]
    kwargs = {"label_dependence": 0.8, "features": features, "separation": 0.5}
    kwargs.update(doc_length=50, random_state=11)
    for option in (hidden, 0):
        X, Y = make_multilabel(20000, 12, 6, hidden_labels=option, **kwargs)
        if features == "counts":
            X = X / np.maximum(X.sum(axis=1, keepdims=True), 1)  # word proportions
        for label in hidden:
            z = np.abs(_stratified_z(X, Y, label, visible)).max()
            assert z < 4.5 if option else z > 10  # without the option the test refutes
            # marginally X does depend on a hidden label: the labels are dependent
            assert np.abs(_stratified_z(X, Y, label, [])).max() > 10
        for label in visible:
            others = [v for v in visible if v != label]
            assert np.abs(_stratified_z(X, Y, label, others)).max() > 10


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


@pytest.mark.parametrize("features", ["gaussian", "counts"])
def test_drift_flips_the_label_dependence_and_redraws_the_features(features):
    options = {"label_dependence": 0.9, "features": features, "random_state": 4}
    X0, Y0 = make_multilabel(4000, 6, 9, cardinality=3.0, **options)
    X, Y = make_multilabel(4000, 6, 9, cardinality=3.0, drift_at=2000, **options)
    np.testing.assert_array_equal(Y[:2000], Y0[:2000])  # the labels before the drift
    if features == "gaussian":
        np.testing.assert_array_equal(X[:2000], X0[:2000])
    before, after = np.corrcoef(Y[:2000].T), np.corrcoef(Y[2000:].T)
    strong = np.abs(before) > 0.2
    np.fill_diagonal(strong, False)
    parity = np.arange(9) % 2
    mixed = parity[:, None] != parity[None, :]  # an odd and an even label: the sign flips
    assert (strong & mixed).any() and (strong & ~mixed).any()
    flips = np.sign(after) == -np.sign(before)
    assert flips[strong & mixed].all() and not flips[strong & ~mixed].any()
    np.testing.assert_allclose(Y[:2000].mean(axis=0), Y[2000:].mean(axis=0), atol=0.05)
    # the features given the labels change: label means differ across the drift
    shift = [X[2000:][Y[2000:, k] == 1].mean(axis=0) - X[:2000][Y[:2000, k] == 1].mean(axis=0)
             for k in range(9)]  # fmt: skip
    assert np.abs(shift).max() > 0.5
    with pytest.raises(ValueError, match="drift_at"):
        make_multilabel(100, drift_at=101)
