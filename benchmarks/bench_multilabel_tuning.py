"""The cost of choosing a multi-label model's settings: TunedThresholdsCV beside GridSearchCV.

On each multi-label data set with a provided train/test split, binary relevance Naive Bayes
(``mlnb.BinaryRelevance``) is tuned on the training part in three ways, in one run:

- "rules": ``TunedThresholdsCV(BR, strategy="auto", cv=5)`` with the event model of the
  ``mlnb`` command's rule (multinomial for sparse non-negative X, else Gaussian): the
  decision rule chosen on out-of-fold scores from fold subtraction;
- "auto": the same with ``param_grid="auto"``: every event model and smoothing of
  :func:`mlnb.selection.event_grid` chosen together with the rule;
- "auto, 0.5 rule": the same grid with the rule fixed (``strategy=Threshold(0.0)``): the
  search GridSearchCV does, by fold subtraction;
- "GridSearchCV": scikit-learn's ``GridSearchCV(BR, {"events": the same grid},
  cv=KFold(5, shuffle=True, random_state=0), scoring="f1_micro")``, which refits every
  fold and candidate and keeps the 0.5 rule (it cannot choose a rule). Its folds are
  those of TunedThresholdsCV(random_state=0), so "auto, 0.5 rule" must choose the same
  event model (the report says whether it did).

Reported: the time of one ``fit`` of BR, each search's time as a multiple of that fit, the
speed-up of fold subtraction over GridSearchCV on the same grid and rule, and the test
micro F1 of each search's final model. Best of ``--repeat`` runs (default 3; one for runs
over 10 s). Run with one BLAS thread (``OPENBLAS_NUM_THREADS=1``) on a shared machine.

    python benchmarks/bench_multilabel_tuning.py [--datasets NAME ...] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import warnings

import scipy.sparse as sp
from sklearn.model_selection import GridSearchCV, KFold

import mlnb
from mlnb.datasets import TrainTest, list_datasets, load_dataset
from mlnb.decision_rules import Threshold
from mlnb.evaluation import best_time
from mlnb.metrics import f1_score
from mlnb.selection import event_grid

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")
DEFAULT_SETS = ["emotions", "yeast", "scene", "medical", "enron", "bibtex", "delicious"]


def cli_events(X):
    return "multinomial" if sp.issparse(X) and X.data.min() >= 0 else "gaussian"


def run(name, repeat):
    train, test = load_dataset(name, DATA)
    X, Y = train.X, train.Y
    events = cli_events(X)
    grid = [p["events"] for p in event_grid(X)]

    def score(model):
        return f1_score(test.Y, model.predict(test.X), average="micro")

    t_fit, _ = best_time(
        lambda: mlnb.BinaryRelevance(events=events, rule="predict").fit(X, Y), repeat
    )[:2]

    def rules():
        return mlnb.TunedThresholdsCV(
            mlnb.BinaryRelevance(events=events, rule="predict"), random_state=0
        )

    def auto():
        return mlnb.TunedThresholdsCV(
            mlnb.BinaryRelevance(rule="predict"), param_grid="auto", random_state=0
        )

    def fixed_rule():
        return mlnb.TunedThresholdsCV(
            mlnb.BinaryRelevance(rule="predict"),
            strategy=Threshold(0.0),
            param_grid="auto",
            random_state=0,
        )

    def search():
        folds = KFold(5, shuffle=True, random_state=0)
        return GridSearchCV(
            mlnb.BinaryRelevance(rule="predict"), {"events": grid}, cv=folds, scoring="f1_micro"
        )

    def fit(model):
        return model.fit(X, Y)

    t_rules, rules_model = best_time(lambda: fit(rules()), repeat, max_seconds=10)[:2]
    t_auto, auto_model = best_time(lambda: fit(auto()), repeat, max_seconds=10)[:2]
    t_fixed, fixed_model = best_time(lambda: fit(fixed_rule()), repeat, max_seconds=10)[:2]
    t_grid, grid_model = best_time(lambda: fit(search()), repeat, max_seconds=10)[:2]
    same = repr(fixed_model.best_params_["events"]) == repr(grid_model.best_params_["events"])
    return {
        "set": name,
        "shape": f"{X.shape[0]} x {X.shape[1]}, {Y.shape[1]} labels",
        "grid": len(grid),
        "fit": t_fit,
        "rules": t_rules,
        "auto": t_auto,
        "fixed": t_fixed,
        "gridsearch": t_grid,
        "same_choice": same,
        "f1_rules": score(rules_model),
        "f1_auto": score(auto_model),
        "f1_fixed": score(fixed_model),
        "f1_grid": score(grid_model),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=DEFAULT_SETS)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    known = set(list_datasets())
    header = (
        f"{'set':<10} {'rows x features, labels':<28} {'grid':>4} {'fit s':>7} "
        f"{'rules/fit':>9} {'auto/fit':>8} {'auto 0.5/fit':>12} {'GridSearchCV/fit':>16} "
        f"{'GSCV/(auto 0.5)':>15} {'same':>5}   test micro F1: rules / auto / auto 0.5 / GSCV"
    )
    print(header)
    for name in args.datasets:
        if name not in known or not isinstance(load_dataset(name, DATA), TrainTest):
            print(f"{name}: not a data set with a provided split; skipped")
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # degenerate candidates of the grid warn
            r = run(name, args.repeat)
        fit = r["fit"]
        print(
            f"{r['set']:<10} {r['shape']:<28} {r['grid']:>4} {fit:>7.3f} "
            f"{r['rules'] / fit:>9.1f} {r['auto'] / fit:>8.1f} {r['fixed'] / fit:>12.1f} "
            f"{r['gridsearch'] / fit:>16.1f} {r['gridsearch'] / r['fixed']:>15.1f} "
            f"{'yes' if r['same_choice'] else 'NO':>5}   {r['f1_rules']:.3f} / "
            f"{r['f1_auto']:.3f} / {r['f1_fixed']:.3f} / {r['f1_grid']:.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
