"""The multi-target section of ``bench_quality.py``: the data, the cases, the scoring and
the report of mlnb's multi-target Naive Bayes against scikit-learn's ``MultiOutputClassifier``
and ``ClassifierChain`` (see the module docstring of ``bench_quality.py`` for what is
measured; ``bench_quality.py`` runs the cases, each in a forked child with a budget)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.compose import ColumnTransformer
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold
from sklearn.multioutput import ClassifierChain, MultiOutputClassifier
from sklearn.naive_bayes import CategoricalNB, GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import mlnb
from _quality_report import markdown_table, text_table
from mlnb.datasets import TrainTest, dataset_kind, list_datasets, load_dataset
from mlnb.events.auto import Auto
from mlnb.metrics import (
    multi_target_accuracy,
    multi_target_exact_match,
    multi_target_hamming_score,
)

FOLDS = 10  # KFold(FOLDS, shuffle=True, random_state=SEED) for a set without a split
SEED = 0
DOC = Path(__file__).resolve().parents[1] / "docs" / "quality.md"
START, END = "<!-- bench_quality:multi-target:start -->", "<!-- bench_quality:multi-target:end -->"
TITLE = "Multi-target classification"
# pairs of cases that are the same model: (first, second, what the agreement says)
SAME_MODEL = [
    (
        ("mlnb", "MultiTargetRelevance", "default"),
        ("scikit-learn", "MultiOutput-CategoricalNB", "declared values"),
        "the same model (one CategoricalNB per target)",
    ),
    (
        ("mlnb", "MultiTargetChain", "default"),
        ("scikit-learn", "Chain-CategoricalNB", "declared values"),
        "the same model (greedy chain in column order)",
    ),
    (
        ("mlnb", "MultiTargetRelevance", "X as float codes, events=Auto(column types)"),
        ("mlnb", "MultiTargetRelevance", "default"),
        "the same model from the array and from the DataFrame",
    ),
    (
        ("mlnb", "MultiTargetChain", 'inference="exact"'),
        ("mlnb", "MultiTargetChain", "default"),
        "exact against greedy inference",
    ),
]


# ----------------------------------------------------------------------------- data


def multi_target_sets(data_dir=None, names=None):
    """``{name: Dataset or TrainTest}`` of every multi-target set (``dataset_kind``), read
    with its classes (``multi_target=True``); and ``{name: why it was left out}``."""
    sets, notes = {}, {}
    for name in list_datasets(data_dir):
        if dataset_kind(name, data_dir) != "multi-target" or (names and name not in names):
            continue
        try:
            sets[name] = load_dataset(name, data_dir, multi_target=True)
        except Exception as error:  # a set that does not load is reported, not fatal
            notes[name] = f"does not load: {type(error).__name__}: {error}"
    return sets, notes


def prepared(loaded):
    """The arrays of a set and its folds: a provided split is one fold, else 10-fold CV.

    Returns a dict: ``X`` (the loaded float array, nominal features as their codes),
    ``frame`` (the same rows as a DataFrame, nominal columns categorical with their declared
    values), ``Y``, ``folds`` [(train rows, test rows)], ``dataset`` (the training part's
    Dataset: names and categories) and ``split`` (how the folds were made).
    """
    if isinstance(loaded, TrainTest):
        train, test = loaded
        X, Y = np.vstack([train.X, test.X]), np.vstack([train.Y, test.Y])
        n = train.n_samples
        folds = [(np.arange(n), np.arange(n, n + test.n_samples))]
        dataset, split = train, "provided train/test split"
    else:
        dataset, X, Y = loaded, np.asarray(loaded.X, dtype=np.float64), np.asarray(loaded.Y)
        folds = list(KFold(FOLDS, shuffle=True, random_state=SEED).split(X))
        split = f"{FOLDS}-fold cross-validation (KFold, shuffle, random_state={SEED})"
    frame = frame_of(X, dataset)
    return {"X": X, "frame": frame, "Y": Y, "folds": folds, "dataset": dataset, "split": split}


def frame_of(X, dataset):
    """X as a DataFrame whose nominal columns are categorical with their declared values
    (what ``events="auto"`` reads as nominal), numeric columns float."""
    columns = {}
    for j, name in enumerate(dataset.feature_names):
        if name in dataset.categories:
            codes = np.where(np.isnan(X[:, j]), -1, X[:, j]).astype(np.int64)
            columns[name] = pd.Categorical.from_codes(codes, list(dataset.categories[name]))
        else:
            columns[name] = X[:, j]
    return pd.DataFrame(columns)


def describe(data):
    """The set's size, column types, targets and their majority shares (JSON-safe)."""
    dataset, Y = data["dataset"], data["Y"]
    types = dataset.column_types
    classes = [np.unique(Y[:, j], return_counts=True) for j in range(Y.shape[1])]
    return {
        "rows": int(Y.shape[0]),
        "features": len(types),
        "nominal": int(sum(t == "nominal" for t in types)),
        "targets": list(dataset.label_names),
        "classes": [len(values) for values, _ in classes],
        "majority_share": [float(counts.max() / counts.sum()) for _, counts in classes],
        "split": data["split"],
        "folds": len(data["folds"]),
    }


# ----------------------------------------------------------------------------- methods


class EncodedTargets(ClassifierMixin, BaseEstimator):
    """``estimator`` fitted on every target's classes coded 0..K-1 (those of the training
    rows, sorted); its predictions mapped back to the classes. scikit-learn's chain appends
    the earlier targets to X: as codes, they are categories a CategoricalNB can count."""

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, Y):
        Y = np.asarray(Y)
        self.classes_ = [np.unique(Y[:, j]) for j in range(Y.shape[1])]
        codes = np.column_stack([np.searchsorted(c, Y[:, j]) for j, c in enumerate(self.classes_)])
        self.estimator_ = clone(self.estimator).fit(X, codes)
        return self

    def predict(self, X):
        codes = np.asarray(self.estimator_.predict(X)).astype(np.int64)
        return np.column_stack([c[codes[:, j]] for j, c in enumerate(self.classes_)])


class ChainCategoricalNB(ClassifierMixin, BaseEstimator):
    """``CategoricalNB(min_categories=...)`` for a chain's step, which sees X's columns and
    then the earlier targets' codes: X's columns take their declared number of values, a
    target's codes the number of classes seen (every code of the training rows occurs).
    (One ``min_categories`` array cannot fit every step: they differ in width.)"""

    def __init__(self, min_categories=None):
        self.min_categories = min_categories

    def fit(self, X, y):
        declared = np.asarray(self.min_categories, dtype=np.int64)
        extra = np.ones(X.shape[1] - declared.size, dtype=np.int64)
        self.model_ = CategoricalNB(min_categories=np.concatenate([declared, extra]))
        self.model_.fit(X, y)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(X)

    def predict_proba(self, X):
        return self.model_.predict_proba(X)


def sklearn_nb(dataset):
    """scikit-learn's NB of the features and its setting: CategoricalNB with every nominal
    feature's declared values when all are nominal, GaussianNB when none is; None (no
    case) when they are mixed."""
    types = set(dataset.column_types)
    if types == {"nominal"}:
        return "CategoricalNB", dataset.n_categories, "declared values"
    if types == {"numeric"}:
        return "GaussianNB", None, "own"
    return None, None, "mixed nominal and numeric features"


def encoder(dataset):
    """One-hot nominal features (unseen values ignored), standardised numeric ones."""
    types = np.asarray(dataset.column_types)
    nominal, numeric = np.flatnonzero(types == "nominal"), np.flatnonzero(types == "numeric")
    if not numeric.size:
        return OneHotEncoder(handle_unknown="ignore")
    if not nominal.size:
        return StandardScaler()
    return ColumnTransformer(
        [
            ("nominal", OneHotEncoder(handle_unknown="ignore"), nominal),
            ("numeric", StandardScaler(), numeric),
        ]
    )


def cases(dataset):
    """Every case of a set: dicts of library, method, setting, factory and input ("frame":
    the DataFrame with categorical columns; "array": the loaded float array)."""

    def case(library, method, setting, factory, data="array"):
        return {
            "library": library,
            "method": method,
            "setting": setting,
            "factory": factory,
            "input": data,
        }

    result = [
        case("mlnb", "MultiTargetRelevance", "default", mlnb.MultiTargetRelevance, "frame"),
        case("mlnb", "MultiTargetChain", "default", mlnb.MultiTargetChain, "frame"),
        case(
            "mlnb",
            "MultiTargetChain",
            'inference="exact"',
            lambda: mlnb.MultiTargetChain(inference="exact"),
            "frame",
        ),
        case("mlnb", "MultiTargetPowerset", "default", mlnb.MultiTargetPowerset, "frame"),
    ]
    if "nominal" in dataset.column_types:
        auto = Auto("auto", column_types=dataset.column_types, n_categories=dataset.n_categories)
        result += [  # what the defaults make of the bare codes; the frame's model on them
            case(
                "mlnb",
                "MultiTargetRelevance",
                "default, X as float codes",
                mlnb.MultiTargetRelevance,
            ),
            case(
                "mlnb",
                "MultiTargetRelevance",
                "X as float codes, events=Auto(column types)",
                lambda: mlnb.MultiTargetRelevance(events=auto),
            ),
        ]
    name, declared, setting = sklearn_nb(dataset)
    if name == "CategoricalNB":
        result += [
            case(
                "scikit-learn",
                "MultiOutput-CategoricalNB",
                setting,
                lambda: MultiOutputClassifier(CategoricalNB(min_categories=declared)),
            ),
            case(
                "scikit-learn",
                "Chain-CategoricalNB",
                setting,
                lambda: EncodedTargets(ClassifierChain(ChainCategoricalNB(declared))),
            ),
        ]
    elif name == "GaussianNB":
        result += [
            case(
                "scikit-learn",
                "MultiOutput-GaussianNB",
                setting,
                lambda: MultiOutputClassifier(GaussianNB()),
            ),
            case(
                "scikit-learn",
                "Chain-GaussianNB",
                setting,
                lambda: EncodedTargets(ClassifierChain(GaussianNB())),
            ),
        ]
    else:
        result.append({**case("scikit-learn", "NB", setting, None), "skip": setting})
    logreg = lambda: LogisticRegression(max_iter=1000)  # noqa: E731
    result += [
        case(
            "scikit-learn",
            "MultiOutput-LogReg",
            "one-hot X, C=1",
            lambda: make_pipeline(encoder(dataset), MultiOutputClassifier(logreg())),
        ),
        case(
            "scikit-learn",
            "Chain-LogReg",
            "one-hot X, C=1; earlier targets numeric codes",
            lambda: EncodedTargets(make_pipeline(encoder(dataset), ClassifierChain(logreg()))),
        ),
        case(
            "baseline",
            "majority class",
            "each target's most frequent training class",
            lambda: MultiOutputClassifier(DummyClassifier(strategy="most_frequent")),
        ),
    ]
    return result


def events_text(model):
    """The event model an mlnb model resolved (``Mixed``: its blocks' models)."""
    events = getattr(model, "events_", None)
    if events is None:
        return None
    blocks = getattr(events, "blocks", None)
    if blocks:
        return "Mixed(" + ", ".join(type(block).__name__ for block, _ in blocks) + ")"
    return type(events).__name__


# ----------------------------------------------------------------------------- scores


def majority(Y):
    """Every target's most frequent class (the lowest of a tie), as the baseline's."""
    columns = [np.unique(Y[:, j], return_counts=True) for j in range(Y.shape[1])]
    return np.array([values[np.argmax(counts)] for values, counts in columns])


def fold_scores(truth, predictions, train_truth):
    """Exact match, Hamming score and per-target accuracy of one fold's predictions, and the
    share of its rows predicted other than all-majority (some target not its training
    rows' most frequent class)."""
    moved = (predictions != majority(train_truth)).any(axis=1)
    return {
        "exact_match": float(multi_target_exact_match(truth, predictions)),
        "hamming_score": float(multi_target_hamming_score(truth, predictions)),
        "target_accuracy": [float(a) for a in multi_target_accuracy(truth, predictions)],
        "not_majority": float(moved.mean()),
    }


def summary(folds):
    """Means and standard deviations over the folds (population std, ``np.std``)."""
    result = {}
    for key in ("exact_match", "hamming_score", "not_majority", "total_s", "fit_s", "predict_s"):
        values = np.array([f[key] for f in folds])
        result[key] = float(values.mean())
        result[f"{key}_std"] = float(values.std())
    accuracy = np.array([f["target_accuracy"] for f in folds])
    result["target_accuracy"] = accuracy.mean(axis=0).tolist()
    result["target_accuracy_std"] = accuracy.std(axis=0).tolist()
    result["folds"] = folds
    return result


def agreement(predictions):
    """For each pair of :data:`SAME_MODEL` whose two cases ran: the shares of cells and of
    rows (every target) where their predictions are identical."""
    rows = []
    for first, second, what in SAME_MODEL:
        if first in predictions and second in predictions:
            same = predictions[first] == predictions[second]
            rows.append(
                {
                    "first": list(first),
                    "second": list(second),
                    "what": what,
                    "cells": float(same.mean()),
                    "rows": float(same.all(axis=1).mean()),
                }
            )
    return rows


# ----------------------------------------------------------------------------- report


def mean_std(r, key, index=None, spec=".4f"):
    mean, std = r.get(key), r.get(f"{key}_std")
    if index is not None:
        mean, std = mean[index], std[index]
    if mean is None:
        return "—"
    return f"{mean:{spec}}" if std is None else f"{mean:{spec}} ± {std:{spec}}"


def notes_of(r):
    notes = [] if r["status"] == "ok" else [f"{r['status']}: {r.get('reason', '')}"]
    for message, count in sorted(r.get("warnings", {}).items()):
        notes.append(f"{count}x {message.split(':')[0]}")
    return "; ".join(notes)


def case_rows(entry):
    rows = []
    for r in entry["cases"]:
        ok = r["status"] == "ok"
        scores = [mean_std(r, "exact_match"), mean_std(r, "hamming_score")] if ok else ["—", "—"]
        targets = [
            mean_std(r, "target_accuracy", j) if ok else "—"
            for j in range(len(entry["info"]["targets"]))
        ]
        time = f"{1000 * r['total_s']:.1f}" if ok else "—"
        moved = f"{r['not_majority']:.4f}" if ok else "—"
        rows.append(
            [
                r["library"],
                r["method"],
                r["setting"],
                *scores,
                *targets,
                moved,
                time,
                r.get("events") or "",
                notes_of(r),
            ]
        )
    return rows


def data_rows(data):
    rows = []
    for name, entry in data.items():
        info = entry["info"]
        rows.append(
            [
                name,
                info["rows"],
                f"{info['features']} ({info['nominal']} nominal)",
                ", ".join(info["targets"]),
                " / ".join(map(str, info["classes"])),
                " / ".join(f"{s:.4f}" for s in info["majority_share"]),
                info["split"],
            ]
        )
    return rows


DATA_HEADER = [
    "data",
    "rows",
    "features",
    "targets",
    "classes per target",
    "majority class share per target",
    "protocol",
]


def intro(section):
    meta = section["meta"]
    versions = ", ".join(f"{k} {v}" for k, v in meta["versions"].items())
    threads = ", ".join(f"{k}={v}" for k, v in meta["threads"].items())
    text = (
        f"Run: {meta['date']}; {meta['cpu']}, {meta['cores']} cores (shared with other jobs); "
        f"load average (1, 5, 15 min) {meta['load_start']} at start, {meta['load_end']} at the "
        f"end; whole section {meta['wall_s']:.0f} s.\n\n"
        f"Command: `{meta['command']}`, with {threads}.\n\n"
        f"Versions: {versions}.\n\n"
        f"Budget per case (every fold): {meta['budget_s']:.0f} s. Scores: mean ± standard "
        "deviation over the folds (`np.std`); time: fit + predict in milliseconds, the mean "
        f"over the folds of each fold's best of up to {meta['repeat']} runs. \"Rows not "
        'all-majority": the share of rows with some target predicted other than its most '
        "frequent class in the training rows (the baseline's prediction)."
    )
    if meta.get("left_out"):
        text += (
            "\n\nLeft out: " + "; ".join(f"{n}: {why}" for n, why in meta["left_out"].items()) + "."
        )
    return text


def case_name(key):
    library, method, setting = key
    return f"{library} {method} ({setting})"


def report(section, table):
    """The section's parts as (title, body) pairs."""
    data = section["datasets"]
    parts = [("", intro(section)), ("Multi-target data sets", table(DATA_HEADER, data_rows(data)))]
    for name, entry in data.items():
        targets = entry["info"]["targets"]
        header = [
            "library",
            "method",
            "setting",
            "exact match",
            "Hamming score",
            *(f"accuracy {t}" for t in targets),
            "rows not all-majority",
            "fit+predict ms / fold",
            "mlnb events",
            "notes",
        ]
        body = table(header, case_rows(entry))
        same = entry.get("agreement", [])
        if same:
            body += "\n\nIdentical out-of-fold predictions:\n\n" + "\n".join(
                f"- {case_name(a['first'])} and {case_name(a['second'])}, {a['what']}: "
                f"{100 * a['cells']:.2f} % of the cells, "
                f"{100 * a['rows']:.2f} % of the rows"
                for a in same
            )
        parts.append((f"{name}: {entry['info']['split']}", body))
    problems = [
        f"{name} {r['library']} {r['method']} ({r['setting']}): {count}x {message}"
        for name, entry in data.items()
        for r in entry["cases"]
        for message, count in r.get("warnings", {}).items()
    ]
    problems += [
        f"{name} {r['library']} {r['method']} ({r['setting']}): {r['status']} {r.get('reason', '')}"
        for name, entry in data.items()
        for r in entry["cases"]
        if r["status"] == "error"
    ]
    if problems:
        parts.append(("Multi-target warnings and errors", "\n".join(f"- {p}" for p in problems)))
    return parts


def print_report(section):
    print(f"\n{TITLE}\n{'=' * len(TITLE)}")
    for title, body in report(section, text_table):
        if title:
            print(f"\n{title}\n{'-' * len(title)}")
        print(body)


def write_markdown(section, path=DOC):
    """The section between its markers of ``path`` (appended under a heading of its own
    when the markers are missing); the rest of the file is kept."""
    body = "\n\n".join(
        (f"### {title}\n\n{text}" if title else text)
        for title, text in report(section, markdown_table)
    )
    command = (
        "python benchmarks/bench_quality.py --multi-target --load docs/quality/results.json "
        "--markdown"
    )
    block = (
        f"{START}\n<!-- generated by `{command}`; edit outside the markers -->\n\n{body}\n\n{END}"
    )
    text = path.read_text()
    if START in text and END in text:
        head, rest = text.split(START, 1)
        text = head + block + rest.split(END, 1)[1]
    else:
        text = text.rstrip() + f"\n\n## {TITLE}\n\n" + block + "\n"
    path.write_text(text)
    print(f"wrote {path} ({TITLE})")


def merge(saved, new):
    """``saved`` (a results file's multi-target section, or None) with the sets of ``new``
    put in place of the same sets; ``new``'s meta replaces the old one."""
    if not saved:
        return new
    return {"meta": new["meta"], "datasets": {**saved["datasets"], **new["datasets"]}}
