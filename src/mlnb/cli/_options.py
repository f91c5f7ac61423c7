"""The options that several ``mlnb`` commands share, and the callbacks that check their
values before any work (paths, --metrics names, --threshold rules, -m lists)."""

from __future__ import annotations

import math
import os
import stat
from pathlib import Path

import click

from ._terminal import Failure

__all__ = [
    "METRIC_SET_NAMES",
    "PER_TARGET_ACCURACY",
    "data_dir_option",
    "json_option",
    "labels_option",
    "method_names",
    "metrics_option",
    "missing_option",
    "model_file_argument",
    "model_file_value",
    "model_output_value",
    "output_dir_value",
    "output_file_value",
    "param_option",
    "part_option",
    "quiet_option",
    "stratify_option",
    "tfidf_option",
    "threshold_help",
    "threshold_option",
    "threshold_words",
    "split_option",
    "train_test_option",
    "variant_option",
]


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


def output_file_value(ctx, param, value):
    """-o FILE: checked before any work (the folder exists and is writable).

    A device (such as /dev/stdout) or a named pipe may be given: the output is written
    into it (:func:`~._terminal.write_text`).
    """
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


def _kind(path):
    """What ``path`` is, in words, when it is not a regular file (None for a file)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a folder" if stat.S_ISDIR(mode) else "a special file"


def model_output_value(ctx, param, value):
    """-o MODEL of ``mlnb fit``: as :func:`output_file_value`, and a regular file or a new
    name (a model file is written beside and renamed over the old, which would replace a
    device or a named pipe)."""
    value = output_file_value(ctx, param, value)
    kind = None if value is None else _kind(value)
    if kind is not None:
        raise Failure(
            f"{'/'.join(param.opts)} {value}: is {kind}, not a file; a model is written to "
            "a file (give a file name)"
        )
    return value


def model_file_value(ctx, param, value):
    """A model file to read: it must be a regular file (not a pipe or a device)."""
    kind = None if value is None else _kind(value)
    if kind is not None:
        raise Failure(f"{value}: is {kind}, not a model file")
    return value


def output_dir_value(ctx, param, value):
    """--out FOLDER: a folder that exists or can be created, checked before any work."""
    problem = _folder_problem(value)
    if problem is not None:
        raise Failure(f"--out {value}: {problem}")
    return value


model_file_argument = click.argument(
    "model",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    callback=model_file_value,
)


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


def _label_columns(ctx, param, value):
    """--labels as an int when it is a count (MEKA's -C N), else as given (names or a file)."""
    if value is None:
        return None
    text = value.strip()
    try:
        return int(text)
    except ValueError:
        if not text:
            raise click.BadParameter("give a count N, column names a,b or a file") from None
        return text


labels_option = click.option(
    "--labels",
    "labels",
    type=str,
    default=None,
    metavar="N|NAMES|FILE",
    callback=_label_columns,
    help="The label columns of an ARFF, CSV or Parquet file given by path: a count as "
    "MEKA's -C N (N > 0 the first N columns, N < 0 the last |N|) or column names separated "
    "by commas (default: the Mulan XML file beside it, else -C in an ARFF relation name). "
    "For a text file: the file of its classes, one per line.",
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


split_option = click.option(
    "--split", type=float, default=None, help="One holdout split: train fraction."
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
METRIC_SET_NAMES = ("dynamic_chains", "naibx", "ranking", "extreme")

#: The --metrics name of the per-target accuracy of multi-target data: one value per target
#: (:func:`mlnb.metrics.multi_target_accuracy`), a column ``acc_<target>`` each; the
#: command's own name, as the metric registry holds scalar criteria only.
PER_TARGET_ACCURACY = "mt_accuracy"


def threshold_words():
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
    from ..metrics import METRIC_SETS, METRICS

    known = {*METRICS, *METRIC_SETS, PER_TARGET_ACCURACY}
    unknown = [n for n in names if n not in known]
    if unknown:
        metrics = sorted({*METRICS, PER_TARGET_ACCURACY})
        raise click.BadParameter(
            f"unknown metric or set {', '.join(map(repr, unknown))}; sets: "
            f"{', '.join(METRIC_SET_NAMES)}; metrics: {', '.join(metrics)}",
            ctx,
            param,
        )
    return tuple(names)


def _threshold_value(ctx, param, value):
    """--threshold: a rule name of threshold_words() or a finite number; None if absent."""
    if value is None:
        return None
    word = value.strip().lower()
    words = threshold_words()
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


def metrics_help():
    """--metrics' help, naming the text criteria of the metric registry (:mod:`mlnb.metrics`)."""
    from ..metrics import get_metric_set

    return (
        "Criteria, by name or set name (comma-separated or repeated). Multi-label data: "
        "sets dynamic_chains (the default), naibx, ranking (coverage, ranking loss, LRAP, "
        "one-error, macro/micro ROC AUC and average precision of the label scores, log loss "
        "of the probabilities), or names such as micro_f1, macro_f1, hamming, "
        "label_ranking_loss (all: mlnb.metrics.METRICS). Multi-target data (evaluate "
        "--multi-target): the set multi_target ("
        + ", ".join(get_metric_set("multi_target"))
        + f") and {PER_TARGET_ACCURACY} (the accuracy of each target, a column acc_<target> "
        "each), all by default. Text corpora: " + ", ".join(get_metric_set("text")) + "."
    )


def threshold_help():
    """--threshold's help, naming the rules of :data:`mlnb.decision_rules.RULES`."""
    from ..decision_rules import RULES

    rules = ["tuned: the best of the rules"]
    named = [name for name in RULES if name != "threshold"]
    if named:
        rules.append(f"{', '.join(named)}: that rule")
    if "threshold" in RULES:
        rules.append("threshold: one cut fitted for micro F1")
    rules.append("a number T: labels with log-odds >= T (0 is about the 0.5 rule)")
    return (
        "Decision rule of the multi-label methods, fitted on 5-fold out-of-fold scores (micro "
        f"F1). {'; '.join(rules)}. br, cc, pcc, imlnb and naibx take it as their rule= (their "
        "default is tuned, which also keeps their own rule unless a rule beats it; -p "
        "rule=predict is the 0.5 rule); other methods are wrapped in mlnb.TunedThresholdsCV."
    )


class LazyHelpOption(click.Option):
    """A click option whose help text is made by ``help_text()`` each time it is shown.

    So it names what a registry holds then; and reading the rule or metric registry imports
    scikit-learn or scipy, which ``mlnb --version`` and the command list do not need.
    """

    def __init__(self, *args, help_text, **kwargs):
        self._help_text = None  # not while click builds the option
        super().__init__(*args, **kwargs)
        self._help_text = help_text

    @property
    def help(self):
        return None if self._help_text is None else self._help_text()

    @help.setter
    def help(self, value):
        pass  # click sets the (absent) help at construction


threshold_option = click.option(
    "--threshold",
    "threshold",
    cls=LazyHelpOption,
    help_text=threshold_help,
    metavar="RULE",
    default=None,
    callback=_threshold_value,
)

metrics_option = click.option(
    "--metrics",
    "metrics",
    multiple=True,
    metavar="NAMES",
    cls=LazyHelpOption,
    help_text=metrics_help,
    callback=_metrics_value,
)


def method_names(values):
    """Method names from repeated and comma-separated -m values, in order, no repeats."""
    names = [n.strip() for value in values for n in value.split(",") if n.strip()]
    return list(dict.fromkeys(names))
