"""The NaiBX paper's published numbers (for experiments/naibx_paper.py).

Source: Mossina and Rachelson, "Naive Bayes Classification for Subset Selection" (the
ICPRAI 2018 short paper, as published with the authors' C++ implementation), Table IV
(NaiBX, and ECC and RAkEL run in MEKA with an SVM base classifier and default parameters)
and Table V (NBX-TrueM: NaiBX given the true size of each label set). Typed from the PDF
and checked cell by cell against a text extraction of it, for the seven sets of Table IV
that the shared data holds (CAL500, Mediamill and NUS-WIDE are not there).

Columns: dCard = predicted minus true label cardinality; Hs = 1 - Hamming loss; Zs = exact
match; Acc, Pre, Rec = example-based Jaccard, precision, recall (section IV.A). Values are
as printed (three decimals; RAkEL's bibtex dCard and ECC's enron dCard have two). Protocol:
10-fold cross-validation, bibtex one 66 % / 34 % split ("CV 66%").
"""

from __future__ import annotations

#: The paper's names of our data sets (registry name -> Table IV name).
PAPER_NAMES = {
    "emotions": "Emotions",
    "scene": "Scene",
    "yeast": "Yeast",
    "bibtex": "Bibtex",
    "enron": "Enron",
    "langlog": "LLog",
    "slashdot": "SlashDot",
}

#: The columns of the published tables, in order.
PUBLISHED_METRICS = ("dCard", "Hs", "Zs", "Acc", "Pre", "Rec")

# Table IV, one row per set and method: dCard Hs Zs Acc Pre Rec (train and predict seconds
# left out). "(1)": the paper's note "most of the predictions were empty sets".
_TABLE_IV = """
Emotions  ECC     0.066  0.806 0.320 0.578 0.682 0.706
Emotions  RAkEL   0.377  0.795 0.317 0.592 0.642 0.771
Emotions  NaiBX   0.079  0.771 0.275 0.528 0.639 0.648
Scene     ECC    -0.061  0.906 0.642 0.694 0.752 0.710
Scene     RAkEL   0.295  0.885 0.538 0.684 0.640 0.816
Scene     NaiBX   0.334  0.866 0.453 0.623 0.631 0.784
Yeast     ECC    -0.288  0.799 0.203 0.536 0.680 0.633
Yeast     RAkEL   0.007  0.796 0.180 0.541 0.663 0.664
Yeast     NaiBX   0.314  0.705 0.115 0.405 0.541 0.555
Bibtex    ECC     0.063  0.982 0.148 0.348 0.426 0.451
Bibtex    RAkEL  -1.28   0.984 0.022 0.050 0.369 0.043
Bibtex    NaiBX  -1.122  0.984 0.147 0.278 0.461 0.301
Enron     ECC    -0.42   0.947 0.143 0.448 0.600 0.525
Enron     RAkEL  -0.326  0.938 0.068 0.354 0.512 0.463
Enron     NaiBX  -0.109  0.923 0.016 0.267 0.397 0.431
LLog      ECC    -0.824  0.984 0.234 0.265 0.473 0.143
LLog      RAkEL  -0.501  0.981 0.221 0.268 0.293 0.168
LLog      NaiBX  -0.321  0.984 0.420 0.341 0.422 0.341
SlashDot  ECC    -0.240  0.957 0.411 0.489 0.629 0.502
SlashDot  RAkEL  -0.476  0.946 0.191 0.257 0.490 0.293
SlashDot  NaiBX  -0.276  0.961 0.424 0.497 0.535 0.533
"""

# Table V, the NBX-TrueM rows: Hs Zs Acc Pre Rec (dCard is 0 by construction, printed "-").
_TABLE_V = """
Emotions  0.814 0.526 0.623 0.669 0.669
Scene     0.903 0.712 0.721 0.725 0.725
Yeast     0.757 0.218 0.481 0.579 0.579
Bibtex    0.983 0.212 0.346 0.406 0.406
Enron     0.928 0.134 0.357 0.460 0.460
LLog      0.983 0.479 0.375 0.392 0.392
SlashDot  0.970 0.680 0.702 0.713 0.713
"""

#: Table IV rows whose predictions were mostly empty sets (the paper's note).
MOSTLY_EMPTY = {("langlog", "ECC")}


def published():
    """``{(registry name, method): {metric: value}}``; methods "NaiBX", "NaiBX-TrueM",
    "ECC", "RAkEL" (the paper's names; the TrueM rows have no dCard)."""
    ours = {paper: name for name, paper in PAPER_NAMES.items()}
    table = {}
    for line in _TABLE_IV.strip().splitlines():
        paper, method, *values = line.split()
        table[ours[paper], method] = dict(zip(PUBLISHED_METRICS, map(float, values), strict=True))
    for line in _TABLE_V.strip().splitlines():
        paper, *values = line.split()
        table[ours[paper], "NaiBX-TrueM"] = dict(
            zip(PUBLISHED_METRICS[1:], map(float, values), strict=True)
        )
    return table
