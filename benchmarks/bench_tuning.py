"""Grid search by fold subtraction against scikit-learn's GridSearchCV, in one run.

The paper's tuning (Xu 2018, section 5): 16 values of log2(beta), 10-fold cross-validation
(stratified, as GridSearchCV does for classifiers), macro F1, on the 20 Newsgroups training
documents (bydate split, stemmed text; counts from CountVectorizer, TF-IDF for the Gaussian
models). For each model the script prints both searches' times, the speed-up, and the
largest difference between their mean cross-validated scores (which must be ~0).

    python benchmarks/bench_tuning.py [--models multinomial bernoulli ...] [--grid 16] [--repeat 3]
"""

from __future__ import annotations

import argparse
from functools import partial

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold

import mlnb
from mlnb.datasets import load_text_corpus
from mlnb.evaluation import best_time
from mlnb.selection import FoldSubtractionSearchCV
from mlnb.text import LogTfidfTransformer, word_counter


def grids(n_values):
    betas = [2.0**k for k in range(-n_values + 1, 1)]
    tied = [{"a": [beta], "b": [beta]} for beta in [2.0**k for k in range(-20, -20 + n_values)]]
    return {
        "multinomial": (mlnb.MultinomialNB(prior_alpha=1.0), {"alpha": betas}, False),
        "bernoulli": (mlnb.BernoulliNB(prior_alpha=1.0), {"alpha": betas}, False),
        "bayesian_multinomial": (mlnb.BayesianMultinomialNB(alpha=2.0), {"beta": betas}, False),
        "bayesian_gaussian": (mlnb.BayesianGaussianNB(alpha=2.0), tied, True),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models", nargs="+", default=["multinomial", "bernoulli", "bayesian_multinomial"]
    )
    parser.add_argument("--grid", type=int, default=16, help="number of grid values")
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args()

    train, _ = load_text_corpus("20ng", variant="stemmed")
    counts = word_counter().fit_transform(train.documents)
    tfidf = LogTfidfTransformer().fit_transform(counts)
    y = train.labels
    cv = StratifiedKFold(args.folds)
    print(
        f"20 Newsgroups (stemmed) training set: {counts.shape[0]} documents, "
        f"{counts.shape[1]} words; {args.grid}-value grid, {args.folds}-fold CV, macro F1"
    )
    print(
        f"{'model':<22} {'GridSearchCV s':>14} {'fold subtraction s':>18} {'speed-up':>9}"
        f" {'max |score diff|':>16}  best"
    )
    for name in args.models:
        model, grid, use_tfidf = grids(args.grid)[name]
        X = tfidf if use_tfidf else counts
        reference_search = GridSearchCV(model, grid, cv=cv, scoring="f1_macro")
        t_sklearn, reference = best_time(partial(reference_search.fit, X, y), args.repeat)[:2]
        our_search = FoldSubtractionSearchCV(model, grid, cv=cv, scoring="f1_macro")
        t_ours, ours = best_time(partial(our_search.fit, X, y), args.repeat)[:2]
        diff = np.abs(
            ours.cv_results_["mean_test_score"] - reference.cv_results_["mean_test_score"]
        ).max()
        print(
            f"{name:<22} {t_sklearn:14.2f} {t_ours:18.2f} {t_sklearn / t_ours:8.1f}x"
            f" {diff:16.1e}  {ours.best_params_} F1={ours.best_score_:.4f}"
        )


if __name__ == "__main__":
    main()
