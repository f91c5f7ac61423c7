"""Unknown label cells on real data: learning from the known cells against taking them as 0.

For each data set (its provided training part), a fraction of the label cells (30, 50
and 70 %, several seeds) is hidden at random; binary relevance is fitted twice, on Y with
the hidden cells unknown (NaN: each label learnt from the rows where it is known) and on Y
with them set to 0 (what a user without unknown cells would do), and both are scored by
micro F1 on the test part. Two settings: the defaults (event model, smoothing, features
and rule chosen from the data) and an explicit one (multinomial for non-negative data,
else Gaussian; ``--rule``). The
target (issue "learning from the labels people really have"): the known cells beat the
zeros, reported per fraction.

    python benchmarks/bench_unknown_labels.py [--datasets medical scene ...] [--seeds 3]
        [--methods br cc naibx] [--json results.json]
    python benchmarks/bench_unknown_labels.py --load results.json   # its table (markdown)

``--methods``: binary relevance (the default), the classifier chain and NaiBX, which learn
from the known cells too.
"""

from __future__ import annotations

import argparse
import json
import warnings

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from mlnb import BinaryRelevance, ClassifierChain, NaiBX
from mlnb.datasets import load_dataset
from mlnb.metrics import f1_score

FRACTIONS = (0.3, 0.5, 0.7)
METHODS = {"br": BinaryRelevance, "cc": ClassifierChain, "naibx": NaiBX}


def hidden(Y, fraction, seed):
    """(Y with the hidden cells NaN, Y with them 0)."""
    cells = np.random.default_rng(seed).random(Y.shape) < fraction
    unknown, zeros = Y.astype(float), Y.astype(float)
    unknown[cells], zeros[cells] = np.nan, 0.0
    return unknown, zeros


def micro_f1(model, train, test, Y):
    with warnings.catch_warnings():  # the cardinality warnings of a poor fit: scored anyway
        warnings.simplefilter("ignore")
        model.fit(train.X, Y)
    return f1_score(dense(test.Y), model.predict(test.X), average="micro")


def dense(Y):
    return Y.toarray() if hasattr(Y, "toarray") else np.asarray(Y)


def run(name, fractions, seeds, rule, method="br"):
    parts = load_dataset(name, split="train_test")
    Y = dense(parts.train.Y)
    X = parts.train.X
    counts = (X.data if sp.issparse(X) else np.asarray(X)).min(initial=0) >= 0
    explicit = {"events": "multinomial" if counts else "gaussian", "rule": rule}
    settings = {"defaults": {}, "explicit": explicit}
    estimator = METHODS[method]
    rows = []
    for label, params in settings.items():
        for fraction in fractions:
            known, zeros = [], []
            for seed in range(seeds):
                unknown, zero = hidden(Y, fraction, seed)
                known.append(micro_f1(estimator(**params), parts.train, parts.test, unknown))
                zeros.append(micro_f1(estimator(**params), parts.train, parts.test, zero))
            rows.append(
                {
                    "dataset": name,
                    "method": method,
                    "setting": label,
                    "hidden": fraction,
                    "known_cells": float(np.mean(known)),
                    "unknown_as_0": float(np.mean(zeros)),
                    "wins": int(sum(k > z for k, z in zip(known, zeros, strict=True))),
                    "seeds": seeds,
                }
            )
            r = rows[-1]
            print(
                f"{name:10s} {method:5s} {label:9s} {fraction:4.0%} hidden: known cells "
                f"{r['known_cells']:.4f}, unknown as 0 {r['unknown_as_0']:.4f} "
                f"(known cells better in {r['wins']}/{seeds} seeds)",
                flush=True,
            )
    return rows


def markdown(rows):
    """The rows as a markdown table: one line per data set, method and setting, a column
    per fraction hidden holding ``known cells / unknown as 0 (wins)``."""
    fractions = sorted({row["hidden"] for row in rows})
    head = "| data | method | setting | " + " | ".join(f"{f:.0%} hidden" for f in fractions)
    lines = [head + " |", "| --- " * (3 + len(fractions)) + "|"]
    keys = dict.fromkeys((row["dataset"], row.get("method", "br"), row["setting"]) for row in rows)
    for key in keys:
        cells = {
            row["hidden"]: row
            for row in rows
            if (row["dataset"], row.get("method", "br"), row["setting"]) == key
        }
        values = [
            f"{cells[f]['known_cells']:.3f} / {cells[f]['unknown_as_0']:.3f} "
            f"({cells[f]['wins']}/{cells[f]['seeds']})"
            if f in cells
            else ""
            for f in fractions
        ]
        lines.append("| " + " | ".join([*key, *values]) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["medical", "scene", "emotions", "yeast"])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--fractions", nargs="+", type=float, default=list(FRACTIONS))
    parser.add_argument("--rule", default="threshold")
    parser.add_argument("--methods", nargs="+", default=["br"], choices=sorted(METHODS))
    parser.add_argument("--json", help="write the rows here")
    parser.add_argument("--load", help="print the markdown table of a --json file, run nothing")
    args = parser.parse_args()
    if args.load:
        with open(args.load) as rows:
            print(markdown(json.load(rows)))
        return
    rows = []
    with threadpool_limits(1):
        for name in args.datasets:
            for method in args.methods:
                rows += run(name, args.fractions, args.seeds, args.rule, method)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
