"""``mlnb demo``: the single-label classifiers side by side on generated word counts.

Fits the seven single-label Naive Bayes classifiers of :mod:`mlnb` (and scikit-learn's
classical three, for reference) on a generated bag-of-words data set by k-fold
cross-validation: accuracy, macro F1, fit and predict seconds per fold.
"""

from __future__ import annotations

import contextlib

import numpy as np

__all__ = ["make_word_counts", "run_demo"]


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


def _models(n_words):
    from sklearn import naive_bayes as sklearn_nb

    from .. import (
        BayesianBernoulliNB,
        BayesianGaussianNB,
        BayesianMultinomialNB,
        BernoulliNB,
        GaussianNB,
        MixedNB,
        MultinomialNB,
    )

    return {
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


def run_demo(*, samples=3000, folds=5, seed=0, progress=contextlib.nullcontext):
    """The data's description and one row per classifier (means over the folds).

    ``progress(items)`` is a context manager giving the ``(name, model)`` pairs back (the
    command's progress bar).
    """
    from ..evaluation import cross_validate

    X, y = make_word_counts(samples, random_state=seed)
    n_words = X.shape[1]
    title = (
        f"{folds}-fold cross-validation on generated word counts ({X.shape[0]} documents, "
        f"{n_words} words, {len(np.unique(y))} classes)"
    )
    rows = []
    with progress(list(_models(n_words).items())) as models:
        for name, model in models:
            result = cross_validate(
                model, X, y, cv=folds, metrics=["sl_accuracy", "sl_macro_f1"], random_state=seed
            )
            mean = result.mean()
            rows.append(
                {
                    "classifier": name,
                    "accuracy": float(mean["sl_accuracy"]),
                    "macro_f1": float(mean["sl_macro_f1"]),
                    "train_time": float(mean["train_time"]),
                    "test_time": float(mean["test_time"]),
                }
            )
    return title, rows
