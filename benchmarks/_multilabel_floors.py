"""The floors of ``bench_multilabel.py``: the least work any binary relevance or chain of
Naive Bayes models must do, timed in its fastest form (see that script's docstring)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from _multilabel_cases import MAX_RUNS, N_CHAINS, SAMPLE_FRACTION, events_of, load


def best_wall_and_cpu(function, repeat, min_time):
    """(best wall time, best process CPU time, number of calls) of ``function()``."""
    from mlnb.evaluation import best_time  # mlnb is imported by the cases, not at start

    timing = best_time(function, repeat, min_seconds=min_time, max_runs=MAX_RUNS)
    return timing.seconds, timing.cpu_seconds, timing.runs


def run_floor(dataset, args):
    """Time the floor of binary relevance: ``Y.T @ X`` (fastest form) + ``X_test @ W.T``."""
    X, Y, X_test, _ = load(dataset, args.quick)
    Y_float = np.asarray(Y, dtype=np.float64)
    forms = {"(X.T @ Y).T": lambda: (X.T @ Y_float).T}
    if sp.issparse(X):
        Y_csr = sp.csr_matrix(Y_float)
        X_csc = X.tocsc()
        forms["Y_csr.T @ X (sparse)"] = lambda: Y_csr.T @ X
        forms["X_csc.T @ Y (CSR x dense)"] = lambda: (X_csc.T @ Y_float).T
    else:
        forms["Y.T @ X (BLAS)"] = lambda: Y_float.T @ X
    timed = {
        name: best_wall_and_cpu(form, args.repeat, args.min_time) for name, form in forms.items()
    }
    fastest = min(timed, key=lambda name: timed[name][0])
    W = np.random.default_rng(0).random((Y.shape[1], X.shape[1]))
    product, product_cpu, runs = best_wall_and_cpu(lambda: X_test @ W.T, args.repeat, args.min_time)
    return {
        "fit": timed[fastest][0],
        "predict": product,
        "cpu": timed[fastest][1] + product_cpu,
        "form": fastest,
        "forms": {name: wall for name, (wall, _, _) in timed.items()},
        "runs": runs,
    }


# ---- floors of the chains ------------------------------------------------------------------------
STACKED_FLOOR_LIMIT = 1 << 24  # floats of (chains x labels x samples) timed all chains at once


def floor_blocks(n_labels):
    """Block sizes the floor's chain steps try (the fastest counts): 16, and mlnb's rule
    (:func:`mlnb.multilabel._inference.stacked_block`, up to 128 for many labels)."""
    return sorted({16, max(16, min(128, n_labels // 8))})


def chain_steps(base, weight, block=16):
    """The greedy steps of ``c`` chains at once, in their fastest blocked form.

    ``base``: (c, L, n) log-odds from the features, in chain order; ``weight``:
    (c, L, L) label-feature weights in chain order. Per block of labels one (batched)
    product with the decisions before the block; per label one matrix-vector product with
    the decisions inside its block and one comparison. The minimum of any greedy chain
    over dense pairwise weights: O(n L**2 / 2) multiply-adds per chain, L Python steps.
    """
    chains, n_labels, n_samples = base.shape
    decided = np.zeros((chains, n_labels, n_samples))
    for start in range(0, n_labels, block):
        stop = min(start + block, n_labels)
        scores = base[:, start:stop]
        if start:
            scores = scores + weight[:, start:stop, :start] @ decided[:, :start]
        for position in range(start, stop):
            step = scores[:, position - start]
            if position > start:
                step = (
                    step
                    + (weight[:, position, None, start:position] @ decided[:, start:position])[:, 0]
                )
            np.greater(step, 0.0, out=decided[:, position])
    return decided


def feature_products(X_test, gaussian, n_rows, rng):
    """Functions scoring every row of X_test for ``n_rows`` labels: the floor's feature term.

    Multinomial: ``X_test @ W.T`` (W of shape (n_rows, d), stored transposed so that
    scipy needs no copy); Gaussian: ``(X*X) @ A.T + X @ B.T`` (the quadratic form of the
    log-likelihood ratio: two products).
    """
    d = X_test.shape[1]
    if not gaussian:
        W_T = np.ascontiguousarray(rng.random((d, n_rows)))
        return lambda: X_test @ W_T
    A, B = rng.random((n_rows, d)), rng.random((n_rows, d))
    return lambda: (X_test * X_test) @ A.T + X_test @ B.T


def label_stacked_rows(X, Y):
    """(Q, rows): the rows of X holding each label, stacked label after label, with each
    label's columns shifted to a block of its own (what mlnb's ``_MemberLabels`` builds)."""
    by_label = sp.csc_matrix(Y)
    rows = by_label.indices
    stacked = X[rows]
    label_of_row = np.repeat(np.arange(Y.shape[1]), np.diff(by_label.indptr))
    shift = np.repeat(label_of_row * X.shape[1], np.diff(stacked.indptr))
    Q = sp.csr_matrix(
        (stacked.data, stacked.indices + shift, stacked.indptr),
        shape=(len(rows), Y.shape[1] * X.shape[1]),
    )
    return Q, rows


def run_chain_floor(dataset, benchmark, args):
    """Time the floor of a classifier chain ("cc") or of ten ("ecc").

    fit: the statistics (one grouping product, fastest form, operands prepared beforehand)
    plus one ``np.log`` over them (the parameters); predict: the feature term of every
    label of every chain (:func:`feature_products`, one stacked product or one per chain,
    whichever is faster) plus the chain steps (:func:`chain_steps`). The chain order is
    taken as the column order (a real implementation permutes the rows of W, L x d, once).
    """
    X, Y, X_test, _ = load(dataset, args.quick)
    gaussian = events_of(dataset) == "gaussian"
    n, n_labels = Y.shape
    chains = N_CHAINS if benchmark == "ecc" else 1
    rng = np.random.default_rng(0)
    Y_float = np.asarray(Y, dtype=np.float64)
    # Grouping: CC groups the rows by label (G = Y); ECC by (sample k, label l) and sample k.
    if benchmark == "ecc":
        size = max(round(SAMPLE_FRACTION * n), 1)
        M = np.zeros((n, chains))
        for k in range(chains):
            M[rng.choice(n, size, replace=False), k] = 1.0
        Y_ext = np.hstack([Y_float, np.ones((n, 1))])
        G = (M[:, :, None] * Y_ext[:, None, :]).reshape(n, -1)
    else:
        M, Y_ext, G = np.ones((n, 1)), Y_float, Y_float
    if sp.issparse(X):
        A = sp.hstack([X, sp.csr_matrix(Y_float)], format="csr")
    else:
        A = np.hstack([X, X * X, Y_float])
    forms = {}
    if sp.issparse(A):
        G_T = sp.csr_matrix(G.T)
        forms["G.T @ [X Y] (sparse)"] = lambda: (G_T @ A).toarray()
        Q, rows = label_stacked_rows(A, sp.csr_matrix(Y_ext))
        weights = M[rows]
        forms["label-stacked rows.T @ M"] = lambda: Q.T @ weights
        A_csc = A.tocsc()
        forms["[X Y]_csc.T @ G (dense G)"] = lambda: A_csc.T @ G
    else:
        forms["G.T @ [X X² Y] (BLAS)"] = lambda: G.T @ A

    def timed(function, times=1):
        wall, cpu, runs = best_wall_and_cpu(function, args.repeat, args.min_time)
        return wall * times, cpu * times, runs

    statistics = {name: timed(form) for name, form in forms.items()}
    fastest = min(statistics, key=lambda name: statistics[name][0])
    logs = rng.random((G.shape[1], A.shape[1])) + 1.0
    parts = {"statistics": statistics[fastest], "log": timed(lambda: np.log(logs))}
    # Prediction: the feature term of all chains' labels, then the chain steps; each in
    # its faster form: all chains at once, or one chain at a time (times the chains).
    n_test = X_test.shape[0]
    features = {
        "stacked": timed(feature_products(X_test, gaussian, chains * n_labels, rng)),
        "per chain": timed(feature_products(X_test, gaussian, n_labels, rng), chains),
    }
    base = feature_products(X_test, gaussian, n_labels, rng)().reshape(n_test, 1, n_labels)
    base = base - np.median(base, axis=0)  # about half the labels set
    weight = rng.normal(0.0, 0.1, size=(1, n_labels, n_labels))

    def steps(n_chains, block):
        bases = np.repeat(base, n_chains, axis=1)
        weights = np.repeat(weight, n_chains, axis=0)
        # one transposing copy: the products give (sample, chain, label), the steps read
        # one label of every chain at a time, contiguous in (chain, label, sample)
        return lambda: chain_steps(np.ascontiguousarray(bases.transpose(1, 2, 0)), weights, block)

    steps_forms = {}
    for block in floor_blocks(n_labels):
        steps_forms[f"per chain, block {block}"] = timed(steps(1, block), chains)
        if chains > 1 and chains * n_labels * n_test <= STACKED_FLOOR_LIMIT:
            steps_forms[f"stacked, block {block}"] = timed(steps(chains, block))
    for name, choices in (("features", features), ("chain steps", steps_forms)):
        best = min(choices, key=lambda form: choices[form][0])
        parts[f"{name} ({best})"] = choices[best]
    fit = [parts["statistics"], parts["log"]]
    predict = [part for name, part in parts.items() if name not in ("statistics", "log")]
    return {
        "fit": sum(part[0] for part in fit),
        "predict": sum(part[0] for part in predict),
        "cpu": sum(part[1] for part in parts.values()),
        "cpu_predict": sum(part[1] for part in predict),
        "form": fastest,
        "forms": {name: wall for name, (wall, _, _) in statistics.items()},
        "parts": {name: wall for name, (wall, _, _) in parts.items()},
        "steps_forms": {name: wall for name, (wall, _, _) in steps_forms.items()},
        "runs": min(runs for _, _, runs in parts.values()),
    }
