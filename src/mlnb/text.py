"""Text classification: the Bayesian NB paper's TF-IDF and pipelines from text to classifiers.

Xu (2018), section 5: documents become word counts (scikit-learn's ``CountVectorizer``);
multinomial models use the counts, Bernoulli models their presence (the classifiers'
``binarize=0``), and Gaussian models the TF-IDF vectors ``ln(1 + tf) * log2(l / df)``, each
document scaled to unit length. The corpora of :func:`mlnb.datasets.load_text_corpus` are
already cleaned and tokenised (words separated by single spaces), so the vectorizer only
splits on white space.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import normalize
from sklearn.utils.validation import check_is_fitted, validate_data

from ._registered import Registered

__all__ = ["LogTfidfTransformer", "make_text_pipeline", "word_counter"]


class LogTfidfTransformer(Registered, OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """TF-IDF of Xu 2018 (section 5): ``ln(1 + tf) * log2(l / df)``, rows scaled to unit length.

    ``l`` is the number of training documents and ``df`` a word's document frequency in
    them. A word in every training document gets weight 0, and a word in none (possible
    with a fixed vocabulary) gets the weight of ``df = 1``. Sparse in, sparse out.

    Attributes
    ----------
    idf_ : ndarray of shape (n_features,)
        ``log2(l / df)``.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.text import LogTfidfTransformer
    >>> counts = np.array([[2, 0, 1], [0, 1, 1]])
    >>> LogTfidfTransformer().fit_transform(counts).toarray().round(3)
    array([[1., 0., 0.],
           [0., 1., 0.]])
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        return tags

    def fit(self, X, y=None):
        """Learn the document frequencies of the training documents."""
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=True)
        _check_counts(X)
        n_documents = X.shape[0]
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            X.sum_duplicates()
            document_frequency = np.bincount(X.indices[X.data != 0], minlength=X.shape[1])
        else:
            document_frequency = np.count_nonzero(X, axis=0)
        self.idf_ = np.log2(n_documents / np.maximum(document_frequency, 1))
        return self

    def transform(self, X):
        """TF-IDF rows of unit Euclidean length (a CSR matrix)."""
        check_is_fitted(self, "idf_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        _check_counts(X)
        X = sp.csr_matrix(X, copy=True)
        X.data = np.log1p(X.data) * self.idf_[X.indices]
        X.eliminate_zeros()
        return normalize(X, norm="l2", copy=False)


def _check_counts(X):
    values = X.data if sp.issparse(X) else X
    if values.size and values.min() < 0:
        raise ValueError(
            "Negative values in data passed to LogTfidfTransformer: it needs term counts"
        )


def word_counter(**options):
    """A ``CountVectorizer`` for pre-tokenised text: words are runs of non-blank characters."""
    settings = {"token_pattern": r"\S+", "lowercase": False, "dtype": np.float64}
    settings.update(options)
    return CountVectorizer(**settings)


def make_text_pipeline(classifier, *, vectorizer=None, tfidf=None):
    """Text -> counts -> (TF-IDF for Gaussian models) -> classifier, as Xu 2018 does.

    Parameters
    ----------
    classifier : mlnb classifier
        Its event model decides the representation: Gaussian models (classical or Bayesian)
        get TF-IDF vectors; multinomial models counts; Bernoulli models counts, binarised
        by the classifier (``binarize=0``: presence).
    vectorizer : CountVectorizer or None
        Default :func:`word_counter`.
    tfidf : bool or None
        Force TF-IDF on (True) or off (False); None decides from the event model.

    Returns
    -------
    sklearn.pipeline.Pipeline
    """
    if tfidf is None:
        events = classifier.event_model() if hasattr(classifier, "event_model") else None
        tfidf = getattr(events, "input_kind", None) == "real"
    steps = [("counts", vectorizer if vectorizer is not None else word_counter())]
    if tfidf:
        steps.append(("tfidf", LogTfidfTransformer()))
    steps.append(("classifier", classifier))
    return Pipeline(steps)
