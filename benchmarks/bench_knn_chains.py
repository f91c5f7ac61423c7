"""kNN chain ensembles: this checkout beside an earlier revision of the whole library, in one run.

Fits ``DynamicChainEnsemble(n_chains=20, base="knn", random_state=0)`` (the dynamic-chains
paper's kNN-DCE) and predicts, once with the library of ``--reference`` (default: the
revision before the compiled kernels, exported with ``git archive``) and once with this
checkout's, each in its own process with one BLAS thread. Same rows, same seed; reports both
times (fit + predict, after one warm-up fit on a few rows so the kernels' compilation is not
counted), their ratio and the share of test labels on which the two agree.

Run from the repository root::

    python benchmarks/bench_knn_chains.py --train 2000 --test 300
    python benchmarks/bench_knn_chains.py --train 0 --datasets yahoo_arts   # one 10-fold fold

``--train 0`` uses a whole 10-fold CV fold (9/10 of the rows; the test part then is the
remaining tenth, ``--test`` is ignored).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import KFold

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = "e3d36e5"
#: yahoo_arts: the 1,733 terms present in most documents, as the paper's Arts1 (see
#: docs/experiments/dynamic_chains.md)
TOP_FEATURES = {"yahoo_arts": 1733}


def load(name):
    from mlnb.datasets import load_dataset

    data = load_dataset(name, split="full")
    X = sp.csr_matrix(data.X, dtype=np.float64) if sp.issparse(data.X) else np.asarray(data.X)
    Y = data.Y.toarray() if sp.issparse(data.Y) else np.asarray(data.Y)
    top = TOP_FEATURES.get(name)
    if top is not None and top < X.shape[1]:
        present = np.asarray((X != 0).sum(axis=0)).ravel()
        X = X[:, np.sort(np.argsort(-present, kind="stable")[:top])]
    return X, Y.astype(np.int64)


def split(name, n_train, n_test):
    X, Y = load(name)
    if n_train:
        rows = np.random.default_rng(0).permutation(X.shape[0])
        train, test = rows[:n_train], rows[n_train : n_train + n_test]
    else:
        train, test = next(KFold(10, shuffle=True, random_state=0).split(X))
    return X[train], Y[train], X[test]


def fit_predict(X_train, Y_train, X_test):
    import mlnb

    model = mlnb.DynamicChainEnsemble(n_chains=20, base="knn", rule="predict", random_state=0)
    return model.fit(X_train, Y_train).predict(X_test)


def worker(name, n_train, n_test, out):
    """One library's fit + predict, timed in this process; labels saved to ``out``."""
    X_train, Y_train, X_test = split(name, n_train, n_test)
    fit_predict(X_train[:60], Y_train[:60], X_test[:5])  # warm-up: compile, import
    start = time.perf_counter()
    labels = fit_predict(X_train, Y_train, X_test)
    np.save(out, labels)
    print(f"{time.perf_counter() - start:.3f}")


def run(source, name, n_train, n_test, out):
    environment = dict(os.environ, PYTHONPATH=str(source), OPENBLAS_NUM_THREADS="1",
                       OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")  # fmt: skip
    command = [sys.executable, __file__, "--worker", name, str(n_train), str(n_test), out]
    done = subprocess.run(command, env=environment, check=True, capture_output=True, text=True)
    return float(done.stdout.strip().splitlines()[-1]), np.load(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["ohsumed", "yahoo_arts"])
    parser.add_argument("--train", type=int, default=2000, help="rows; 0: a 10-fold CV fold")
    parser.add_argument("--test", type=int, default=300)
    parser.add_argument("--reference", default=REFERENCE)
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        name, n_train, n_test, out = args.worker
        return worker(name, int(n_train), int(n_test), out)
    from _machine import cpu_name

    with tempfile.TemporaryDirectory() as scratch:
        archive = subprocess.run(["git", "archive", args.reference, "src"], cwd=ROOT,
                                 check=True, capture_output=True).stdout  # fmt: skip
        subprocess.run(["tar", "-x", "-C", scratch], input=archive, check=True)
        reference_src = Path(scratch) / "src"
        print(f"{cpu_name()}; reference {args.reference} vs this checkout", flush=True)
        print("| set | train x features, labels | test | reference s | current s | speed-up "
              "| labels agreeing |")  # fmt: skip
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for name in args.datasets:
            X_train, Y_train, X_test = split(name, args.train, args.test)
            before, old = run(reference_src, name, args.train, args.test, f"{scratch}/old.npy")
            after, new = run(ROOT / "src", name, args.train, args.test, f"{scratch}/new.npy")
            print(
                f"| {name} | {X_train.shape[0]} x {X_train.shape[1]}, {Y_train.shape[1]} | "
                f"{X_test.shape[0]} | {before:.1f} | {after:.1f} | {before / after:.1f}x | "
                f"{np.mean(old == new):.4f} |",
                flush=True,
            )


if __name__ == "__main__":
    sys.exit(main())
