"""run_folds: resuming, failures, deadline, parallel runs; fit_and_score."""

import csv
import time

import numpy as np
import pytest

from mlnb import BinaryRelevance
from mlnb.evaluation import Failure, fit_and_score, run_folds
from mlnb.metrics import METRICS

SETS = {"small": 12, "large": 20}
COLUMNS = ["score", "train_time", "test_time"]


def load(name):
    n = SETS[name]
    return np.arange(n * 2, dtype=float).reshape(n, 2), np.zeros((n, 1), dtype=int)


def score(method, X, Y, train, test, fold, dataset):
    """A deterministic row: what was run on which rows."""
    value = float(X[test, 0].sum()) + {"a": 0.0, "b": 0.5}[method]
    return {"score": value, "train_time": 0.0, "test_time": 0.0}


class Interrupted(BaseException):
    """As KeyboardInterrupt: not caught as a failure."""


def rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def run(path, scorer=score, **options):
    options = {"n_folds": 3, "log": lambda line: None, **options}
    return run_folds(
        list(SETS), ["a", "b"], path, load=load, score=scorer, columns=COLUMNS, **options
    )


def test_an_interrupted_run_resumes_to_the_same_csv(tmp_path):
    whole = tmp_path / "whole.csv"
    assert run(whole) == []
    assert len(rows(whole)) == 2 * 2 * 3
    calls = []

    def interrupted(*args):
        calls.append(args)
        if len(calls) == 5:
            raise Interrupted
        return score(*args)

    resumed = tmp_path / "resumed.csv"
    with pytest.raises(Interrupted):
        run(resumed, interrupted)
    assert len(rows(resumed)) == 4  # the folds that ended are kept
    assert run(resumed) == []
    assert rows(resumed) == rows(whole)
    assert run(resumed, lambda *a: pytest.fail("nothing is left to run")) == []


def test_a_failing_fold_is_recorded_and_the_others_run(tmp_path):
    path = tmp_path / "folds.csv"

    def failing(method, X, Y, train, test, fold, dataset):
        if (dataset, method, fold) == ("small", "b", 1):
            raise ValueError("no labels here")
        return score(method, X, Y, train, test, fold, dataset)

    lines = []
    failures = run(path, failing, log=lines.append)
    assert len(failures) == 1 and isinstance(failures[0], Failure)
    failure = failures[0]
    assert (failure.dataset, failure.method, failure.fold) == ("small", "b", 1)
    assert "ValueError: no labels here" in failure.error
    assert any("FAILED" in line for line in lines)
    assert len(rows(path)) == 11
    assert run(path) == [] and len(rows(path)) == 12  # a rerun retries only that fold


def test_no_fold_starts_after_the_deadline_and_other_fold_counts_are_separate(tmp_path):
    path = tmp_path / "folds.csv"
    assert run(path, deadline=time.time() - 1) == []
    assert rows(path) == []
    run(path, n_folds=2)
    run(path, n_folds=3)
    counts = [int(row["n_folds"]) for row in rows(path)]
    assert counts.count(2) == 8 and counts.count(3) == 12


def test_parallel_runs_give_the_same_rows(tmp_path):
    run(tmp_path / "one.csv")
    run(tmp_path / "two.csv", jobs=2)
    assert rows(tmp_path / "two.csv") == rows(tmp_path / "one.csv")


def test_fit_and_score_fits_on_the_training_rows():
    rng = np.random.default_rng(0)
    Y = (rng.random((60, 3)) < 0.4).astype(int)
    X = Y @ rng.normal(size=(3, 4)) + rng.normal(scale=0.3, size=(60, 4))
    train, test = np.arange(40), np.arange(40, 60)
    row = fit_and_score(BinaryRelevance(), X, Y, train, test, {"hamming": METRICS["hamming"]})
    expected = METRICS["hamming"](
        Y[test], BinaryRelevance().fit(X[train], Y[train]).predict(X[test])
    )
    assert row["hamming"] == pytest.approx(expected)
    assert (row["n_train"], row["n_test"]) == (40, 20) and row["train_time"] >= 0


def test_a_train_fraction_gives_exactly_its_share_of_whole_rows():
    """cv=0.7 on 1,060 rows: 742 to train, 318 to test (not 741/319 from 1.0 - 0.7 =
    0.30000000000000004 rounded up), with and without stratification."""
    import numpy as np

    from mlnb.evaluation._splits import split_indices

    Y = (np.random.default_rng(0).random((1060, 3)) < 0.4).astype(int)
    for stratify in (None, "iterative"):
        ((train, test),) = split_indices(0.7, 1060, Y, stratify=stratify, random_state=0)
        assert (len(train), len(test)) == (742, 318)
        assert len(np.union1d(train, test)) == 1060
