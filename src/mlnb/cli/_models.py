"""The models of the ``mlnb`` command: an estimator for a method and a data set
(:func:`make_estimator`: a text pipeline, a --threshold wrapper, --missing), and the
``fit`` (new or --update) and ``predict`` commands with their model files."""

from __future__ import annotations

import inspect
import time
from numbers import Integral
from pathlib import Path

import click

from ._data import data_kind, loader_missing, unknown_label_cells, xy
from ._inputs import TEXT_CORPORA, is_multi_target, is_text, load_data
from ._methods import (
    METHODS,
    build,
    describe_methods,
    estimator_class,
    is_single_label,
    parse_params,
)
from ._options import (
    data_dir_option,
    labels_option,
    missing_option,
    model_file_argument,
    model_file_value,
    model_output_value,
    output_file_value,
    param_option,
    part_option,
    quiet_option,
    tfidf_option,
    threshold_option,
    variant_option,
)
from ._terminal import naming, reported, write_text

__all__ = ["fit", "is_text_model", "make_estimator", "predict"]


def save(estimator, path, *, metadata=None):
    """:func:`mlnb.io.save`, imported when a model is saved: it loads scipy, which
    ``mlnb --version`` and ``--help`` do not need."""
    from ..io import save as save_model

    save_model(estimator, path, metadata=metadata)


def _strategy(threshold):
    """The TunedThresholdsCV strategy of a --threshold value."""
    from ..decision_rules import Threshold

    if isinstance(threshold, float):
        return Threshold(threshold)
    return "auto" if threshold == "tuned" else threshold


def _rule(threshold):
    """The ``rule`` of a --threshold value: "tuned", a rule name, or a given cut."""
    from ..decision_rules import Threshold

    return Threshold(threshold) if isinstance(threshold, float) else threshold


def make_estimator(method, data, settings, *, seed=0, tfidf=None, threshold=None, missing="error"):
    """Method ``method`` ready for ``data``: a text pipeline for a text corpus, the
    multi-target form for multi-target data (:func:`multi_target_estimator`).

    ``threshold`` (a --threshold value) sets a multi-label method's ``rule`` (or, for
    methods without one, wraps it in :class:`~mlnb.TunedThresholdsCV`, or sets the strategy
    of one that already is);
    ``missing`` (--missing) "ignore" sets the method's ``missing="ignore"``.
    """
    if is_multi_target(data):
        if threshold is not None or tfidf is not None or missing != "error":
            raise ValueError(
                "multi-target methods take no --threshold, --tfidf/--counts or --missing ignore"
            )
        return multi_target_estimator(method, data, settings)
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; known methods: {', '.join(METHODS)}")
    single = [n for n in METHODS if is_single_label(n)]
    multi = [n for n in METHODS if not is_single_label(n)]
    if method in single and not is_text(data):
        raise ValueError(
            f"{method} is a single-label classifier (one class per row), but {data.name} is "
            f"multi-label data ({data.n_labels} labels): choose a multi-label method "
            f"({', '.join(multi)}); for example -m br -p events=gaussian is Gaussian NB per "
            f"label. The text corpora are {', '.join(TEXT_CORPORA)} and label<TAB>text files"
        )
    if method in multi and is_text(data):
        raise ValueError(
            f"{method} is a multi-label method, but {data.name} is a single-label text corpus "
            f"({len(data.classes)} classes): choose a single-label classifier "
            f"({', '.join(single)}), e.g. -m mnb"
        )
    if is_text(data):
        from ..text import make_text_pipeline

        if threshold is not None:
            raise ValueError(
                f"--threshold chooses the decision rule of multi-label methods; {method} is "
                f"a single-label classifier and {data.name} a text corpus (one class per "
                "row): leave --threshold out"
            )
        classifier = build(method, None, settings, random_state=seed)
        return make_text_pipeline(classifier, tfidf=tfidf)
    if tfidf is not None:
        raise ValueError(
            f"--tfidf/--counts choose the features of text; {data.name} is feature data"
        )
    from ..selection import TunedThresholdsCV, default_param_grid

    settings = _with_missing(settings, missing, method)
    estimator = build(method, data.X, settings, random_state=seed)
    if threshold is None:
        return estimator
    if isinstance(estimator, TunedThresholdsCV):  # br-tuned, cc-tuned: only the rule changes
        return estimator.set_params(strategy=_strategy(threshold))
    if "rule" in estimator.get_params():  # the estimator chooses (or fits) its rule itself
        return estimator.set_params(rule=_rule(threshold))
    # the library's policy: an event model the user did not name is chosen with the rule
    grid = default_param_grid(estimator, events_given="events" in settings)
    return TunedThresholdsCV(
        estimator,
        strategy=_strategy(threshold),
        scoring="f1_micro",
        cv=5,
        random_state=seed,
        param_grid=grid,
    )


def multi_target_estimator(method, data, settings):
    """The multi-target form of ``method`` (:data:`~._methods.MULTI_TARGET_METHODS`) for
    ``data``, a :class:`~mlnb.datasets.Dataset` with a class per target.

    An event-model rule (``events="auto"``, the default, or ``"weka"``) gets the data set's
    column types (:class:`mlnb.events.Auto`): a nominal attribute is categorical, whatever
    its codes, as ``Auto`` makes it for a DataFrame's categorical columns.
    """
    from ..events import Auto
    from ..events.auto import RULES

    events = settings.get("events", "auto")
    if isinstance(events, str) and events in RULES:
        types = {"column_types": data.column_types, "n_categories": data.n_categories}
        settings = {**settings, "events": Auto(events, **types)}
    return build(method, data.X, settings, multi_target=True)


def _with_missing(settings, missing, method):
    """The -p settings plus ``missing="ignore"`` for --missing ignore (unless -p says)."""
    if missing != "ignore" or "missing" in settings:
        return settings
    wrapper = "estimator" in METHODS[method][2]  # tuned: build passes it to the inner method
    if wrapper or "missing" in inspect.signature(estimator_class(method)).parameters:
        return {**settings, "missing": "ignore"}
    raise ValueError(
        f"--missing ignore: {method} cannot skip missing values (it has no missing option); "
        "choose another method (br, cc, ecc, dce, naibx, imlnb, ...) or leave --missing out"
    )


@click.command()
@click.argument("data")
@click.option("-m", "--method", default=None, help="Method name (see the list above).")
@click.option(
    "--update",
    "update",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    callback=model_file_value,
    help="Continue training this model file on DATA (partial_fit) instead of fitting anew.",
)
@param_option
@threshold_option
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    callback=model_output_value,
    help="The model file to write (its folder must exist; may be the --update file).",
)
@part_option("train", "Which part of a data set with a provided split to train on.")
@variant_option
@tfidf_option
@missing_option
@labels_option
@data_dir_option
@quiet_option
@reported
def fit(
    data,
    method,
    update,
    params,
    threshold,
    output,
    part,
    variant,
    tfidf,
    missing,
    labels,
    data_dir,
    quiet,
):
    """Train METHOD on DATA and write a model file.

    DATA is a data-set name (`mlnb datasets`), an ARFF file, a generated set
    (synthetic-gaussian, synthetic-counts, ...), a text corpus (webkb, r8_allterms,
    r8_noshort, 20ng_bydate) or a label<TAB>text file. Multi-label methods go with
    multi-label data, single-label classifiers with text; a text model holds its
    vocabulary (and TF-IDF weights), so it predicts from documents.

    \b
    Examples:
      mlnb fit emotions -m cc -p inference=beam -o emotions-cc.mlnb
      mlnb fit enron -m br --threshold tuned -o enron-br.mlnb
      mlnb fit webkb -m bayes-mnb -p beta=0.1 -o webkb.mlnb
      mlnb fit 20ng_bydate -m mnb --tfidf -o 20ng.mlnb
      mlnb fit data.arff --labels 6 --missing ignore -m dce -o data.mlnb
      mlnb fit new-rows.arff --update emotions-cc.mlnb -o emotions-cc.mlnb
    """
    if update is not None:
        return _update(update, data, output, params, threshold, tfidf, part=part,
                       variant=variant, missing=missing, labels=labels, data_dir=data_dir,
                       quiet=quiet)  # fmt: skip
    if method is None:
        raise click.UsageError("give -m/--method (or --update MODEL to continue training one)")
    settings = parse_params(params)
    dataset = load_data(
        data, data_dir=data_dir, part=part, variant=variant, missing=loader_missing(missing),
        labels=labels,
    )  # fmt: skip
    estimator = make_estimator(
        method, dataset, settings, tfidf=tfidf, threshold=threshold, missing=missing
    )
    X, y = xy(dataset)
    if not quiet:
        unknown = unknown_label_cells(dataset)
        size = f"{dataset.n_samples} rows" + (f", {unknown} unknown label cells" if unknown else "")
        click.echo(f"fitting {method} on {dataset.name} ({size})...", err=True)
    start = time.perf_counter()
    estimator.fit(X, y)
    seconds = time.perf_counter() - start
    metadata = {
        "method": method,
        "params": list(params),
        "threshold": threshold,
        "data": data,
        "part": part,
        "kind": data_kind(dataset),
        "variant": dataset.variant if is_text(dataset) else None,
        "missing": missing,
        "labels": labels,
        "label_names": None if is_text(dataset) else list(dataset.label_names),
    }
    with naming(output):
        save(estimator, output, metadata=metadata)
    if not quiet:
        if is_text(dataset):
            words = len(estimator.named_steps["counts"].vocabulary_)
            size = f"{dataset.n_samples} documents, {words} words, {len(dataset.classes)} classes"
        else:
            size = f"{dataset.n_samples} rows"
        click.echo(
            f"fitted {method} on {dataset.name} ({size}) in {seconds:.3f} s; wrote {output}",
            err=True,
        )


def _update(model, data, output, params, threshold, tfidf, *, quiet, **loading):
    """``mlnb fit DATA --update MODEL``: ``partial_fit`` the saved model on DATA, save it."""
    if params or threshold is not None or tfidf:
        raise click.UsageError(
            "--update continues a saved model as it is: -p, --threshold and --tfidf apply to a "
            "new fit only"
        )
    from ..io import load, read_metadata

    estimator = load(model)
    metadata = read_metadata(model)
    if is_text_model(estimator):
        raise ValueError(
            f"{model} is a text model: its vocabulary is fixed by its first fit, so it cannot "
            "learn new documents; fit it anew on all of them"
        )
    if not callable(getattr(estimator, "partial_fit", None)):
        raise ValueError(
            f"{model} holds a {type(estimator).__name__}, which has no partial_fit (its "
            "statistics are not additive, or it chooses settings on the data it saw): fit it "
            "anew on all the data"
        )
    dataset = load_data(data, missing=loader_missing(loading.pop("missing")), **loading)
    if is_text(dataset):
        raise ValueError(f"{data} is a text corpus, but {model} was fitted on feature vectors")
    X, y = xy(dataset)
    n_before = _rows_seen(estimator)
    start = time.perf_counter()
    estimator.partial_fit(X, y)
    seconds = time.perf_counter() - start
    updates = [*metadata.get("updates", []), {"data": data, "part": loading["part"]}]
    kept = {k: v for k, v in metadata.items() if k not in _FILE_KEYS}
    with naming(output):
        save(estimator, output, metadata={**kept, "updates": updates})
    if not quiet:
        seen = "" if n_before is None else f" (it had seen {n_before:g})"
        click.echo(
            f"updated {model} with {dataset.n_samples} rows of {dataset.name}{seen} in "
            f"{seconds:.3f} s; wrote {output}",
            err=True,
        )


#: Keys read_metadata adds about the file itself (not saved by fit).
_FILE_KEYS = ("format_version", "mlnb_version", "class")


def _rows_seen(estimator):
    """The (weighted) rows a model's statistics hold, or None if it does not say."""
    import numpy as np

    for name in ("feature_stats_", "size_stats_"):
        stats = getattr(estimator, name, None)
        if stats is not None and hasattr(stats, "total_count"):
            return float(np.sum(stats.total_count))
    return None


fit.help = inspect.cleandoc(fit.help) + "\n\n\b\n" + describe_methods()


def is_text_model(estimator):
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import Pipeline

    return isinstance(estimator, Pipeline) and isinstance(estimator.steps[0][1], CountVectorizer)


@click.command()
@model_file_argument
@click.argument("data")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    callback=output_file_value,
    help="CSV file (default: standard output).",
)
@part_option("test", "Which part of a data set with a provided split to predict.")
@click.option(
    "--proba/--no-proba",
    default=True,
    show_default=True,
    help="Also write probabilities where the method defines them.",
)
@variant_option
@missing_option
@labels_option
@data_dir_option
@quiet_option
@reported
def predict(model, data, output, part, proba, variant, missing, labels, data_dir, quiet):
    """Predict DATA with a model file; writes CSV.

    Multi-label models write one 0/1 column per label; single-label models a "class"
    column with the predicted class names. --proba adds a probability per label or class.
    A label<TAB>text file is read as is: give --variant to clean raw text as the training
    corpus was (the labels in the file are not used). An ARFF file may hold '?' for every
    label value (MEKA's convention for rows to predict); an ARFF file that does not say
    which columns are labels (no XML file beside it, no -C N in its relation name) gets
    the model's label columns, found by their names. A line on standard error says what
    was predicted and where it was written (none with -q).

    \b
    Examples:
      mlnb predict emotions-cc.mlnb emotions -o predictions.csv
      mlnb predict webkb.mlnb webkb --part test --no-proba
      mlnb predict 20ng.mlnb messages.txt --variant stemmed
      mlnb predict music.mlnb Music_missing_classes.arff --no-proba
    """
    import numpy as np

    from ..io import load, read_metadata

    estimator = load(model)
    metadata = read_metadata(model)
    dataset = _prediction_data(
        data, model, estimator, metadata, labels, data_dir=data_dir, part=part,
        variant=variant, missing=loader_missing(missing),
    )  # fmt: skip
    if is_text_model(estimator) and not is_text(dataset):
        raise ValueError(
            f"{model} is a text model (it reads documents), but {data} is multi-label "
            f"feature data: give a text corpus ({', '.join(TEXT_CORPORA)}) or a "
            "label<TAB>text file"
        )
    if is_text(dataset) and not is_text_model(estimator):
        raise ValueError(
            f"{model} was fitted on feature vectors, but {data} is a text corpus: fit a text "
            f"model first, e.g. mlnb fit {data} -m mnb -o text.mlnb"
        )
    if is_text(dataset) and dataset.from_file and dataset.variant is None:
        trained = metadata.get("variant")
        if trained is not None:
            click.echo(
                f"note: {model} was trained on text cleaned '{trained}'; {data} is read as "
                f"is: add --variant {trained} if it holds raw text",
                err=True,
            )
    X, _ = xy(dataset, labelled=False)
    if missing == "ignore":  # missing entries add nothing to a row's score
        keys = [k for k in ("missing", "estimator__missing") if k in estimator.get_params()]
        estimator.set_params(**dict.fromkeys(keys, "ignore"))
    predicted = estimator.predict(X)
    with_proba = proba and hasattr(estimator, "predict_proba")
    if np.ndim(predicted) == 1:  # single-label: class names
        columns = ["class"]
        table = [[str(c)] for c in predicted]
        if with_proba:
            columns += [f"P({c})" for c in estimator.classes_]
            for row, p in zip(table, estimator.predict_proba(X), strict=True):
                row += [f"{v:.6g}" for v in p]
    else:
        labels = np.asarray(predicted.toarray() if hasattr(predicted, "toarray") else predicted)
        names = list(dataset.label_names)
        if len(names) != labels.shape[1]:
            names = [f"y{j}" for j in range(labels.shape[1])]
        columns = list(names)
        matrix = [labels.astype(float)]
        if with_proba:
            columns += [f"P({name})" for name in names]
            matrix.append(np.asarray(estimator.predict_proba(X), dtype=float))
        table = [[f"{v:.6g}" for v in row] for row in np.hstack(matrix)]
    lines = [",".join(_csv_field(c) for c in columns)]
    lines += [",".join(_csv_field(v) for v in row) for row in table]
    text = "\n".join(lines) + "\n"
    if output is None:
        click.echo(text, nl=False)
    else:
        write_text(output, text)
    if not quiet:
        where = "standard output" if output is None else output
        click.echo(f"{_summary(predicted, dataset)}; wrote {where}", err=True)


def _summary(predicted, data):
    """What ``predicted`` holds, in a few words: rows and labels (or classes) per row."""
    import numpy as np

    if np.ndim(predicted) == 1:
        classes = len(set(np.asarray(predicted).tolist()))
        return (
            f"predicted {len(predicted)} {'documents' if is_text(data) else 'rows'} of "
            f"{data.name}: {classes} distinct class{'es' if classes != 1 else ''}"
        )
    matrix = predicted.toarray() if hasattr(predicted, "toarray") else np.asarray(predicted)
    per_row = float(matrix.sum(axis=1).mean()) if matrix.shape[0] else 0.0
    return (
        f"predicted {matrix.shape[0]} rows of {data.name}: {per_row:.2f} of "
        f"{matrix.shape[1]} labels per row on average"
    )


def _prediction_data(data, model, estimator, metadata, labels, **options):
    """DATA to predict with the model; an ARFF file without label information (no XML
    beside it, no -C N) gets the model's label columns, found by their names."""
    from ..datasets import ArffError

    try:
        return load_data(data, labels=labels, unlabelled=True, **options)
    except ArffError as error:
        if labels is not None or "no label information" not in str(error):
            raise
    names = metadata.get("label_names")
    count = len(names) if names else _n_labels(estimator)
    if count is None:
        raise ValueError(
            f"{data}: the file does not say which columns are labels, nor does {model}: "
            "give --labels N (the first N columns) or --labels -N (the last N)"
        )
    given = metadata.get("labels")
    found = []
    for candidate in [given] if isinstance(given, int) else [count, -count]:
        try:
            loaded = load_data(data, labels=candidate, unlabelled=True, **options)
        except ValueError:
            continue
        if names is None or list(loaded.label_names) == list(names):
            found.append(loaded)
    if len(found) == 1:
        return found[0]
    raise ValueError(
        f"{data}: the file does not say which columns are labels (no XML file beside it, no "
        f"-C N in its relation name), and its columns do not show where {model}'s {count} "
        f"labels are: give --labels {count} (the first {count} columns) or --labels "
        f"-{count} (the last {count})"
    )


def _n_labels(estimator):
    """The labels a fitted multi-label model predicts, or None if it does not say."""
    for part in (estimator, getattr(estimator, "estimator_", None)):
        n = getattr(part, "n_labels_", None)
        if isinstance(n, Integral):  # numpy's integers too
            return int(n)
    return None


def _csv_field(text):
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n') else text
