"""
NaiBX: the size of a label set, then its labels
===============================================

NaiBX (Petrovskiy and Glazkova) first predicts how many labels a row has, then which ones.
On generated data with a known cardinality, the distribution of its predicted set sizes is
compared with the true one and with binary relevance's, which decides every label alone
and has no notion of a set's size.
"""

import matplotlib.pyplot as plt
import numpy as np

from mlnb import BinaryRelevance, NaiBX
from mlnb.datasets import make_multilabel

X, Y = make_multilabel(
    4000, 20, 8, cardinality=2.5, label_dependence=0.5, separation=0.8, random_state=0
)
train, test = slice(0, 3000), slice(3000, None)
naibx = NaiBX().fit(X[train], Y[train])
br = BinaryRelevance().fit(X[train], Y[train])

sizes = {
    "truth": Y[test].sum(axis=1),
    "NaiBX": naibx.predict(X[test]).sum(axis=1),
    "binary relevance": br.predict(X[test]).sum(axis=1),
}
bins = np.arange(0, 9)
fig, ax = plt.subplots(figsize=(6, 3.5))
for offset, (name, size) in zip((-0.27, 0.0, 0.27), sizes.items(), strict=True):
    share = np.bincount(size, minlength=bins.size)[: bins.size] / size.size
    ax.bar(bins + offset, share, width=0.27, label=name)
    print(f"{name}: mean size {size.mean():.2f}")
ax.set_xlabel("labels in the set")
ax.set_ylabel("share of test rows")
ax.set_xticks(bins)
ax.legend()
ax.set_title("Predicted label-set sizes")
fig.tight_layout()
