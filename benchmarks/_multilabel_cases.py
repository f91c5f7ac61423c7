"""The cases of ``bench_multilabel.py``: its data sets, and each library's models of them.

mlnb's ``BinaryRelevance``, ``ClassifierChain`` and ``EnsembleClassifierChains``;
scikit-learn's one-vs-rest, chain and (:class:`SklearnECC`) an ensemble of its chains on the
same protocol; scikit-multilearn's binary relevance and chain, with its one in-memory patch.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

DATASETS = ("delicious", "bibtex", "enron", "yeast")
BENCHMARKS = ("br", "cc", "ecc")
LIBRARIES = ("mlnb", "sklearn", "skmultilearn")
TITLES = {
    "br": "Binary relevance (BR-NB)",
    "cc": "Classifier chain (CC-NB)",
    "ecc": "Ensemble of 10 classifier chains (ECC-NB)",
}
QUICK_ROWS = (1000, 500)
N_CHAINS, SAMPLE_FRACTION, SEED = 10, 0.66, 0
MAX_RUNS = 200  # cap on the repeats of a fast case


# ---- models --------------------------------------------------------------------------------------
def events_of(dataset):
    """mlnb event model of a data set: Gaussian on yeast's dense features, else multinomial."""
    return "gaussian" if dataset == "yeast" else "multinomial"


def sklearn_nb(dataset):
    """scikit-learn's NB classifier matching :func:`events_of`."""
    from sklearn.naive_bayes import GaussianNB, MultinomialNB

    return GaussianNB() if dataset == "yeast" else MultinomialNB()


class SklearnECC:
    """Ten scikit-learn classifier chains with random orders, each on a 66 % sample.

    The same protocol as :class:`mlnb.EnsembleClassifierChains`: ``n_chains`` samples of
    ``round(sample_fraction * n)`` rows drawn without replacement, one random label order
    per chain, and the mean of the chains' 0/1 predictions thresholded at 0.5.

    Parameters
    ----------
    base : classifier
        Cloned into every link of every chain.
    n_chains : int, default=10
    sample_fraction : float, default=0.66
    random_state : int, default=0
    """

    def __init__(self, base, n_chains=N_CHAINS, sample_fraction=SAMPLE_FRACTION, random_state=0):
        self.base = base
        self.n_chains = n_chains
        self.sample_fraction = sample_fraction
        self.random_state = random_state

    def fit(self, X, Y):
        """Fit every chain on its sample; returns self."""
        from sklearn.multioutput import ClassifierChain

        rng = np.random.default_rng(self.random_state)
        size = max(round(self.sample_fraction * X.shape[0]), 1)
        self.chains_ = []
        for _ in range(self.n_chains):
            rows = np.sort(rng.choice(X.shape[0], size, replace=False))
            seed = int(rng.integers(2**31 - 1))
            chain = ClassifierChain(self.base, order="random", random_state=seed)
            self.chains_.append(chain.fit(X[rows], Y[rows]))
        return self

    def predict(self, X):
        """``[mean of the chains' 0/1 predictions > 0.5]``, shape (n_samples, n_labels)."""
        votes = sum(chain.predict(X) for chain in self.chains_)
        return (votes / self.n_chains > 0.5).astype(int)


def make_model(benchmark, library, dataset):
    """A fresh, unfitted estimator for one case.

    Parameters
    ----------
    benchmark : {"br", "cc", "ecc"}
    library : {"mlnb", "sklearn", "skmultilearn"}
    dataset : str

    Returns
    -------
    estimator or None
        None when the library has no such method (scikit-multilearn's ECC).
    """
    events = events_of(dataset)
    if library == "mlnb":
        import mlnb

        return {
            "br": lambda: mlnb.BinaryRelevance(events=events, rule="predict"),
            "cc": lambda: mlnb.ClassifierChain(events=events, rule="predict"),
            "ecc": lambda: mlnb.EnsembleClassifierChains(
                n_chains=N_CHAINS, events=events, rule="predict", random_state=SEED
            ),
        }[benchmark]()
    if library == "sklearn":
        from sklearn.multiclass import OneVsRestClassifier
        from sklearn.multioutput import ClassifierChain

        base = sklearn_nb(dataset)
        return {
            "br": lambda: OneVsRestClassifier(base),
            "cc": lambda: ClassifierChain(base, order=None),
            "ecc": lambda: SklearnECC(base, random_state=SEED),
        }[benchmark]()
    if benchmark == "ecc":
        return None
    from skmultilearn import problem_transform

    patch_skmultilearn()
    # Sparse X goes to the NB as it is; y as a dense 1-D vector (the NB's requirement).
    require_dense = [True, True] if dataset == "yeast" else [False, True]
    cls = {"br": problem_transform.BinaryRelevance, "cc": problem_transform.ClassifierChain}
    return cls[benchmark](classifier=sklearn_nb(dataset), require_dense=require_dense)


# ---- scikit-multilearn 0.2.0 patch --------------------------------------------------------------
def patch_skmultilearn():
    """Patch scikit-multilearn 0.2.0 in memory; returns the list of patches applied.

    ``BinaryRelevance.predict_proba``: column of class 1 through each classifier's
    ``classes_`` instead of ``[:, 1]`` (IndexError for a label constant in training).
    """
    from skmultilearn.problem_transform import BinaryRelevance

    if getattr(BinaryRelevance, "_mlnb_bench_patched", False):
        return ["BinaryRelevance.predict_proba"]

    def predict_proba(self, X):
        X = self._ensure_input_format(X)
        result = sp.lil_matrix((X.shape[0], self._label_count), dtype="float")
        for label, classifier in zip(self.partition_, self.classifiers_, strict=True):
            classes = list(classifier.classes_)
            if 1 in classes:
                result[:, label] = classifier.predict_proba(X)[:, [classes.index(1)]]
        return result

    BinaryRelevance.predict_proba = predict_proba
    BinaryRelevance._mlnb_bench_patched = True
    return ["BinaryRelevance.predict_proba"]


def library_available(library):
    """True when the library can be imported in this environment."""
    if library != "skmultilearn":
        return True
    try:
        import skmultilearn.problem_transform  # noqa: F401
    except ImportError:
        return False
    return True


# ---- data ----------------------------------------------------------------------------------------
def load(dataset, quick=False):
    """(X_train, Y_train, X_test, Y_test) of a benchmark data set (CSR or dense float64)."""
    from mlnb.datasets import load_dataset

    train, test = load_dataset(dataset)
    X, Y, X_test, Y_test = train.X, np.asarray(train.Y), test.X, np.asarray(test.Y)
    if quick:
        (n, m) = QUICK_ROWS
        X, Y, X_test, Y_test = X[:n], Y[:n], X_test[:m], Y_test[:m]
    return X, Y, X_test, Y_test
