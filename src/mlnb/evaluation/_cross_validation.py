"""Cross-validation of any estimator with ``fit``/``predict``: scores and timings per fold.

The papers evaluate by 10-fold cross-validation, or on large data sets by one 66 % / 34 %
holdout split, reporting the criteria of :mod:`mlnb.metrics` together with T_train and
T_test, the seconds spent in ``fit`` and in ``predict`` (``time.perf_counter``).  Each
fold fits a fresh ``sklearn.base.clone`` of the estimator.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils import _safe_indexing
from sklearn.utils.parallel import Parallel, delayed

from ..metrics import Metric, get_metrics
from ._optional import require
from ._splits import split_indices
from ._tables import format_table

__all__ = ["CVResult", "cross_validate"]

_TIMES = ("train_time", "test_time")


@dataclass(frozen=True)
class CVResult:
    """Per-fold scores and timings of :func:`cross_validate`.

    Attributes
    ----------
    scores : dict of str to ndarray of shape (n_folds,)
        Each metric's value on each fold's test part.
    train_time, test_time : ndarray of shape (n_folds,)
        Seconds spent in ``fit`` (T_train) and in ``predict`` (T_test).
    metrics : dict of str to Metric
        The criteria, with their loss/score flags.
    train_indices, test_indices : list of ndarray
        The rows of each fold.
    predictions : list of array-like or None
        Each fold's ``predict`` output (rows ``test_indices[i]``) when asked for.
    """

    scores: dict[str, np.ndarray]
    train_time: np.ndarray
    test_time: np.ndarray
    metrics: dict[str, Metric]
    train_indices: list[np.ndarray] = field(repr=False)
    test_indices: list[np.ndarray] = field(repr=False)
    predictions: list | None = field(default=None, repr=False)

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


def _fit_and_score(estimator, X, Y, train, test, metrics, keep_predictions):
    X_train, X_test = _safe_indexing(X, train), _safe_indexing(X, test)
    Y_train, Y_test = _safe_indexing(Y, train), _safe_indexing(Y, test)
    start = time.perf_counter()
    estimator.fit(X_train, Y_train)
    train_time = time.perf_counter() - start
    start = time.perf_counter()
    Y_pred = estimator.predict(X_test)
    test_time = time.perf_counter() - start
    scores = {name: float(metric(Y_test, Y_pred)) for name, metric in metrics.items()}
    return scores, train_time, test_time, (Y_pred if keep_predictions else None)


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
):
    """Cross-validate ``estimator`` on ``(X, Y)``: per-fold criteria, T_train and T_test.

    Parameters
    ----------
    estimator : object
        Any estimator with ``fit`` and ``predict`` (mlnb's or scikit-learn's); each fold
        fits ``sklearn.base.clone(estimator)``.
    X : array-like or sparse matrix of shape (n_samples, n_features)
        Features.
    Y : array-like or sparse matrix
        An n x L label indicator matrix (multi-label), or a 1-D vector of classes.
    cv : int, float or splitter, default=10
        Number of shuffled folds; a float in (0, 1) is the train fraction of one
        shuffled holdout split (0.66 in the NaiBX paper); a scikit-learn splitter is used
        as is (it receives ``Y`` as given).
    metrics : str or list of str, default=None
        Names of :data:`mlnb.metrics.METRICS` or of :data:`mlnb.metrics.METRIC_SETS`;
        default ``"dynamic_chains"`` (the 11 losses) for multi-label ``Y`` and
        ``"single_label"`` for a 1-D ``Y``.
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

    Returns
    -------
    CVResult
    """
    if not hasattr(estimator, "fit") or not hasattr(estimator, "predict"):
        raise TypeError(f"estimator must have fit and predict methods, got {estimator!r}.")
    multilabel = sp.issparse(Y) or np.ndim(Y) == 2
    if not multilabel and np.ndim(Y) != 1:
        raise ValueError(f"Y must be a 1-D class vector or a 2-D indicator matrix, got {Y!r}.")
    task = "multilabel" if multilabel else "single_label"
    if metrics is None:
        metrics = "dynamic_chains" if multilabel else "single_label"
    metrics = get_metrics(metrics, task=task)
    n = _n_samples(X)
    if _n_samples(Y) != n:
        raise ValueError(f"X and Y must have the same number of rows, got {n} and {_n_samples(Y)}.")
    splits = split_indices(cv, n, Y, stratify=stratify, random_state=random_state)
    results = Parallel(n_jobs=n_jobs)(
        delayed(_fit_and_score)(clone(estimator), X, Y, train, test, metrics, return_predictions)
        for train, test in splits
    )
    scores = {name: np.array([r[0][name] for r in results]) for name in metrics}
    return CVResult(
        scores=scores,
        train_time=np.array([r[1] for r in results]),
        test_time=np.array([r[2] for r in results]),
        metrics=metrics,
        train_indices=[train for train, _ in splits],
        test_indices=[test for _, test in splits],
        predictions=[r[3] for r in results] if return_predictions else None,
    )
