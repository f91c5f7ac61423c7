"""Prequential (test-then-train) evaluation over a stream of batches.

Each batch of the stream is first predicted by the model trained on every batch before it,
then learnt (``partial_fit``), so every row is scored once by a model that never saw it and
the model ends trained on the whole stream (Gama et al. 2013, "On evaluating stream learning
algorithms"). The first batch is only learnt. :func:`prequential` returns each batch's
criteria, the running and windowed criteria over the stream and the time of both steps;
:func:`plot_prequential` draws the criteria against the rows seen.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sklearn.base import clone

from ..base import adopt_state, check_online, takes_classes
from ..labels import label_matrix
from ..metrics import get_metrics
from ._report import criterion_label

__all__ = ["PrequentialResult", "plot_prequential", "prequential"]


@dataclass
class PrequentialResult:
    """What :func:`prequential` measured, one entry per tested batch (every batch but the
    first, which is only learnt).

    Attributes
    ----------
    scores : dict of str to ndarray
        Each criterion on each tested batch's rows.
    n_rows : ndarray of int
        The rows of each tested batch.
    test_time, train_time : ndarray
        Seconds of ``predict`` and of ``partial_fit`` on each tested batch.
    first_rows, first_train_time : int, float
        The first batch's rows and the seconds of learning it.
    metrics : dict of str to Metric
    window : int or None
        Batches of :meth:`windowed`.
    """

    scores: dict
    n_rows: np.ndarray
    test_time: np.ndarray
    train_time: np.ndarray
    first_rows: int
    first_train_time: float
    metrics: dict = field(repr=False)
    window: int | None = None

    @property
    def rows_seen(self):
        """Rows learnt before each tested batch plus its own, (n_batches,): the x axis."""
        return self.first_rows + np.cumsum(self.n_rows)

    @property
    def throughput(self):
        """Rows per second over the whole stream, both steps and the first batch counted."""
        seconds = self.first_train_time + self.test_time.sum() + self.train_time.sum()
        return float(self.rows_seen[-1] / seconds) if len(self.n_rows) and seconds > 0 else 0.0

    def running(self):
        """Each criterion over all tested rows so far, (n_batches,) per criterion: the
        row-weighted mean of the batches' values (exact for the example-based criteria and
        Hamming loss, which average over rows; for micro and macro criteria the mean of
        the batches' values)."""
        weights = np.cumsum(self.n_rows)
        return {
            name: np.cumsum(values * self.n_rows) / weights for name, values in self.scores.items()
        }

    def windowed(self):
        """Each criterion over the last ``window`` tested batches (row-weighted, as
        :meth:`running`); the running values when ``window`` is None."""
        if self.window is None:
            return self.running()
        kernel = np.ones(int(self.window))
        weights = np.convolve(self.n_rows, kernel)[: len(self.n_rows)]
        return {
            name: np.convolve(values * self.n_rows, kernel)[: len(values)] / weights
            for name, values in self.scores.items()
        }

    def final(self):
        """The running criteria at the end of the stream, as a dict."""
        return {name: float(values[-1]) for name, values in self.running().items()}


def _target(y, single_label):
    y = y.toarray() if hasattr(y, "toarray") else np.asarray(y)
    return y.ravel() if single_label and y.ndim == 2 and y.shape[1] == 1 else y


def prequential(estimator, stream, *, metrics=None, window=None, classes=None, progress=None):
    """Test-then-train ``estimator`` over ``stream``; the estimator ends trained on it all.

    Parameters
    ----------
    estimator : estimator with ``partial_fit``
        Trained in place from scratch (its earlier state is discarded) and left fitted.
    stream : iterable of (X, Y) pairs
        The batches, in order: arrays, CSR matrices or data frames (e.g.
        :func:`mlnb.streaming.iter_chunks` of ARFF files, or a generator). A batch of one
        row evaluates row by row.
    metrics : str or list of str, default=None
        Names of :data:`mlnb.metrics.METRICS` or of :data:`mlnb.metrics.METRIC_SETS` that
        score 0/1 predictions; default ``"dynamic_chains"`` (multi-label) or
        ``"single_label"``.
    window : int or None, default=None
        Batches of the windowed criteria (:meth:`PrequentialResult.windowed`).
    classes : array-like, default=None
        Every class, for a single-label classifier (its ``partial_fit`` needs them at once).
    progress : callable, default=None
        Called as ``progress(rows_seen)`` after each batch.

    Returns
    -------
    PrequentialResult

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import BinaryRelevance
    >>> from mlnb.evaluation import prequential
    >>> rng = np.random.default_rng(0)
    >>> Y = (rng.random((400, 3)) < 0.3).astype(int)
    >>> X = rng.poisson(1 + 4 * Y @ rng.random((3, 10)))
    >>> batches = [(X[i : i + 50], Y[i : i + 50]) for i in range(0, 400, 50)]
    >>> result = prequential(BinaryRelevance(events="multinomial"), batches, window=3)
    >>> len(result.n_rows), int(result.rows_seen[-1])
    (7, 400)
    >>> 0 <= result.final()["hamming"] < 0.5
    True
    """
    check_online(estimator)
    single_label = takes_classes(estimator)
    if single_label and classes is None:
        raise ValueError(
            "classes must be given for a single-label classifier: its first partial_fit "
            "needs every class of the stream"
        )
    if window is not None and not (isinstance(window, (int, np.integer)) and window >= 1):
        raise ValueError(f"window must be None or a positive number of batches; got {window!r}")
    kwargs = {"classes": np.unique(np.asarray(classes))} if single_label else {}
    model = clone(estimator)
    chosen, first_rows, first_time = None, 0, 0.0
    scores, n_rows, test_times, train_times = {}, [], [], []
    names = None  # the labels met so far (label lists and DataFrames: coded batch by batch)
    for X, given in stream:
        if X.shape[0] == 0:
            continue
        Y = given
        if not single_label:  # new labels after the known ones, as the model takes them
            Y, names = label_matrix(given, names, grow=True)
        Y = _target(Y, single_label)
        learnt = Y if single_label else given  # the model codes label lists itself
        if chosen is None:
            chosen = _metrics(metrics, Y)
            scores = {name: [] for name in chosen}
            start = time.perf_counter()
            model.partial_fit(X, learnt, **kwargs)
            first_rows, first_time = X.shape[0], time.perf_counter() - start
        else:
            start = time.perf_counter()
            predicted = model.predict(X)
            test_times.append(time.perf_counter() - start)
            predicted = _with_new_labels(predicted, Y)
            for name, metric in chosen.items():
                scores[name].append(float(metric(Y, predicted)))
            start = time.perf_counter()
            model.partial_fit(X, learnt, **kwargs)
            train_times.append(time.perf_counter() - start)
            n_rows.append(X.shape[0])
        if progress is not None:
            progress(first_rows + sum(n_rows))
    if chosen is None:
        raise ValueError("stream: it holds no rows")
    adopt_state(estimator, model)
    return PrequentialResult(
        scores={name: np.array(values) for name, values in scores.items()},
        n_rows=np.array(n_rows, dtype=int),
        test_time=np.array(test_times),
        train_time=np.array(train_times),
        first_rows=first_rows,
        first_train_time=first_time,
        metrics=chosen,
        window=window,
    )


def _with_new_labels(predicted, Y):
    """Predictions with a 0 column for every label the batch brings that the model has not
    seen yet (it predicts no label it does not know)."""
    if np.ndim(Y) != 2 or np.shape(predicted)[1] >= Y.shape[1]:
        return predicted
    predicted = predicted.toarray() if hasattr(predicted, "toarray") else np.asarray(predicted)
    missing = np.zeros((predicted.shape[0], Y.shape[1] - predicted.shape[1]), predicted.dtype)
    return np.hstack([predicted, missing])


def _metrics(names, Y):
    multilabel = np.ndim(Y) == 2
    if names is None:
        names = "dynamic_chains" if multilabel else "single_label"
    chosen = get_metrics(names)
    allowed = "multilabel" if multilabel else "single_label"
    wrong = [name for name, metric in chosen.items() if metric.task != allowed]
    if wrong:
        raise ValueError(
            f"metrics {wrong} do not score the stream's 0/1 {allowed.replace('_', '-')} "
            "predictions (prequential evaluation scores predict, not label scores)"
        )
    return chosen


def plot_prequential(result, path, *, criteria=None, formats=("png", "svg"), title=None):
    """Write the criteria of a stream against the rows seen, one panel per criterion.

    Parameters
    ----------
    result : PrequentialResult or dict of str to PrequentialResult
        One run: its running criteria, and its windowed ones if it has a window. Several
        (``{name: result}``, e.g. a model with and without forgetting on the same stream):
        one line each, windowed where the result has a window, else running.
    path : str, Path or None
        Output path; its suffix, if any, is replaced by each format's. None: return the
        matplotlib Figure instead of writing it.
    criteria : list of str, default=None
        The criteria to draw (default: all of the (first) result, at most six).
    formats : sequence of {"png", "svg", "pdf"}, default=("png", "svg")
    title : str, default=None

    Returns
    -------
    list of Path or Figure
        The files written (the Figure if ``path`` is None).
    """
    from ._plots import new_figure, save_figure

    results = result if isinstance(result, dict) else {None: result}
    first = next(iter(results.values()))
    names = list(first.scores)[:6] if criteria is None else list(criteria)
    for each in results.values():
        unknown = [name for name in names if name not in each.scores]
        if unknown:
            raise ValueError(f"criteria {unknown} are not in the result: {list(each.scores)}")
    fig = new_figure((6.0, 2.2 * len(names)))
    axes = fig.subplots(len(names), 1, sharex=True, squeeze=False)[:, 0]
    for ax, name in zip(axes, names, strict=True):
        for label, each in results.items():
            x = each.rows_seen
            if label is None:  # one run: running, and windowed if it has a window
                ax.plot(x, each.running()[name], label="running", color="black")
                if each.window is not None:
                    ax.plot(x, each.windowed()[name], label=f"last {each.window} batches")
            else:
                windowed = each.window is not None
                values = each.windowed()[name] if windowed else each.running()[name]
                shown = f"{label} (last {each.window} batches)" if windowed else label
                ax.plot(x, values, label=shown)
        ax.set_ylabel(criterion_label(name))
        ax.grid(alpha=0.3)
    axes[0].legend(loc="best", fontsize="small")
    axes[-1].set_xlabel("rows seen")
    fig.suptitle(title or "Prequential evaluation (test, then train, each batch)")
    return save_figure(fig, None if path is None else Path(path), formats)
