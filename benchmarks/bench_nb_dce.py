"""Naive Bayes dynamic chain ensemble: what its fit costs with and without CFS, in one run.

Fits ``DynamicChainEnsemble(random_state=0)`` (NB members) on the training part of each
set's split (``load_dataset(name)``), with one BLAS thread:

- ``default``: the defaults, beta chosen by 3-fold cross-validation of the ensemble;
- ``beta fixed``: ``beta=1.0``, the rest default (tuned event model and rule);
- ``paper``: the paper's protocol without the beta search: ``beta=1.0``, Weka's estimators
  for the set (``resolve("weka", ...)`` on its ARFF types), ``prior_alpha=1``,
  ``rule="predict"`` (as ``experiments/dynamic_chains_paper.py`` runs DCE);

and each fixed-beta fit with the compiled CFS kernel, with the numpy reference
(``_compiled.using(False)``), with the CFS of before the active-label restriction (the
copy ``_cfs_masks_before_kernels`` in ``tests/test_cfs_kernel.py``) and without feature
selection. Every CFS fit selects the kernel's features (checked: the masks are equal).
Reported: the fastest of ``--repeat`` fits (wall seconds; ``--cpu``: process CPU seconds;
the cases of a protocol take turns), the seconds spent in CFS within it, and the ratios
default / beta fixed and CFS / no CFS. The default fit takes turns with the beta-fixed
fits, so that both meet the same load.

Run from the repository root::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_nb_dce.py --datasets enron medical
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import mlnb
from _machine import cpu_name
from mlnb import _compiled
from mlnb.datasets import load_dataset
from mlnb.evaluation import best_time
from mlnb.events.auto import resolve
from mlnb.multilabel import dynamic_ensemble

ROOT = Path(__file__).resolve().parents[1]


def cfs_before_kernels():
    """The CFS of before the active-label restriction (the tests' copy), or None."""
    path = ROOT / "tests" / "test_cfs_kernel.py"
    try:
        spec = importlib.util.spec_from_file_location("_cfs_before", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except (ImportError, OSError):  # e.g. hypothesis missing
        return None
    return module._cfs_masks_before_kernels


@contextmanager
def selection(function, clock, spent):
    """Fits select features with ``function`` (None: as they do), adding the seconds spent
    in it to ``spent[-1]``."""
    before = dynamic_ensemble._SELECTIONS["cfs"]
    chosen = before if function is None else function

    def timed(*args, **kwargs):
        start = clock()
        try:
            return chosen(*args, **kwargs)
        finally:
            spent[-1] += clock() - start

    dynamic_ensemble._SELECTIONS["cfs"] = timed
    try:
        yield
    finally:
        dynamic_ensemble._SELECTIONS["cfs"] = before


def fit_once(X, Y, settings, use_cpu, cfs=None, numpy_path=False):
    """``(seconds, seconds in CFS, model)`` of one fit."""
    clock = time.process_time if use_cpu else time.perf_counter
    spent = [0.0]
    kernels = _compiled.using(False) if numpy_path else nullcontext()
    with selection(cfs, clock, spent), kernels:
        timing = best_time(
            lambda: mlnb.DynamicChainEnsemble(random_state=0, **settings).fit(X, Y), 1
        )
    return (timing.cpu_seconds if use_cpu else timing.seconds), spent[0], timing.result


def measure_round_robin(X, Y, cases, repeat, use_cpu):
    """The fastest of ``repeat`` fits of every case, ``{case: (seconds, seconds in CFS,
    model)}``; the cases take turns, so that a change of the machine's load falls on all."""
    runs = {case: [] for case in cases}
    for _ in range(repeat):
        for case, (settings, options) in cases.items():
            runs[case].append(fit_once(X, Y, settings, use_cpu, **options))
    return {case: min(fits, key=lambda fit: fit[0]) for case, fits in runs.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["enron", "medical"])
    parser.add_argument("--repeat", type=int, default=3, help="fits per case (best of)")
    parser.add_argument("--cpu", action="store_true", help="process CPU seconds, not wall")
    parser.add_argument("--no-default", action="store_true", help="skip the beta search")
    args = parser.parse_args(argv)
    before = cfs_before_kernels()
    unit = "CPU s" if args.cpu else "s"
    print(
        f"{cpu_name()}; mlnb {mlnb.__version__}; one BLAS thread; numba kernels "
        f"{'on' if _compiled.enabled() else 'off'}; best of {args.repeat} fits",
        flush=True,
    )
    rows = []
    with threadpool_limits(1):
        for name in args.datasets:
            train, _ = load_dataset(name)
            X, Y = train.X, train.Y
            types = getattr(train, "column_types", None)
            events = resolve("weka", X, types, n_categories=getattr(train, "n_categories", None))
            protocols = {
                "beta fixed": {"beta": 1.0},
                "paper": {"beta": 1.0, "events": events, "prior_alpha": 1.0, "rule": "predict"},
            }
            small = slice(0, min(100, X.shape[0]))  # the compiled kernels loaded first
            mlnb.DynamicChainEnsemble(n_chains=2, **protocols["paper"]).fit(X[small], Y[small])
            results = {}
            for protocol, settings in protocols.items():
                cases = {
                    "default": ({}, {}),  # beside the fit it is compared with, in turns
                    "CFS kernel": (settings, {}),
                    "CFS numpy reference": (settings, {"numpy_path": True}),
                    "CFS before": (settings, {"cfs": before, "numpy_path": True}),
                    "no CFS": (dict(settings, feature_selection=None), {}),
                }
                if before is None:
                    del cases["CFS before"]
                if args.no_default or protocol != "beta fixed":
                    del cases["default"]
                measured = measure_round_robin(X, Y, cases, args.repeat, args.cpu)
                for case, result in measured.items():
                    results[protocol, case] = result
                    print(f"{name}, {protocol}, {case}: {result[0]:.2f} {unit}",
                          file=sys.stderr, flush=True)  # fmt: skip
                kernel_masks = results[protocol, "CFS kernel"][2].feature_masks_
                if "default" in cases:
                    results["default"] = results.pop((protocol, "default"))
                for case in cases.keys() - {"default"}:
                    masks = results[protocol, case][2].feature_masks_
                    if case != "no CFS" and not all(
                        np.array_equal(a, b) for a, b in zip(masks, kernel_masks, strict=True)
                    ):
                        raise AssertionError(f"{name}, {protocol}: {case} selects otherwise")
            rows.append((name, X.shape, Y.shape[1], results))
    print()
    print(f"| set | fit | {unit} | of which CFS {unit} | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for name, shape, n_labels, results in rows:
        label = f"{name} ({shape[0]} x {shape[1]}, {n_labels} labels)"
        if "default" in results:
            default = results["default"][0]
            fixed = results["beta fixed", "CFS kernel"][0]
            paper = results["paper", "CFS kernel"][0]
            print(
                f"| {label} | default (beta search) | {default:.2f} | {results['default'][1]:.2f} "
                f"| default / beta fixed: {default / fixed:.1f}x, / paper: {default / paper:.0f}x |"
            )
        for protocol in ("beta fixed", "paper"):
            bare = results[protocol, "no CFS"][0]
            for case in ("CFS kernel", "CFS numpy reference", "CFS before", "no CFS"):
                if (protocol, case) not in results:
                    continue
                seconds, in_cfs, _ = results[protocol, case]
                ratio = "" if case == "no CFS" else f"CFS / no CFS: {seconds / bare:.2f}x"
                print(f"| {label} | {protocol}, {case} | {seconds:.2f} | {in_cfs:.2f} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
