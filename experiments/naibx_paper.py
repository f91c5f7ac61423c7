"""The NaiBX paper's comparison (Mossina and Rachelson 2017), rerun with mlnb.

NaiBX, NaiBX-TrueM (the true size given), CC-NB, ECC-NB, CC-SVM, ECC-SVM and RAkEL-SVM
(k = 3, m = 10) on the shared multi-label sets: 10-fold cross-validation, or one 66 % / 34 %
split for the large sets (bibtex, tmc2007-500, ohsumed, the yahoo sets), as in the paper.
Criteria: zero-one loss, Hamming loss, accuracy, precision, recall (example-based), dCard
(predicted minus true label cardinality), the share of rows where both the true and the
predicted set are empty (to restate accuracy, precision and recall in the authors'
convention, below), T_train and T_test in seconds.

Choices (the paper used default parameters of its tools):

- features: Gaussian for the continuous sets (emotions, yeast, scene), Bernoulli for the
  binary bags of words (medical, enron, bibtex, langlog, slashdot, tmc2007-500, ohsumed: all
  their values are 0 or 1), multinomial for the yahoo sets (non-negative tf-idf-like
  weights). The NB baselines use the same event model.
- SVM: scikit-learn's ``LinearSVC`` (C = 1), preceded by ``StandardScaler`` on the dense
  continuous sets. The paper's SVM came from MEKA/Weka (SMO); a linear SVM keeps the 10-fold
  runs to minutes on a two-core machine.
- ECC: 10 chains, each on 66 % of the rows, majority vote; RAkEL-o: 10 label sets of size 3.
- NaiBX-TrueM reuses the NaiBX model fitted on the same fold, so its T_train is NaiBX's.
- One BLAS thread (``--threads 1``): liblinear is single-threaded, so every method is timed
  on one core; on a shared two-core machine this also avoids BLAS oversubscription.

Against the published tables (``naibx_published_values.py``: Tables IV and V of the paper
for the seven sets we have): the Markdown puts the paper's NaiBX, NBX-TrueM, ECC and RAkEL
figures beside ours. The authors' C++ code (SuReLI/naibx-mlc, ``include/metrics.cpp``)
scores a row whose true and predicted sets are both empty 0 in accuracy, precision and
recall, where mlnb and MEKA score it 1; the NaiBX columns of that comparison use the authors'
convention (ours minus the ``both_empty`` share), the ECC and RAkEL columns MEKA's.

``--authors-check`` runs the diagnostics of that comparison (rows of ``naibx.csv`` whose
method names hold ``C++`` or ``@authors-folds``): :class:`AuthorsBernoulliNaiBX`, a port of
the authors' bag-of-words NaiBX, and the training rows of the authors' k-fold code
(:func:`authors_folds`), with mlnb's NaiBX and with the port.

Usage::

    python experiments/naibx_paper.py                # 15 sets, all methods
    python experiments/naibx_paper.py --quick        # 3 folds, ECC with 5 chains
    python experiments/naibx_paper.py --datasets emotions,yeast --methods NaiBX,CC-NB
    python experiments/naibx_paper.py --authors-check  # the diagnostics, the paper's 7 sets
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
from naibx_published_values import MOSTLY_EMPTY, PAPER_NAMES, PUBLISHED_METRICS, published
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
    "langlog": ("bernoulli", 10),
    "slashdot": ("bernoulli", 10),
    "bibtex": ("bernoulli", 0.66),
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
#: Criteria computed here: predicted minus true label cardinality, and the share of rows
#: whose true and predicted sets are both empty.
EXTRA = ["d_card", "both_empty"]
COLUMNS = ["dataset", "method", "split", *CRITERIA, *EXTRA, "train_time", "test_time"]
#: ECC-SVM and RAkEL-SVM with MEKA's default threshold, from the same fitted models.
PCUT1 = {"ECC-SVM": "ECC-SVM/PCut1", "RAkEL-SVM": "RAkEL-SVM/PCut1"}
#: The diagnostics of ``--authors-check`` (see the module docstring).
DIAGNOSTICS = [
    "NaiBX@authors-folds",
    "NaiBX-TrueM@authors-folds",
    "C++NaiBX",
    "C++NaiBX-TrueM",
    "C++NaiBX@authors-folds",
    "C++NaiBX-TrueM@authors-folds",
]


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


def pcut1(scores, cardinality):
    """MEKA's default decision ("PCut1", ``ThresholdUtils.calibrateThreshold``): one threshold
    on the test rows' label scores, so that they hold about ``cardinality`` labels per row
    (the training cardinality); a label is predicted when its score is at least the threshold.
    MEKA's index arithmetic is kept: with k = round(cardinality * n) the cut lies between the
    k-th and (k-1)-th largest scores, ties included."""
    flat = np.sort(scores, axis=None)
    n = scores.shape[0]
    i = flat.size - int(np.floor(cardinality * n + 0.5))  # Java's Math.round
    i = min(max(i, 0), flat.size - 1)
    j = min(max(i + 1, n - 1), flat.size - 1)
    return (scores >= max((flat[i] + flat[j]) / 2, 1e-5)).astype(int)


def vote_scores(method, model, X):
    """The mean vote per label that MEKA's ECC (bagged CC) and RAkEL threshold: over the
    chains, or over the label subsets that hold the label (0 where none does)."""
    if method == "ECC-SVM":
        return model.predict_proba(X)  # hard voting: the mean of the chains' 0/1 responses
    return np.nan_to_num(model._votes(X, use_probabilities=False), nan=0.0)


def score_fold(metrics, Y_test, predicted):
    """Every criterion of one fold (``metrics``: mlnb's, for :data:`CRITERIA`)."""
    out = {criterion: float(metric(Y_test, predicted)) for criterion, metric in metrics.items()}
    P = predicted.toarray() if sp.issparse(predicted) else np.asarray(predicted)
    true_sizes, sizes = Y_test.sum(axis=1), P.sum(axis=1)
    out["d_card"] = float(sizes.mean() - true_sizes.mean())
    out["both_empty"] = float(np.mean((true_sizes == 0) & (sizes == 0)))
    return out


def summarise(name, split, results, failed=()):
    """CSV rows from per-fold scores: mean and standard deviation of each criterion."""
    rows = []
    for method, scores in results.items():
        row = {"dataset": name, "method": method, "split": split}
        if method not in failed:
            for criterion, values in scores.items():
                row[criterion] = float(np.mean(values))
                row[f"{criterion}_std"] = float(np.std(values, ddof=1)) if len(values) > 1 else ""
        rows.append(row)
    return rows


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
    derived = [PCUT1[m] for m in methods if m in PCUT1]
    results = {m: {c: [] for c in COLUMNS[3:]} for m in [*methods, *derived]}
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
            outcomes = [(method, predicted, test_time)]
            if method in PCUT1:
                scores, vote_time = timed(vote_scores, method, model, X_test)
                cut = pcut1(scores, Y_train.sum(axis=1).mean())
                outcomes.append((PCUT1[method], cut, vote_time))
            for outcome, predicted, test_time in outcomes:
                scores = results[outcome]
                for criterion, value in score_fold(metrics, Y_test, predicted).items():
                    scores[criterion].append(value)
                scores["train_time"].append(train_time)
                scores["test_time"].append(test_time)
        log(f"  fold {fold + 1}/{len(splits)} done")
    failed |= {PCUT1[m] for m in failed if m in PCUT1}
    rows = summarise(name, split, results, failed)
    for row in rows:
        if row["method"] not in failed:
            log(
                f"  {row['method']:12s} 0/1 {row['zero_one']:.3f} Ham {row['hamming']:.4f} "
                f"acc {row['accuracy']:.3f} dCard {row['d_card']:+.3f} "
                f"T {row['train_time']:.2f}s/{row['test_time']:.2f}s"
            )
    return rows


# ---- the authors' code, for --authors-check -------------------------------------------------
class AuthorsBernoulliNaiBX:
    """A port of the authors' bag-of-words NaiBX (``BernoulliBowNaibx``, SuReLI/naibx-mlc,
    ``include/bownaibx.hpp``, run by its ``--bernoulli`` switch): a diagnostic, not a method.

    Binary features only. Where it differs from :class:`mlnb.multilabel.naibx.NaiBX`:

    - size stage f0: ``p(x_i = 1 | m) = (c_im + 1) / (N_m + d + 1)`` (d: number of features)
      for the words present only; through a ``score += proba`` outside its ``if``, each
      present word's log-probability counts 1 + (number of absent words up to the next
      present word) times, and the absent words before the first present one take the last
      present word's log-probability at the previous size (0 at m = 0). Every size 0..L is
      a candidate, ``P(M = m) = (N_m + 1) / (N + L + 1)``;
    - label stage: the same Bernoulli words (present and absent, ``(c_iy + 1) / (N_y + 2)``),
      but ``P(y) = (N_y + 1) / (N + L)`` with N the number of examples, ``P(m | y) =
      (N_ym + 1) / (N_y + L)`` and ``P(y' | y) = (C_yy' + 1) / (N_y + L)`` (mlnb: K = L - 1
      values over the number of pairs seen).

    Ties go to the lowest index, as in the C++ (strict ``>``). Not reproduced: the C++ reader
    keys features by their ARFF column, so on a labels-first file (langlog) the first
    feature index is L and the last L words are never read.
    """

    def fit(self, X, Y):
        X = sp.csr_matrix(X)
        Y = np.asarray(Y, dtype=np.int64)
        n, d = X.shape
        n_labels = Y.shape[1]
        sizes = sp.csr_matrix((np.ones(n), (np.arange(n), Y.sum(axis=1))), shape=(n, n_labels + 1))
        present = (X != 0).astype(np.float64)
        n_m = np.asarray(sizes.sum(axis=0)).ravel()
        n_y = Y.sum(axis=0).astype(np.float64)
        self.log_size_prior_ = np.log(n_m + 1) - np.log(n + n_labels + 1)
        self.log_word_size_ = np.log((present.T @ sizes).toarray() + 1) - np.log(n_m + d + 1)
        self.log_label_prior_ = np.log(n_y + 1) - np.log(n + n_labels)
        p = (np.asarray(present.T @ Y) + 1) / (n_y + 2)
        self.log_absent_ = np.log1p(-p).sum(axis=0)
        self.log_odds_ = np.log(p) - np.log1p(-p)
        size_label = (sizes.T @ Y).T  # [y, m]
        self.log_size_given_label_ = (np.log(size_label + 1) - np.log(n_y + n_labels)[:, None]).T
        pairs = (Y.T @ Y).astype(np.float64)
        np.fill_diagonal(pairs, 0)
        self.log_pair_ = np.log(pairs + 1) - np.log(n_y + n_labels)[:, None]  # [y, y0]
        self.n_labels_ = n_labels
        return self

    def predict_size(self, X):
        X = sp.csr_matrix(X, copy=True)
        X.sort_indices()
        d = X.shape[1]
        counts = np.diff(X.indptr)
        after = np.append(X.indices[1:], d)  # the next present word of the row, else d
        after[X.indptr[1:][counts > 0] - 1] = d
        weights = sp.csr_matrix((X.data + after - X.indices, X.indices, X.indptr), shape=X.shape)
        score = self.log_size_prior_ + np.asarray(weights @ self.log_word_size_)
        rows = np.flatnonzero(counts)
        first = X.indices[X.indptr[rows]]
        final = X.indices[X.indptr[rows + 1] - 1]
        carried = np.zeros((len(rows), self.n_labels_ + 1))
        carried[:, 1:] = self.log_word_size_[final, :-1]
        score[rows] += first[:, None] * carried
        return np.argmax(score, axis=1)

    def predict(self, X, sizes=None):
        X = sp.csr_matrix(X)
        sizes = self.predict_size(X) if sizes is None else np.asarray(sizes, dtype=np.intp)
        present = (X != 0).astype(np.float64)
        score = self.log_label_prior_ + self.log_absent_ + np.asarray(present @ self.log_odds_)
        score = score + self.log_size_given_label_[sizes]
        chosen = np.zeros(score.shape, dtype=bool)
        for step in range(int(sizes.max(initial=0))):
            active = np.flatnonzero(sizes > step)
            pick = np.argmax(score[active], axis=1)
            chosen[active, pick] = True
            score[active] += self.log_pair_[:, pick].T
            score[active] = np.where(chosen[active], -np.inf, score[active])
        return chosen.astype(int)


def authors_folds(n_samples, folds=10, repeats=3):
    """(train, test) rows of the authors' k-fold code (``test/main.cpp``), ``repeats`` shuffles.

    The rows are shuffled and cut into ``folds`` contiguous folds (the first ``n % folds``
    one row larger), fold k is the test set, but the model learns the first
    ``n - |fold k|`` shuffled rows (``add_example(count_features_bow.at(i), ...)`` for i
    below the size of the training part, where ``training_expl.at(i)`` was meant): for
    every fold but the last the test rows are among the training rows.
    """
    sizes = np.full(folds, n_samples // folds)
    sizes[: n_samples % folds] += 1
    starts = np.concatenate([[0], np.cumsum(sizes)])
    for seed in range(repeats):
        order = np.random.default_rng(seed).permutation(n_samples)
        for k in range(folds):
            yield order[: n_samples - sizes[k]], order[starts[k] : starts[k + 1]]


def authors_check(name, *, data_dir, log, repeats=3):
    """The diagnostic rows of one set: mlnb's NaiBX on the authors' training rows; the port
    of the authors' NaiBX (bag-of-words sets) on our folds and on theirs."""
    events, cv = DATASETS[name]
    X, Y = load(name, data_dir)
    metrics = get_metrics(CRITERIA)
    ours = split_indices(cv, X.shape[0], Y, random_state=0)
    split = f"{len(ours)}-fold CV" if len(ours) > 1 else "66 % split"
    runs = []  # (suffix, split label, folds)
    if events == "bernoulli":
        runs.append(("", split, ours))
    if isinstance(cv, int):  # the 66 % branch of the authors' code trains on the right rows
        runs.append(("@authors-folds", f"authors' {cv}-fold x {repeats}", None))
    rows = []
    for suffix, label, splits in runs:
        if splits is None:
            splits = list(authors_folds(X.shape[0], cv, repeats))
        names = ["C++NaiBX", "C++NaiBX-TrueM"] if events == "bernoulli" else []
        if suffix:
            names += ["NaiBX", "NaiBX-TrueM"]
        results = {m + suffix: {c: [] for c in COLUMNS[3:]} for m in names}
        for train, test in splits:
            models = {}
            if events == "bernoulli":
                models["C++NaiBX"] = timed(AuthorsBernoulliNaiBX().fit, X[train], Y[train])
            if suffix:
                models["NaiBX"] = timed(
                    NaiBX(events=events, rule="predict").fit, X[train], Y[train]
                )
            for base, (model, train_time) in models.items():
                for method, sizes in ((base, None), (base + "-TrueM", Y[test].sum(axis=1))):
                    predicted, test_time = timed(model.predict, X[test], sizes=sizes)
                    scores = results[method + suffix]
                    for criterion, value in score_fold(metrics, Y[test], predicted).items():
                        scores[criterion].append(value)
                    scores["train_time"].append(train_time)
                    scores["test_time"].append(test_time)
        rows += summarise(name, label, results)
        for row in rows[-len(results) :]:
            log(
                f"  {row['method']:28s} {label:22s} 0/1 {row['zero_one']:.3f} "
                f"Ham {row['hamming']:.4f} acc {row['accuracy']:.3f} dCard {row['d_card']:+.3f}"
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
        dict.fromkeys(r["dataset"] for r in rows if r["method"] in METHODS),
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
        "d_card": "dCard: predicted minus true label cardinality (closest to 0 in bold)",
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
        split = next(r["split"] for r in rows if r["dataset"] == name and r["method"] in METHODS)
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
            if criterion == "d_card":
                real = [min(real, key=abs)] if real else []
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
    lines += published_section(cell)
    lines += threshold_section(cell)
    lines += authors_section(cell)
    return "\n".join(lines) + "\n"


#: Our counterparts of the paper's methods: (paper's name, ours, Acc/Pre/Rec convention).
COUNTERPARTS = [
    ("NaiBX", "NaiBX", "authors"),
    ("NaiBX-TrueM", "NaiBX-TrueM", "authors"),
    ("ECC", "ECC-SVM", "meka"),
    ("RAkEL", "RAkEL-SVM", "meka"),
]
#: Where a published figure and ours differ by more than this, the difference is in bold.
NOTABLE = 0.03


def our_value(row, metric, convention):
    """Our figure for a published column: Hs = 1 - Hamming loss, Zs = 1 - zero-one loss;
    in the authors' convention a row with both sets empty scores 0 in Acc, Pre and Rec."""
    if not row or row.get("zero_one") in ("", None):
        return None
    value = {
        "dCard": row.get("d_card"),
        "Hs": 1 - float(row["hamming"]),
        "Zs": 1 - float(row["zero_one"]),
        "Acc": row["accuracy"],
        "Pre": row["example_precision"],
        "Rec": row["example_recall"],
    }[metric]
    if value in ("", None):
        return None
    value = float(value)
    if metric in ("Acc", "Pre", "Rec") and convention == "authors":
        value -= float(row["both_empty"]) if row.get("both_empty") not in ("", None) else 0.0
    return value


def compared(paper, ours):
    """Three cells: the published figure, ours and ours minus it (bold beyond NOTABLE)."""
    if paper is None:
        return ["-", "" if ours is None else f"{ours:.3f}", ""]
    if ours is None:
        return [f"{paper:.3f}", "", ""]
    diff = ours - paper
    text = f"{diff:+.3f}"
    return [f"{paper:.3f}", f"{ours:.3f}", f"**{text}**" if abs(diff) > NOTABLE else text]


def published_section(cell):
    """Per data set: the paper's NaiBX, NBX-TrueM, ECC and RAkEL beside ours."""
    table = published()
    names = [n for n in PAPER_NAMES if any((n, m) in cell for _, m, _ in COUNTERPARTS)]
    if not names:
        return []
    lines = [
        "",
        "## Against the published tables",
        "",
        "The paper's Tables IV and V (Mossina and Rachelson; its NaiBX is the authors' C++",
        "code, its ECC and RAkEL MEKA's with an SVM) beside our NaiBX, NaiBX-TrueM, ECC-SVM and",
        "RAkEL-SVM on the same protocol (10-fold CV, bibtex one 66 % split). Columns: paper,",
        f"ours, ours minus paper, in bold beyond {NOTABLE}. Hs = 1 - Hamming loss, Zs = exact",
        "match. NaiBX's Acc, Pre and Rec are in the authors' convention (a row with true and",
        "predicted sets both empty scores 0, as in their `metrics.cpp`; mlnb scores it 1; only",
        "langlog has empty rows), ECC's and RAkEL's in MEKA's (1, as mlnb). TrueM's dCard is 0",
        "by construction.",
    ]
    for name in names:
        split = next(r["split"] for (n, m), r in cell.items() if n == name and m in METHODS)
        lines += ["", f"### {name} ({PAPER_NAMES[name]} in the paper; {split})", ""]
        header = ["metric"]
        for paper_method, ours, _ in COUNTERPARTS:
            note = " (1)" if (name, paper_method) in MOSTLY_EMPTY else ""
            header += [f"{paper_method} paper{note}", f"{ours} ours", "diff"]
        lines += ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
        for metric in PUBLISHED_METRICS:
            cells = [metric]
            for paper_method, ours, convention in COUNTERPARTS:
                paper = table.get((name, paper_method), {}).get(metric)
                mine = our_value(cell.get((name, ours)), metric, convention)
                if paper_method == "NaiBX-TrueM" and metric == "dCard":
                    cells += ["-", "", ""]
                else:
                    cells += compared(paper, mine)
            lines.append("| " + " | ".join(cells) + " |")
        if any((name, m) in MOSTLY_EMPTY for m, _, _ in COUNTERPARTS):
            lines += ["", "(1) The paper: most of the predictions were empty sets."]
    return lines


def diff_cells(row, paper, metrics, convention):
    """``ours (ours - paper)`` per metric, in bold beyond NOTABLE."""
    cells = []
    for metric in metrics:
        mine = our_value(row, metric, convention)
        if mine is None or metric not in paper:
            cells.append("" if mine is None else f"{mine:.3f}")
            continue
        text = f"({mine - paper[metric]:+.3f})"
        cells.append(
            f"{mine:.3f} " + (f"**{text}**" if abs(mine - paper[metric]) > NOTABLE else text)
        )
    return cells


def threshold_section(cell):
    """ECC-SVM and RAkEL-SVM with the vote at 0.5 and with MEKA's PCut1 beside MEKA's."""
    table = published()
    names = [n for n in PAPER_NAMES if any((n, m) in cell for m in PCUT1.values())]
    if not names:
        return []
    lines = [
        "",
        "## ECC and RAkEL with MEKA's default threshold",
        "",
        "MEKA thresholds the mean vote of ECC's chains and of RAkEL's subsets with PCut1 by",
        "default: one cut on the test rows' scores such that they hold the training label",
        "cardinality (`pcut1`); ours predict a label when more than half the votes hold it.",
        "Same fitted models, two decisions; ours minus paper in parentheses.",
        "",
        "| data set | run | " + " | ".join(PUBLISHED_METRICS) + " |",
        "|---" * (len(PUBLISHED_METRICS) + 2) + "|",
    ]
    for name in names:
        for paper_method, ours in (("ECC", "ECC-SVM"), ("RAkEL", "RAkEL-SVM")):
            paper = table.get((name, paper_method), {})
            note = " (1)" if (name, paper_method) in MOSTLY_EMPTY else ""
            lines.append(
                f"| {name} | {paper_method} paper{note} | "
                + " | ".join(f"{paper[m]:.3f}" for m in PUBLISHED_METRICS)
                + " |"
            )
            for label, method in ((f"{ours}, vote > 0.5", ours), (f"{ours}, PCut1", PCUT1[ours])):
                row = cell.get((name, method))
                if row:
                    cells = diff_cells(row, paper, PUBLISHED_METRICS, "meka")
                    lines.append(f"| | {label} | " + " | ".join(cells) + " |")
    if any(key[0] in names for key in MOSTLY_EMPTY):
        lines += ["", "(1) The paper: most of the predictions were empty sets."]
    return lines


#: The rows of the authors' check: (label, NaiBX method, TrueM method).
AUTHORS_RUNS = [
    ("mlnb NaiBX, our folds", "NaiBX", "NaiBX-TrueM"),
    ("mlnb NaiBX, authors' training rows", "NaiBX@authors-folds", "NaiBX-TrueM@authors-folds"),
    ("authors' code (port), our folds", "C++NaiBX", "C++NaiBX-TrueM"),
    (
        "authors' code (port), authors' training rows",
        "C++NaiBX@authors-folds",
        "C++NaiBX-TrueM@authors-folds",
    ),
]


def authors_section(cell):
    """The published NaiBX and NBX-TrueM against mlnb's and the port's, on both folds."""
    table = published()
    names = [n for n in PAPER_NAMES if any((n, m) in cell for m in DIAGNOSTICS)]
    if not names:
        return []
    lines = [
        "",
        "## The authors' code and folds (`--authors-check`)",
        "",
        "The published NaiBX (and NBX-TrueM) figures against four reruns: mlnb's NaiBX and a",
        "port of the authors' bag-of-words NaiBX (`AuthorsBernoulliNaiBX`, binary sets only),",
        "each on our folds and on the training rows of the authors' k-fold code (the first",
        "n - |fold| shuffled rows, which hold the test fold for 9 folds of 10; 3 shuffles,",
        "30 folds; see `authors_folds`). bibtex: one 66 % split, where the authors' code trains",
        "on the right rows. Authors' convention for Acc, Pre, Rec; ours minus paper in",
        "parentheses, in bold beyond " + f"{NOTABLE}.",
    ]
    for title, column in (("NaiBX", 1), ("NBX-TrueM (true sizes given)", 2)):
        paper_method = "NaiBX" if column == 1 else "NaiBX-TrueM"
        metrics = PUBLISHED_METRICS if column == 1 else PUBLISHED_METRICS[1:]
        lines += ["", f"### {title}", "", "| data set | run | " + " | ".join(metrics) + " |"]
        lines.append("|---" * (len(metrics) + 2) + "|")
        for name in names:
            paper = table.get((name, paper_method), {})
            lines.append(
                f"| {name} | paper | " + " | ".join(f"{paper[m]:.3f}" for m in metrics) + " |"
            )
            for label, *methods in AUTHORS_RUNS:
                row = cell.get((name, methods[column - 1]))
                if not row:
                    continue
                cells = diff_cells(row, paper, metrics, "authors")
                lines.append(f"| | {label} | " + " | ".join(cells) + " |")
    return lines


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
    parser.add_argument(
        "--datasets", default=None, help="comma-separated (default: all, or the paper's seven)"
    )
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--out", default=str(OUT), help="directory of naibx.csv and naibx.md")
    parser.add_argument(
        "--threads", type=int, default=1, help="BLAS threads (1: every method single-threaded)"
    )
    parser.add_argument("--report-only", action="store_true", help="rebuild the Markdown only")
    parser.add_argument(
        "--authors-check",
        action="store_true",
        help="the diagnostics against the authors' code and folds (default: the paper's sets)",
    )
    args = parser.parse_args(argv)
    threadpool_limits(args.threads)
    out = Path(args.out)
    csv_path, md_path = out / "naibx.csv", out / "naibx.md"
    command = "python experiments/naibx_paper.py" + (" --quick" if args.quick else "")
    rows = read_rows(csv_path)
    if args.datasets is None:
        args.datasets = ",".join(PAPER_NAMES if args.authors_check else DEFAULT_DATASETS)
    log = lambda text: print(text, flush=True)  # noqa: E731
    if not args.report_only:
        methods = [m for m in METHODS if m in args.methods.split(",")]
        for name in args.datasets.split(","):
            if name not in DATASETS:
                parser.error(f"unknown data set {name!r}; use some of {list(DATASETS)}")
            if args.authors_check:
                log(name)
                new = authors_check(name, data_dir=args.data_dir, log=log)
            else:
                new = evaluate(
                    name,
                    methods,
                    folds=3 if args.quick else 10,
                    n_chains=5 if args.quick else 10,
                    data_dir=args.data_dir,
                    log=log,
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
