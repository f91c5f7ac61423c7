"""Training time against data size: one process, a Dask LocalCluster, and dask-ml.

For each size n, dense Gaussian data (n x d, float64) is generated on a LocalCluster of
two worker processes (one thread each) and kept in their memory (``persist``), in 8 row
partitions; the same data are gathered into this process for the single-process runs.
Timed (best of ``--repeat`` runs, seconds):

- ``mlnb 1 proc``: ``GaussianNB().fit`` / ``BinaryRelevance().fit`` on the numpy arrays;
- ``mlnb dask``: ``mlnb.distributed.fit`` on the persisted Dask arrays (a model per
  partition, learning the classes of its rows, and a tree of merges that aligns them;
  before issue #31 the classes were found first, with a pass of ``dask.array.unique``);
- ``+classes``: the same with ``classes=`` given (every partition gets every class);
- ``dask-ml``: ``dask_ml.naive_bayes.GaussianNB().fit`` plus the computation of its lazy
  parameters (it has no multi-label estimator). Only if dask-ml is importable: run this
  script with the interpreter of a separate environment holding it (dask-ml is never a
  dependency of mlnb), e.g. ``/work/bench-dask-venv/bin/python``.

Dask's nanny starts worker processes with ``MALLOC_TRIM_THRESHOLD_=65536``, which also
fixes glibc's mmap threshold at 128 kB: every large numpy temporary is then mapped and
unmapped afresh, which makes mlnb's per-partition statistics about 2x slower than in a
plain process (measured: GaussianNB.partial_fit on 125,000 x 50, 0.13 s against 0.30 s
with the variable set). ``--glibc-malloc`` starts the workers without it.

``--lazy`` times the Dask fits on the graph that generates the data instead of the
persisted arrays, as when every fit reads its data from files. y is computed from X, so
before issue #31 X was generated three times by a fit without ``classes`` (a first pass
over y for its classes, then X and y each optimised apart) and twice with them: at 500,000
rows, best of 3, GNB dask 3.49 s and +classes 2.47 s (the first pass 29 % of the time), BR
dask 3.20 s. Now each partition is generated once: 1.73 s, 1.77 s and 1.95 s.

``rel. diff`` is the largest difference between the distributed (and dask-ml) and the
single-process statistics (class means; label sums and second moments), relative to their
scale: a check that the results agree (~1e-15).

    python benchmarks/bench_distributed.py [--sizes 125000 250000 500000 1000000] [--lazy]
"""

from __future__ import annotations

import argparse
import os

import dask
import dask.array as da
import numpy as np
from distributed import Client, LocalCluster, wait

import mlnb.distributed as mlnb_dask
from mlnb import BinaryRelevance, GaussianNB
from mlnb.evaluation import best_time

try:
    from dask_ml.naive_bayes import GaussianNB as DaskMLGaussianNB
except ImportError:
    DaskMLGaussianNB = None


def make_data(n, n_features, n_classes, n_labels, n_partitions, seed=0):
    """Lazy (X, y, Y): Gaussian features, a class per row and a label matrix."""
    rng = da.random.default_rng(seed)
    chunks = (-(-n // n_partitions), n_features)
    X = rng.normal(size=(n, n_features), chunks=chunks)
    y = da.argmax(X[:, :n_classes] + rng.normal(size=(n, n_classes), chunks=chunks[0]), axis=1)
    Y = (X[:, :n_labels] + rng.normal(size=(n, n_labels), chunks=chunks[0]) > 1.0).astype(np.uint8)
    return X, y, Y


def relative_difference(got, expected):
    """Largest absolute difference, relative to the largest absolute expected value."""
    return np.abs(got - expected).max() / max(np.abs(expected).max(), 1e-300)


def dask_ml_fit(X, y):
    model = DaskMLGaussianNB().fit(X, y)
    return dask.compute(model.theta_, model.sigma_, model.class_count_)


def run_size(client, n, args):
    """One table row: the timings for n rows."""
    lazy = make_data(n, args.features, args.classes, args.labels, args.partitions)
    X, y, Y = client.persist(list(lazy))
    wait([X, y, Y])
    X_np, y_np, Y_np = client.compute([X, y, Y], sync=True)
    if args.lazy:  # every Dask fit generates its data
        X, y, Y = lazy

    single, reference = best_time(lambda: GaussianNB().fit(X_np, y_np), args.repeat)[:2]
    spread, model = best_time(lambda: mlnb_dask.fit(GaussianNB(), X, y), args.repeat)[:2]
    diff = relative_difference(model.theta_, reference.theta_)
    classes = np.arange(args.classes)
    given = best_time(lambda: mlnb_dask.fit(GaussianNB(), X, y, classes=classes), args.repeat)
    given = given.seconds
    dask_ml = np.nan
    if DaskMLGaussianNB is not None:
        dask_ml, (theta, _, _) = best_time(lambda: dask_ml_fit(X, y), args.repeat)[:2]
        diff = max(diff, relative_difference(theta, reference.theta_))
    br_single, br_reference = best_time(
        lambda: BinaryRelevance(events="gaussian", rule="predict").fit(X_np, Y_np), args.repeat
    )[:2]
    br_spread, br_model = best_time(
        lambda: mlnb_dask.fit(BinaryRelevance(events="gaussian", rule="predict"), X, Y), args.repeat
    )[:2]
    diff = max(
        diff,
        relative_difference(br_model.feature_stats_.sums, br_reference.feature_stats_.sums),
        relative_difference(br_model.feature_stats_.m2, br_reference.feature_stats_.m2),
    )
    return (
        f"| {n:>9} | {X_np.nbytes / 2**20:>6.0f} | {single:>10.3f} | {spread:>9.3f} "
        f"| {given:>8.3f} | {dask_ml:>11.3f} | {br_single:>9.3f} | {br_spread:>8.3f} "
        f"| {diff:>10.1e} |"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[125_000, 250_000, 500_000])
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--labels", type=int, default=20)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--lazy", action="store_true", help="fit on the data's graph, not persisted arrays"
    )
    parser.add_argument(
        "--glibc-malloc",
        action="store_true",
        help="start the workers without Dask's MALLOC_TRIM_THRESHOLD_=65536 (see above)",
    )
    args = parser.parse_args(argv)
    if args.glibc_malloc:
        environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ"))
        environ.pop("MALLOC_TRIM_THRESHOLD_", None)
        dask.config.set({"distributed.nanny.pre-spawn-environ": environ})

    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    client = Client(cluster)
    trim = set(client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_")).values())
    print(
        f"LocalCluster: 2 worker processes x 1 thread; {args.partitions} partitions; "
        f"d={args.features}, {args.classes} classes, {args.labels} labels; best of "
        f"{args.repeat}; {'lazy' if args.lazy else 'persisted'} data; "
        f"workers' MALLOC_TRIM_THRESHOLD_={trim}; "
        f"load average before: {os.getloadavg()[0]:.2f}"
    )
    header = (
        f"| {'n':>9} | {'MB':>6} | {'GNB 1 proc':>10} | {'GNB dask':>9} | {'+classes':>8} "
        f"| {'dask-ml GNB':>11} | {'BR 1 proc':>9} | {'BR dask':>8} | {'rel. diff':>10} |"
    )
    print(header)
    print("|" + "|".join("-" * (len(cell)) for cell in header.split("|")[1:-1]) + "|")
    for n in args.sizes:
        print(run_size(client, n, args), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
