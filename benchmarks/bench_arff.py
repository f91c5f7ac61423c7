"""Time mlnb.datasets.load_arff against liac-arff on large sparse benchmark files.

Usage: python benchmarks/bench_arff.py [name ...]   (default: bibtex delicious yahoo_arts)

liac-arff is timed as ``arff.load(..., encode_nominal=True, return_type=arff.COO)`` plus
the conversion to a CSR feature matrix and a dense label matrix (what a caller needs).
Each figure is the best of ``--repeat`` runs, in seconds.
"""

from __future__ import annotations

import argparse
import bz2
import gzip

import numpy as np
import scipy.sparse as sp

from mlnb.datasets import load_arff
from mlnb.datasets._registry import _REGISTRY, data_home
from mlnb.evaluation import best_time


def _liac(path, n_labels_names: list[str]):
    import arff

    opener = {".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix, open)
    with opener(path, "rt", encoding="utf-8") as f:
        d = arff.load(f, encode_nominal=True, return_type=arff.COO)
    names = [a[0] for a in d["attributes"]]
    vals, rows, cols = (np.asarray(v) for v in (d["data"][0], d["data"][1], d["data"][2]))
    M = sp.csr_matrix((vals.astype(np.float64), (rows, cols)), shape=(rows.max() + 1, len(names)))
    lab = [names.index(n) for n in n_labels_names]
    feat = np.setdiff1d(np.arange(len(names)), lab)
    return M[:, feat], M[:, lab].toarray().astype(np.uint8)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=["bibtex", "delicious", "yahoo_arts"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    root = data_home(args.data_dir)
    print(f"{'data set':<14}{'n':>8}{'d':>8}{'L':>6}{'mlnb s':>9}{'liac s':>9}{'ratio':>7}")
    for name in args.names:
        entry = _REGISTRY[name]
        path = root / entry.folder / entry.full
        ds = load_arff(path)
        ours = best_time(lambda p=path: load_arff(p), args.repeat).seconds
        X, Y = _liac(path, ds.label_names)
        assert (X != ds.X).nnz == 0 and np.array_equal(Y, ds.Y), "readers disagree"
        liac = best_time(lambda p=path, n=ds.label_names: _liac(p, n), args.repeat).seconds
        print(
            f"{name:<14}{ds.n_samples:>8}{ds.n_features:>8}{ds.n_labels:>6}"
            f"{ours:>9.2f}{liac:>9.2f}{liac / ours:>7.1f}"
        )


if __name__ == "__main__":
    main()
