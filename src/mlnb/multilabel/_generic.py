"""The generic path: multi-label methods built on clones of any scikit-learn classifier.

Binary relevance, classifier chains (and so their ensembles) and label powerset take a
``base_estimator``; this module is the one home of what they then share: fitting a clone
per binary or multi-class problem (a constant problem becomes its constant, as a
classifier cannot be fitted on one class), reading a positive-class probability, feeding
decided labels to the next classifier of a chain, and refusing what only the Naive Bayes
path can do.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

__all__ = [
    "check_nb_path",
    "chain_predict",
    "fit_binary",
    "fit_chain",
    "fit_multiclass",
    "multiclass_predictions",
    "positive_proba",
    "predict_binary",
    "with_labels",
]


def check_nb_path(estimator, what):
    """Raise unless ``estimator`` is on the Naive Bayes path (no ``base_estimator``)."""
    if getattr(estimator, "base_estimator", None) is not None:
        raise ValueError(f"{what} is available on the Naive Bayes path only")


def _fit_clone(base_estimator, X, y, sample_weight):
    model = clone(base_estimator)
    if sample_weight is None:
        return model.fit(X, y)
    return model.fit(X, y, sample_weight=sample_weight)


def fit_binary(base_estimator, X, y, sample_weight=None):
    """A fitted clone for one 0/1 problem, or the constant (a float) if ``y`` is constant."""
    if np.all(y == y[0]):
        return float(y[0])
    return _fit_clone(base_estimator, X, y, sample_weight)


def positive_proba(model, X):
    """``P(y = 1 | x)`` of a model from :func:`fit_binary` (0/1 if it has no probabilities)."""
    if isinstance(model, float):
        return np.full(X.shape[0], model)
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)[:, list(model.classes_).index(1)]
    return np.asarray(model.predict(X)).astype(float)


def predict_binary(model, X):
    """0/1 predictions of a model from :func:`fit_binary`."""
    if isinstance(model, float):
        return np.full(X.shape[0], int(model))
    return np.asarray(model.predict(X)).astype(int)


def with_labels(X, labels):
    """X with label columns appended (sparse stays sparse)."""
    if sp.issparse(X):
        return sp.hstack([X, sp.csr_matrix(labels)], format="csr")
    return np.hstack([X, labels])


def fit_chain(base_estimator, X, Y, order, sample_weight=None):
    """A chain of clones: the k-th in ``order`` sees X and the labels before it."""
    return [
        fit_binary(
            base_estimator, with_labels(X, Y[:, order[:position]]), Y[:, label], sample_weight
        )
        for position, label in enumerate(order)
    ]


def chain_predict(estimators, order, X, n_labels):
    """0/1 labels and conditional log-odds along a fitted chain, each (n_samples, n_labels)."""
    labels = np.zeros((X.shape[0], n_labels), dtype=int)
    proba = np.zeros((X.shape[0], n_labels))
    for position, (label, model) in enumerate(zip(order, estimators, strict=True)):
        inputs = X if isinstance(model, float) else with_labels(X, labels[:, order[:position]])
        labels[:, label] = predict_binary(model, inputs)
        proba[:, label] = positive_proba(model, inputs)
    with np.errstate(divide="ignore"):
        return labels, np.log(proba) - np.log1p(-proba)


def fit_multiclass(base_estimator, X, classes, sample_weight=None):
    """A fitted clone for a multi-class problem, or the class index if there is one class."""
    if np.all(classes == classes[0]):
        return int(classes[0])
    return _fit_clone(base_estimator, X, classes, sample_weight)


def multiclass_predictions(model, X, sets):
    """(marginal ``P(label = 1 | x)``, predicted 0/1 label set) of a label-powerset model.

    ``sets`` (n_classes x n_labels) holds the label set of each class of ``model``, a
    model from :func:`fit_multiclass`.
    """
    if not hasattr(model, "predict"):
        predicted = np.repeat(sets[[model]], X.shape[0], axis=0)
        return predicted.astype(float), predicted
    predicted = sets[model.predict(X)]
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X) @ sets[model.classes_], predicted
    return predicted.astype(float), predicted
