"""Multi-label Naive Bayes: mlnb against scikit-learn and scikit-multilearn, in one run.

Three benchmarks on delicious, bibtex, enron and yeast (``mlnb.datasets.load_dataset``,
train/test split of the data set); the event model is multinomial on the bag-of-words sets
and Gaussian on yeast (scikit-learn's ``MultinomialNB`` / ``GaussianNB`` on the other side):

``br``
    Binary relevance. mlnb ``BinaryRelevance`` against ``OneVsRestClassifier(NB())`` and
    scikit-multilearn's ``BinaryRelevance(NB())``. Also times the *floor*: the fastest form
    of one ``Y.T @ X`` product plus one ``X_test @ W.T`` with a dense ``W`` of shape
    (L, d), i.e. the two products no binary relevance NB can avoid. The predict_proba of
    every library is compared with mlnb's (largest absolute difference).
``cc``
    Classifier chain (greedy, order 0..L-1). mlnb ``ClassifierChain`` against
    ``sklearn.multioutput.ClassifierChain(NB(), order=None)`` and scikit-multilearn's
    ``ClassifierChain(NB())``. The models differ: mlnb's label features are Bernoulli,
    the other libraries append the labels as extra multinomial (Gaussian) features.
``ecc``
    Ensemble of 10 chains with random orders, each on a 66 % sample of the training rows
    drawn without replacement, majority vote of the 0/1 predictions. mlnb
    ``EnsembleClassifierChains(n_chains=10, random_state=0)`` against ten scikit-learn
    ``ClassifierChain(NB(), order="random")`` (:class:`SklearnECC`). scikit-multilearn has
    no ECC.

The chain benchmarks have a floor too (:func:`run_chain_floor`): fit is one grouping
product for the statistics (``Y.T @ [X Y]`` for a chain; for the ECC ``G.T @ [X Y]`` with
G holding each of the 10 samples' label columns and the sample itself), in the fastest of
several forms with its operands prepared beforehand (for the Gaussian also ``X**2``), plus
one ``np.log`` over the statistics; predict is the feature term of every chain's labels
(``X_test @ W.T``, Gaussian ``(X*X) @ A.T + X @ B.T``; stacked or per chain, whichever is
faster) plus the greedy chain steps (:func:`chain_steps`: per block of labels one product
with the earlier decisions, per label one matrix-vector product and one comparison; all
chains advanced together). Validation, sampling and building the operands are left out:
the floor is a lower bound. The targets table says for each set whether a target "g
times faster than scikit-learn" is reachable at all: scikit-learn / floor >= g.

Measurements. Every case (data set x benchmark x library) runs in its own child process
(the same interpreter, started by this script one case after the other), which loads the
data, then fits on the training split and predicts the test split ``--repeat`` times
(default 3) and keeps the best fit time and the best predict time; a case whose runs
already took ``--max-time`` seconds (default 120) stops repeating (on a 2-core machine:
scikit-learn's ECC on delicious, run once), and a fast case repeats until ``--min-time``
seconds (default 2; up to 200 runs).
Before the baseline and the clock, each case fits and predicts once on a few rows
(:func:`warm_up`): one-time costs of a process (OpenBLAS's buffers, lazily built caches)
then count for no library. ``--blas-threads N`` limits the BLAS of every case to N threads
(threadpoolctl; default: the libraries' default): on a 2-core machine shared with other
jobs, two OpenBLAS threads made mlnb's dense products up to 20x slower than one (their
threads wait for each other), which scikit-learn's NB, with no dense products, never pays.
Peak memory is the peak resident set size of the child during its first fit + predict,
above its resident size just before (Linux: after ``gc.collect()`` and glibc's
``malloc_trim(0)``, ``/proc/self/clear_refs`` resets the high-water mark, read as
``VmHWM``); isolation per process keeps one library's heap from hiding another's.
Quality: micro, macro and example-based ("samples") F1 (:func:`mlnb.metrics.f1_score`) of
the test predictions.

Label dtype. The data sets' label matrices are uint8. scikit-learn 1.9's
``OneVsRestClassifier`` silently mixes up the label columns of a uint8 indicator matrix with
more than 256 labels (its ``LabelBinarizer``; on delicious all but one of its 983 classifiers
become constant predictors and micro F1 drops from 0.21 to 0.03), so scikit-learn gets
``Y.astype(np.int64)`` (converted before the clock starts). mlnb and scikit-multilearn get
the uint8 matrix.

Constant labels. enron has one label that is constant (never set) in its training split;
the 66 % samples of the ECC can have more. scikit-learn's ``OneVsRestClassifier`` handles
them (constant predictor); its ``ClassifierChain`` fits and predicts with them but its
``predict_proba`` raises ``ValueError`` (one-column probabilities), so the chains are
compared on ``predict`` only, and nothing is dropped.

scikit-multilearn. Install 0.2.0 in a separate environment (it pins nothing and is
unmaintained)::

    python3 -m venv /work/bench-venv
    /work/bench-venv/bin/pip install scikit-learn numpy scipy scikit-multilearn==0.2.0 liac-arff
    /work/bench-venv/bin/pip install -e /work/main
    /work/bench-venv/bin/python benchmarks/bench_multilabel.py --markdown

Without it, its column is skipped with a message. With numpy 2.4, scipy 1.17 and
scikit-learn 1.9, ``skmultilearn.problem_transform`` imports and its ``BinaryRelevance`` and
``ClassifierChain`` fit and predict unpatched; this script applies, at import time and
without editing site-packages, exactly one patch (:func:`patch_skmultilearn`):

1. ``BinaryRelevance.predict_proba`` takes column ``[:, 1]`` of each label's
   ``predict_proba``, which raises ``IndexError`` for a label constant in the training data
   (its classifier has one class, one column; enron). The patched method takes the column
   of class 1 through ``classes_`` (0 when the label was never set, 1 when always set).

Not patched because this benchmark does not reach them: ``ClassifierChain.predict_proba``
has the same ``[:, 1]`` fault; ``MLClassifierBase`` lists ``BaseEstimator`` before
``ClassifierMixin``, so scikit-learn >= 1.6 tags its estimators as no classifier
(``is_classifier`` is False); ``skmultilearn.embedding`` imports the removed
``sklearn.externals.joblib``; ``skmultilearn.dataset`` and ``ext`` need ``requests``.
The sparse sets run scikit-multilearn with ``require_dense=[False, True]`` (sparse X to the
NB, dense 1-D y): its default densifies X for every label.

Usage::

    python benchmarks/bench_multilabel.py [--datasets delicious bibtex enron yeast]
        [--benchmarks br cc ecc] [--repeat 3] [--blas-threads 1] [--quick] [--markdown]
        [--save results.json]
    python benchmarks/bench_multilabel.py --load results.json --markdown   # re-render only

``--quick`` keeps the first 1000 training and 500 test rows of each data set (all labels):
a smoke run of a couple of minutes whose ratios are only indicative.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import scipy
import scipy.sparse as sp
import sklearn

from _machine import cpu_name
from _memory import peak_rss_kib, release_free_memory, reset_peak_rss, rss_kib
from _multilabel_cases import (
    BENCHMARKS,
    DATASETS,
    LIBRARIES,
    MAX_RUNS,
    library_available,
    load,
    make_model,
)
from _multilabel_floors import run_chain_floor, run_floor
from _multilabel_report import DOC, print_report, write_markdown

REPO = Path(__file__).resolve().parents[1]


# ---- data and measurement ------------------------------------------------------------------------
def dense(Y):
    """A 0/1 prediction as a dense int array, whatever the library returned."""
    return np.asarray(Y.toarray() if sp.issparse(Y) else Y).astype(int)


def f1_scores(Y_true, Y_pred):
    """Micro, macro and example-based F1 with mlnb's metrics (0/0 = 1 rule)."""
    from mlnb import metrics

    return {
        f"f1_{average}": float(metrics.f1_score(Y_true, Y_pred, average=average))
        for average in ("micro", "macro", "samples")
    }


WARM_UP_ROWS = (200, 50)


def warm_up(model, X, Y, X_test):
    """One fit + predict on a few rows, before the memory baseline and the clock.

    What the first call of a process pays once, whatever the data (OpenBLAS allocating its
    buffers on the first product, lazily built caches and dispatch tables of numpy, scipy
    and scikit-learn), is then outside the measured peak and the timed runs, for every
    library alike. Measured on yeast's ECC: scikit-learn's peak 6.7 -> 6.0 MiB, mlnb's
    9.6 -> 8.3 MiB (before this change's memory reductions). Failures (e.g. a slice with
    a label of one class that a library refuses) are ignored: warming up is best effort.
    """
    n, m = WARM_UP_ROWS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X[:n], Y[:n]).predict(X_test[:m])
    except Exception:  # best effort, see the docstring
        pass


def run_case(dataset, benchmark, library, args):
    """Fit and predict one case repeatedly (child process); returns the result dict."""
    X, Y, X_test, Y_test = load(dataset, args.quick)
    if library == "sklearn":
        # OneVsRestClassifier (LabelBinarizer) mixes up the label columns of a uint8
        # indicator matrix with more than 256 labels (scikit-learn 1.9; delicious).
        Y = Y.astype(np.int64)
    model = make_model(benchmark, library, dataset)
    if model is None:
        return None
    warm_up(model, X, Y, X_test)
    del model
    release_free_memory()
    baseline = rss_kib()
    can_reset = reset_peak_rss()
    fits, predicts, cpus, cpu_predicts, peak = [], [], [], [], None
    while True:
        model = make_model(benchmark, library, dataset)
        cpu = time.process_time()
        start = time.perf_counter()
        model.fit(X, Y)
        middle = time.perf_counter()
        cpu_middle = time.process_time()
        prediction = model.predict(X_test)
        stop = time.perf_counter()
        cpus.append(time.process_time() - cpu)
        cpu_predicts.append(time.process_time() - cpu_middle)
        if peak is None and can_reset:
            peak = (peak_rss_kib() - baseline) / 1024
        fits.append(middle - start)
        predicts.append(stop - middle)
        runs, total = len(fits), sum(fits) + sum(predicts)
        if total >= args.max_time or runs >= MAX_RUNS:
            break
        if runs >= args.repeat and total >= args.min_time:
            break
        del model, prediction
    result = {
        "fit": min(fits),
        "predict": min(predicts),
        "runs": len(fits),
        "cpu": min(cpus),
        "cpu_predict": min(cpu_predicts),
        "peak_mib": peak,
        **f1_scores(Y_test, dense(prediction)),
    }
    if benchmark == "br" and args.proba_out:
        proba = model.predict_proba(X_test)
        np.save(args.proba_out, dense_float(proba))
    return result


def dense_float(matrix):
    """A probability matrix as a dense float64 array."""
    return np.asarray(matrix.toarray() if sp.issparse(matrix) else matrix, dtype=np.float64)


def worker(args):
    """Entry point of a child process: one case, result as JSON in ``args.out``."""
    dataset, benchmark, library = args.case
    limit = contextlib.nullcontext()
    if args.blas_threads:
        from threadpoolctl import threadpool_limits

        limit = threadpool_limits(limits=args.blas_threads, user_api="blas")
    with limit:
        if library == "floor" and benchmark != "br":
            result = run_chain_floor(dataset, benchmark, args)
        elif library == "floor":
            result = run_floor(dataset, args)
        else:
            result = run_case(dataset, benchmark, library, args)
    Path(args.out).write_text(json.dumps(result))


def spawn(case, args, tmp):
    """Run one case in a child process; returns its result dict (or None: not available)."""
    out = Path(tmp) / ("-".join(case) + ".json")
    proba = Path(tmp) / ("-".join(case) + ".npy")
    command = [
        sys.executable,
        __file__,
        "--case",
        *case,
        "--out",
        str(out),
        "--proba-out",
        str(proba),
        "--repeat",
        str(args.repeat),
        "--min-time",
        str(args.min_time),
        "--max-time",
        str(args.max_time),
        "--blas-threads",
        str(args.blas_threads or 0),
    ]
    if args.quick:
        command.append("--quick")
    completed = subprocess.run(command, capture_output=True, text=True)
    if completed.returncode != 0:
        tail = "\n".join(completed.stderr.strip().splitlines()[-5:])
        print(f"  {'/'.join(case)} failed:\n{tail}", file=sys.stderr)
        return {"error": tail.splitlines()[-1] if tail else f"exit {completed.returncode}"}
    result = json.loads(out.read_text())
    if result is not None and proba.exists():
        result["proba_file"] = str(proba)
    return result


# ---- the run -------------------------------------------------------------------------------------
def machine_info():
    """Machine, library versions and BLAS, for the report."""
    from threadpoolctl import threadpool_info

    cpu = cpu_name()
    try:
        memory = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
        memory = f"{memory / 2**20:.0f} GiB"
    except (OSError, AttributeError):
        memory = "?"
    versions = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
    }
    try:
        from importlib.metadata import version

        versions["scikit-multilearn"] = version("scikit-multilearn")
    except Exception:
        versions["scikit-multilearn"] = "not installed"
    import mlnb

    versions["mlnb"] = getattr(mlnb, "__version__", "?")
    blas = [
        f"{pool.get('internal_api')} {pool.get('version')} ({pool.get('num_threads')} threads"
        + (f", {pool['architecture']}" if pool.get("architecture") else "")
        + ")"
        for pool in threadpool_info()
        if pool.get("user_api") == "blas"
    ]
    return {
        "commit": source_revision(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory": memory,
        "load": " ".join(f"{v:.2f}" for v in os.getloadavg()),
        "versions": versions,
        "blas": "; ".join(blas) or "?",
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
    changed |= bool(git("ls-files", "--others", "--exclude-standard", "--", "src").stdout.strip())
    return head.stdout.strip() + (" + uncommitted changes in src/" if changed else "")


def describe_data(dataset, quick):
    """One line on the shape of a data set's splits."""
    X, Y, X_test, _ = load(dataset, quick)
    kind = f"sparse, {X.nnz / X.shape[0]:.0f} nnz/row" if sp.issparse(X) else "dense"
    constant = int(np.sum(Y.min(axis=0) == Y.max(axis=0)))
    return {
        "train": X.shape[0],
        "test": X_test.shape[0],
        "features": X.shape[1],
        "labels": Y.shape[1],
        "kind": kind,
        "constant_labels": constant,
    }


def run_all(args):
    """Every selected case, one child process after the other; returns the results."""
    results = {"machine": machine_info(), "quick": args.quick, "data": {}, "cases": {}}
    results["machine"]["blas_threads"] = args.blas_threads or None
    libraries = [lib for lib in LIBRARIES if lib in args.libraries]
    if "skmultilearn" in libraries and not library_available("skmultilearn"):
        print("scikit-multilearn is not installed here: its column is skipped.")
        libraries.remove("skmultilearn")
    results["libraries"] = libraries
    print(f"{results['machine']['date']}, load average {results['machine']['load']}")
    with tempfile.TemporaryDirectory() as tmp:
        for dataset in args.datasets:
            results["data"][dataset] = describe_data(dataset, args.quick)
            for benchmark in args.benchmarks:
                targets = [*libraries, "floor"]
                for library in targets:
                    start = time.perf_counter()
                    result = spawn((dataset, benchmark, library), args, tmp)
                    if result is None:
                        continue
                    elapsed = time.perf_counter() - start
                    result["load"] = os.getloadavg()[0]
                    print(f"  {dataset:<9} {benchmark:<3} {library:<12} done in {elapsed:6.1f} s")
                    results["cases"][f"{dataset}/{benchmark}/{library}"] = result
                if benchmark == "br":
                    compare_probabilities(results["cases"], dataset, libraries)
    results["machine"]["load_end"] = " ".join(f"{v:.2f}" for v in os.getloadavg())
    return results


def compare_probabilities(cases, dataset, libraries):
    """Largest |predict_proba difference| of each BR library against mlnb's (in place)."""
    reference = cases.get(f"{dataset}/br/mlnb", {}).get("proba_file")
    if reference is None:
        return
    ours = np.load(reference)
    for library in libraries:
        case = cases.get(f"{dataset}/br/{library}", {})
        if library == "mlnb":
            continue
        if "proba_file" in case:
            case["max_dp"] = float(np.abs(np.load(case.pop("proba_file")) - ours).max())
    cases[f"{dataset}/br/mlnb"].pop("proba_file")


def parse_args(argv=None):
    """Command-line options (the hidden ones drive the child processes)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=list(DATASETS))
    parser.add_argument("--benchmarks", nargs="+", choices=BENCHMARKS, default=list(BENCHMARKS))
    parser.add_argument("--libraries", nargs="+", choices=LIBRARIES, default=list(LIBRARIES))
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (best kept)")
    parser.add_argument("--min-time", type=float, default=2.0, help="repeat fast cases to this")
    parser.add_argument("--max-time", type=float, default=120.0, help="stop repeating after")
    parser.add_argument(
        "--blas-threads",
        type=int,
        default=0,
        help="BLAS threads of every case (threadpoolctl; 0: the libraries' default)",
    )
    parser.add_argument("--quick", action="store_true", help="first 1000/500 rows only")
    parser.add_argument("--markdown", action="store_true", help=f"update {DOC.relative_to(REPO)}")
    parser.add_argument("--save", type=Path, help="write the raw results (JSON)")
    parser.add_argument("--load", type=Path, help="report saved results instead of running")
    parser.add_argument("--case", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--proba-out", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv=None):
    """Run the benchmark (or one child case) and report."""
    args = parse_args(argv)
    if args.case:
        worker(args)
        return
    if args.load:
        results = json.loads(args.load.read_text())
    else:
        results = run_all(args)
        if args.save:
            args.save.write_text(json.dumps(results, indent=1))
    print()
    print_report(results)
    if args.markdown:
        write_markdown(results)


if __name__ == "__main__":
    main()
