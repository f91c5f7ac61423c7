"""A resumable fold runner for experiments: methods x data sets x folds into one CSV.

An experiment of many methods on many data sets runs for hours; :func:`run_folds` keeps one
CSV row per (data set, method, fold) and runs only the triples the CSV does not hold yet, so
an interrupted run resumes where it stopped. Folds run in parallel processes if asked, each
row is appended as its fold ends, a fold that raises is recorded with its traceback (in the
returned list and the log) while the others go on, and no fold starts after a deadline.

The caller gives what is its own: how to load a set and how to score a fold (make the
method for the fold, then usually :func:`fit_and_score`). Every paper script of the
project's ``experiments/`` runs on it.
"""

from __future__ import annotations

import csv
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import KFold

__all__ = ["Failure", "fit_and_score", "run_folds"]

#: The columns every fold row starts with.
KEYS = ("dataset", "method", "fold", "n_folds")


@dataclass(frozen=True)
class Failure:
    """A fold that raised: where, and the traceback."""

    dataset: str
    method: str
    fold: int
    error: str


def fit_and_score(model, X, Y, train, test, metrics):
    """Fit on the training rows, predict the test rows; the row of one fold.

    ``metrics``: ``{name: metric(Y_true, Y_pred)}``. The row holds each metric, the fit and
    prediction seconds and the two parts' sizes.
    """
    start = time.perf_counter()
    model.fit(X[train], Y[train])
    train_time = time.perf_counter() - start
    start = time.perf_counter()
    predicted = np.asarray(model.predict(X[test]))
    test_time = time.perf_counter() - start
    return {
        **{name: float(metric(Y[test], predicted)) for name, metric in metrics.items()},
        "train_time": train_time,
        "test_time": test_time,
        "n_train": len(train),
        "n_test": len(test),
    }


def done_folds(folds_csv, n_folds):
    """The (data set, method, fold) triples of ``folds_csv`` run with ``n_folds`` folds."""
    folds_csv = Path(folds_csv)
    if not folds_csv.exists() or folds_csv.stat().st_size == 0:
        return set()
    with folds_csv.open(newline="") as handle:
        return {
            (row["dataset"], row["method"], int(row["fold"]))
            for row in csv.DictReader(handle)
            if int(row["n_folds"]) == n_folds
        }


def _run_one(score, method, X, Y, train, test, fold, dataset, deadline):
    """One fold's row, the traceback (a string) of what it raised, or None if the deadline
    passed before it could start."""
    if deadline is not None and time.time() > deadline:
        return None
    try:
        return score(method, X, Y, train, test, fold, dataset)
    except Exception:  # a failing fold must not stop the others
        return traceback.format_exc(limit=5)


def run_folds(
    datasets,
    methods,
    folds_csv,
    *,
    load,
    score,
    columns,
    n_folds=10,
    seed=0,
    jobs=1,
    deadline=None,
    log=print,
):
    """Run every (data set, method, fold) that ``folds_csv`` does not hold yet.

    Parameters
    ----------
    datasets, methods : sequences of names
        In the order to run: data set by data set, within one method by method.
    folds_csv : path
        The results, one row per fold (``KEYS`` then ``columns``); created if absent,
        appended to otherwise, each row as its fold ends.
    load : callable
        ``load(dataset) -> (X, Y)``.
    score : callable
        ``score(method, X, Y, train, test, fold, dataset) -> row`` (a dict of ``columns``),
        e.g. a method made for the fold's seed passed to :func:`fit_and_score`.
    columns : sequence of str
        The row's columns after ``KEYS``.
    n_folds, seed : int
        Shuffled ``KFold(n_folds, random_state=seed)`` of each set's rows.
    jobs : int
        Folds run at once (joblib processes; 1: in this process).
    deadline : float or None
        A ``time.time()`` after which no fold starts.
    log : callable
        Receives a line of progress at a time.

    Returns
    -------
    failures : list of Failure
    """
    folds_csv = Path(folds_csv)
    done = done_folds(folds_csv, n_folds)
    new_file = not folds_csv.exists() or folds_csv.stat().st_size == 0
    failures = []
    with folds_csv.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=[*KEYS, *columns], lineterminator="\n")
        if new_file:
            writer.writeheader()
        for dataset in datasets:
            todo = [(m, f) for m in methods for f in range(n_folds) if (dataset, m, f) not in done]
            if not todo:
                continue
            if deadline is not None and time.time() > deadline:
                log(f"deadline passed: {dataset} and later sets not started")
                break
            X, Y = load(dataset)
            splits = list(KFold(n_folds, shuffle=True, random_state=seed).split(X))
            log(f"{dataset}: {X.shape[0]} x {X.shape[1]}, {Y.shape[1]} labels; {len(todo)} folds")
            tasks = (
                delayed(_run_one)(score, m, X, Y, *splits[f], f, dataset, deadline) for m, f in todo
            )
            results = Parallel(n_jobs=jobs, return_as="generator")(tasks)
            seconds, skipped = {}, 0
            for (method, fold), result in zip(todo, results, strict=True):
                if result is None:
                    skipped += 1
                    continue
                if isinstance(result, str):
                    failures.append(Failure(dataset, method, fold, result))
                    log(f"  {dataset} {method} fold {fold} FAILED:\n{result}")
                    continue
                keys = {"dataset": dataset, "method": method, "fold": fold, "n_folds": n_folds}
                writer.writerow({**keys, **result})
                handle.flush()
                seconds.setdefault(method, []).append(result["train_time"] + result["test_time"])
            for method, times in seconds.items():
                log(f"  {dataset} {method}: {len(times)} folds, {np.mean(times):.2f} s per fold")
            if skipped:
                log(f"  deadline passed: {skipped} folds of {dataset} not started")
    return failures
