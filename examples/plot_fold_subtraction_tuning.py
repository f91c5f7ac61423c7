"""
Tuning by fold subtraction: every fold's model without refitting
================================================================

Each cross-validation fold's Naive Bayes model is the total statistics minus the fold's,
so a grid search over the smoothing needs one pass over the data, whatever the number of
folds and values. ``FoldSubtractionSearchCV`` gives the scores of scikit-learn's
``GridSearchCV`` (compared below) at a fraction of the time; the curve is the 10-fold
macro F1 of multinomial Naive Bayes against its smoothing on generated documents (30
words on average, drawn mostly from a background vocabulary of 3000 words, 5 % from one of
four topics): at the default smoothing, alpha = 1, the score is a fifth lower than at the
best.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import GridSearchCV

from mlnb import MultinomialNB
from mlnb.selection import FoldSubtractionSearchCV

rng = np.random.default_rng(0)
background = rng.dirichlet(np.full(3000, 0.1))
topics = rng.dirichlet(np.full(3000, 0.02), size=4)
y = rng.integers(0, 4, 800)
words = 0.95 * background + 0.05 * topics[y]
X = np.stack([rng.multinomial(rng.poisson(30), p) for p in words])
grid = {"alpha": 2.0 ** np.arange(-10, 5)}

start = time.perf_counter()
fast = FoldSubtractionSearchCV(MultinomialNB(), grid, scoring="f1_macro", cv=10).fit(X, y)
fast_seconds = time.perf_counter() - start
start = time.perf_counter()
slow = GridSearchCV(MultinomialNB(), grid, scoring="f1_macro", cv=10).fit(X, y)
slow_seconds = time.perf_counter() - start
gap = np.abs(fast.cv_results_["mean_test_score"] - slow.cv_results_["mean_test_score"]).max()
print(f"fold subtraction {fast_seconds:.2f} s, GridSearchCV {slow_seconds:.2f} s")
print(f"best alpha {fast.best_params_['alpha']:g}; largest score difference {gap:.1e}")

fig, ax = plt.subplots(figsize=(6, 3.5))
mean, std = fast.cv_results_["mean_test_score"], fast.cv_results_["std_test_score"]
ax.errorbar(grid["alpha"], mean, yerr=std, marker="o", capsize=3)
ax.set_xscale("log", base=2)
ax.set_xlabel("alpha (smoothing)")
ax.set_ylabel("10-fold macro F1")
ax.set_title(
    f"{len(grid['alpha'])} values x 10 folds: {fast_seconds:.2f} s ({slow_seconds:.2f} s refitting)"
)
fig.tight_layout()
