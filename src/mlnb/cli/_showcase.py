"""The commands that need no data folder: ``mlnb bench`` (speed against scikit-learn) and
``mlnb demo`` (the single-label classifiers on generated word counts); their work is in
:mod:`._bench` and :mod:`._demo`, imported when they run."""

from __future__ import annotations

import click

from ._options import json_option, quiet_option
from ._terminal import Progress, echo_table, progress_over, reported, version

__all__ = ["bench", "demo"]


@click.command()
@click.option("--quick", is_flag=True, help="Smaller data, one repeat.")
@json_option
@quiet_option
@reported
def bench(quick, as_json, quiet):
    """Time mlnb against scikit-learn on generated data, side by side (ratios < 1: faster).

    The full benchmarks on real data are the scripts under benchmarks/ in the repository.

    \b
    Example:
      mlnb bench --quick
    """
    from ._bench import CASES, run_bench

    with Progress(CASES, "benchmarking", quiet=quiet or as_json, unit="cases") as progress:

        def done(row):
            progress.step(row["task"])
            progress.log(f"{row['task']}: mlnb {row['mlnb s']:.3f} s, scikit-learn "
                         f"{row['scikit-learn s']:.3f} s")  # fmt: skip

        rows = run_bench(quick=quick, progress=done)
    echo_table(rows, ["task", "mlnb s", "scikit-learn s", "ratio"], as_json=as_json)


@click.command()
@click.option("--samples", type=int, default=3000, show_default=True, help="Number of documents.")
@click.option("--folds", type=int, default=5, show_default=True, help="Number of folds.")
@click.option("--seed", type=int, default=0, show_default=True)
@json_option
@quiet_option
@reported
def demo(samples, folds, seed, as_json, quiet):
    """Cross-validate the single-label classifiers on generated word counts.

    The seven single-label Naive Bayes classifiers of mlnb and scikit-learn's multinomial,
    Bernoulli and Gaussian ones, on a generated bag-of-words data set (a background
    vocabulary and a topic per class): accuracy, macro F1, T_train and T_test (seconds, per
    fold). No data folder needed; for real text use `mlnb evaluate webkb -m mnb,bnb,gnb`.

    \b
    Examples:
      mlnb demo
      mlnb demo --samples 500 --folds 3 --json
    """
    from ._demo import run_demo

    if folds < 2 or samples < folds:
        raise ValueError(
            f"--folds needs at least 2 folds and --samples at least --folds; got "
            f"{folds} folds, {samples} samples"
        )
    title, rows = run_demo(
        samples=samples,
        folds=folds,
        seed=seed,
        progress=lambda items: progress_over(items, "cross-validating", quiet or as_json),
    )
    if not as_json:
        click.echo(f"mlnb {version()}: {title}")
    columns = ["classifier", "accuracy", "macro_f1", "train_time", "test_time"]
    echo_table(rows, columns, as_json=as_json)
