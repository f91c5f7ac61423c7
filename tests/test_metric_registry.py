"""The one metric registry: registration, named sets, and the tuner's scorers."""

import ast
import functools
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import mlnb.metrics as M
from mlnb.selection import scoring_function

TUNER_NAMES = [
    f"{kind}_{average}"
    for kind in ("f1", "jaccard", "precision", "recall")
    for average in ("micro", "macro", "samples", "weighted")
] + ["accuracy"]


def _matrices(seed):
    rng = np.random.default_rng(seed)
    n, n_labels = rng.integers(1, 40), rng.integers(1, 12)
    Y = (rng.random((n, n_labels)) < rng.random()).astype(int)
    P = (rng.random((n, n_labels)) < rng.random()).astype(int)
    if seed % 5 == 0:
        Y[:, 0] = P[:, 0] = 0  # a label neither true nor predicted (0/0)
    if seed % 7 == 0:
        Y[0] = P[0] = 0  # an empty row
    return Y, P


def _tuner_names():
    """The names the tuner's scoring_function accepts, read from its error message."""
    with pytest.raises(ValueError, match="scoring must be a callable") as error:
        scoring_function("no such score")
    return ast.literal_eval(re.search(r"one of (\[.*?\]);", str(error.value)).group(1))


def test_the_tuner_names_are_the_tuning_set():
    assert list(M.get_metric_set("tuning")) == TUNER_NAMES
    assert set(TUNER_NAMES) <= set(_tuner_names())
    assert M.METRIC_SETS["tuning"][-1] == "exact_match"


def _reference(name):
    """scikit-learn's score of a tuner name (``zero_division=0``): an independent check."""
    from sklearn import metrics as skm

    if name == "accuracy":
        return skm.accuracy_score  # subset accuracy on indicator matrices
    kind, average = name.rsplit("_", 1)
    function = {
        "f1": skm.f1_score,
        "jaccard": skm.jaccard_score,
        "precision": skm.precision_score,
        "recall": skm.recall_score,
    }[kind]
    return functools.partial(function, average=average, zero_division=0)


@pytest.mark.parametrize("seed", range(40))
def test_the_tuners_scores_equal_scikit_learns(seed):
    Y, P = _matrices(seed)
    if Y.shape[1] == 1:  # scikit-learn reads one column as a binary target, not a label set
        Y, P = np.hstack([Y, 1 - Y]), np.hstack([P, P])
    for name in TUNER_NAMES:
        ours = M.set_scorer(name)(Y, P)
        assert type(ours) is float, name
        assert ours == pytest.approx(_reference(name)(Y, P), abs=1e-12), name
        assert scoring_function(name)(Y, P) == ours, name  # the tuner reads the registry


def test_edge_cases_follow_zero_division_zero():
    Y = np.zeros((3, 2), dtype=int)
    for name in TUNER_NAMES:
        expected = 1.0 if name == "accuracy" else 0.0
        assert M.set_scorer(name)(Y, Y) == scoring_function(name)(Y, Y) == expected


def test_the_fast_scores_take_sparse_and_any_dtype():
    Y, P = _matrices(3)
    for name, metric in M.get_metric_set("tuning").items():
        dense = metric(Y, P)
        assert metric(sp.csr_array(Y), sp.csr_matrix(P)) == dense, name
        assert metric(Y.astype(bool), P.astype(np.uint8)) == dense, name
    with pytest.raises(ValueError, match="same shape"):
        M.METRICS["f1_micro"](Y, P[:, :-1])


def test_set_scorer_takes_callables_and_every_multilabel_metric():
    Y, P = _matrices(11)

    def custom(Y_true, Y_pred):
        return 0.5

    assert M.set_scorer(custom) is custom
    assert M.set_scorer("hamming")(Y, P) == -M.hamming_loss(Y, P)  # losses are negated
    assert M.set_scorer("micro_f1")(Y, P) == M.f1_score(Y, P, average="micro")
    assert M.set_scorer("subset_accuracy")(Y, P) == pytest.approx(M.subset_accuracy(Y, P))
    # "accuracy" is the tuner's (subset accuracy); METRICS["accuracy"] keeps its meaning
    assert M.set_scorer("accuracy")(Y, P) == float(np.mean(np.all(Y == P, axis=1)))
    assert M.METRICS["accuracy"].function is M.jaccard_score
    for name in ("coverage_error", "sl_accuracy", "no such score", None, 3):
        with pytest.raises(ValueError, match=r"scoring must be a callable .* or one of \["):
            M.set_scorer(name)


@pytest.fixture
def registered():
    """Names registered by a test, removed afterwards."""
    names = []
    yield names
    for name in names:
        M.METRICS.pop(name, None)
        M.METRIC_SETS.pop(name, None)


def test_a_registered_metric_reaches_get_metrics_and_set_scorer(registered):
    def label_cardinality_error(Y_true, Y_pred):
        return float(abs(np.sum(Y_true) - np.sum(Y_pred)) / len(Y_true))

    registered.append("cardinality_error")
    out = M.register_metric(
        "cardinality_error", label_cardinality_error, greater_is_better=False, task="multilabel"
    )
    assert out is label_cardinality_error
    metric = M.get_metrics("cardinality_error")["cardinality_error"]
    assert metric.label == "cardinality_error" and not metric.greater_is_better
    Y, P = _matrices(2)
    assert M.set_scorer("cardinality_error")(Y, P) == -label_cardinality_error(Y, P)
    assert "cardinality_error" in M.get_metrics(["hamming", "cardinality_error"])


def test_register_metric_as_a_decorator_and_replace(registered):
    registered.append("always_one")

    @M.register_metric("always_one", greater_is_better=True, task="multilabel", label="One")
    def always_one(Y_true, Y_pred):
        return 1.0

    assert always_one(None, None) == 1.0  # the decorator gives the function back
    assert M.METRICS["always_one"].label == "One"
    with pytest.raises(ValueError, match="'always_one' is already registered"):
        M.register_metric("always_one", always_one, greater_is_better=True, task="multilabel")
    M.register_metric(
        "always_one", lambda Y, P: 2.0, greater_is_better=True, task="multilabel", replace=True
    )
    assert M.METRICS["always_one"](None, None) == 2.0


def test_register_metric_refuses_bad_arguments():
    def f(Y_true, Y_pred):
        return 0.0

    with pytest.raises(ValueError, match="'hamming' is already registered"):
        M.register_metric("hamming", f, greater_is_better=False, task="multilabel")
    with pytest.raises(ValueError, match="name of a metric set"):
        M.register_metric("ranking", f, greater_is_better=True, task="multilabel")
    with pytest.raises(ValueError, match="task must be one of"):
        M.register_metric("mine", f, greater_is_better=True, task="regression")
    with pytest.raises(TypeError, match="must be callable"):
        M.register_metric("mine", 3, greater_is_better=True, task="multilabel")
    with pytest.raises(TypeError, match="greater_is_better must be True or False"):
        M.register_metric("mine", f, greater_is_better="yes", task="multilabel")
    assert "mine" not in M.METRICS


def test_metric_sets_may_name_their_metrics(registered):
    registered.append("short")
    M.register_metric_set("short", {"f1": "micro_f1", "loss": "hamming"})
    assert M.METRIC_SETS["short"] == ("micro_f1", "hamming")
    assert list(M.get_metrics("short")) == ["micro_f1", "hamming"]
    assert {k: m.name for k, m in M.get_metric_set("short").items()} == {
        "f1": "micro_f1",
        "loss": "hamming",
    }
    assert list(M.get_metric_set("naibx")) == list(M.METRIC_SETS["naibx"])
    with pytest.raises(ValueError, match="already registered"):
        M.register_metric_set("short", ["hamming"])
    with pytest.raises(ValueError, match=r"unknown: \['nope'\]"):
        M.register_metric_set("other", ["hamming", "nope"])
    with pytest.raises(ValueError, match="name of a metric"):
        M.register_metric_set("hamming", ["zero_one"])
    with pytest.raises(ValueError, match="unknown metric set 'nope'"):
        M.get_metric_set("nope")


def test_the_text_set_is_the_commands_single_label_criteria():
    y_true = np.array([0, 1, 2, 2, 1, 0, 3])
    y_pred = np.array([0, 2, 2, 1, 1, 0, 0])
    partial = functools.partial
    expected = {
        "accuracy": M.single_label_accuracy,
        "macro_precision": partial(M.single_label_precision, average="macro"),
        "macro_recall": partial(M.single_label_recall, average="macro"),
        "macro_f1": partial(M.single_label_f1, average="macro"),
        "micro_precision": partial(M.single_label_precision, average="micro"),
        "micro_recall": partial(M.single_label_recall, average="micro"),
        "micro_f1": partial(M.single_label_f1, average="micro"),
    }
    text = M.get_metric_set("text")
    assert list(text) == list(expected)
    for name, metric in text.items():
        assert metric.task == "single_label" and metric.greater_is_better
        assert metric(y_true, y_pred) == expected[name](y_true, y_pred), name
    # the multi-label names the set's names resemble keep their meaning
    assert M.METRICS["macro_f1"].task == M.METRICS["accuracy"].task == "multilabel"


def test_metrics_is_a_leaf():
    """mlnb.metrics imports nothing of mlnb outside itself."""
    folder = Path(M.__file__).parent
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert node.level in (0, 1), (path.name, ast.unparse(node))
                assert node.level == 1 or not (node.module or "").startswith("mlnb"), path.name
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("mlnb") for a in node.names), path.name
