"""kNN chain ensembles: the current chain loop beside an earlier revision's, in one run.

Fits ``DynamicChainEnsemble(n_chains=20, base="knn", random_state=0)`` (the dynamic-chains
paper's kNN-DCE) and predicts, once with the kNN chain loop of this checkout
(``mlnb.multilabel._knn_members``) and once with the loop of ``--reference`` (default: the
revision before candidate pruning, index-ordered ties and the boolean label terms), the rest
of the library being this checkout's. Same rows, same seed; reports both times, their ratio
and the share of test labels on which the two agree (they differ only where neighbours tie
at the R-th place, which the reference broke by ``argpartition``'s pivots).

Run from the repository root (the reference is read with ``git show``)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_knn_chains.py --train 2000 --test 300

``--train 0`` uses a whole 10-fold CV fold (9/10 of the rows; the test part then is the
remaining tenth, ``--test`` is ignored).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import types
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import KFold

import mlnb
from _machine import cpu_name
from mlnb.datasets import load_dataset
from mlnb.evaluation import best_time
from mlnb.multilabel import _members

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = "51e2991"
#: yahoo_arts: the 1,733 terms present in most documents, as the paper's Arts1 (see
#: docs/experiments/dynamic_chains.md)
TOP_FEATURES = {"yahoo_arts": 1733}


def load(name):
    data = load_dataset(name, split="full")
    X = sp.csr_matrix(data.X, dtype=np.float64) if sp.issparse(data.X) else np.asarray(data.X)
    Y = data.Y.toarray() if sp.issparse(data.Y) else np.asarray(data.Y)
    top = TOP_FEATURES.get(name)
    if top is not None and top < X.shape[1]:
        present = np.asarray((X != 0).sum(axis=0)).ravel()
        X = X[:, np.sort(np.argsort(-present, kind="stable")[:top])]
    return X, Y.astype(np.int64)


def reference_module(revision):
    """The kNN chain module of ``revision``, with that revision's neighbour search."""

    def source(path):
        return subprocess.run(
            ["git", "show", f"{revision}:{path}"], cwd=ROOT, check=True, capture_output=True,
            text=True,
        ).stdout  # fmt: skip

    modules = {}
    for name in ("_neighbourhood", "_knn_members"):
        module = types.ModuleType(f"mlnb.multilabel._{name}_reference")
        module.__package__ = "mlnb.multilabel"
        exec(compile(source(f"src/mlnb/multilabel/{name}.py"), name, "exec"), module.__dict__)
        modules[name] = module
    modules["_knn_members"].nearest_points = modules["_neighbourhood"].nearest_points
    return modules["_knn_members"]


@contextmanager
def chain_loop(module):
    current = _members.knn_chain_labels
    _members.knn_chain_labels = module.knn_chain_labels
    try:
        yield
    finally:
        _members.knn_chain_labels = current


def fit_predict(X_train, Y_train, X_test):
    model = mlnb.DynamicChainEnsemble(n_chains=20, base="knn", rule="predict", random_state=0)
    return model.fit(X_train, Y_train).predict(X_test)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["ohsumed", "yahoo_arts"])
    parser.add_argument("--train", type=int, default=2000, help="rows; 0: a 10-fold CV fold")
    parser.add_argument("--test", type=int, default=300)
    parser.add_argument("--reference", default=REFERENCE)
    args = parser.parse_args(argv)
    reference = reference_module(args.reference)
    print(f"{cpu_name()}; mlnb {mlnb.__version__}; reference {args.reference}", flush=True)
    print("| set | train x features, labels | test | reference s | current s | speed-up "
          "| labels agreeing |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in args.datasets:
        X, Y = load(name)
        if args.train:
            rows = np.random.default_rng(0).permutation(X.shape[0])
            train, test = rows[: args.train], rows[args.train : args.train + args.test]
        else:
            train, test = next(KFold(10, shuffle=True, random_state=0).split(X))
        parts = (X[train], Y[train], X[test])
        with chain_loop(reference):
            before, old = best_time(partial(fit_predict, *parts), repeat=1)[:2]
        after, new = best_time(partial(fit_predict, *parts), repeat=1)[:2]
        print(
            f"| {name} | {len(train)} x {X.shape[1]}, {Y.shape[1]} | {len(test)} | "
            f"{before:.1f} | {after:.1f} | {before / after:.1f}x | {np.mean(old == new):.4f} |",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
