"""The classical classifiers equal scikit-learn's on real benchmark data.

Single-label targets are the label sets of multi-label data (label-powerset classes), so
there are many classes, some with a single row.
"""

import numpy as np
import pytest
from sklearn import naive_bayes as sk

import mlnb


def label_set_classes(Y):
    return np.unique(Y, axis=0, return_inverse=True)[1].ravel()


@pytest.mark.parametrize("name", ["scene", "yeast"])
def test_gaussian_equals_scikit_learn(shared_dataset, name):
    train, test = shared_dataset(name, "train"), shared_dataset(name, "test")
    y = label_set_classes(train.Y)
    ours = mlnb.GaussianNB().fit(train.X, y)
    theirs = sk.GaussianNB().fit(train.X, y)
    np.testing.assert_allclose(ours.predict_proba(test.X), theirs.predict_proba(test.X), atol=1e-8)
    np.testing.assert_array_equal(ours.predict(test.X), theirs.predict(test.X))


@pytest.mark.parametrize("name", ["medical", "enron"])
@pytest.mark.parametrize(
    "ours,theirs",
    [
        (mlnb.MultinomialNB(alpha=0.1), sk.MultinomialNB(alpha=0.1)),
        (mlnb.MultinomialNB(fit_prior=False), sk.MultinomialNB(fit_prior=False)),
        (mlnb.BernoulliNB(alpha=0.5), sk.BernoulliNB(alpha=0.5)),
    ],
    ids=["multinomial", "multinomial-uniform-prior", "bernoulli"],
)
def test_discrete_models_equal_scikit_learn(shared_dataset, name, ours, theirs):
    train, test = shared_dataset(name, "train"), shared_dataset(name, "test")
    y = label_set_classes(train.Y)
    ours, theirs = ours.fit(train.X, y), theirs.fit(train.X, y)
    np.testing.assert_allclose(ours.predict_proba(test.X), theirs.predict_proba(test.X), atol=1e-8)
    np.testing.assert_array_equal(ours.predict(test.X), theirs.predict(test.X))
