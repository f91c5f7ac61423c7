"""The paper's TF-IDF and the text pipelines."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlnb import BayesianGaussianNB, BernoulliNB, GaussianNB, MultinomialNB
from mlnb.text import LogTfidfTransformer, make_text_pipeline, word_counter


@parametrize_with_checks([LogTfidfTransformer()])
def test_scikit_learn_api(estimator, check):
    check(estimator)


def test_tfidf_by_hand():
    counts = np.array([[3.0, 1.0, 0.0, 2.0], [0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    # l = 3 documents; df = (2, 3, 1, 1)
    idf = np.log2([3 / 2, 3 / 3, 3 / 1, 3 / 1])
    expected = np.log1p(counts) * idf
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    for X in (counts, sp.csr_matrix(counts)):
        got = LogTfidfTransformer().fit_transform(X)
        assert sp.issparse(got)
        np.testing.assert_allclose(got.toarray(), expected, rtol=1e-12)
    model = LogTfidfTransformer().fit(counts)
    np.testing.assert_allclose(model.idf_, idf)
    with pytest.raises(ValueError, match="Negative values"):
        model.transform(-counts)


DOCS = ["ball goal team", "team ball win", "vote law party", "party vote tax", "goal win ball"]
LABELS = ["sport", "sport", "politics", "politics", "sport"]


@pytest.mark.parametrize(
    "classifier,uses_tfidf",
    [
        (MultinomialNB(), False),
        (BernoulliNB(), False),
        (GaussianNB(), True),
        (BayesianGaussianNB(a=0.01, b=0.01), True),
    ],
)
def test_pipeline_representation(classifier, uses_tfidf):
    pipeline = make_text_pipeline(classifier).fit(DOCS, LABELS)
    assert ("tfidf" in pipeline.named_steps) == uses_tfidf
    assert list(pipeline.predict(["team goal", "tax law"])) == ["sport", "politics"]


def test_word_counter_keeps_tokens_as_given():
    counter = word_counter().fit(["a bb C-d", "bb"])
    assert sorted(counter.vocabulary_) == ["C-d", "a", "bb"]
