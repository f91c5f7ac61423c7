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
import ctypes
import datetime
import gc
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

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "benchmarks.md"
START, END = "<!-- bench_multilabel:start -->", "<!-- bench_multilabel:end -->"

DATASETS = ("delicious", "bibtex", "enron", "yeast")
BENCHMARKS = ("br", "cc", "ecc")
LIBRARIES = ("mlnb", "sklearn", "skmultilearn")
TITLES = {
    "br": "Binary relevance (BR-NB)",
    "cc": "Classifier chain (CC-NB)",
    "ecc": "Ensemble of 10 classifier chains (ECC-NB)",
}
QUICK_ROWS = (1000, 500)
N_CHAINS, SAMPLE_FRACTION, SEED = 10, 0.66, 0
MAX_RUNS = 200  # cap on the repeats of a fast case


# ---- models --------------------------------------------------------------------------------------
def events_of(dataset):
    """mlnb event model of a data set: Gaussian on yeast's dense features, else multinomial."""
    return "gaussian" if dataset == "yeast" else "multinomial"


def sklearn_nb(dataset):
    """scikit-learn's NB classifier matching :func:`events_of`."""
    from sklearn.naive_bayes import GaussianNB, MultinomialNB

    return GaussianNB() if dataset == "yeast" else MultinomialNB()


class SklearnECC:
    """Ten scikit-learn classifier chains with random orders, each on a 66 % sample.

    The same protocol as :class:`mlnb.EnsembleClassifierChains`: ``n_chains`` samples of
    ``round(sample_fraction * n)`` rows drawn without replacement, one random label order
    per chain, and the mean of the chains' 0/1 predictions thresholded at 0.5.

    Parameters
    ----------
    base : classifier
        Cloned into every link of every chain.
    n_chains : int, default=10
    sample_fraction : float, default=0.66
    random_state : int, default=0
    """

    def __init__(self, base, n_chains=N_CHAINS, sample_fraction=SAMPLE_FRACTION, random_state=0):
        self.base = base
        self.n_chains = n_chains
        self.sample_fraction = sample_fraction
        self.random_state = random_state

    def fit(self, X, Y):
        """Fit every chain on its sample; returns self."""
        from sklearn.multioutput import ClassifierChain

        rng = np.random.default_rng(self.random_state)
        size = max(round(self.sample_fraction * X.shape[0]), 1)
        self.chains_ = []
        for _ in range(self.n_chains):
            rows = np.sort(rng.choice(X.shape[0], size, replace=False))
            seed = int(rng.integers(2**31 - 1))
            chain = ClassifierChain(self.base, order="random", random_state=seed)
            self.chains_.append(chain.fit(X[rows], Y[rows]))
        return self

    def predict(self, X):
        """``[mean of the chains' 0/1 predictions > 0.5]``, shape (n_samples, n_labels)."""
        votes = sum(chain.predict(X) for chain in self.chains_)
        return (votes / self.n_chains > 0.5).astype(int)


def make_model(benchmark, library, dataset):
    """A fresh, unfitted estimator for one case.

    Parameters
    ----------
    benchmark : {"br", "cc", "ecc"}
    library : {"mlnb", "sklearn", "skmultilearn"}
    dataset : str

    Returns
    -------
    estimator or None
        None when the library has no such method (scikit-multilearn's ECC).
    """
    events = events_of(dataset)
    if library == "mlnb":
        import mlnb

        return {
            "br": lambda: mlnb.BinaryRelevance(events=events),
            "cc": lambda: mlnb.ClassifierChain(events=events),
            "ecc": lambda: mlnb.EnsembleClassifierChains(
                n_chains=N_CHAINS, events=events, random_state=SEED
            ),
        }[benchmark]()
    if library == "sklearn":
        from sklearn.multiclass import OneVsRestClassifier
        from sklearn.multioutput import ClassifierChain

        base = sklearn_nb(dataset)
        return {
            "br": lambda: OneVsRestClassifier(base),
            "cc": lambda: ClassifierChain(base, order=None),
            "ecc": lambda: SklearnECC(base, random_state=SEED),
        }[benchmark]()
    if benchmark == "ecc":
        return None
    from skmultilearn import problem_transform

    patch_skmultilearn()
    # Sparse X goes to the NB as it is; y as a dense 1-D vector (the NB's requirement).
    require_dense = [True, True] if dataset == "yeast" else [False, True]
    cls = {"br": problem_transform.BinaryRelevance, "cc": problem_transform.ClassifierChain}
    return cls[benchmark](classifier=sklearn_nb(dataset), require_dense=require_dense)


# ---- scikit-multilearn 0.2.0 patch --------------------------------------------------------------
def patch_skmultilearn():
    """Patch scikit-multilearn 0.2.0 in memory; returns the list of patches applied.

    ``BinaryRelevance.predict_proba``: column of class 1 through each classifier's
    ``classes_`` instead of ``[:, 1]`` (IndexError for a label constant in training).
    """
    from skmultilearn.problem_transform import BinaryRelevance

    if getattr(BinaryRelevance, "_mlnb_bench_patched", False):
        return ["BinaryRelevance.predict_proba"]

    def predict_proba(self, X):
        X = self._ensure_input_format(X)
        result = sp.lil_matrix((X.shape[0], self._label_count), dtype="float")
        for label, classifier in zip(self.partition_, self.classifiers_, strict=True):
            classes = list(classifier.classes_)
            if 1 in classes:
                result[:, label] = classifier.predict_proba(X)[:, [classes.index(1)]]
        return result

    BinaryRelevance.predict_proba = predict_proba
    BinaryRelevance._mlnb_bench_patched = True
    return ["BinaryRelevance.predict_proba"]


def library_available(library):
    """True when the library can be imported in this environment."""
    if library != "skmultilearn":
        return True
    try:
        import skmultilearn.problem_transform  # noqa: F401
    except ImportError:
        return False
    return True


# ---- data and measurement ------------------------------------------------------------------------
def load(dataset, quick=False):
    """(X_train, Y_train, X_test, Y_test) of a benchmark data set (CSR or dense float64)."""
    from mlnb.datasets import load_dataset

    train, test = load_dataset(dataset)
    X, Y, X_test, Y_test = train.X, np.asarray(train.Y), test.X, np.asarray(test.Y)
    if quick:
        (n, m) = QUICK_ROWS
        X, Y, X_test, Y_test = X[:n], Y[:n], X_test[:m], Y_test[:m]
    return X, Y, X_test, Y_test


def rss_kib():
    """Current resident set size of this process, KiB (Linux)."""
    with open("/proc/self/status") as status:
        return int(re.search(r"VmRSS:\s+(\d+)", status.read()).group(1))


def peak_rss_kib():
    """Peak resident set size of this process since the last reset, KiB (Linux)."""
    with open("/proc/self/status") as status:
        return int(re.search(r"VmHWM:\s+(\d+)", status.read()).group(1))


def release_free_memory():
    """Collect garbage and hand the heap's free pages back to the OS (glibc ``malloc_trim``).

    Otherwise the memory that loading the data freed stays resident, later allocations reuse
    it without raising the resident size, and a peak measured from there is too low.
    """
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def reset_peak_rss():
    """Reset the peak resident set size (Linux >= 4.0); False when not permitted."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        return False
    return True


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


def best_wall_and_cpu(function, repeat, min_time):
    """(best wall time, best process CPU time, number of calls) of ``function()``."""
    from mlnb.evaluation import best_time  # mlnb is imported by the cases, not at start

    timing = best_time(function, repeat, min_seconds=min_time, max_runs=MAX_RUNS)
    return timing.seconds, timing.cpu_seconds, timing.runs


def run_floor(dataset, args):
    """Time the floor of binary relevance: ``Y.T @ X`` (fastest form) + ``X_test @ W.T``."""
    X, Y, X_test, _ = load(dataset, args.quick)
    Y_float = np.asarray(Y, dtype=np.float64)
    forms = {"(X.T @ Y).T": lambda: (X.T @ Y_float).T}
    if sp.issparse(X):
        Y_csr = sp.csr_matrix(Y_float)
        X_csc = X.tocsc()
        forms["Y_csr.T @ X (sparse)"] = lambda: Y_csr.T @ X
        forms["X_csc.T @ Y (CSR x dense)"] = lambda: (X_csc.T @ Y_float).T
    else:
        forms["Y.T @ X (BLAS)"] = lambda: Y_float.T @ X
    timed = {
        name: best_wall_and_cpu(form, args.repeat, args.min_time) for name, form in forms.items()
    }
    fastest = min(timed, key=lambda name: timed[name][0])
    W = np.random.default_rng(0).random((Y.shape[1], X.shape[1]))
    product, product_cpu, runs = best_wall_and_cpu(lambda: X_test @ W.T, args.repeat, args.min_time)
    return {
        "fit": timed[fastest][0],
        "predict": product,
        "cpu": timed[fastest][1] + product_cpu,
        "form": fastest,
        "forms": {name: wall for name, (wall, _, _) in timed.items()},
        "runs": runs,
    }


# ---- floors of the chains ------------------------------------------------------------------------
STACKED_FLOOR_LIMIT = 1 << 24  # floats of (chains x labels x samples) timed all chains at once


def floor_blocks(n_labels):
    """Block sizes the floor's chain steps try (the fastest counts): 16, and mlnb's rule
    (:func:`mlnb.multilabel._inference.stacked_block`, up to 128 for many labels)."""
    return sorted({16, max(16, min(128, n_labels // 8))})


def chain_steps(base, weight, block=16):
    """The greedy steps of ``c`` chains at once, in their fastest blocked form.

    ``base``: (c, L, n) log-odds from the features, in chain order; ``weight``:
    (c, L, L) label-feature weights in chain order. Per block of labels one (batched)
    product with the decisions before the block; per label one matrix-vector product with
    the decisions inside its block and one comparison. The minimum of any greedy chain
    over dense pairwise weights: O(n L**2 / 2) multiply-adds per chain, L Python steps.
    """
    chains, n_labels, n_samples = base.shape
    decided = np.zeros((chains, n_labels, n_samples))
    for start in range(0, n_labels, block):
        stop = min(start + block, n_labels)
        scores = base[:, start:stop]
        if start:
            scores = scores + weight[:, start:stop, :start] @ decided[:, :start]
        for position in range(start, stop):
            step = scores[:, position - start]
            if position > start:
                step = (
                    step
                    + (weight[:, position, None, start:position] @ decided[:, start:position])[:, 0]
                )
            np.greater(step, 0.0, out=decided[:, position])
    return decided


def feature_products(X_test, gaussian, n_rows, rng):
    """Functions scoring every row of X_test for ``n_rows`` labels: the floor's feature term.

    Multinomial: ``X_test @ W.T`` (W of shape (n_rows, d), stored transposed so that
    scipy needs no copy); Gaussian: ``(X*X) @ A.T + X @ B.T`` (the quadratic form of the
    log-likelihood ratio: two products).
    """
    d = X_test.shape[1]
    if not gaussian:
        W_T = np.ascontiguousarray(rng.random((d, n_rows)))
        return lambda: X_test @ W_T
    A, B = rng.random((n_rows, d)), rng.random((n_rows, d))
    return lambda: (X_test * X_test) @ A.T + X_test @ B.T


def label_stacked_rows(X, Y):
    """(Q, rows): the rows of X holding each label, stacked label after label, with each
    label's columns shifted to a block of its own (what mlnb's ``_MemberLabels`` builds)."""
    by_label = sp.csc_matrix(Y)
    rows = by_label.indices
    stacked = X[rows]
    label_of_row = np.repeat(np.arange(Y.shape[1]), np.diff(by_label.indptr))
    shift = np.repeat(label_of_row * X.shape[1], np.diff(stacked.indptr))
    Q = sp.csr_matrix(
        (stacked.data, stacked.indices + shift, stacked.indptr),
        shape=(len(rows), Y.shape[1] * X.shape[1]),
    )
    return Q, rows


def run_chain_floor(dataset, benchmark, args):
    """Time the floor of a classifier chain ("cc") or of ten ("ecc").

    fit: the statistics (one grouping product, fastest form, operands prepared beforehand)
    plus one ``np.log`` over them (the parameters); predict: the feature term of every
    label of every chain (:func:`feature_products`, one stacked product or one per chain,
    whichever is faster) plus the chain steps (:func:`chain_steps`). The chain order is
    taken as the column order (a real implementation permutes the rows of W, L x d, once).
    """
    X, Y, X_test, _ = load(dataset, args.quick)
    gaussian = events_of(dataset) == "gaussian"
    n, n_labels = Y.shape
    chains = N_CHAINS if benchmark == "ecc" else 1
    rng = np.random.default_rng(0)
    Y_float = np.asarray(Y, dtype=np.float64)
    # Grouping: CC groups the rows by label (G = Y); ECC by (sample k, label l) and sample k.
    if benchmark == "ecc":
        size = max(round(SAMPLE_FRACTION * n), 1)
        M = np.zeros((n, chains))
        for k in range(chains):
            M[rng.choice(n, size, replace=False), k] = 1.0
        Y_ext = np.hstack([Y_float, np.ones((n, 1))])
        G = (M[:, :, None] * Y_ext[:, None, :]).reshape(n, -1)
    else:
        M, Y_ext, G = np.ones((n, 1)), Y_float, Y_float
    if sp.issparse(X):
        A = sp.hstack([X, sp.csr_matrix(Y_float)], format="csr")
    else:
        A = np.hstack([X, X * X, Y_float])
    forms = {}
    if sp.issparse(A):
        G_T = sp.csr_matrix(G.T)
        forms["G.T @ [X Y] (sparse)"] = lambda: (G_T @ A).toarray()
        Q, rows = label_stacked_rows(A, sp.csr_matrix(Y_ext))
        weights = M[rows]
        forms["label-stacked rows.T @ M"] = lambda: Q.T @ weights
        A_csc = A.tocsc()
        forms["[X Y]_csc.T @ G (dense G)"] = lambda: A_csc.T @ G
    else:
        forms["G.T @ [X X² Y] (BLAS)"] = lambda: G.T @ A

    def timed(function, times=1):
        wall, cpu, runs = best_wall_and_cpu(function, args.repeat, args.min_time)
        return wall * times, cpu * times, runs

    statistics = {name: timed(form) for name, form in forms.items()}
    fastest = min(statistics, key=lambda name: statistics[name][0])
    logs = rng.random((G.shape[1], A.shape[1])) + 1.0
    parts = {"statistics": statistics[fastest], "log": timed(lambda: np.log(logs))}
    # Prediction: the feature term of all chains' labels, then the chain steps; each in
    # its faster form: all chains at once, or one chain at a time (times the chains).
    n_test = X_test.shape[0]
    features = {
        "stacked": timed(feature_products(X_test, gaussian, chains * n_labels, rng)),
        "per chain": timed(feature_products(X_test, gaussian, n_labels, rng), chains),
    }
    base = feature_products(X_test, gaussian, n_labels, rng)().reshape(n_test, 1, n_labels)
    base = base - np.median(base, axis=0)  # about half the labels set
    weight = rng.normal(0.0, 0.1, size=(1, n_labels, n_labels))

    def steps(n_chains, block):
        bases = np.repeat(base, n_chains, axis=1)
        weights = np.repeat(weight, n_chains, axis=0)
        # one transposing copy: the products give (sample, chain, label), the steps read
        # one label of every chain at a time, contiguous in (chain, label, sample)
        return lambda: chain_steps(np.ascontiguousarray(bases.transpose(1, 2, 0)), weights, block)

    steps_forms = {}
    for block in floor_blocks(n_labels):
        steps_forms[f"per chain, block {block}"] = timed(steps(1, block), chains)
        if chains > 1 and chains * n_labels * n_test <= STACKED_FLOOR_LIMIT:
            steps_forms[f"stacked, block {block}"] = timed(steps(chains, block))
    for name, choices in (("features", features), ("chain steps", steps_forms)):
        best = min(choices, key=lambda form: choices[form][0])
        parts[f"{name} ({best})"] = choices[best]
    fit = [parts["statistics"], parts["log"]]
    predict = [part for name, part in parts.items() if name not in ("statistics", "log")]
    return {
        "fit": sum(part[0] for part in fit),
        "predict": sum(part[0] for part in predict),
        "cpu": sum(part[1] for part in parts.values()),
        "cpu_predict": sum(part[1] for part in predict),
        "form": fastest,
        "forms": {name: wall for name, (wall, _, _) in statistics.items()},
        "parts": {name: wall for name, (wall, _, _) in parts.items()},
        "steps_forms": {name: wall for name, (wall, _, _) in steps_forms.items()},
        "runs": min(runs for _, _, runs in parts.values()),
    }


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


# ---- report --------------------------------------------------------------------------------------
def fmt_time(seconds):
    """Seconds with three significant digits."""
    if seconds is None:
        return "—"
    return f"{seconds:.3g}" if seconds < 1000 else f"{seconds:.0f}"


def fmt(value, spec):
    """``format(value, spec)``, or a dash for None."""
    return "—" if value is None else format(value, spec)


def table_rows(results, benchmark):
    """Header and rows (lists of strings) of one benchmark's table."""
    header = ["data", "library", "fit s", "predict s", "fit+predict s", "x mlnb time", "runs"]
    header += ["CPU s", "x mlnb CPU"]
    header += ["peak MiB", "micro F1", "macro F1", "samples F1"]
    if benchmark == "br":
        header.append("max |ΔP|")
    rows = []
    for dataset in results["data"]:
        ours = results["cases"].get(f"{dataset}/{benchmark}/mlnb")
        libraries = [*results["libraries"], "floor"]
        for library in libraries:
            case = results["cases"].get(f"{dataset}/{benchmark}/{library}")
            if case is None:
                continue
            if "error" in case:
                rows.append(
                    [dataset, library, f"failed: {case['error']}"] + [""] * (len(header) - 3)
                )
                continue
            total = case["fit"] + case["predict"]
            ratio = None if ours is None else total / (ours["fit"] + ours["predict"])
            name = floor_name(benchmark, case) if library == "floor" else library
            row = [dataset, name, fmt_time(case["fit"]), fmt_time(case["predict"])]
            row += [fmt_time(total), fmt(ratio, ".3g"), str(case["runs"])]
            cpu_ratio = None
            if ours is not None and ours.get("cpu") and case.get("cpu") is not None:
                cpu_ratio = case["cpu"] / ours["cpu"]
            row += [fmt_time(case.get("cpu")), fmt(cpu_ratio, ".3g")]
            row += [fmt(case.get("peak_mib"), ".1f")]
            row += [fmt(case.get(key), ".4f") for key in ("f1_micro", "f1_macro", "f1_samples")]
            if benchmark == "br":
                row.append(fmt(case.get("max_dp"), ".1e"))
            rows.append(row)
    return header, rows


def floor_name(benchmark, case):
    """The floor's row name: what it times."""
    if benchmark == "br":
        return f"floor ({case['form']} + X_test @ W.T)"
    chains = "10 chains" if benchmark == "ecc" else "1 chain"
    return f"floor ({case['form']} + log; feature products + chain steps, {chains})"


def speedup(results, dataset, benchmark, library, part="total", cpu=False):
    """How many times faster mlnb is than ``library`` (``part``: total, fit or predict);
    with ``cpu``, in CPU time (total or predict only; None where not measured)."""
    ours = results["cases"].get(f"{dataset}/{benchmark}/mlnb")
    theirs = results["cases"].get(f"{dataset}/{benchmark}/{library}")
    if not ours or not theirs or "error" in ours or "error" in theirs:
        return None

    def seconds(case):
        if cpu:
            return case.get({"total": "cpu", "predict": "cpu_predict"}.get(part, ""))
        return case["fit"] + case["predict"] if part == "total" else case[part]

    if not seconds(ours) or not seconds(theirs):
        return None
    return seconds(theirs) / seconds(ours)


def targets(results):
    """(target, data set, measured, met) rows of the issue's targets.

    ``met`` is None where the issue sets no target (BR speed and floor: delicious only).
    """
    rows = []
    cases = results["cases"]
    for dataset in results["data"]:
        for benchmark, part, goal in (
            ("br", "total", 30),
            ("cc", "predict", 50),
            ("ecc", "total", 100),
        ):
            value = speedup(results, dataset, benchmark, "sklearn", part)
            if value is not None:
                what = "fit+predict" if part == "total" else part
                label = f"{benchmark.upper()} {what} ≥ {goal}x faster than scikit-learn"
                met = value >= goal if benchmark != "br" or dataset == "delicious" else None
                cpu = speedup(results, dataset, benchmark, "sklearn", part, cpu=True)
                measured = f"{value:.1f}x" + ("" if cpu is None else f" (CPU {cpu:.1f}x)")
                rows.append((label, dataset, measured, met))
        ours, floor = cases.get(f"{dataset}/br/mlnb"), cases.get(f"{dataset}/br/floor")
        if ours and floor and "error" not in ours and "error" not in floor:
            ratio = (ours["fit"] + ours["predict"]) / (floor["fit"] + floor["predict"])
            met = ratio <= 3 if dataset == "delicious" else None
            rows.append(("BR within 3x of the floor", dataset, f"{ratio:.2f}x", met))
        for benchmark, part, goal in (("cc", "predict", 50), ("ecc", "total", 100)):
            rows += floor_rows(cases, dataset, benchmark, part, goal)
        for benchmark in BENCHMARKS:
            ours = cases.get(f"{dataset}/{benchmark}/mlnb") or {}
            theirs = cases.get(f"{dataset}/{benchmark}/sklearn") or {}
            if ours.get("peak_mib") is not None and theirs.get("peak_mib") is not None:
                rows.append(
                    (
                        f"{benchmark.upper()} peak memory ≤ scikit-learn's",
                        dataset,
                        f"{ours['peak_mib']:.1f} vs {theirs['peak_mib']:.1f} MiB",
                        ours["peak_mib"] <= theirs["peak_mib"],
                    )
                )
        theirs = cases.get(f"{dataset}/br/sklearn") or {}
        if "max_dp" in theirs:
            ours = cases[f"{dataset}/br/mlnb"]
            same = all(
                abs(ours[key] - theirs[key]) < 1e-12
                for key in ("f1_micro", "f1_macro", "f1_samples")
            )
            rows.append(
                (
                    "BR equal to scikit-learn (F1s; max |ΔP|)",
                    dataset,
                    f"{'same F1' if same else 'F1 differ'}; {theirs['max_dp']:.1e}",
                    same and theirs["max_dp"] < 1e-6,
                )
            )
    # The delicious-only targets of the issue come first.
    rows.sort(key=lambda row: (row[1] != "delicious", row[0]))
    return rows


def floor_rows(cases, dataset, benchmark, part, goal):
    """Rows on a chain benchmark's floor: mlnb / floor, and whether the goal is reachable.

    A goal of "g times faster than scikit-learn" is out of reach of any implementation
    when scikit-learn's time is less than g times the floor's. Both are given in wall and
    in CPU time (best runs); the verdict follows the CPU time, which other processes on
    the machine disturb less than the wall time of scikit-learn's few long runs.
    """

    def seconds(case, cpu=False):
        if cpu:
            return case.get("cpu") if part == "total" else case.get("cpu_predict")
        return case["fit"] + case["predict"] if part == "total" else case[part]

    def ratio(a, b):
        wall = seconds(a) / seconds(b)
        cpu = seconds(a, True) / seconds(b, True) if seconds(a, True) and seconds(b, True) else None
        return wall, cpu

    ours, theirs = (cases.get(f"{dataset}/{benchmark}/{library}") for library in LIBRARIES[:2])
    floor = cases.get(f"{dataset}/{benchmark}/floor")
    if floor is None or "error" in floor:
        return []
    what = "fit+predict" if part == "total" else part
    rows = []
    if ours and "error" not in ours:
        wall, cpu = ratio(ours, floor)
        measured = f"{wall:.2f}x wall, {fmt(cpu, '.2f')}x CPU"
        rows.append((f"{benchmark.upper()} {what}: mlnb / floor", dataset, measured, "info"))
    if theirs and "error" not in theirs:
        wall, cpu = ratio(theirs, floor)
        measured = f"{wall:.1f}x wall, {fmt(cpu, '.1f')}x CPU"
        verdict = cpu if cpu is not None else wall
        rows.append(
            (
                f"{benchmark.upper()} {what} ≥ {goal}x: reachable (scikit-learn / floor ≥ {goal})",
                dataset,
                measured,
                "reachable" if verdict >= goal else "unreachable",
            )
        )
    return rows


def text_table(header, rows):
    """A plain-text table with aligned columns."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    return "\n".join(
        "  ".join(str(cell).ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in [header, *rows]
    )


def markdown_table(header, rows):
    """A GitHub-flavoured markdown table (``|`` inside a cell escaped)."""

    def line(cells):
        return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"

    return "\n".join([line(header), "|" + "---|" * len(header), *(line(row) for row in rows)])


def report(results, render):
    """The whole report (data, one table per benchmark, targets) with a table renderer."""
    machine = results["machine"]
    versions = ", ".join(f"{name} {v}" for name, v in machine["versions"].items())
    parts = [
        f"Run: {machine['date']}; {machine['cpu']}, {machine['cores']} cores, "
        f"{machine['memory']} memory; load average (1, 5, 15 min) {machine['load']} at start, "
        f"{machine.get('load_end', '?')} at the end{load_range(results)}.",
        f"Versions: {versions} (commit {machine.get('commit', '?')}). BLAS: {machine['blas']}"
        + blas_limit(machine),
        "Times: best of the repeats (see `runs`), wall seconds; x mlnb time: fit+predict of "
        "the library / mlnb's. CPU s: best process CPU time of one fit+predict (all threads; "
        "less sensitive than wall time to other processes on the machine). Peak: resident "
        "memory above the pre-fit baseline, first fit + predict, own process."
        + (" QUICK RUN (rows subsampled): indicative only." if results["quick"] else ""),
    ]
    header = ["data", "train", "test", "features", "labels", "X", "labels constant in train"]
    rows = [
        [name, d["train"], d["test"], d["features"], d["labels"], d["kind"], d["constant_labels"]]
        for name, d in results["data"].items()
    ]
    sections = [("Data", render(header, rows))]
    benchmarks = sorted({key.split("/")[1] for key in results["cases"]}, key=BENCHMARKS.index)
    for benchmark in benchmarks:
        sections.append((TITLES[benchmark], render(*table_rows(results, benchmark))))
    status = {
        True: "met",
        False: "MISSED",
        None: "(no target: set for delicious)",
        "info": "(no target)",
        "reachable": "reachable",
        "unreachable": "UNREACHABLE: even the floor is too slow",
    }
    rows = [(t, d, m, status[ok]) for t, d, m, ok in targets(results)]
    sections.append(("Targets", render(["target", "data", "measured", "status"], rows)))
    return parts, sections


def blas_limit(machine):
    """The end of the report's BLAS sentence: the thread limit of the cases, if any."""
    if machine.get("blas_threads"):
        return f"; limited to {machine['blas_threads']} thread(s) in every case (--blas-threads)."
    return "."


def load_range(results):
    """ ", 1-min load average a to b after the cases" (other processes share the 2 cores)."""
    loads = [case["load"] for case in results["cases"].values() if "load" in case]
    if not loads:
        return ""
    return f", {min(loads):.1f} to {max(loads):.1f} after the cases"


def print_report(results):
    """Print the report as plain text."""
    parts, sections = report(results, text_table)
    print("\n".join(parts))
    for title, body in sections:
        print(f"\n{title}\n{body}")


def write_markdown(results, path=DOC):
    """Write the report between the markers of ``path``, keeping the text around them."""
    parts, sections = report(results, markdown_table)
    body = "\n\n".join(parts)
    for title, table in sections:
        body += f"\n\n### {title}\n\n{table}"
    command = "python benchmarks/bench_multilabel.py --markdown"
    block = (
        f"{START}\n<!-- generated by `{command}`; edit outside the markers -->\n\n{body}\n\n{END}"
    )
    if path.exists():
        text = path.read_text()
        if START in text and END in text:
            head, rest = text.split(START, 1)
            text = head + block + rest.split(END, 1)[1]
        else:
            text = text.rstrip() + "\n\n" + block + "\n"
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = f"# Benchmarks\n\n## Multi-label Naive Bayes\n\n{block}\n"
    path.write_text(text)
    print(f"wrote {path}")


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
