"""Cross-validation of any estimator with ``fit``/``predict``: scores and timings per fold.

The papers evaluate by 10-fold cross-validation, or on large data sets by one 66 % / 34 %
holdout split, reporting the criteria of :mod:`mlnb.metrics` together with T_train and
T_test, the seconds spent in ``fit`` and in ``predict`` (``time.perf_counter``).  Each
fold fits a fresh ``sklearn.base.clone`` of the estimator.

Multi-label runs may also ask for the ranking criteria of label *scores* (task
``"multilabel_scores"``, e.g. ``metrics="ranking"``): each fold computes the scores once,
with :func:`mlnb.selection.label_scores` (``decision_function``, else
``predict_log_odds``, else the log-odds of ``predict_proba``), and ``predict_proba`` for
the log loss.  A fold whose 0/1 predictions hold no label at all, or almost every label,
while the truth does not, is reported by one :class:`DegeneratePredictionWarning` per run.

Multi-target runs (a class per target, e.g. :class:`mlnb.MultiTargetChain`) ask for
criteria of task ``"multi_target"`` only (e.g. ``metrics="multi_target"``): ``Y`` is then
an n x L matrix of classes, scored as classes (no 0/1 checks, no stratification).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils import _safe_indexing
from sklearn.utils.parallel import Parallel, delayed

from ..labels import label_matrix
from ..metrics import Metric, get_metrics, log_loss
from ..multilabel import warn_cardinality
from ..selection import label_scores
from ._optional import require
from ._splits import split_indices
from ._tables import format_table

__all__ = ["CVResult", "DegeneratePredictionWarning", "cross_validate"]

_TIMES = ("train_time", "test_time")
_SCORE_METHODS = ("decision_function", "predict_log_odds", "predict_proba")
# Degenerate 0/1 predictions: none at all while the truth has labels, or a predicted label
# density above _ALMOST_ALL while the true density is below _SPARSE.
_ALMOST_ALL, _SPARSE = 0.9, 0.5
_CAUSES = {
    "none": "rare labels and a 0.5 rule (or a feature selection that left no evidence): "
    "try mlnb.TunedThresholdsCV or another event model",
    "all": "the 0.5 rule on log-odds over-predicts on sparse label spaces: "
    "try mlnb.TunedThresholdsCV (PCut/RCut)",
}


class DegeneratePredictionWarning(UserWarning):
    """A model predicted no label at all, or almost every label, on out-of-fold rows.

    Emitted at most once per :func:`cross_validate` run, with the predicted and true
    labels per row and the likely cause.
    """


@dataclass(frozen=True)
class CVResult:
    """Per-fold scores and timings of :func:`cross_validate`.

    Attributes
    ----------
    scores : dict of str to ndarray of shape (n_folds,)
        Each metric's value on each fold's test part.
    train_time, test_time : ndarray of shape (n_folds,)
        Seconds spent in ``fit`` (T_train) and in ``predict`` (T_test; with score
        metrics, also in computing the label scores and probabilities).
    metrics : dict of str to Metric
        The criteria, with their loss/score flags.
    train_indices, test_indices : list of ndarray
        The rows of each fold.
    predictions : list of array-like or None
        Each fold's ``predict`` output (rows ``test_indices[i]``) when asked for.
    choices : list of str or None
        What a searching estimator chose on each fold, in words: the decision rule and the
        parameters of :class:`~mlnb.TunedThresholdsCV` (``best_strategy_``,
        ``best_params_``), the parameters of a grid search (``best_params_``); None when
        the estimator chooses nothing.
    """

    scores: dict[str, np.ndarray]
    train_time: np.ndarray
    test_time: np.ndarray
    metrics: dict[str, Metric]
    train_indices: list[np.ndarray] = field(repr=False)
    test_indices: list[np.ndarray] = field(repr=False)
    predictions: list | None = field(default=None, repr=False)
    choices: list | None = field(default=None, repr=False)

    @property
    def n_folds(self):
        """Number of folds (1 for a holdout split)."""
        return len(self.test_indices)

    def _columns(self):
        return {**self.scores, "train_time": self.train_time, "test_time": self.test_time}

    def mean(self):
        """Mean over folds of every metric and of both times, as a dict."""
        return {k: float(np.mean(v)) for k, v in self._columns().items()}

    def std(self):
        """Standard deviation over folds (ddof=1), as a dict; NaN for a single fold."""
        if self.n_folds < 2:
            return dict.fromkeys(self._columns(), float("nan"))
        return {k: float(np.std(v, ddof=1)) for k, v in self._columns().items()}

    def to_table(self, *, fmt="markdown", per_fold=False, floatfmt=".4f"):
        """Format the result as Markdown, LaTeX or CSV.

        Parameters
        ----------
        fmt : {"markdown", "latex", "csv"}, default="markdown"
            Output format.
        per_fold : bool, default=False
            One row per fold instead of one row per criterion with mean and std.
        floatfmt : str, default=".4f"
            Float format of Markdown and LaTeX.

        Returns
        -------
        str
        """
        columns = self._columns()
        if per_fold:
            header = ["fold", *columns]
            rows = [[i, *(float(v[i]) for v in columns.values())] for i in range(self.n_folds)]
        else:
            mean, std = self.mean(), self.std()
            header = ["criterion", "mean", "std", "lower is better"]
            rows = [
                [
                    k,
                    mean[k],
                    std[k],
                    not self.metrics[k].greater_is_better if k in self.metrics else True,
                ]
                for k in columns
            ]
        return format_table(header, rows, fmt=fmt, floatfmt=floatfmt)

    def to_frame(self):
        """A pandas DataFrame, one row per fold (needs ``mlnb[stats]``)."""
        pd = require("pandas", "CVResult.to_frame")
        frame = pd.DataFrame(self._columns())
        frame.index.name = "fold"
        return frame


def _n_samples(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _name(estimator):
    """Class name of ``estimator``, with the inner estimator's of a meta-estimator."""
    name = type(estimator).__name__
    inner = getattr(estimator, "estimator", None)
    return f"{name}({type(inner).__name__})" if hasattr(inner, "fit") else name


def _has(estimator, method):
    return callable(getattr(estimator, method, None))


class _Probabilities:
    """Stand-in model whose ``predict_proba`` gives probabilities already computed."""

    def __init__(self, proba):
        self.proba = proba

    def predict_proba(self, X):
        return self.proba


def _probabilities(estimator, X, shape):
    """``predict_proba`` as an n x L matrix (a per-label list of n x 2 arrays is accepted)."""
    proba = estimator.predict_proba(X)
    if isinstance(proba, list):  # e.g. MultiOutputClassifier: P(0) and P(1) per label
        if not all(np.ndim(p) == 2 and np.shape(p)[1] == 2 for p in proba):
            raise ValueError(
                f"{_name(estimator)}.predict_proba returned a list whose arrays are not "
                "n x 2 (a label constant in the training part?); the ranking metrics need "
                "one probability per label."
            )
        proba = np.column_stack([np.asarray(p)[:, 1] for p in proba])
    proba = proba.toarray() if sp.issparse(proba) else np.asarray(proba, dtype=float)
    if proba.shape != shape:
        raise ValueError(
            f"{_name(estimator)}.predict_proba returned shape {proba.shape}; expected the "
            f"label matrix's {shape}."
        )
    return proba


def _scores(estimator, X, proba, shape):
    """Label scores of :func:`mlnb.selection.label_scores` (``proba`` reused if given)."""
    model = estimator
    if not any(_has(estimator, m) for m in _SCORE_METHODS[:2]):  # label_scores: predict_proba
        model = _Probabilities(_probabilities(estimator, X, shape) if proba is None else proba)
    scores = label_scores(model, X)
    if scores.shape != shape:
        raise ValueError(
            f"the label scores of {_name(estimator)} have shape {scores.shape}; expected the "
            f"label matrix's {shape}."
        )
    return scores


def _labels_per_row(Y):
    """Mean number of labels per row of a 0/1 matrix (dense or sparse)."""
    nonzero = Y.count_nonzero() if sp.issparse(Y) else np.count_nonzero(Y)
    return nonzero / max(_n_samples(Y), 1)


def _fit_and_score(estimator, X, Y, train, test, metrics, keep_predictions):
    X_train, X_test = _safe_indexing(X, train), _safe_indexing(X, test)
    Y_train, Y_test = _safe_indexing(Y, train), _safe_indexing(Y, test)
    on_scores = {n: m for n, m in metrics.items() if m.task == "multilabel_scores"}
    on_proba = {n for n, m in on_scores.items() if m.function is log_loss}
    start = time.perf_counter()
    estimator.fit(X_train, Y_train)
    train_time = time.perf_counter() - start
    start = time.perf_counter()
    Y_pred = estimator.predict(X_test)
    shape = np.shape(Y_test)
    proba = _probabilities(estimator, X_test, shape) if on_proba else None
    scores = _scores(estimator, X_test, proba, shape) if set(on_scores) - on_proba else None
    test_time = time.perf_counter() - start
    values = {}
    for name, metric in metrics.items():
        given = Y_pred if name not in on_scores else proba if name in on_proba else scores
        values[name] = float(metric(Y_test, given))
    # Labels per row, predicted and true, for the degenerate-prediction check.
    cardinality = None
    if np.ndim(Y_test) == 2:
        cardinality = (_labels_per_row(Y_pred), _labels_per_row(Y_test), shape[1])
    kept = Y_pred if keep_predictions else None
    return values, train_time, test_time, kept, cardinality, _choice(estimator)


def _choice(estimator):
    """What a fitted searching estimator chose, in words (None if it chose nothing)."""
    chosen = getattr(estimator, "chosen_", None)
    if chosen:  # an estimator at its defaults (events="tuned", rule="tuned")
        terms = chosen.get("label_terms") or {}  # a chain's, or an ensemble of chains'
        words = [f"rule {chosen['rule']}", f"events={chosen['events']!r}"]
        return ", ".join(words + [f"{name}={value!r}" for name, value in terms.items()])
    strategy = getattr(estimator, "best_strategy_", None)
    params = getattr(estimator, "best_params_", None)
    if strategy is None and params is None:
        return None
    words = [] if strategy is None else [f"rule {strategy}"]
    if strategy == "predict":  # TunedThresholdsCV kept the estimator's own predict
        words = ["its own predict"]
    words += [f"{name}={value!r}" for name, value in sorted((params or {}).items())]
    return ", ".join(words) or "the estimator as given"


_ALLOWED = {
    "multilabel": ("multilabel", "multilabel_scores"),
    "single_label": ("single_label",),
    "multi_target": ("multi_target",),
}


def _target_kind(metrics, multilabel):
    """What ``Y`` holds: "single_label" (1-D), "multi_target" (a matrix scored by metrics
    all of task "multi_target": classes per target) or "multilabel" (any other matrix)."""
    if not multilabel:
        return "single_label"
    multi_target = all(m.task == "multi_target" for m in metrics.values())
    return "multi_target" if multi_target else "multilabel"


def _check_metrics(metrics, task, estimator):
    """The metrics that ``estimator`` can be scored by on ``task`` targets (see
    :func:`_target_kind`); ValueError before any fit."""
    allowed = _ALLOWED[task]
    wrong = [n for n, m in metrics.items() if m.task not in allowed]
    if wrong:
        raise ValueError(f"metrics {wrong} do not score {task} targets.")
    on_scores = [n for n, m in metrics.items() if m.task == "multilabel_scores"]
    if on_scores and not any(_has(estimator, m) for m in _SCORE_METHODS):
        raise ValueError(
            f"metrics {on_scores} need label scores, but the estimator {_name(estimator)} "
            f"has none of {', '.join(_SCORE_METHODS)}; choose 0/1 prediction metrics "
            "(e.g. 'dynamic_chains') for it."
        )
    on_proba = [n for n in on_scores if metrics[n].function is log_loss]
    if on_proba and not _has(estimator, "predict_proba"):
        metrics = {n: m for n, m in metrics.items() if n not in on_proba}
        if not metrics:
            raise ValueError(
                f"metrics {on_proba} need probabilities, but the estimator {_name(estimator)} "
                "has no predict_proba."
            )
        warnings.warn(
            f"{', '.join(on_proba)} skipped: it needs probabilities and the estimator "
            f"{_name(estimator)} has no predict_proba.",
            UserWarning,
            stacklevel=3,
        )
    return metrics


def _degenerate_message(estimator, cardinalities):
    """The :class:`DegeneratePredictionWarning` text for a run, or None if all is well."""
    kinds = {"none": [], "all": []}
    for predicted, true, n_labels in cardinalities:
        if predicted == 0 and true > 0:
            kinds["none"].append((predicted, true))
        elif predicted > _ALMOST_ALL * n_labels and true < _SPARSE * n_labels:
            kinds["all"].append((predicted, true))
    n_labels = cardinalities[0][2] if cardinalities else 0
    parts = []
    for kind, what in (("none", "no label at all"), ("all", "almost every label")):
        folds = kinds[kind]
        if not folds:
            continue
        predicted, true = np.mean(folds, axis=0)
        parts.append(
            f"{_name(estimator)} predicted {what} on the test part of {len(folds)} of "
            f"{len(cardinalities)} folds ({predicted:.2f} of {n_labels} labels per row, "
            f"against {true:.2f} true labels per row). Likely cause: {_CAUSES[kind]}."
        )
    return " ".join(parts) or None


def cross_validate(
    estimator,
    X,
    Y,
    *,
    cv=10,
    metrics=None,
    random_state=None,
    stratify=None,
    n_jobs=None,
    return_predictions=False,
    progress=None,
):
    """Cross-validate ``estimator`` on ``(X, Y)``: per-fold criteria, T_train and T_test.

    Parameters
    ----------
    estimator : object
        Any estimator with ``fit`` and ``predict`` (mlnb's or scikit-learn's); each fold
        fits ``sklearn.base.clone(estimator)``.
    X : array-like or sparse matrix of shape (n_samples, n_features)
        Features.
    Y : array-like, sparse matrix, DataFrame or list of label lists
        An n x L label indicator matrix (multi-label; label lists and a DataFrame of 0/1
        columns are encoded once, before the folds: see :mod:`mlnb.labels`), or a 1-D
        vector of classes.
    cv : int, float or splitter, default=10
        Number of shuffled folds; a float in (0, 1) is the train fraction of one
        shuffled holdout split (0.66 in the NaiBX paper); a scikit-learn splitter is used
        as is (it receives ``Y`` as given).
    metrics : str or list of str, default=None
        Names of :data:`mlnb.metrics.METRICS` or of :data:`mlnb.metrics.METRIC_SETS`;
        default ``"dynamic_chains"`` (the 11 losses) for multi-label ``Y``,
        ``"single_label"`` for a 1-D ``Y`` and ``"multi_target"`` for an estimator of
        class-valued outputs (:mod:`mlnb.multitarget`).  Multi-label ``Y`` may mix 0/1 prediction
        metrics with ranking ones (``"ranking"``, task ``"multilabel_scores"``), which
        score :func:`mlnb.selection.label_scores` (``log_loss``: ``predict_proba``; it
        is skipped, with a warning, for an estimator without ``predict_proba``).
        Metrics all of task ``"multi_target"`` (e.g. ``"multi_target"``) score a matrix
        ``Y`` as classes per target (multi-target estimators), without stratification
        or the degenerate-prediction check.
    random_state : int, RandomState or None, default=None
        Seed of the splits: the same seed gives the same folds (and, for a deterministic
        estimator, the same scores).  The estimator's own randomness is its own
        ``random_state`` parameter.
    stratify : {None, "iterative"}, default=None
        ``"iterative"``: iterative stratification of multi-label ``Y`` (Sechidis et al.
        2011, via ``iterstrat``; needs ``mlnb[stats]``), ordinary stratification of 1-D
        ``Y``.
    n_jobs : int, default=None
        Folds run in parallel with joblib; timings then include contention between folds.
    return_predictions : bool, default=False
        Keep every fold's predictions in the result.
    progress : callable, default=None
        Called as ``progress(done, n_folds)`` after each fold (a progress display).

    Returns
    -------
    CVResult

    Raises
    ------
    ValueError
        Before any fit, for metrics the target or the estimator cannot be scored by (e.g.
        ranking metrics for an estimator with no ``decision_function``,
        ``predict_log_odds`` or ``predict_proba``).

    Warns
    -----
    DegeneratePredictionWarning
        At most once per call, when a fold's predictions on its test part hold no label
        while the truth has some, or more than 90 % of the labels while the truth has
        fewer than 50 %.
    """
    if not hasattr(estimator, "fit") or not hasattr(estimator, "predict"):
        raise TypeError(f"estimator must have fit and predict methods, got {estimator!r}.")
    Y = label_matrix(Y)[0]  # tags or a DataFrame coded once, for every fold alike
    multilabel = sp.issparse(Y) or np.ndim(Y) == 2
    if not multilabel and np.ndim(Y) != 1:
        raise ValueError(f"Y must be a 1-D class vector or a 2-D indicator matrix, got {Y!r}.")
    if metrics is None and callable(getattr(estimator, "target_classes", None)):
        metrics = "multi_target"  # class-valued outputs (mlnb.multitarget)
    elif metrics is None:
        metrics = "dynamic_chains" if multilabel else "single_label"
    metrics = get_metrics(metrics)
    task = _target_kind(metrics, multilabel)
    if task == "multi_target" and stratify is not None:
        raise ValueError(
            f"stratify={stratify!r} stratifies 0/1 labels or one class vector; multi-target "
            "classes are not stratified: give stratify=None"
        )
    metrics = _check_metrics(metrics, task, estimator)
    n = _n_samples(X)
    if _n_samples(Y) != n:
        raise ValueError(f"X and Y must have the same number of rows, got {n} and {_n_samples(Y)}.")
    splits = split_indices(cv, n, Y, stratify=stratify, random_state=random_state)
    runs = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_fit_and_score)(clone(estimator), X, Y, train, test, metrics, return_predictions)
        for train, test in splits
    )
    results = []
    for result in runs:
        results.append(result)
        if progress is not None:
            progress(len(results), len(splits))
    scores = {name: np.array([r[0][name] for r in results]) for name in metrics}
    if task == "multilabel":
        message = _degenerate_message(estimator, [r[4] for r in results])
        if message is not None:
            warnings.warn(message, DegeneratePredictionWarning, stacklevel=2)
        else:
            predicted, true, _ = np.mean([r[4] for r in results], axis=0)
            where = f"{_name(estimator)} on the test folds"
            warn_cardinality(predicted, true, where=where, estimator=estimator)
    return CVResult(
        scores=scores,
        train_time=np.array([r[1] for r in results]),
        test_time=np.array([r[2] for r in results]),
        metrics=metrics,
        train_indices=[train for train, _ in splits],
        test_indices=[test for _, test in splits],
        predictions=[r[3] for r in results] if return_predictions else None,
        choices=None if all(r[5] is None for r in results) else [r[5] for r in results],
    )
