"""Evaluation by the ``mlnb`` command: the criteria that --metrics asks for, the
cross-validation of methods on data sets (with progress per fold), and the ``evaluate``
command (cross-validation, --train-test, --split or --prequential; --multi-target)."""

from __future__ import annotations

import inspect
import time
import warnings

import click

from ._data import evaluation_data, loader_missing, n_folds, xy
from ._inputs import declared_kind, is_multi_target, is_text, load_data
from ._methods import MULTI_TARGET_METHODS, describe_methods, parse_params
from ._models import make_estimator
from ._options import (
    PER_TARGET_ACCURACY,
    data_dir_option,
    json_option,
    labels_option,
    method_names,
    metrics_option,
    missing_option,
    param_option,
    quiet_option,
    split_option,
    stratify_option,
    tfidf_option,
    threshold_option,
    train_test_option,
    variant_option,
)
from ._terminal import Progress, echo_table, reported, table_columns

__all__ = ["cv_scores", "evaluate", "metric_names", "run_all", "single_label_criteria"]


def single_label_criteria():
    """The criteria of single-label text corpora, by the names the command shows (scores,
    higher is better; for one class per row the micro averages equal accuracy, reported
    because users look for them): the registry's "text" set. Also ``SINGLE_LABEL_CRITERIA``,
    made on first use: the metric registry imports scipy, which ``--help`` does not need."""
    from ..metrics import get_metric_set

    return {name: m.function for name, m in get_metric_set("text").items()}


def __getattr__(name):
    """``SINGLE_LABEL_CRITERIA``: :func:`single_label_criteria`, made on first use (PEP 562)."""
    if name == "SINGLE_LABEL_CRITERIA":
        return single_label_criteria()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _tasks(metrics):
    """``{criterion: task}`` of --metrics names and sets, in order (the registry's tasks;
    ``mt_accuracy``, the per-target accuracy, scores "multi_target")."""
    from ..metrics import get_metrics

    tasks = {}
    for name in metrics:
        if name == PER_TARGET_ACCURACY:
            tasks[name] = "multi_target"
        else:
            tasks.update((n, m.task) for n, m in get_metrics(name).items())
    return tasks


def metric_names(metrics, data):
    """The criteria --metrics asks for on ``data`` (None: the default), checked up front."""
    if metrics is None:
        return None
    if is_multi_target(data):
        tasks = _tasks(metrics)
        wrong = [n for n, task in tasks.items() if task != "multi_target"]
        if wrong:
            raise ValueError(
                f"--metrics: {', '.join(wrong)} score labels or single classes, but "
                f"--multi-target evaluates {data.name}'s classes per target: choose the set "
                f"multi_target or among {', '.join(multi_target_criteria())}"
            )
        return list(tasks)
    if is_text(data):
        criteria = single_label_criteria()
        wrong = [n for n in metrics if n not in criteria]
        if wrong:
            raise ValueError(
                f"--metrics: {data.name} is a single-label text corpus, scored by "
                f"{', '.join(criteria)}; got {', '.join(wrong)}"
            )
        return list(metrics)
    tasks = _tasks(metrics)
    kinds = {
        "single_label": "single-label classes",
        "multi_target": "classes per target (mlnb evaluate --multi-target)",
    }
    for task, kind in kinds.items():
        wrong = [n for n, t in tasks.items() if t == task]
        if wrong:
            raise ValueError(
                f"--metrics: {', '.join(wrong)} score {kind}, but {data.name} is "
                "multi-label data: choose multi-label criteria (e.g. micro_f1, hamming, ranking)"
            )
    return list(tasks)


def multi_target_criteria():
    """The default criteria of multi-target data: the registry's set "multi_target" (exact
    match, Hamming score and loss, zero-one loss) and the per-target accuracy."""
    from ..metrics import get_metric_set

    return [*get_metric_set("multi_target"), PER_TARGET_ACCURACY]


def cv_scores(
    estimator, data, folds, *, seed, stratify, metrics=None, method=None, progress=None, log=None
):
    """Mean criteria over the folds, plus T_train and T_test (seconds).

    ``metrics``: the names of :func:`metric_names` (None: the default criteria);
    ``progress``: called after each fold, as :func:`~mlnb.evaluation.cross_validate` says;
    ``log``: receives a line saying what a tuned method chose on the folds. A
    :class:`~mlnb.evaluation.DegeneratePredictionWarning` or
    :class:`~mlnb.multilabel.CardinalityWarning` is printed as one line naming ``method``
    and the data set.
    """
    from ..evaluation import DegeneratePredictionWarning, cross_validate
    from ..multilabel import CardinalityWarning

    X, y = xy(data)
    options = {"cv": folds, "random_state": seed, "stratify": "iterative" if stratify else None}
    options["progress"] = progress
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegeneratePredictionWarning)
        warnings.simplefilter("always", CardinalityWarning)
        if is_multi_target(data):
            result = _multi_target_scores(estimator, X, y, metrics, data.label_names, options)
        elif not is_text(data):
            folds_result = cross_validate(estimator, X, y, metrics=metrics, **options)
            result = folds_result.mean()
            if log is not None and folds_result.choices:
                log(f"{method} on {data.name} chose: {_choices_in_words(folds_result.choices)}")
        else:
            result = _text_scores(estimator, X, y, metrics, options)
    said = set()
    for warning in caught:
        if issubclass(warning.category, (DegeneratePredictionWarning, CardinalityWarning)):
            if warning.category not in said:  # one line per kind (each fold's fit warns)
                click.echo(f"warning: {method} on {data.name}: {warning.message}", err=True)
            said.add(warning.category)
        else:
            warnings.showwarning(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    return result


def _choices_in_words(choices):
    """The folds' choices, the most frequent first: "rule rcut (4 folds); rule scut (1 fold)"."""
    counts = {}
    for choice in choices:
        counts[choice] = counts.get(choice, 0) + 1
    return "; ".join(
        f"{choice} ({n} fold{'s' if n > 1 else ''})"
        for choice, n in sorted(counts.items(), key=lambda item: -item[1])
    )


def _text_scores(estimator, X, y, metrics, options):
    """The single-label criteria (``metrics``, default all) of a text cross-validation."""
    import numpy as np

    from ..evaluation import cross_validate

    criteria = single_label_criteria()
    result = cross_validate(
        estimator, X, y, metrics="sl_accuracy", return_predictions=True, **options
    )
    folds = list(zip(result.test_indices, result.predictions, strict=True))
    scores = {
        name: float(np.mean([criteria[name](y[test], predicted) for test, predicted in folds]))
        for name in metrics or criteria
    }
    times = result.mean()
    return {**scores, "train_time": times["train_time"], "test_time": times["test_time"]}


def _multi_target_scores(estimator, X, Y, metrics, targets, options):
    """The multi-target criteria (``metrics``, default :func:`multi_target_criteria`) of a
    cross-validation, the per-target accuracy as ``acc_<target>`` columns (the mean over
    the folds, as every criterion)."""
    import numpy as np

    from ..evaluation import cross_validate
    from ..metrics import multi_target_accuracy

    names = metrics or multi_target_criteria()
    scalar = [n for n in names if n != PER_TARGET_ACCURACY]
    per_target = PER_TARGET_ACCURACY in names
    result = cross_validate(  # with mt_accuracy alone, the set is computed but not shown
        estimator, X, Y, metrics=scalar or "multi_target", return_predictions=per_target,
        **options,
    )  # fmt: skip
    means = result.mean()
    scores = {}
    for name in names:
        if name != PER_TARGET_ACCURACY:
            scores[name] = means[name]
            continue
        folds = zip(result.test_indices, result.predictions, strict=True)
        accuracy = np.mean([multi_target_accuracy(Y[test], P) for test, P in folds], axis=0)
        scores.update((f"acc_{t}", float(a)) for t, a in zip(targets, accuracy, strict=True))
    return {**scores, "train_time": means["train_time"], "test_time": means["test_time"]}


def run_all(runs, *, seed, stratify, metrics, quiet):
    """Cross-validate every ``(data name, method): (estimator, data, folds)``, with progress
    per fold (folds x methods x data sets) and the elapsed time; the mean scores of each.

    Progress on standard error (see :class:`~._terminal.Progress`): on a terminal, a line
    redrawn; in a log, a line when a method starts and when a fold ends (at most one every
    few seconds), and a line with each method's time.
    """
    total = sum(n_folds(folds) for _, _, folds in runs.values())
    results = {}
    with Progress(total, "cross-validating", quiet=quiet, unit="folds") as progress:
        for (data_name, method), (estimator, data, folds) in runs.items():
            start = time.perf_counter()
            n = n_folds(folds)
            progress.status(f"{method} on {data_name}: {n} fold{'s' if n > 1 else ''}...")

            def step(done, n, method=method, data_name=data_name):
                progress.step(f"{method} on {data_name}, fold {done}/{n} done")

            results[data_name, method] = cv_scores(
                estimator, data, folds, seed=seed, stratify=stratify,
                metrics=metrics(data_name), method=method, progress=step, log=progress.log,
            )  # fmt: skip
            seconds = time.perf_counter() - start
            progress.log(f"{method} on {data_name}: {seconds:.1f} s")
    return results


@click.command()
@click.argument("data")
@click.option(
    "-m",
    "--method",
    "methods",
    multiple=True,
    required=True,
    help="Method name (see the list above); repeat, or separate names by commas.",
)
@param_option
@metrics_option
@threshold_option
@click.option("--cv", type=int, default=10, show_default=True, help="Number of folds.")
@split_option
@train_test_option
@stratify_option
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--prequential",
    "batch_size",
    type=click.IntRange(min=1),
    default=None,
    help="Test-then-train over the rows in their order, in batches of this many rows, "
    "instead of cross-validation (methods with partial_fit).",
)
@click.option(
    "--multi-target",
    "multi_target",
    is_flag=True,
    help="Read DATA's targets as classes (a named data set or an ARFF file, e.g. sf2), "
    "not binarised, and evaluate the multi-target forms of the methods (see the list above).",
)
@variant_option
@tfidf_option
@missing_option
@labels_option
@data_dir_option
@json_option
@quiet_option
@reported
def evaluate(
    data,
    methods,
    params,
    metrics,
    threshold,
    cv,
    split,
    train_test,
    stratify,
    seed,
    batch_size,
    multi_target,
    variant,
    tfidf,
    missing,
    labels,
    data_dir,
    as_json,
    quiet,
):
    """Cross-validate methods on DATA; print the criteria, T_train and T_test (seconds).

    Multi-label data: the 11 criteria of the dynamic-chains paper (Trajdos and Kurzynski),
    all losses (lower is better): Hamming, zero-one, and the false discovery rate (FDR, 1 -
    precision), false negative rate (FNR, 1 - recall) and F1 loss, each example-based,
    macro- and micro-averaged over labels. Text corpora: accuracy and macro and micro
    precision, recall and F1, all scores (higher is better; for one class per row the
    micro averages equal accuracy). Multi-target data (--multi-target, a class per target):
    MEKA's criteria, exact match and zero-one loss (the rows with every target right, or
    not), Hamming score and loss (the share of targets right, or wrong) and the accuracy of
    each target (acc_<target>); the methods br, cc, pcc and lp in their multi-target forms,
    whose default event model makes nominal attributes categorical.

    --metrics chooses other criteria: sets (naibx; ranking: criteria of the label scores,
    such as ranking loss and ROC AUC) and single names (micro_f1, label_ranking_loss, ...),
    which may be mixed. --threshold replaces the 0.5 rule of multi-label methods by a
    decision rule fitted out of fold (mlnb.TunedThresholdsCV). A method that predicts no
    label, or almost every label, on held-out rows gets a warning naming the likely cause.

    \b
    Examples:
      mlnb evaluate yeast -m br -m cc -m ecc --cv 10
      mlnb evaluate tmc2007 -m br -p events=bernoulli --split 0.66 --json
      mlnb evaluate emotions -m br,cc --metrics ranking
      mlnb evaluate enron -m br --threshold tuned --metrics micro_f1,label_ranking_loss
      mlnb evaluate webkb -m mnb,bnb,bayes-mnb --train-test
      mlnb evaluate r8_allterms -m mnb -m gnb --cv 10 --stratify
      mlnb evaluate delicious -m br,naibx --prequential 500 --metrics hamming,micro_f1
      mlnb evaluate sf2 --multi-target -m br,cc,lp
      mlnb evaluate sf2 --multi-target -m cc -p inference=exact --metrics mt_exact_match

    --prequential N predicts each batch of N rows with the model trained on the rows before
    it, then learns it (the first batch is only learnt); it prints the criteria over every
    predicted row and the rows per second.
    """
    methods = method_names(methods)
    settings = parse_params(params)
    if multi_target:
        _check_multi_target(methods, threshold=threshold, tfidf=tfidf, missing=missing,
                            stratify=stratify, batch_size=batch_size)  # fmt: skip
    elif not quiet and declared_kind(data, data_dir) == "multi-target":
        click.echo(
            f"note: {data} is multi-target data: its targets are binarised here (labels); "
            "--multi-target evaluates their classes",
            err=True,
        )
    if batch_size is not None:
        return _prequential(data, methods, settings, metrics, threshold, batch_size,
                            data_dir=data_dir, missing=missing, labels=labels, seed=seed,
                            as_json=as_json, quiet=quiet)  # fmt: skip
    dataset, folds = evaluation_data(
        data, cv=cv, split=split, train_test=train_test, data_dir=data_dir, variant=variant,
        missing=missing, labels=labels, multi_target=multi_target,
    )  # fmt: skip
    criteria = metric_names(metrics, dataset)
    estimators = {
        m: make_estimator(
            m, dataset, settings, seed=seed, tfidf=tfidf, threshold=threshold, missing=missing
        )
        for m in methods
    }
    runs = {(dataset.name, m): (e, dataset, folds) for m, e in estimators.items()}
    results = run_all(runs, seed=seed, stratify=stratify, metrics=lambda d: criteria,
                       quiet=quiet or as_json)  # fmt: skip
    rows = [{"method": m, **results[dataset.name, m]} for m in estimators]
    echo_table(rows, table_columns(rows, "method"), as_json=as_json)


#: The options that --multi-target excludes, and why.
_NOT_MULTI_TARGET = {
    "--threshold": "decision rules cut the scores of 0/1 labels",
    "--tfidf/--counts": "they choose the features of text",
    "--missing ignore": "the multi-target methods do not skip missing values",
    "--stratify": "the folds are stratified by 0/1 labels or one class per row",
    "--prequential": "the multi-target methods are evaluated by cross-validation only",
}


def _check_multi_target(methods, *, threshold, tfidf, missing, stratify, batch_size):
    """--multi-target's methods and options, checked before any data is read."""
    others = [m for m in methods if m not in MULTI_TARGET_METHODS]
    if others:
        raise click.UsageError(
            f"--multi-target: {', '.join(others)} {'has' if len(others) == 1 else 'have'} no "
            f"multi-target form; the methods with one: {', '.join(MULTI_TARGET_METHODS)}"
        )
    given = {
        "--threshold": threshold is not None,
        "--tfidf/--counts": tfidf is not None,
        "--missing ignore": missing == "ignore",
        "--stratify": stratify,
        "--prequential": batch_size is not None,
    }
    for option, reason in _NOT_MULTI_TARGET.items():
        if given[option]:
            raise click.UsageError(f"--multi-target excludes {option}: {reason}")


def _prequential(data, methods, settings, metrics, threshold, batch_size, *, data_dir,
                 missing, labels, seed, as_json, quiet):  # fmt: skip
    """``mlnb evaluate --prequential N``: every method test-then-trained over DATA's rows."""
    from ..evaluation import prequential

    if threshold is not None:
        raise click.UsageError(
            "--threshold tunes a rule by cross-validation: it does not apply to --prequential"
        )
    dataset = load_data(data, data_dir=data_dir, missing=loader_missing(missing), labels=labels)
    if is_text(dataset):
        raise ValueError(
            "--prequential runs on feature data: a text model's vocabulary is fixed by its "
            "first fit"
        )
    X, y = xy(dataset)
    if X.shape[0] <= batch_size:
        raise ValueError(
            f"--prequential {batch_size}: {dataset.name} has {X.shape[0]} rows, so no batch "
            "would be predicted; give a smaller batch size"
        )
    criteria = metric_names(metrics, dataset)
    rows, n_rows = [], X.shape[0]
    with Progress(
        len(methods) * n_rows, "prequential", quiet=quiet or as_json, unit="rows"
    ) as progress:
        for method in methods:
            estimator = make_estimator(method, dataset, settings, seed=seed, missing=missing)
            batches = (
                (X[i : i + batch_size], y[i : i + batch_size]) for i in range(0, n_rows, batch_size)
            )
            start, seen = time.perf_counter(), [0]
            progress.status(f"{method} on {dataset.name}: batches of {batch_size} rows...")

            def step(rows_seen, method=method, seen=seen):
                progress.step(
                    f"{method} on {dataset.name}: {rows_seen} rows", n=rows_seen - seen[0]
                )
                seen[0] = rows_seen

            result = prequential(estimator, batches, metrics=criteria, progress=step)
            progress.log(f"{method} on {dataset.name}: {time.perf_counter() - start:.1f} s")
            rows.append({"method": method, **result.final(), "rows_per_s": result.throughput})
    echo_table(rows, table_columns(rows, "method"), as_json=as_json)


evaluate.help = inspect.cleandoc(evaluate.help) + "\n\n\b\n" + describe_methods(multi_target=True)
