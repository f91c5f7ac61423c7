"""Peak memory of out-of-core training: flat while the data grow 1x, 2x, 4x, 8x.

A sparse bag-of-words multi-label data set (``make_multilabel(features="counts")``) is
written as a MEKA ARFF file, then replicated into files of 1x, 2x, 4x and 8x its rows (the
data lines repeated) in a temporary directory. For each file, a fresh subprocess trains
``BinaryRelevance(events="multinomial", rule="predict")`` and reports its peak resident memory (see
``_memory.peak_rss_kib``: VmHWM on Linux, else ``ru_maxrss``) and its wall time:

- ``stream``: :func:`mlnb.streaming.fit_stream` with ``--chunk-size`` rows per chunk;
- ``load + fit``: :func:`mlnb.datasets.load_arff` of the whole file, then ``fit``
  (for contrast: memory grows with the data).

A second table gives the memory of `load_arff` alone, per byte of file, on the largest
sparse file and on a dense file of about the same size (Gaussian features written with 6
decimals): peak resident memory over the file's size, with and without the ``import``
baseline.

``import`` is the peak memory of a subprocess that only imports mlnb and numpy. The
streamed model is checked against the in-memory one (largest relative difference of the
statistics).

    python benchmarks/bench_streaming.py [--rows 20000] [--chunk-size 2000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _memory import peak_rss_kib


def write_replicated_arff(path, X, Y, factor):
    """A sparse MEKA ARFF file (labels first) holding the rows of (X, Y) ``factor`` times."""
    n_labels = Y.shape[1]
    header = [f"@relation 'bench: -C {n_labels}'"]
    header += [f"@attribute label{j} {{0,1}}" for j in range(n_labels)]
    header += [f"@attribute word{i} numeric" for i in range(X.shape[1])]
    rows = np.hstack([Y, X]).astype(np.int64)
    lines = [
        "{" + ",".join(f"{j} {row[j]}" for j in np.flatnonzero(row)) + "}" for row in rows
    ]  # once per row of the base data, then replicated as text
    data = "\n".join(lines) + "\n"
    with open(path, "w") as handle:
        handle.write("\n".join([*header, "@data"]) + "\n")
        for _ in range(factor):
            handle.write(data)
    return path


def write_dense_arff(path, n_rows, n_features, n_labels, seed=0):
    """A dense MEKA ARFF file: 0/1 labels first, then Gaussian features with 6 decimals."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as handle:
        handle.write(f"@relation 'dense: -C {n_labels}'\n")
        handle.writelines(f"@attribute label{j} {{0,1}}\n" for j in range(n_labels))
        handle.writelines(f"@attribute x{i} numeric\n" for i in range(n_features))
        handle.write("@data\n")
        for start in range(0, n_rows, 10_000):
            rows = min(10_000, n_rows - start)
            Y = (rng.random((rows, n_labels)) < 0.2).astype(int)
            X = rng.normal(size=(rows, n_features))
            handle.writelines(
                ",".join(map(str, y)) + "," + ",".join(f"{v:.6f}" for v in x) + "\n"
                for y, x in zip(Y, X, strict=True)
            )
    return path


def child(mode, path, chunk_size):
    """Run in a subprocess: train, then print peak RSS (MB), time and a checksum as JSON.

    Modes ``load-only`` and ``import-datasets`` import only `mlnb.datasets`.
    """
    from mlnb.datasets import load_arff

    if mode not in ("load-only", "import-datasets"):
        from mlnb import BinaryRelevance
        from mlnb.streaming import fit_stream
    start = time.perf_counter()
    sums = None
    if mode == "stream":
        model = fit_stream(
            BinaryRelevance(events="multinomial", rule="predict"), path, chunk_size=chunk_size
        )
        sums = model.feature_stats_.sums
    elif mode == "load":
        data = load_arff(path)
        model = BinaryRelevance(events="multinomial", rule="predict").fit(data.X, data.Y)
        sums = model.feature_stats_.sums
    elif mode == "load-only":
        data = load_arff(path)
        sums = data.Y.sum(axis=0)
    seconds = time.perf_counter() - start
    peak = peak_rss_kib() / 1024
    total = None if sums is None else float(sums.sum())
    print(json.dumps({"peak_mb": peak, "seconds": seconds, "checksum": total}))


def run_child(mode, path, chunk_size):
    command = [sys.executable, __file__, "--child", mode, str(path), str(chunk_size)]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def print_header(header):
    """A Markdown table's header line and its rule, cell widths kept."""
    print(header)
    print("|" + "|".join("-" * len(cell) for cell in header.split("|")[1:-1]) + "|")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000, help="rows of the 1x data")
    parser.add_argument("--features", type=int, default=500)
    parser.add_argument("--labels", type=int, default=20)
    parser.add_argument("--chunk-size", type=int, default=2_000)
    parser.add_argument("--factors", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        mode, path, chunk_size = args.child
        child(mode, path, int(chunk_size))
        return

    from mlnb.datasets import make_multilabel

    X, Y = make_multilabel(
        args.rows, args.features, args.labels, features="counts", doc_length=100, random_state=0
    )
    baseline = run_child("import", "-", 0)["peak_mb"]
    print(
        f"BinaryRelevance(events='multinomial'); 1x = {args.rows} rows x {args.features} "
        f"sparse count features, {args.labels} labels; chunk_size={args.chunk_size}; "
        f"import only: {baseline:.0f} MB peak RSS"
    )
    print_header(
        f"| {'data':>4} | {'rows':>8} | {'file MB':>7} | {'stream peak MB':>14} "
        f"| {'stream s':>8} | {'load+fit peak MB':>16} | {'load+fit s':>10} | {'rel. diff':>9} |"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for factor in args.factors:
            path = write_replicated_arff(Path(tmp) / f"data_{factor}x.arff", X, Y, factor)
            stream = run_child("stream", path, args.chunk_size)
            load = run_child("load", path, args.chunk_size)
            diff = abs(stream["checksum"] - load["checksum"]) / abs(load["checksum"])
            print(
                f"| {factor:>3}x | {factor * args.rows:>8} | {path.stat().st_size / 2**20:>7.1f} "
                f"| {stream['peak_mb']:>14.0f} | {stream['seconds']:>8.2f} "
                f"| {load['peak_mb']:>16.0f} | {load['seconds']:>10.2f} | {diff:>9.1e} |",
                flush=True,
            )
            if factor != max(args.factors):
                path.unlink()
        largest = Path(tmp) / f"data_{max(args.factors)}x.arff"
        size = largest.stat().st_size
        dense = write_dense_arff(Path(tmp) / "dense.arff", size // 1000, 100, 10)
        baseline = run_child("import-datasets", "-", 0)["peak_mb"]
        print(
            f"\nload_arff alone (peak MB over file MB; import of mlnb.datasets only: "
            f"{baseline:.0f} MB)"
        )
        print_header(
            f"| {'file':>6} | {'file MB':>7} | {'peak MB':>7} | {'bytes per byte':>14} "
            f"| {'minus import':>12} | {'load s':>6} |"
        )
        for kind, path in (("sparse", largest), ("dense", dense)):
            load = run_child("load-only", path, 0)
            mb = path.stat().st_size / 2**20
            print(
                f"| {kind:>6} | {mb:>7.1f} | {load['peak_mb']:>7.0f} "
                f"| {load['peak_mb'] / mb:>14.1f} | {(load['peak_mb'] - baseline) / mb:>12.1f} "
                f"| {load['seconds']:>6.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
