"""
Comparing methods over data sets: a critical-difference diagram
===============================================================

Four multi-label Naive Bayes methods (the chain also with its event model, smoothing and
decision rule chosen by cross-validation) on eight generated data sets of growing label
dependence, each scored by micro F1 on a held-out part. ``compare`` ranks the methods per
data set, runs the Friedman test and Nemenyi's post-hoc test (Demsar 2006); the diagram
places each method at its average rank and joins the methods the test does not separate.
"""

import pandas as pd

from mlnb import BinaryRelevance, ClassifierChain, NaiBX, TunedThresholdsCV
from mlnb.datasets import make_multilabel
from mlnb.evaluation import compare
from mlnb.metrics import f1_score

methods = {
    "BR": lambda: BinaryRelevance(),
    "CC": lambda: ClassifierChain(),
    "NaiBX": lambda: NaiBX(),
    "CC tuned": lambda: TunedThresholdsCV(ClassifierChain(), param_grid="auto"),
}
scores = {}
for k, dependence in enumerate([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]):
    X, Y = make_multilabel(
        1500, 15, 6, label_dependence=dependence, hidden_labels=2, random_state=k
    )
    name = f"r={dependence:.1f}"
    scores[name] = {
        method: f1_score(
            Y[1000:], make().fit(X[:1000], Y[:1000]).predict(X[1000:]), average="micro"
        )
        for method, make in methods.items()
    }
table = pd.DataFrame(scores)  # methods x data sets
print(table.round(3))

comparison = compare(table, greater_is_better=True, criterion="micro_f1")
print(comparison["micro_f1"].ranks.round(2))
figure = comparison.plot_critical_difference(None, criterion="micro_f1")
