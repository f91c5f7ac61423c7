"""Scaling and large label spaces: mlnb's multinomial binary relevance as rows, features and
labels grow, one-row prediction against its floor, extreme label counts, top-k memory.

Everything runs on generated data (:func:`mlnb.datasets.make_extreme_multilabel`: power-law
label frequencies, sparse word counts, 5 labels and about 50 words a row) and the model is
``BinaryRelevance(events="multinomial", rule="predict")`` (no search). Five parts:

``scale``
    Fit time, top-5 prediction time (``predict_top_k`` of 10,000 held-out rows) and peak
    memory as one of n_samples, n_features, n_labels grows over four values, the others
    fixed (base: 20,000 rows, 20,000 features, 2,000 labels; every point has more than
    2**24 label-feature pairs, so the model keeps its compact form throughout); the
    exponent ``b`` of ``time ~ size**b`` fitted by least squares on the log-log points (for
    memory: the peak above the process's size before fitting). Also the model's memory
    (:func:`model_nbytes`: the bytes of every numpy / scipy array its attributes reach) and
    its non-zero statistics (:func:`nonzero_statistics`: the non-zero per-label feature
    sums), and their ratio: bytes per non-zero statistic.
``latency``
    100 labels, 100,000 features (fit on 20,000 rows): ``predict``, ``decision_function``
    and ``predict_top_k(k=5)`` of one sparse row (CSR, sliced beforehand), the median of
    many calls, and of 1000 rows (best of many), against the *floor*: the product of the
    row(s) with a precomputed dense weight table ``W`` of shape (d, L), C-ordered (what the
    model's cached table is), in its fastest form (scipy's ``x @ W``, or for one row
    ``x.data @ W[x.indices]``). The methods take turns in blocks of calls.
``extreme``
    Fit on 100,000 rows, then top-5 labels of every row (and of 10,000 held-out rows drawn
    with them): time, peak memory of the whole process (data included) and above the data,
    the model's memory, its non-zero statistics against ``nnz(Y.T @ X)`` (the statistics a
    sparse model must hold), and precision@1/3/5, nDCG@5 of the held-out rows. 2,000 labels
    x 50,000 features by default ("medium"); ``--extreme`` adds 20,000 labels.
``topk_rows``
    Peak memory of ``predict_top_k(k=5)`` alone on 10,000 and on 100,000 rows (a model of
    2,000 labels x 50,000 features fitted on 20,000 rows; the rows to predict generated
    before the baseline): flat when top-k works in chunks of rows. The verdict: the peak
    grows by less than a tenth of the 8 L bytes a row's dense scores would take.
``xmc`` (with ``extreme``)
    With ``--xmc-python PYTHON`` (an environment with napkinXC and/or omikuji, numpy and
    scipy; never an mlnb dependency), the tree models of those libraries on the medium
    (and with ``--extreme``, extreme) data: napkinXC's ``PLT`` (hierarchical k-means tree,
    liblinear, defaults) and omikuji's Parabel-like forest (defaults), one thread each,
    trained on the same 100,000 rows and predicting the top 5 labels of the 10,000
    held-out rows; fit and predict time, peak memory, precision@k (mlnb's metrics on
    their top-5 lists). omikuji trains from a file in the Extreme Classification
    Repository's text format (written beforehand; its reading is in the fit time) and
    predicts one row per Python call.

One-row *learning* against river is measured by ``benchmarks/bench_online.py``, not here.

Measurements. Every case runs in its own child process (this script, the same interpreter)
with one BLAS thread (``OPENBLAS_NUM_THREADS=1`` and friends) and an address-space limit
(``resource.setrlimit(RLIMIT_AS)``, ``--memory-limit-gb``, default 8): a case that needs
more fails with ``MemoryError`` (or is killed), and is reported as such, the others run.
The child generates its data, warms up (fit and predict on 500 rows), releases free memory
(:mod:`_memory`), resets the kernel's high-water mark and then fits and predicts; the peak
is ``VmHWM`` (Linux), absolute and above the resident size before fitting. ``scale`` keeps
the best of ``--repeat`` fits and predictions (default 2; the peak is the first run's).

Usage::

    python benchmarks/bench_scale.py [--quick] [--extreme] [--parts scale latency ...]
        [--memory-limit-gb 8] [--repeat 2] [--xmc-python /tmp/xmc-venv/bin/python]
        [--save results.json]
    python benchmarks/bench_scale.py --load results.json   # re-render only

The report (markdown tables, the targets' verdicts) goes to standard output.

with the other libraries installed apart::

    python -m venv /tmp/xmc-venv
    /tmp/xmc-venv/bin/pip install napkinxc omikuji numpy scipy

``--quick`` shrinks every part (a smoke run of about a minute). On the 2-core machine the
default run takes about 4 minutes; ``--xmc-python`` adds about 8 (the tree models on the
medium data), ``--extreme`` about 2 for mlnb and 10 for the tree models.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy
import scipy.sparse as sp

from _machine import cpu_name
from _memory import peak_rss_kib, release_free_memory, reset_peak_rss, rss_kib

REPO = Path(__file__).resolve().parents[1]
PARTS = ("scale", "latency", "extreme", "topk_rows", "xmc")
K = 5
#: Environment of every child: one thread for BLAS and OpenMP.
ONE_THREAD = dict.fromkeys(
    ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"), "1"
)

#: (n_samples, n_features, n_labels) of the scaling runs: a base point and four values of
#: each dimension (the others at the base), and the held-out rows whose top 5 are timed.
#: Every point has more than 2**24 label-feature pairs: the compact form throughout.
SCALE = {
    "default": {
        "base": (20_000, 20_000, 2_000),
        "predicted": 10_000,
        "n_samples": (10_000, 20_000, 40_000, 80_000),
        "n_features": (10_000, 20_000, 40_000, 80_000),
        "n_labels": (1_000, 2_000, 4_000, 8_000),
    },
    "quick": {
        "base": (4_000, 10_000, 2_000),
        "predicted": 2_000,
        "n_samples": (2_000, 4_000, 8_000),
        "n_features": (10_000, 20_000, 40_000),
        "n_labels": (2_000, 4_000, 8_000),
    },
}
#: (n_samples, n_features, n_labels) of the one-row latency model; rows predicted.
LATENCY = {"default": ((20_000, 100_000, 100), 1000), "quick": ((5_000, 100_000, 100), 1000)}
#: Sizes of the extreme-label data: (n_samples, n_features, n_labels, held-out rows).
EXTREME = {
    "medium": (100_000, 50_000, 2_000, 10_000),
    "extreme": (100_000, 50_000, 20_000, 10_000),
    "quick": (10_000, 10_000, 2_000, 2_000),
}
#: The top-k memory case: model (n, d, L) and the numbers of rows predicted.
TOPK_ROWS = {
    "default": ((20_000, 50_000, 2_000), (10_000, 100_000)),
    "quick": ((5_000, 10_000, 2_000), (2_000, 20_000)),
}
SEED = 0


# ---- what a model holds --------------------------------------------------------------------------
def model_nbytes(obj, _seen=None):
    """Bytes of the numpy arrays and scipy sparse matrices reachable from ``obj``.

    Walks attributes (``__dict__``, ``__slots__``), dicts, lists and tuples recursively,
    counting each object once (an array shared by two attributes, a view of a counted
    array's memory, counts once only as far as ``id`` tells: views are counted apart).

    >>> import numpy as np
    >>> class Model:
    ...     pass
    >>> m = Model(); m.a_ = np.zeros(10); m.parts_ = [np.zeros(5), {"b": m.a_}]
    >>> model_nbytes(m)
    120
    """
    seen = set() if _seen is None else _seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if sp.issparse(obj):
        return sum(model_nbytes(getattr(obj, name, None), seen) for name in _SPARSE_PARTS)
    if isinstance(obj, dict):
        return sum(model_nbytes(value, seen) for value in obj.values())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return sum(model_nbytes(value, seen) for value in obj)
    if isinstance(obj, (str, bytes, int, float, complex, bool, type(None), type)):
        return 0
    total = 0
    if hasattr(obj, "__dict__"):
        total += model_nbytes(vars(obj), seen)
    for name in getattr(type(obj), "__slots__", ()):
        total += model_nbytes(getattr(obj, name, None), seen)
    return total


_SPARSE_PARTS = ("data", "indices", "indptr", "row", "col", "offsets")


def model_form(model):
    """ "compact" when the fitted statistics are kept sparse (large label spaces), else
    "dense"."""
    return "compact" if getattr(model.feature_stats_, "compact", False) else "dense"


def nonzero_statistics(model):
    """Non-zero per-label feature sums of a fitted NB model (``feature_stats_.sums``, dense
    or sparse); None if it has none."""
    sums = getattr(getattr(model, "feature_stats_", None), "sums", None)
    if sums is None:
        return None
    return int(sums.nnz if sp.issparse(sums) else np.count_nonzero(sums))


def fitted_exponent(sizes, values):
    """``b`` of ``value ~ size**b`` (least squares on logs); None with < 2 positive points."""
    points = [(s, v) for s, v in zip(sizes, values, strict=True) if v is not None and v > 0]
    if len(points) < 2:
        return None
    x, y = np.log([p[0] for p in points]), np.log([p[1] for p in points])
    return float(np.polyfit(x, y, 1)[0])


# ---- child processes -----------------------------------------------------------------------------
def limit_memory(gib):
    """Cap this process's address space at ``gib`` GiB (allocations beyond fail)."""
    import resource

    global _LIMIT_GIB
    limit = int(gib * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    _LIMIT_GIB = gib


_LIMIT_GIB = None


def memory_error(error):
    """What a case that ran out of memory reports: the limit and numpy's message."""
    limit = f" at the {_LIMIT_GIB:g} GiB limit" if _LIMIT_GIB else ""
    detail = str(error).split(" for an array")[0]
    return f"MemoryError{limit}" + (f" ({detail})" if detail else "")


def generate(n, d, L, n_test=0):
    """Generated extreme-label data: ``X, Y`` of n + n_test rows (seed ``SEED``)."""
    from mlnb.datasets import make_extreme_multilabel

    return make_extreme_multilabel(n + n_test, d, L, random_state=SEED)


def make_model():
    from mlnb import BinaryRelevance

    return BinaryRelevance(events="multinomial", rule="predict")


def warm_up(X, Y):
    """Fit and predict on a few rows: one-time costs of the process before the clock."""
    make_model().fit(X[:500], Y[:500]).predict_top_k(X[:100], K)


class Meter:
    """Peak resident memory from now: ``mib()`` above the start, ``absolute_gib()``."""

    def __init__(self):
        release_free_memory()
        self.baseline = rss_kib()
        self.can_reset = reset_peak_rss()

    def mib(self):
        return (peak_rss_kib() - self.baseline) / 1024 if self.can_reset else None

    def absolute_gib(self):
        return peak_rss_kib() / 2**20


def _seconds(run):
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def run_scale(n, d, L, n_test, repeat):
    """Fit on n rows and top-5 of ``n_test`` others, best of ``repeat``; memory of the
    first run."""
    X, Y = generate(n, d, L, n_test)
    X, Y, X_test = X[:n], Y[:n], X[n:]
    warm_up(X, Y)
    meter = Meter()
    result = {"nnz_x": int(X.nnz)}
    fits, predicts = [], []
    for run in range(repeat):
        model = make_model()
        fits.append(_seconds(lambda model=model: model.fit(X, Y))[0])
        predicts.append(_seconds(lambda model=model: model.predict_top_k(X_test, K))[0])
        if run == 0:  # the model with what its first prediction cached
            result["peak_mib"] = meter.mib()
            result["model_mib"] = model_nbytes(model) / 2**20
            result["nonzero_stats"] = nonzero_statistics(model)
            result["form"] = model_form(model)
    return {**result, "fit": min(fits), "predict": min(predicts)}


def run_latency(n, d, L, n_rows, repeat):
    """One-row and ``n_rows``-row prediction against the weight-table floor."""
    X, Y = generate(n, d, L, n_rows)
    X_train, Y_train, X_rows = X[:n], Y[:n], X[n:]
    model = make_model().fit(X_train, Y_train)
    W = np.ascontiguousarray(np.random.default_rng(0).standard_normal((d, L)))
    singles = [X_rows[i : i + 1] for i in range(n_rows)]
    one_row = {
        "predict": model.predict,
        "decision_function": model.decision_function,
        f"predict_top_k(k={K})": lambda x: model.predict_top_k(x, K),
        "floor: x @ W (scipy)": lambda x: x @ W,
        "floor: x.data @ W[x.indices]": lambda x: x.data @ W[x.indices],
    }
    for method in one_row.values():  # warm-up: the weight table is built on the first call
        method(singles[0])
    block = 100
    calls = {name: [] for name in one_row}
    many = {name: [] for name in ("predict", "decision_function", f"predict_top_k(k={K})")}
    many["floor: X @ W (scipy)"] = []
    for r in range(repeat):
        for name, method in one_row.items():  # the methods take turns, a block each
            for x in singles[(r * block) % n_rows :][:block]:
                start = time.perf_counter()
                method(x)
                calls[name].append(time.perf_counter() - start)
        for name in many:
            method = one_row.get(name) or one_row["floor: x @ W (scipy)"]
            many[name].append(_seconds(lambda method=method: method(X_rows))[0])
    one = {name: float(np.median(times)) for name, times in calls.items()}
    floor_one = min(v for name, v in one.items() if name.startswith("floor"))
    rows = {name: min(times) for name, times in many.items()}
    return {
        "one_row": one,
        "one_row_floor": floor_one,
        "one_row_calls": len(calls["predict"]),
        "rows": rows,
        "rows_floor": rows["floor: X @ W (scipy)"],
        "n_rows": n_rows,
        "nnz_per_row": X_rows.nnz / n_rows,
        "form": model_form(model),
    }


def run_extreme(n, d, L, n_test, data_out=None):
    """Fit on n rows, top-5 of all n + n_test rows; precision@k of the held-out rows."""
    from mlnb.metrics import ndcg_at_k, precision_at_k

    X, Y = generate(n, d, L, n_test)
    if data_out:
        save_split(data_out, X, Y, n)
    X_test, Y_test = X[n:], Y[n:]
    warm_up(X, Y)
    result = {"nnz_x": int(X.nnz), "labels_with_rows": int(np.count_nonzero(Y[:n].getnnz(0)))}
    meter = Meter()
    result["data_gib"] = meter.baseline / 2**20
    model = make_model()
    try:
        result["fit"] = _seconds(lambda: model.fit(X[:n], Y[:n]))[0]
        result["model_mib"] = model_nbytes(model) / 2**20
        result["nonzero_stats"] = nonzero_statistics(model)
        result["form"] = model_form(model)
        result["predict_all"], top = _seconds(lambda: model.predict_top_k(X, K))
        result["predict_test"], top_test = _seconds(lambda: model.predict_top_k(X_test, K))
        result["model_after_predict_mib"] = model_nbytes(model) / 2**20
    except MemoryError as error:
        result["error"] = memory_error(error)
    result["peak_mib"] = meter.mib()
    result["peak_gib"] = meter.absolute_gib()
    if "error" not in result:
        for k in (1, 3, 5):
            result[f"p@{k}"] = float(precision_at_k(Y_test, top_test, k=k))
        result["ndcg@5"] = float(ndcg_at_k(Y_test, top_test, k=5))
        result["train_p@1"] = float(precision_at_k(Y[:n], top[:n], k=1))
    model = top = top_test = None
    release_free_memory()
    result["sparse_stats"] = int((Y[:n].T.astype(np.float64) @ X[:n]).nnz)  # nnz(Y.T @ X)
    return result


def run_topk_rows(n, d, L, n_rows):
    """Peak memory of predict_top_k alone on ``n_rows`` rows."""
    X, Y = generate(n, d, L, n_rows)
    model = make_model().fit(X[:n], Y[:n])
    model.predict_top_k(X[:100], K)  # the weight table is built here, outside the peak
    X_rows = X[n:]
    del X, Y
    meter = Meter()
    seconds, top = _seconds(lambda: model.predict_top_k(X_rows, K))
    result_mib = model_nbytes(top) / 2**20
    return {"predict": seconds, "peak_mib": meter.mib(), "result_mib": result_mib,
            "form": model_form(model)}  # fmt: skip


def save_split(path, X, Y, n):
    """The data of the extreme case for the other libraries: CSR parts, n training rows."""
    np.savez(
        path,
        n=n,
        shape=X.shape,
        n_labels=Y.shape[1],
        **{f"X_{p}": getattr(X, p) for p in ("data", "indices", "indptr")},
        **{f"Y_{p}": getattr(Y, p) for p in ("indices", "indptr")},
    )


def load_split(path):
    """``X, Y`` (CSR) and the number of training rows, from :func:`save_split`."""
    data = np.load(path)
    X = sp.csr_matrix((data["X_data"], data["X_indices"], data["X_indptr"]), shape=data["shape"])
    Y_shape = (X.shape[0], int(data["n_labels"]))
    ones = np.ones(data["Y_indices"].size, dtype=np.uint8)
    Y = sp.csr_matrix((ones, data["Y_indices"], data["Y_indptr"]), shape=Y_shape)
    return X, Y, int(data["n"])


# ---- napkinXC and omikuji (run by the other environment's Python) -------------------------------
def run_xmc(library, data_file, top_out):
    """Train ``library``'s tree model on the saved data, top-5 of the held-out rows (saved
    as an (n_test, 5) int array in ``top_out``). Needs numpy, scipy and the library only."""
    X, Y, n = load_split(data_file)
    X_train, X_test = X[:n], X[n:]
    labels = np.split(Y.indices[: Y.indptr[n]], Y.indptr[1:n])
    with tempfile.TemporaryDirectory() as folder:
        if library == "napkinxc":
            from napkinxc.models import PLT

            release_free_memory()
            base = rss_kib()
            reset_peak_rss()
            model = PLT(folder, threads=1, seed=SEED)
            fit = _seconds(lambda: model.fit(X_train, [list(map(int, row)) for row in labels]))[0]
            predict, top = _seconds(lambda: model.predict(X_test, top_k=K))
        else:
            import omikuji

            path = Path(folder) / "train.txt"
            write_xmc_text(path, X_train, labels, Y.shape[1])
            release_free_memory()
            base = rss_kib()
            reset_peak_rss()
            fit, model = _seconds(lambda: omikuji.Model.train_on_data(str(path), n_threads=1))
            model.init_prediction_thread_pool(1)
            rows = [list(zip(r.indices.tolist(), r.data.tolist(), strict=True)) for r in X_test]
            predict, top = _seconds(
                lambda: [[j for j, _ in model.predict(r, top_k=K)] for r in rows]
            )
        peak = (peak_rss_kib() - base) / 1024
    top = np.array([list(row) + [-1] * (K - len(row)) for row in top], dtype=np.int64)
    np.save(top_out, top)
    return {"fit": fit, "predict": predict, "peak_mib": peak}


def write_xmc_text(path, X, labels, n_labels):
    """X and its label lists in the Extreme Classification Repository's text format."""
    with open(path, "w") as out:
        out.write(f"{X.shape[0]} {X.shape[1]} {n_labels}\n")
        for row, row_labels in zip(X, labels, strict=True):
            words = " ".join(f"{j}:{v:g}" for j, v in zip(row.indices, row.data, strict=True))
            out.write(f"{','.join(map(str, row_labels))} {words}\n")


def child(args):
    """Entry point of a child process: one case, its result as JSON in ``args.out``."""
    case = json.loads(args.child)
    part, params = case["part"], case["params"]
    if args.memory_limit_gb:
        limit_memory(args.memory_limit_gb)
    runs = {
        "scale": run_scale,
        "latency": run_latency,
        "extreme": run_extreme,
        "topk_rows": run_topk_rows,
        "xmc": run_xmc,
    }
    try:
        result = runs[part](*params)
    except MemoryError as error:
        result = {"error": memory_error(error)}
        if part != "xmc":
            result["peak_gib"] = peak_rss_kib() / 2**20
    Path(args.out).write_text(json.dumps(result))


def spawn(part, params, args, python=None):
    """Run one case in a child process; its result, or ``{"error": ...}`` if it failed."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "result.json"
        case = json.dumps({"part": part, "params": params})
        command = [python or sys.executable, __file__, "--child", case, "--out", str(out)]
        command += ["--memory-limit-gb", str(args.memory_limit_gb)]
        start = time.perf_counter()
        completed = subprocess.run(
            command, capture_output=True, text=True, env={**os.environ, **ONE_THREAD}
        )
        elapsed = time.perf_counter() - start
        if completed.returncode == 0:
            result = json.loads(out.read_text())
        else:
            tail = completed.stderr.strip().splitlines()[-3:]
            reason = tail[-1] if tail else f"killed by signal {-completed.returncode}"
            if completed.returncode < 0:
                reason = f"killed by signal {-completed.returncode}"
            result = {"error": reason}
            print("\n".join(f"    | {line}" for line in tail), file=sys.stderr)
    label = " ".join(map(str, params[:4])) if part != "xmc" else params[0]
    status = result.get("error", "done")
    print(f"  {part:<9} {label:<32} {status} in {elapsed:6.1f} s", flush=True)
    return result


# ---- the run -------------------------------------------------------------------------------------
def machine_info(args):
    """Machine, versions and settings, for the report."""
    import mlnb

    memory = Path("/proc/meminfo").read_text().split("\n")[0].split()[1]
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu_name(),
        "cores": os.cpu_count(),
        "memory": f"{int(memory) / 2**20:.0f} GiB",
        "load": " ".join(f"{v:.2f}" for v in os.getloadavg()),
        "versions": f"mlnb {mlnb.__version__}, numpy {np.__version__}, "
        f"scipy {scipy.__version__}, Python {platform.python_version()}",
        "commit": source_revision(),
        "memory_limit_gb": args.memory_limit_gb,
        "quick": args.quick,
    }


def source_revision():
    """The repository's commit, marked when ``src/`` differs from it (read-only git calls)."""

    def git(*arguments):
        command = ["git", "-C", str(REPO), *arguments]
        return subprocess.run(command, capture_output=True, text=True, check=False)

    head = git("rev-parse", "--short", "HEAD")
    if head.returncode != 0:
        return "unknown"
    changed = git("diff", "--quiet", "HEAD", "--", "src").returncode != 0
    return head.stdout.strip() + (" + uncommitted changes in src/" if changed else "")


def xmc_versions(python):
    """Versions of napkinXC and omikuji in the other environment (None: not importable)."""
    code = (
        "import json, importlib.metadata as m\n"
        "out = {}\n"
        "for name, module in (('napkinxc', 'napkinxc.models'), ('omikuji', 'omikuji')):\n"
        "    try:\n"
        "        __import__(module); out[name] = m.version(name)\n"
        "    except Exception as e:\n"
        "        out[name] = None\n"
        "print(json.dumps(out))"
    )
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
    return json.loads(done.stdout) if done.returncode == 0 else {}


def run_extreme_and_xmc(name, args, results, folder):
    """The extreme case ``name`` for mlnb, then (``--xmc-python``) the tree models."""
    n, d, L, n_test = EXTREME[name]
    data_file = str(Path(folder) / f"{name}.npz") if "xmc" in args.parts else None
    results["extreme"][name] = spawn("extreme", [n, d, L, n_test, data_file], args)
    if not data_file or not Path(data_file).exists() or not args.xmc_python:
        return
    from mlnb.metrics import ndcg_at_k, precision_at_k

    _, Y, n_train = load_split(data_file)
    Y_test = Y[n_train:]
    for library, version in results["xmc_versions"].items():
        if version is None:
            continue
        top_file = str(Path(folder) / f"{name}-{library}.npy")
        result = spawn("xmc", [library, data_file, top_file], args, python=args.xmc_python)
        if "error" not in result:
            top = np.load(top_file)
            scores = top_k_matrix(top, Y.shape[1])
            for k in (1, 3, 5):
                result[f"p@{k}"] = float(precision_at_k(Y_test, scores, k=k))
            result["ndcg@5"] = float(ndcg_at_k(Y_test, scores, k=5))
        results["xmc"].setdefault(name, {})[library] = result


def top_k_matrix(top, n_labels):
    """Ranked label lists (n, k; -1 = none) as a sparse score matrix: k - rank."""
    n, k = top.shape
    rows, ranks = np.nonzero(top >= 0)
    scores = sp.csr_matrix(
        ((k - ranks).astype(np.float64), (rows, top[rows, ranks])), shape=(n, n_labels)
    )
    return scores


def run_all(args):
    """Every selected part, one child process after the other."""
    size = "quick" if args.quick else "default"
    results = {"machine": machine_info(args), "scale": {}, "extreme": {}, "xmc": {}}
    results["xmc_versions"] = xmc_versions(args.xmc_python) if args.xmc_python else {}
    print(f"{results['machine']['date']}, load average {results['machine']['load']}")
    if "scale" in args.parts:
        grid = SCALE[size]
        for axis, dimension in enumerate(("n_samples", "n_features", "n_labels")):
            rows = []
            for value in grid[dimension]:
                shape = list(grid["base"])
                shape[axis] = value
                params = [*shape, grid["predicted"], args.repeat]
                rows.append({"size": value, **spawn("scale", params, args)})
            results["scale"][dimension] = {"base": grid["base"], "rows": rows,
                                           "predicted": grid["predicted"]}  # fmt: skip
    if "latency" in args.parts:
        shape, n_rows = LATENCY[size]
        repeat = 10 if args.quick else 40
        results["latency"] = {"shape": shape, **spawn("latency", [*shape, n_rows, repeat], args)}
    if "topk_rows" in args.parts:
        shape, row_counts = TOPK_ROWS[size]
        results["topk_rows"] = {
            "shape": shape,
            "rows": [{"n_rows": r, **spawn("topk_rows", [*shape, r], args)} for r in row_counts],
        }
    names = ["quick"] if args.quick else ["medium"] + (["extreme"] if args.extreme else [])
    if "extreme" in args.parts:
        with tempfile.TemporaryDirectory() as folder:
            for name in names:
                run_extreme_and_xmc(name, args, results, folder)
    results["machine"]["load_end"] = " ".join(f"{v:.2f}" for v in os.getloadavg())
    return results


# ---- the report ----------------------------------------------------------------------------------
def _f(value, digits=2, scale=1.0):
    """A number for a table; "—" when missing."""
    return "—" if value is None else f"{value * scale:,.{digits}f}"


def _verdict(ok):
    return "**met**" if ok else "**not met**"


def report_scale(results, lines):
    """Tables of the scaling runs and their exponents."""
    for dimension, block in results["scale"].items():
        base = dict(zip(("n_samples", "n_features", "n_labels"), block["base"], strict=True))
        fixed = ", ".join(f"{k}={v:,}" for k, v in base.items() if k != dimension)
        lines += [
            f"\n{dimension} grows ({fixed}):\n",
            f"| {dimension} | form | fit (s) | top-5 of {block.get('predicted', 0):,} rows (s) "
            "| peak above start (MiB) "
            "| model (MiB) | non-zero statistics | model bytes / non-zero |",
            "|---|---|---|---|---|---|---|---|",
        ]
        rows = block["rows"]
        for row in rows:
            if "error" in row:
                lines.append(f"| {row['size']:,} | | {row['error']} |  |  |  |  |  |")
                continue
            per_nonzero = row["model_mib"] * 2**20 / row["nonzero_stats"]
            lines.append(
                f"| {row['size']:,} | {row.get('form', '?')} | {_f(row['fit'])} "
                f"| {_f(row['predict'])} "
                f"| {_f(row['peak_mib'], 0)} | {_f(row['model_mib'], 0)} "
                f"| {row['nonzero_stats']:,} | {per_nonzero:,.0f} |"
            )
        sizes = [row["size"] for row in rows]

        def exponent(key, rows=rows, sizes=sizes):
            return _f(fitted_exponent(sizes, [row.get(key) for row in rows]))

        lines.append(
            f"| **exponent** | | {exponent('fit')} | {exponent('predict')} "
            f"| {exponent('peak_mib')} | {exponent('model_mib')} "
            f"| {exponent('nonzero_stats')} |  |"
        )


def report_latency(results, lines):
    """One-row and 1000-row prediction against the floor, and the two latency targets."""
    block = results["latency"]
    if "error" in block:
        lines.append(f"\nlatency: {block['error']}")
        return
    n, d, L = block["shape"]
    lines += [
        f"\nPrediction, {L} labels x {d:,} features ({block.get('form', '?')} model fitted on "
        f"{n:,} rows; "
        f"{block['nnz_per_row']:.0f} non-zeros a row; median of {block['one_row_calls']:,} "
        f"one-row calls, best of the {block['n_rows']}-row runs):\n",
        f"| method | one row (µs) | / floor | {block['n_rows']} rows (ms) | / floor |",
        "|---|---|---|---|---|",
    ]
    floor_one, floor_rows = block["one_row_floor"], block["rows_floor"]
    for name, seconds in block["one_row"].items():
        rows = block["rows"].get(name)
        if name.startswith("floor: x @ W"):
            rows = block["rows_floor"]
        lines.append(
            f"| {name} | {_f(seconds, 1, 1e6)} | {_f(seconds / floor_one)} "
            f"| {_f(rows, 2, 1e3)} | {_f(None if rows is None else rows / floor_rows)} |"
        )
    one, many = block["one_row"]["predict"], block["rows"]["predict"] / floor_rows
    lines += [
        f"\n- one-row `predict` at most 50 µs: {_verdict(one <= 50e-6)} ({one * 1e6:.1f} µs)",
        f"- {block['n_rows']} rows at most 1.5x the floor: {_verdict(many <= 1.5)} ({many:.2f}x)",
    ]


def report_extreme(results, lines):
    """The extreme-label cases (mlnb, then the tree models) and the memory targets."""
    lines += [
        "\n| data: rows (+ held out) x features x labels | library | fit (s) "
        "| top-5, every row (s) | top-5, held-out rows (s) | peak, process (GiB) "
        "| peak above data (GiB) | model (MiB) | non-zero statistics | nnz(Y.T @ X) "
        "| P@1 | P@3 | P@5 | nDCG@5 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, row in results["extreme"].items():
        n, d, L, n_test = EXTREME[name]
        shape = f"{name}: {n:,} (+{n_test:,}) x {d:,} x {L:,}"
        if "error" in row:
            lines.append(
                f"| {shape} | mlnb BR | {row['error']} "
                f"(peak {_f(row.get('peak_gib'))} GiB) |  |  |  |  |  |  | "
                f"{row.get('sparse_stats', 0):,} |  |  |  |  |"
            )
        else:
            timing = f"{_f(row['predict_all'])} | {_f(row['predict_test'])}"
            library = f"mlnb BR ({row.get('form', '?')})"
            lines.append(
                f"| {shape} | {library} | {_f(row['fit'])} | {timing} | {_f(row['peak_gib'])} "
                f"| {_f(row['peak_mib'], 2, 1 / 1024)} | {_f(row['model_after_predict_mib'], 0)} "
                f"| {row['nonzero_stats']:,} | {row['sparse_stats']:,} | {_f(row['p@1'], 3)} "
                f"| {_f(row['p@3'], 3)} | {_f(row['p@5'], 3)} | {_f(row['ndcg@5'], 3)} |"
            )
        for library, other in results["xmc"].get(name, {}).items():
            version = results["xmc_versions"].get(library)
            if "error" in other:
                lines.append(f"| {shape} | {library} {version} | {other['error']} |" + " |" * 11)
                continue
            lines.append(
                f"| {shape} | {library} {version} | {_f(other['fit'])} "
                f"| — | {_f(other['predict'])} | — | {_f(other['peak_mib'], 2, 1 / 1024)} | — "
                f"| — | — | {_f(other['p@1'], 3)} | {_f(other['p@3'], 3)} "
                f"| {_f(other['p@5'], 3)} | {_f(other['ndcg@5'], 3)} |"
            )
    for name, row in results["extreme"].items():
        fits = "error" not in row and row["peak_gib"] <= 8
        figure = row.get("error") or f"peak {row['peak_gib']:.2f} GiB"
        lines.append(
            f"\n- {name}: fit and top-5 of every row within 8 GiB: {_verdict(fits)} ({figure})"
        )
        if "error" not in row:
            ratio = row["model_after_predict_mib"] * 2**20 / row["sparse_stats"]
            lines.append(f"- {name}: model bytes per non-zero of Y.T @ X: {ratio:,.0f}")


def report_topk_rows(results, lines):
    """Peak memory of top-k as the rows grow."""
    block = results["topk_rows"]
    n, d, L = block["shape"]
    lines += [
        f"\n`predict_top_k(k={K})` alone, model of {L:,} labels x {d:,} features fitted on "
        f"{n:,} rows ({block['rows'][0].get('form', '?')}):\n",
        "| rows | time (s) | peak above start (MiB) | result (MiB) |",
        "|---|---|---|---|",
    ]
    for row in block["rows"]:
        if "error" in row:
            lines.append(f"| {row['n_rows']:,} | {row['error']} |  |  |")
            continue
        lines.append(
            f"| {row['n_rows']:,} | {_f(row['predict'])} | {_f(row['peak_mib'], 1)} "
            f"| {_f(row['result_mib'], 1)} |"
        )
    first, last = block["rows"][0], block["rows"][-1]
    if "peak_mib" in first and "peak_mib" in last:
        added = last["n_rows"] - first["n_rows"]
        growth = (last["peak_mib"] - first["peak_mib"]) * 2**20 / added
        result = (last["result_mib"] - first["result_mib"]) * 2**20 / added
        lines.append(
            f"\n- top-k memory flat in the rows (the peak grows by less than a tenth of what "
            f"the {L:,} dense scores of each added row would take): "
            f"{_verdict(growth <= 0.8 * L)} ({growth:,.0f} bytes per added row; the result "
            f"holds {result:,.0f}, dense scores would take {8 * L:,})"
        )


def report(results):
    """The results as markdown (tables and the targets' verdicts)."""
    machine = results["machine"]
    lines = [
        f"Run of {machine['date']} on {machine['cpu']} ({machine['cores']} cores, "
        f"{machine['memory']}), load {machine['load']} -> {machine.get('load_end', '?')}; "
        f"{machine['versions']}; commit {machine['commit']}; one BLAS thread; address space "
        f"limited to {machine['memory_limit_gb']} GiB per case"
        + ("; --quick" if machine["quick"] else "")
    ]
    if results.get("xmc_versions"):
        lines[0] += "; other libraries: " + ", ".join(
            f"{k} {v or 'not importable'}" for k, v in results["xmc_versions"].items()
        )
    if results.get("scale"):
        report_scale(results, lines)
    if results.get("latency"):
        report_latency(results, lines)
    if results.get("topk_rows"):
        report_topk_rows(results, lines)
    if results.get("extreme"):
        report_extreme(results, lines)
    return "\n".join(lines) + "\n"


def parse_args(argv=None):
    """Command-line options (the hidden ones drive the child processes)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument("--extreme", action="store_true", help="also 20,000 labels")
    parser.add_argument("--memory-limit-gb", type=float, default=8.0, help="per case (0: none)")
    parser.add_argument("--repeat", type=int, default=2, help="runs per scaling case")
    parser.add_argument("--xmc-python", help="a Python with napkinxc and/or omikuji")
    parser.add_argument("--save", type=Path, help="write the raw results (JSON)")
    parser.add_argument("--load", type=Path, help="report saved results instead of running")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv=None):
    """Run the benchmark (or one child case) and print the markdown report."""
    args = parse_args(argv)
    if args.child:
        child(args)
        return
    if args.load:
        results = json.loads(args.load.read_text())
    else:
        results = run_all(args)
        if args.save:
            args.save.write_text(json.dumps(results, indent=1))
    print()
    print(report(results))


if __name__ == "__main__":
    main()
