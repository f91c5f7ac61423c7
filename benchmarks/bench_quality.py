"""Prediction quality of mlnb's multi-label methods at their defaults against scikit-learn's.

What is measured. On every multi-label data set that comes with a train/test split
(``mlnb.datasets.load_dataset`` returns a ``TrainTest`` pair: bibtex, birds, delicious,
emotions, enron, flags, genbase, medical, meka_music, reutersk500, scene, tmc2007, yeast;
meka_yeast, the same data as yeast with its labels in another order, is detected and left
out), each case is fitted on the training part and predicts the test part. Reported per
case: micro, macro and example-based ("samples") F1 of the 0/1 predictions
(:func:`mlnb.metrics.f1_score`: a ratio 0/0 counts 1 when truth and prediction are both
empty, i.e. scikit-learn's ``zero_division=1``), the ranking loss of the test label scores
(:func:`mlnb.metrics.label_ranking_loss`; a tie is a whole error), the labels per row
predicted against the truth's labels per row of the test part, and the wall time of ``fit``
+ ``predict`` (the scores for the ranking loss are computed afterwards and are not timed).

The cases:

- mlnb at its defaults, constructed with no argument but ``random_state=0`` where the
  estimator has one: ``BinaryRelevance()``, ``ClassifierChain()``,
  ``EnsembleClassifierChains()``, ``NaiBX()``, ``IMLNB()``, ``DynamicChain()``,
  ``DynamicChainEnsemble()``, ``OOCC()``, ``GeneticChainEnsemble()``, ``MLkNN()``,
  ``BRkNN()``, ``IBLRML()`` and, on sets of at most 30 labels, ``LabelPowerset()``. The
  additive ones (BR, CC, NaiBX, iMLNB) default to ``events="tuned", rule="tuned"``: their
  fit chooses the event model, smoothing and decision rule by cross-validation on the
  training part, and the time includes that search. After the timed runs, a fitted default
  model's ``chosen_`` is reported (compactly), and when it has ``chosen_params_`` the
  "plain" model ``clone(model).set_params(**model.chosen_params_)`` (those settings given
  explicitly, no search) is fitted on the same training rows as many times as the default
  was; the report gives "fit / plain fit", the default's best fit time over the plain one's
  ("cost in plain fits"), and whether the plain model predicts the same test labels. Without
  ``chosen_params_`` (a library before that change) the ratio is "n/a".
- mlnb references: "BR today-tuned", ``TunedThresholdsCV(BinaryRelevance(events="gaussian",
  rule="predict"), param_grid="auto", strategy="auto", scoring="f1_micro", cv=5,
  random_state=0)`` (what ``mlnb evaluate --threshold tuned`` ran before the new defaults),
  and "BR <E> 0.5", ``BinaryRelevance(events=E, rule="predict")`` (the estimator's own 0.5
  rule) for E = gaussian, and multinomial and bernoulli on non-negative data. Where
  ``BinaryRelevance`` has no ``rule`` parameter yet, ``rule="predict"`` is left out (the 0.5
  rule is then its only one). Scores of every mlnb case: :func:`mlnb.selection.label_scores`.
- scikit-learn: ``OneVsRestClassifier(NB())`` and ``multioutput.ClassifierChain(NB(),
  order=None)`` with the natural event model, ``MultinomialNB`` on sparse non-negative
  features (the bag-of-words sets) and ``GaussianNB`` otherwise (scores: the log-odds of
  ``predict_proba``, saturated 0/1 probabilities at -745/+745);
  ``OneVsRestClassifier(LinearSVC())`` (scores: ``decision_function``) and
  ``OneVsRestClassifier(LogisticRegression(max_iter=1000))`` (scores: ``predict_proba``),
  each in a ``Pipeline`` behind a ``StandardScaler`` (``with_mean=False`` on sparse
  features), at the default C ("C=1") and with C chosen by ``GridSearchCV(pipeline,
  {"onevsrestclassifier__estimator__C": [0.01, 0.1, 1, 10]}, cv=KFold(3, shuffle=True,
  random_state=0), scoring="f1_micro")`` ("CV-C": the whole search is in the timed fit).
  They get the labels as int64 (converted before the clock): scikit-learn 1.9's
  ``OneVsRestClassifier`` mixes up the columns of a uint8 indicator matrix of more than 256
  labels (delicious).
- scikit-multilearn, when it can be imported (its own environment; it is not a dependency
  of mlnb): ``BinaryRelevance(NB())``, ``LabelPowerset(NB())``, ``MLkNN(k=10)``. When it
  cannot, those rows are left out and the report says so.

The targets (computed from the results by ``_quality_report.targets``): (a) BR default micro
F1 >= "BR today-tuned" - 0.005 on every set and higher on average; (b) the best mlnb default
>= 0.95x the CV-C LinearSVC's micro F1 on every set and >= 1.0x on average; (c) every mlnb
default's micro F1 above scikit-learn's OvR NB; (d) fit / plain fit: median over the sets
<= 10 and max <= 25, per method; (e) BR default's fit + predict >= 5x faster than the CV-C
LinearSVC on the median set; (f) BR default's ranking loss <= the least of the "BR <E> 0.5"
references.

How. One process runs the cases one after the other; each case runs in a forked child
(the parent only waits), so that a case over its time budget (``--budget`` seconds, default
300) can be stopped; it is then reported as "over budget". ``--skip-slow`` skips, without
running it, a CV-C case whose C=1 case was over the budget or took more than 1/9 of it (the
search fits 4 C x 3 folds on 2/3 of the rows and refits once: about 9 of its C=1 fits). A
case is timed up to ``--repeat`` times (default 3) while its runs take less than
``--min-time`` seconds in all (default 5), and its best fit + predict is kept (slow cases:
one run). Every case's warnings are counted and listed. Run with one BLAS thread
(``OPENBLAS_NUM_THREADS=1`` etc.) on a shared machine.

    python benchmarks/bench_quality.py [--quick] [--datasets NAME ...] [--budget 300]
        [--skip-slow] [--skip SET/METHOD[/RULE] ...] [--only SET/METHOD[/RULE] ...]
        [--save results.json] [--load results.json] [--update results.json]
        [--markdown] [--plot] [--multi-target]

``--quick``: emotions, yeast and medical only (a smoke run of a few minutes).
``--update results.json --only ...``: run only the named cases (e.g. with a larger budget)
and put them in place of the same cases of saved results; the report names the re-runs.
A METHOD with a space is quoted: ``--only "BR today-tuned"``. ``--markdown`` writes the
report between the markers of docs/quality.md; ``--plot`` writes docs/quality/<set>.png
(micro F1 against fit + predict time, log time axis, one labelled point per case).

Multi-target classification (``--multi-target``: this section alone, none of the above).
On every set whose ``mlnb.datasets.dataset_kind`` is "multi-target" (today sf2: 1066 rows,
10 nominal features, 3 count targets), read with ``load_dataset(name, multi_target=True)``;
a provided train/test split is used as it is, else 10-fold cross-validation
(``KFold(10, shuffle=True, random_state=0)``), means and standard deviations over the
folds. The cases (helpers in ``_multi_target_quality.py``):

- mlnb at its defaults, ``MultiTargetRelevance()``, ``MultiTargetChain()`` (greedy),
  ``MultiTargetChain(inference="exact")`` and ``MultiTargetPowerset()``, given X as a
  DataFrame whose nominal columns are categorical with their declared values (what
  ``events="auto"`` reads as nominal: categorical event models with the declared number of
  values); and, as references on the loaded float array of codes, ``MultiTargetRelevance()``
  (what ``events="auto"`` makes of bare codes) and ``MultiTargetRelevance(events=Auto("auto",
  column_types=..., n_categories=...))`` with the Dataset's column types (the frame's model
  without the DataFrame's encoding in its time).
- scikit-learn: ``MultiOutputClassifier(CategoricalNB(min_categories=<declared values>))``
  and ``ClassifierChain`` of the same (order None: column order; its step j also sees the
  earlier targets as codes 0..K-1, counted with their classes seen), when every feature is
  nominal (``GaussianNB`` when none is; no NB case for mixed features);
  ``make_pipeline(OneHotEncoder(handle_unknown="ignore"), MultiOutputClassifier(
  LogisticRegression(max_iter=1000)))`` and the same with a ``ClassifierChain`` (the earlier
  targets appended as numeric codes, not one-hot); numeric features are standardised. A
  chain is fitted on every target's classes coded 0..K-1 (those of the training rows) and
  its predictions mapped back.
- the majority-class baseline: ``MultiOutputClassifier(DummyClassifier("most_frequent"))``.

Criteria per fold: :func:`mlnb.metrics.multi_target_exact_match`,
:func:`~mlnb.metrics.multi_target_hamming_score` and
:func:`~mlnb.metrics.multi_target_accuracy` (per target), and the fit + predict time (best
of up to ``--repeat`` runs while under ``--min-time``). Each case (all its folds) runs in a
forked child with the ``--budget``. Where two cases are the same model (mlnb's relevance
and scikit-learn's MultiOutputClassifier of CategoricalNB; the greedy chains), the report
gives the share of identical out-of-fold predictions. The results go to the
``multi_target`` entry of the results file (``--update results.json --multi-target`` puts
them into saved results; the multi-label entries are kept) and ``--markdown`` writes them
between their own markers of docs/quality.md.
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
from sklearn.base import BaseEstimator, clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.multiclass import OneVsRestClassifier
from sklearn.multioutput import ClassifierChain as SklearnChain
from sklearn.naive_bayes import GaussianNB as SklearnGaussianNB
from sklearn.naive_bayes import MultinomialNB as SklearnMultinomialNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

import _multi_target_quality as multi_target
import mlnb
from _machine import cpu_name
from _quality_report import plot, print_report, write_markdown
from mlnb.datasets import TrainTest, list_datasets, load_dataset
from mlnb.metrics import f1_score, label_ranking_loss
from mlnb.selection import label_scores

try:
    import skmultilearn  # noqa: F401

    HAVE_SKMULTILEARN = True
except ImportError:
    HAVE_SKMULTILEARN = False

QUICK = ("emotions", "yeast", "medical")
LP_MAX_LABELS = 30
CV = 5
C_GRID = [0.01, 0.1, 1, 10]
C_FOLDS = 3
SEARCH_FITS = len(C_GRID) * C_FOLDS * (C_FOLDS - 1) / C_FOLDS + 1  # in C=1 fits, roughly
SATURATED = 745.0


# ----------------------------------------------------------------------------- data


def dense(matrix):
    return matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)


def events_of(X):
    """The natural NB for scikit-learn: multinomial for sparse non-negative X, else Gaussian."""
    if sp.issparse(X) and (X.nnz == 0 or X.data.min() >= 0):
        return "multinomial"
    return "gaussian"


def nonnegative(X):
    values = X.data if sp.issparse(X) else np.asarray(X)
    return values.size == 0 or float(np.nanmin(values)) >= 0


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
    positive = nonnegative(train.X) and nonnegative(test.X)
    return {
        "train": train.n_samples,
        "test": test.n_samples,
        "features": train.n_features,
        "labels": train.n_labels,
        "cardinality": float(Y.sum(axis=1).mean()),
        "test_cardinality": float(np.asarray(test.Y).sum(axis=1).mean()),
        "kind": kind,
        "nonnegative": positive,
        "events": events_of(X),  # scikit-learn's NB
        "reference_events": ["multinomial", "bernoulli", "gaussian"] if positive else ["gaussian"],
        "constant_labels": int(np.sum(Y.min(axis=0) == Y.max(axis=0))),
    }


# ----------------------------------------------------------------------------- methods


def at_defaults(cls):
    """``cls()``, with ``random_state=0`` when it has one."""
    return cls(random_state=0) if "random_state" in cls().get_params() else cls()


def mlnb_defaults(n_labels):
    """name -> factory of the mlnb methods at their defaults."""
    classes = {
        "BR": mlnb.BinaryRelevance,
        "CC": mlnb.ClassifierChain,
        "ECC": mlnb.EnsembleClassifierChains,
        "NaiBX": mlnb.NaiBX,
        "iMLNB": mlnb.IMLNB,
        "DC": mlnb.DynamicChain,
        "DCE": mlnb.DynamicChainEnsemble,
        "OOCC": mlnb.OOCC,
        "GA": mlnb.GeneticChainEnsemble,
        "MLkNN": mlnb.MLkNN,
        "BRkNN": mlnb.BRkNN,
        "IBLR-ML": mlnb.IBLRML,
    }
    if n_labels <= LP_MAX_LABELS:
        classes["LP"] = mlnb.LabelPowerset
    return {name: (lambda cls=cls: at_defaults(cls)) for name, cls in classes.items()}


def has_rule():
    return "rule" in mlnb.BinaryRelevance().get_params()


def br_at_half(events):
    """``BinaryRelevance(events=events, rule="predict")``; no ``rule`` where it has none."""
    extra = {"rule": "predict"} if has_rule() else {}
    return mlnb.BinaryRelevance(events=events, **extra)


def today_tuned():
    """What ``mlnb evaluate --threshold tuned`` ran before the tuned defaults."""
    return mlnb.TunedThresholdsCV(
        br_at_half("gaussian"),
        param_grid="auto",
        strategy="auto",
        scoring="f1_micro",
        cv=CV,
        random_state=0,
    )


def mlnb_references(info):
    """name -> factory of the reference cases."""
    methods = {"BR today-tuned": today_tuned}
    for events in info["reference_events"]:
        methods[f"BR {events} 0.5"] = lambda events=events: br_at_half(events)
    return methods


def sklearn_nb(events):
    return SklearnMultinomialNB() if events == "multinomial" else SklearnGaussianNB()


def linear(estimator, sparse):
    return make_pipeline(StandardScaler(with_mean=not sparse), OneVsRestClassifier(estimator))


def cv_c(pipeline):
    """The pipeline with C chosen by 3-fold cross-validation of micro F1."""
    return GridSearchCV(
        pipeline,
        {"onevsrestclassifier__estimator__C": C_GRID},
        cv=KFold(C_FOLDS, shuffle=True, random_state=0),
        scoring="f1_micro",
    )


def competitor_methods(events, sparse):
    """(library, name, rule) -> (factory, how its label scores are read)."""
    svc = lambda: linear(LinearSVC(), sparse)  # noqa: E731
    logreg = lambda: linear(LogisticRegression(max_iter=1000), sparse)  # noqa: E731
    methods = {
        ("scikit-learn", "OvR-NB", "own"): (
            lambda: OneVsRestClassifier(sklearn_nb(events)),
            "scores",
        ),
        ("scikit-learn", "CC-NB", "own"): (
            lambda: SklearnChain(sklearn_nb(events), order=None),
            "scores",
        ),
        ("scikit-learn", "OvR-LinearSVC", "C=1"): (svc, "decision_function"),
        ("scikit-learn", "OvR-LinearSVC", "CV-C"): (lambda: cv_c(svc()), "decision_function"),
        ("scikit-learn", "OvR-LogReg", "C=1"): (logreg, "predict_proba"),
        ("scikit-learn", "OvR-LogReg", "CV-C"): (lambda: cv_c(logreg()), "predict_proba"),
    }
    if HAVE_SKMULTILEARN:
        from skmultilearn.adapt import MLkNN
        from skmultilearn.problem_transform import BinaryRelevance, LabelPowerset

        require = [False, True] if sparse else [True, True]
        methods[("scikit-multilearn", "BR-NB", "own")] = (
            lambda: BinaryRelevance(sklearn_nb(events), require_dense=require),
            "skmultilearn",
        )
        methods[("scikit-multilearn", "LP-NB", "own")] = (
            lambda: LabelPowerset(sklearn_nb(events), require_dense=require),
            "skmultilearn",
        )
        methods[("scikit-multilearn", "MLkNN(k=10)", "own")] = (
            lambda: MLkNN(k=10),
            "skmultilearn",
        )
    return methods


def case_list(pair):
    """Every case of a data set: mlnb defaults, references, competitors."""
    info = describe(pair)
    sparse = info["kind"].startswith("sparse")
    cases = [
        {"library": "mlnb", "method": name, "rule": "default", "factory": factory, "plain": True}
        for name, factory in mlnb_defaults(info["labels"]).items()
    ]
    cases += [
        {"library": "mlnb", "method": name, "rule": "reference", "factory": factory}
        for name, factory in mlnb_references(info).items()
    ]
    for (library, name, rule), (factory, scores) in competitor_methods(
        info["events"], sparse
    ).items():
        cases.append(
            {"library": library, "method": name, "rule": rule, "factory": factory, "scores": scores}
        )
    return cases


# ----------------------------------------------------------------------------- one case


def compact(value, limit=6):
    """A short, JSON-safe text of a chosen setting (long arrays summarised)."""
    if isinstance(value, dict):
        if len(value) > limit:
            return f"{{{len(value)} entries}}"
        return "{" + ", ".join(f"{k}: {compact(v)}" for k, v in value.items()) + "}"
    if isinstance(value, bool | np.bool_ | str):
        return str(value)
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return f"{float(value):.3g}"
    if isinstance(value, BaseEstimator):
        return re.sub(r"\s+", " ", repr(value))
    if isinstance(value, list | tuple | np.ndarray):
        try:
            values = np.asarray(value, dtype=object).ravel()
        except ValueError:  # ragged
            return f"{len(value)} items"
        if values.size > limit:
            try:
                numbers = np.asarray(value, dtype=np.float64)
                return f"{values.size} values in [{numbers.min():.3g}, {numbers.max():.3g}]"
            except (TypeError, ValueError):
                return f"{values.size} values"
        return "[" + ", ".join(compact(v) for v in values) + "]"
    return re.sub(r"\s+", " ", str(value))[:120]


def chosen_of(model):
    """What a fitted case chose at fit: ``{"chosen": {key: text}, ...}`` (JSON-safe)."""
    if isinstance(model, GridSearchCV):
        params = model.best_params_.items()
        return {"chosen": {k.rsplit("__", 1)[-1]: compact(v) for k, v in params}}
    if hasattr(model, "best_strategy_"):  # TunedThresholdsCV
        index = list(model.cv_results_["strategy"]).index(model.best_strategy_)
        chosen = {"rule": str(model.best_strategy_)}
        chosen.update({k: compact(v) for k, v in (model.best_params_ or {}).items()})
        return {"chosen": chosen, "cv_score": float(model.cv_results_["score"][index])}
    result = {}
    if isinstance(getattr(model, "chosen_", None), dict):
        result["chosen"] = {str(k): compact(v) for k, v in model.chosen_.items()}
    if isinstance(getattr(model, "chosen_params_", None), dict):
        result["chosen_params"] = {str(k): compact(v) for k, v in model.chosen_params_.items()}
    return result


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


def timed_runs(factory, train_X, Y, test_X, args):
    """Fit + predict up to ``args.repeat`` times while under ``args.min_time`` in all.

    Returns the last model and predictions, the best run's (fit, predict, CPU) seconds, the
    least fit time and the number of runs.
    """
    best, least_fit, runs, spent = None, None, 0, 0.0
    while runs < args.repeat and (runs == 0 or spent < args.min_time):
        model = factory()
        wall, cpu = time.perf_counter(), time.process_time()
        model.fit(train_X, Y)
        fitted = time.perf_counter()
        predictions = model.predict(test_X)
        done, cpu_done = time.perf_counter(), time.process_time()
        runs += 1
        spent += done - wall
        timing = (fitted - wall, done - fitted, cpu_done - cpu)
        if best is None or sum(timing[:2]) < sum(best[:2]):
            best = timing
        least_fit = timing[0] if least_fit is None else min(least_fit, timing[0])
    return model, predictions, best, least_fit, runs


def plain_fits(model, train_X, Y, test_X, predictions, runs):
    """The plain model of ``model.chosen_params_`` fitted ``runs`` times: its least fit time
    and whether it predicts the test rows as the default model did."""
    least, plain = None, None
    for _ in range(runs):
        plain = clone(model).set_params(**model.chosen_params_)
        start = time.perf_counter()
        plain.fit(train_X, Y)
        seconds = time.perf_counter() - start
        least = seconds if least is None else min(least, seconds)
    same = np.array_equal(dense(plain.predict(test_X)), dense(predictions))
    return {"plain_fit_s": least, "plain_same_predictions": bool(same)}


def quality(result, model, predictions, test, how):
    """F1s, labels per row and the ranking loss of the test part, into ``result``."""
    P = dense(predictions).astype(np.int64)
    truth = np.asarray(test.Y)
    for average, key in (("micro", "micro_f1"), ("macro", "macro_f1"), ("samples", "example_f1")):
        result[key] = float(f1_score(truth, P, average=average))
    result["predicted_cardinality"] = float(P.sum(axis=1).mean())
    result["true_cardinality"] = float(truth.sum(axis=1).mean())
    try:
        scores = read_scores(model, test.X, how)
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


def run_case(case, pair, args):
    """Fit and predict (timed), then score; a dict of results (run in a child process)."""
    train, test = pair
    Y = np.asarray(train.Y)
    if case["library"] != "mlnb":
        Y = Y.astype(np.int64)  # see the module docstring (scikit-learn's uint8 fault)
    seen = Counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model, predictions, best, least_fit, runs = timed_runs(
            case["factory"], train.X, Y, test.X, args
        )
        for w in caught:
            seen[warning_key(w)] += 1
        caught.clear()
        result = {
            "status": "ok",
            "fit_s": best[0],
            "predict_s": best[1],
            "total_s": best[0] + best[1],
            "cpu_s": best[2],
            "least_fit_s": least_fit,
            "runs": runs,
            "estimator": re.sub(r"\s+", " ", repr(model))[:500],
        }
        quality(result, model, predictions, test, case.get("scores", "scores"))
        for w in caught:
            seen[warning_key(w, " (scores)")] += 1
        caught.clear()
        result.update(chosen_of(model))
        if case.get("plain"):
            result["fit_ratio"] = None  # also without chosen_params_ (an older library)
            if isinstance(getattr(model, "chosen_params_", None), dict):
                try:
                    result.update(plain_fits(model, train.X, Y, test.X, predictions, runs))
                    result["fit_ratio"] = least_fit / max(result["plain_fit_s"], 1e-9)
                except Exception as error:
                    result["plain_error"] = f"{type(error).__name__}: {str(error)[:200]}"
        for w in caught:
            seen[warning_key(w, " (plain)")] += 1
    result["warnings"] = dict(seen)
    return result


def child(connection, case, pair, args, run):
    try:
        result = run(case, pair, args)
    except BaseException as error:
        result = {
            "status": "error",
            "reason": f"{type(error).__name__}: {str(error)[:300]}",
            "traceback": traceback.format_exc()[-2000:],
        }
    connection.send(result)
    connection.close()


def run_isolated(case, pair, args, run=run_case):
    """``run(case, pair, args)`` in a forked child, stopped after ``args.budget`` seconds."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=child, args=(sender, case, pair, args, run))
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
    """Why ``--skip-slow`` skips a CV-C case (None: run it)."""
    if not args.skip_slow or case["rule"] != "CV-C":
        return None
    plain = next(
        (
            r
            for r in done
            if (r["library"], r["method"], r["rule"]) == (case["library"], case["method"], "C=1")
        ),
        None,
    )
    if plain is None:
        return None
    if plain["status"] == "over budget":
        return f"its C=1 case was over the {args.budget:.0f} s budget"
    if plain["status"] != "ok":
        return None
    estimate = SEARCH_FITS * plain["total_s"]
    if estimate > args.budget:
        return f"estimated {estimate:.0f} s ({SEARCH_FITS:.0f}x its C=1 case) > {args.budget:.0f} s"
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
    meta["defaults"] = mlnb_api()
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
    print(f"mlnb defaults: {meta['defaults']}", flush=True)
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
    head = f"  {r['library']:<12} {r['method']:<20} {r['rule']:<9}"
    if r["status"] != "ok":
        return f"{head} {r['status']}: {r.get('reason', '')}"
    rank = "  n/a " if r.get("ranking_loss") is None else f"{r['ranking_loss']:.4f}"
    extra = ""
    if "fit_ratio" in r:
        ratio = r["fit_ratio"]
        extra += " fit/plain " + ("n/a" if ratio is None else f"{ratio:.1f}")
    if r.get("chosen"):
        extra += f" [{', '.join(f'{k}={v}' for k, v in r['chosen'].items())[:100]}]"
    return (
        f"{head} microF1 {r['micro_f1']:.4f} macroF1 {r['macro_f1']:.4f} "
        f"exF1 {r['example_f1']:.4f} rloss {rank} card {r['predicted_cardinality']:.2f}/"
        f"{r['true_cardinality']:.2f} {r['total_s']:9.3f} s{extra}"
    )


# ----------------------------------------------------------------------------- multi-target


def rows_of(X, rows):
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def run_multi_target_case(case, data, args):
    """Every fold of a multi-target case, fit + predict timed, then scored (in a child
    process); the out-of-fold predictions come back for the agreement of same-model pairs."""
    X = data["frame"] if case["input"] == "frame" else data["X"]
    Y = data["Y"]
    predictions = np.zeros_like(Y)
    folds, seen = [], Counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for train, test in data["folds"]:
            model, P, best, _, runs = timed_runs(
                case["factory"], rows_of(X, train), Y[train], rows_of(X, test), args
            )
            predictions[test] = P
            scores = multi_target.fold_scores(Y[test], np.asarray(P), Y[train])
            timing = {"fit_s": best[0], "predict_s": best[1], "total_s": best[0] + best[1]}
            folds.append({**scores, **timing, "runs": runs})
        seen.update(warning_key(w) for w in caught)
    return {
        "status": "ok",
        **multi_target.summary(folds),
        "events": multi_target.events_text(model),
        "estimator": re.sub(r"\s+", " ", repr(model))[:500],
        "warnings": dict(seen),
        "predictions": predictions,
    }


def multi_target_line(r):
    head = f"  {r['library']:<12} {r['method']:<26} {r['setting'][:28]:<28}"
    if r["status"] != "ok":
        return f"{head} {r['status']}: {r.get('reason', '')}"
    accuracy = " ".join(f"{a:.4f}" for a in r["target_accuracy"])
    return (
        f"{head} exact {r['exact_match']:.4f} Hamming {r['hamming_score']:.4f} "
        f"per target {accuracy} {1000 * r['total_s']:8.1f} ms/fold"
    )


def run_multi_target(args):
    """The multi-target section: every case on every multi-target set (see the docstring)."""
    started = time.perf_counter()
    meta = machine_info()
    meta["command"] = " ".join(["python", "benchmarks/bench_quality.py", *sys.argv[1:]])
    meta.update(budget_s=args.budget, repeat=args.repeat, min_time_s=args.min_time)
    sets, meta["left_out"] = multi_target.multi_target_sets(args.data_dir, args.datasets)
    unknown = [n for n in args.datasets or [] if n not in sets and n not in meta["left_out"]]
    if unknown:
        raise SystemExit(f"not multi-target data sets: {unknown}")
    warm_up()
    section = {"meta": meta, "datasets": {}}
    for name, loaded in sets.items():
        data = multi_target.prepared(loaded)
        info = multi_target.describe(data)
        print(f"\n== {name} (multi-target): {info}", flush=True)
        records, predictions = [], {}
        for case in multi_target.cases(data["dataset"]):
            record = {k: case[k] for k in ("library", "method", "setting")}
            if case.get("skip"):
                record.update(status="skipped", reason=case["skip"])
            else:
                record.update(run_isolated(case, data, args, run=run_multi_target_case))
            if "predictions" in record:  # not stored: only their agreement is
                key = (case["library"], case["method"], case["setting"])
                predictions[key] = np.asarray(record.pop("predictions"))
            records.append(record)
            print(multi_target_line(record), flush=True)
        section["datasets"][name] = {
            "info": info,
            "date": meta["date"],
            "cases": records,
            "agreement": multi_target.agreement(predictions),
        }
    meta["load_end"] = " ".join(f"{v:.2f}" for v in os.getloadavg())
    meta["wall_s"] = time.perf_counter() - started
    return section


def main_multi_target(args):
    """``--multi-target``: run (or ``--load``) the multi-target section alone."""
    if args.load:
        section = json.loads(args.load.read_text())["multi_target"]
        if args.datasets:  # report only these
            kept = {n: e for n, e in section["datasets"].items() if n in args.datasets}
            section["datasets"] = kept
    else:
        section = run_multi_target(args)
        if args.update:
            results = json.loads(args.update.read_text())
            results["multi_target"] = multi_target.merge(results.get("multi_target"), section)
            section = results["multi_target"]
            (args.save or args.update).write_text(json.dumps(results, indent=1))
        elif args.save:
            args.save.write_text(json.dumps({"multi_target": section}, indent=1))
    multi_target.print_report(section)
    if args.markdown:
        multi_target.write_markdown(section)


# ----------------------------------------------------------------------------- machine


def mlnb_api():
    """The default ``events`` and ``rule`` of each mlnb method (what "default" measured)."""
    api = {}
    for name, factory in mlnb_defaults(0).items():
        params = factory().get_params()
        api[name] = ", ".join(f"{k}={params[k]!r}" for k in ("events", "rule") if k in params)
    api["BR rule parameter"] = "yes" if has_rule() else "no (references without rule=)"
    return api


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


# ----------------------------------------------------------------------------- main


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", help="default: every set with a provided split")
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    parser.add_argument("--data-dir", help="default: mlnb.datasets.data_home()")
    parser.add_argument("--budget", type=float, default=300.0, help="seconds per case")
    parser.add_argument(
        "--skip-slow", action="store_true", help="skip CV-C cases predictably over the budget"
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
    parser.add_argument("--markdown", action="store_true", help="update docs/quality.md")
    parser.add_argument("--plot", action="store_true", help="write docs/quality/<set>.png")
    parser.add_argument(
        "--multi-target",
        action="store_true",
        help="the multi-target section alone (--datasets, --budget, --repeat, --min-time, "
        "--save, --load, --update and --markdown apply; --only and --skip do not)",
    )
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.multi_target:
        main_multi_target(args)
        return
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
        if "multi_target" in results:  # saved results with both sections: both blocks
            multi_target.write_markdown(results["multi_target"])


if __name__ == "__main__":
    main()
