"""Fit and predict time of mlnb's classical NB classifiers against scikit-learn's, one run.

Gaussian, multinomial, Bernoulli, complement and categorical Naive Bayes; run it with one
BLAS thread (``OPENBLAS_NUM_THREADS=1``), as the figures in docs/benchmarks.md are.

Data: 20 Newsgroups bydate (raw archive in ../shared/data, turned into counts with
scikit-learn's CountVectorizer; 20 classes) and scene (Mulan ARFF; the class of a row is its
label set, label-powerset style); and a generated 40,000 x 20,000 sparse set of counts
(density 0.5 %, 20 classes) for the large-sparse case. Each timing is the best of
``--repeat`` runs; the ratio is mlnb / scikit-learn (below 1: mlnb is faster): fit,
predict_proba ("proba") and predict. Also prints the largest difference of the two
libraries' predict_proba, which must be ~1e-12, and checks that their predictions agree.
``--only`` keeps the cases whose name contains a word (e.g. ``--only CategoricalNB``).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_naive_bayes.py [--repeat 5]
        [--data-dir ../shared/data] [--only WORD]
"""

from __future__ import annotations

import argparse
import gzip
import tarfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn import naive_bayes as sk
from sklearn.feature_extraction.text import CountVectorizer

import mlnb
from mlnb.evaluation import best_time

REPO = Path(__file__).resolve().parents[1]


def read_20newsgroups(data_dir: Path):
    """(train texts, train labels, test texts, test labels) from the raw bydate archive."""
    split = {"train": ([], []), "test": ([], [])}
    with tarfile.open(data_dir / "text/20ng_bydate/20news-bydate.tar.gz") as archive:
        for member in archive:
            if not member.isfile():
                continue
            parts = Path(member.name).parts
            top = [p for p in parts if p.startswith("20news-bydate-")]
            if not top:
                continue
            which = top[0].removeprefix("20news-bydate-")
            raw = archive.extractfile(member).read()
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = raw.decode("latin-1")
            split[which][0].append(text)
            split[which][1].append(parts[parts.index(top[0]) + 1])
    return (*split["train"], *split["test"])


def read_scene(data_dir: Path):
    """Dense scene features and a label-powerset class per row (train and test files)."""
    rows = []
    for name in ("scene-train.arff.gz", "scene-test.arff.gz"):
        with gzip.open(data_dir / "multilabel/scene" / name, "rt") as handle:
            in_data = False
            for line in handle:
                line = line.strip()
                if in_data and line and not line.startswith("%"):
                    rows.append([float(v) for v in line.split(",")])
                elif line.lower().startswith("@data"):
                    in_data = True
    data = np.array(rows)
    X, Y = data[:, :-6], data[:, -6:].astype(int)
    y = Y @ (1 << np.arange(6))
    return X, y


def compare(name, ours, theirs, X_train, y_train, X_test, repeat):
    fit_ours, ours = best_time(lambda: ours.fit(X_train, y_train), repeat)[:2]
    fit_theirs, theirs = best_time(lambda: theirs.fit(X_train, y_train), repeat)[:2]
    pred_ours, proba_ours = best_time(lambda: ours.predict_proba(X_test), repeat)[:2]
    pred_theirs, proba_theirs = best_time(lambda: theirs.predict_proba(X_test), repeat)[:2]
    label_ours, labels_ours = best_time(lambda: ours.predict(X_test), repeat)[:2]
    label_theirs, labels_theirs = best_time(lambda: theirs.predict(X_test), repeat)[:2]
    diff = np.abs(proba_ours - proba_theirs).max()
    agree = "" if np.array_equal(labels_ours, labels_theirs) else "  predictions differ!"
    print(
        f"{name:<40} {fit_ours:8.4f} {fit_theirs:8.4f} {fit_ours / fit_theirs:6.2f}"
        f"   {pred_ours:8.4f} {pred_theirs:8.4f} {pred_ours / pred_theirs:6.2f}"
        f"   {label_ours:8.4f} {label_theirs:8.4f} {label_ours / label_theirs:6.2f}"
        f"   {diff:.1e}{agree}"
    )
    return fit_ours / fit_theirs, pred_ours / pred_theirs, label_ours / label_theirs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--gaussian-vocabulary", type=int, default=2000)
    parser.add_argument("--only", default="", help="run the cases whose name contains this")
    args = parser.parse_args()

    train_text, train_y, test_text, _ = read_20newsgroups(args.data_dir)
    vectorizer = CountVectorizer()
    X_train = vectorizer.fit_transform(train_text).astype(np.float64)
    X_test = vectorizer.transform(test_text).astype(np.float64)
    small = CountVectorizer(max_features=args.gaussian_vocabulary)
    G_train = small.fit_transform(train_text).toarray().astype(np.float64)
    G_test = small.transform(test_text).toarray().astype(np.float64)
    scene_X, scene_y = read_scene(args.data_dir)
    # nominal codes for the categorical model: counts capped at 7, scene's [0, 1] in 5 bins
    G_codes_train, G_codes_test = (np.minimum(G, 7).astype(np.int64) for G in (G_train, G_test))
    scene_codes = np.minimum((scene_X * 5).astype(np.int64), 4)
    # a large sparse set: 40,000 x 20,000 counts 1..3 at density 0.5 %, 20 classes (seed 0)
    rng = np.random.default_rng(0)
    big_X = sp.random(
        40_000,
        20_000,
        density=0.005,
        format="csr",
        random_state=0,
        data_rvs=lambda k: rng.integers(1, 4, k),
    ).astype(np.float64)
    big_y = rng.integers(0, 20, big_X.shape[0])

    print(f"20 Newsgroups: {X_train.shape[0]} train / {X_test.shape[0]} test documents, ")
    print(f"  vocabulary {X_train.shape[1]} (dense Gaussian: top {G_train.shape[1]} words)")
    print(f"scene: {scene_X.shape[0]} rows, {scene_X.shape[1]} features, ", end="")
    print(f"{len(np.unique(scene_y))} label-set classes; best of {args.repeat} runs, seconds")
    print(
        f"{'data / model':<40} {'fit mlnb':>8} {'sklearn':>8} {'ratio':>6}"
        f"   {'proba':>8} {'sklearn':>8} {'ratio':>6}"
        f"   {'predict':>8} {'sklearn':>8} {'ratio':>6}   max|dP|"
    )
    cases = [
        (
            "20NG counts / MultinomialNB",
            mlnb.MultinomialNB(),
            sk.MultinomialNB(),
            X_train,
            train_y,
            X_test,
        ),
        (
            "20NG counts / BernoulliNB",
            mlnb.BernoulliNB(),
            sk.BernoulliNB(),
            X_train,
            train_y,
            X_test,
        ),
        (
            "20NG dense counts / GaussianNB",
            mlnb.GaussianNB(),
            sk.GaussianNB(),
            G_train,
            train_y,
            G_test,
        ),
        ("scene / GaussianNB", mlnb.GaussianNB(), sk.GaussianNB(), scene_X, scene_y, scene_X),
        (
            "scene / MultinomialNB",
            mlnb.MultinomialNB(),
            sk.MultinomialNB(),
            scene_X,
            scene_y,
            scene_X,
        ),
        (
            "scene / BernoulliNB",
            mlnb.BernoulliNB(binarize=0.5),
            sk.BernoulliNB(binarize=0.5),
            scene_X,
            scene_y,
            scene_X,
        ),
        (
            "20NG counts / ComplementNB",
            mlnb.ComplementNB(),
            sk.ComplementNB(),
            X_train,
            train_y,
            X_test,
        ),
        ("scene / ComplementNB", mlnb.ComplementNB(), sk.ComplementNB(), scene_X, scene_y, scene_X),
        (
            "20NG dense counts (0..7) / CategoricalNB",
            mlnb.CategoricalNB(min_categories=8),
            sk.CategoricalNB(min_categories=8),
            G_codes_train,
            train_y,
            G_codes_test,
        ),
        (
            "scene 5 bins / CategoricalNB",
            mlnb.CategoricalNB(min_categories=5),
            sk.CategoricalNB(min_categories=5),
            scene_codes,
            scene_y,
            scene_codes,
        ),
    ]
    cases += [
        (
            "40k x 20k sparse / BernoulliNB",
            mlnb.BernoulliNB(),
            sk.BernoulliNB(),
            big_X,
            big_y,
            big_X,
        ),
        (
            "40k x 20k sparse / MultinomialNB",
            mlnb.MultinomialNB(),
            sk.MultinomialNB(),
            big_X,
            big_y,
            big_X,
        ),
    ]
    for name, ours, theirs, X_fit, y_fit, X_pred in cases:
        if args.only not in name:
            continue
        compare(name, ours, theirs, X_fit, y_fit, X_pred, args.repeat)


if __name__ == "__main__":
    main()
