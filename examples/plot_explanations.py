"""
Why a label was predicted: the words behind a diagnosis code
============================================================

A Naive Bayes label's log-odds is a sum over the features: ``explain`` splits each row's
log-odds into a baseline (the prior and every feature at zero), one contribution per
feature and what is left (0 for binary relevance with a model that sums over features),
and ``top_features`` lists the features that raise and lower a label most. On the medical
data set (radiology reports as word counts, from the benchmark data beside the repository,
``../shared/data``), the ARFF attribute names are the words, so both read as text: the
left panel shows the words that tell one diagnosis code, the right one why a test report
was given it.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from mlnb import BinaryRelevance
from mlnb.datasets import load_dataset

train, test = load_dataset("medical", split="train_test")
labels = pd.DataFrame(train.Y, columns=train.label_names)  # fit records the names
model = BinaryRelevance(events="multinomial", rule="predict").fit(train.X, labels)
words = train.feature_names
label = "Class-4-753_0"

top = model.top_features(label, k=6, feature_names=words)
print(top)

why = model.explain(test.X, label, feature_names=words)
row = int(np.argmax(why.log_odds))  # the test report the model finds likeliest
print(
    f"row {row}: log-odds {why.log_odds[row]:+.3f} = baseline {why.baseline[row]:+.3f}"
    f" + features {why.contributions[row].sum():+.3f} + rest {why.rest[row]:+.3f}"
)
print(why.top(row, k=6))

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
weights = top.raising + top.lowering[::-1]
left.barh(
    [name for name, _ in weights],
    [value for _, value in weights],
    color=["tab:green" if value > 0 else "tab:red" for _, value in weights],
)
left.invert_yaxis()
left.axvline(0, color="black", linewidth=0.8)
left.set_xlabel("log-odds added by one occurrence")
left.set_title(f"{label}: the words that tell it")

row_top = why.top(row, k=6)
parts = row_top.raising + row_top.lowering[::-1]
right.barh(
    ["baseline", *[name for name, _ in parts]],
    [why.baseline[row], *[value for _, value in parts]],
    color=["tab:gray"] + ["tab:green" if value > 0 else "tab:red" for _, value in parts],
)
right.invert_yaxis()
right.axvline(0, color="black", linewidth=0.8)
right.set_xlabel("contribution to the log-odds")
right.set_title(f"test report {row}: log-odds {why.log_odds[row]:+.2f}")
fig.tight_layout()
