"""NaiBX throughput, one run: batch fit/predict against BR-NB, online learning against river.

1. Batch: ``NaiBX`` against binary relevance Naive Bayes (``BinaryRelevance``, the same
   event model) on yeast (Gaussian) and delicious (Bernoulli, 983 labels), fitted on the
   train file and predicting the test file. Examples per second, best of ``--repeat``.
2. Online: learning one example at a time on yeast (the 1500 training rows), NaiBX's
   ``partial_fit(x, y)`` on one-row numpy arrays against river's ``learn_one`` of a
   ``ClassifierChain`` of ``GaussianNB`` (and mlnb's own BR-NB ``partial_fit`` for
   reference). river gets its rows as ready-made dicts (conversion not timed). The target
   of issue 6 is at least 20 times river's examples per second.

river is not a dependency of mlnb; install it in a separate environment::

    python3 -m venv /work/bench-naibx-venv
    /work/bench-naibx-venv/bin/pip install river -e .
    /work/bench-naibx-venv/bin/python benchmarks/bench_naibx.py [--repeat 3] [--data-dir DIR]

Without river the online part reports mlnb only. BLAS runs on one thread (``--threads``):
the figures are single-core, and a shared machine does not oversubscribe its cores.
"""

from __future__ import annotations

import argparse
import platform
from functools import partial

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

import mlnb
from mlnb.datasets import load_dataset
from mlnb.evaluation import best_time
from mlnb.multilabel import BinaryRelevance
from mlnb.multilabel.naibx import NaiBX


def dense(matrix):
    return matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)


def batch(name, events, repeat, data_dir):
    train, test = load_dataset(name, data_dir, split="train_test")
    X, Y, X_test = train.X, dense(train.Y), test.X
    print(
        f"\n{name}: train {X.shape[0]} x {X.shape[1]}, test {X_test.shape[0]}, "
        f"{Y.shape[1]} labels, events={events!r}"
    )
    print(f"{'':14s}{'fit ex/s':>12s}{'predict ex/s':>14s}{'fit s':>9s}{'predict s':>11s}")
    figures = {}
    for label, make in (
        ("BR-NB", lambda: BinaryRelevance(events=events, rule="predict")),
        ("NaiBX", lambda: NaiBX(events=events, rule="predict")),
    ):
        fit_time, model = best_time(lambda make=make: make().fit(X, Y), repeat, min_seconds=1.0)[:2]
        predict_time = best_time(partial(model.predict, X_test), repeat, min_seconds=1.0).seconds
        figures[label] = (X.shape[0] / fit_time, X_test.shape[0] / predict_time)
        print(
            f"{label:14s}{figures[label][0]:12.0f}{figures[label][1]:14.0f}"
            f"{fit_time:9.3f}{predict_time:11.3f}"
        )
    fit_ratio = figures["NaiBX"][0] / figures["BR-NB"][0]
    predict_ratio = figures["NaiBX"][1] / figures["BR-NB"][1]
    print(f"NaiBX / BR-NB throughput: fit {fit_ratio:.2f}x, predict {predict_ratio:.2f}x")


def online(repeat, data_dir):
    train = load_dataset("yeast", data_dir, split="train")
    X, Y = dense(train.X).astype(float), dense(train.Y).astype(int)
    n = X.shape[0]
    rows = [(X[i : i + 1], Y[i : i + 1]) for i in range(n)]
    print(f"\nonline, one example at a time: yeast train, {n} examples, {Y.shape[1]} labels")

    def one_at_a_time(make):
        def run():
            model = make()
            for x, y in rows:
                model.partial_fit(x, y)
            return model

        return run

    figures = {}
    for label, make in (
        ("NaiBX partial_fit", NaiBX),
        ("BR-NB partial_fit", BinaryRelevance),
    ):
        seconds, _ = best_time(one_at_a_time(make), repeat, min_seconds=1.0)[:2]
        figures[label] = n / seconds
    online_proba = one_at_a_time(NaiBX)().predict_steps(X).proba
    difference = np.nanmax(
        np.abs(
            online_proba - NaiBX(events="gaussian", rule="predict").fit(X, Y).predict_steps(X).proba
        )
    )
    try:
        from river import multioutput, naive_bayes
    except ImportError:
        print("river is not installed (see this script's docstring): mlnb figures only")
    else:
        xs = [dict(enumerate(row)) for row in X]
        ys = [{j: bool(v) for j, v in enumerate(row)} for row in Y]
        order = list(range(Y.shape[1]))

        def river_run():
            model = multioutput.ClassifierChain(naive_bayes.GaussianNB(), order=order)
            for x, y in zip(xs, ys, strict=True):
                model.learn_one(x, y)
            return model

        seconds, _ = best_time(river_run, max(1, repeat // 2))[:2]
        figures["river CC(GaussianNB) learn_one"] = n / seconds
    for label, rate in figures.items():
        print(f"{label:34s}{rate:10.0f} examples/s")
    print(f"NaiBX one at a time vs fit: largest step-probability difference {difference:.1e}")
    river_rate = figures.get("river CC(GaussianNB) learn_one")
    if river_rate:
        ratio = figures["NaiBX partial_fit"] / river_rate
        verdict = "met" if ratio >= 20 else "NOT met"
        print(f"NaiBX / river: {ratio:.1f}x (target >= 20x: {verdict})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--threads", type=int, default=1, help="BLAS threads (1: every method single-threaded)"
    )
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    threadpool_limits(args.threads)
    try:
        import river

        river_version = river.__version__
    except ImportError:
        river_version = "not installed"
    print(
        f"mlnb {mlnb.__version__}, numpy {np.__version__}, river {river_version}, "
        f"Python {platform.python_version()}, {platform.machine()}"
    )
    batch("yeast", "gaussian", args.repeat, args.data_dir)
    batch("delicious", "bernoulli", args.repeat, args.data_dir)
    online(args.repeat, args.data_dir)


if __name__ == "__main__":
    main()
