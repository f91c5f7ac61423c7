"""
Bayesian against classical Gaussian Naive Bayes on few examples
===============================================================

With five examples per class, the classical Gaussian model plugs in the sample mean and
variance; the fully Bayesian one integrates over them (a Normal-inverse-gamma prior), so
its class-conditional density is the posterior predictive Student t: heavier tails, and
class probabilities that stay less certain far from the data. With more examples the two
agree.
"""

import matplotlib.pyplot as plt
import numpy as np

from mlnb import BayesianGaussianNB, GaussianNB

rng = np.random.default_rng(1)
grid = np.linspace(-6, 8, 400)[:, None]
fig, axes = plt.subplots(1, 2, figsize=(9, 3.5), sharey=True)
for ax, n in zip(axes, (5, 200), strict=True):
    X = np.concatenate([rng.normal(0, 1, n), rng.normal(2.5, 1, n)])[:, None]
    y = np.repeat([0, 1], n)
    for model, style in ((GaussianNB(), "-"), (BayesianGaussianNB(), "--")):
        proba = model.fit(X, y).predict_proba(grid)[:, 1]
        ax.plot(grid[:, 0], proba, style, label=type(model).__name__)
    ax.plot(X[y == 0, 0], np.zeros(n), "|", color="C2", markersize=12)
    ax.plot(X[y == 1, 0], np.ones(n), "|", color="C3", markersize=12)
    ax.set_title(f"{n} examples per class")
    ax.set_xlabel("x")
axes[0].set_ylabel("P(class 1 | x)")
axes[0].legend(loc="center left")
fig.tight_layout()
