# ruff: noqa: E501  (the paper's tables keep one text row per data set / statistic)
"""Table 2 of the dynamic-chains paper rerun: BR ensembles against CC ensembles, 4 base learners.

Trajdos and Kurzynski, "Dynamic classifier chains for multi-label learning", section 3,
section 4.1, Table 2 (ranks, Friedman and Wilcoxon-Holm p-values) and Tables 5-7 (full
results). Issue #8. One command::

    python experiments/dynamic_chains_table2.py                      # all 19 sets, 10 folds
    python experiments/dynamic_chains_table2.py --quick              # smoke run (3 folds, 2 sets, /tmp)
    python experiments/dynamic_chains_table2.py --self-check         # J48 pruning, SVM tuning checks
    python experiments/dynamic_chains_table2.py --datasets emotions,sf2 --bases NB,kNN
    python experiments/dynamic_chains_table2.py --datasets yeast --folds 3
    python experiments/dynamic_chains_table2.py --budget-minutes 30  # start no fit after 30 min
    python experiments/dynamic_chains_table2.py --report-only

Methods, numbered as the paper's algorithms 1-8 (K = 20 members each, 66 % samples drawn
without replacement, answer ``[mean_k h_k(x) > 0.5]``, eq. 22):

1. ``BR-J48``  bagged binary relevance of ``J48`` (``_dynamic_chains_table2_bases``): an
   sklearn entropy tree with 2 rows per leaf, then Weka's J48 pruning (collapse, C4.5's
   error-based pruning at CF = 0.25, subtree raising);
2. ``CC-J48``  ``EnsembleClassifierChains(n_chains=20, base_estimator=<that J48>)``;
3. ``BR-SVM``  ``TunedSVMEnsemble(chain=False)``: K BR models of RBF SVMs, label j's (C,
   gamma) chosen by 3-fold CV accuracy on the training fold over the paper's grid (C in
   {0.001, 1, ..., 10}, gamma in {0.001, 1, ..., 5});
4. ``CC-SVM``  ``TunedSVMEnsemble(chain=True)``: K chains of those SVMs (same choice);
5. ``BR-NB``   ``BaggedBinaryRelevance(n_estimators=20)`` (Gaussian Naive Bayes, mlnb's fast path);
6. ``CC-NB``   ``EnsembleClassifierChains(n_chains=20)`` (Gaussian NB fast path);
7. ``BR-kNN``  bagged BR of sklearn ``KNeighborsClassifier`` (R in 1, 3, ..., 11 by the same
   3-fold CV as mlnb's kNN ensembles, ``choose_neighbours``);
8. ``CC-kNN``  ``DynamicChainEnsemble(base="knn", order="random", max_imbalance=None,
   feature_selection=None)``: an ECC of kNN chains (eq. 10-11).

The BR ensembles of J48 and NB are ``mlnb.BaggedBinaryRelevance``, which draws its samples
with ``EnsembleClassifierChains``'s code, so with the same seed member k sees the rows of
chain k; ``TunedSVMEnsemble`` draws its samples and orders with the same code, and
``BaggedKNNBR`` below does the same for the kNN ensemble, drawing its random numbers in
``DynamicChainEnsemble(base="knn")``'s order (R's folds, then per member its sample and its
order). The SVM ensembles of a fold share one grid search (``score_fold``).

What runs: shuffled K-fold CV (seed 0, the folds of ``experiments/dynamic_chains_paper.py``);
numeric features standardised on each training fold (divided by their standard deviation:
centring changes none of the four learners and would densify sparse sets); every fold's 11
losses and times go to ``docs/experiments/dynamic_chains_table2_folds.csv`` at once, and a rerun
skips the (data set, method, fold, n_folds) rows already there. The report
``docs/experiments/dynamic_chains_table2.md`` gives average ranks, Friedman and Holm-corrected
Wilcoxon p-values (alpha = 0.1, all 28 pairs, as Table 2) beside Table 2 and beside the ranks
of the paper's own Tables 5-7 on our sets; a hand-written part after ``<!-- discussion -->``
is kept. Data sets: ``experiments/_dynamic_chains_shared.py``'s ``load`` (imported). A run
first runs ``_dynamic_chains_table2_bases.self_check`` (hand cases of the pruning, the SVM
choice against ``GridSearchCV``; a few seconds).
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # multithreaded BLAS is 10x slower on the busy box

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402

import _dynamic_chains_shared as dcp  # noqa: E402  (the paper's sets, report writing)
import _dynamic_chains_table2_bases as bases  # noqa: E402  (J48 pruning, the tuned SVM)
import dynamic_chains_paper_values as paper_values  # noqa: E402  (Table 1, paper set names)
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from _harness import ALPHA, FOLDS, OUT, SEED  # noqa: E402
from scipy.stats import binomtest, rankdata, wilcoxon  # noqa: E402
from sklearn.base import BaseEstimator  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils import check_random_state  # noqa: E402

from mlnb import BaggedBinaryRelevance, DynamicChainEnsemble, EnsembleClassifierChains  # noqa: E402
from mlnb.evaluation import compare, fit_and_score, run_folds  # noqa: E402
from mlnb.metrics import METRIC_SETS, METRICS  # noqa: E402
from mlnb.multilabel import choose_neighbours  # noqa: E402  (R as mlnb's kNN ensembles)

PREFIX = "dynamic_chains_table2"
K = 20
FRACTION = 0.66
CRITERIA = list(METRIC_SETS["dynamic_chains"])
TIMES = ["train_time", "test_time"]
DENSE_ABOVE = 0.3  # a sparse set with more non-zeros than this share is made dense (SVC, trees)

#: our data sets in the order runs take them (increasing measured cost of J48 + tuned SVM)
DATASETS = [
    "flags",
    "sf2",
    "emotions",
    "plantpseaac",
    "genbase",
    "birds",
    "water-quality",
    "medical",
    "miml_image",
    "stackex_chess",
    "scene",
    "yeast",
    "tmc2007",
    "enron",
    "langlog",
    "slashdot",
    "meka_imdb",
    "yahoo_arts",
    "ohsumed",
]
QUICK_DATASETS = ["sf2", "emotions"]

BASES = ["J48", "SVM", "NB", "kNN"]
#: the paper's algorithm numbers 1-8
METHODS = [f"{kind}-{base}" for base in BASES for kind in ("BR", "CC")]
NUMBER = {m: i for i, m in enumerate(METHODS, start=1)}

J48_NOTE = (
    "Weka's J48 defaults (`-C 0.25 -M 2`) as far as sklearn's trees allow "
    "(`_dynamic_chains_table2_bases.J48`): an sklearn "
    '`DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2)` is grown, then pruned '
    "as J48 prunes, ported from Weka's `C45PruneableClassifierTree`: collapse (a subtree with "
    "no fewer training errors than its root as a leaf becomes a leaf), then C4.5's "
    "error-based pruning bottom-up with confidence factor 0.25 (a node's estimated errors as a "
    "leaf, `e + addErrs(N, e, 0.25)`, the upper confidence bound of the binomial error, "
    "against the sum over its leaves and against its largest branch on all its rows; leaf if "
    "not worse by more than 0.1) and subtree raising (the largest branch replaces the node if "
    "not worse than the subtree by more than 0.1; the rows re-routed, pruned again). Still "
    "sklearn's: information gain rather than gain ratio (and no MDL correction of numeric "
    "splits), binary splits at midpoints, and J48's -M 2 read as 2 rows per leaf"
)
SVM_NOTE = (
    "RBF SVMs (libsvm, as the paper's CC01a), C and gamma chosen per label on the training "
    "fold by stratified 3-fold CV accuracy over the paper's grid, C in {0.001, 1, 2, ..., 10} "
    "x gamma in {0.001, 1, 2, ..., 5} (66 pairs; the first best in `GridSearchCV`'s order, "
    "smallest C then smallest gamma, on ties), then every member's SVM for that label uses "
    "that pair (`_dynamic_chains_table2_bases.TunedSVMEnsemble`). The paper says only "
    "'tuned using grid search and 3-fold cross validation'; it does not name the CV "
    "criterion (we use accuracy, as libsvm's grid.py) nor say whether it tuned per member; "
    "we tune once per label and fold on the BR problem (features only) and reuse the pair in "
    "the chains' members, whose inputs add the earlier labels. The SVMs use precomputed "
    'kernels from one distance matrix per fold (identical models to `SVC(kernel="rbf")`, '
    "checked), and a grid fit whose multipliers all stay below C stands for every larger C "
    "(the bound is inactive: same solution), which makes the search 2-4 times cheaper"
)


# ---- the kNN BR ensemble (mlnb's kNN members are chains) --------------------------------------
class BaggedKNNBR(BaseEstimator):
    """K binary-relevance kNN models (sklearn, all labels share the R neighbours), 66 % samples.

    Features scaled by their standard deviation and R chosen in 1, 3, ..., 11 by mlnb's
    ``choose_neighbours`` (3-fold CV of BR kNN on example F1), as
    ``DynamicChainEnsemble(base="knn")`` does; random numbers drawn in that estimator's order
    (R's folds, then per member its sample and its order), so with the same seed R and the
    members' rows equal those of ``CC-kNN``: the members differ only by the chaining.
    """

    def __init__(self, n_models=K, sample_fraction=FRACTION, random_state=None):
        self.n_models = n_models
        self.sample_fraction = sample_fraction
        self.random_state = random_state

    def fit(self, X, Y):
        rng = check_random_state(self.random_state)
        n, n_labels = Y.shape
        self.scaler_ = StandardScaler(with_mean=False).fit(X)
        X = self.scaler_.transform(X)
        self.n_neighbors_ = choose_neighbours(X, Y, rng)
        size = round(self.sample_fraction * n)
        self.estimators_ = []
        for _ in range(self.n_models):
            rows = np.arange(n)
            if size < n:
                rows = np.sort(rng.choice(n, max(size, 1), replace=False))
            rng.permutation(n_labels)  # CC-kNN's member order: drawn only to keep the samples
            model = KNeighborsClassifier(
                n_neighbors=min(self.n_neighbors_, len(rows)), algorithm="brute"
            )
            self.estimators_.append(model.fit(X[rows], Y[rows]))
        return self

    def predict(self, X):
        X = self.scaler_.transform(X)
        votes = sum(np.asarray(m.predict(X), dtype=float) for m in self.estimators_)
        return (votes / len(self.estimators_) > 0.5).astype(int)


def bagged_br(seed, base_estimator=None):
    """K binary-relevance models on the samples of the paired ECC's K chains (same seed);
    Gaussian Naive Bayes members (the paper's) when no base estimator is given."""
    return BaggedBinaryRelevance(
        n_estimators=K,
        sample_fraction=FRACTION,
        base_estimator=base_estimator,
        random_state=seed,
        events="gaussian",
        rule="predict",  # the paper's vote at 0.5
    )


def j48(seed):
    """Weka's J48 as far as sklearn allows: an entropy tree, 2 rows per leaf, C4.5's
    collapse and error-based pruning at CF = 0.25 with subtree raising."""
    return bases.J48(confidence=0.25, min_leaf=2, raising=True, random_state=seed)


def tuned_svm(seed, chain):
    """K RBF SVMs per label (BR) or K chains of them (CC), each label's (C, gamma) chosen
    by 3-fold CV on the training fold over the paper's grid; the samples and orders of
    mlnb's ensembles with the same seed."""
    return bases.TunedSVMEnsemble(
        chain=chain, n_models=K, sample_fraction=FRACTION, cv=3, random_state=seed
    )


def make_method(name, seed):
    """A fresh estimator for one of the 8 methods; ``seed`` = SEED + fold."""
    makers = {
        "BR-J48": lambda: bagged_br(seed, j48(seed)),
        "CC-J48": lambda: EnsembleClassifierChains(
            n_chains=K,
            sample_fraction=FRACTION,
            base_estimator=j48(seed),
            rule="predict",
            random_state=seed,
        ),
        "BR-SVM": lambda: tuned_svm(seed, chain=False),
        "CC-SVM": lambda: tuned_svm(seed, chain=True),
        "BR-NB": lambda: bagged_br(seed),
        "CC-NB": lambda: EnsembleClassifierChains(
            n_chains=K,
            sample_fraction=FRACTION,
            random_state=seed,
            events="gaussian",
            rule="predict",
        ),
        "BR-kNN": lambda: BaggedKNNBR(random_state=seed),
        "CC-kNN": lambda: DynamicChainEnsemble(
            n_chains=K,
            base="knn",
            order="random",
            sample_fraction=FRACTION,
            max_imbalance=None,
            feature_selection=None,
            rule="predict",
            random_state=seed,
        ),
    }
    return makers[name]()


DESCRIPTIONS = {
    "BR-J48": "BaggedBinaryRelevance(base_estimator=J48()), K = 20 (J48: sklearn tree + C4.5 pruning)",
    "CC-J48": "EnsembleClassifierChains(n_chains=20, base_estimator=J48())",
    "BR-SVM": "TunedSVMEnsemble(chain=False): 20 BR members, RBF SVC, (C, gamma) per label by 3-fold CV",
    "CC-SVM": "TunedSVMEnsemble(chain=True): 20 chains, same SVMs and (C, gamma)",
    "BR-NB": "BaggedBinaryRelevance(), Gaussian NB, K = 20",
    "CC-NB": "EnsembleClassifierChains(n_chains=20), Gaussian NB fast path",
    "BR-kNN": "BaggedKNNBR: 20 sklearn KNeighborsClassifier BR models, R by choose_neighbours",
    "CC-kNN": 'DynamicChainEnsemble(base="knn", order="random", max_imbalance=None, feature_selection=None)',
}


# ---- running ------------------------------------------------------------------------------
COLUMNS = [*CRITERIA, *TIMES, "n_train", "n_test", "info"]  # after dataset, method, fold


def load(name, data_dir=None):
    """``(X, Y)`` of our version of a paper set (``dynamic_chains_paper.load``); a sparse X
    with more than ``DENSE_ABOVE`` non-zeros made dense (faster SVC and trees)."""
    X, Y = dcp.load(name, data_dir)
    if sp.issparse(X) and X.nnz > DENSE_ABOVE * X.shape[0] * X.shape[1]:
        X = X.toarray()
    return X, Y


#: (data set, fold, training rows) -> (per-label (C, gamma), seconds the choice took): the
#: BR and CC SVM ensembles of a fold share one grid search (same rows, same CV seed)
_SVM_CHOICES = {}


def score_fold(method, X, Y, train, test, fold, dataset=None):
    """Fit and score one method on one fold, the features scaled on its training rows.

    The SVM ensembles of a fold choose (C, gamma) once: the second one reuses the first's
    choice and has the first's tuning seconds added to its train_time, so both times
    include the grid search."""
    scaler = StandardScaler(with_mean=False).fit(X[train])
    X = scaler.transform(X)  # the training rows' scale on every row
    model = make_method(method, SEED + fold)
    key = (dataset, fold, len(train), int(np.sum(train)))
    reused = None
    if isinstance(model, bases.TunedSVMEnsemble) and key in _SVM_CHOICES:
        reused = _SVM_CHOICES[key]
        model.set_params(params=reused[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = fit_and_score(model, X, Y, train, test, {c: METRICS[c] for c in CRITERIA})
    if isinstance(model, bases.TunedSVMEnsemble):
        if reused is None:
            _SVM_CHOICES[key] = (model.params_, model.tuning_seconds_)
        else:
            row["train_time"] += reused[1]
    return {**row, "info": fold_info(model)}


def _trees(model):
    """The J48 members of a fitted BR or CC ensemble."""
    for member in getattr(model, "estimators_", []):
        for tree in getattr(member, "estimators_", []):
            if isinstance(tree, bases.J48):
                yield tree


def fold_info(model):
    """What a fold's model chose: kNN's R, the SVMs' (C, gamma) counts over the labels,
    the J48 members' mean leaves grown -> pruned."""
    if hasattr(model, "n_neighbors_"):
        return f"R={model.n_neighbors_}"
    if isinstance(model, bases.TunedSVMEnsemble):
        return model.summary()
    leaves = [(t.n_leaves_grown_, t.n_leaves_) for t in _trees(model)]
    if leaves:
        grown, pruned = np.mean(leaves, axis=0)
        return f"leaves {grown:.1f} -> {pruned:.1f}"
    return ""


def run(datasets, methods, folds_csv, *, n_folds, data_dir, deadline, log):
    """Every (data set, method, fold) not yet in ``folds_csv`` (``mlnb.evaluation.run_folds``):
    data sets in the given order, within one method by method; no fit starts after
    ``deadline`` (a ``time.time()`` value, or None). Returns the failures."""
    return run_folds(
        datasets,
        methods,
        folds_csv,
        load=lambda name: load(name, data_dir),
        score=score_fold,
        columns=COLUMNS,
        n_folds=n_folds,
        seed=SEED,
        deadline=deadline,
        log=log,
    )


# ---- the paper's numbers ------------------------------------------------------------------
_FULL_LAYOUT = {
    "TABLE_5": ("example_fdr", "example_fnr", "example_f1_loss"),
    "TABLE_6": ("macro_fdr", "macro_fnr", "macro_f1_loss", "hamming"),
    "TABLE_7": ("micro_fdr", "micro_fnr", "micro_f1_loss", "zero_one"),
}


def table_2():
    """``{criterion: {"ranks": (r1..r8), "friedman_p": p, "wilcoxon_holm_p": {(i, j): p}}}``."""
    # a "-" above the diagonal would be a layout error here
    return paper_values.parse_statistics(TABLE_2, 8, missing_ok=False)


def full_results():
    """Tables 5-7: ``{criterion: DataFrame (paper number 1-30 x algorithms 1-8)}``."""
    out = {}
    for name, criteria in _FULL_LAYOUT.items():
        out.update(paper_values.parse_full(globals()[name], criteria, 8, name=name))
    return {
        c: pd.DataFrame.from_dict(out[c], orient="index", columns=range(1, 9)).sort_index()
        for c in CRITERIA
    }


def check_transcription():
    """Per criterion: max |Table 2 rank - rank recomputed from Tables 5-7 (30 sets)|."""
    published, full = table_2(), full_results()
    out = {}
    for criterion in CRITERIA:
        ranks = rankdata(full[criterion].to_numpy(), axis=1).mean(axis=0)
        out[criterion] = (
            float(np.abs(ranks - np.array(published[criterion]["ranks"])).max()),
            tuple(float(r) for r in ranks.round(2)),
        )
    return out


#: Table 2, in the paper's layout: blocks of criteria; Rnk = average ranks of algorithms
#: 1-8 per criterion (8 columns each), Frd = the Friedman p-value of each criterion, Wp-i =
#: Holm-corrected Wilcoxon p-value of algorithm i against algorithm j (column j of the
#: criterion; "-" where the table is empty).
TABLE_2 = """
# Hamming | Zero-One | EX FDR | EX FNR
Rnk    4.94  5.03  2.81  3.03  4.72  4.63  5.38  5.47  5.50  5.00  3.30  2.25  5.17  4.16  5.88  4.75  5.64  4.44  3.13  2.66  5.00  4.66  5.61  4.88  5.47  4.66  4.22  3.53  3.97  3.91  5.19  5.06
Frd     .000018   .000000   .000002   .056423
Wp-1      -  1.00  .002  .148  1.00  1.00  1.00  .432     -  .032  .001  .000  1.00  .478  1.00  1.00     -  .070  .001  .001  1.00  .650  1.00  1.00     -  .011  1.00  .009  .205  .054  1.00  1.00
Wp-2      -     -  .000  .025  1.00  1.00  1.00  1.00     -     -  1.00  .001  1.00  1.00  .044  1.00     -     -  .845  .001  1.00  1.00  .056  1.00     -     -  1.00  .223  1.00  1.00  1.00  1.00
Wp-3      -     -     -  1.00  .014  .022  .000  .000     -     -     -  .032  .005  .627  .001  .597     -     -     -  1.00  .002  .097  .001  .573     -     -     -  .937  1.00  1.00  1.00  1.00
Wp-4      -     -     -     -  .552  .552  .017  .002     -     -     -     -  .000  .004  .000  .002     -     -     -     -  .002  .006  .000  .002     -     -     -     -  1.00  1.00  .169  .113
Wp-5      -     -     -     -     -  1.00  1.00  .591     -     -     -     -     -  .041  1.00  1.00     -     -     -     -     -  1.00  .964  1.00     -     -     -     -     -  1.00  .221  1.00
Wp-6      -     -     -     -     -     -  1.00  1.00     -     -     -     -     -     -  .478  1.00     -     -     -     -     -     -  .666  1.00     -     -     -     -     -     -  .090  .266
Wp-7      -     -     -     -     -     -     -  1.00     -     -     -     -     -     -     -  .220     -     -     -     -     -     -     -  1.00     -     -     -     -     -     -     -  1.00
# EX F1 | Macro FDR | Macro FNR | Macro F1
Rnk    5.72  4.47  4.06  2.53  4.53  4.25  5.63  4.81  4.25  5.50  3.00  4.91  3.97  5.25  4.00  5.13  4.63  4.45  5.20  4.97  4.03  4.78  3.41  4.53  4.81  5.09  4.25  4.84  3.94  5.16  3.41  4.50
Frd    0.000030  0.002491  0.312535  0.224854
Wp-1      -  .005  .041  .000  .200  .072  1.00  1.00     -  .019  .552  1.00  1.00  .390  1.00  .479     -  1.00  1.00  1.00  1.00  1.00  .022  1.00     -  1.00  1.00  1.00  1.00  1.00  .000  1.00
Wp-2      -     -  1.00  .001  1.00  1.00  .189  1.00     -     -  .003  1.00  .697  1.00  .152  1.00     -     -  1.00  1.00  1.00  1.00  .441  1.00     -     -  1.00  1.00  1.00  1.00  .031  1.00
Wp-3      -     -     -  .272  1.00  1.00  .089  1.00     -     -     -  .066  .552  .023  .349  .003     -     -     -  1.00  .077  1.00  .058  1.00     -     -     -  1.00  1.00  1.00  1.00  1.00
Wp-4      -     -     -     -  .014  .007  .000  .005     -     -     -     -  1.00  1.00  1.00  1.00     -     -     -     -  .419  1.00  .501  1.00     -     -     -     -  1.00  1.00  .824  1.00
Wp-5      -     -     -     -     -  1.00  .200  1.00     -     -     -     -     -  .208  1.00  1.00     -     -     -     -     -  .998  1.00  1.00     -     -     -     -     -  .355  1.00  1.00
Wp-6      -     -     -     -     -     -  .090  1.00     -     -     -     -     -     -  .101  1.00     -     -     -     -     -     -  1.00  1.00     -     -     -     -     -     -  .278  1.00
Wp-7      -     -     -     -     -     -     -  1.00     -     -     -     -     -     -     -  .552     -     -     -     -     -     -     -  .143     -     -     -     -     -     -     -  .203
# Micro FDR | Micro FNR | Micro F1
Rnk    4.81  4.84  2.72  3.13  4.81  4.78  5.19  5.72  4.66  4.44  5.31  4.66  4.31  4.66  3.78  4.19  4.56  4.69  4.41  3.75  4.69  5.03  4.25  4.63
Frd    0.000014  0.777721  0.777721
Wp-1      -  1.00  .001  .141  1.00  1.00  1.00  .045     -  1.00  .706  1.00  1.00  1.00  .136  1.00     -  1.00  1.00  1.00  1.00  1.00  1.00  1.00
Wp-2      -     -  .000  .023  1.00  1.00  1.00  .564     -     -  1.00  1.00  1.00  1.00  1.00  1.00     -     -  1.00  1.00  1.00  1.00  1.00  1.00
Wp-3      -     -     -  1.00  .001  .001  .000  .001     -     -     -  1.00  .233  1.00  .215  .132     -     -     -  1.00  1.00  1.00  1.00  1.00
Wp-4      -     -     -     -  .091  .079  .015  .007     -     -     -     -  1.00  1.00  1.00  1.00     -     -     -     -  1.00  1.00  1.00  1.00
Wp-5      -     -     -     -     -  1.00  1.00  1.00     -     -     -     -     -  1.00  1.00  1.00     -     -     -     -     -  1.00  1.00  1.00
Wp-6      -     -     -     -     -     -  1.00  1.00     -     -     -     -     -     -  1.00  1.00     -     -     -     -     -     -  1.00  1.00
Wp-7      -     -     -     -     -     -     -  1.00     -     -     -     -     -     -     -  1.00     -     -     -     -     -     -     -  1.00
"""

#: Table 5 ("example based criteria"; its column header repeats "Macro FDR / Macro FNR /
#: Macro F1" by mistake): No. then example FDR, FNR, F1 loss, algorithms 1-8 each.
TABLE_5 = """
 1 .668 .622 .758 .645 .789 .780 .666 .590 .682 .642 .775 .604 .802 .782 .692 .622 .694 .651 .781 .649 .810 .796 .697 .625
 2 .639 .608 .507 .527 .568 .565 .722 .664 .638 .593 .529 .530 .564 .561 .678 .623 .663 .620 .528 .534 .575 .570 .729 .678
 3 .386 .402 .384 .418 .367 .389 .394 .402 .408 .429 .411 .423 .400 .413 .422 .438 .410 .432 .411 .433 .398 .414 .424 .433
 4 .526 .449 .409 .447 .449 .440 .534 .678 .556 .486 .428 .471 .464 .474 .567 .655 .557 .481 .425 .468 .467 .470 .572 .693
 5 .582 .476 .411 .453 .453 .482 .547 .623 .605 .487 .434 .469 .459 .496 .565 .608 .621 .486 .438 .467 .470 .494 .586 .639
 6 .351 .365 .330 .333 .368 .373 .342 .343 .335 .337 .322 .310 .264 .265 .324 .302 .376 .382 .359 .350 .353 .352 .365 .354
 7 .466 .510 .442 .498 .493 .517 .481 .515 .408 .398 .397 .414 .418 .419 .404 .399 .472 .485 .450 .483 .495 .506 .476 .492
 8 .293 .280 .280 .283 .276 .271 .284 .294 .208 .216 .231 .215 .248 .213 .194 .221 .262 .258 .271 .263 .276 .255 .251 .267
 9 .210 .216 .196 .198 .194 .204 .195 .190 .210 .216 .198 .200 .196 .207 .198 .192 .211 .217 .198 .200 .196 .207 .197 .192
10 .007 .006 .008 .007 .009 .008 .007 .005 .051 .052 .052 .049 .052 .053 .051 .052 .037 .037 .038 .035 .038 .038 .037 .037
11 .617 .543 .532 .528 .552 .556 .693 .598 .628 .550 .549 .548 .565 .581 .677 .601 .640 .561 .553 .551 .568 .577 .714 .609
12 .507 .538 .527 .512 .574 .524 .668 .626 .554 .546 .575 .527 .597 .571 .662 .628 .551 .562 .565 .532 .597 .565 .691 .646
13 .730 .703 .700 .640 .703 .699 .724 .739 .667 .633 .615 .577 .590 .575 .628 .594 .719 .691 .682 .628 .676 .668 .703 .699
14 .416 .405 .380 .336 .530 .524 .411 .393 .427 .431 .400 .378 .239 .264 .411 .425 .439 .434 .410 .374 .453 .454 .430 .424
15 .838 .785 .836 .746 .812 .716 .834 .751 .794 .690 .794 .683 .793 .731 .785 .680 .841 .769 .839 .739 .827 .756 .833 .743
16 .713 .728 .716 .699 .692 .704 .715 .699 .689 .680 .720 .711 .647 .672 .682 .652 .715 .723 .727 .712 .689 .706 .714 .692
17 .258 .244 .259 .228 .266 .262 .256 .232 .213 .227 .211 .235 .220 .239 .211 .233 .255 .249 .254 .243 .262 .266 .252 .245
18 .522 .498 .446 .411 .469 .488 .472 .470 .516 .511 .447 .440 .387 .388 .472 .489 .537 .521 .465 .443 .459 .471 .491 .494
19 .525 .471 .516 .452 .542 .524 .526 .459 .516 .488 .488 .474 .540 .522 .511 .493 .554 .513 .538 .499 .573 .556 .553 .511
20 .800 .761 .783 .727 .774 .751 .806 .757 .693 .604 .706 .605 .714 .652 .707 .638 .772 .717 .762 .688 .760 .724 .779 .721
21 .703 .664 .606 .610 .648 .627 .742 .749 .701 .686 .630 .644 .652 .671 .642 .712 .725 .687 .630 .639 .666 .663 .748 .762
22 .541 .486 .455 .457 .489 .476 .826 .720 .560 .502 .467 .470 .497 .486 .785 .689 .564 .501 .468 .469 .501 .487 .841 .728
23 .366 .335 .346 .289 .380 .366 .323 .277 .354 .342 .332 .303 .191 .210 .273 .281 .369 .345 .348 .302 .324 .320 .313 .287
24 .261 .232 .165 .117 .200 .198 .190 .166 .485 .471 .433 .414 .404 .398 .438 .440 .428 .408 .361 .331 .361 .358 .373 .365
25 .568 .636 .543 .580 .551 .561 .698 .706 .673 .596 .765 .679 .713 .699 .486 .500 .664 .652 .710 .669 .682 .676 .651 .657
26 .694 .572 .677 .546 .682 .561 .701 .559 .687 .551 .667 .551 .656 .524 .681 .576 .701 .577 .684 .560 .684 .559 .704 .577
27 .578 .553 .562 .555 .591 .577 .562 .570 .575 .559 .575 .581 .590 .570 .575 .582 .596 .576 .586 .585 .609 .594 .586 .595
28 .345 .348 .334 .333 .350 .343 .349 .355 .357 .342 .344 .342 .295 .291 .357 .348 .396 .391 .384 .379 .369 .364 .397 .396
29 .509 .506 .419 .510 .531 .529 .502 .484 .335 .319 .458 .334 .240 .256 .351 .360 .460 .457 .470 .468 .445 .447 .464 .460
30 .456 .389 .392 .398 .422 .405 .436 .515 .281 .340 .299 .310 .288 .303 .309 .313 .406 .390 .375 .383 .389 .384 .409 .460
"""

#: Table 6: No. then macro FDR, FNR, F1 loss and Hamming, algorithms 1-8 each.
TABLE_6 = """
 1 .569 .613 .563 .648 .583 .635 .564 .647 .760 .767 .811 .754 .798 .798 .769 .771 .715 .732 .768 .755 .769 .778 .718 .744 .060 .064 .061 .086 .062 .065 .058 .068
 2 .797 .879 .804 .909 .835 .901 .807 .856 .804 .857 .894 .919 .896 .926 .729 .817 .822 .883 .875 .918 .880 .924 .784 .853 .168 .168 .124 .113 .135 .124 .214 .199
 3 .717 .739 .708 .738 .713 .729 .697 .738 .777 .783 .777 .809 .789 .790 .767 .825 .768 .779 .761 .793 .768 .779 .752 .803 .054 .055 .053 .058 .051 .054 .053 .053
 4 .606 .917 .282 .941 .502 .866 .565 .870 .774 .970 .807 .982 .792 .974 .726 .775 .726 .962 .720 .976 .723 .959 .675 .838 .127 .118 .099 .115 .111 .117 .126 .258
 5 .724 .981 .520 .975 .584 .980 .682 .856 .764 .985 .812 .981 .796 .983 .701 .829 .758 .984 .757 .979 .753 .983 .697 .852 .156 .122 .117 .121 .130 .123 .155 .228
 6 .335 .345 .310 .327 .391 .394 .329 .341 .360 .353 .341 .320 .275 .279 .340 .319 .358 .356 .338 .332 .344 .349 .345 .338 .207 .212 .195 .200 .224 .223 .202 .207
 7 .763 .770 .751 .767 .759 .773 .759 .766 .729 .731 .739 .750 .716 .733 .728 .735 .758 .762 .757 .768 .752 .766 .755 .761 .066 .070 .060 .066 .070 .076 .066 .071
 8 .320 .342 .342 .357 .338 .308 .326 .347 .280 .295 .312 .327 .339 .300 .264 .307 .324 .332 .345 .362 .358 .325 .312 .344 .248 .244 .255 .250 .248 .239 .240 .253
 9 .618 .625 .547 .618 .554 .573 .566 .563 .693 .690 .692 .721 .647 .645 .692 .682 .672 .673 .654 .691 .621 .627 .656 .644 .081 .084 .075 .078 .075 .079 .075 .073
10 .250 .245 .255 .238 .242 .245 .246 .240 .246 .242 .250 .235 .239 .245 .242 .241 .248 .244 .252 .237 .241 .246 .244 .241 .005 .005 .005 .005 .005 .005 .005 .005
11 .847 .873 .831 .859 .844 .864 .829 .821 .818 .844 .853 .857 .870 .894 .745 .885 .847 .872 .852 .865 .864 .892 .805 .868 .152 .137 .126 .120 .126 .122 .206 .145
12 .820 .843 .859 .844 .806 .883 .819 .834 .839 .807 .881 .831 .852 .880 .811 .837 .844 .841 .877 .849 .841 .889 .829 .852 .123 .146 .123 .128 .127 .127 .176 .171
13 .837 .832 .800 .789 .795 .802 .817 .862 .846 .808 .806 .790 .789 .796 .803 .782 .847 .831 .812 .803 .812 .822 .832 .843 .111 .123 .112 .110 .108 .114 .124 .156
14 .291 .304 .275 .268 .502 .488 .323 .287 .447 .455 .425 .404 .269 .290 .439 .449 .383 .393 .361 .346 .445 .443 .389 .382 .169 .175 .162 .158 .305 .293 .178 .170
15 .911 .903 .906 .907 .907 .899 .908 .914 .899 .866 .890 .895 .902 .896 .893 .891 .914 .902 .912 .912 .907 .903 .909 .911 .124 .136 .129 .114 .117 .110 .127 .118
16 .653 .662 .668 .669 .651 .650 .658 .657 .658 .651 .672 .671 .646 .653 .658 .650 .662 .662 .674 .673 .653 .656 .662 .659 .020 .025 .018 .018 .022 .022 .022 .026
17 .382 .380 .381 .380 .383 .388 .383 .384 .360 .366 .358 .375 .361 .372 .360 .377 .377 .378 .375 .382 .378 .384 .377 .385 .012 .012 .012 .011 .013 .012 .012 .011
18 .407 .417 .342 .357 .477 .504 .398 .381 .536 .529 .469 .463 .408 .404 .490 .503 .483 .484 .417 .420 .453 .468 .454 .455 .213 .219 .190 .196 .240 .256 .208 .205
19 .513 .505 .536 .513 .505 .507 .524 .504 .591 .581 .567 .580 .610 .595 .581 .594 .578 .564 .574 .566 .585 .574 .577 .569 .064 .062 .065 .063 .064 .063 .065 .062
20 .849 .848 .814 .805 .835 .819 .816 .849 .784 .749 .811 .759 .834 .773 .806 .782 .837 .819 .821 .802 .843 .812 .832 .834 .151 .172 .128 .151 .122 .138 .145 .161
21 .809 .891 .857 .945 .853 .904 .830 .887 .810 .933 .919 .947 .898 .940 .692 .851 .826 .929 .911 .948 .888 .934 .789 .878 .168 .135 .127 .121 .141 .123 .240 .209
22 .825 .952 .826 .950 .828 .934 .882 .894 .927 .970 .964 .973 .945 .969 .756 .809 .909 .970 .945 .968 .923 .965 .843 .866 .098 .087 .084 .085 .091 .087 .215 .206
23 .185 .182 .172 .173 .346 .332 .249 .207 .356 .343 .335 .311 .202 .220 .280 .289 .286 .275 .268 .253 .290 .287 .272 .256 .092 .090 .088 .085 .129 .122 .100 .090
24 .151 .131 .106 .091 .202 .211 .141 .111 .583 .572 .543 .527 .516 .513 .542 .546 .446 .432 .400 .382 .405 .405 .407 .402 .126 .122 .114 .110 .124 .125 .118 .115
25 .680 .721 .733 .762 .679 .657 .744 .750 .787 .695 .882 .788 .828 .809 .563 .576 .774 .726 .881 .803 .809 .787 .678 .687 .249 .308 .221 .274 .234 .240 .392 .396
26 .516 .505 .522 .469 .535 .517 .523 .502 .633 .588 .620 .594 .609 .566 .621 .619 .598 .570 .591 .558 .589 .557 .596 .585 .048 .051 .049 .046 .052 .051 .052 .048
27 .598 .597 .586 .608 .574 .605 .571 .608 .644 .647 .681 .674 .701 .697 .673 .682 .658 .661 .676 .678 .671 .676 .669 .679 .083 .080 .077 .079 .080 .081 .077 .084
28 .449 .466 .434 .455 .438 .454 .423 .459 .545 .521 .506 .549 .464 .485 .550 .558 .528 .521 .498 .528 .474 .489 .520 .538 .074 .075 .073 .073 .073 .073 .075 .076
29 .532 .533 .491 .533 .534 .526 .534 .522 .374 .356 .531 .374 .285 .287 .393 .406 .473 .463 .543 .475 .458 .452 .477 .475 .365 .368 .307 .378 .400 .395 .367 .353
30 .625 .668 .572 .662 .588 .640 .608 .668 .494 .610 .519 .567 .483 .555 .507 .511 .573 .665 .558 .630 .546 .624 .569 .608 .282 .239 .238 .248 .257 .248 .271 .335
"""

#: Table 7: No. then micro FDR, FNR, F1 loss and zero-one, algorithms 1-8 each.
TABLE_7 = """
 1 .421 .478 .404 .636 .462 .504 .409 .553 .723 .696 .809 .667 .827 .812 .736 .683 .628 .621 .715 .668 .739 .733 .635 .630 .809 .767 .861 .840 .887 .876 .811 .753
 2 .735 .722 .558 .491 .707 .584 .797 .817 .778 .844 .883 .923 .885 .923 .694 .789 .770 .826 .828 .868 .840 .880 .758 .816 .759 .668 .575 .560 .617 .598 .852 .744
 3 .463 .487 .484 .551 .454 .500 .458 .479 .668 .682 .688 .741 .695 .706 .686 .745 .605 .617 .614 .680 .613 .636 .615 .663 .529 .544 .522 .532 .510 .516 .539 .523
 4 .584 .593 .217 .444 .444 .551 .547 .858 .763 .966 .803 .977 .781 .968 .707 .756 .700 .937 .687 .956 .689 .942 .651 .822 .612 .499 .455 .477 .497 .484 .638 .744
 5 .685 .593 .459 .450 .575 .595 .655 .851 .748 .983 .799 .978 .786 .981 .682 .824 .720 .968 .708 .959 .716 .964 .670 .845 .707 .490 .488 .473 .517 .499 .685 .675
 6 .327 .340 .307 .326 .381 .380 .323 .340 .342 .337 .325 .304 .262 .264 .320 .302 .335 .339 .317 .316 .327 .328 .322 .322 .734 .735 .703 .683 .733 .725 .705 .714
 7 .509 .538 .472 .516 .539 .567 .508 .537 .430 .419 .417 .445 .444 .444 .431 .423 .474 .486 .447 .484 .497 .516 .475 .490 .907 .918 .914 .907 .929 .913 .920 .924
 8 .283 .271 .278 .277 .264 .262 .275 .283 .193 .208 .225 .212 .235 .204 .181 .208 .241 .241 .254 .247 .251 .236 .231 .248 .820 .786 .793 .813 .821 .777 .771 .778
 9 .592 .606 .555 .568 .546 .578 .552 .524 .727 .705 .741 .758 .646 .642 .740 .732 .683 .677 .679 .700 .606 .616 .676 .660 .218 .227 .204 .209 .204 .216 .204 .198
10 .008 .007 .009 .007 .008 .007 .008 .004 .101 .101 .104 .098 .100 .102 .101 .102 .057 .056 .059 .054 .056 .057 .057 .056 .107 .109 .109 .104 .109 .107 .107 .107
11 .681 .632 .571 .558 .606 .595 .776 .719 .767 .791 .821 .815 .838 .850 .686 .851 .745 .759 .757 .742 .780 .789 .742 .812 .725 .636 .623 .607 .614 .628 .847 .644
12 .483 .543 .445 .482 .539 .494 .697 .714 .769 .742 .822 .769 .822 .824 .753 .776 .686 .705 .738 .691 .749 .753 .739 .761 .655 .665 .655 .614 .664 .657 .812 .743
13 .660 .676 .650 .620 .627 .635 .688 .747 .676 .639 .626 .588 .595 .578 .634 .594 .670 .665 .639 .612 .612 .614 .666 .693 .859 .845 .848 .791 .864 .862 .875 .912
14 .295 .314 .279 .280 .569 .558 .331 .300 .452 .458 .431 .407 .281 .305 .443 .453 .384 .396 .364 .350 .461 .460 .392 .387 .591 .564 .563 .509 .864 .854 .587 .550
15 .827 .809 .838 .757 .807 .761 .827 .766 .803 .717 .805 .713 .797 .749 .794 .707 .816 .772 .823 .737 .803 .756 .812 .740 .985 .988 .986 .979 .975 .950 .986 .982
16 .701 .782 .615 .628 .725 .735 .746 .788 .818 .810 .852 .845 .775 .801 .812 .779 .782 .804 .797 .787 .754 .776 .790 .787 .795 .808 .787 .763 .790 .792 .803 .795
17 .222 .203 .222 .178 .229 .206 .220 .184 .218 .230 .215 .241 .224 .241 .216 .240 .220 .217 .219 .211 .227 .224 .219 .213 .409 .374 .409 .342 .414 .394 .406 .355
18 .409 .426 .357 .376 .485 .511 .405 .391 .544 .536 .474 .468 .418 .416 .498 .510 .486 .488 .423 .427 .454 .469 .456 .458 .689 .662 .619 .589 .706 .728 .645 .617
19 .425 .410 .439 .429 .420 .419 .435 .413 .544 .519 .518 .508 .566 .550 .539 .529 .493 .471 .483 .472 .503 .493 .494 .477 .814 .778 .814 .776 .821 .810 .815 .776
20 .745 .765 .711 .724 .687 .703 .738 .750 .696 .618 .714 .612 .718 .657 .708 .643 .734 .713 .714 .682 .708 .688 .736 .715 .891 .897 .875 .872 .860 .855 .897 .894
21 .687 .670 .508 .534 .704 .546 .786 .827 .774 .904 .903 .926 .878 .916 .624 .797 .773 .864 .852 .874 .836 .865 .728 .818 .833 .729 .687 .683 .722 .706 .925 .844
22 .744 .645 .497 .535 .699 .658 .876 .891 .919 .967 .957 .971 .940 .968 .744 .800 .880 .940 .922 .945 .901 .941 .833 .860 .594 .514 .480 .479 .518 .500 .924 .774
23 .187 .186 .184 .188 .393 .369 .275 .226 .369 .355 .344 .318 .203 .222 .287 .297 .290 .281 .273 .259 .311 .304 .281 .264 .444 .394 .419 .352 .595 .557 .431 .348
24 .159 .138 .113 .096 .217 .227 .148 .114 .582 .570 .542 .525 .514 .510 .542 .545 .442 .427 .396 .378 .401 .401 .404 .399 .726 .712 .683 .662 .719 .726 .697 .684
25 .555 .649 .447 .615 .512 .531 .706 .710 .685 .607 .768 .684 .721 .706 .499 .508 .632 .629 .673 .653 .645 .639 .629 .636 .954 .977 .947 .973 .952 .952 .994 .996
26 .392 .448 .412 .396 .472 .470 .454 .425 .690 .570 .672 .571 .659 .545 .683 .596 .591 .523 .580 .500 .587 .511 .605 .526 .785 .689 .776 .651 .798 .688 .804 .656
27 .552 .524 .504 .524 .538 .538 .505 .561 .628 .614 .649 .627 .671 .654 .641 .623 .596 .577 .593 .585 .617 .607 .588 .598 .741 .723 .716 .720 .737 .724 .720 .743
28 .360 .372 .355 .354 .372 .370 .364 .376 .390 .373 .378 .379 .322 .315 .387 .377 .375 .373 .367 .367 .348 .344 .376 .377 .805 .797 .794 .777 .790 .780 .806 .808
29 .502 .504 .417 .515 .530 .527 .503 .488 .328 .316 .462 .331 .241 .249 .349 .359 .428 .426 .441 .438 .421 .421 .438 .432 .995 .996 .991 .995 .999 1.00 .997 .994
30 .475 .398 .408 .416 .440 .422 .454 .537 .283 .352 .307 .322 .296 .315 .316 .323 .394 .378 .362 .375 .376 .374 .395 .450 .948 .871 .900 .862 .910 .900 .918 .946
"""


# ---- report -------------------------------------------------------------------------------
FIGURES = ["hamming", "zero_one", "example_f1_loss", "macro_f1_loss", "micro_f1_loss"]
markdown = dcp.markdown  # a DataFrame as a Markdown table


def label(criterion):
    return paper_values.CRITERIA.get(criterion, criterion)


def _fmt(p):
    return "" if p is None or np.isnan(p) else f"{p:.3f}"


def chosen_runs(folds):
    """Per (data set, method): the complete run (every fold present) with most folds."""
    counts = folds.groupby(["dataset", "method", "n_folds"])["fold"].nunique().reset_index()
    counts = counts[counts["fold"] == counts["n_folds"]]
    best = counts.sort_values("n_folds").groupby(["dataset", "method"]).tail(1)
    return {(r.dataset, r.method): int(r.n_folds) for r in best.itertuples()}


def compare_frames(values, names, methods):
    """``{criterion: DataFrame methods x sets}`` from ``values[(method, set)][criterion]``."""
    return {
        c: pd.DataFrame({n: [values[(m, n)][c] for m in methods] for n in names}, index=methods)
        for c in CRITERIA
    }


def rank_rows(ours, on_ours, published, n_sets):
    rows = []
    for criterion in CRITERIA:
        for source, ranks, p in (
            (
                f"ours ({n_sets} sets)",
                list(ours[criterion].average_ranks),
                ours[criterion].friedman_pvalue,
            ),
            (
                "Table 2 (30 sets)",
                list(published[criterion]["ranks"]),
                published[criterion]["friedman_p"],
            ),
            (
                f"paper, our {n_sets} sets",
                list(on_ours[criterion].average_ranks),
                on_ours[criterion].friedman_pvalue,
            ),
        ):
            rows.append(
                {
                    "criterion": label(criterion),
                    "source": source,
                    **{str(i): ranks[i - 1] for i in range(1, 9)},
                    "Friedman p": f"{p:.6f}" if p < 1e-3 else f"{p:.3f}",
                }
            )
    return pd.DataFrame(rows)


def _pair(result, a, b):
    """(raw p, Holm p, mean(a - b)) of the Wilcoxon row for methods a, b."""
    w = result.wilcoxon
    row = w[(w["method_a"] == a) & (w["method_b"] == b)].iloc[0]
    return float(row["pvalue"]), float(row["pvalue_holm"]), float(row["mean_difference"])


def _wins(frame, a, b):
    """'CC wins / BR wins / ties' of method b (CC) against a (BR) over the sets (3 decimals)."""
    x, y = frame.loc[a].round(3), frame.loc[b].round(3)
    return f"{int((y < x).sum())}/{int((x < y).sum())}/{int((x == y).sum())}"


def focus_rows(values, complete_sets, ours, on_ours, published, full, numbers):
    """BR against CC for each base: ours (all sets where both ran) beside the paper."""
    rows = []
    for criterion in CRITERIA:
        for base in BASES:
            br, cc = f"BR-{base}", f"CC-{base}"
            i, j = NUMBER[br], NUMBER[cc]
            sets = complete_sets.get(base, [])
            row = {"criterion": label(criterion), "base": base, "sets": len(sets)}
            if len(sets) >= 2:
                frame = pd.DataFrame(
                    {n: [values[(br, n)][criterion], values[(cc, n)][criterion]] for n in sets},
                    index=[br, cc],
                )
                diff = frame.loc[cc] - frame.loc[br]
                p = (
                    wilcoxon(frame.loc[br], frame.loc[cc], zero_method="zsplit").pvalue
                    if (diff != 0).any()
                    else 1.0
                )
                row.update(
                    {
                        "ours CC/BR/tie wins": _wins(frame, br, cc),
                        "ours mean CC-BR": float(diff.mean()),
                        "ours p": float(p),
                    }
                )
            if ours is not None:
                _, holm, _ = _pair(ours[criterion], br, cc)
                row["ours p Holm(28)"] = holm
            t2 = published[criterion]
            row["T2 rank BR/CC"] = f"{t2['ranks'][i - 1]:.2f}/{t2['ranks'][j - 1]:.2f}"
            row["T2 p Holm"] = t2["wilcoxon_holm_p"][(i, j)]
            paper_frame = full[criterion].loc[numbers, [i, j]].T
            paper_frame.index = [br, cc]
            row["paper CC/BR/tie wins, our sets"] = _wins(paper_frame, br, cc)
            if on_ours is not None:
                _, holm, _ = _pair(on_ours[criterion], br, cc)
                row["paper p Holm(28), our sets"] = holm
            rows.append(row)
    return pd.DataFrame(rows)


def summary_rows(focus):
    """One row per criterion: ours CC/BR/tie wins per base and pooled over the 4 bases
    (with a two-sided sign test, ties dropped; the pairs share data sets, so it is only a
    rough guide), beside the same counts from the paper's Tables 5-7 on our sets."""
    rows = []
    for criterion in CRITERIA:
        part = focus[focus["criterion"] == label(criterion)].to_dict("records")
        row = {"criterion": label(criterion)}
        for source, column in (
            ("ours", "ours CC/BR/tie wins"),
            ("paper", "paper CC/BR/tie wins, our sets"),
        ):
            total = np.zeros(3, dtype=int)
            for record in part:
                cell = record.get(column)
                if not isinstance(cell, str):
                    continue
                total += np.array([int(v) for v in cell.split("/")])
                if source == "ours":
                    row[record["base"]] = cell
            row[f"{source} all"] = "/".join(map(str, total))
            decided = int(total[0] + total[1])
            row[f"{source} sign p"] = (
                binomtest(int(total[0]), decided).pvalue if decided else np.nan
            )
        rows.append(row)
    return pd.DataFrame(rows)


def pair_matrix(ours, published, criterion):
    """Upper triangle i < j: our Holm p (lower-loss algorithm) / Table 2's p."""
    rows = []
    for i in range(1, 8):
        row = {"i": i}
        for j in range(2, 9):
            if j <= i:
                row[str(j)] = ""
                continue
            _, holm, diff = _pair(ours[criterion], METHODS[i - 1], METHODS[j - 1])
            better = i if diff < 0 else j
            row[str(j)] = (
                f"{holm:.3f} ({better}) / {published[criterion]['wilcoxon_holm_p'][(i, j)]:.3f}"
            )
        rows.append(row)
    return pd.DataFrame(rows)


# ---- before / after issue item 4 (J48 pruning, SVM tuning) -------------------------------------
UNTUNED = f"{PREFIX}_folds_untuned.csv"  # the J48 / SVM folds of the earlier configuration
CHANGED = ["BR-J48", "CC-J48", "BR-SVM", "CC-SVM"]
SHOWN = ["zero_one", "hamming", "example_f1_loss", "macro_f1_loss", "micro_f1_loss"]


def _means(folds):
    runs = chosen_runs(folds)
    keep = folds.apply(lambda r: runs.get((r["dataset"], r["method"])) == r["n_folds"], axis=1)
    folds = folds[keep]
    frame = folds.groupby(["method", "dataset"])[[*CRITERIA, *TIMES]].mean()
    frame["n_folds"] = folds.groupby(["method", "dataset"])["n_folds"].first()
    return dict(frame.iterrows())


def _choices(folds):
    """Per data set: the SVM's chosen pairs summed over BR-SVM's folds, and the J48
    members' mean leaves grown / pruned (the ``info`` column)."""
    rows = []
    folds = folds[folds["method"].isin(CHANGED) & folds["info"].notna()]
    for name in [n for n in DATASETS if n in set(folds["dataset"])]:
        part = folds[folds["dataset"] == name]
        row = {"data set": name}
        svm = part[part["method"] == "BR-SVM"]["info"].dropna()
        if len(svm):
            counts = {"C": Counter(), "gamma": Counter()}
            constant = 0
            for info in svm:
                for piece in info.split("; "):
                    key, *pairs = piece.split(" ")
                    if key == "constant":
                        constant += int(pairs[0])
                        continue
                    for pair in pairs:
                        value, n = pair.split(":")
                        counts[key][float(value)] += int(n)
            total = sum(counts["C"].values())
            row["SVM labels x folds"] = str(total)
            row["C = 0.001"] = counts["C"][0.001] / total if total else np.nan
            row["C 1-10 (median)"] = (
                float(np.median([v for v, n in counts["C"].items() for _ in range(n) if v > 0.001]))
                if total > counts["C"][0.001]
                else np.nan
            )
            row["gamma = 0.001"] = counts["gamma"][0.001] / total if total else np.nan
            row["constant labels"] = str(constant)
        for method in ("BR-J48", "CC-J48"):
            infos = part[part["method"] == method]["info"].dropna()
            sizes = [
                tuple(float(v) for v in i.removeprefix("leaves ").split(" -> "))
                for i in infos
                if i.startswith("leaves ")
            ]
            if sizes:
                grown, pruned = np.mean(sizes, axis=0)
                row[f"{method} leaves"] = f"{grown:.1f} -> {pruned:.1f}"
        rows.append(row)
    return pd.DataFrame(rows)


def before_after(values, folds, out, names):
    """Report lines: J48 and SVM before and after issue item 4, where both ran."""
    path = out / UNTUNED
    if not path.exists():
        return []
    old = _means(pd.read_csv(path))
    sets = [n for n in names if any((m, n) in old and (m, n) in values for m in CHANGED)]
    lines = [
        "## J48 and SVM before and after (issue item 4)",
        "",
        'Before: unpruned `DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2)`',
        'and untuned `SVC(kernel="rbf", C=1, gamma="scale")`, the folds kept in',
        f"`{UNTUNED}`; now: J48 pruning and the grid-searched SVM (see *Setup*). Mean losses",
        "before -> now, and the folds of each run (before / now; a set with fewer folds before",
        "had them for cost).",
        "",
    ]
    rows = []
    for n in sets:
        for m in CHANGED:
            a, b = old.get((m, n)), values.get((m, n))
            if a is None or b is None:
                continue
            row = {"data set": n, "method": f"{NUMBER[m]} {m}"}
            row.update({label(c): f"{a[c]:.3f} -> {b[c]:.3f}" for c in SHOWN})
            row["folds"] = f"{int(a['n_folds'])} / {int(b['n_folds'])}"
            row["s per fold"] = (
                f"{a['train_time'] + a['test_time']:.1f} -> {b['train_time'] + b['test_time']:.1f}"
            )
            rows.append(row)
    lines += [markdown(pd.DataFrame(rows)) if rows else "No set has both yet.", ""]
    both = [n for n in sets if all((m, n) in values for m in METHODS)]
    both = [n for n in both if all((m, n) in old for m in CHANGED)]
    if len(both) >= 2:
        then = {**values, **{k: v for k, v in old.items() if k[1] in both}}
        before = compare(compare_frames(then, both, METHODS), greater_is_better=False, alpha=ALPHA)
        now = compare(compare_frames(values, both, METHODS), greater_is_better=False, alpha=ALPHA)
        rows = []
        for c in CRITERIA:
            for source, result in (("before", before), ("now", now)):
                rows.append(
                    {
                        "criterion": label(c),
                        "source": source,
                        **{str(i): r for i, r in enumerate(result[c].average_ranks, start=1)},
                    }
                )
        lines += [
            f"Average ranks of the 8 methods on the {len(both)} sets where all ran before and now",
            f"({', '.join(both)}; NB and kNN as now in both rows):",
            "",
            markdown(pd.DataFrame(rows), floatfmt=".2f"),
            "",
        ]
    choices = _choices(folds)
    if len(choices):
        lines += [
            "What the tuned SVMs and the pruned trees look like, per set (all folds of the",
            "chosen run): the share of (label, fold) choices with C = 0.001 (an SVM that",
            "in effect predicts the majority class: no other pair did better in CV), the median of the",
            "other C, the share with gamma = 0.001, labels constant in a training fold (no",
            "SVM), and the J48 members' mean leaves grown -> pruned.",
            "",
            markdown(choices, floatfmt=".2f"),
            "",
        ]
    return lines


def report(folds_csv, out, *, data_dir):
    warnings.filterwarnings("ignore", category=RuntimeWarning)  # scipy: near-equal samples
    folds = pd.read_csv(folds_csv)
    runs = chosen_runs(folds)
    keep = folds.apply(lambda r: runs.get((r["dataset"], r["method"])) == r["n_folds"], axis=1)
    folds = folds[keep]
    means_frame = folds.groupby(["method", "dataset"])[[*CRITERIA, *TIMES]].mean()
    means_frame["n_folds"] = folds.groupby(["method", "dataset"])["n_folds"].first()
    means_frame.reset_index().to_csv(out / f"{PREFIX}_means.csv", index=False, float_format="%.6g")
    values = dict(means_frame.iterrows())
    names = [n for n in DATASETS if any((m, n) in values for m in METHODS)]
    all8 = [n for n in names if all((m, n) in values for m in METHODS)]
    per_base = {
        b: [n for n in names if (f"BR-{b}", n) in values and (f"CC-{b}", n) in values]
        for b in BASES
    }
    number_of = {n: dcp.DATASETS[n].number for n in DATASETS}
    published, full = table_2(), full_results()
    check = check_transcription()

    ours = on_ours = None
    if len(all8) >= 2:
        ours = compare(compare_frames(values, all8, METHODS), greater_is_better=False, alpha=ALPHA)
        paper_scores = {
            c: pd.DataFrame({n: full[c].loc[number_of[n]].to_numpy() for n in all8}, index=METHODS)
            for c in CRITERIA
        }
        on_ours = compare(paper_scores, greater_is_better=False, alpha=ALPHA)
        ours.to_csv(out / f"{PREFIX}_ranks.csv", kind="ranks")
        ours.to_csv(out / f"{PREFIX}_wilcoxon_holm.csv", kind="wilcoxon")
        on_ours.to_csv(out / f"{PREFIX}_paper_on_our_sets_ranks.csv", kind="ranks")
        for criterion in FIGURES:
            ours.plot_critical_difference(
                out / f"{PREFIX}_cd_{criterion}", criterion=criterion, title=label(criterion)
            )
        ours.plot_radar(out / f"{PREFIX}_radar", title="BR vs CC ensembles: average ranks")
    focus = focus_rows(
        values, per_base, ours, on_ours, published, full, [number_of[n] for n in (all8 or names)]
    )
    focus.to_csv(out / f"{PREFIX}_br_vs_cc.csv", index=False, float_format="%.6g")

    lines = [
        "# Dynamic chains paper, Table 2: BR against CC ensembles with J48, SVM, NB and kNN",
        "",
        "Generated by `python experiments/dynamic_chains_table2.py` (issue #8; Trajdos and",
        "Kurzynski, *Dynamic classifier chains for multi-label learning*, section 4.1, Table 2",
        "and appendix Tables 5-7, all transcribed in the script). Algorithm numbers as the",
        "paper's: " + ", ".join(f"{i} = {m}" for m, i in NUMBER.items()) + ".",
        "",
        f"**Ran: all 8 methods on {len(all8)} of the paper's 30 sets** ({', '.join(all8) or 'none'});"
        + " per base, BR and CC on: "
        + "; ".join(f"{b} {len(per_base[b])}" for b in BASES)
        + " sets (see *Coverage*).",
        "",
        "## Setup",
        "",
        "- K-fold cross-validation, shuffled with seed 0 (10 folds unless *Coverage* says",
        "  fewer), the same folds for all methods and the same as",
        "  `experiments/dynamic_chains_paper.py`; fold f fits with random_state f. Each value is",
        "  the mean over the folds. Features divided by their training-fold standard deviation",
        "  (the paper standardises; centring changes none of the four learners).",
        "- Every ensemble: K = 20 members on 66 % samples drawn without replacement,",
        "  `[mean vote > 0.5]` (eq. 22). The paper's BR/CC ensembles of section 4.1 are",
        "  described only as 'built using a genetic algorithm tailored to optimise the",
        "  macro-averaged F1 loss' (section 3); we use plain random-order ensembles (ECC) and",
        "  bagged BR: **no genetic order search** (the GA has no meaning for BR anyway).",
        f"- J48: {J48_NOTE}.",
        f"- SVM: {SVM_NOTE}.",
        "- NB: mlnb's Gaussian NB (fast paths) on every feature; Weka's NaiveBayes is Gaussian",
        "  on numeric attributes too but counts the values of nominal ones (sf2's one-hot",
        "  columns are nominal in the paper's data).",
        "- kNN: R in {1, 3, ..., 11} by 3-fold CV (BR kNN, example F1) on the training fold,",
        "  for BR and CC alike (same seed: same R, same member samples). CC-kNN",
        "  members: kNN chains in the space extended by the decided labels (eq. 10-11); no",
        "  undersampling or feature selection (these belong to the paper's proposed method,",
        "  section 2.5, not to section 4.1's comparison).",
        '- Criteria: the 11 losses of `mlnb.metrics` ("dynamic_chains", Mulan\'s 0/0 convention).',
        "- Statistics: `mlnb.evaluation.compare` over the sets where all 8 methods ran: average",
        "  ranks, Friedman (tie-corrected), Wilcoxon signed-rank (zsplit) for all 28 pairs",
        f"  with Holm's correction, alpha = {ALPHA}, as Table 2.",
        "",
        "### Methods",
        "",
        markdown(
            pd.DataFrame(
                [{"No.": NUMBER[m], "name": m, "estimator": DESCRIPTIONS[m]} for m in METHODS]
            )
        ),
        "",
        "## Data sets",
        "",
        "Ours, with the paper's Table 1 in brackets (`experiments/dynamic_chains_paper.py`'s",
        f"versions of the sets; a sparse set with over {DENSE_ABOVE:.0%} non-zeros is made dense).",
        "N rows, d features, L labels, LC (label cardinality) labels per row, LD (label density)",
        "LC / L, avIR (average imbalance ratio) the mean over labels of the most frequent label's",
        "count over the label's count, all as in {doc}`dynamic_chains`.",
        "",
        markdown(dcp.dataset_table(names, data_dir)) if names else "None run yet.",
        "",
    ]
    lines += [f"- {n}: {dcp.DATASETS[n].note}." for n in names if dcp.DATASETS[n].note]
    lines += ["", "## Coverage and times", ""]
    lines += [
        "Folds run (complete runs only) and mean seconds per fold (train + test, one core",
        "of the shared 2-core machine under `nice`, so ratios matter more than values).",
        "",
    ]
    rows = []
    for n in names:
        row = {"data set": n}
        for m in METHODS:
            v = values.get((m, n))
            row[m] = (
                ""
                if v is None
                else f"{int(v['n_folds'])} / {v['train_time'] + v['test_time']:.1f}s"
            )
        rows.append(row)
    lines += [markdown(pd.DataFrame(rows)) if rows else "Nothing yet.", ""]

    lines += ["## BR against CC, per base learner", ""]
    lines += [
        "Summary: for each criterion, CC/BR/tie wins (CC with the lower mean loss at three",
        "decimals) per base over our sets where both ran, pooled over the 4 bases with a",
        "two-sided sign test (ties dropped; rough, the pairs share data sets), and the same",
        "pooled counts from the paper's Tables 5-7 on our 8-method sets.",
        "",
        markdown(summary_rows(focus)),
        "",
        "In detail:",
        "",
    ]
    lines += [
        "Per criterion and base: on our sets where both ran, how often CC has the lower",
        "mean loss (CC/BR/tie wins, at three decimals), the mean of CC - BR (negative: CC",
        "better), the plain Wilcoxon p of that pair alone and its Holm-corrected p among the",
        f"28 pairs of the 8-method comparison ({len(all8)} sets); then the paper: Table 2's",
        "ranks of BR/CC and Holm p (30 sets), and, from Tables 5-7, the wins and Holm p the",
        "paper's own values give on our sets (our 8-method sets).",
        "",
        markdown(focus),
        "",
    ]
    if ours is not None:
        lines += [
            "## Average ranks and Friedman p beside Table 2",
            "",
            "Columns 1-8: the algorithms. `ours`: our average ranks over the sets where all",
            "8 methods ran; `Table 2`: the paper's (30 sets); `paper, our sets`: the ranks of",
            "the paper's own full results (Tables 5-7) on our sets only, the ranking the paper",
            "would give on these sets (ties at three decimals share ranks).",
            "",
            markdown(rank_rows(ours, on_ours, published, len(all8)), floatfmt=".2f"),
            "",
            "Critical-difference diagrams (Nemenyi, alpha = 0.1), one per group of criteria: "
            + ", ".join(f"[{label(c)}]({PREFIX}_cd_{c}.svg)" for c in FIGURES)
            + f"; radar plot of all ranks: [{PREFIX}_radar.svg]({PREFIX}_radar.svg).",
            "",
            f"![zero-one loss]({PREFIX}_cd_zero_one.png)",
            "",
            f"![example F1 loss]({PREFIX}_cd_example_f1_loss.png)",
            "",
            "## Wilcoxon-Holm p-values beside Table 2",
            "",
            "Per criterion, row i, column j: our Holm-corrected p (28 pairs; in brackets the",
            "algorithm with the lower mean loss) / Table 2's Wp-i entry.",
            "",
        ]
        for criterion in CRITERIA:
            lines += [
                f"### {label(criterion)}",
                "",
                markdown(pair_matrix(ours, published, criterion)),
                "",
            ]
    lines += before_after(values, folds, out, names)
    lines += [
        "## Our means beside Tables 5-7",
        "",
        "Per criterion: our mean over the folds (the paper's value in brackets) for",
        "algorithms 1-8.",
        "",
    ]
    for criterion in CRITERIA:
        rows = []
        for n in names:
            number = number_of[n]
            row = {"No.": number, "data set": n}
            for m in METHODS:
                v = values.get((m, n))
                theirs = full[criterion].loc[number, NUMBER[m]]
                row[str(NUMBER[m])] = (
                    "-" if v is None else f"{v[criterion]:.3f}"
                ) + f" ({theirs:.3f})"
            rows.append(row)
        lines += [f"### {label(criterion)}", "", markdown(pd.DataFrame(rows)) if rows else "", ""]
    lines += [
        "## Transcription check",
        "",
        "Average ranks recomputed from the transcribed Tables 5-7 (30 sets) against Table 2's",
        "ranks: max |difference| per criterion (ties created by the three-decimal rounding",
        "explain small ones).",
        "",
        markdown(
            pd.DataFrame(
                [
                    {
                        "criterion": label(c),
                        "max |diff|": d,
                        "recomputed ranks 1-8": " ".join(f"{r:.2f}" for r in r8),
                    }
                    for c, (d, r8) in check.items()
                ]
            ),
            floatfmt=".2f",
        ),
        "",
    ]
    files = (
        f"Files: `{PREFIX}_folds.csv` (every fold), `{PREFIX}_means.csv`, `{PREFIX}_br_vs_cc.csv`,"
        f" `{PREFIX}_ranks.csv`, `{PREFIX}_wilcoxon_holm.csv`, `{PREFIX}_paper_on_our_sets_ranks.csv`,"
        f" `{PREFIX}_cd_*.png/svg`, `{PREFIX}_radar.png/svg`."
    )
    return dcp.write_report(lines, out, PREFIX, files)


# ---- command line -------------------------------------------------------------------------
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument(
        "--datasets", help=f"comma-separated subset (default: all {len(DATASETS)}, cheapest first)"
    )
    parser.add_argument("--bases", help=f"comma-separated subset of {','.join(BASES)}")
    parser.add_argument("--methods", help="comma-separated subset of the 8 methods")
    parser.add_argument("--folds", type=int, help=f"number of folds (default {FOLDS}; quick 3)")
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: 3 folds on sf2, emotions, in /tmp"
    )
    parser.add_argument("--budget-minutes", type=float, help="start no fit after this many minutes")
    parser.add_argument("--out", type=Path, help=f"output directory (default {OUT})")
    parser.add_argument("--data-dir", help="data directory (default: mlnb's search)")
    parser.add_argument("--report-only", action="store_true", help="only rebuild the report")
    parser.add_argument(
        "--self-check", action="store_true", help="only check the J48 pruning and SVM tuning"
    )
    args = parser.parse_args(argv)
    if args.self_check or not args.report_only:
        bases.self_check()  # a few seconds: hand cases of the pruning, the SVM grid search
        if args.self_check:
            print("self-check passed")
            return 0
    datasets = dcp.names_option(args.datasets, DATASETS, parser, "data sets")
    chosen_bases = dcp.names_option(args.bases, BASES, parser, "bases") or BASES
    methods = dcp.names_option(args.methods, METHODS, parser, "methods") or METHODS
    methods = [m for m in methods if m.split("-", 1)[1] in chosen_bases]
    if args.quick:
        datasets = datasets or QUICK_DATASETS
        n_folds = args.folds or 3
        out = args.out or Path("/tmp/dynamic_chains_table2_quick")
    else:
        datasets = datasets or DATASETS
        n_folds = args.folds or FOLDS
        out = args.out or OUT
    datasets = [n for n in DATASETS if n in datasets]
    out.mkdir(parents=True, exist_ok=True)
    folds_csv = out / f"{PREFIX}_folds.csv"
    failures = []
    if not args.report_only:
        dcp.log_run(
            out,
            sys.argv[1:] if argv is None else argv,
            script="dynamic_chains_table2.py",
            prefix=PREFIX,
        )
        deadline = None if args.budget_minutes is None else time.time() + 60 * args.budget_minutes
        failures = run(
            datasets,
            methods,
            folds_csv,
            n_folds=n_folds,
            data_dir=args.data_dir,
            deadline=deadline,
            log=lambda message: print(message, flush=True),
        )
    if folds_csv.exists():
        print(f"report: {report(folds_csv, out, data_dir=args.data_dir)}")
    for failure in failures:
        print(f"FAILED: {failure.dataset} {failure.method} fold {failure.fold}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
