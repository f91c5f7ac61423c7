"""Online learning one row at a time: mlnb against scikit-learn and river.

On yeast (1500 training rows, 103 features, 14 labels) and medical (333 rows, 1449
features, 45 labels), first single-label with the first label as the class (medical's
rows as dense arrays):

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

Then multi-label (``--single-label`` skips it, ``--multilabel-only`` the part above), on
every label, rows as each library takes them: yeast's as dense arrays and dicts of every
feature, medical's as one-row CSR matrices and dicts of their non-zero entries (river's
sparse form, as ``bench_prequential.py``; river's Gaussians then skip a row's absent
features, mlnb's take them as 0):

- ``mlnb BR(gaussian) partial_fit, 1 row``: ``BinaryRelevance(events="gaussian",
  rule="predict").partial_fit`` of each row in turn (the fast path of
  ``mlnb.multilabel._online_rows``), and of batches of 100 rows;
- ``mlnb CC(gaussian)``, ``mlnb NaiBX(gaussian)`` and (medical's counts)
  ``mlnb NaiBX(multinomial)``: the classifier chain and NaiBX one row at a time;
- ``river BR(GaussianNB) learn_one``: river's binary relevance,
  ``multioutput.PerOutputClassifier(naive_bayes.GaussianNB())``, one row at a time (and
  ``2nd pass``: the same rows learnt a second time, timed, after a first untimed pass, so
  that river makes none of its per-feature Gaussians while timed: its steady rate, which
  on medical's 333 rows it never reaches in one pass), and ``river GaussianNB learn_one,
  label 0``: one river GaussianNB of the first label alone on the same rows (what binary
  relevance costs per label); mlnb's rates are given over each (``/ river BR``,
  ``/ 2nd pass``, ``/ river NB``).

Each model starts from its first 2 rows (untimed); rates and checks as above, the checks
of every one-row model against its fit on all rows.

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


def river_multilabel_rates(X, Y, sparse, repeat):
    """river's rows per second after the first 2 rows, best of ``repeat``: its binary
    relevance of GaussianNB (``"br"``; ``"br seen"``: a second pass over the rows, every
    Gaussian made) and one GaussianNB of the first label (``"nb"``), ``learn_one``;
    ``sparse``: rows as dicts of their non-zero entries."""
    from river import multioutput, naive_bayes

    rows = [
        {j: v for j, v in enumerate(row) if v} if sparse else dict(enumerate(row))
        for row in X.tolist()
    ]
    targets = {
        "br": [{j: bool(v) for j, v in enumerate(row)} for row in Y.tolist()],
        "nb": Y[:, 0].tolist(),
    }
    targets["br seen"] = targets["br"]
    makers = {
        "br": lambda: multioutput.PerOutputClassifier(naive_bayes.GaussianNB()),
        "br seen": lambda: multioutput.PerOutputClassifier(naive_bayes.GaussianNB()),
        "nb": naive_bayes.GaussianNB,
    }

    def learn(model, labels, start=2, stop=None):
        for x, y in zip(rows[start:stop], labels[start:stop], strict=True):
            model.learn_one(x, y)

    best = {}
    for _ in range(repeat):
        for kind, make in makers.items():
            model, labels = make(), targets[kind]
            learn(model, labels, start=0, stop=2)
            if kind == "br seen":  # every row once first: no Gaussian made while timed
                learn(model, labels)
            seconds = _seconds(lambda model=model, labels=labels: learn(model, labels))
            best[kind] = min(best.get(kind, np.inf), seconds)
    return {kind: (len(rows) - 2) / seconds for kind, seconds in best.items()}


def river_child(data_file, repeat):
    """Run in the river environment: print river's rate on the rows of ``data_file``
    (single-label with ``y``, multi-label with ``Y``)."""
    data = np.load(data_file)
    if "Y" in data:
        rate = river_multilabel_rates(data["X"], data["Y"], bool(data["sparse"]), repeat)
    else:
        rate = river_rate(data["X"], data["y"], repeat)
    print(json.dumps({"rate": rate}))


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


def multilabel_learners(X, Y):
    """The timed multi-label runs: name -> ``(make, start, learn)``; ``start()`` makes a
    model of the first 2 rows (not timed), ``learn(model)`` gives it the others."""
    import scipy.sparse as sp

    from mlnb import BinaryRelevance, ClassifierChain, NaiBX

    def run(make, size):
        parts = [(X[i : i + size], Y[i : i + size]) for i in range(2, X.shape[0], size)]

        def start():
            return make().partial_fit(X[:2], Y[:2])

        def learn(model):
            for rows, labels in parts:
                model.partial_fit(rows, labels)
            return model

        return make, start, learn

    def made(cls, events):
        return lambda: cls(events=events, rule="predict")

    br = made(BinaryRelevance, "gaussian")
    runs = {
        "mlnb BR(gaussian) partial_fit, 1 row": run(br, 1),
        f"mlnb BR(gaussian) partial_fit, {BATCH} rows": run(br, BATCH),
        "mlnb CC(gaussian) partial_fit, 1 row": run(made(ClassifierChain, "gaussian"), 1),
        "mlnb NaiBX(gaussian) partial_fit, 1 row": run(made(NaiBX, "gaussian"), 1),
    }
    if sp.issparse(X):  # counts, the multinomial's data
        runs["mlnb NaiBX(multinomial) partial_fit, 1 row"] = run(made(NaiBX, "multinomial"), 1)
    return runs


def check_multilabel(make, start, learn, X, Y):
    """Largest relative difference of a one-row model's statistics from one fit's, and
    the share of (row, label) predictions on the training rows both make alike."""
    model, fitted = learn(start()), make().fit(X, Y)
    differences = []
    for name in ("feature_stats_", "label_stats_", "size_stats_", "size_feature_stats_"):
        mine, theirs = getattr(model, name, None), getattr(fitted, name, None)
        if theirs is None:
            continue
        for field in ("count", "sums", "m2", "total_sums", "total_m2"):
            a, b = getattr(mine, field), getattr(theirs, field)
            if b is not None:
                scale = np.maximum(np.abs(b), 1e-12 * max(np.abs(b).max(), 1e-300))
                differences.append(float(np.max(np.abs(a - b) / scale)))
    return max(differences), float(np.mean(model.predict(X) == fitted.predict(X)))


def compare_multilabel(name, data_dir, repeat, river_python):
    """Multi-label one row at a time: mlnb's BR, CC and NaiBX against river's BR."""
    import scipy.sparse as sp

    from mlnb.datasets import load_dataset

    train = load_dataset(name, data_dir, split="train")
    sparse = sp.issparse(train.X)
    dense = np.ascontiguousarray(train.X.toarray() if sparse else train.X, dtype=float)
    X = sp.csr_matrix(dense) if sparse else dense
    Y = np.asarray(train.Y.toarray() if sp.issparse(train.Y) else train.Y).astype(int)
    runs = multilabel_learners(X, Y)
    rates = dict.fromkeys(runs, 0.0)
    river = {
        "br": "river BR(GaussianNB) learn_one",
        "br seen": "river BR(GaussianNB) learn_one, 2nd pass",
        "nb": "river GaussianNB learn_one, label 0",
    }
    with tempfile.TemporaryDirectory() as folder:
        data_file = Path(folder) / "rows.npz"
        np.savez(data_file, X=dense, Y=Y, sparse=sparse)
        for _ in range(repeat):  # the methods take turns, river's too
            for label, (_, start, learn) in runs.items():
                model = start()
                seconds = _seconds(lambda learn=learn, model=model: learn(model))
                rates[label] = max(rates[label], (X.shape[0] - 2) / seconds)
            if river_python:
                found = river_in(river_python, data_file)
            elif river_here():
                found = river_multilabel_rates(dense, Y, sparse, 1)
            else:
                continue
            for kind, rate in found.items():
                rates[river[kind]] = max(rates.get(river[kind], 0.0), rate)
    form = "one-row CSR matrices / dicts of non-zeros" if sparse else "dense rows / full dicts"
    print(
        f"\n{name}, multi-label: {X.shape[0]} rows x {X.shape[1]} features, {Y.shape[1]} "
        f"labels ({form})"
    )
    print(
        f"{'':45s}{'rows/s':>10s}{'/ river BR':>12s}{'/ 2nd pass':>12s}{'/ river NB':>12s}"
        "  one row at a time vs one fit"
    )
    for label, rate in rates.items():
        ratio = "".join(
            f"{rate / rates[river[kind]]:11.2f}x" if river[kind] in rates else f"{'':12s}"
            for kind in river
        )
        checked = ""
        if label in runs and "1 row" in label:
            difference, agree = check_multilabel(*runs[label], X, Y)
            checked = f"  statistics within {difference:.1e}, labels alike {agree:.2%}"
        print(f"{label:45s}{rate:10.0f}{ratio}{checked}")
    return rates


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data-dir", default=None, help="default: $MLNB_DATA or shared/data")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--river-python", default=None, help="a Python with river installed")
    parser.add_argument(
        "--single-label", action="store_true", help="skip the multi-label comparison"
    )
    parser.add_argument(
        "--multilabel-only", action="store_true", help="skip the single-label comparison"
    )
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
        if not args.multilabel_only:
            compare(name, args.data_dir, args.repeat, args.river_python)
        if not args.single_label:
            compare_multilabel(name, args.data_dir, args.repeat, args.river_python)


if __name__ == "__main__":
    sys.exit(main())
