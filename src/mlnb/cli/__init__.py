"""The ``mlnb`` command: data sets, fit, predict, evaluate, compare and bench.

Exit codes: 0 success; 1 a problem with the data, a model file or a method (the message
says what to do); 2 a usage error (unknown option, missing argument).
"""

from __future__ import annotations

import functools
import json
import sys
import time
from pathlib import Path

import click
import numpy as np

from .. import __version__
from ..io import ModelFileError, load, save
from ._inputs import GENERATED, load_data
from ._methods import METHODS, available, build, parse_params

__all__ = ["main"]

DEFAULT_COMPARE_METHODS = ("br", "cc", "ecc", "naibx", "imlnb", "dc")


class Failure(click.ClickException):
    """An error the user can act on: printed as ``mlnb: error: ...``, exit code 1."""

    exit_code = 1

    def format_message(self):
        return self.message

    def show(self, file=None):
        click.echo(f"mlnb: error: {self.format_message()}", err=True)


def reported(command):
    """Turn the library's errors into one-line messages and exit code 1."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (ValueError, TypeError, FileNotFoundError, ModelFileError, ImportError) as error:
            raise Failure(str(error)) from None

    return wrapper


def _echo_table(rows, columns, *, as_json, quiet=False):
    """Rows (dicts) as aligned columns, or as JSON."""
    if as_json:
        click.echo(json.dumps(rows, indent=1, default=float))
        return
    if quiet and not rows:
        return
    widths = {c: max(len(c), *(len(_cell(r.get(c))) for r in rows)) for c in columns}
    click.echo("  ".join(c.ljust(widths[c]) for c in columns))
    for row in rows:
        click.echo("  ".join(_cell(row.get(c)).ljust(widths[c]) for c in columns))


def _cell(value):
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) >= 1e-3 or value == 0 else f"{value:.2e}"
    return "" if value is None else str(value)


def _progress(items, label, quiet):
    if quiet:
        return _Silent(items)
    return click.progressbar(list(items), label=label, file=sys.stderr, show_pos=True)


class _Silent:
    def __init__(self, items):
        self.items = list(items)

    def __enter__(self):
        return self.items

    def __exit__(self, *exc):
        return False


data_dir_option = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder of benchmark data sets (default: $MLNB_DATA, then ../shared/data).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
quiet_option = click.option("--quiet", "-q", is_flag=True, help="No progress bars or notes.")


def part_option(default, help_text):
    """The --part option: train, test or both parts of a data set with a provided split."""
    return click.option(
        "--part",
        type=click.Choice(["train", "test", "full"]),
        default=default,
        show_default=True,
        help=help_text,
    )


param_option = click.option(
    "--param",
    "-p",
    "params",
    multiple=True,
    metavar="KEY=VALUE",
    help="A hyper-parameter, e.g. -p events=bernoulli -p prior_alpha=1 (repeatable).",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mlnb")
def main():
    """Naive Bayes for multi-label data: fit, predict, evaluate and compare methods.

    \b
    Examples:
      mlnb datasets
      mlnb evaluate emotions -m br -m cc --cv 10
      mlnb fit enron -m ecc -p n_chains=20 -o enron.mlnb
      mlnb predict enron.mlnb enron -o predictions.csv
      mlnb compare                      # the built-in default, on generated data
    """


@main.command()
@data_dir_option
@json_option
@quiet_option
@reported
def datasets(data_dir, as_json, quiet):
    """List the data sets found, with n, d, L, label cardinality, density and avIR.

    \b
    Example:
      mlnb datasets --data-dir ~/mlnb-data --json
    """
    from ..datasets import describe, list_datasets

    rows = []
    names = list(GENERATED) + list_datasets()
    with _progress(names, "reading data sets", quiet or as_json) as bar:
        for name in bar:
            try:
                data = load_data(name, data_dir=data_dir)
            except (FileNotFoundError, ValueError):
                continue  # not present in this data directory
            summary = describe(data)
            rows.append(
                {
                    "name": name,
                    "n": summary.n_samples,
                    "d": summary.n_features,
                    "L": summary.n_labels,
                    "LC": summary.cardinality,
                    "LD": summary.density,
                    "avIR": summary.avg_imbalance_ratio,
                }
            )
    _echo_table(rows, ["name", "n", "d", "L", "LC", "LD", "avIR"], as_json=as_json)


@main.command()
@click.argument("data")
@click.option("-m", "--method", required=True, help="Method name (see `mlnb evaluate -h`).")
@param_option
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path))
@part_option("train", "Which part of a data set with a provided split to train on.")
@data_dir_option
@quiet_option
@reported
def fit(data, method, params, output, part, data_dir, quiet):
    """Train METHOD on DATA and write a model file.

    DATA is a data-set name (`mlnb datasets`), an ARFF file or a generated set
    (synthetic-gaussian, synthetic-counts, ...).

    \b
    Example:
      mlnb fit emotions -m cc -p inference=beam -o emotions-cc.mlnb
    """
    dataset = load_data(data, data_dir=data_dir, part=part)
    estimator = build(method, dataset.X, parse_params(params))
    start = time.perf_counter()
    estimator.fit(dataset.X, dataset.Y)
    seconds = time.perf_counter() - start
    save(estimator, output)
    if not quiet:
        click.echo(
            f"fitted {method} on {dataset.name} ({dataset.X.shape[0]} rows) in "
            f"{seconds:.3f} s; wrote {output}",
            err=True,
        )


@main.command()
@click.argument("model", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("data")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="CSV file (default: standard output).",
)
@part_option("test", "Which part of a data set with a provided split to predict.")
@click.option(
    "--proba/--no-proba",
    default=True,
    show_default=True,
    help="Also write probabilities where the method defines them.",
)
@data_dir_option
@reported
def predict(model, data, output, part, proba, data_dir):
    """Predict the labels of DATA with a model file; writes CSV.

    \b
    Example:
      mlnb predict emotions-cc.mlnb emotions -o predictions.csv
    """
    estimator = load(model)
    dataset = load_data(data, data_dir=data_dir, part=part)
    labels = estimator.predict(dataset.X)
    names = list(dataset.label_names)
    columns, table = list(names), [np.asarray(labels, dtype=float)]
    if proba and hasattr(estimator, "predict_proba"):
        columns += [f"P({name})" for name in names]
        table.append(np.asarray(estimator.predict_proba(dataset.X), dtype=float))
    matrix = np.hstack(table)
    lines = [",".join(_csv_field(c) for c in columns)]
    lines += [",".join(f"{v:.6g}" for v in row) for row in matrix]
    text = "\n".join(lines) + "\n"
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text)


def _csv_field(text):
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n') else text


def _method_help():
    return "\n".join(f"  {name:7s} {METHODS[name][3]}" for name in available())


def _cv_value(cv, split):
    if split is not None:
        if not 0 < split < 1:
            raise ValueError(f"--split must be a train fraction in (0, 1); got {split}")
        return split
    if cv < 2:
        raise ValueError(f"--cv needs at least 2 folds; got {cv}")
    return cv


@main.command()
@click.argument("data")
@click.option(
    "-m",
    "--method",
    "methods",
    multiple=True,
    required=True,
    help="Method name; repeat for several.",
)
@param_option
@click.option("--cv", type=int, default=10, show_default=True, help="Number of folds.")
@click.option("--split", type=float, default=None, help="One holdout split: train fraction.")
@click.option("--seed", type=int, default=0, show_default=True)
@data_dir_option
@json_option
@quiet_option
@reported
def evaluate(data, methods, params, cv, split, seed, data_dir, as_json, quiet):
    """Cross-validate methods on DATA: the 11 criteria of seed 003, T_train and T_test.

    All criteria are losses (lower is better).

    \b
    Example:
      mlnb evaluate yeast -m br -m cc -m ecc --cv 10
      mlnb evaluate tmc2007 -m br -p events=bernoulli --split 0.66 --json
    """
    from ..evaluation import cross_validate

    dataset = load_data(data, data_dir=data_dir)
    folds = _cv_value(cv, split)
    settings = parse_params(params)
    estimators = {m: build(m, dataset.X, settings, random_state=seed) for m in methods}
    rows = []
    with _progress(estimators.items(), f"evaluating on {dataset.name}", quiet or as_json) as bar:
        for name, estimator in bar:
            result = cross_validate(estimator, dataset.X, dataset.Y, cv=folds, random_state=seed)
            rows.append({"method": name, **result.mean()})
    columns = ["method", *[c for c in rows[0] if c != "method"]]
    _echo_table(rows, columns, as_json=as_json)


evaluate.help += "\n\n\b\nMethods:\n" + _method_help()


@main.command()
@click.option(
    "-m",
    "--method",
    "methods",
    multiple=True,
    help="Method name; repeat. Default: br cc ecc naibx imlnb dc.",
)
@click.option(
    "--datasets",
    "names",
    multiple=True,
    help="Data-set name; repeat. Default: the generated synthetic-* sets.",
)
@param_option
@click.option("--cv", type=int, default=5, show_default=True)
@click.option("--split", type=float, default=None, help="One holdout split: train fraction.")
@click.option(
    "--alpha", type=float, default=0.1, show_default=True, help="Significance level of the tests."
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("mlnb-compare"),
    show_default=True,
)
@click.option("--seed", type=int, default=0, show_default=True)
@data_dir_option
@json_option
@quiet_option
@reported
def compare(methods, names, params, cv, split, alpha, out_dir, seed, data_dir, as_json, quiet):
    """Run methods x data sets, rank them and test the differences.

    Writes to the output folder: the mean of every criterion per method and data set
    (CSV, JSON), average ranks with Friedman-Nemenyi and Wilcoxon-Holm results (Markdown,
    CSV) and critical-difference diagrams (PNG, SVG); prints a summary.

    \b
    Example:
      mlnb compare -m br -m cc -m ecc --datasets emotions --datasets yeast --cv 10
    """
    from ..evaluation import compare as compare_scores
    from ..evaluation import cross_validate

    known = available()
    chosen = list(methods) or [m for m in DEFAULT_COMPARE_METHODS if m in known]
    if not methods and not quiet:
        missing = [m for m in DEFAULT_COMPARE_METHODS if m not in known]
        if missing:
            click.echo(f"note: not available yet: {', '.join(missing)}", err=True)
    if len(chosen) < 2:
        raise Failure("compare needs at least two methods")
    data_names = list(names) or list(GENERATED)
    folds = _cv_value(cv, split)
    settings = parse_params(params)
    means = {}  # criterion -> {method -> {dataset -> value}}
    runs = [(d, m) for d in data_names for m in chosen]
    loaded = {}
    with _progress(runs, "cross-validating", quiet or as_json) as bar:
        for data_name, method in bar:
            if data_name not in loaded:
                loaded[data_name] = load_data(data_name, data_dir=data_dir)
            data = loaded[data_name]
            estimator = build(method, data.X, settings, random_state=seed)
            result = cross_validate(estimator, data.X, data.Y, cv=folds, random_state=seed)
            for criterion, value in result.mean().items():
                means.setdefault(criterion, {}).setdefault(method, {})[data_name] = value
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "means.json").write_text(json.dumps(means, indent=1))
    summary = {"methods": chosen, "datasets": data_names, "criteria": {}}
    if len(data_names) < 2:
        if not quiet:
            click.echo("note: statistical tests need at least two data sets", err=True)
    else:
        import pandas as pd

        tables = {c: pd.DataFrame(v).T.loc[chosen, data_names] for c, v in means.items()}
        for criterion, table in tables.items():
            table.to_csv(out_dir / f"means_{criterion}.csv")
        comparison = compare_scores(tables, alpha=alpha)
        (out_dir / "ranks.md").write_text(comparison.to_markdown("ranks") + "\n")
        comparison.to_csv(out_dir / "ranks.csv", kind="ranks")
        (out_dir / "wilcoxon_holm.md").write_text(comparison.to_markdown("wilcoxon") + "\n")
        for criterion in ("example_f1_loss", "hamming", "macro_f1_loss", "train_time"):
            if criterion in comparison.criteria:
                comparison.plot_critical_difference(
                    out_dir / f"cd_{criterion}", criterion=criterion
                )
        for name, result in comparison.criteria.items():
            summary["criteria"][name] = {
                "average_ranks": {m: float(v) for m, v in result.average_ranks.items()},
                "friedman_pvalue": float(result.friedman_pvalue),
                "critical_difference": float(result.critical_difference),
            }
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=1))
    if as_json:
        click.echo(json.dumps(summary, indent=1))
        return
    rows = [
        {
            "criterion": c,
            **{m: r["average_ranks"][m] for m in chosen},
            "Friedman p": r["friedman_pvalue"],
            "CD": r["critical_difference"],
        }
        for c, r in summary["criteria"].items()
    ]
    if rows:
        click.echo(f"average ranks over {len(data_names)} data sets (1 = best):")
        _echo_table(rows, ["criterion", *chosen, "Friedman p", "CD"], as_json=False)
    click.echo(f"tables and diagrams in {out_dir}/", err=quiet)


@main.command()
@click.option("--quick", is_flag=True, help="Smaller data, one repeat.")
@json_option
@reported
def bench(quick, as_json):
    """Time mlnb against scikit-learn on generated data, side by side (ratios < 1: faster).

    The full benchmarks on real data are the scripts under benchmarks/ in the repository.
    """
    from ._bench import run_bench

    rows = run_bench(quick=quick)
    _echo_table(rows, ["task", "mlnb s", "scikit-learn s", "ratio"], as_json=as_json)
