"""What the defaults' search costs, against the least a search out of fold can cost.

For each multi-label set with a provided split, ``BinaryRelevance()`` at its defaults is
fitted once to learn what it chooses (event model E, rule R); then, with one BLAS thread,
the best of a few runs of:

- **plain**: the chosen settings given (``clone(model).set_params(**model.chosen_params_)``),
  the denominator of the "good at the defaults" issue's cost target;
- **floor**: ``BinaryRelevance(events=E, rule=<R's name>)``: no event model is searched,
  one rule is fitted out of fold (the training rows scored by 5 fold models, the rule
  cross-fitted): the least a search that picks a rule out of fold can cost;
- **rules**: ``BinaryRelevance(events=E, rule="tuned")``: every rule, no event model;
- **default**: ``BinaryRelevance()``: every event model and every rule.

Each is reported as a multiple of *plain*. Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_search_floor.py [--datasets NAME ...]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.base import clone

from mlnb import BinaryRelevance
from mlnb.datasets import load_dataset

SETS = [
    "flags",
    "emotions",
    "meka_music",
    "birds",
    "scene",
    "genbase",
    "medical",
    "yeast",
    "enron",
    "reutersk500",
    "tmc2007",
    "bibtex",
]


def best_time(fit, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fit()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(name):
    data = load_dataset(name)
    X, Y = data.train.X, data.train.Y
    default = BinaryRelevance().fit(X, Y)
    events, rule = default.chosen_params_["events"], default.chosen_["rule"]
    floor_rule = "threshold" if rule == "predict" else rule
    plain = best_time(lambda: clone(default).set_params(**default.chosen_params_).fit(X, Y), 5)
    floor = best_time(lambda: BinaryRelevance(events=events, rule=floor_rule).fit(X, Y), 3)
    rules = best_time(lambda: BinaryRelevance(events=events, rule="tuned").fit(X, Y), 3)
    full = best_time(lambda: BinaryRelevance().fit(X, Y), 2)
    return plain, floor / plain, rules / plain, full / plain, floor_rule


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=SETS)
    args = parser.parse_args()
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "unset")
    print(f"OPENBLAS_NUM_THREADS={threads}; times as multiples of the plain fit\n")
    print("| data | plain fit ms | floor (one rule out of fold) | rules only | default |")
    print("| --- | --- | --- | --- | --- |")
    rows = []
    for name in args.datasets:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plain, floor, rules, full, rule = measure(name)
        rows.append((floor, rules, full))
        print(f"| {name} | {plain * 1e3:.1f} | {floor:.1f} ({rule}) | {rules:.1f} | {full:.1f} |")
    floor, rules, full = np.median(np.array(rows), axis=0)
    print(f"| median | | {floor:.1f} | {rules:.1f} | {full:.1f} |")


if __name__ == "__main__":
    main()
