"""`mlnb evaluate --multi-target`: a class per target, the multi-target methods and criteria."""

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.model_selection import KFold

from mlnb import MultiTargetChain, MultiTargetPowerset, MultiTargetRelevance
from mlnb.cli import main
from mlnb.cli._methods import MULTI_TARGET_METHODS
from mlnb.datasets import load_dataset
from mlnb.evaluation import cross_validate
from mlnb.events import Auto, Categorical
from mlnb.io import load, save
from mlnb.metrics import (
    multi_target_accuracy,
    multi_target_exact_match,
    multi_target_hamming_loss,
    multi_target_hamming_score,
    multi_target_zero_one_loss,
)

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SF2 = DATA / "multitarget" / "sf2" / "sf2.arff"
CRITERIA = ["mt_exact_match", "mt_hamming_score", "mt_hamming_loss", "mt_zero_one_loss"]
TARGETS = ["c-class", "m-class", "x-class"]

needs_sf2 = pytest.mark.skipif(not SF2.is_file(), reason="sf2 not found at ../shared/data")


def invoke(*args):
    """``mlnb evaluate ARGS`` in-process, on the shared data folder."""
    return CliRunner().invoke(
        main, ["evaluate", *map(str, args), "--data-dir", str(DATA)], catch_exceptions=False
    )


def rows_of(*args):
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def sf2():
    if not SF2.is_file():
        pytest.skip("sf2 not found at ../shared/data")
    return load_dataset("sf2", DATA, multi_target=True)


@needs_sf2
def test_cross_validation_reports_the_multi_target_criteria():
    rows = rows_of("sf2", "--multi-target", "-m", "br,cc,lp", "--cv", 3)
    assert [row["method"] for row in rows] == ["br", "cc", "lp"]
    accuracies = [f"acc_{t}" for t in TARGETS]
    for row in rows:
        assert list(row) == ["method", *CRITERIA, *accuracies, "train_time", "test_time"]
        assert all(0 <= row[name] <= 1 for name in CRITERIA + accuracies)
        assert row["mt_hamming_loss"] == pytest.approx(1 - row["mt_hamming_score"])
        assert row["mt_zero_one_loss"] == pytest.approx(1 - row["mt_exact_match"])
        # equal folds: the mean of the per-target accuracies is the Hamming score
        assert np.mean([row[a] for a in accuracies]) == pytest.approx(row["mt_hamming_score"])
        assert row["mt_exact_match"] > 0.6  # sf2's classes, not its binarised labels


def _direct(estimator, data, n_folds, seed):
    """The criteria of ``estimator`` over the folds the command draws for --cv and --seed."""
    folds = KFold(n_splits=n_folds, shuffle=True, random_state=seed).split(data.X)
    scores = []
    for train, test in folds:
        model = estimator.fit(data.X[train], data.Y[train])
        predicted, truth = model.predict(data.X[test]), data.Y[test]
        scores.append(
            [
                multi_target_exact_match(truth, predicted),
                multi_target_hamming_score(truth, predicted),
                multi_target_hamming_loss(truth, predicted),
                multi_target_zero_one_loss(truth, predicted),
                *multi_target_accuracy(truth, predicted),
            ]
        )
    return np.mean(scores, axis=0)


@needs_sf2
@pytest.mark.parametrize(
    ("method", "params", "estimator"),
    [
        ("br", [], MultiTargetRelevance),
        ("cc", ["-p", "inference=exact"], MultiTargetChain),
        ("lp", ["-p", "prior_alpha=1"], MultiTargetPowerset),
    ],
)
def test_the_scores_equal_a_direct_computation(sf2, method, params, estimator):
    (row,) = rows_of("sf2", "--multi-target", "-m", method, *params, "--cv", 4, "--seed", 7)
    settings = dict(p.split("=") for p in params[1::2])
    settings = {k: (float(v) if k == "prior_alpha" else v) for k, v in settings.items()}
    # events="auto" with the data set's column types: sf2's nominal features are categorical
    events = Auto("auto", column_types=sf2.column_types, n_categories=sf2.n_categories)
    model = estimator(events=events, **settings)
    assert isinstance(model.fit(sf2.X, sf2.Y).events_, Categorical)
    expected = _direct(model, sf2, 4, 7)
    names = [*CRITERIA, *(f"acc_{t}" for t in TARGETS)]
    np.testing.assert_allclose([row[n] for n in names], expected, rtol=1e-12)


@needs_sf2
def test_exact_and_beam_inference_of_the_chain():
    rows = rows_of("sf2", "--multi-target", "-m", "cc,pcc", "-p", "inference=exact", "--cv", 3)
    assert rows[0]["mt_exact_match"] == rows[1]["mt_exact_match"]  # -p overrides pcc's beam
    (row,) = rows_of("sf2", "--multi-target", "-m", "pcc", "-p", "beam_width=2", "--cv", 3)
    assert 0.6 < row["mt_exact_match"] <= 1


@needs_sf2
def test_metrics_chooses_among_the_multi_target_criteria():
    (row,) = rows_of(
        "sf2", "--multi-target", "-m", "br", "--cv", 3, "--metrics", "mt_exact_match,mt_accuracy"
    )
    accuracies = [f"acc_{t}" for t in TARGETS]
    assert list(row) == ["method", "mt_exact_match", *accuracies, "train_time", "test_time"]
    (row,) = rows_of("sf2", "--multi-target", "-m", "br", "--cv", 3, "--metrics", "multi_target")
    assert list(row) == ["method", *CRITERIA, "train_time", "test_time"]


@needs_sf2
@pytest.mark.parametrize("name", ["hamming", "micro_f1", "dynamic_chains", "sl_accuracy"])
def test_a_multi_label_or_single_label_metric_is_refused(name):
    result = invoke("sf2", "--multi-target", "-m", "br", "--metrics", name)
    assert result.exit_code == 1
    assert "--metrics" in result.stderr and "multi_target" in result.stderr
    assert "Traceback" not in result.output


@needs_sf2
def test_a_multi_target_metric_on_multi_label_data_names_the_flag():
    result = invoke("sf2", "-m", "br", "--metrics", "mt_accuracy", "-q")
    assert result.exit_code == 1 and "--multi-target" in result.stderr


@needs_sf2
def test_a_method_without_a_multi_target_form_is_a_usage_error():
    result = invoke("sf2", "--multi-target", "-m", "br,ecc,naibx")
    assert result.exit_code == 2
    assert "ecc, naibx have no multi-target form" in result.stderr
    assert ", ".join(MULTI_TARGET_METHODS) in result.stderr


@needs_sf2
@pytest.mark.parametrize(
    "option",
    [["--stratify"], ["--prequential", "100"], ["--threshold", "tuned"], ["--missing", "ignore"]],
)
def test_options_for_labels_are_usage_errors(option):
    result = invoke("sf2", "--multi-target", "-m", "br", *option)
    assert result.exit_code == 2 and f"--multi-target excludes {option[0]}" in result.stderr


def test_data_without_targets_as_classes_is_refused():
    result = invoke("synthetic-gaussian", "--multi-target", "-m", "br")
    assert result.exit_code == 1 and "not multi-target data" in result.stderr


@needs_sf2
def test_without_the_flag_sf2_is_multi_label_with_one_note():
    result = invoke("sf2", "-m", "br", "--cv", 3, "--metrics", "hamming", "--json")
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)  # the note is not in the JSON
    assert list(row) == ["method", "hamming", "train_time", "test_time"]
    notes = [line for line in result.stderr.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and "binarised" in notes[0] and "--multi-target" in notes[0]
    assert "note:" not in invoke("sf2", "-m", "br", "--cv", 3, "-q").stderr
    assert "note:" not in invoke("sf2", "--multi-target", "-m", "br", "--cv", 3).stderr


@needs_sf2
def test_an_arff_file_reads_its_targets_as_classes():
    by_path = rows_of(SF2, "--multi-target", "--labels", -3, "-m", "lp", "--cv", 3, "-q")
    by_name = rows_of("sf2", "--multi-target", "-m", "lp", "--cv", 3, "-q")
    for name in [*CRITERIA, *(f"acc_{t}" for t in TARGETS)]:
        assert by_path[0][name] == by_name[0][name]
    split = rows_of(SF2, "--multi-target", "--labels", -3, "-m", "lp", "--split", 0.66)
    assert 0.6 < split[0]["mt_exact_match"] <= 1


def test_help_lists_the_multi_target_methods_and_an_example():
    text = " ".join(CliRunner().invoke(main, ["evaluate", "--help"]).output.split())
    assert "mlnb evaluate sf2 --multi-target -m br,cc,lp" in text
    assert "Multi-target methods (--multi-target: a class per target):" in text
    for name, (*_, description) in MULTI_TARGET_METHODS.items():
        assert f"{name} {description}" in text


@needs_sf2
@pytest.mark.parametrize("name", sorted(MULTI_TARGET_METHODS))
def test_every_multi_target_method_round_trips_through_a_model_file(sf2, name, tmp_path):
    from mlnb.cli._models import make_estimator

    model = make_estimator(name, sf2, {}).fit(sf2.X, sf2.Y)
    save(model, tmp_path / "model.mlnb")
    restored = load(tmp_path / "model.mlnb")
    np.testing.assert_array_equal(restored.predict(sf2.X), model.predict(sf2.X))


def test_cross_validate_scores_classes_per_target():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(90, 4))
    Y = np.column_stack([X[:, 0], (X[:, 1] + X[:, 2]) % 3])  # classes 0..2, not 0/1
    result = cross_validate(
        MultiTargetRelevance(events="categorical"), X, Y, cv=3, metrics="multi_target"
    )
    assert list(result.scores) == CRITERIA
    assert 0 < result.mean()["mt_hamming_score"] <= 1
    with pytest.raises(ValueError, match="not stratified"):
        cross_validate(MultiTargetRelevance(), X, Y, metrics="multi_target", stratify="iterative")
    with pytest.raises(ValueError, match="do not score multilabel targets"):
        cross_validate(MultiTargetRelevance(), X, Y, metrics=["mt_exact_match", "hamming"])
