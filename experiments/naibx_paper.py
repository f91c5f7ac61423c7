"""The NaiBX paper's comparison (Mossina and Rachelson 2017, section 5), rerun with mlnb.

NaiBX, NaiBX-TrueM (the true size given), CC-NB, ECC-NB, CC-SVM, ECC-SVM and RAkEL-SVM
(k = 3, m = 10) on the shared multi-label sets: 10-fold cross-validation, or one 66 % / 34 %
split for the large sets (tmc2007-500, ohsumed, the yahoo sets), as in the paper. Criteria:
zero-one loss, Hamming loss, accuracy, precision, recall (example-based), T_train and
T_test in seconds.

Choices (the paper used default parameters of its tools):

- features: Gaussian for the continuous sets (emotions, yeast, scene), Bernoulli for the
  binary bags of words (medical, enron, tmc2007-500, ohsumed), multinomial for the yahoo
  sets (non-negative tf-idf-like weights). The NB baselines use the same event model.
- SVM: scikit-learn's ``LinearSVC`` (C = 1), preceded by ``StandardScaler`` on the dense
  continuous sets. The paper's SVM came from MEKA/Weka (SMO); a linear SVM keeps the 10-fold
  runs to minutes on a two-core machine.
- ECC: 10 chains, each on 66 % of the rows; RAkEL-o: 10 label sets of size 3.
- NaiBX-TrueM reuses the NaiBX model fitted on the same fold, so its T_train is NaiBX's.
- One BLAS thread (``--threads 1``): liblinear is single-threaded, so every method is timed
  on one core; on a shared two-core machine this also avoids BLAS oversubscription.

Usage::

    python experiments/naibx_paper.py                # 12 sets, all methods (20-40 minutes)
    python experiments/naibx_paper.py --quick        # 3 folds, ECC with 5 chains
    python experiments/naibx_paper.py --datasets emotions,yeast --methods NaiBX,CC-NB
    python experiments/naibx_paper.py --report-only  # rebuild the Markdown from the CSV

Results: ``docs/experiments/naibx.csv`` (one row per data set and method, means and standard
deviations over folds; appended data set by data set, so an interrupted run keeps what it
finished) and ``docs/experiments/naibx.md`` (tables; a hand-written section after the line
``<!-- reading -->`` is kept when the file is rewritten).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from _harness import OUT
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from mlnb.datasets import load_dataset
from mlnb.evaluation._splits import split_indices
from mlnb.metrics import get_metrics
from mlnb.multilabel import ClassifierChain, EnsembleClassifierChains, RAkEL
from mlnb.multilabel.naibx import NaiBX

MARKER = "<!-- reading -->"

#: name -> (event model, cv: folds or train fraction)
DATASETS = {
    "emotions": ("gaussian", 10),
    "yeast": ("gaussian", 10),
    "scene": ("gaussian", 10),
    "medical": ("bernoulli", 10),
    "enron": ("bernoulli", 10),
    "yahoo_arts": ("multinomial", 0.66),
    "ohsumed": ("bernoulli", 0.66),
    "tmc2007": ("bernoulli", 0.66),
    "yahoo_business": ("multinomial", 0.66),
    "yahoo_education": ("multinomial", 0.66),
    "yahoo_health": ("multinomial", 0.66),
    "yahoo_reference": ("multinomial", 0.66),
}
DEFAULT_DATASETS = list(DATASETS)
METHODS = ["NaiBX", "NaiBX-TrueM", "CC-NB", "ECC-NB", "CC-SVM", "ECC-SVM", "RAkEL-SVM"]
CRITERIA = ["zero_one", "hamming", "accuracy", "example_precision", "example_recall"]
COLUMNS = ["dataset", "method", "split", *CRITERIA, "train_time", "test_time"]


def svm(dense):
    """The SVM base learner: LinearSVC, standardised inputs on dense continuous data."""
    model = LinearSVC(C=1.0)
    return make_pipeline(StandardScaler(), model) if dense else model


def make_method(name, events, dense, n_chains):
    """A fresh estimator for a method name (NaiBX-TrueM uses NaiBX's)."""
    if name in ("NaiBX", "NaiBX-TrueM"):
        return NaiBX(events=events, rule="predict")
    if name == "CC-NB":
        return ClassifierChain(events=events, rule="predict")
    if name == "ECC-NB":
        return EnsembleClassifierChains(
            n_chains=n_chains, events=events, rule="predict", random_state=0
        )
    if name == "CC-SVM":
        return ClassifierChain(base_estimator=svm(dense))
    if name == "ECC-SVM":
        return EnsembleClassifierChains(
            n_chains=n_chains, base_estimator=svm(dense), rule="predict", random_state=0
        )
    if name == "RAkEL-SVM":
        return RAkEL(k=3, n_subsets=10, base_estimator=svm(dense), random_state=0)
    raise ValueError(f"unknown method {name!r}; use some of {METHODS}")


def load(name, data_dir):
    data = load_dataset(name, data_dir, split="full")
    X, Y = data.X, data.Y
    Y = Y.toarray() if sp.issparse(Y) else np.asarray(Y)
    return (sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X) else np.asarray(X, float)), Y


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    out = function(*args, **kwargs)
    return out, time.perf_counter() - start


def evaluate(name, methods, *, folds, n_chains, data_dir, log):
    """Scores per method, one list per criterion over the folds."""
    events, cv = DATASETS[name]
    if isinstance(cv, int):
        cv = folds
    X, Y = load(name, data_dir)
    dense = not sp.issparse(X)
    metrics = get_metrics(CRITERIA)
    splits = split_indices(cv, X.shape[0], Y, random_state=0)
    split = f"{len(splits)}-fold CV" if len(splits) > 1 else "66 % split"
    log(f"{name}: {X.shape[0]} x {X.shape[1]}, {Y.shape[1]} labels, {events}, {split}")
    results = {m: {c: [] for c in [*CRITERIA, "train_time", "test_time"]} for m in methods}
    failed = set()
    for fold, (train, test) in enumerate(splits):
        X_train, Y_train, X_test, Y_test = X[train], Y[train], X[test], Y[test]
        cascade = None
        for method in methods:
            if method in failed:
                continue
            try:
                if method == "NaiBX-TrueM":  # the fold's NaiBX model, given the true sizes
                    if cascade is None:
                        cascade = timed(NaiBX(events=events, rule="predict").fit, X_train, Y_train)
                    predicted, test_time = timed(
                        cascade[0].predict, X_test, sizes=Y_test.sum(axis=1)
                    )
                    train_time = cascade[1]
                else:
                    model = make_method(method, events, dense, n_chains)
                    model, train_time = timed(model.fit, X_train, Y_train)
                    predicted, test_time = timed(model.predict, X_test)
                    if method == "NaiBX":
                        cascade = model, train_time
            except Exception as error:  # a method that fails is left blank, as in the paper
                log(f"  {method} failed: {type(error).__name__}: {error}")
                failed.add(method)
                continue
            scores = results[method]
            for criterion, metric in metrics.items():
                scores[criterion].append(float(metric(Y_test, predicted)))
            scores["train_time"].append(train_time)
            scores["test_time"].append(test_time)
        log(f"  fold {fold + 1}/{len(splits)} done")
    rows = []
    for method in methods:
        if method in failed:
            rows.append({"dataset": name, "method": method, "split": split})
            continue
        row = {"dataset": name, "method": method, "split": split}
        for criterion, values in results[method].items():
            row[criterion] = float(np.mean(values))
            row[f"{criterion}_std"] = float(np.std(values, ddof=1)) if len(values) > 1 else ""
        rows.append(row)
        log(
            f"  {method:12s} 0/1 {row['zero_one']:.3f} Ham {row['hamming']:.4f} "
            f"acc {row['accuracy']:.3f} T {row['train_time']:.2f}s/{row['test_time']:.2f}s"
        )
    return rows


FIELDS = COLUMNS[:3] + [f for c in COLUMNS[3:] for f in (c, f"{c}_std")]


def read_rows(path):
    if not path.is_file():
        return []
    with path.open() as handle:
        return list(csv.DictReader(handle))


def write_rows(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def markdown(rows, command):
    """Tables per criterion: data sets as rows, methods as columns, the best in bold."""
    known = list(DATASETS)
    datasets = sorted(
        dict.fromkeys(r["dataset"] for r in rows),
        key=lambda name: known.index(name) if name in known else len(known),
    )
    methods = [m for m in METHODS if any(r["method"] == m for r in rows)]
    cell = {(r["dataset"], r["method"]): r for r in rows}
    lower_is_better = {"zero_one": True, "hamming": True, "train_time": True, "test_time": True}
    titles = {
        "zero_one": "Zero-one loss (lower is better)",
        "hamming": "Hamming loss (lower is better)",
        "accuracy": "Accuracy (Jaccard; higher is better)",
        "example_precision": "Precision (example-based; higher is better)",
        "example_recall": "Recall (example-based; higher is better)",
        "train_time": "T_train (seconds per fold)",
        "test_time": "T_test (seconds per fold)",
    }
    lines = [
        "# NaiBX: the paper's comparison rerun",
        "",
        f"Generated by `{command}` (see the script's docstring for the choices).",
        "Means over the folds; NaiBX-TrueM is NaiBX given the true size of each label set,",
        "a reference, not a competitor. Blank: the method failed. The best of the six real",
        "competitors (TrueM excluded) is in bold.",
        "",
        "| data set | split | event model |",
        "|---|---|---|",
    ]
    for name in datasets:
        split = next(r["split"] for r in rows if r["dataset"] == name)
        lines.append(f"| {name} | {split} | {DATASETS.get(name, ('?',))[0]} |")
    for criterion, title in titles.items():
        lines += ["", f"## {title}", "", "| data set | " + " | ".join(methods) + " |"]
        lines.append("|---" * (len(methods) + 1) + "|")
        for name in datasets:
            values = {}
            for method in methods:
                value = cell.get((name, method), {}).get(criterion, "")
                values[method] = float(value) if value not in ("", None) else None
            real = [v for m, v in values.items() if v is not None and m != "NaiBX-TrueM"]
            best = (min if lower_is_better.get(criterion) else max)(real) if real else None
            digits = 4 if criterion == "hamming" else 3
            formatted = []
            for method in methods:
                value = values[method]
                if value is None:
                    formatted.append("")
                    continue
                text = f"{value:.{digits}f}"
                bold = method != "NaiBX-TrueM" and value == best
                formatted.append(f"**{text}**" if bold else text)
            lines.append(f"| {name} | " + " | ".join(formatted) + " |")
    return "\n".join(lines) + "\n"


def write_markdown(path, rows, command):
    reading = ""
    if path.is_file():
        text = path.read_text()
        if MARKER in text:
            reading = text[text.index(MARKER) :]
    path.write_text(markdown(rows, command) + ("\n" + reading if reading else ""))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 folds, ECC with 5 chains")
    parser.add_argument("--datasets", default=",".join(DEFAULT_DATASETS))
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--out", default=str(OUT), help="directory of naibx.csv and naibx.md")
    parser.add_argument(
        "--threads", type=int, default=1, help="BLAS threads (1: every method single-threaded)"
    )
    parser.add_argument("--report-only", action="store_true", help="rebuild the Markdown only")
    args = parser.parse_args(argv)
    threadpool_limits(args.threads)
    out = Path(args.out)
    csv_path, md_path = out / "naibx.csv", out / "naibx.md"
    command = "python experiments/naibx_paper.py" + (" --quick" if args.quick else "")
    rows = read_rows(csv_path)
    if not args.report_only:
        methods = [m for m in METHODS if m in args.methods.split(",")]
        for name in args.datasets.split(","):
            if name not in DATASETS:
                parser.error(f"unknown data set {name!r}; use some of {list(DATASETS)}")
            new = evaluate(
                name,
                methods,
                folds=3 if args.quick else 10,
                n_chains=5 if args.quick else 10,
                data_dir=args.data_dir,
                log=lambda text: print(text, flush=True),
            )
            done = {(r["dataset"], r["method"]) for r in new}
            rows = [r for r in rows if (r["dataset"], r["method"]) not in done] + new
            write_rows(csv_path, rows)
            write_markdown(md_path, rows, command)
    write_markdown(md_path, rows, command)
    print(f"wrote {csv_path} and {md_path}")
    return 0


if __name__ == "__main__":
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    warnings.filterwarnings("ignore", message="Label not")
    sys.exit(main())
