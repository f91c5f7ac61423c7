"""The data as the ``mlnb`` commands use it: inputs and targets, the folds of --cv, --split
and --train-test, a data set in a few words, and the ``mlnb datasets`` command (the
loading itself is in :mod:`._inputs`)."""

from __future__ import annotations

from numbers import Integral

import click

from ._inputs import (
    GENERATED,
    TEXT_CORPORA,
    data_home_message,
    is_text,
    join,
    load_data,
    load_train_test,
)
from ._options import data_dir_option, json_option, quiet_option
from ._terminal import echo_table, progress_over, reported

__all__ = [
    "cv_value",
    "data_kind",
    "datasets",
    "describe_data",
    "evaluation_data",
    "loader_missing",
    "n_folds",
    "xy",
]


def n_folds(folds):
    """The folds of a --cv, --split or --train-test value."""
    if isinstance(folds, Integral):  # numpy's integers too
        return int(folds)
    if isinstance(folds, float):
        return 1
    return folds.get_n_splits()


def data_kind(data):
    """``"text"`` for a text corpus, else ``"multilabel"``."""
    return "text" if is_text(data) else "multilabel"


def xy(data, *, labelled=True):
    """Inputs and targets; ``labelled``: fail on data without labels or classes."""
    if not is_text(data):
        if labelled and data.Y is None:
            raise ValueError(
                f"{data.name} has no labels (every label value is '?', rows to predict): "
                "models can predict it, not learn from it"
            )
        return data.X, data.Y
    if labelled and data.labels is None:
        raise ValueError(
            f"{data.name} holds documents without classes (no label<TAB> before the text): "
            "models can predict it, not learn from it"
        )
    return data.documents, data.labels


def loader_missing(missing):
    """The ARFF loaders' ``missing`` of a --missing value."""
    return "nan" if missing == "ignore" else "error"


def cv_value(cv, split):
    """The folds of --cv and --split, checked: a train fraction or a number of folds."""
    if split is not None:
        if not 0 < split < 1:
            raise ValueError(f"--split must be a train fraction in (0, 1); got {split}")
        return split
    if cv < 2:
        raise ValueError(f"--cv needs at least 2 folds; got {cv}")
    return cv


def checked_split(split, n_samples):
    """``--split``, checked to leave at least one training and one test row of
    ``n_samples`` (the evaluation takes exactly ``round(split * n)`` training rows:
    :func:`mlnb.evaluation.cross_validate` with a train fraction)."""
    n_train = round(split * n_samples)
    if not 0 < n_train < n_samples:
        raise ValueError(
            f"--split {split}: {n_samples} rows give {n_train} training rows; the split needs "
            "at least one training and one test row"
        )
    return split


def evaluation_data(
    name, *, cv, split, train_test, data_dir, variant=None, missing="error", labels=None,
    multi_target=False,
):  # fmt: skip
    """The rows to evaluate on and the folds: a number, a train fraction or a splitter.

    ``missing``: the --missing value; ``labels``: --labels; ``multi_target``:
    --multi-target (a class per target).
    """
    options = {"data_dir": data_dir, "variant": variant, "labels": labels}
    options["multi_target"] = multi_target
    options["missing"] = loader_missing(missing)
    if not train_test:
        folds = cv_value(cv, split)
        data = load_data(name, **options)
        if split is not None:
            folds = checked_split(split, data.n_samples)
        return data, folds
    if split is not None:
        raise ValueError("--train-test and --split exclude each other: choose one")
    import numpy as np
    from sklearn.model_selection import PredefinedSplit

    train, test = load_train_test(name, **options)
    rows = np.concatenate([np.full(train.n_samples, -1), np.zeros(test.n_samples)])
    return join(train, test, name=name), PredefinedSplit(rows)


def describe_data(data):
    """A data set's size in a few words."""
    if is_text(data):
        return f"{data.n_samples} documents, {len(data.classes)} classes"
    unknown = unknown_label_cells(data)
    cells = f" ({unknown} cells unknown)" if unknown else ""
    return f"{data.n_samples} rows, {data.X.shape[1]} features, {data.Y.shape[1]} labels{cells}"


def unknown_label_cells(data):
    """How many label cells of a multi-label data set are unknown (NaN); 0 for text."""
    import numpy as np

    Y = None if is_text(data) else data.Y
    if Y is None:
        return 0
    values = Y.data if hasattr(Y, "tocsr") else np.asarray(Y)
    return int(np.count_nonzero(np.isnan(values))) if values.dtype.kind == "f" else 0


@click.command()
@data_dir_option
@json_option
@quiet_option
@reported
def datasets(data_dir, as_json, quiet):
    """List the data sets found, with n, d, L, label cardinality, density and avIR (the
    average imbalance ratio: the mean over labels of the most frequent label's count over
    the label's count).

    For a text corpus, d is its vocabulary (words of train and test) and L its classes.

    \b
    Example:
      mlnb datasets --data-dir ~/mlnb-data --json
    """
    from ..datasets import (
        data_home,
        describe,
        describe_dataset,
        describe_text_corpus,
        list_datasets,
    )

    try:
        data_home(data_dir)
    except FileNotFoundError as error:
        if not quiet and not as_json:
            click.echo(f"note: {data_home_message(error)}; listing the generated sets", err=True)
    rows, needs_extra = [], []
    names = list(GENERATED) + list(TEXT_CORPORA) + list_datasets(data_dir, available=True)
    # summaries of the files are cached (keyed by path, size and mtime): fast after a first run
    with progress_over(names, "reading data sets", quiet or as_json) as bar:
        for name in bar:
            try:
                if name in TEXT_CORPORA:
                    variant, _ = TEXT_CORPORA[name]
                    summary = describe_text_corpus(name, variant=variant, data_dir=data_dir)
                    kind = f"text ({variant})"
                elif name in GENERATED:
                    summary, kind = describe(load_data(name, data_dir=data_dir)), "multi-label"
                else:
                    summary, kind = describe_dataset(name, data_dir), "multi-label"
            except ImportError:
                needs_extra.append(name)  # the stemmed text needs nltk
                continue
            except (FileNotFoundError, ValueError):
                continue  # not present in this data directory
            text = kind.startswith("text")
            rows.append(
                {
                    "name": name,
                    "kind": kind,
                    "n": summary.n_samples,
                    "d": summary.n_features,
                    "L": summary.n_labels,
                    "LC": 1.0 if text else summary.cardinality,
                    "LD": 1.0 / summary.n_labels if text else summary.density,
                    "avIR": summary.avg_imbalance_ratio,
                }
            )
    if needs_extra and not quiet and not as_json:
        click.echo(
            f"note: left out {', '.join(needs_extra)}: reading it needs nltk "
            '(pip install "mlnb[data]")',
            err=True,
        )
    columns = ["name", "kind", "n", "d", "L", "LC", "LD", "avIR"]
    echo_table(rows, columns, as_json=as_json)
