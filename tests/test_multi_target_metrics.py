"""Multi-target criteria of mlnb.metrics: hand-computed cases, scikit-learn equality,
sample weights, input checks and their place in the metric registry."""

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

import mlnb.metrics as M
from mlnb.metrics._registry import TASKS

MT = {
    "accuracy": M.multi_target_accuracy,
    "exact_match": M.multi_target_exact_match,
    "hamming_score": M.multi_target_hamming_score,
    "hamming_loss": M.multi_target_hamming_loss,
    "zero_one_loss": M.multi_target_zero_one_loss,
}
SCALARS = {name: f for name, f in MT.items() if name != "accuracy"}

# Hand-computed: 4 rows, 3 outputs with 3, 2 and 4 classes.
#   row 0: all right; row 1: output 1 wrong; row 2: outputs 0 and 2 wrong; row 3: all right
Y_INT = np.array([[0, 1, 3], [2, 0, 1], [1, 1, 0], [2, 0, 2]])
P_INT = np.array([[0, 1, 3], [2, 1, 1], [0, 1, 2], [2, 0, 2]])
EXPECTED = {
    "accuracy": np.array([3 / 4, 3 / 4, 3 / 4]),
    "exact_match": 2 / 4,
    "hamming_score": 9 / 12,
    "hamming_loss": 3 / 12,
    "zero_one_loss": 2 / 4,
}
# the same cells as strings: a value map per output
NAMES = (["low", "mid", "high"], ["no", "yes"], ["n", "e", "s", "w"])


def _as_strings(Y):
    return np.stack([np.asarray(NAMES[j])[Y[:, j]] for j in range(Y.shape[1])], axis=1)


def _check(name, got, expected):
    if name == "accuracy":
        assert isinstance(got, np.ndarray) and got.dtype == np.float64
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    else:
        assert type(got) is float, name
        assert got == pytest.approx(expected, abs=1e-12), name


@pytest.mark.parametrize("name", list(MT))
def test_hand_computed_ints_and_strings(name):
    _check(name, MT[name](Y_INT, P_INT), EXPECTED[name])
    _check(name, MT[name](_as_strings(Y_INT), _as_strings(P_INT)), EXPECTED[name])
    # lists and object arrays too
    _check(name, MT[name](Y_INT.tolist(), P_INT.tolist()), EXPECTED[name])
    objects = _as_strings(Y_INT).astype(object), _as_strings(P_INT).astype(object)
    _check(name, MT[name](*objects), EXPECTED[name])


def test_a_second_hand_computed_case_with_weights():
    Y = np.array([["a", "x"], ["b", "y"], ["c", "x"]])
    P = np.array([["a", "y"], ["b", "y"], ["a", "x"]])
    w = [2.0, 1.0, 1.0]
    # output 0 right on rows 0, 1; output 1 right on rows 1, 2; only row 1 fully right
    np.testing.assert_allclose(M.multi_target_accuracy(Y, P), [2 / 3, 2 / 3])
    np.testing.assert_allclose(M.multi_target_accuracy(Y, P, sample_weight=w), [3 / 4, 2 / 4])
    assert M.multi_target_hamming_score(Y, P, sample_weight=w) == pytest.approx(5 / 8)
    assert M.multi_target_hamming_loss(Y, P, sample_weight=w) == pytest.approx(3 / 8)
    assert M.multi_target_exact_match(Y, P) == pytest.approx(1 / 3)
    assert M.multi_target_exact_match(Y, P, sample_weight=w) == pytest.approx(1 / 4)
    assert M.multi_target_zero_one_loss(Y, P, sample_weight=w) == pytest.approx(3 / 4)


def test_perfect_and_all_wrong():
    Y = np.array([[1, "a"], [2, "b"]], dtype=object)
    for name, f in SCALARS.items():
        best = 1.0 if name in ("exact_match", "hamming_score") else 0.0
        assert f(Y, Y) == best, name
    wrong = np.array([[3, "c"], [4, "d"]], dtype=object)
    np.testing.assert_array_equal(M.multi_target_accuracy(Y, wrong), [0.0, 0.0])
    assert M.multi_target_exact_match(Y, wrong) == M.multi_target_hamming_score(Y, wrong) == 0.0


def test_one_output_is_single_label_accuracy():
    y = np.array([0, 1, 2, 2, 1])
    p = np.array([0, 2, 2, 1, 1])
    expected = M.single_label_accuracy(y, p)
    for name in ("exact_match", "hamming_score"):
        assert SCALARS[name](y[:, None], p[:, None]) == pytest.approx(expected)


def _random(seed, n_classes=4, dtype=int):
    rng = np.random.default_rng(seed)
    n, n_outputs = int(rng.integers(1, 60)), int(rng.integers(1, 6))
    Y = rng.integers(0, n_classes, size=(n, n_outputs))
    P = np.where(rng.random((n, n_outputs)) < rng.random(), Y, rng.integers(0, n_classes, Y.shape))
    w = rng.random(n) + (seed % 3 == 0) * rng.integers(0, 2, n)  # some with zero weights
    w[0] += 0.1  # a positive sum
    return Y.astype(dtype), P.astype(dtype), w


@pytest.mark.parametrize("seed", range(30))
def test_equal_scikit_learn(seed):
    Y, P, w = _random(seed)
    for weights in (None, w):
        per_target = [
            skm.accuracy_score(Y[:, j], P[:, j], sample_weight=weights) for j in range(Y.shape[1])
        ]
        got = M.multi_target_accuracy(Y, P, sample_weight=weights)
        np.testing.assert_allclose(got, per_target, rtol=0, atol=1e-12)
        score = M.multi_target_hamming_score(Y, P, sample_weight=weights)
        assert score == pytest.approx(np.mean(per_target), abs=1e-12)
        all_right = np.all(Y == P, axis=1)
        exact = M.multi_target_exact_match(Y, P, sample_weight=weights)
        assert exact == pytest.approx(np.average(all_right, weights=weights), abs=1e-12)
        # scikit-learn's accuracy of one column per row ("is the whole row right?")
        assert exact == pytest.approx(
            skm.accuracy_score(np.ones(len(Y)), all_right, sample_weight=weights), abs=1e-12
        )
        assert M.multi_target_hamming_loss(Y, P, sample_weight=weights) == pytest.approx(
            1 - score, abs=1e-12
        )
        assert M.multi_target_zero_one_loss(Y, P, sample_weight=weights) == pytest.approx(
            1 - exact, abs=1e-12
        )


@pytest.mark.parametrize("seed", range(20))
def test_binary_outputs_equal_the_multilabel_criteria_and_scikit_learn(seed):
    """0/1 outputs are a multi-label problem: the criteria must agree with those."""
    Y, P, w = _random(seed, n_classes=2)
    if Y.shape[1] == 1:  # scikit-learn reads one column as a binary target, not label sets
        Y, P = np.hstack([Y, 1 - Y]), np.hstack([P, P])
    for weights in (None, w):
        exact = M.multi_target_exact_match(Y, P, sample_weight=weights)
        assert exact == pytest.approx(skm.accuracy_score(Y, P, sample_weight=weights))
        assert exact == pytest.approx(M.subset_accuracy(Y, P, sample_weight=weights))
        assert M.multi_target_hamming_loss(Y, P, sample_weight=weights) == pytest.approx(
            skm.hamming_loss(Y, P, sample_weight=weights)
        )
    assert M.multi_target_hamming_loss(Y, P) == pytest.approx(M.hamming_loss(Y, P))
    assert M.multi_target_zero_one_loss(Y, P) == pytest.approx(M.zero_one_loss(Y, P))


@pytest.mark.parametrize("seed", range(10))
def test_integer_weights_repeat_rows(seed):
    Y, P, _ = _random(seed)
    counts = np.random.default_rng(seed).integers(0, 4, len(Y))
    counts[0] = 1
    repeated = np.repeat(Y, counts, axis=0), np.repeat(P, counts, axis=0)
    for name, f in MT.items():
        weighted = f(Y, P, sample_weight=counts)
        np.testing.assert_allclose(weighted, f(*repeated), rtol=0, atol=1e-12, err_msg=name)
    # uniform weights change nothing
    for name, f in MT.items():
        np.testing.assert_allclose(
            f(Y, P, sample_weight=np.full(len(Y), 3.0)), f(Y, P), atol=1e-12, err_msg=name
        )


def test_any_dtype_and_mixed_columns():
    Y, P, _ = _random(4)
    expected = {name: f(Y, P) for name, f in MT.items()}
    for cast in (np.int8, np.uint16, np.float64, str, object):
        for name, f in MT.items():
            _check(name, f(Y.astype(cast), P.astype(cast)), expected[name])
    # int against float and bool against int compare by value
    assert M.multi_target_exact_match([[1, 0]], [[1.0, 0.0]]) == 1.0
    assert M.multi_target_exact_match([[True, False]], [[1, 0]]) == 1.0


def test_dataframes():
    pd = pytest.importorskip("pandas")
    Y = pd.DataFrame(
        {"colour": ["red", "blue", "red"], "size": [1, 2, 3], "ok": [True, False, True]}
    )
    P = pd.DataFrame(
        {"colour": ["red", "red", "red"], "size": [1, 2, 2], "ok": [True, False, False]}
    )
    np.testing.assert_allclose(M.multi_target_accuracy(Y, P), [2 / 3, 2 / 3, 2 / 3])
    assert M.multi_target_exact_match(Y, P) == pytest.approx(1 / 3)
    assert M.multi_target_hamming_score(Y, P.to_numpy()) == pytest.approx(2 / 3)
    assert M.multi_target_exact_match(Y, P, sample_weight=pd.Series([1.0, 0.0, 0.0])) == 1.0
    categorical = Y.astype("category"), P.astype({"size": "category"})
    assert M.multi_target_hamming_score(*categorical) == pytest.approx(2 / 3)


@pytest.mark.parametrize("name", list(MT))
def test_errors_name_the_argument(name):
    f = MT[name]
    Y = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match=r"Y_true must be a 2-D .* one column per output"):
        f(np.array([0, 1]), Y[:, 0])
    with pytest.raises(ValueError, match=r"Y_pred must be a 2-D .*shape \(2,\).*\(n_samples, 1\)"):
        f(Y, np.array([0, 1]))
    with pytest.raises(ValueError, match="Y_pred must be a 2-D"):
        f(Y, Y[None])
    with pytest.raises(ValueError, match="Y_true must be a 2-D"):
        f(5, 5)
    with pytest.raises(ValueError, match=r"same shape .* got \(2, 2\) and \(2, 1\)"):
        f(Y, Y[:, :1])
    with pytest.raises(ValueError, match=r"same shape .* got \(2, 2\) and \(1, 2\)"):
        f(Y, Y[:1])
    with pytest.raises(ValueError, match="at least one row and one output"):
        f(np.zeros((0, 2)), np.zeros((0, 2)))
    with pytest.raises(ValueError, match="at least one row and one output"):
        f(np.zeros((2, 0)), np.zeros((2, 0)))
    with pytest.raises(ValueError, match=r"different kinds in output 0 \(number and str"):
        f(Y, Y.astype(str))
    with pytest.raises(ValueError, match=r"different kinds in output 0 \(str and bytes"):
        f(Y.astype(str), Y.astype(bytes))
    # a pandas frame's strings are objects: read by their values' types, output by output
    strings = pd.DataFrame({"a": ["0", "1"], "b": ["x", "y"]})
    with pytest.raises(ValueError, match=r"different kinds in output 0 \(str and number"):
        f(strings, np.array([[0, 0], [1, 1]]))


@pytest.mark.parametrize("name", list(MT))
def test_missing_cells_are_refused(name):
    f = MT[name]
    Y = np.array([[0.0, 1.0], [1.0, 2.0]])
    with_nan = Y.copy()
    with_nan[1, 0] = np.nan
    with pytest.raises(ValueError, match=r"Y_true has 1 missing cell.*row 1, output 0"):
        f(with_nan, Y)
    with pytest.raises(ValueError, match=r"Y_pred has 1 missing cell"):
        f(Y, with_nan)
    with pytest.raises(ValueError, match="Y_true has 1 missing cell"):
        f(np.array([["a", None]], dtype=object), np.array([["a", "b"]], dtype=object))
    with pytest.raises(ValueError, match="Y_true has 1 missing cell"):
        f(np.array([["a", np.nan]], dtype=object), np.array([["a", "b"]], dtype=object))
    with pytest.raises(ValueError, match="Y_true has 1 missing cell"):
        f(np.ma.masked_array(Y, mask=[[0, 1], [0, 0]]), Y)
    assert np.all(np.asarray(f(np.ma.masked_array(Y), Y)) >= 0)  # nothing masked: fine
    pd = pytest.importorskip("pandas")
    nullable = pd.DataFrame({"a": [1, None], "b": ["x", "y"]}).astype({"a": "Int64"})
    with pytest.raises(ValueError, match=r"Y_true has .*missing cell"):
        f(nullable, [[1, "x"], [2, "y"]])
    with pytest.raises(ValueError, match=r"Y_pred has .*missing cell"):
        f(pd.DataFrame({"a": ["x", "y"]}), pd.DataFrame({"a": ["x", None]}))


@pytest.mark.parametrize("name", list(MT))
def test_sample_weight_errors(name):
    f = MT[name]
    Y = np.array([[0, 1], [1, 2], [2, 2]])
    for bad, pattern in (
        ([1.0, 2.0], r"one weight per row \(3\), got shape \(2,\)"),
        ([[1.0, 1.0, 1.0]], r"one weight per row \(3\), got shape \(1, 3\)"),
        (["a", "b", "c"], "numeric"),
        ([1.0, -1.0, 1.0], "non-negative"),
        ([0.0, 0.0, 0.0], "positive sum"),
        ([1.0, np.nan, 1.0], "finite"),
        ([1.0, np.inf, 1.0], "finite"),
    ):
        with pytest.raises(ValueError, match=f"sample_weight must .*{pattern}"):
            f(Y, Y, sample_weight=bad)


def test_the_registry_holds_them_under_the_multi_target_task():
    assert "multi_target" in TASKS
    names = ("mt_exact_match", "mt_hamming_score", "mt_hamming_loss", "mt_zero_one_loss")
    assert M.METRIC_SETS["multi_target"] == names
    chosen = M.get_metric_set("multi_target")
    assert list(chosen) == list(names)  # the set keeps the METRICS names
    assert chosen == M.get_metrics("multi_target", task="multi_target")
    functions = {
        "mt_exact_match": (M.multi_target_exact_match, True, "Exact match"),
        "mt_hamming_score": (M.multi_target_hamming_score, True, "Hamming score"),
        "mt_hamming_loss": (M.multi_target_hamming_loss, False, "Hamming loss"),
        "mt_zero_one_loss": (M.multi_target_zero_one_loss, False, "ZeroOne loss"),
    }
    for name, metric in chosen.items():
        function, greater, label = functions[name]
        assert metric.name == name and metric.task == "multi_target"
        assert metric.function is function
        assert metric.greater_is_better is greater and metric.label == label
        assert metric(Y_INT, P_INT) == function(Y_INT, P_INT)
    # the only ones of that task; per-target accuracy (an array) is a function only
    assert [n for n, m in M.METRICS.items() if m.task == "multi_target"] == list(names)
    assert all(m.function is not M.multi_target_accuracy for m in M.METRICS.values())
    # the multi-label names they resemble keep their meaning
    for name, function in (
        ("exact_match", M.multi_target_exact_match),
        ("hamming", M.multi_target_hamming_loss),
        ("zero_one", M.multi_target_zero_one_loss),
    ):
        assert M.METRICS[name].task == "multilabel" and M.METRICS[name].function is not function
    with pytest.raises(ValueError, match="do not score multilabel"):
        M.get_metrics("multi_target", task="multilabel")
    with pytest.raises(ValueError, match="do not score multi_target"):
        M.get_metrics(["mt_exact_match", "hamming"], task="multi_target")
    with pytest.raises(ValueError, match="scoring must be a callable"):
        M.set_scorer("mt_hamming_loss")  # the tuner scores multi-label 0/1 matrices only


def test_a_multi_target_metric_can_be_registered():
    def row_error(Y_true, Y_pred):
        return 1.0 - M.multi_target_hamming_score(Y_true, Y_pred)

    try:
        M.register_metric("mt_row_error", row_error, greater_is_better=False, task="multi_target")
        got = M.get_metrics(["multi_target", "mt_row_error"], task="multi_target")
        assert list(got)[-1] == "mt_row_error"
        assert got["mt_row_error"](Y_INT, P_INT) == pytest.approx(EXPECTED["hamming_loss"])
    finally:
        M.METRICS.pop("mt_row_error", None)


def test_exported():
    for name in (
        "multi_target_accuracy",
        "multi_target_exact_match",
        "multi_target_hamming_loss",
        "multi_target_hamming_score",
        "multi_target_zero_one_loss",
    ):
        assert name in M.__all__ and callable(getattr(M, name))


def test_vectorised_on_many_rows():
    rng = np.random.default_rng(0)
    Y = rng.integers(0, 5, size=(200_000, 6))
    P = np.where(rng.random(Y.shape) < 0.8, Y, (Y + 1) % 5)
    right = Y == P
    assert M.multi_target_hamming_score(Y, P) == pytest.approx(right.mean())
    assert M.multi_target_exact_match(Y, P) == pytest.approx(right.all(axis=1).mean())
    got = M.multi_target_accuracy(Y.astype(str), P.astype(str))
    np.testing.assert_allclose(got, right.mean(axis=0))
