"""``mlnb bench``: mlnb and scikit-learn side by side on generated multi-label data."""

from __future__ import annotations

import warnings

from sklearn import naive_bayes as sk_nb
from sklearn.multiclass import OneVsRestClassifier
from sklearn.multioutput import ClassifierChain as SkChain

from ..datasets import make_multilabel
from ..evaluation import best_time
from ..multilabel import BinaryRelevance, ClassifierChain

__all__ = ["run_bench"]


CASES = 2  # BR-NB and CC-NB


def run_bench(*, quick=False, progress=None):
    """Fit+predict seconds of mlnb and scikit-learn for BR-NB and CC-NB on word counts.

    ``progress(row)``, if given, is called with each case's row when it is done.
    """
    n, repeat = (2000, 1) if quick else (8000, 3)
    X, Y = make_multilabel(
        n, 300, 40, cardinality=3.0, features="counts", doc_length=80, random_state=0
    )
    Y[:, Y.sum(axis=0) == 0] = 0  # scikit-learn's chain needs both values in each label
    constant = (Y.sum(axis=0) == 0) | (Y.sum(axis=0) == n)
    Y = Y[:, ~constant]
    cases = [
        (
            "BR-NB fit+predict",
            lambda: BinaryRelevance(events="multinomial", rule="predict").fit(X, Y).predict(X),
            lambda: OneVsRestClassifier(sk_nb.MultinomialNB()).fit(X, Y).predict(X),
        ),
        (
            "CC-NB fit+predict",
            lambda: ClassifierChain(events="multinomial", rule="predict").fit(X, Y).predict(X),
            lambda: SkChain(sk_nb.MultinomialNB()).fit(X, Y).predict(X),
        ),
    ]
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for task, ours, theirs in cases:
            t_ours, t_theirs = (best_time(f, repeat).seconds for f in (ours, theirs))
            rows.append(
                {
                    "task": f"{task} ({n} x 300, {Y.shape[1]} labels)",
                    "mlnb s": t_ours,
                    "scikit-learn s": t_theirs,
                    "ratio": t_ours / t_theirs,
                }
            )
            if progress is not None:
                progress(rows[-1])
    return rows
