"""ML-kNN: mlnb beside scikit-multilearn-ng, fit + predict, in one run.

Each library fits ``MLkNN`` with k = 10, s = 1 on a data set's training split and predicts
its test split, in its own process with one BLAS thread, after a warm-up fit on a few rows
(imports, compilation). mlnb runs with ``scale=False``: scikit-multilearn-ng compares the
rows as they are. Rows go in as the data set stores them (dense yeast, sparse text);
scikit-multilearn-ng converts them to CSR inside the timing.

scikit-multilearn-ng is not mlnb's dependency: install it into a folder of its own (it
provides the same ``skmultilearn`` package as scikit-multilearn 0.2.0, which other
benchmarks patch) and name that folder::

    pip install --no-deps --target /tmp/skmlng scikit-multilearn-ng
    python benchmarks/bench_mlknn.py --skmultilearn-ng /tmp/skmlng

Its two modes differ from the paper's rule (Zhang and Zhou 2007: a training row's counts
among its k nearest *other* rows): by default each training row is its own nearest
neighbour; with ``ignore_first_neighbours=1`` the first neighbour is dropped for the test
rows too. The table gives the share of test label cells on which each mode agrees with
mlnb, and with mlnb made to count each training row among its own neighbours (the first
mode's rule, emulated here from mlnb's parts).

``--tuning`` times instead what choosing k and s costs: ``MLkNN(n_neighbors="auto",
smoothing="auto")`` (3 folds, k of 1-20, s of 0.1-2: the folds' neighbour lists of the
largest k serve every smaller k) against one fit at the defaults, on the training split,
the two alternating in one process with one thread, best of ``--repeat`` (CPU time of the
thread, which a shared machine's other jobs disturb least)::

    python benchmarks/bench_mlknn.py --tuning --datasets yeast enron medical scene emotions
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp

DATASETS = ("yeast", "enron", "medical")


def load(name):
    from mlnb.datasets import load_dataset

    train, test = load_dataset(name, split="train"), load_dataset(name, split="test")
    Y = train.Y.toarray() if sp.issparse(train.Y) else np.asarray(train.Y)
    return train.X, Y.astype(np.int64), test.X  # X as stored: dense yeast, sparse text


def fit_predict(library, X, Y, X_test):
    if library == "mlnb":
        import mlnb

        return mlnb.MLkNN(n_neighbors=10, smoothing=1.0, scale=False).fit(X, Y).predict(X_test)
    if library == "mlnb-self":  # each training row counted among its own neighbours
        from mlnb.multilabel._count_model import count_model, label_counts, log_odds
        from mlnb.multilabel._neighbour_lists import nearest_rows

        prior, ratio = count_model(Y, nearest_rows(X, X, 10), 1.0)
        test_counts = label_counts(Y, nearest_rows(X_test, X, 10))
        return (log_odds(prior, ratio, test_counts) > 0).astype(int)
    from skmultilearn.adapt import MLkNN

    ignore = 1 if library == "skml-ng-ignore-first" else 0
    model = MLkNN(k=10, s=1.0, ignore_first_neighbours=ignore)
    X, X_test = sp.csr_matrix(X), sp.csr_matrix(X_test)  # what it works on
    return np.asarray(model.fit(X, sp.csr_matrix(Y)).predict(X_test).todense())


def worker(library, name, out):
    X, Y, X_test = load(name)
    fit_predict(library, X[:40], Y[:40], X_test[:5])  # warm-up
    start = time.perf_counter()
    labels = fit_predict(library, X, Y, X_test)
    seconds = time.perf_counter() - start
    np.save(out, labels)
    print(f"{seconds:.4f}")


def tuning_worker(name, repeat):
    """Print the set's shape, the best-of-``repeat`` thread CPU seconds of one default fit
    and of the tuned fit, and the tuned fit's k and s."""
    import mlnb

    X, Y, _ = load(name)
    plain = mlnb.MLkNN()
    tuned = mlnb.MLkNN(n_neighbors="auto", smoothing="auto", random_state=0)
    plain.fit(X, Y), tuned.fit(X, Y)  # warm-up: compilation, caches
    times = np.zeros((int(repeat), 2))
    for i in range(int(repeat)):
        for j, model in enumerate((plain, tuned)):
            start = time.thread_time()
            model.fit(X, Y)
            times[i, j] = time.thread_time() - start
    best = times.min(axis=0)
    print(*X.shape, Y.shape[1], *best, tuned.n_neighbors_, tuned.smoothing_)


def run(library, name, out, extra_path):
    path = os.pathsep.join(p for p in (extra_path, os.environ.get("PYTHONPATH", "")) if p)
    environment = dict(os.environ, PYTHONPATH=path, OPENBLAS_NUM_THREADS="1",
                       OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")  # fmt: skip
    command = [sys.executable, __file__, "--worker", library, name, out]
    done = subprocess.run(command, env=environment, check=True, capture_output=True, text=True)
    return float(done.stdout.strip().splitlines()[-1]), np.load(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--skmultilearn-ng", default="", help="folder it is installed in")
    parser.add_argument("--tuning", action="store_true", help="auto k and s against a fit")
    parser.add_argument("--repeat", type=int, default=21, help="--tuning: best of")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--tuning-worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(*args.worker)
    if args.tuning_worker:
        return tuning_worker(*args.tuning_worker)
    from _machine import cpu_name

    if args.tuning:
        return print_tuning(args.datasets, args.repeat, cpu_name())

    print(f"{cpu_name()}; one BLAS thread per process; fit + predict, k = 10, s = 1")
    print("| set | train x features, labels | test | mlnb s | skml-ng s | mlnb speed-up "
          "| agree: default / ignore_first / mlnb counting itself vs default |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.datasets:
            X, Y, X_test = load(name)
            ours, labels = run("mlnb", name, f"{scratch}/a.npy", "")
            theirs, default = run("skml-ng", name, f"{scratch}/b.npy", args.skmultilearn_ng)
            _, ignore = run("skml-ng-ignore-first", name, f"{scratch}/c.npy", args.skmultilearn_ng)
            _, itself = run("mlnb-self", name, f"{scratch}/d.npy", "")
            print(
                f"| {name} | {X.shape[0]} x {X.shape[1]}, {Y.shape[1]} | {X_test.shape[0]} | "
                f"{ours:.3f} | {theirs:.3f} | {theirs / ours:.0f}x | "
                f"{np.mean(labels == default):.4f} / {np.mean(labels == ignore):.4f} / "
                f"{np.mean(itself == default):.4f} |",
                flush=True,
            )


def print_tuning(names, repeat, cpu):
    print(f"{cpu}; one thread; MLkNN() fit against MLkNN(n_neighbors='auto', "
          f"smoothing='auto'), best of {repeat}, thread CPU time")  # fmt: skip
    print("| set | train x features, labels | one fit ms | auto ms | ratio | chosen k, s |")
    print("| --- | --- | --- | --- | --- | --- |")
    environment = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                       MKL_NUM_THREADS="1", NUMBA_NUM_THREADS="1")  # fmt: skip
    for name in names:
        command = [sys.executable, __file__, "--tuning-worker", name, str(repeat)]
        done = subprocess.run(command, env=environment, check=True, capture_output=True, text=True)
        rows, features, labels, plain, tuned, k, s = done.stdout.split()
        plain, tuned = float(plain), float(tuned)
        print(
            f"| {name} | {rows} x {features}, {labels} | {plain * 1e3:.2f} | "
            f"{tuned * 1e3:.2f} | {tuned / plain:.2f}x | {k}, {s} |",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
