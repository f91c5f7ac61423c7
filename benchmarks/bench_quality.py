"""Prediction quality of mlnb's multi-label methods against scikit-learn's, in one run.

What is measured. On every multi-label data set that comes with a train/test split
(``mlnb.datasets.load_dataset`` returns a ``TrainTest`` pair: bibtex, delicious, emotions,
enron, medical, meka_music, reutersk500, scene, tmc2007, yeast; meka_yeast, the same data
as yeast with its labels in another order, is left out), each method is fitted on the
training part and predicts the test part. Reported per case: micro, macro and
example-based ("samples") F1 of the 0/1 predictions (:func:`mlnb.metrics.f1_score`: a
ratio 0/0 counts 1 when truth and prediction are both empty, i.e. scikit-learn's
``zero_division=1``), the ranking loss of the test label scores
(:func:`mlnb.metrics.label_ranking_loss`; a tie is a whole error), and the wall time of
``fit`` + ``predict`` (the scores for the ranking loss are computed afterwards and are not
timed).

The methods:

- mlnb: ``BinaryRelevance``, ``ClassifierChain``, ``EnsembleClassifierChains(n_chains=10)``,
  ``NaiBX``, ``IMLNB``, ``DynamicChain``, ``DynamicChainEnsemble(n_chains=10)`` and, on sets
  of at most 30 labels, ``LabelPowerset``; random_state=0 wherever there is one. Event
  model by the ``mlnb`` command's rule: multinomial on sparse non-negative features (the
  bag-of-words sets), Gaussian otherwise. Each at its own decision rule ("default": the
  0.5 rule for BR, CC, iMLNB, DC and the ensembles' vote, the size cascade for NaiBX, the
  most probable label set for LP) and wrapped as ``TunedThresholdsCV(method,
  strategy="auto", scoring="f1_micro", cv=5, random_state=0)`` ("tuned", with the rule it
  chose), with ``param_grid="auto"`` for the methods tuned by fold subtraction (BR, CC,
  NaiBX, iMLNB: the event model and smoothing are chosen with the rule, as ``mlnb evaluate
  --threshold tuned`` does). Scores: :func:`mlnb.selection.label_scores`.
- scikit-learn: ``OneVsRestClassifier(NB())`` and ``multioutput.ClassifierChain(NB(),
  order=None)`` with ``MultinomialNB`` on the bag-of-words sets and ``GaussianNB`` on the
  dense ones (scores: the log-odds of ``predict_proba``, saturated 0/1 probabilities at
  -745/+745); ``OneVsRestClassifier(LinearSVC())`` (scores: ``decision_function``) and
  ``OneVsRestClassifier(LogisticRegression(max_iter=1000))`` (scores: ``predict_proba``),
  each in a ``Pipeline`` behind a ``StandardScaler`` (``with_mean=False`` on sparse
  features), so their time includes the scaling. They get the labels as int64 (converted
  before the clock): scikit-learn 1.9's ``OneVsRestClassifier`` mixes up the columns of a
  uint8 indicator matrix of more than 256 labels (delicious).
- scikit-multilearn, when it can be imported (its own environment; it is not a dependency
  of mlnb): ``BinaryRelevance(NB())``, ``LabelPowerset(NB())``, ``MLkNN(k=10)``. When it
  cannot, those rows are left out and the report says so.

How. One process runs the cases one after the other; each case runs in a forked child
(the parent only waits), so that a case over its time budget (``--budget`` seconds, default
300) can be stopped; it is then reported as "over budget". ``--skip-slow`` also skips, without
running it, a tuned case of a method refitted per fold (ECC, DC, DCE, LP: 5 fold fits and
a final fit) when (1 + 0.8 x 5) times its default-rule case's time exceeds the budget, or
when that case was already over it. A case is timed up to ``--repeat`` times (default 3)
while its runs take less than ``--min-time`` seconds in all (default 5), and its best
fit + predict is kept (slow cases: one run). Every case's warnings are counted and listed.
Run with one BLAS thread (``OPENBLAS_NUM_THREADS=1`` etc.) on a shared machine.

    python benchmarks/bench_quality.py [--quick] [--datasets NAME ...] [--budget 300]
        [--skip-slow] [--skip SET/METHOD[/RULE] ...] [--only SET/METHOD[/RULE] ...]
        [--save results.json] [--load results.json] [--update results.json]
        [--markdown] [--plot]

``--quick``: emotions, yeast and medical only (a smoke run of a minute or two).
``--update results.json --only ...``: run only the named cases (e.g. with a larger budget)
and put them in place of the same cases of saved results; the report names the re-runs.
``--markdown`` writes the report between the markers of docs/quality.md; ``--plot`` writes
docs/quality/<set>.png (micro F1 against fit + predict time, log time axis, one labelled
point per case).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import re
import sys
import time
import traceback
import warnings
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import scipy
import scipy.sparse as sp
import sklearn
from scipy.special import logit
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier
from sklearn.multioutput import ClassifierChain as SklearnChain
from sklearn.naive_bayes import GaussianNB as SklearnGaussianNB
from sklearn.naive_bayes import MultinomialNB as SklearnMultinomialNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

import mlnb
from _machine import cpu_name
from mlnb.base import is_additive
from mlnb.datasets import TrainTest, list_datasets, load_dataset
from mlnb.metrics import f1_score, label_ranking_loss
from mlnb.selection import label_scores

try:
    import skmultilearn  # noqa: F401

    HAVE_SKMULTILEARN = True
except ImportError:
    HAVE_SKMULTILEARN = False

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "quality.md"
PLOTS = REPO / "docs" / "quality"
START, END = "<!-- bench_quality:start -->", "<!-- bench_quality:end -->"
QUICK = ("emotions", "yeast", "medical")
LP_MAX_LABELS = 30
CV = 5
SATURATED = 745.0
TIE = 0.005  # tuned "ties" its default rule within this
ACCURACY_TARGET, AVERAGE_TARGET, SPEED_TARGET = 0.95, 1.0, 20.0
# mlnb methods whose TunedThresholdsCV refits per fold (not additive statistics)
REFIT = ("ECC(10)", "DC", "DCE(10)", "LP")
REFERENCE = ("scikit-learn", "OvR-LinearSVC")


# ----------------------------------------------------------------------------- data


def dense(matrix):
    return matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)


def events_of(X):
    """The ``mlnb`` command's rule: multinomial for sparse non-negative X, else Gaussian."""
    if sp.issparse(X) and (X.nnz == 0 or X.data.min() >= 0):
        return "multinomial"
    return "gaussian"


def same_data(a, b):
    """Whether two TrainTest pairs hold the same rows, up to the order of the columns.

    (meka_yeast is Mulan's yeast with the labels in the ARFF's order rather than the XML's.)
    """

    def columns(x):
        x = np.ascontiguousarray(dense(x).T, dtype=np.float64)
        return sorted(column.tobytes() for column in x)

    def equal(x, y):
        return x.shape == y.shape and columns(x) == columns(y)

    return all(equal(p.X, q.X) and equal(p.Y, q.Y) for p, q in zip(a, b, strict=True))


def split_datasets(data_dir):
    """Every data set with a provided train/test split, smallest first; and the copies.

    Returns ``(pairs, notes)``: ``{name: TrainTest}`` and ``{name: why it was left out}``.
    """
    pairs, notes = {}, {}
    # Mulan's sets before MEKA's copies of them: the copy is the one left out
    for name in sorted(list_datasets(), key=lambda n: (n.startswith("meka_"), n)):
        try:
            loaded = load_dataset(name, data_dir)
        except Exception as error:  # a set that does not load is reported, not fatal
            notes[name] = f"does not load: {type(error).__name__}: {error}"
            continue
        if not isinstance(loaded, TrainTest) or loaded.train.Y.shape[1] < 2:
            continue
        copy = next((other for other, p in pairs.items() if same_data(p, loaded)), None)
        if copy is not None:
            notes[name] = f"the same data as {copy} (columns in another order)"
            continue
        pairs[name] = loaded
    order = sorted(pairs, key=lambda n: pairs[n].train.n_samples * pairs[n].train.n_labels)
    return {n: pairs[n] for n in order}, notes


def describe(pair):
    train, test = pair
    X = train.X
    kind = f"sparse, {X.nnz / X.shape[0]:.0f} nnz/row" if sp.issparse(X) else "dense"
    Y = np.asarray(train.Y)
    return {
        "train": train.n_samples,
        "test": test.n_samples,
        "features": train.n_features,
        "labels": train.n_labels,
        "cardinality": float(Y.sum(axis=1).mean()),
        "kind": kind,
        "events": events_of(X),
        "constant_labels": int(np.sum(Y.min(axis=0) == Y.max(axis=0))),
    }


# ----------------------------------------------------------------------------- methods


def tuned(estimator):
    """What ``mlnb evaluate --threshold tuned`` runs: the rule, and for the methods tuned
    by fold subtraction also the event model and smoothing (``param_grid="auto"``)."""
    return mlnb.TunedThresholdsCV(
        estimator,
        strategy="auto",
        scoring="f1_micro",
        cv=CV,
        random_state=0,
        param_grid="auto" if is_additive(estimator) else None,
    )


def mlnb_methods(events, n_labels):
    """name -> (factory, description of the default rule)."""
    methods = {
        "BR": (lambda: mlnb.BinaryRelevance(events=events), "0.5"),
        "CC": (lambda: mlnb.ClassifierChain(events=events), "0.5"),
        "ECC(10)": (
            lambda: mlnb.EnsembleClassifierChains(n_chains=10, events=events, random_state=0),
            "0.5 vote",
        ),
        "NaiBX": (lambda: mlnb.NaiBX(events=events), "size cascade"),
        "iMLNB": (lambda: mlnb.IMLNB(events=events), "0.5"),
        "DC": (lambda: mlnb.DynamicChain(events=events, random_state=0), "0.5"),
        "DCE(10)": (
            lambda: mlnb.DynamicChainEnsemble(n_chains=10, events=events, random_state=0),
            "0.5 mean",
        ),
    }
    if n_labels <= LP_MAX_LABELS:
        methods["LP"] = (lambda: mlnb.LabelPowerset(events=events), "MAP set")
    return methods


def sklearn_nb(events):
    return SklearnMultinomialNB() if events == "multinomial" else SklearnGaussianNB()


def scaler(sparse):
    return StandardScaler(with_mean=not sparse)


def competitor_methods(events, sparse):
    """(library, name) -> (factory, how its label scores are read)."""
    methods = {
        ("scikit-learn", "OvR-NB"): (lambda: OneVsRestClassifier(sklearn_nb(events)), "scores"),
        ("scikit-learn", "CC-NB"): (lambda: SklearnChain(sklearn_nb(events), order=None), "scores"),
        REFERENCE: (
            lambda: make_pipeline(scaler(sparse), OneVsRestClassifier(LinearSVC())),
            "decision_function",
        ),
        ("scikit-learn", "OvR-LogReg"): (
            lambda: make_pipeline(
                scaler(sparse), OneVsRestClassifier(LogisticRegression(max_iter=1000))
            ),
            "predict_proba",
        ),
    }
    if HAVE_SKMULTILEARN:
        from skmultilearn.adapt import MLkNN
        from skmultilearn.problem_transform import BinaryRelevance, LabelPowerset

        dense = [False, True] if sparse else [True, True]
        methods[("scikit-multilearn", "BR-NB")] = (
            lambda: BinaryRelevance(sklearn_nb(events), require_dense=dense),
            "skmultilearn",
        )
        methods[("scikit-multilearn", "LP-NB")] = (
            lambda: LabelPowerset(sklearn_nb(events), require_dense=dense),
            "skmultilearn",
        )
        methods[("scikit-multilearn", "MLkNN(k=10)")] = (lambda: MLkNN(k=10), "skmultilearn")
    return methods


def case_list(pair):
    """Every case of a data set, a default-rule case before its tuned one."""
    info = describe(pair)
    events, sparse = info["events"], info["kind"].startswith("sparse")
    cases = []
    for name, (factory, default_rule) in mlnb_methods(events, info["labels"]).items():
        cases.append({"library": "mlnb", "method": name, "rule": default_rule, "factory": factory})
        cases.append(
            {
                "library": "mlnb",
                "method": name,
                "rule": "tuned",
                "factory": lambda factory=factory: tuned(factory()),
            }
        )
    for (library, name), (factory, scores) in competitor_methods(events, sparse).items():
        cases.append(
            {
                "library": library,
                "method": name,
                "rule": "own",
                "factory": factory,
                "scores": scores,
            }
        )
    return cases


# ----------------------------------------------------------------------------- one case


def read_scores(model, X, how):
    """Finite label scores of a fitted model (see the module docstring)."""
    if how == "predict_proba":
        return np.asarray(model.predict_proba(X), dtype=np.float64)
    if how == "skmultilearn":
        proba = dense(model.predict_proba(X)).astype(np.float64)
        with np.errstate(divide="ignore"):
            return np.clip(logit(proba), -SATURATED, SATURATED)
    return label_scores(model, X)


def warning_key(w, where=""):
    """A warning's category and first line, numbers as N (one entry per kind of warning)."""
    text = re.sub(r"\d+(\.\d+)?", "N", str(w.message).splitlines()[0])[:160]
    return f"{w.category.__name__}{where}: {text}"


def run_case(case, pair, args):
    """Fit and predict (timed), then score; a dict of results (run in a child process)."""
    train, test = pair
    Y = np.asarray(train.Y)
    if case["library"] != "mlnb":
        Y = Y.astype(np.int64)  # see the module docstring (scikit-learn's uint8 fault)
    seen = Counter()
    best = None
    runs, spent = 0, 0.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        while runs < args.repeat and (runs == 0 or spent < args.min_time):
            model = case["factory"]()
            wall, cpu = time.perf_counter(), time.process_time()
            model.fit(train.X, Y)
            fitted = time.perf_counter()
            predictions = model.predict(test.X)
            done, cpu_done = time.perf_counter(), time.process_time()
            runs += 1
            spent += done - wall
            timing = (fitted - wall, done - fitted, cpu_done - cpu)
            if best is None or sum(timing[:2]) < sum(best[:2]):
                best = timing
        for w in caught:
            seen[warning_key(w)] += 1
        caught.clear()
        result = {
            "status": "ok",
            "fit_s": best[0],
            "predict_s": best[1],
            "total_s": best[0] + best[1],
            "cpu_s": best[2],
            "runs": runs,
        }
        P = dense(predictions).astype(np.int64)
        truth = np.asarray(test.Y)
        for average, key in (
            ("micro", "micro_f1"),
            ("macro", "macro_f1"),
            ("samples", "example_f1"),
        ):
            result[key] = float(f1_score(truth, P, average=average))
        result["predicted_cardinality"] = float(P.sum(axis=1).mean())
        try:
            scores = read_scores(model, test.X, case.get("scores", "scores"))
            nan = int(np.isnan(scores).sum())
            result["nan_scores"] = nan
            result["saturated"] = float(np.mean(np.abs(scores) >= SATURATED))
            if nan:
                result["ranking_loss"] = None
                result["score_error"] = f"{nan} NaN scores"
            else:
                result["ranking_loss"] = float(label_ranking_loss(truth, scores))
        except Exception as error:
            result["ranking_loss"] = None
            result["score_error"] = f"{type(error).__name__}: {str(error)[:200]}"
        for w in caught:
            seen[warning_key(w, " (scores)")] += 1
    result["warnings"] = dict(seen)
    if hasattr(model, "best_strategy_"):
        result["strategy"] = model.best_strategy_
        index = list(model.cv_results_["strategy"]).index(model.best_strategy_)
        result["cv_score"] = float(model.cv_results_["score"][index])
    return result


def child(connection, case, pair, args):
    try:
        result = run_case(case, pair, args)
    except BaseException as error:
        result = {
            "status": "error",
            "reason": f"{type(error).__name__}: {str(error)[:300]}",
            "traceback": traceback.format_exc()[-2000:],
        }
    connection.send(result)
    connection.close()


def run_isolated(case, pair, args):
    """``run_case`` in a forked child, stopped after ``args.budget`` seconds."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=child, args=(sender, case, pair, args))
    start = time.perf_counter()
    process.start()
    sender.close()
    if receiver.poll(args.budget):
        try:
            result = receiver.recv()
        except EOFError:
            result = {"status": "error", "reason": "the child process died"}
        process.join()
    else:
        process.kill()  # the child this function started, by its handle
        process.join()
        result = {"status": "over budget", "reason": f"stopped after {args.budget:.0f} s"}
    if process.exitcode not in (0, None) and result["status"] == "ok":
        result["status"] = "error"
        result["reason"] = f"child exit code {process.exitcode}"
    result["elapsed_s"] = time.perf_counter() - start
    return result


def slow_reason(case, done, args):
    """Why ``--skip-slow`` skips a tuned refit case (None: run it)."""
    if not args.skip_slow or case["rule"] != "tuned" or case["method"] not in REFIT:
        return None
    default = next(
        (r for r in done if r["library"] == "mlnb" and r["method"] == case["method"]), None
    )
    if default is None:
        return None
    if default["status"] == "over budget":
        return f"its default-rule case was over the {args.budget:.0f} s budget"
    if default["status"] != "ok":
        return None
    estimate = (1 + 0.8 * CV) * default["total_s"]
    if estimate > args.budget:
        return f"estimated {estimate:.0f} s ((1 + 0.8 x {CV}) x default) > {args.budget:.0f} s"
    return None


def skipped_by_option(dataset, case, patterns):
    label = f"{dataset}/{case['method']}"
    full = f"{label}/{case['rule']}"
    return any(p in (label, full, case["method"]) for p in patterns)


def warm_up():
    """One-time costs of a process (BLAS buffers, lazy caches) before any case forks."""
    rng = np.random.default_rng(0)
    X = rng.poisson(1.0, (100, 20)).astype(float)
    Y = (rng.random((100, 4)) < 0.3).astype(int)
    mlnb.BinaryRelevance(events="multinomial").fit(X, Y).predict(X)
    OneVsRestClassifier(SklearnMultinomialNB()).fit(X, Y).predict(X)
    _ = X @ X.T


def run_all(args):
    started = time.perf_counter()
    meta = machine_info()
    meta["command"] = " ".join(["python", "benchmarks/bench_quality.py", *sys.argv[1:]])
    meta["skmultilearn"] = HAVE_SKMULTILEARN
    meta["budget_s"] = args.budget
    pairs, notes = split_datasets(args.data_dir)
    meta["left_out"] = notes
    meta["available"] = list(pairs)
    names = list(QUICK) if args.quick else (args.datasets or list(pairs))
    unknown = [n for n in names if n not in pairs]
    if unknown:
        raise SystemExit(
            f"no provided train/test split for {unknown}; those with one: {list(pairs)}"
        )
    names = [n for n in pairs if n in names]  # smallest first
    print(f"data sets: {', '.join(names)}", flush=True)
    if not HAVE_SKMULTILEARN:
        print(
            "scikit-multilearn is not installed: its rows (BR, LP, MLkNN) are left out", flush=True
        )
    warm_up()
    results = {"meta": meta, "datasets": {}}
    for name in names:
        pair = pairs[name]
        info = describe(pair)
        print(f"\n== {name}: {info}", flush=True)
        done = []
        for case in case_list(pair):
            if args.only and not skipped_by_option(name, case, args.only):
                continue
            record = {k: case[k] for k in ("library", "method", "rule")}
            reason = None
            if skipped_by_option(name, case, args.skip):
                reason = "skipped by --skip"
            else:
                reason = slow_reason(case, done, args)
            if reason:
                record.update(status="skipped", reason=reason)
            else:
                record.update(run_isolated(case, pair, args))
            done.append(record)
            print(one_line(record), flush=True)
            if args.save:  # keep what is done if the run is stopped
                results["datasets"][name] = {"info": info, "cases": done}
                args.save.write_text(json.dumps(results, indent=1))
        results["datasets"][name] = {"info": info, "cases": done}
    meta["load_end"] = " ".join(f"{v:.2f}" for v in os.getloadavg())
    meta["wall_s"] = time.perf_counter() - started
    return results


def merge(results, new):
    """``results`` with the cases of ``new`` put in place of the same (set, method, rule)."""
    meta = new["meta"]
    update = {k: meta[k] for k in ("command", "date", "budget_s", "load_start", "load_end")}
    update["cases"] = []
    for name, entry in new["datasets"].items():
        cases = results["datasets"].setdefault(name, {"info": entry["info"], "cases": []})["cases"]
        for record in entry["cases"]:
            record["rerun"] = {"budget_s": meta["budget_s"], "date": meta["date"]}
            key = (record["library"], record["method"], record["rule"])
            update["cases"].append(f"{name} {' '.join(key)}")
            index = next(
                (i for i, r in enumerate(cases) if (r["library"], r["method"], r["rule"]) == key),
                None,
            )
            if index is None:
                cases.append(record)
            else:
                cases[index] = record
    results["meta"].setdefault("updates", []).append(update)
    return results


def one_line(r):
    head = f"  {r['library']:<12} {r['method']:<14} {r['rule']:<13}"
    if r["status"] != "ok":
        return f"{head} {r['status']}: {r.get('reason', '')}"
    rank = "  n/a " if r.get("ranking_loss") is None else f"{r['ranking_loss']:.4f}"
    extra = f" [{r['strategy']}]" if "strategy" in r else ""
    return (
        f"{head} microF1 {r['micro_f1']:.4f} macroF1 {r['macro_f1']:.4f} "
        f"exF1 {r['example_f1']:.4f} rloss {rank} {r['total_s']:9.3f} s{extra}"
    )


# ----------------------------------------------------------------------------- machine


def machine_info():
    cpu = cpu_name()
    versions = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "mlnb": mlnb.__version__,
    }
    if HAVE_SKMULTILEARN:
        from importlib.metadata import version

        versions["scikit-multilearn"] = version("scikit-multilearn")
    threads = {
        k: os.environ.get(k, "unset")
        for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    }
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "load_start": " ".join(f"{v:.2f}" for v in os.getloadavg()),
        "versions": versions,
        "threads": threads,
    }


# ----------------------------------------------------------------------------- report


def fmt(value, spec=".4f"):
    return "—" if value is None else format(value, spec)


def fmt_time(seconds):
    if seconds is None:
        return "—"
    return f"{seconds:.3f}" if seconds < 10 else f"{seconds:.1f}"


def rule_text(r):
    if r["rule"] == "tuned":
        return f"tuned: {r['strategy']}" if "strategy" in r else "tuned"
    return r["rule"]


def notes_of(r):
    notes = []
    if r["status"] != "ok":
        notes.append(f"{r['status']}: {r.get('reason', '')}")
    if r.get("score_error"):
        notes.append(f"no ranking loss ({r['score_error']})")
    if r.get("saturated"):
        notes.append(f"{100 * r['saturated']:.1f} % scores saturated (ties)")
    if r.get("rerun"):
        notes.append(f"re-run with a {r['rerun']['budget_s']:.0f} s budget")
    if r.get("runs", 1) > 1:
        notes.append(f"best of {r['runs']}")
    for message, count in sorted(r.get("warnings", {}).items()):
        notes.append(f"{count}x {message.split(':')[0]}")
    return "; ".join(notes)


def case_rows(cases):
    rows = []
    for r in cases:
        ok = r["status"] == "ok"
        rows.append(
            [
                r["library"],
                r["method"],
                rule_text(r),
                fmt(r.get("micro_f1")) if ok else "—",
                fmt(r.get("macro_f1")) if ok else "—",
                fmt(r.get("example_f1")) if ok else "—",
                fmt(r.get("ranking_loss")) if ok else "—",
                fmt_time(r.get("total_s")) if ok else "—",
                notes_of(r),
            ]
        )
    return rows


CASE_HEADER = [
    "library",
    "method",
    "rule",
    "micro F1",
    "macro F1",
    "example F1",
    "ranking loss",
    "fit+predict s",
    "notes",
]


def find(cases, library, method, rule=None):
    for r in cases:
        if (
            r["library"] == library
            and r["method"] == method
            and (rule is None or r["rule"] == rule)
        ):
            return r if r["status"] == "ok" else None
    return None


def targets(results):
    """The issue's targets: (per-set rows, summary lines) for each of the three."""
    data = results["datasets"]
    accuracy_rows, ratios, fast_ratios, speedups = [], [], [], []
    for name, entry in data.items():
        cases = entry["cases"]
        svc = find(cases, *REFERENCE)
        tuned_ok = [
            r
            for r in cases
            if r["library"] == "mlnb" and r["rule"] == "tuned" and r["status"] == "ok"
        ]
        if svc is None or not tuned_ok:
            accuracy_rows.append(
                [name, "—", "—", "—", "—", "—", "—", "—", "no SVC or no tuned case"]
            )
            continue
        best = max(tuned_ok, key=lambda r: r["micro_f1"])
        ratio = best["micro_f1"] / svc["micro_f1"]
        speed = svc["total_s"] / best["total_s"]
        fast = [r for r in tuned_ok if svc["total_s"] / r["total_s"] >= SPEED_TARGET]
        best_fast = max(fast, key=lambda r: r["micro_f1"]) if fast else None
        fast_ratio = best_fast["micro_f1"] / svc["micro_f1"] if best_fast else None
        br = find(cases, "mlnb", "BR", "tuned")
        ratios.append(ratio)
        speedups.append(speed)
        fast_ratios.append(fast_ratio)
        accuracy_rows.append(
            [
                name,
                f"{svc['micro_f1']:.4f} ({fmt_time(svc['total_s'])} s)",
                f"{best['method']} {best['micro_f1']:.4f} ({fmt_time(best['total_s'])} s)",
                f"{ratio:.3f}",
                f"{speed:.1f}x",
                "met" if ratio >= ACCURACY_TARGET and speed >= SPEED_TARGET else "missed",
                (
                    f"{best_fast['method']} {best_fast['micro_f1']:.4f} → {fast_ratio:.3f}"
                    if best_fast
                    else "none"
                ),
                f"{br['micro_f1'] / svc['micro_f1']:.3f} ({svc['total_s'] / br['total_s']:.0f}x)"
                if br
                else "—",
                "",
            ]
        )
    summary = []
    if ratios:
        mean = float(np.mean(ratios))
        every = all(r >= ACCURACY_TARGET for r in ratios)
        fast_every = all(r is not None and r >= ACCURACY_TARGET for r in fast_ratios)
        fast_mean = float(np.mean(fast_ratios)) if all(r is not None for r in fast_ratios) else None
        summary.append(
            f"Best tuned mlnb method / LinearSVC micro F1: min {min(ratios):.3f}, mean "
            f"{mean:.3f} over {len(ratios)} sets; ≥ {ACCURACY_TARGET} on every set: "
            f"{'met' if every else 'missed'}; mean ≥ {AVERAGE_TARGET}: "
            f"{'met' if mean >= AVERAGE_TARGET else 'missed'}; its time ≥ {SPEED_TARGET:.0f}x "
            f"less on every set: {'met' if min(speedups) >= SPEED_TARGET else 'missed'} "
            f"(min {min(speedups):.1f}x, median {np.median(speedups):.0f}x)."
        )
        summary.append(
            f"Restricted to the tuned methods at ≥ {SPEED_TARGET:.0f}x less time than the SVC: "
            f"≥ {ACCURACY_TARGET} on every set: {'met' if fast_every else 'missed'}; mean "
            + (
                f"{fast_mean:.3f} ({'met' if fast_mean >= AVERAGE_TARGET else 'missed'})."
                if fast_mean is not None
                else "— (some set has no such method)."
            )
        )
    # tuned against its own default rule
    methods = []
    for entry in data.values():
        for r in entry["cases"]:
            if r["library"] == "mlnb" and r["method"] not in methods:
                methods.append(r["method"])
    tuned_rows, failures, compared = [], [], 0
    for method in methods:
        row = [method]
        for name, entry in data.items():
            default = next(
                (
                    r
                    for r in entry["cases"]
                    if r["library"] == "mlnb" and r["method"] == method and r["rule"] != "tuned"
                ),
                None,
            )
            tuned_case = find(entry["cases"], "mlnb", method, "tuned")
            if default is None:
                row.append("")
                continue
            if default["status"] != "ok" or tuned_case is None:
                row.append("—")
                continue
            d_micro = tuned_case["micro_f1"] - default["micro_f1"]
            d_example = tuned_case["example_f1"] - default["example_f1"]
            ok = d_micro >= -TIE and d_example >= -TIE
            compared += 1
            if not ok:
                failures.append(f"{method} on {name}")
            row.append(f"{d_micro:+.3f} / {d_example:+.3f} {'✓' if ok else '✗'}")
        tuned_rows.append(row)
    summary.append(
        f"Tuned beats (or ties within {TIE}) its default rule on micro and example F1: "
        f"{compared - len(failures)} of {compared} (method, set) pairs"
        + (f"; not on: {', '.join(failures)}." if failures else ".")
        + " Missing pairs (—) were skipped or over budget."
    )
    chain_rows = []
    for name in ("delicious", "bibtex"):
        if name not in data:
            chain_rows.append([name, "—", "—", "—", "not run"])
            continue
        cc = find(data[name]["cases"], "mlnb", "CC", "tuned")
        br = find(data[name]["cases"], "mlnb", "BR", "tuned")
        if cc is None or br is None:
            chain_rows.append([name, "—", "—", "—", "a case is missing"])
            continue
        ok = cc["micro_f1"] >= br["micro_f1"] - TIE
        chain_rows.append(
            [
                name,
                f"{cc['micro_f1']:.4f} / {cc['example_f1']:.4f}",
                f"{br['micro_f1']:.4f} / {br['example_f1']:.4f}",
                f"{cc['micro_f1'] - br['micro_f1']:+.4f}",
                "met" if ok else "missed",
            ]
        )
    return accuracy_rows, tuned_rows, methods, chain_rows, summary


ACCURACY_HEADER = [
    "data",
    "LinearSVC micro F1 (s)",
    "best tuned mlnb micro F1 (s)",
    "ratio",
    "SVC time / its time",
    "0.95x at 20x",
    "best tuned at ≥ 20x less time → ratio",
    "BR tuned ratio (speed-up)",
    "note",
]


def markdown_table(header, rows):
    def line(cells):
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), line(["---"] * len(header)), *map(line, rows)])


def text_table(header, rows):
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows, strict=True)]
    fmt_row = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join(fmt_row.format(*map(str, row)) for row in [header, *rows])


def _short_command(command, limit=160):
    """The command, its ``--only`` list abbreviated when long (the cases follow it)."""
    if len(command) <= limit or " --only " not in command:
        return command
    head, rest = command.split(" --only ", 1)
    tail = rest[rest.index(" --") :] if " --" in rest else ""
    return f"{head} --only <the cases below>{tail}"


def _case_summary(cases, datasets):
    """Re-run cases ("set library method rule") grouped by case: the sets of each."""
    groups = {}
    for case in cases:
        name, what = case.split(" ", 1)
        groups.setdefault(what, []).append(name)
    return "; ".join(
        f"{what} on {'every set' if sorted(sets) == sorted(datasets) else ', '.join(sets)}"
        for what, sets in groups.items()
    )


def report(results, table):
    """The report's sections as (title, body) pairs."""
    meta = results["meta"]
    data = results["datasets"]
    versions = ", ".join(f"{k} {v}" for k, v in meta["versions"].items())
    threads = ", ".join(f"{k}={v}" for k, v in meta["threads"].items())
    intro = (
        f"Run: {meta['date']}; {meta['cpu']}, {meta['cores']} cores (shared with other jobs); "
        f"load average (1, 5, 15 min) {meta['load_start']} at start, "
        f"{meta.get('load_end', '?')} at the end; "
        f"whole run {meta.get('wall_s', 0) / 60:.0f} min.\n\n"
        f"Command: `{meta['command']}`, with {threads}.\n\n"
        f"Versions: {versions}."
        + (
            ""
            if meta["skmultilearn"]
            else " scikit-multilearn: not installed, its rows are left out."
        )
        + f"\n\nBudget per case: {meta['budget_s']:.0f} s (a case over it is stopped)."
    )
    for update in meta.get("updates", []):
        intro += (
            f"\n\nRe-run on {update['date']} by `{_short_command(update['command'])}` "
            f"(budget {update['budget_s']:.0f} s; load {update['load_start']} at start, "
            f"{update['load_end']} at the end): {_case_summary(update['cases'], list(data))}."
        )
    left_out = meta.get("left_out", {})
    missing = [n for n in meta.get("available", []) if n not in data]
    if left_out or missing:
        intro += (
            "\n\nData sets with a provided split not in this report: "
            + "; ".join(
                [f"{n}: {why}" for n, why in left_out.items()]
                + [f"{n}: not in this report (--datasets / --quick)" for n in missing]
            )
            + "."
        )
    sections = [("", intro)]
    info_rows = [
        [
            name,
            e["info"]["train"],
            e["info"]["test"],
            e["info"]["features"],
            e["info"]["labels"],
            f"{e['info']['cardinality']:.2f}",
            e["info"]["kind"],
            e["info"]["events"],
            e["info"]["constant_labels"],
        ]
        for name, e in data.items()
    ]
    sections.append(
        (
            "Data",
            table(
                [
                    "data",
                    "train",
                    "test",
                    "features",
                    "labels",
                    "cardinality",
                    "X",
                    "mlnb events",
                    "labels constant in train",
                ],
                info_rows,
            ),
        )
    )
    accuracy_rows, tuned_rows, _, chain_rows, summary = targets(results)
    sections.append(("Targets", "\n".join(f"- {line}" for line in summary)))
    sections.append(
        ("Target 1: best tuned mlnb against OvR LinearSVC", table(ACCURACY_HEADER, accuracy_rows))
    )
    sections.append(
        (
            "Target 2: tuned minus default rule, micro F1 / example F1",
            table(["method", *data], tuned_rows),
        )
    )
    sections.append(
        (
            "Target 3: ClassifierChain tuned against BinaryRelevance tuned",
            table(
                [
                    "data",
                    "CC tuned micro / example F1",
                    "BR tuned micro / example F1",
                    "Δ micro",
                    "no worse",
                ],
                chain_rows,
            ),
        )
    )
    for name, entry in data.items():
        body = table(CASE_HEADER, case_rows(entry["cases"]))
        if (PLOTS / f"{name}.png").exists():
            body += f"\n\n![micro F1 against time on {name}](quality/{name}.png)"
        sections.append((f"{name}", body))
    problems = []
    for name, entry in data.items():
        for r in entry["cases"]:
            where = f"{name} {r['library']} {r['method']} {rule_text(r)}"
            if r["status"] == "error":
                problems.append(f"{where}: error {r.get('reason')}")
            if r.get("score_error"):
                problems.append(f"{where}: scores: {r['score_error']}")
            for message, count in r.get("warnings", {}).items():
                problems.append(f"{where}: {count}x {message}")
    if problems:
        sections.append(("Errors and warnings", "\n".join(f"- {p}" for p in problems)))
    return sections


def print_report(results):
    for title, body in report(results, text_table):
        if title:
            print(f"\n{title}\n{'-' * len(title)}")
        print(body)


def write_markdown(results, path=DOC):
    """The report between the markers of ``path``; the text around them is kept."""
    body = "\n\n".join(
        (f"### {title}\n\n{text}" if title else text)
        for title, text in report(results, markdown_table)
    )
    command = "python benchmarks/bench_quality.py --markdown"
    block = (
        f"{START}\n<!-- generated by `{command}`; edit outside the markers -->\n\n{body}\n\n{END}"
    )
    if path.exists() and START in path.read_text() and END in path.read_text():
        head, rest = path.read_text().split(START, 1)
        text = head + block + rest.split(END, 1)[1]
    else:
        old = path.read_text().rstrip() + "\n\n" if path.exists() else "# Prediction quality\n\n"
        text = old + block + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(f"wrote {path}")


STYLE = {
    ("mlnb", False): ("o", "none", "tab:blue"),
    ("mlnb", True): ("o", "tab:blue", "tab:blue"),
    ("scikit-learn", False): ("s", "tab:orange", "tab:orange"),
    ("scikit-multilearn", False): ("D", "tab:green", "tab:green"),
}


OFFSETS = [(4, 3), (4, -9), (-4, 3), (-4, -9), (4, 10), (4, -16), (-4, 10), (-4, -16)]


def place_labels(fig, ax, labels):
    """Annotate each point at the first offset whose text overlaps no label placed before
    (the least overlapping one when none is free)."""
    renderer = fig.canvas.get_renderer()
    placed = []
    for text, x, y in sorted(labels, key=lambda item: -item[2]):
        best = None
        for dx, dy in OFFSETS:
            note = ax.annotate(
                text,
                (x, y),
                textcoords="offset points",
                xytext=(dx, dy),
                ha="left" if dx > 0 else "right",
                fontsize=7,
            )
            box = note.get_window_extent(renderer).expanded(1.02, 1.1)
            overlap = sum(
                max(0.0, min(box.x1, b.x1) - max(box.x0, b.x0))
                * max(0.0, min(box.y1, b.y1) - max(box.y0, b.y0))
                for b in placed
            )
            if best is None or overlap < best[0]:
                if best is not None:
                    best[1].remove()
                best = (overlap, note, box)
            else:
                note.remove()
            if overlap == 0:
                break
        placed.append(best[2])


def plot(results, directory=PLOTS):
    """docs/quality/<set>.png: micro F1 against fit + predict time, one point per case."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    for name, entry in results["datasets"].items():
        cases = [r for r in entry["cases"] if r["status"] == "ok"]
        if not cases:
            continue
        fig, ax = plt.subplots(figsize=(8, 5.5))
        labels = []
        for r in cases:
            is_tuned = r["rule"] == "tuned"
            marker, face, edge = STYLE[(r["library"], is_tuned)]
            if r["method"] in ("OvR-LinearSVC", "OvR-LogReg"):
                marker, face, edge = "^", "tab:red", "tab:red"
            ax.scatter(
                r["total_s"],
                r["micro_f1"],
                marker=marker,
                facecolors=face,
                edgecolors=edge,
                s=40,
                zorder=3,
            )
            label = r["method"] + (" tuned" if is_tuned else "")
            if r["library"] == "scikit-learn" and r["method"] in ("OvR-NB", "CC-NB"):
                label = f"sk {label}"
            if r["library"] == "scikit-multilearn":
                label = f"skml {label}"
            labels.append((label, r["total_s"], r["micro_f1"]))
        ax.set_xscale("log")
        place_labels(fig, ax, labels)
        ax.set_xlabel("fit + predict, wall seconds (log scale)")
        ax.set_ylabel("micro F1 (test)")
        info = entry["info"]
        ax.set_title(
            f"{name}: {info['train']} train / {info['test']} test rows, {info['labels']} labels, "
            f"{info['events']} NB"
        )
        ax.grid(True, which="both", alpha=0.3)
        handles = [
            plt.Line2D(
                [], [], marker="o", ls="", mfc="none", mec="tab:blue", label="mlnb, default rule"
            ),
            plt.Line2D([], [], marker="o", ls="", color="tab:blue", label="mlnb, tuned rule"),
            plt.Line2D([], [], marker="s", ls="", color="tab:orange", label="scikit-learn NB"),
            plt.Line2D(
                [], [], marker="^", ls="", color="tab:red", label="scikit-learn linear (OvR)"
            ),
        ]
        if any(r["library"] == "scikit-multilearn" for r in cases):
            handles.append(
                plt.Line2D([], [], marker="D", ls="", color="tab:green", label="scikit-multilearn")
            )
        ax.legend(handles=handles, fontsize=8, loc="best")
        fig.tight_layout()
        fig.savefig(directory / f"{name}.png", dpi=110)
        plt.close(fig)
        print(f"wrote {directory / f'{name}.png'}")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", help="default: every set with a provided split")
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    parser.add_argument("--data-dir", help="default: mlnb.datasets.data_home()")
    parser.add_argument("--budget", type=float, default=300.0, help="seconds per case")
    parser.add_argument(
        "--skip-slow", action="store_true", help="skip predictably slow tuned cases"
    )
    parser.add_argument("--skip", nargs="+", default=[], help="SET/METHOD[/RULE] or METHOD")
    parser.add_argument("--only", nargs="+", default=[], help="run only these (as --skip)")
    parser.add_argument(
        "--update", type=Path, help="run the selected cases into these saved results"
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per case at most")
    parser.add_argument("--min-time", type=float, default=5.0, help="repeat while below")
    parser.add_argument("--save", type=Path, help="write the raw results (JSON)")
    parser.add_argument("--load", type=Path, help="report saved results instead of running")
    parser.add_argument("--markdown", action="store_true", help=f"update {DOC.relative_to(REPO)}")
    parser.add_argument("--plot", action="store_true", help="write docs/quality/<set>.png")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.load:
        results = json.loads(args.load.read_text())
        if args.datasets:  # report only these
            kept = {n: e for n, e in results["datasets"].items() if n in args.datasets}
            results["datasets"] = kept
    elif args.update:
        results = merge(json.loads(args.update.read_text()), run_all(args))
        (args.save or args.update).write_text(json.dumps(results, indent=1))
    else:
        results = run_all(args)
        if args.save:
            args.save.write_text(json.dumps(results, indent=1))
    if args.plot:
        plot(results)
    print_report(results)
    if args.markdown:
        write_markdown(results)


if __name__ == "__main__":
    main()
