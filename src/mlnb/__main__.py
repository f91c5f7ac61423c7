"""``python -m mlnb``: a short demonstration on generated data.

Fits the seven single-label Naive Bayes classifiers (and scikit-learn's classical three, for
reference) on a generated bag-of-words data set by 5-fold cross-validation and prints a
comparison table: accuracy, macro F1, fit and predict seconds.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from sklearn import naive_bayes as sklearn_nb

from . import (
    BayesianBernoulliNB,
    BayesianGaussianNB,
    BayesianMultinomialNB,
    BernoulliNB,
    GaussianNB,
    MixedNB,
    MultinomialNB,
    __version__,
)
from .evaluation import cross_validate


def make_word_counts(n_samples=3000, n_words=400, n_classes=5, *, random_state=0):
    """Documents as word counts: a shared background vocabulary plus a topic per class."""
    rng = np.random.default_rng(random_state)
    background = rng.dirichlet(np.full(n_words, 0.5))
    topics = rng.dirichlet(np.full(n_words, 0.05), size=n_classes)
    profiles = 0.9 * background + 0.1 * topics
    y = rng.integers(0, n_classes, n_samples)
    lengths = rng.poisson(40, n_samples) + 1
    X = np.vstack([rng.multinomial(n, profiles[c]) for n, c in zip(lengths, y, strict=True)])
    return X.astype(float), y


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m mlnb", description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=3000)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    X, y = make_word_counts(args.samples, random_state=args.seed)
    n_words = X.shape[1]
    models = {
        "mlnb MultinomialNB": MultinomialNB(),
        "mlnb BayesianMultinomialNB": BayesianMultinomialNB(beta=0.1),
        "mlnb BernoulliNB": BernoulliNB(),
        "mlnb BayesianBernoulliNB": BayesianBernoulliNB(a=0.5, b=2.0),
        "mlnb GaussianNB": GaussianNB(),
        "mlnb BayesianGaussianNB": BayesianGaussianNB(a=0.01, b=0.01),
        "mlnb MixedNB (half multinomial, half Bernoulli)": MixedNB(
            blocks=[
                ("multinomial", slice(0, n_words // 2)),
                ("bernoulli", slice(n_words // 2, None)),
            ]
        ),
        "scikit-learn MultinomialNB": sklearn_nb.MultinomialNB(),
        "scikit-learn BernoulliNB": sklearn_nb.BernoulliNB(),
        "scikit-learn GaussianNB": sklearn_nb.GaussianNB(),
    }
    print(
        f"mlnb {__version__}: {args.folds}-fold cross-validation on generated word counts "
        f"({X.shape[0]} documents, {n_words} words, {len(np.unique(y))} classes)\n"
    )
    header = f"{'classifier':<48} {'accuracy':>8} {'macro F1':>8} {'fit s':>8} {'predict s':>9}"
    print(header)
    print("-" * len(header))
    for name, model in models.items():
        result = cross_validate(
            model,
            X,
            y,
            cv=args.folds,
            metrics=["sl_accuracy", "sl_macro_f1"],
            random_state=args.seed,
        )
        mean = result.mean()
        print(
            f"{name:<48} {mean['sl_accuracy']:8.4f} {mean['sl_macro_f1']:8.4f} "
            f"{mean['train_time']:8.4f} {mean['test_time']:9.4f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
