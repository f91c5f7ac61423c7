"""The label-noise audit on real data: flipped label cells found, and its cost.

For each data set (its training part), 5 % of the label cells are flipped at random
(several seeds); :func:`mlnb.audit.audit_labels` at its defaults (multinomial for
non-negative data, else Gaussian; Laplace label priors) ranks every cell, and the top 10 %
of the ranking is compared with the flipped cells: recall (flipped cells found / flipped)
and precision (flipped cells found / cells listed). A random ranking has recall 0.10 and
precision 0.05. The target (issue "learning from the labels people really have"): recall
of at least 0.5 on two shared sets.

Cost: the closed-form leave-one-out log-odds against the same log-odds made by fold
subtraction with each row as its own fold (a model per row, what a generic event model
needs), best of ``--repeat``, one BLAS thread, in one process.

    python benchmarks/bench_audit.py [--datasets medical enron ...] [--seeds 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from mlnb import BinaryRelevance
from mlnb.audit import _refitted, audit_labels, leave_one_out_log_odds
from mlnb.datasets import load_dataset

FLIPPED = 0.05
LISTED = 0.10


def flipped(Y, seed):
    """Y with FLIPPED of its cells turned over, and the flat indices of those cells."""
    rng = np.random.default_rng(seed)
    cells = rng.choice(Y.size, size=round(FLIPPED * Y.size), replace=False)
    noisy = Y.copy().ravel()
    noisy[cells] = 1 - noisy[cells]
    return noisy.reshape(Y.shape), cells


def found(X, Y, seed):
    noisy, cells = flipped(Y, seed)
    listed = round(LISTED * Y.size)
    table = audit_labels(X, noisy, top=listed)
    hits = np.isin(np.ravel_multi_index((table["row"], table["label"]), Y.shape), cells).sum()
    return hits / len(cells), hits / listed


def best_time(call, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def row(name, seeds, repeat):
    """One line of the report for one data set."""
    data = load_dataset(name).train
    X, Y = data.X, np.asarray(data.Y.toarray() if hasattr(data.Y, "toarray") else data.Y)
    values = X.data if hasattr(X, "tocsr") else np.asarray(X)
    events = "gaussian" if values.min() < 0 else "multinomial"
    scores = np.array([found(X, Y, seed) for seed in range(seeds)])
    recall, precision = scores.mean(axis=0)
    closed = best_time(lambda: leave_one_out_log_odds(X, Y, events=events), repeat)
    model = BinaryRelevance(events=events, rule="predict", prior_alpha=1.0).fit(X, Y)
    refit = best_time(lambda: _refitted(model, X, Y), 1)
    note = ""
    return (
        f"| {name} | {X.shape[0]} x {Y.shape[1]} | {events}{note} | {recall:.3f} | "
        f"{precision:.3f} | {closed:.3f} | {refit:.2f} | {refit / closed:.0f}x |"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--datasets", nargs="+", default=["medical", "enron", "emotions", "scene", "yeast"]
    )
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    print(f"flipped {FLIPPED:.0%} of the cells, top {LISTED:.0%} of the ranking listed")
    print(
        "| data | rows x labels | events | recall | precision | closed form s "
        "| per-row models s | ratio |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    with threadpool_limits(1):
        for name in args.datasets:
            print(row(name, args.seeds, args.repeat), flush=True)


if __name__ == "__main__":
    main()
