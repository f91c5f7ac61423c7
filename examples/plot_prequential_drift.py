"""
Forgetting on a drifting stream
===============================

A stream whose label dependence and feature model change halfway
(``make_multilabel(drift_at=...)``), learnt batch by batch and evaluated prequentially
(each batch predicted before it is learnt). A classifier chain that keeps every batch
recovers slowly after the drift; a sliding window of ten batches, or an exponential decay
of 0.9 per batch, recovers within about ten batches.
"""

from mlnb import ClassifierChain
from mlnb.datasets import make_multilabel
from mlnb.evaluation import plot_prequential, prequential
from mlnb.forgetting import ExponentialForgetting, SlidingWindow

X, Y = make_multilabel(
    6000,
    10,
    6,
    cardinality=2.0,
    label_dependence=0.8,
    separation=1.5,
    drift_at=3000,
    random_state=0,
)
batches = [(X[i : i + 100], Y[i : i + 100]) for i in range(0, 6000, 100)]
models = {
    "no forgetting": ClassifierChain(),
    "window of 10 batches": SlidingWindow(ClassifierChain(), window=10),
    "decay 0.9 per batch": ExponentialForgetting(ClassifierChain(), decay=0.9),
}
results = {name: prequential(model, batches, window=5) for name, model in models.items()}
for name, result in results.items():
    print(f"{name}: example-F1 loss over the stream {result.final()['example_f1_loss']:.3f}")

figure = plot_prequential(results, None, criteria=["example_f1_loss", "micro_f1_loss"])
