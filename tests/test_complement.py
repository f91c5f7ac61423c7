"""The complement event model (Rennie et al. 2003) against scikit-learn's ComplementNB."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.naive_bayes import ComplementNB as SklearnComplementNB

from mlnb import BinaryRelevance, MixedNB
from mlnb.datasets import make_multilabel
from mlnb.events import Complement


def classifier(**params):
    # the complement scores ignore the class prior (as scikit-learn's): a uniform one
    return MixedNB(blocks=[(Complement(**params), slice(None))], fit_prior=False)


def count_data(seed, n=240, d=40, n_classes=5):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    rates = rng.gamma(0.5, 2.0, size=(n_classes, d))
    return rng.poisson(rates[y]).astype(float), y


@pytest.mark.parametrize("norm", [False, True])
@pytest.mark.parametrize("alpha", [1.0, 0.2])
@pytest.mark.parametrize("sparse", [False, True])
def test_equals_scikit_learn(norm, alpha, sparse):
    X, y = count_data(0)
    theirs = SklearnComplementNB(alpha=alpha, norm=norm).fit(X, y)
    data = sp.csr_matrix(X) if sparse else X
    ours = classifier(alpha=alpha, norm=norm).fit(data, y)
    np.testing.assert_allclose(ours.predict_proba(data), theirs.predict_proba(X), atol=1e-10)
    np.testing.assert_array_equal(ours.predict(data), theirs.predict(X))


def test_on_twenty_newsgroups_counts(shared_dataset):
    from mlnb.datasets import load_text_corpus
    from mlnb.text import word_counter

    shared_dataset("emotions")  # skips when ../shared/data is absent
    train, test = load_text_corpus("20ng", variant="stemmed")
    counter = word_counter()
    X = counter.fit_transform(train.documents[:1500])
    X_test = counter.transform(test.documents[:500])
    y = np.asarray(train.labels[:1500])
    theirs = SklearnComplementNB().fit(X, y)
    ours = classifier().fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test), atol=1e-10)


def test_chunks_and_partitions_equal_one_fit():
    X, y = count_data(1)
    whole = classifier(norm=True).fit(X, y)
    chunked = classifier(norm=True)
    for rows in np.array_split(np.arange(len(y)), 4):
        chunked.partial_fit(X[rows], y[rows], classes=np.unique(y))
    merged = classifier(norm=True).partial_fit(X[:100], y[:100], classes=np.unique(y))
    merged.merge(classifier(norm=True).partial_fit(X[100:], y[100:], classes=np.unique(y)))
    for model in (chunked, merged):
        np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X), atol=1e-12)


def test_binary_relevance_scores_each_label_against_its_complement():
    X, Y = make_multilabel(200, 20, 4, features="counts", doc_length=30, random_state=2)
    model = BinaryRelevance(events="complement", prior_alpha=1.0).fit(X, Y)
    assert isinstance(model.events_, Complement)
    assert model.predict(X).shape == Y.shape
    assert (model.predict(X) == Y).mean() > 0.7


def test_negative_values_are_refused():
    with pytest.raises(ValueError, match="non-negative counts"):
        classifier().fit(-np.eye(3), [0, 1, 2])
