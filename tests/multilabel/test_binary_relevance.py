"""BinaryRelevance: equal to scikit-learn's one-vs-rest NB, in one pass."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import naive_bayes as sk
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import LinearSVC

from mlnb import BinaryRelevance

from .test_chain import dependent_labels

CASES = [
    ("medical", "multinomial", sk.MultinomialNB()),
    ("enron", "multinomial", sk.MultinomialNB()),
    ("enron", "bernoulli", sk.BernoulliNB()),
    ("scene", "gaussian", sk.GaussianNB()),
    ("yeast", "gaussian", sk.GaussianNB()),
]


@pytest.mark.filterwarnings("ignore:Label not")  # scikit-learn's note on constant labels
@pytest.mark.parametrize("name,events,theirs", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_equals_one_vs_rest_on_real_data(shared_dataset, name, events, theirs):
    train, test = shared_dataset(name, "train"), shared_dataset(name, "test")
    ours = BinaryRelevance(events=events).fit(train.X, train.Y)
    reference = OneVsRestClassifier(theirs).fit(train.X, train.Y)
    np.testing.assert_array_equal(ours.predict(test.X), reference.predict(test.X))
    np.testing.assert_allclose(
        ours.predict_proba(test.X), reference.predict_proba(test.X), atol=1e-8
    )


def test_label_dtype_does_not_matter_on_delicious(shared_dataset):
    # 983 labels: a uint8 label matrix must not be mixed up (see DESIGN.md, conventions)
    train, test = shared_dataset("delicious", "train"), shared_dataset("delicious", "test")
    X, Y = train.X[:3000], train.Y[:3000]
    expected = BinaryRelevance(events="multinomial").fit(X, Y.astype(np.int64)).predict(test.X)
    for variant in (Y.astype(np.uint8), Y.astype(bool), sp.csr_matrix(Y)):
        got = BinaryRelevance(events="multinomial").fit(X, variant).predict(test.X)
        np.testing.assert_array_equal(got, expected)


def test_constant_labels_partial_fit_and_merge():
    X, Y = dependent_labels(0, counts=True)
    Y[:, 0], Y[:, 1] = 0, 1
    whole = BinaryRelevance(events="multinomial").fit(X, Y)
    proba = whole.predict_proba(X)
    assert np.all(proba[:, 0] == 0) and np.all(proba[:, 1] == 1)
    online = BinaryRelevance(events="multinomial")
    for rows in np.array_split(np.arange(len(X)), 3):
        online.partial_fit(X[rows], Y[rows])
    merged = BinaryRelevance(events="multinomial").fit(X[:100], Y[:100])
    merged.merge(BinaryRelevance(events="multinomial").fit(X[100:], Y[100:]))
    for model in (online, merged):
        np.testing.assert_allclose(model.predict_proba(X), proba, rtol=1e-9)


@pytest.mark.filterwarnings("ignore:Label not")
def test_bayesian_events_and_generic_base():
    X, Y = dependent_labels(1, counts=True)
    for events in ("bayesian_multinomial", "bayesian_bernoulli", "bayesian_gaussian"):
        assert (BinaryRelevance(events=events).fit(X, Y).predict(X) == Y).mean() > 0.7
    Y[:, 5] = 0
    generic = BinaryRelevance(base_estimator=LinearSVC()).fit(X, Y)
    reference = OneVsRestClassifier(LinearSVC()).fit(X, Y)
    np.testing.assert_array_equal(generic.predict(X), reference.predict(X))


def test_rejected_partial_fit_leaves_the_model_unchanged():
    X, Y = dependent_labels(2, counts=True)
    model = BinaryRelevance(events="multinomial").fit(X, Y)
    before = model.predict_proba(X)
    for bad_X, bad_Y, message in [
        (-X, Y, "Negative values"),
        (X, Y[:, :3], "Y has 3 labels"),
        (X[:, :3], Y, "features"),
        (X, Y[:-1], "rows"),
    ]:
        with pytest.raises(ValueError, match=message):
            model.partial_fit(bad_X, bad_Y)
    np.testing.assert_array_equal(model.predict_proba(X), before)
