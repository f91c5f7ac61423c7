"""Online learning one row at a time: mlnb's GaussianNB against scikit-learn's and river's.

On yeast (1500 training rows, 103 features) and medical (333 rows, 1449 features; its rows
as dense arrays), single-label with the first label as the class:

- ``mlnb partial_fit, 1 row``: ``GaussianNB.partial_fit`` of each row in turn (one-row numpy
  arrays, the fast path of ``mlnb._online_rows``), and ``mlnb partial_fit, 100 rows`` of
  batches of 100 rows;
- ``sklearn partial_fit, 1 row`` and ``100 rows``: scikit-learn's ``GaussianNB.partial_fit``
  on the same batches;
- ``river learn_one``: river's ``naive_bayes.GaussianNB.learn_one`` on each row as a ready
  dict of every feature (conversion not timed).

Rows per second after the first batch (the model is made of it, with the classes, untimed:
the rate of a model that is learning), the best of ``--repeat`` runs (the methods take
turns, so that a shared machine's load weighs on all of them alike), and mlnb's one-row
rate over each.
The one-row mlnb model is checked against one fit on all rows (largest relative difference
of the statistics; predictions on the training rows). BLAS runs on one thread.

river is not a dependency of mlnb; give a Python that has it (and numpy) with
``--river-python``, which runs river's part in a subprocess on the same rows::

    python -m venv /tmp/river-venv
    /tmp/river-venv/bin/pip install river numpy scipy scikit-learn
    python benchmarks/bench_online.py --river-python /tmp/river-venv/bin/python

Without it river's rate is reported only if river is importable here. Each repeat runs
every method once, river's subprocess included.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DATASETS = ("yeast", "medical")
BATCH = 100


def _seconds(run):
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def river_rate(X, y, repeat):
    """river's GaussianNB.learn_one after the first row, rows per second, best of
    ``repeat`` (needs only numpy and river)."""
    from river import naive_bayes

    rows = [dict(enumerate(row.tolist())) for row in X]
    classes = y.tolist()

    def learn(model):
        for x, c in zip(rows[1:], classes[1:], strict=True):
            model.learn_one(x, c)

    best = np.inf
    for _ in range(repeat):
        model = naive_bayes.GaussianNB()
        model.learn_one(rows[0], classes[0])
        best = min(best, _seconds(lambda model=model: learn(model)))
    return (len(rows) - 1) / best


def river_child(data_file, repeat):
    """Run in the river environment: print river's rate on the rows of ``data_file``."""
    data = np.load(data_file)
    print(json.dumps({"rate": river_rate(data["X"], data["y"], repeat)}))


def river_in(python, data_file):
    """river's rate, one run by ``python`` (another environment) on the rows saved in
    ``data_file``."""
    command = [python, __file__, "--river-child", str(data_file), "--repeat", "1"]
    output = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"},
    )
    return json.loads(output.stdout.splitlines()[-1])["rate"]


def river_here():
    """Whether river can be imported in this environment."""
    try:
        import river  # noqa: F401
    except ImportError:
        return False
    return True


def learners(X, y, classes):
    """The timed runs: name -> ``(start, learn)``; ``start()`` makes a model of the first
    batch (with the classes; not timed), ``learn(model)`` gives it the other batches."""
    from sklearn.naive_bayes import GaussianNB as SklearnGaussianNB

    from mlnb import GaussianNB

    def run(make, size):
        parts = [(X[i : i + size], y[i : i + size]) for i in range(0, len(X), size)]

        def start():
            return make().partial_fit(*parts[0], classes=classes)

        def learn(model):
            for rows, targets in parts[1:]:
                model.partial_fit(rows, targets)
            return model

        return start, learn

    return {
        "mlnb partial_fit, 1 row": run(GaussianNB, 1),
        f"mlnb partial_fit, {BATCH} rows": run(GaussianNB, BATCH),
        "sklearn partial_fit, 1 row": run(SklearnGaussianNB, 1),
        f"sklearn partial_fit, {BATCH} rows": run(SklearnGaussianNB, BATCH),
    }


def check(start, learn, X, y):
    """Largest relative difference of the one-row model's statistics from one fit's, and
    the share of training rows both predict alike."""
    from mlnb import GaussianNB

    model, fitted = learn(start()), GaussianNB().fit(X, y)
    differences = []
    for field in ("count", "sums", "m2", "total_sums", "total_m2"):
        a, b = getattr(model.stats_, field), getattr(fitted.stats_, field)
        scale = np.maximum(np.abs(b), 1e-12 * np.abs(b).max())
        differences.append(float(np.max(np.abs(a - b) / scale)))
    return max(differences), float(np.mean(model.predict(X) == fitted.predict(X)))


def compare(name, data_dir, repeat, river_python):
    from mlnb.datasets import load_dataset

    train = load_dataset(name, data_dir, split="train")
    X = train.X.toarray() if hasattr(train.X, "toarray") else np.asarray(train.X)
    X = np.ascontiguousarray(X, dtype=float)
    y = np.asarray(train.Y.toarray() if hasattr(train.Y, "toarray") else train.Y)[:, 0]
    y = y.astype(int)
    classes = np.unique(y)
    runs = learners(X, y, classes)
    timed = {label: len(X) - (1 if "1 row" in label else BATCH) for label in runs}
    rates = dict.fromkeys(runs, 0.0)
    with tempfile.TemporaryDirectory() as folder:
        data_file = Path(folder) / "rows.npz"
        np.savez(data_file, X=X, y=y)
        for _ in range(repeat):  # the methods take turns, river's too
            for label, (start, learn) in runs.items():
                model = start()
                seconds = _seconds(lambda learn=learn, model=model: learn(model))
                rates[label] = max(rates[label], timed[label] / seconds)
            if river_python:
                river = river_in(river_python, data_file)
            elif river_here():
                river = river_rate(X, y, 1)
            else:
                continue
            rates["river learn_one"] = max(rates.get("river learn_one", 0.0), river)
    mlnb_rate = rates["mlnb partial_fit, 1 row"]
    print(f"\n{name}: {X.shape[0]} rows x {X.shape[1]} features, {len(classes)} classes")
    print(f"{'':30s}{'rows/s':>10s}{'mlnb 1-row / this':>20s}")
    for label, rate in rates.items():
        print(f"{label:30s}{rate:10.0f}{mlnb_rate / rate:19.1f}x")
    difference, agree = check(*runs["mlnb partial_fit, 1 row"], X, y)
    print(
        f"one row at a time vs one fit: statistics within {difference:.1e} (relative), "
        f"predictions alike on {agree:.1%} of the rows"
    )
    return rates


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data-dir", default=None, help="default: $MLNB_DATA or shared/data")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--river-python", default=None, help="a Python with river installed")
    parser.add_argument("--river-child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.river_child:
        river_child(args.river_child, args.repeat)
        return
    import platform

    from threadpoolctl import threadpool_limits

    import mlnb

    threadpool_limits(1)
    print(
        f"mlnb {mlnb.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
        f"one BLAS thread, best of {args.repeat}"
    )
    for name in args.datasets.split(","):
        compare(name, args.data_dir, args.repeat, args.river_python)


if __name__ == "__main__":
    sys.exit(main())
