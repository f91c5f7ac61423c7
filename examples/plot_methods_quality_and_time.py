"""
Multi-label methods: quality against training time
===================================================

Every multi-label Naive Bayes method of mlnb on one generated bag-of-words data set with
dependent labels: test micro F1 against the wall time of ``fit`` plus ``predict``. The
one-pass methods (binary relevance, chains, NaiBX, iMLNB, label powerset and the ensembles,
all from the statistics of one pass) take milliseconds; the dynamic chain ensemble pays for
its per-instance orders, undersampling and feature selection.
"""

import time

import matplotlib.pyplot as plt

from mlnb import (
    IMLNB,
    BinaryRelevance,
    ClassifierChain,
    DynamicChain,
    DynamicChainEnsemble,
    EnsembleClassifierChains,
    LabelPowerset,
    NaiBX,
)
from mlnb.datasets import make_multilabel
from mlnb.metrics import f1_score

X, Y = make_multilabel(
    3000,
    300,
    8,
    cardinality=2.0,
    label_dependence=0.7,
    features="counts",
    doc_length=60,
    separation=0.5,
    hidden_labels=2,
    random_state=0,
)
train, test = slice(0, 2000), slice(2000, None)
events = "multinomial"
methods = {
    "BR": BinaryRelevance(events=events),
    "CC": ClassifierChain(events=events),
    "ECC(10)": EnsembleClassifierChains(events=events, n_chains=10, random_state=0),
    "NaiBX": NaiBX(events=events),
    "iMLNB": IMLNB(events=events),
    "LP": LabelPowerset(events=events),
    "DC": DynamicChain(events=events, random_state=0),
    "DCE(10)": DynamicChainEnsemble(events=events, n_chains=10, random_state=0),
}
results = {}
for name, model in methods.items():
    start = time.perf_counter()
    predicted = model.fit(X[train], Y[train]).predict(X[test])
    seconds = time.perf_counter() - start
    results[name] = (seconds, f1_score(Y[test], predicted, average="micro"))
    print(f"{name:>8}: micro F1 {results[name][1]:.3f} in {seconds:.3f} s")

# a legend, not labels beside the points, and hollow markers of different shapes: methods
# of about the same time and F1 (BR and iMLNB, often) would print their labels over each
# other, and a filled marker would hide the other
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
for (name, (seconds, micro)), marker in zip(results.items(), "osD^vPhX", strict=True):
    ax.plot(seconds, micro, marker, markersize=9, markeredgewidth=1.5, fillstyle="none", label=name)
ax.margins(0.08)
ax.set_xscale("log")
ax.set_xlabel("fit + predict, wall seconds (log scale)")
ax.set_ylabel("test micro F1")
ax.set_title("3000 documents, 300 words, 8 dependent labels")
ax.grid(alpha=0.3)
ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
