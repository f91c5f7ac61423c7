"""Semi-supervised Naive Bayes on text: accuracy against the number of labelled documents.

Nigam, McCallum, Thrun and Mitchell (2000, Figure 2) train multinomial Naive Bayes on a few
labelled documents of 20 Newsgroups (and WebKB) and many unlabelled ones: EM over the
unlabelled documents is far better than the labelled ones alone when those are few (about
30 points of accuracy with 20 labelled documents per class on 20 Newsgroups), and the gain
shrinks as labelled documents grow. Here, on ../shared/data's 20 Newsgroups "bydate"
(stemmed) and WebKB (4 classes, stemmed) training parts, for each fraction of labelled
training documents (stratified, several seeds) the rest of the training part is
unlabelled, and three models are scored on the test part (accuracy and macro F1):

- ``NB``: ``MultinomialNB(alpha=0.1)`` on the labelled documents alone;
- ``EM``: ``SemiSupervisedNB(MultinomialNB(alpha=0.1), unlabelled_weight=1.0)`` (Nigam et
  al.'s basic EM with the same model);
- ``EM tuned``: ``SemiSupervisedNB()`` (the defaults: the weight of the unlabelled
  documents, 0, 0.01, 0.1 or 1, and the smoothing, 1, 0.1 or 0.01, chosen out of fold).

(Laplace's alpha = 1, Nigam et al.'s, lets EM collapse onto one class on 20 Newsgroups'
70,000 stemmed words: see ``mlnb.semi_supervised.DEFAULT_ALPHAS``.)

One BLAS thread; word counts from ``mlnb.text.word_counter`` fitted on the training part.

    python benchmarks/bench_semi_supervised.py [--corpora webkb 20ng] [--seeds 3] \
        [--fractions 0.01 0.02 0.05 0.1 0.2] [--save results.json] [--plot figure.png]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from mlnb import MultinomialNB
from mlnb.datasets import load_text_corpus
from mlnb.semi_supervised import SemiSupervisedNB
from mlnb.text import word_counter

MODELS = {
    "NB": lambda: MultinomialNB(alpha=0.1),
    "EM": lambda: SemiSupervisedNB(MultinomialNB(alpha=0.1), unlabelled_weight=1.0),
    "EM tuned": lambda: SemiSupervisedNB(),
}


def corpus(name):
    variant = None if name == "webkb" else "stemmed"
    train, test = load_text_corpus(name, variant=variant)
    counter = word_counter().fit(train.documents)
    return (
        counter.transform(train.documents),
        np.asarray(train.labels),
        counter.transform(test.documents),
        np.asarray(test.labels),
    )


def one_run(X, y, X_test, y_test, fraction, seed):
    """Every model with ``fraction`` of the training rows labelled."""
    labelled, _ = train_test_split(
        np.arange(len(y)), train_size=fraction, stratify=y, random_state=seed
    )
    classes = np.unique(y)
    codes = np.searchsorted(classes, y)
    partial = np.full(len(y), -1)
    partial[labelled] = codes[labelled]
    rows = []
    for name, make in MODELS.items():
        start = time.perf_counter()
        if name == "NB":
            model = make().fit(X[labelled], codes[labelled])
        else:
            model = make().fit(X, partial)
        seconds = time.perf_counter() - start
        predicted = classes[model.predict(X_test)]
        rows.append(
            {
                "model": name,
                "fraction": fraction,
                "labelled": len(labelled),
                "seed": seed,
                "accuracy": accuracy_score(y_test, predicted),
                "macro_f1": f1_score(y_test, predicted, average="macro"),
                "seconds": seconds,
                "weight": getattr(model, "unlabelled_weight_", None),
            }
        )
    return rows


def plot(results, path):
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = sorted({r["corpus"] for r in results})
    figure, axes = plt.subplots(1, len(names), figsize=(5 * len(names), 4), squeeze=False)
    for axis, name in zip(axes[0], names, strict=True):
        for model in MODELS:
            mine = [r for r in results if r["corpus"] == name and r["model"] == model]
            sizes = sorted({r["labelled"] for r in mine})
            means = [np.mean([r["accuracy"] for r in mine if r["labelled"] == n]) for n in sizes]
            axis.plot(sizes, means, marker="o", label=model)
        axis.set_xscale("log")
        axis.set_xticks(sizes, [str(n) for n in sizes], minor=False)
        axis.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        axis.set_xlabel("labelled training documents")
        axis.set_ylabel("test accuracy")
        axis.set_title(name)
        axis.grid(alpha=0.3)
        axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", nargs="+", default=["webkb", "20ng"])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--fractions", nargs="+", type=float, default=[0.01, 0.02, 0.05, 0.1, 0.2])
    parser.add_argument("--save")
    parser.add_argument("--load")
    parser.add_argument("--plot")
    args = parser.parse_args(argv)
    if args.load:
        with open(args.load) as handle:
            results = json.load(handle)
    else:
        results = []
        with threadpool_limits(1):
            for name in args.corpora:
                X, y, X_test, y_test = corpus(name)
                for fraction in args.fractions:
                    for seed in range(args.seeds):
                        for row in one_run(X, y, X_test, y_test, fraction, seed):
                            results.append({"corpus": name, **row})
                            print(json.dumps(results[-1]), flush=True)
    if args.save:
        with open(args.save, "w") as handle:
            json.dump(results, handle, indent=1)
    print("| corpus | labelled | NB accuracy | EM accuracy | EM tuned accuracy | weight chosen |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in sorted({r["corpus"] for r in results}):
        for size in sorted({r["labelled"] for r in results if r["corpus"] == name}):
            cell = {}
            for model in MODELS:
                mine = [
                    r
                    for r in results
                    if (r["corpus"], r["labelled"], r["model"]) == (name, size, model)
                ]
                scores = [r["accuracy"] for r in mine]
                cell[model] = f"{np.mean(scores):.3f} ± {np.std(scores):.3f}"
                if model == "EM tuned":
                    weights = sorted({r["weight"] for r in mine})
            print(
                f"| {name} | {size} | {cell['NB']} | {cell['EM']} | {cell['EM tuned']} | "
                f"{', '.join(f'{w:g}' for w in weights)} |"
            )
    if args.plot:
        plot(results, args.plot)


if __name__ == "__main__":
    main()
