"""BaggedBinaryRelevance: the samples of ECC's chains, a binary-relevance model on each."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression

from mlnb import BaggedBinaryRelevance, BinaryRelevance, EnsembleClassifierChains

from .test_chain import dependent_labels


class RowRecorder(ClassifierMixin, BaseEstimator):
    """Remembers the row ids (column 0 of X) it was fitted on; predicts the majority."""

    def fit(self, X, y, sample_weight=None):
        self.rows_ = np.asarray(X)[:, 0].astype(int)
        self.classes_ = np.unique(y)
        self.majority_ = self.classes_[np.argmax(np.bincount(np.searchsorted(self.classes_, y)))]
        return self

    def predict(self, X):
        return np.full(len(X), self.majority_)


def with_row_ids(X):
    return np.column_stack([np.arange(len(X)), X])


@pytest.mark.parametrize("bootstrap", [False, True])
def test_member_k_has_the_rows_of_chain_k_of_ecc_with_the_same_seed(bootstrap):
    X, Y = dependent_labels(2, n=150)
    X = with_row_ids(X)
    settings = {"sample_fraction": 0.5, "bootstrap": bootstrap, "random_state": 7}
    bagged = BaggedBinaryRelevance(n_estimators=4, base_estimator=RowRecorder(), **settings)
    ecc = EnsembleClassifierChains(n_chains=4, base_estimator=RowRecorder(), **settings)
    bagged.fit(X, Y), ecc.fit(X, Y)
    memberships = bagged.memberships(len(X), Y.shape[1])
    for k, (member, chain) in enumerate(zip(bagged.estimators_, ecc.estimators_, strict=True)):
        rows = member.estimators_[0].rows_
        np.testing.assert_array_equal(rows, chain.estimators_[0].rows_)
        np.testing.assert_array_equal(np.bincount(rows, minlength=len(X)), memberships[:, k])
    assert memberships.sum(axis=0).tolist() == [75] * 4
    assert bool(bootstrap) == bool((memberships > 1).any())


def test_naive_bayes_members_and_the_votes():
    X, Y = dependent_labels(3, n=200)
    # given event model (events="tuned" chooses it from the data); the members decide by
    # their own 0.5 rule (rule="tuned" would fit a decision rule)
    gaussian = {"events": "gaussian"}
    soft = BaggedBinaryRelevance(n_estimators=3, voting="soft", random_state=0, **gaussian)
    soft.fit(X, Y)
    members = [
        BinaryRelevance(rule="predict", **gaussian).fit(X[rows], Y[rows])
        for rows in (np.flatnonzero(m) for m in soft.memberships(len(X), Y.shape[1]).T)
    ]
    probabilities = np.mean([m.predict_proba(X) for m in members], axis=0)
    np.testing.assert_allclose(soft.predict_proba(X), probabilities)
    np.testing.assert_array_equal(soft.predict(X), (probabilities > 0.5).astype(int))
    scores = np.mean([m.decision_function(X) for m in members], axis=0)
    np.testing.assert_allclose(soft.decision_function(X), scores)
    hard = BaggedBinaryRelevance(n_estimators=3, random_state=0, **gaussian).fit(X, Y)
    votes = np.mean([m.predict(X) for m in members], axis=0)
    np.testing.assert_allclose(hard.predict_proba(X), votes)
    np.testing.assert_array_equal(hard.predict(X), (votes > 0.5).astype(int))


def test_explicit_memberships_and_their_errors():
    X, Y = dependent_labels(4, n=60)
    counts = np.zeros((60, 2), dtype=int)
    counts[:30, 0], counts[30:, 1] = 1, 2
    model = BaggedBinaryRelevance(n_estimators=2, base_estimator=LogisticRegression())
    model.fit(X, Y, memberships=counts)
    first = BinaryRelevance(base_estimator=LogisticRegression()).fit(X[:30], Y[:30])
    np.testing.assert_allclose(
        model.estimators_[0].decision_function(X), first.decision_function(X)
    )
    for bad, said in [
        (counts[:, :1], "shape"),
        (counts - 1, "non-negative integers"),
        (counts * 0.5, "non-negative integers"),
        (np.column_stack([counts[:, 0], 0 * counts[:, 1]]), "at least one row"),
    ]:
        with pytest.raises(ValueError, match=said):
            model.fit(X, Y, memberships=bad)
    with pytest.raises(ValueError, match="voting"):
        BaggedBinaryRelevance(voting="mean").fit(X, Y)
