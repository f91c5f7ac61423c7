"""Prequential throughput on a long stream, one run: mlnb's BR-NB and NaiBX against river.

Prequential (test-then-train) evaluation: each batch is predicted by the model trained on
the batches before it, then learnt (:func:`mlnb.evaluation.prequential`; the first batch is
only learnt). Two streams:

- ``generated``: ``--rows`` rows (default 1,000,000) of ``make_multilabel(n + t, 50, 20,
  features="gaussian", cardinality=3, label_dependence=0.5, random_state=0)``, whose last
  ``t = --test-rows`` rows are held out. It is one call because the generator's parameters
  (label means, frequencies) come from ``random_state`` after draws whose size depends on
  ``n``: pieces would not share one model. The parent process draws it once and writes raw
  float64 / uint8 files to a temporary directory outside the repository; each measured
  process reads them back batch by batch with plain file reads (no memory map, whose pages
  would count as resident), so it holds one batch of the data at a time. Events
  ``"gaussian"``.
- ``imdb``: MEKA's IMDB (120,919 rows, 1001 binary word features, 28 labels; ``meka_imdb``
  of shared/data/MANIFEST.tsv, found by ``mlnb.datasets.data_home(--data-dir)``), read by
  :func:`mlnb.streaming.iter_chunks` in chunks of ``--batch`` rows, so that the ARFF stream
  path is part of what is measured. Events ``"bernoulli"``.

For each stream: ``BinaryRelevance`` (BR-NB) and ``NaiBX`` in batches of ``--batch`` rows
(default 1000) on the whole stream, then on river's rows (its first ``--river-rows`` /
``--river-imdb-rows`` rows) in batches of ``--batch`` rows and of one row. Every case runs
in a fresh subprocess. Columns:

- ``s``: wall seconds of the whole ``prequential`` call (reading the stream, predicting,
  scoring, learning); ``ex/s``: rows over those seconds; ``model ex/s``: rows over the
  seconds of ``predict`` and ``partial_fit`` alone (``PrequentialResult.throughput``);
- ``peak MB``: the subprocess's peak resident memory at the end of the stream
  (``_memory.peak_rss_kib``, imports included; the import-only baseline is printed);
- ``micro F1``, ``Hamming``: ``PrequentialResult.final()``, the row-weighted mean of the
  tested batches' values. With one-row batches micro F1 would be a mean of one-row F1s, not
  a micro average: not shown;
- ``= batch``: after the stream, the same subprocess fits a fresh estimator by ``fit`` on
  all the streamed rows at once and compares the two models: the largest relative
  difference of the sufficient statistics (per array, ``max |a - b| / max |b|``, over the
  counts, sums and second moments of ``feature_stats_``, ``label_stats_`` and NaiBX's
  ``size_stats_``), then ``decision_function`` (largest difference) and ``predict``
  (entries that differ) on check rows: the held-out rows (generated), the 1000 rows after
  the streamed ones (a prefix of imdb), else the stream's first 1000 (all of imdb: seen).
  "yes" means statistics within 1e-9 and no prediction differing. The second table gives
  the figures and the seconds and peak memory of that ``fit`` (loading the rows included);
  the machine's memory allows ``fit`` on all 1M generated rows (400 MB of X).

river (not a dependency of mlnb) runs its binary relevance,
``multioutput.PerOutputClassifier`` of ``naive_bayes.GaussianNB`` (generated) or
``BernoulliNB`` (imdb), on the first ``--river-rows`` / ``--river-imdb-rows`` rows (default
20,000 and 5,000: river does about 250 and 20 examples/s there), prequentially one row at a
time, ``predict_one`` then ``learn_one`` (the first row only learnt), on rows converted to
dicts (a sparse row: its non-zero entries) before the timed loop; the conversion's seconds
are printed apart. The second river line is its mini-batch path, river at its fastest: per
batch of ``--batch`` rows, each label's model ``predict_many`` then ``learn_many``, on
pandas DataFrames made before the timed loop. river's criteria are mlnb's metrics of its
predictions over the same batches as mlnb's ``final()`` (every batch of ``--batch`` rows
but the first, row-weighted). The ratio lines divide mlnb's examples per second by river's
on the same rows.

Every case runs once: a long stream is long enough to time, and ``best_time`` repetitions
would multiply the run's length. BLAS runs on one thread (``--threads``) in every process.

river lives in the benchmark's own environment::

    python3 -m venv /work/bench-river-venv
    /work/bench-river-venv/bin/pip install river pandas -e .
    nice /work/bench-river-venv/bin/python benchmarks/bench_prequential.py [--quick]

Without river the script reports mlnb only. ``--quick``: 50,000 generated rows, the first
20,000 rows of imdb, 2,000 rows for river (a smoke run of about 4 minutes).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _memory import peak_rss_kib, release_free_memory, reset_peak_rss

METRICS = ["micro_f1", "hamming"]
GENERATED = {
    "n_features": 50,
    "n_labels": 20,
    "features": "gaussian",
    "cardinality": 3.0,
    "label_dependence": 0.5,
    "random_state": 0,
}
EVENTS = {"generated": "gaussian", "imdb": "bernoulli"}
RIVER_NB = {"generated": "GaussianNB", "imdb": "BernoulliNB"}
STATISTICS = ("feature_stats_", "label_stats_", "size_stats_", "size_feature_stats_")
ARRAYS = ("count", "sums", "m2", "total_count", "total_sums", "total_m2")
CHECK_ROWS = 1000  # rows on which the predictions of the two models are compared


# ---- the streams --------------------------------------------------------------------------
def write_generated(folder, n_rows, n_test):
    """Draw the generated stream and its held-out rows; write them as raw arrays."""
    from mlnb.datasets import make_multilabel

    X, Y = make_multilabel(n_rows + n_test, **GENERATED)
    folder = Path(folder)
    X.tofile(folder / "X.f64")
    Y.tofile(folder / "Y.u8")
    meta = {"rows": n_rows, "test_rows": n_test, "features": X.shape[1], "labels": Y.shape[1]}
    (folder / "meta.json").write_text(json.dumps(meta))
    return meta


def generated_batches(folder, start, stop, size):
    """Rows [start, stop) of the written stream, ``size`` rows at a time, read from disk."""
    folder = Path(folder)
    meta = json.loads((folder / "meta.json").read_text())
    d, L = meta["features"], meta["labels"]
    with open(folder / "X.f64", "rb") as fx, open(folder / "Y.u8", "rb") as fy:
        fx.seek(start * d * 8)
        fy.seek(start * L)
        for begin in range(start, stop, size):
            n = min(size, stop - begin)
            X = np.fromfile(fx, np.float64, n * d).reshape(n, d)
            Y = np.fromfile(fy, np.uint8, n * L).reshape(n, L)
            yield X, Y


def first_rows(chunks, n_rows):
    """The chunks of a stream up to its first ``n_rows`` rows (the last one cut)."""
    left = n_rows
    for X, Y in chunks:
        if left <= 0:
            return
        if X.shape[0] > left:
            X, Y = X[:left], Y[:left]
        left -= X.shape[0]
        yield X, Y


def stream(spec, n_rows, size):
    """The first ``n_rows`` rows of the case's stream in batches of ``size`` rows."""
    if spec["stream"] == "generated":
        return generated_batches(spec["source"], 0, n_rows, size)
    from mlnb.streaming import iter_chunks

    return first_rows(iter_chunks(spec["source"], chunk_size=size), n_rows)


def stacked(chunks):
    import scipy.sparse as sp

    chunks = list(chunks)
    Xs, Ys = [X for X, _ in chunks], [Y for _, Y in chunks]
    X = sp.vstack(Xs, format="csr") if sp.issparse(Xs[0]) else np.vstack(Xs)
    return X, np.vstack(Ys)


def all_rows_and_check_rows(spec):
    """The streamed rows at once, and the rows the two models are compared on."""
    n = spec["rows"]
    if spec["stream"] == "generated":
        meta = json.loads((Path(spec["source"]) / "meta.json").read_text())
        X, Y = next(generated_batches(spec["source"], 0, n, n))
        stop = meta["rows"] + meta["test_rows"]
        X_check = next(generated_batches(spec["source"], meta["rows"], stop, stop))[0]
        return X, Y, X_check, "held-out"
    X, Y = stacked(stream(spec, n + CHECK_ROWS, 10_000))
    if X.shape[0] > n:
        return X[:n], Y[:n], X[n:], "next rows"
    return X, Y, X[:CHECK_ROWS], "seen rows"


# ---- subprocesses ---------------------------------------------------------------------------
def largest_statistic_difference(model, reference):
    """Largest ``max |a - b| / max |b|`` over the arrays of the models' statistics."""
    worst = 0.0
    for name in STATISTICS:
        mine, theirs = getattr(model, name, None), getattr(reference, name, None)
        if mine is None and theirs is None:
            continue
        for field in ARRAYS:
            a, b = getattr(mine, field), getattr(theirs, field)
            if a is None and b is None:
                continue
            a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
            if a.shape != b.shape:
                return float("inf")
            scale = np.abs(b).max() if b.size else 0.0
            gap = np.abs(a - b).max() if b.size else 0.0
            worst = max(worst, gap / scale if scale > 0 else gap)
    return float(worst)


def decision_difference(a, b):
    """Largest |a - b|, equal entries (infinities too) counting 0."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(invalid="ignore"):
        gap = np.where(a == b, 0.0, np.abs(a - b))
    return float(np.nanmax(gap)) if gap.size else 0.0


def make_estimator(method, events):
    from mlnb import BinaryRelevance, NaiBX

    return {"BR-NB": BinaryRelevance, "NaiBX": NaiBX}[method](events=events)


def child_import(spec):
    """Only the imports of a case: the baseline of every peak."""
    for module in ("mlnb", "mlnb.evaluation", "mlnb.streaming", "threadpoolctl"):
        importlib.import_module(module)
    return {"peak_mb": peak_rss_kib() / 1024}


def child_mlnb(spec):
    """Prequential run, its peak memory, then the comparison with ``fit`` on all rows."""
    from mlnb.evaluation import prequential

    estimator = make_estimator(spec["method"], EVENTS[spec["stream"]])
    start = time.perf_counter()
    result = prequential(estimator, stream(spec, spec["rows"], spec["batch"]), metrics=METRICS)
    seconds = time.perf_counter() - start
    out = {
        "rows": int(result.rows_seen[-1]),
        "seconds": seconds,
        "model_rate": result.throughput,
        "peak_mb": peak_rss_kib() / 1024,
        "final": result.final(),
        "labels": int(estimator.n_labels_),
    }
    release_free_memory()
    reset_peak_rss()
    start = time.perf_counter()
    X, Y, X_check, check = all_rows_and_check_rows(spec)
    batch_model = make_estimator(spec["method"], EVENTS[spec["stream"]]).fit(X, Y)
    out["fit_seconds"] = time.perf_counter() - start
    out["fit_peak_mb"] = peak_rss_kib() / 1024
    del X, Y
    out["check"] = {
        "rows": check,
        "n_rows": X_check.shape[0],
        "statistics": largest_statistic_difference(estimator, batch_model),
        "decision": decision_difference(
            estimator.decision_function(X_check), batch_model.decision_function(X_check)
        ),
        "predict": int(
            (
                np.asarray(estimator.predict(X_check)) != np.asarray(batch_model.predict(X_check))
            ).sum()
        ),
    }
    return out


def river_rows(X, Y):
    """river's rows: feature dicts (a sparse row: its non-zero entries) and label dicts."""
    import scipy.sparse as sp

    if sp.issparse(X):
        xs = [
            dict(zip(X.indices[a:b].tolist(), X.data[a:b].tolist(), strict=True))
            for a, b in zip(X.indptr[:-1], X.indptr[1:], strict=True)
        ]
    else:
        xs = [dict(enumerate(row)) for row in X.tolist()]
    ys = [{j: bool(v) for j, v in enumerate(row)} for row in Y.tolist()]
    return xs, ys


def batchwise_criteria(Y, predicted, batch):
    """mlnb's final prequential criteria of river's predictions: every batch but the first,
    the row-weighted mean of each batch's value."""
    from mlnb.metrics import get_metrics

    metrics = get_metrics(METRICS)
    starts = range(batch, Y.shape[0], batch)
    rows = np.array([min(batch, Y.shape[0] - s) for s in starts])
    final = {}
    for name, metric in metrics.items():
        values = [metric(Y[s : s + batch], predicted[s : s + batch]) for s in starts]
        final[name] = float(np.dot(values, rows) / rows.sum())
    return final


def child_river(spec):
    """river's binary relevance of Naive Bayes, one row at a time or in mini-batches."""
    from river import multioutput, naive_bayes

    make_nb = getattr(naive_bayes, RIVER_NB[spec["stream"]])
    X, Y = stacked(stream(spec, spec["rows"], spec["batch"]))
    n, L = Y.shape
    predicted = np.zeros((n, L), dtype=np.uint8)
    if spec["mode"] == "one":
        start = time.perf_counter()
        xs, ys = river_rows(X, Y)
        convert = time.perf_counter() - start
        model = multioutput.PerOutputClassifier(make_nb())
        answers = [{}]
        start = time.perf_counter()
        model.learn_one(xs[0], ys[0])
        for x, y in zip(xs[1:], ys[1:], strict=True):
            answers.append(model.predict_one(x))
            model.learn_one(x, y)
        seconds = time.perf_counter() - start
        for i, answer in enumerate(answers):
            for label, on in answer.items():
                predicted[i, label] = bool(on)
    else:
        import pandas as pd

        start = time.perf_counter()
        frames = []
        for begin in range(0, n, spec["batch"]):
            part = X[begin : begin + spec["batch"]]
            frame = pd.DataFrame(part.toarray() if hasattr(part, "toarray") else part)
            labels = [pd.Series(column) for column in Y[begin : begin + spec["batch"]].T]
            frames.append((begin, frame, labels))
        convert = time.perf_counter() - start
        models = [make_nb() for _ in range(L)]
        start = time.perf_counter()
        for begin, frame, labels in frames:
            if begin:
                for label, model in enumerate(models):
                    # GaussianNB keeps the classes 0/1, BernoulliNB their names "0"/"1"
                    guess = np.asarray(model.predict_many(frame)).astype(str) == "1"
                    predicted[begin : begin + frame.shape[0], label] = guess
            for model, y in zip(models, labels, strict=True):
                model.learn_many(frame, y)
        seconds = time.perf_counter() - start
    return {
        "rows": n,
        "seconds": seconds,
        "convert_seconds": convert,
        "peak_mb": peak_rss_kib() / 1024,
        "final": batchwise_criteria(Y, predicted, spec["batch"]),
    }


def child(spec):
    from threadpoolctl import threadpool_limits

    threadpool_limits(spec["threads"])
    run = {"import": child_import, "mlnb": child_mlnb, "river": child_river}[spec["kind"]]
    print(json.dumps(run(spec)))


def run_child(spec):
    threads = str(spec["threads"])
    env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads)
    env["MKL_NUM_THREADS"] = threads
    command = [sys.executable, __file__, "--child", json.dumps(spec)]
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode:
        sys.stderr.write(done.stderr)
        raise RuntimeError(f"case {spec} failed (exit {done.returncode})")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---- the report -----------------------------------------------------------------------------
COLUMNS = (
    ("stream", 9),
    ("method", 32),
    ("rows", 9),
    ("batch", 5),
    ("s", 7),
    ("ex/s", 8),
    ("model ex/s", 10),
    ("peak MB", 7),
    ("micro F1", 8),
    ("Hamming", 7),
    ("= batch", 14),
)
CHECK_COLUMNS = (
    ("stream", 9),
    ("method", 17),
    ("rows", 9),
    ("batch", 5),
    ("fit s", 6),
    ("fit peak MB", 11),
    ("stats rel. diff", 15),
    ("max |Δ decision|", 16),
    ("predict diffs", 13),
    ("check rows", 17),
)


def table_header(columns):
    cells = [f" {name:>{width}} " for name, width in columns]
    rule = ["-" * (width + 1) + ":" for _, width in columns]
    return "|" + "|".join(cells) + "|\n|" + "|".join(rule) + "|"


def table_row(columns, values):
    return "|" + "|".join(f" {v:>{w}} " for v, (_, w) in zip(values, columns, strict=True)) + "|"


def equal_to_batch(check):
    same = check["statistics"] < 1e-9 and check["predict"] == 0
    return f"{'yes' if same else 'NO'} ({check['statistics']:.0e})"


def main_row(stream_name, method, batch, result, check=None):
    final = result["final"]
    micro = "n/a" if batch == 1 and check is not None else f"{final['micro_f1']:.4f}"
    model_rate = f"{result['model_rate']:.0f}" if "model_rate" in result else "-"
    values = (
        stream_name,
        method,
        f"{result['rows']:,}",
        batch,
        f"{result['seconds']:.2f}",
        f"{result['rows'] / result['seconds']:.0f}",
        model_rate,
        f"{result['peak_mb']:.0f}",
        micro,
        f"{final['hamming']:.4f}",
        "-" if check is None else equal_to_batch(check),
    )
    return table_row(COLUMNS, values)


def check_row(stream_name, method, batch, result):
    check = result["check"]
    values = (
        stream_name,
        method,
        f"{result['rows']:,}",
        batch,
        f"{result['fit_seconds']:.2f}",
        f"{result['fit_peak_mb']:.0f}",
        f"{check['statistics']:.1e}",
        f"{check['decision']:.1e}",
        f"{check['predict']} / {check['n_rows'] * result['labels']:,}",
        f"{check['rows']} ({check['n_rows']:,})",
    )
    return table_row(CHECK_COLUMNS, values)


def progress(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def run_stream(name, source, n_rows, river_n, args, has_river, report):
    """Every case of one stream; appends its table rows and ratio lines to ``report``."""
    base = {"stream": name, "source": str(source), "threads": args.threads}
    river_n = min(river_n, n_rows)
    cases = list(dict.fromkeys([(n_rows, args.batch), (river_n, args.batch), (river_n, 1)]))
    rates = {}
    for rows, batch in cases:
        for method in ("BR-NB", "NaiBX"):
            label = method if rows == n_rows else f"{method}, first rows"
            progress(f"{name}: {label}, {rows:,} rows, batch {batch}")
            result = run_child(dict(base, kind="mlnb", method=method, rows=rows, batch=batch))
            report["rows"].append(main_row(name, label, batch, result, result["check"]))
            report["checks"].append(check_row(name, label, batch, result))
            rates[(method, rows, batch)] = result["rows"] / result["seconds"]
    if not has_river:
        return
    nb = RIVER_NB[name]
    for mode, label in (("one", "learn_one"), ("many", "learn_many")):
        method = f"river BR({nb}) {label}"
        progress(f"{name}: {method}, {river_n:,} rows")
        result = run_child(dict(base, kind="river", mode=mode, rows=river_n, batch=args.batch))
        report["rows"].append(main_row(name, method, 1 if mode == "one" else args.batch, result))
        report["notes"].append(
            f"{name}, {method}: converting {river_n:,} rows to "
            f"{'dicts' if mode == 'one' else 'DataFrames'} took "
            f"{result['convert_seconds']:.2f} s (not in its seconds)"
        )
        river_rate = result["rows"] / result["seconds"]
        ratios = [
            f"{method_mlnb} {rates[(method_mlnb, river_n, batch)] / river_rate:,.1f}x "
            f"(batch {batch})"
            for batch in (args.batch, 1)
            for method_mlnb in ("BR-NB", "NaiBX")
        ]
        report["ratios"].append(
            f"{name}, first {river_n:,} rows, mlnb / {method}: {', '.join(ratios)}"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows of the generated stream")
    parser.add_argument("--test-rows", type=int, default=10_000, help="held-out generated rows")
    parser.add_argument("--imdb-rows", type=int, default=None, help="first rows of imdb (all)")
    parser.add_argument("--batch", type=int, default=1000, help="rows per prequential batch")
    parser.add_argument("--river-rows", type=int, default=20_000, help="river's generated rows")
    parser.add_argument("--river-imdb-rows", type=int, default=5_000, help="river's imdb rows")
    parser.add_argument("--streams", nargs="+", default=["generated", "imdb"])
    parser.add_argument("--quick", action="store_true", help="a smoke run on short streams")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads per process")
    parser.add_argument("--data-dir", default=None, help="the data directory (shared/data)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(json.loads(args.child))
        return
    if args.quick:
        args.rows, args.test_rows, args.imdb_rows = 50_000, 5_000, 20_000
        args.river_rows = args.river_imdb_rows = 2_000

    import scipy

    import mlnb
    from mlnb.datasets import data_home

    has_river = importlib.util.find_spec("river") is not None
    if has_river:
        import river

        river_version = river.__version__
    else:
        river_version = "not installed (mlnb figures only; see this script's docstring)"
    began = time.perf_counter()
    print(
        f"mlnb {mlnb.__version__}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"river {river_version}, Python {platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, BLAS threads {args.threads}"
    )
    baseline = run_child({"kind": "import", "threads": args.threads})["peak_mb"]
    report = {"rows": [], "checks": [], "notes": [], "ratios": []}
    with tempfile.TemporaryDirectory(prefix="bench-prequential-") as tmp:
        if "generated" in args.streams:
            progress(f"generating {args.rows:,} + {args.test_rows:,} rows")
            write_generated(tmp, args.rows, args.test_rows)
            release_free_memory()
            print(
                f"generated: make_multilabel({args.rows:,} + {args.test_rows:,} held out, "
                + ", ".join(f"{k}={v!r}" for k, v in GENERATED.items())
                + "), events='gaussian'"
            )
            run_stream("generated", tmp, args.rows, args.river_rows, args, has_river, report)
        if "imdb" in args.streams:
            path = data_home(args.data_dir) / "multilabel" / "meka_imdb" / "Imdb.arff.bz2"
            if not path.is_file():
                print(f"imdb: {path} not found, skipped")
            else:
                n_rows = 120_919 if args.imdb_rows is None else min(args.imdb_rows, 120_919)
                print(f"imdb: {path} (meka_imdb), {n_rows:,} rows, events='bernoulli'")
                run_stream("imdb", path, n_rows, args.river_imdb_rows, args, has_river, report)
    print(
        f"\nPrequential, batches of {args.batch} rows (one row: batch 1); peak MB of each "
        f"case's own process, of which {baseline:.0f} MB is importing mlnb\n"
    )
    print(table_header(COLUMNS))
    print("\n".join(report["rows"]))
    print("\nThe prequentially trained model against `fit` on all the streamed rows at once\n")
    print(table_header(CHECK_COLUMNS))
    print("\n".join(report["checks"]))
    if report["ratios"]:
        print("\nmlnb / river, examples per second on the same rows")
        print("\n".join(f"- {line}" for line in report["ratios"]))
        print("\n".join(f"- {line}" for line in report["notes"]))
    print(f"\nWhole run: {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
