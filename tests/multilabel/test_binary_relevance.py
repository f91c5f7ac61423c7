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
    # one-vs-rest NB predicts at 0.5: the model's own rule, not a tuned one
    ours = BinaryRelevance(events=events, rule="predict").fit(train.X, train.Y)
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
        # label accuracy of the 0.5 rule: a tuned rule maximises micro F1 instead (it
        # chooses SCut here, 0.58 to 0.62 label accuracy against 0.73 for the 0.5 rule)
        model = BinaryRelevance(events=events, rule="predict").fit(X, Y)
        assert (model.predict(X) == Y).mean() > 0.7
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


@pytest.mark.parametrize("sparse_labels", [False, True])
def test_labels_first_seen_in_a_later_batch_equal_the_zero_padded_fit(sparse_labels):
    rng = np.random.default_rng(5)
    Y = (rng.random((150, 5)) < 0.4).astype(int)
    X = rng.poisson(1 + 3 * Y @ rng.random((5, 7)))
    parts = [(slice(0, 50), 3), (slice(50, 100), 4), (slice(100, 150), 5)]  # rows, labels
    model = BinaryRelevance(events="multinomial", rule="predict")  # as test_new_labels.py
    for rows, n_labels in parts:
        batch = Y[rows, :n_labels]
        model.partial_fit(X[rows], sp.csr_matrix(batch) if sparse_labels else batch)
    padded = Y.copy()
    padded[:50, 3:] = 0
    padded[50:100, 4:] = 0
    whole = BinaryRelevance(events="multinomial", rule="predict").fit(X, padded)
    assert model.n_labels_ == 5
    np.testing.assert_allclose(model.predict_log_odds(X), whole.predict_log_odds(X))
    with pytest.raises(ValueError, match="Y has 4 labels; this model was fitted with 5"):
        model.partial_fit(X[:10], Y[:10, :4])


def test_prequential_over_a_growing_label_set():
    from mlnb.evaluation import prequential

    rng = np.random.default_rng(6)
    Y = (rng.random((120, 4)) < 0.4).astype(int)
    X = rng.poisson(1 + 3 * Y @ rng.random((4, 6)))
    batches = [(X[:40], Y[:40, :3]), (X[40:80], Y[40:80]), (X[80:], Y[80:])]
    model = BinaryRelevance(events="multinomial")  # the rule is chosen on the first batch
    with pytest.warns(UserWarning, match=r"fitted to 3 labels .* until retune"):
        result = prequential(model, batches, metrics="hamming")
    assert len(result.n_rows) == 2 and np.isfinite(result.scores["hamming"]).all()
