"""``mlnb compare``: methods x data sets, ranked and tested, with a report, tables and
critical-difference diagrams written to a folder."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ._data import data_kind, describe_data, evaluation_data, unknown_label_cells
from ._evaluation import metric_names, run_all
from ._inputs import GENERATED
from ._methods import parse_params
from ._models import make_estimator
from ._options import (
    data_dir_option,
    json_option,
    method_names,
    metrics_option,
    missing_option,
    output_dir_value,
    param_option,
    quiet_option,
    split_option,
    stratify_option,
    tfidf_option,
    threshold_option,
    train_test_option,
)
from ._terminal import Failure, reported

__all__ = ["DEFAULT_COMPARE_METHODS", "PLOTTED", "compare"]

DEFAULT_COMPARE_METHODS = ("br", "cc", "ecc", "naibx", "imlnb", "dce")


PLOTTED = {
    "multilabel": ("example_f1_loss", "hamming", "macro_f1_loss", "train_time"),
    "text": ("accuracy", "macro_f1", "train_time"),
}


def _text_directions():
    """Whether greater is better, for the criteria of text corpora (named as the command
    shows them)."""
    from ..metrics import get_metric_set

    return {name: m.greater_is_better for name, m in get_metric_set("text").items()}


@click.command()
@click.option(
    "-m",
    "--method",
    "methods",
    multiple=True,
    help="Method name; repeat, or separate by commas. Default: br cc ecc naibx imlnb dce.",
)
@click.option(
    "--datasets",
    "names",
    multiple=True,
    help="Data-set name; repeat. Default: the generated synthetic-* sets.",
)
@param_option
@metrics_option
@threshold_option
@click.option("--cv", type=int, default=5, show_default=True, help="Number of folds.")
@split_option
@train_test_option
@stratify_option
@tfidf_option
@missing_option
@click.option(
    "--alpha", type=float, default=0.1, show_default=True, help="Significance level of the tests."
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("mlnb-compare"),
    show_default=True,
    callback=output_dir_value,
    help="Folder for the report, tables and diagrams (created if needed).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the folds.")
@data_dir_option
@json_option
@quiet_option
@reported
def compare(
    methods,
    names,
    params,
    metrics,
    threshold,
    cv,
    split,
    train_test,
    stratify,
    tfidf,
    missing,
    alpha,
    out_dir,
    seed,
    data_dir,
    as_json,
    quiet,
):
    """Run methods x data sets, rank them and test the differences.

    Prints, and writes to the output folder as report.md: per criterion the mean of each
    method over the data sets (the best marked), the average ranks, the Friedman test and
    the pairs that the Nemenyi critical difference separates, then the Wilcoxon-Holm pairs
    (or why N data sets cannot give any). Also writes the means per method and data set
    (CSV, JSON), the ranks (Markdown, CSV), the Wilcoxon-Holm table (Markdown),
    critical-difference diagrams (PNG, SVG; need mlnb[plot]) and summary.json. The data
    sets are all multi-label, or all text corpora (with single-label classifiers).

    --metrics chooses the criteria (as in `mlnb evaluate`; the diagrams are then drawn for
    them and T_train); --threshold applies to every multi-label method.

    \b
    Examples:
      mlnb compare -m br -m cc -m ecc --datasets emotions --datasets yeast --cv 10
      mlnb compare -m br,cc --datasets emotions --datasets yeast --metrics ranking \\
          --threshold tuned
      mlnb compare -m mnb,bnb,bayes-mnb --datasets webkb --datasets r8_allterms \\
          --datasets 20ng_bydate --train-test
    """
    from ..evaluation import write_comparison
    from ..evaluation._optional import require

    chosen = method_names(methods) or list(DEFAULT_COMPARE_METHODS)
    if len(chosen) < 2:
        raise Failure("compare needs at least two methods")
    if not 0 < alpha < 1:
        raise Failure(f"--alpha must be in (0, 1); got {alpha}")
    data_names = list(dict.fromkeys(names)) or list(GENERATED)
    settings = parse_params(params)
    if len(data_names) >= 2:  # the tests' extras, before any work
        require("pandas", "mlnb compare")
        require("scikit_posthocs", "mlnb compare (Nemenyi test)")
        require("statsmodels.stats.multitest", "mlnb compare (Holm correction)")
    try:
        require("matplotlib", "the critical-difference diagrams")
        plots = True
    except ImportError as error:
        plots = False
        if not quiet:
            click.echo(f"note: no diagrams: {error}", err=True)
    loaded, criteria, runs = {}, {}, {}
    for data_name in data_names:
        loaded[data_name] = evaluation_data(
            data_name, cv=cv, split=split, train_test=train_test, data_dir=data_dir,
            missing=missing,
        )  # fmt: skip
        data, folds = loaded[data_name]
        for method in chosen:
            estimator = make_estimator(
                method, data, settings, seed=seed, tfidf=tfidf, threshold=threshold,
                missing=missing,
            )  # fmt: skip
            runs[data_name, method] = (estimator, data, folds)
        criteria[data_name] = metric_names(metrics, data)
    _check_unknown_cells(runs)
    kind = data_kind(loaded[data_names[0]][0])  # one kind: make_estimator refused any mix
    results = run_all(
        runs, seed=seed, stratify=stratify, metrics=criteria.get, quiet=quiet or as_json
    )
    means = {}  # criterion -> {method -> {dataset -> value}}
    for (data_name, method), scores in results.items():
        for criterion, value in scores.items():
            means.setdefault(criterion, {}).setdefault(method, {})[data_name] = float(value)
    plotted = PLOTTED[kind] if metrics is None else (*criteria[data_names[0]], "train_time")
    files = write_comparison(
        out_dir,
        means,
        chosen,
        data_names,
        alpha=alpha,
        greater_is_better=_text_directions() if kind == "text" else None,
        plotted=plotted if plots else (),
        title=f"mlnb compare: {len(chosen)} methods on {len(data_names)} data sets",
        protocol=_protocol(cv, split, train_test, stratify, seed, threshold, params),
        described={d: describe_data(loaded[d][0]) for d in data_names},
    )
    if files.incomplete and not quiet:  # e.g. log_loss of a method without probabilities
        missing = ", ".join(files.incomplete)
        click.echo(f"note: not ranked (missing for some runs): {missing}", err=True)
    if len(data_names) < 2 and not quiet:
        click.echo("note: statistical tests need at least two data sets", err=True)
    if as_json:
        click.echo(json.dumps(files.summary, indent=1))
        return
    written = list(files.written)
    if files.report is not None:
        click.echo(files.report, nl=False)
        click.echo()
        written[0] = "report.md (this report)"
    click.echo(f"Wrote to {out_dir}/: {', '.join(written)}.", err=quiet)


def _protocol(cv, split, train_test, stratify, seed, threshold, params):
    """How compare scored the methods, in words."""
    if train_test:
        text = "the provided train/test split of each data set"
    elif split is not None:
        text = f"one shuffled holdout split, {split:g} of the rows to train (seed {seed})"
    else:
        text = f"{cv}-fold cross-validation, shuffled with seed {seed}"
        text += ", stratified" if stratify else ""
    if threshold is not None:
        text += f"; decision rule --threshold {threshold}"
    if params:
        text += "; " + " ".join(f"-p {p}" for p in params)
    return text


def _check_unknown_cells(runs):
    """Before any run: a method that cannot learn a data set's unknown label cells stops
    the comparison (its tests need every method on every set), naming them all."""
    refused = [
        f"{method} on {data.name} ({unknown_label_cells(data)} unknown label cells)"
        for (_, method), (estimator, data, _) in runs.items()
        if unknown_label_cells(data) and not _learns_unknown_cells(estimator)
    ]
    if refused:
        raise Failure(
            f"cannot compare {', '.join(refused)}: those methods need every label cell; "
            "BinaryRelevance, ClassifierChain, IMLNB and NaiBX (br, cc, imlnb, naibx, Naive "
            "Bayes path) learn around unknown cells, or fill them first"
        )


def _learns_unknown_cells(estimator):
    """Whether an estimator learns from label matrices with unknown cells."""
    return getattr(estimator, "_learns_unknown_cells", False) and (
        getattr(estimator, "base_estimator", None) is None
    )
