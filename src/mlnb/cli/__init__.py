"""The ``mlnb`` command (also ``python -m mlnb``): data sets, fit, predict, evaluate,
compare, bench and demo.

Two kinds of task, each with its own methods: multi-label data (ARFF data sets, generated
sets; methods br, cc, ecc, ...), scored by the 11 losses of the dynamic-chains paper
(Trajdos and Kurzynski, "Dynamic classifier chains for multi-label learning"), and
single-label text corpora (webkb, r8_allterms, r8_noshort, 20ng_bydate, label<TAB>text
files; classifiers mnb, bnb, gnb, bayes-mnb, ...), turned into word counts or the paper's TF-IDF
(:func:`mlnb.text.make_text_pipeline`) and scored by accuracy and macro and micro
precision, recall and F1. A text model file holds the whole pipeline, vocabulary included.

Exit codes: 0 success; 1 a problem with the data, a model file or a method (the message
says what to do); 2 a usage error (unknown option, missing argument).

Importing this module does not import scikit-learn (``mlnb --version`` and ``--help`` stay
fast once the package itself imports lazily); the commands import what they use.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import os
import sys
import time
import warnings
from pathlib import Path

import click
import numpy as np

from ..io import ModelFileError, load, read_metadata, save
from ..metrics import (
    METRIC_SETS,
    METRICS,
    get_metrics,
    single_label_accuracy,
    single_label_f1,
    single_label_precision,
    single_label_recall,
)
from ._inputs import (
    GENERATED,
    TEXT_CORPORA,
    _data_home_message,
    is_text,
    join,
    load_data,
    load_train_test,
)
from ._methods import METHODS, build, describe_methods, is_single_label, parse_params

__all__ = ["main"]


def _version():
    """mlnb's version, without importing the estimators (the package's, else its metadata)."""
    version = getattr(sys.modules.get("mlnb"), "__version__", None)
    if version is None:
        from importlib.metadata import version as installed

        version = installed("mlnb")
    return version


DEFAULT_COMPARE_METHODS = ("br", "cc", "ecc", "naibx", "imlnb", "dce")

# Single-label criteria (scores, higher is better). For one class per row, micro precision,
# recall and F1 all equal accuracy; they are reported because users look for them.
SINGLE_LABEL_CRITERIA = {
    "accuracy": single_label_accuracy,
    "macro_precision": functools.partial(single_label_precision, average="macro"),
    "macro_recall": functools.partial(single_label_recall, average="macro"),
    "macro_f1": functools.partial(single_label_f1, average="macro"),
    "micro_precision": functools.partial(single_label_precision, average="micro"),
    "micro_recall": functools.partial(single_label_recall, average="micro"),
    "micro_f1": functools.partial(single_label_f1, average="micro"),
}
PLOTTED = {
    "multilabel": ("example_f1_loss", "hamming", "macro_f1_loss", "train_time"),
    "text": ("accuracy", "macro_f1", "train_time"),
}


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


def _elapsed(seconds):
    minutes, seconds = divmod(int(seconds), 60)
    return f"{minutes}:{seconds:02d}"


def _terminal_width():
    import shutil

    return shutil.get_terminal_size((100, 20)).columns


class Progress:
    """Progress on standard error, with the elapsed time; nothing when ``quiet``.

    On a terminal one line is redrawn at every :meth:`step`; elsewhere (logs, pipes) a line
    is written per :meth:`log` call only. ``total``: the steps expected (e.g. folds x
    methods x data sets); the context's end writes how many were done, and in what time.
    """

    def __init__(self, total, label, *, quiet=False, unit="steps", stream=None):
        self.total, self.label, self.quiet, self.unit = total, label, quiet, unit
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.done, self.start, self._width = 0, time.perf_counter(), 0

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, kind, *exc):
        self._clear()
        if kind is None:
            self._write(f"{self.label}: {self.done} {self.unit} in {self.elapsed()}")
        return False

    def elapsed(self):
        """Time since the start, as m:ss."""
        return _elapsed(time.perf_counter() - self.start)

    def step(self, note="", n=1):
        """``n`` more steps done; ``note`` says what is running."""
        self.done += n
        if self.quiet or not self.tty:
            return
        line = f"{self.label} {self.done}/{self.total} {self.unit}, {self.elapsed()}: {note}"
        self._clear()
        self.stream.write(line[: _terminal_width() - 1])
        self.stream.flush()
        self._width = len(line)

    def log(self, text):
        """One line (a finished part), with the count and the elapsed time."""
        self._clear()
        self._write(f"[{self.done}/{self.total} {self.unit}, {self.elapsed()}] {text}")

    def _clear(self):
        if self._width and self.tty and not self.quiet:
            self.stream.write("\r" + " " * min(self._width, _terminal_width() - 1) + "\r")
            self._width = 0

    def _write(self, text):
        if not self.quiet:
            click.echo(text, file=self.stream)


class _Items:
    """A Progress over ``items``: iterating steps once per item, naming it."""

    def __init__(self, items, label, quiet, name=str):
        self.items, self.name = list(items), name
        self.progress = Progress(len(self.items), label, quiet=quiet, unit="done")

    def __enter__(self):
        self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        return self.progress.__exit__(*exc)

    def __iter__(self):
        for item in self.items:
            yield item
            self.progress.step(self.name(item))


def _progress(items, label, quiet):
    """Iterate ``items`` with a progress line (elapsed time) on standard error."""
    return _Items(items, label, quiet, name=lambda i: str(i[0] if isinstance(i, tuple) else i))


def _n_folds(folds):
    """The folds of a --cv, --split or --train-test value."""
    if isinstance(folds, int | np.integer):
        return int(folds)
    if isinstance(folds, float):
        return 1
    return folds.get_n_splits()


def _data_dir_value(ctx, param, value):
    if value is not None and not value.is_dir():
        raise Failure(f"--data-dir {value}: no such folder (the folder of the data sets)")
    return value


def _folder_problem(folder):
    """Why files cannot be written in ``folder`` or created below it; None if they can."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"cannot write in {existing}"
    return None


def _output_file_value(ctx, param, value):
    """-o FILE: checked before any work (the folder exists and is writable)."""
    if value is None:
        return value
    name = "/".join(param.opts)
    if value.is_dir():
        raise Failure(f"{name} {value}: is a folder; give a file name")
    folder = value.parent
    if not folder.is_dir():
        raise Failure(f"{name} {value}: the folder {folder} does not exist; create it first")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise Failure(f"{name} {value}: cannot write in {folder}")
    return value


def _output_dir_value(ctx, param, value):
    """--out FOLDER: a folder that exists or can be created, checked before any work."""
    problem = _folder_problem(value)
    if problem is not None:
        raise Failure(f"--out {value}: {problem}")
    return value


data_dir_option = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    callback=_data_dir_value,
    help="Folder of benchmark data sets (default: $MLNB_DATA, then ../shared/data).",
)
missing_option = click.option(
    "--missing",
    type=click.Choice(["error", "ignore"]),
    default="error",
    show_default=True,
    help="ARFF values '?': an error, or missing values the methods ignore (read as NaN; "
    "the methods get missing='ignore', as Weka's NaiveBayes skips them).",
)
labels_option = click.option(
    "--labels",
    "labels",
    type=int,
    default=None,
    metavar="N",
    help="The label columns of an ARFF file given by path, as MEKA's -C N: N > 0 the first "
    "N attributes, N < 0 the last |N| (default: the Mulan XML file beside it, else -C in "
    "the relation name).",
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
variant_option = click.option(
    "--variant",
    type=click.Choice(["all-terms", "no-short", "stemmed"]),
    default=None,
    help="Cleaning of a text corpus or label<TAB>text file (default: the paper's: webkb and "
    "20ng_bydate stemmed, r8_allterms all-terms, r8_noshort no-short; a file as is).",
)
tfidf_option = click.option(
    "--tfidf/--counts",
    "tfidf",
    default=None,
    help="Text features: the paper's TF-IDF or word counts (default: TF-IDF for the "
    "Gaussian classifiers, counts for the others).",
)
train_test_option = click.option(
    "--train-test",
    is_flag=True,
    help="Train on the provided train part, score on the test part (text corpora, "
    "emotions, enron, ...) instead of cross-validating.",
)
stratify_option = click.option(
    "--stratify",
    is_flag=True,
    help="Stratified folds (multi-label: iterative stratification, needs mlnb[stats]).",
)


# Names of the multi-label criteria sets shown in help and errors.
METRIC_SET_NAMES = ("dynamic_chains", "naibx", "ranking")


def _threshold_words():
    """--threshold words: "tuned" lets TunedThresholdsCV choose among the rules."""
    from ..decision_rules import RULES

    return ("tuned", *RULES)


def _metrics_value(ctx, param, values):
    """--metrics: names and set names (repeated or comma-separated), checked; None if absent."""
    names = list(dict.fromkeys(n.strip() for v in values for n in v.split(",") if n.strip()))
    if not values:
        return None
    if not names:
        raise click.BadParameter("give at least one metric or set name", ctx, param)
    unknown = [n for n in names if n not in METRICS and n not in METRIC_SETS]
    if unknown:
        raise click.BadParameter(
            f"unknown metric or set {', '.join(map(repr, unknown))}; sets: "
            f"{', '.join(METRIC_SET_NAMES)}; metrics: {', '.join(sorted(METRICS))}",
            ctx,
            param,
        )
    return tuple(names)


def _threshold_value(ctx, param, value):
    """--threshold: a rule name of _threshold_words() or a finite number; None if absent."""
    if value is None:
        return None
    word = value.strip().lower()
    words = _threshold_words()
    if word in words:
        return word
    try:
        number = float(word)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise click.BadParameter(
            f"expected {', '.join(words)} or a finite number (a cut on the "
            f"log-odds); got {value!r}",
            ctx,
            param,
        )
    return number


metrics_option = click.option(
    "--metrics",
    "metrics",
    multiple=True,
    metavar="NAMES",
    callback=_metrics_value,
    help="Criteria, by name or set name (comma-separated or repeated). Multi-label data: "
    "sets dynamic_chains (the default), naibx, ranking (coverage, ranking loss, LRAP, "
    "one-error, macro/micro ROC AUC and average precision of the label scores, log loss of "
    "the probabilities), or names such as micro_f1, macro_f1, hamming, label_ranking_loss "
    "(all: mlnb.metrics.METRICS). Text corpora: " + ", ".join(SINGLE_LABEL_CRITERIA) + ".",
)
threshold_option = click.option(
    "--threshold",
    "threshold",
    metavar="RULE",
    default=None,
    callback=_threshold_value,
    help="Decision rule of the multi-label methods, instead of the 0.5 rule: the method "
    "is wrapped in mlnb.TunedThresholdsCV (rule fitted on 5-fold out-of-fold scores, "
    "micro F1). tuned: the best of the rules; pcut, pcutl, rcut, mcut, scut, cardinality: "
    "that rule; "
    "threshold: one cut fitted for micro F1; a number T: labels with log-odds >= T (0 is "
    "about the 0.5 rule). -p parameters still go to the method itself. Without -p events=..., "
    "methods tuned by fold subtraction (br, cc, pcc, imlnb, naibx) also choose their "
    "event model and smoothing (param_grid='auto').",
)


def _strategy(threshold):
    """The TunedThresholdsCV strategy of a --threshold value."""
    from ..decision_rules import Threshold

    if isinstance(threshold, float):
        return Threshold(threshold)
    return "auto" if threshold == "tuned" else threshold


def _metric_names(metrics, data):
    """The criteria --metrics asks for on ``data`` (None: the default), checked up front."""
    if metrics is None:
        return None
    if is_text(data):
        wrong = [n for n in metrics if n not in SINGLE_LABEL_CRITERIA]
        if wrong:
            raise ValueError(
                f"--metrics: {data.name} is a single-label text corpus, scored by "
                f"{', '.join(SINGLE_LABEL_CRITERIA)}; got {', '.join(wrong)}"
            )
        return list(metrics)
    resolved = get_metrics(metrics)
    wrong = [n for n, m in resolved.items() if m.task == "single_label"]
    if wrong:
        raise ValueError(
            f"--metrics: {', '.join(wrong)} score single-label classes, but {data.name} is "
            "multi-label data: choose multi-label criteria (e.g. micro_f1, hamming, ranking)"
        )
    return list(resolved)


def _methods(values):
    """Method names from repeated and comma-separated -m values, in order, no repeats."""
    names = [n.strip() for value in values for n in value.split(",") if n.strip()]
    return list(dict.fromkeys(names))


def _kind(data):
    return "text" if is_text(data) else "multilabel"


def _estimator(method, data, settings, *, seed=0, tfidf=None, threshold=None, missing="error"):
    """Method ``method`` ready for ``data``: a text pipeline for a text corpus.

    ``threshold`` (a --threshold value) wraps a multi-label method in
    :class:`~mlnb.TunedThresholdsCV` (or sets the strategy of one that already is);
    ``missing`` (--missing) "ignore" sets the method's ``missing="ignore"``.
    """
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
    from ..thresholds import TunedThresholdsCV, is_additive

    settings = _with_missing(settings, missing, method)
    estimator = build(method, data.X, settings, random_state=seed)
    if threshold is None:
        return estimator
    if isinstance(estimator, TunedThresholdsCV):  # br-tuned, cc-tuned: only the rule changes
        return estimator.set_params(strategy=_strategy(threshold))
    # an event model the user did not name is chosen with the rule where that is cheap
    # (fold subtraction); methods refitted per fold keep the data kind's event model
    choose_events = "events" in estimator.get_params() and "events" not in settings
    grid = "auto" if choose_events and is_additive(estimator) else None
    return TunedThresholdsCV(
        estimator,
        strategy=_strategy(threshold),
        scoring="f1_micro",
        cv=5,
        random_state=seed,
        param_grid=grid,
    )


def _with_missing(settings, missing, method):
    """The -p settings plus ``missing="ignore"`` for --missing ignore (unless -p says)."""
    if missing != "ignore" or "missing" in settings:
        return settings
    from ._methods import estimator_class

    wrapper = "estimator" in METHODS[method][2]  # tuned: build passes it to the inner method
    if wrapper or "missing" in inspect.signature(estimator_class(method)).parameters:
        return {**settings, "missing": "ignore"}
    raise ValueError(
        f"--missing ignore: {method} cannot skip missing values (it has no missing option); "
        "choose another method (br, cc, ecc, dce, naibx, imlnb, ...) or leave --missing out"
    )


def _xy(data, *, labelled=True):
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


def _evaluation_data(
    name, *, cv, split, train_test, data_dir, variant=None, missing="error", labels=None
):
    """The rows to evaluate on and the folds: a number, a train fraction or a splitter.

    ``missing``: the --missing value; ``labels``: --labels.
    """
    options = {"data_dir": data_dir, "variant": variant, "labels": labels}
    options["missing"] = _loader_missing(missing)
    if not train_test:
        folds = _cv_value(cv, split)
        return load_data(name, **options), folds
    if split is not None:
        raise ValueError("--train-test and --split exclude each other: choose one")
    from sklearn.model_selection import PredefinedSplit

    train, test = load_train_test(name, **options)
    rows = np.concatenate([np.full(train.n_samples, -1), np.zeros(test.n_samples)])
    return join(train, test, name=name), PredefinedSplit(rows)


def _scores(
    estimator, data, folds, *, seed, stratify, metrics=None, method=None, progress=None, log=None
):
    """Mean criteria over the folds, plus T_train and T_test (seconds).

    ``metrics``: the names of :func:`_metric_names` (None: the default criteria);
    ``progress``: called after each fold, as :func:`~mlnb.evaluation.cross_validate` says;
    ``log``: receives a line saying what a tuned method chose on the folds. A
    :class:`~mlnb.evaluation.DegeneratePredictionWarning` is printed as one line naming
    ``method`` and the data set.
    """
    from ..evaluation import DegeneratePredictionWarning, cross_validate

    X, y = _xy(data)
    options = {"cv": folds, "random_state": seed, "stratify": "iterative" if stratify else None}
    options["progress"] = progress
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegeneratePredictionWarning)
        if not is_text(data):
            folds_result = cross_validate(estimator, X, y, metrics=metrics, **options)
            result = folds_result.mean()
            if log is not None and folds_result.choices:
                log(f"{method} on {data.name} chose: {_choices_in_words(folds_result.choices)}")
        else:
            result = _text_scores(estimator, X, y, metrics, options)
    for warning in caught:
        if issubclass(warning.category, DegeneratePredictionWarning):
            click.echo(f"warning: {method} on {data.name}: {warning.message}", err=True)
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
    from ..evaluation import cross_validate

    result = cross_validate(
        estimator, X, y, metrics="sl_accuracy", return_predictions=True, **options
    )
    folds = list(zip(result.test_indices, result.predictions, strict=True))
    scores = {
        name: float(
            np.mean([SINGLE_LABEL_CRITERIA[name](y[test], predicted) for test, predicted in folds])
        )
        for name in metrics or SINGLE_LABEL_CRITERIA
    }
    times = result.mean()
    return {**scores, "train_time": times["train_time"], "test_time": times["test_time"]}


def _columns(rows, first):
    """``first``, then every key of the rows in order of appearance."""
    return [first, *dict.fromkeys(c for row in rows for c in row if c != first)]


def _print_version(ctx, param, value):
    if value and not ctx.resilient_parsing:
        click.echo(f"mlnb, version {_version()}")
        ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and exit.",
)
def main():
    """Naive Bayes for multi-label data and text: fit, predict, evaluate and compare methods.

    \b
    Examples:
      mlnb datasets
      mlnb evaluate emotions -m br -m cc --cv 10
      mlnb fit enron -m ecc -p n_chains=20 -o enron.mlnb
      mlnb predict enron.mlnb enron -o predictions.csv
      mlnb fit webkb -m mnb -o webkb.mlnb      # text: trains on the train part
      mlnb predict webkb.mlnb webkb --part test
      mlnb evaluate webkb -m mnb,bnb,gnb --train-test
      mlnb compare                      # the built-in default, on generated data
      mlnb demo                         # single-label classifiers on generated counts
    """


@main.command()
@data_dir_option
@json_option
@quiet_option
@reported
def datasets(data_dir, as_json, quiet):
    """List the data sets found, with n, d, L, label cardinality, density and avIR.

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
            click.echo(f"note: {_data_home_message(error)}; listing the generated sets", err=True)
    rows, needs_extra = [], []
    names = list(GENERATED) + list(TEXT_CORPORA) + list_datasets(data_dir, available=True)
    # summaries of the files are cached (keyed by path, size and mtime): fast after a first run
    with _progress(names, "reading data sets", quiet or as_json) as bar:
        for name in bar:
            try:
                if name in TEXT_CORPORA:
                    source, variant, _ = TEXT_CORPORA[name]
                    summary = describe_text_corpus(source, variant=variant, data_dir=data_dir)
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
    _echo_table(rows, columns, as_json=as_json)


@main.command()
@click.argument("data")
@click.option("-m", "--method", default=None, help="Method name (listed below).")
@click.option(
    "--update",
    "update",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="Continue training this model file on DATA (partial_fit) instead of fitting anew.",
)
@param_option
@threshold_option
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    callback=_output_file_value,
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
        data, data_dir=data_dir, part=part, variant=variant, missing=_loader_missing(missing),
        labels=labels,
    )  # fmt: skip
    estimator = _estimator(
        method, dataset, settings, tfidf=tfidf, threshold=threshold, missing=missing
    )
    X, y = _xy(dataset)
    if not quiet:
        click.echo(f"fitting {method} on {dataset.name} ({dataset.n_samples} rows)...", err=True)
    start = time.perf_counter()
    estimator.fit(X, y)
    seconds = time.perf_counter() - start
    metadata = {
        "method": method,
        "params": list(params),
        "threshold": threshold,
        "data": data,
        "part": part,
        "kind": _kind(dataset),
        "variant": dataset.variant if is_text(dataset) else None,
        "missing": missing,
    }
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
    estimator = load(model)
    metadata = read_metadata(model)
    if _is_text_model(estimator):
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
    dataset = load_data(data, missing=_loader_missing(loading.pop("missing")), **loading)
    if is_text(dataset):
        raise ValueError(f"{data} is a text corpus, but {model} was fitted on feature vectors")
    X, y = _xy(dataset)
    n_before = _rows_seen(estimator)
    start = time.perf_counter()
    estimator.partial_fit(X, y)
    seconds = time.perf_counter() - start
    updates = [*metadata.get("updates", []), {"data": data, "part": loading["part"]}]
    kept = {k: v for k, v in metadata.items() if k not in _FILE_KEYS}
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
    for name in ("feature_stats_", "size_stats_"):
        stats = getattr(estimator, name, None)
        if stats is not None and hasattr(stats, "total_count"):
            return float(np.sum(stats.total_count))
    return None


fit.help = inspect.cleandoc(fit.help) + "\n\n\b\n" + describe_methods()


def _is_text_model(estimator):
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import Pipeline

    return isinstance(estimator, Pipeline) and isinstance(estimator.steps[0][1], CountVectorizer)


@main.command()
@click.argument("model", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("data")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    callback=_output_file_value,
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
@reported
def predict(model, data, output, part, proba, variant, missing, labels, data_dir):
    """Predict DATA with a model file; writes CSV.

    Multi-label models write one 0/1 column per label; single-label models a "class"
    column with the predicted class names. --proba adds a probability per label or class.
    A label<TAB>text file is read as is: give --variant to clean raw text as the training
    corpus was (the labels in the file are not used). An ARFF file may hold '?' for every
    label value (MEKA's convention for rows to predict).

    \b
    Examples:
      mlnb predict emotions-cc.mlnb emotions -o predictions.csv
      mlnb predict webkb.mlnb webkb --part test --no-proba
      mlnb predict 20ng.mlnb messages.txt --variant stemmed
      mlnb predict music.mlnb Music_missing_classes.arff --no-proba
    """
    estimator = load(model)
    dataset = load_data(
        data, data_dir=data_dir, part=part, variant=variant, missing=_loader_missing(missing),
        labels=labels, unlabelled=True,
    )  # fmt: skip
    if _is_text_model(estimator) and not is_text(dataset):
        raise ValueError(
            f"{model} is a text model (it reads documents), but {data} is multi-label "
            f"feature data: give a text corpus ({', '.join(TEXT_CORPORA)}) or a "
            "label<TAB>text file"
        )
    if is_text(dataset) and not _is_text_model(estimator):
        raise ValueError(
            f"{model} was fitted on feature vectors, but {data} is a text corpus: fit a text "
            f"model first, e.g. mlnb fit {data} -m mnb -o text.mlnb"
        )
    if is_text(dataset) and dataset.from_file and dataset.variant is None:
        trained = read_metadata(model).get("variant")
        if trained is not None:
            click.echo(
                f"note: {model} was trained on text cleaned '{trained}'; {data} is read as "
                f"is: add --variant {trained} if it holds raw text",
                err=True,
            )
    X, _ = _xy(dataset, labelled=False)
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
        output.write_text(text)


def _loader_missing(missing):
    """The ARFF loaders' ``missing`` of a --missing value."""
    return "nan" if missing == "ignore" else "error"


def _csv_field(text):
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n') else text


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
    help="Method name; repeat, or separate names by commas.",
)
@param_option
@metrics_option
@threshold_option
@click.option("--cv", type=int, default=10, show_default=True, help="Number of folds.")
@click.option("--split", type=float, default=None, help="One holdout split: train fraction.")
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
    micro averages equal accuracy).

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

    --prequential N predicts each batch of N rows with the model trained on the rows before
    it, then learns it (the first batch is only learnt); it prints the criteria over every
    predicted row and the rows per second.
    """
    methods = _methods(methods)
    settings = parse_params(params)
    if batch_size is not None:
        return _prequential(data, methods, settings, metrics, threshold, batch_size,
                            data_dir=data_dir, missing=missing, labels=labels, seed=seed,
                            as_json=as_json, quiet=quiet)  # fmt: skip
    dataset, folds = _evaluation_data(
        data, cv=cv, split=split, train_test=train_test, data_dir=data_dir, variant=variant,
        missing=missing, labels=labels,
    )  # fmt: skip
    criteria = _metric_names(metrics, dataset)
    estimators = {
        m: _estimator(
            m, dataset, settings, seed=seed, tfidf=tfidf, threshold=threshold, missing=missing
        )
        for m in methods
    }
    runs = {(dataset.name, m): (e, dataset, folds) for m, e in estimators.items()}
    results = _run_all(runs, seed=seed, stratify=stratify, metrics=lambda d: criteria,
                       quiet=quiet or as_json)  # fmt: skip
    rows = [{"method": m, **results[dataset.name, m]} for m in estimators]
    _echo_table(rows, _columns(rows, "method"), as_json=as_json)


def _prequential(data, methods, settings, metrics, threshold, batch_size, *, data_dir,
                 missing, labels, seed, as_json, quiet):  # fmt: skip
    """``mlnb evaluate --prequential N``: every method test-then-trained over DATA's rows."""
    from ..evaluation import prequential

    if threshold is not None:
        raise click.UsageError(
            "--threshold tunes a rule by cross-validation: it does not apply to --prequential"
        )
    dataset = load_data(data, data_dir=data_dir, missing=_loader_missing(missing), labels=labels)
    if is_text(dataset):
        raise ValueError(
            "--prequential runs on feature data: a text model's vocabulary is fixed by its "
            "first fit"
        )
    X, y = _xy(dataset)
    if X.shape[0] <= batch_size:
        raise ValueError(
            f"--prequential {batch_size}: {dataset.name} has {X.shape[0]} rows, so no batch "
            "would be predicted; give a smaller batch size"
        )
    criteria = _metric_names(metrics, dataset)
    rows = []
    for method in methods:
        estimator = _estimator(method, dataset, settings, seed=seed, missing=missing)
        batches = (
            (X[i : i + batch_size], y[i : i + batch_size]) for i in range(0, X.shape[0], batch_size)
        )
        start = time.perf_counter()
        result = prequential(estimator, batches, metrics=criteria)
        if not (quiet or as_json):
            click.echo(f"{method} on {dataset.name}: {time.perf_counter() - start:.1f} s", err=True)
        rows.append({"method": method, **result.final(), "rows_per_s": result.throughput})
    _echo_table(rows, _columns(rows, "method"), as_json=as_json)


def _run_all(runs, *, seed, stratify, metrics, quiet):
    """Cross-validate every ``(data name, method): (estimator, data, folds)``, with progress
    per fold (folds x methods x data sets) and the elapsed time; the mean scores of each."""
    total = sum(_n_folds(folds) for _, _, folds in runs.values())
    results = {}
    with Progress(total, "cross-validating", quiet=quiet, unit="folds") as progress:
        for (data_name, method), (estimator, data, folds) in runs.items():
            start = time.perf_counter()

            def step(done, n, method=method, data_name=data_name):
                progress.step(f"{method} on {data_name}, fold {done}/{n}")

            results[data_name, method] = _scores(
                estimator, data, folds, seed=seed, stratify=stratify,
                metrics=metrics(data_name), method=method, progress=step, log=progress.log,
            )  # fmt: skip
            seconds = time.perf_counter() - start
            progress.log(f"{method} on {data_name}: {seconds:.1f} s")
    return results


evaluate.help = inspect.cleandoc(evaluate.help) + "\n\n\b\n" + describe_methods()


@main.command()
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
@click.option("--split", type=float, default=None, help="One holdout split: train fraction.")
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
    callback=_output_dir_value,
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

    chosen = _methods(methods) or list(DEFAULT_COMPARE_METHODS)
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
        loaded[data_name] = _evaluation_data(
            data_name, cv=cv, split=split, train_test=train_test, data_dir=data_dir,
            missing=missing,
        )  # fmt: skip
        data, folds = loaded[data_name]
        for method in chosen:
            estimator = _estimator(
                method, data, settings, seed=seed, tfidf=tfidf, threshold=threshold,
                missing=missing,
            )  # fmt: skip
            runs[data_name, method] = (estimator, data, folds)
        criteria[data_name] = _metric_names(metrics, data)
    kind = _kind(loaded[data_names[0]][0])  # one kind: _estimator refused any mix
    results = _run_all(
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
        greater_is_better=dict.fromkeys(SINGLE_LABEL_CRITERIA, True) if kind == "text" else None,
        plotted=plotted if plots else (),
        title=f"mlnb compare: {len(chosen)} methods on {len(data_names)} data sets",
        protocol=_protocol(cv, split, train_test, stratify, seed, threshold, params),
        described={d: _describe(loaded[d][0]) for d in data_names},
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


def _describe(data):
    """A data set's size in a few words."""
    if is_text(data):
        return f"{data.n_samples} documents, {len(data.classes)} classes"
    return f"{data.n_samples} rows, {data.X.shape[1]} features, {data.Y.shape[1]} labels"


@main.command()
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
    _echo_table(rows, ["task", "mlnb s", "scikit-learn s", "ratio"], as_json=as_json)


@main.command()
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
        progress=lambda items: _progress(items, "cross-validating", quiet or as_json),
    )
    if not as_json:
        click.echo(f"mlnb {_version()}: {title}")
    columns = ["classifier", "accuracy", "macro_f1", "train_time", "test_time"]
    _echo_table(rows, columns, as_json=as_json)
