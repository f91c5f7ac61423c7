"""The ``mlnb`` command (also ``python -m mlnb``): data sets, fit, predict, explain,
audit, evaluate, compare, bench and demo.

Two kinds of task, each with its own methods: multi-label data (ARFF data sets, generated
sets; methods br, cc, ecc, ...), scored by the 11 losses of the dynamic-chains paper
(Trajdos and Kurzynski, "Dynamic classifier chains for multi-label learning"), and
single-label text corpora (webkb, r8_allterms, r8_noshort, 20ng_bydate, label<TAB>text
files; classifiers mnb, bnb, gnb, bayes-mnb, ...), turned into word counts or the paper's TF-IDF
(:func:`mlnb.text.make_text_pipeline`) and scored by accuracy and macro and micro
precision, recall and F1. A text model file holds the whole pipeline, vocabulary included.
``mlnb evaluate --multi-target`` reads a data set's targets as classes (sf2's counts, say)
and scores the multi-target forms of br, cc, pcc and lp by MEKA's multi-target criteria.

Exit codes: 0 success; 1 a problem with the data, a model file, a file to write (a full
disk, a denied permission, a missing folder: the message names the path) or a method, in
one line that says what to do, never a traceback (MLNB_DEBUG=1 shows one for a bug in
mlnb); 2 a usage error (unknown option, missing argument).

Progress goes to standard error: a line redrawn on a terminal; elsewhere (logs, pipes) a
line per fold or step with the elapsed time, at most one every few seconds.

Modules by concern: :mod:`._terminal` (tables, progress, one-line errors), :mod:`._options`
(the shared options and their checks), :mod:`._inputs` (loading data) and :mod:`._data`
(inputs, targets and folds; ``mlnb datasets``), :mod:`._methods` (the methods by name),
:mod:`._models` (estimators; ``mlnb fit`` and ``mlnb predict``), :mod:`._evaluation`
(criteria and cross-validation; ``mlnb evaluate``), :mod:`._explain` (``mlnb explain``),
:mod:`._audit` (``mlnb audit``), :mod:`._compare` (``mlnb compare``) and
:mod:`._showcase` (``mlnb bench`` and ``mlnb demo``). This module holds the command group.

Importing this module imports neither numpy, scipy nor scikit-learn (nor the mlnb modules
that need them), so that ``mlnb --version`` and ``--help`` stay fast: the commands import
what they use when they run.
"""

from __future__ import annotations

import os

import click

# Besides the commands: names that code outside the package imports from here (re-exported
# as before the split; the tests import _estimator, _xy and _scores).
from ._audit import audit
from ._compare import DEFAULT_COMPARE_METHODS, PLOTTED, compare  # noqa: F401
from ._data import datasets
from ._data import xy as _xy  # noqa: F401
from ._evaluation import cv_scores as _scores  # noqa: F401
from ._evaluation import evaluate
from ._explain import explain
from ._models import fit, predict
from ._models import make_estimator as _estimator  # noqa: F401
from ._options import METRIC_SET_NAMES  # noqa: F401
from ._showcase import bench, demo
from ._terminal import Failure, Progress, one_line_warnings, version  # noqa: F401

__all__ = ["main"]


def __getattr__(name):
    """``SINGLE_LABEL_CRITERIA``, made on first use (it loads the metric registry)."""
    if name == "SINGLE_LABEL_CRITERIA":
        from . import _evaluation

        return _evaluation.single_label_criteria()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _print_version(ctx, param, value):
    if value and not ctx.resilient_parsing:
        click.echo(f"mlnb, version {version()}")
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
@click.option(
    "--no-limits",
    is_flag=True,
    help="Lift the bounds on costly parameters (ensemble sizes, beams, draws: "
    "mlnb.limits), knowingly: a fit may then take hours or all the memory.",
)
def main(no_limits):
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
      mlnb --no-limits fit flags -m ecc -p n_chains=5000 -o big.mlnb
    """
    one_line_warnings()
    if no_limits:  # the environment reaches worker processes too
        os.environ["MLNB_LIFT_LIMITS"] = "1"


for _command in (datasets, fit, predict, explain, audit, evaluate, compare, bench, demo):
    main.add_command(_command)
