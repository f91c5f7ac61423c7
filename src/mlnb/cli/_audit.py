"""The ``mlnb audit`` command: the label cells of a data set that look most like annotation
errors (:func:`mlnb.audit.audit_labels`)."""

from __future__ import annotations

from pathlib import Path

import click

from ._data import xy
from ._inputs import is_text, load_data
from ._options import data_dir_option, labels_option, part_option
from ._terminal import reported

__all__ = ["audit"]


@click.command()
@click.argument("data")
@click.option(
    "--top",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Cells listed, most contradicted first.",
)
@click.option(
    "--events",
    type=click.Choice(["multinomial", "bernoulli", "gaussian"]),
    default=None,
    help="The model of the features (default: multinomial for non-negative data, else Gaussian).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write every cell's row, label, given value, leave-one-out log-odds and "
    "contradiction to this CSV file.",
)
@part_option("full", "Which part of a data set with a provided split to audit.")
@labels_option
@data_dir_option
@reported
def audit(data, top, events, output, part, labels, data_dir):
    """List the label cells of DATA that their leave-one-out prediction contradicts most.

    Each row's labels are predicted by binary relevance Naive Bayes fitted to every other
    row (exact, from the total statistics minus the row's own); a 1 the model finds very
    unlikely, or a 0 it finds very likely, is listed first: the likeliest errors of
    annotation.

    \b
    Examples:
      mlnb audit medical
      mlnb audit medical --part train --top 50 -o cells.csv
    """
    from ..audit import audit_labels

    dataset = load_data(data, data_dir=data_dir, part=part, labels=labels)
    if is_text(dataset):
        raise ValueError(f"{data} is a text corpus: audit takes multi-label data")
    X, Y = xy(dataset, labelled=True)
    names = list(dataset.label_names or range(Y.shape[1]))
    table = audit_labels(X, Y, events=events, label_names=names)
    if output is not None:
        table.to_csv(output, index=False)
    shown = table.head(top)
    width = max(len(str(name)) for name in shown["label"]) if len(shown) else 5
    lines = [
        f"{dataset.name}: {Y.shape[0]} rows x {Y.shape[1]} labels; the {len(shown)} cells "
        "most contradicted by their leave-one-out prediction",
        f"  {'row':>6}  {'label':<{width}}  given  log-odds  contradiction",
    ]
    for entry in shown.itertuples(index=False):
        lines.append(
            f"  {entry.row:>6}  {entry.label!s:<{width}}  {entry.given:>5}  "
            f"{entry.log_odds:+8.2f}  {entry.contradiction:13.2f}"
        )
    if output is not None:
        lines.append(f"every cell written to {output}")
    click.echo("\n".join(lines))
