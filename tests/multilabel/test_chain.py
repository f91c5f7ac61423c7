"""ClassifierChain: order-free NB chain, inference strategies, generic path."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import ClassifierChain as SklearnChain

from mlnb import MixedNB
from mlnb.multilabel import ClassifierChain
from mlnb.multilabel._inference import (
    _sampled_marginals,
    beam_search,
    chain_marginals,
    exact_search,
    greedy_search,
    joint_log_proba,
    stacked_layout,
    stacked_search,
)


def dependent_labels(seed, n=300, d=8, n_labels=6, counts=False):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, n_labels)) < 0.3).astype(int)
    Y[:, 1] = Y[:, 0] ^ (rng.random(n) < 0.1)  # label 1 follows label 0
    Y[:, 2] = Y[:, 1] & (rng.random(n) < 0.7)
    centres = rng.normal(0, 1, size=(n_labels, d))
    X = Y @ centres + rng.normal(0, 1.5, size=(n, d))
    if counts:
        X = rng.poisson(np.exp(0.4 * X).clip(0, 20)).astype(float)
    return X, Y


def retrained_chain(X, Y, order, events, X_test):
    """A chain of MixedNB classifiers retrained in ``order`` (the definition)."""
    d = X.shape[1]
    predicted = np.zeros((X_test.shape[0], Y.shape[1]), dtype=int)
    for i, label in enumerate(order):
        earlier = order[:i]
        blocks = [(events, slice(0, d))] + ([("bernoulli", slice(d, None))] if i else [])
        model = MixedNB(blocks=blocks).fit(np.hstack([X, Y[:, earlier]]), Y[:, label])
        predicted[:, label] = model.predict(np.hstack([X_test, predicted[:, earlier]]))
    return predicted


@pytest.mark.parametrize("events,counts", [("gaussian", False), ("multinomial", True)])
def test_order_free_greedy_chain_equals_retrained_chain(events, counts):
    X, Y = dependent_labels(0, counts=counts)
    chain = ClassifierChain(events=events, rule="predict").fit(X, Y)  # the chain's own rule
    rng = np.random.default_rng(1)
    for order in [np.arange(6), np.arange(6)[::-1], *(rng.permutation(6) for _ in range(3))]:
        expected = retrained_chain(X, Y, order, events, X)
        np.testing.assert_array_equal(chain.predict(X, order=order), expected)
    refit = ClassifierChain(events=events, rule="predict", order=order).fit(X, Y)
    np.testing.assert_array_equal(refit.predict(X), chain.predict(X, order=order))


def chain_terms(seed, n=40, n_labels=5):
    rng = np.random.default_rng(seed)
    base = rng.normal(0, 2, size=(n, n_labels))
    weight = rng.normal(0, 2, size=(n_labels, n_labels))
    absent = rng.normal(0, 1, size=(n_labels, n_labels))
    np.fill_diagonal(weight, 0)
    np.fill_diagonal(absent, 0)
    return base, weight, absent, rng.permutation(n_labels)


def every_vector(base, weight, absent, order):
    """Every label vector with the chain's joint log-probability of it, by its definition."""
    for vector in itertools.product([0, 1], repeat=base.shape[1]):
        v = np.array(vector)
        log_p = np.zeros(base.shape[0])
        for position, k in enumerate(order):
            earlier = order[:position]
            s = base[:, k] + v[earlier] @ weight[k, earlier] + absent[k, earlier].sum()
            log_p += np.log(1 / (1 + np.exp(-s))) if v[k] else np.log(1 / (1 + np.exp(s)))
        yield v, log_p


def brute_force(base, weight, absent, order):
    """The most probable label vector of every row and its joint log-probability."""
    n, n_labels = base.shape
    best = np.full(n, -np.inf)
    best_vectors = np.zeros((n, n_labels), dtype=int)
    for v, log_p in every_vector(base, weight, absent, order):
        better = log_p > best
        best[better] = log_p[better]
        best_vectors[better] = v
    return best_vectors, best


@pytest.mark.parametrize("seed", range(4))
def test_exact_and_wide_beam_find_the_most_probable_vector(seed):
    base, weight, absent, order = chain_terms(seed)
    expected_vectors, expected = brute_force(base, weight, absent, order)
    vectors, conditional = exact_search(base, weight, absent, order)
    np.testing.assert_allclose(joint_log_proba(vectors, conditional), expected, rtol=1e-10)
    np.testing.assert_array_equal(vectors, expected_vectors)
    joint = joint_log_proba(*beam_search(base, weight, absent, order, width=32))
    np.testing.assert_allclose(joint, expected, rtol=1e-10)
    greedy = joint_log_proba(*beam_search(base, weight, absent, order, width=1))
    narrow = joint_log_proba(*beam_search(base, weight, absent, order, width=3))
    assert np.all(greedy <= narrow + 1e-12) and np.all(narrow <= joint + 1e-12)


def brute_force_marginals(base, weight, absent, order):
    """``P(y_k = 1 | x)`` under the chain's joint, summing every label vector's probability."""
    marginal = np.zeros(base.shape)
    for v, log_p in every_vector(base, weight, absent, order):
        marginal += np.exp(log_p)[:, None] * v
    return marginal


@pytest.mark.parametrize("seed,n_labels", [(0, 3), (1, 6), (2, 10)])
def test_marginals_equal_the_enumeration_and_sampling_converges_to_them(seed, n_labels):
    base, weight, absent, order = chain_terms(seed, n=30, n_labels=n_labels)
    expected = brute_force_marginals(base, weight, absent, order)
    exact = chain_marginals(base, weight, absent, order)  # L <= 10: enumerated
    np.testing.assert_allclose(1 / (1 + np.exp(-exact)), expected, atol=1e-12)
    sampled = _sampled_marginals(base, weight, absent, order, 4000, 0, 1 << 20)
    np.testing.assert_allclose(1 / (1 + np.exp(-sampled)), expected, atol=0.03)
    first = order[0]  # Rao-Blackwellised: the first label's estimate is exact
    np.testing.assert_allclose(sampled[:, first], exact[:, first], rtol=1e-12)


def test_sampled_marginals_stay_finite_where_probabilities_saturate():
    base, weight, absent, order = chain_terms(3, n=20, n_labels=12)
    base *= 400  # conditional probabilities are 0 or 1 in floating point
    marginal = chain_marginals(base, weight, absent, order, n_draws=5)
    assert np.isfinite(marginal).all() and np.abs(marginal).max() > 745


def test_marginal_inference_predicts_where_the_marginal_exceeds_one_half():
    X, Y = dependent_labels(4)
    # the own rule of marginal inference (the event model is still chosen from the data)
    chain = ClassifierChain(inference="marginal", rule="predict").fit(X, Y)
    proba = chain.predict_proba(X)
    np.testing.assert_array_equal(chain.predict(X), (proba > 0.5).astype(int))
    base = chain._independent_log_odds(X)
    weight, absent = chain._label_pairs
    expected = brute_force_marginals(base, weight, absent, chain.order_)
    np.testing.assert_allclose(proba, expected, atol=1e-10)
    np.testing.assert_allclose(chain.decision_function(X), np.log(proba / (1 - proba)), atol=1e-6)
    joint = chain.predict_joint_log_proba(X)
    assert np.all(joint <= 0) and np.all(np.isfinite(joint))
    labels, expected_joint = chain.predict(X), np.full(len(X), np.nan)
    for v, log_p in every_vector(base, weight, absent, chain.order_):
        same = np.all(labels == v, axis=1)
        expected_joint[same] = log_p[same]
    np.testing.assert_allclose(joint, expected_joint, rtol=1e-10)
    many = np.hstack([Y, Y, Y[:, :2]])  # 14 labels: sampled, seeded by random_state
    first = ClassifierChain(inference="marginal", n_draws=20, random_state=3).fit(X, many)
    again = ClassifierChain(inference="marginal", n_draws=20, random_state=3).fit(X, many)
    np.testing.assert_array_equal(first.decision_function(X), again.decision_function(X))


def test_greedy_is_the_sign_of_the_conditional_log_odds_and_block_size_is_irrelevant():
    base, weight, absent, order = chain_terms(9, n=50, n_labels=9)
    reference = beam_search(base, weight, absent, order, width=1, block=1)
    labels, conditional = reference
    np.testing.assert_array_equal(labels, (conditional > 0).astype(int))
    # the conditional log-odds of each label given the labels decided before it
    for position, k in enumerate(order):
        earlier = order[:position]
        s = base[:, k] + labels[:, earlier] @ weight[k, earlier] + absent[k, earlier].sum()
        np.testing.assert_allclose(conditional[:, k], s, rtol=1e-12)
    for width in (1, 4):
        wide = beam_search(base, weight, absent, order, width=width, block=1)
        for block in (2, 4, 64):
            other = beam_search(base, weight, absent, order, width=width, block=block)
            np.testing.assert_array_equal(other[0], wide[0])
            np.testing.assert_allclose(other[1], wide[1], rtol=1e-12)


def test_exact_refuses_many_labels_and_suggests_beam():
    X = np.random.default_rng(0).normal(size=(30, 3))
    Y = (np.random.default_rng(1).random((30, 21)) < 0.5).astype(int)
    chain = ClassifierChain(events="gaussian", rule="predict", inference="exact").fit(X, Y)
    with pytest.raises(ValueError, match="inference='beam'"):
        chain.predict(X)
    # settings chosen from the data score the rows out of fold: fit itself refuses
    with pytest.raises(ValueError, match="inference='beam'"):
        ClassifierChain(inference="exact").fit(X, Y)


def test_constant_labels_and_label_dtypes():
    X, Y = dependent_labels(2)
    Y[:, 3] = 0
    Y[:, 4] = 1
    expected = ClassifierChain(inference="beam").fit(X, Y).predict(X)
    assert np.all(expected[:, 3] == 0) and np.all(expected[:, 4] == 1)
    for variant in (Y.astype(bool), Y.astype(np.uint8), sp.csr_matrix(Y), Y.astype(float)):
        got = ClassifierChain(inference="beam").fit(X, variant).predict(X)
        np.testing.assert_array_equal(got, expected)


def test_partial_fit_and_merge_equal_fit():
    X, Y = dependent_labels(3, counts=True)
    given = {"events": "multinomial", "rule": "predict"}  # nothing chosen: batches add up
    whole = ClassifierChain(**given, order="random", random_state=0).fit(X, Y)
    online = ClassifierChain(**given, order="random", random_state=0)
    for rows in np.array_split(np.arange(len(X)), 4):
        online.partial_fit(X[rows], Y[rows])
    a = ClassifierChain(**given, order="random", random_state=0).fit(X[:100], Y[:100])
    b = ClassifierChain(**given, order="random", random_state=0).fit(X[100:], Y[100:])
    for model in (online, a.merge(b)):
        np.testing.assert_array_equal(model.order_, whole.order_)
        np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X), rtol=1e-9)


def test_generic_chain_equals_scikit_learn_chain():
    X, Y = dependent_labels(4)
    order = [2, 0, 1, 5, 3, 4]
    ours = ClassifierChain(base_estimator=LogisticRegression(), order=order).fit(X, Y)
    theirs = SklearnChain(LogisticRegression(), order=order).fit(X, Y)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-7)


def test_bad_arguments():
    X, Y = dependent_labels(5)
    with pytest.raises(ValueError, match="inference must be one of"):
        ClassifierChain(inference="viterbi").fit(X, Y)
    chain = ClassifierChain().fit(X, Y)
    with pytest.raises(ValueError, match="permutation"):
        chain.predict(X, order=[0, 1, 2])
    with pytest.raises(ValueError, match="Y has 5 labels"):
        chain.partial_fit(X, Y[:, :5])
    with pytest.raises(ValueError, match="only 0 and 1"):
        ClassifierChain().fit(X, Y * 2)
    with pytest.raises(ValueError, match="2-D label-indicator"):
        ClassifierChain().fit(X, Y[:, 0])


@pytest.mark.parametrize("block", [None, 1, 3, 64])
def test_stacked_greedy_search_equals_each_chain_alone(block):
    rng = np.random.default_rng(12)
    n_chains, n, n_labels = 4, 30, 7
    base = rng.normal(0, 2, size=(n, n_chains * n_labels))
    weight = rng.normal(0, 2, size=(n_chains, n_labels, n_labels))
    absent = rng.normal(0, 1, size=(n_chains, n_labels, n_labels))
    orders = np.array([rng.permutation(n_labels) for _ in range(n_chains)])
    layout = stacked_layout(base, weight, absent, orders)
    labels, conditional = stacked_search(*layout, block=block)
    layout = stacked_layout(base, weight, absent, orders)
    hard, none = stacked_search(*layout, conditional=False)
    assert none is None
    for k in range(n_chains):
        columns = slice(k * n_labels, (k + 1) * n_labels)
        one = greedy_search(base[:, columns], weight[k], absent[k], orders[k])
        np.testing.assert_array_equal(labels[k], one[0])
        np.testing.assert_array_equal(hard[k], one[0])
        np.testing.assert_allclose(conditional[k], one[1], rtol=1e-12, atol=1e-12)


def test_marginal_label_prior_is_the_m_estimate_and_tends_to_binary_relevance():
    from mlnb import BinaryRelevance
    from mlnb.multilabel._label_model import label_log_odds

    X, Y = dependent_labels(7)
    chain = ClassifierChain(label_prior="marginal", label_alpha=3.0).fit(X, Y)
    weight, absent = label_log_odds(chain.label_stats_, 3.0, prior="marginal")
    n, (k, j) = len(Y), (2, 1)  # P(y_j = 1 | y_k = v) = (C + 2 alpha p_j) / (N_v + 2 alpha)
    p_j = (Y[:, j].sum() + 1) / (n + 2)
    rows = Y[:, k] == 1
    p1 = (Y[rows, j].sum() + 6 * p_j) / (rows.sum() + 6)
    p0 = (Y[~rows, j].sum() + 6 * p_j) / ((~rows).sum() + 6)
    assert absent[k, j] == pytest.approx(np.log((1 - p1) / (1 - p0)))
    assert weight[k, j] == pytest.approx(np.log(p1 / p0) - absent[k, j])
    assert np.all(np.diag(weight) == 0) and np.all(np.diag(absent) == 0)
    # many pseudo-counts: the label terms vanish and the chain is binary relevance
    weak = ClassifierChain(label_prior="marginal", label_alpha=1e9).fit(X, Y)
    br = BinaryRelevance().fit(X, Y)
    np.testing.assert_allclose(weak.decision_function(X), br.decision_function(X), atol=1e-6)
    with pytest.raises(ValueError, match="label_prior"):
        ClassifierChain(label_prior="bogus").fit(X, Y)
