"""The ``mlnb explain`` command: what the features of one row add to a label's log-odds
(:meth:`mlnb.multilabel._base.MultiLabelNB.explain`)."""

from __future__ import annotations

import click

from ._data import loader_missing, xy
from ._models import _prediction_data
from ._options import data_dir_option, labels_option, model_file_argument, part_option
from ._terminal import reported

__all__ = ["explain"]


@click.command()
@model_file_argument
@click.argument("data")
@click.option("--row", "row", type=int, required=True, help="The row of DATA to explain (0 first).")
@click.option(
    "--label",
    "label",
    type=str,
    default=None,
    help="The label: its name or index (default: the row's highest-scoring label).",
)
@click.option(
    "--top",
    "top",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Contributions listed on each side.",
)
@part_option("test", "Which part of a data set with a provided split the row is from.")
@labels_option
@data_dir_option
@reported
def explain(model, data, row, label, top, part, labels, data_dir):
    """Take a label's log-odds on one row of DATA apart, feature by feature.

    Prints the label's log-odds, split into the baseline (its prior and what the features
    add at 0), each feature's contribution at the row's value (the largest raising and
    lowering ones, named from the data's attributes) and the rest (what the features do
    not explain one by one: a chain's label terms, a document-length term; 0 for binary
    relevance with a multinomial, Bernoulli or Gaussian model).

    \b
    Examples:
      mlnb fit medical -m br -o medical-br.mlnb
      mlnb explain medical-br.mlnb medical --row 3
      mlnb explain medical-br.mlnb medical --row 3 --label Class-4-753_0 --top 5
    """
    import numpy as np

    from ..io import load, read_metadata

    estimator = load(model)
    explained = _explainable(estimator, model)
    metadata = read_metadata(model)
    dataset = _prediction_data(
        data, model, estimator, metadata, labels, data_dir=data_dir, part=part,
        variant=None, missing=loader_missing(metadata.get("missing") or "error"),
    )  # fmt: skip
    if not hasattr(dataset, "feature_names"):
        raise ValueError(f"{data} is a text corpus: explain takes multi-label feature data")
    X, _ = xy(dataset, labelled=False)
    n = X.shape[0]
    if not 0 <= row < n:
        raise ValueError(f"--row {row} is out of range: {dataset.name} has {n} rows (0 .. {n - 1})")
    X_row = X[row : row + 1]
    names = list(metadata.get("label_names") or dataset.label_names or [])
    if len(names) != explained.n_labels_:
        names = [str(j) for j in range(explained.n_labels_)]
    if label is None:
        index = int(np.argmax(np.asarray(explained.decision_function(X_row))[0]))
    elif label in names:
        index = names.index(label)
    elif label.lstrip("-").isdigit():
        index = int(label)
    else:
        shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
        raise ValueError(f"--label {label}: no such label in {model} ({shown})")
    features = list(dataset.feature_names)
    if len(features) != explained.n_features_in_:
        features = None
    why = explained.explain(X_row, index, feature_names=features)
    listed = why.top(0, k=top)
    first = why.contributions[0:1]
    nonzero = int(np.count_nonzero(first.toarray() if hasattr(first, "toarray") else first))
    lines = [
        f"{type(explained).__name__} ({model.name}), row {row} of {dataset.name}, label "
        f"{names[index]} (index {index})",
        f"  log-odds      {why.log_odds[0]:+.4f}",
        f"  baseline      {why.baseline[0]:+.4f}  (prior and features at 0)",
        f"  features      {why.log_odds[0] - why.baseline[0] - why.rest[0]:+.4f}  "
        f"({nonzero} feature{'s' if nonzero != 1 else ''} contributing)",
        f"  rest          {why.rest[0]:+.4f}",
    ]
    for title, pairs in (("raising", listed.raising), ("lowering", listed.lowering)):
        lines.append(f"top {len(pairs)} {title}:")
        width = max((len(name) for name, _ in pairs), default=0)
        lines += [f"  {name:<{width}}  {weight:+.4f}" for name, weight in pairs]
        if not pairs:
            lines.append("  (none)")
    click.echo("\n".join(lines))


def _explainable(estimator, path):
    """The multi-label Naive Bayes model a file holds (inside a threshold wrapper too)."""
    for part in (estimator, getattr(estimator, "estimator_", None)):
        if part is not None and hasattr(part, "explain") and hasattr(part, "feature_stats_"):
            return part
    raise ValueError(
        f"{path} holds a {type(estimator).__name__}: explain takes a multi-label Naive Bayes "
        "model (br, cc, pcc, imlnb, naibx, ...) fitted on feature data"
    )
