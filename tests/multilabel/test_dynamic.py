"""DynamicChain: per-instance label orders from local F1 (Trajdos and Kurzynski)."""

import numpy as np
import pytest
import scipy.sparse as sp

from mlnb.multilabel import ClassifierChain
from mlnb.multilabel._inference import dynamic_greedy_search, greedy_search
from mlnb.multilabel._orders import local_f1_orders
from mlnb.multilabel.dynamic import DynamicChain

from .test_chain import chain_terms, dependent_labels

# A fixed order compared with an independent ClassifierChain: the event model is given (at
# events="tuned" it is chosen from the data) and the chain decides by its own 0.5 rule, as
# DynamicChain does (rule="tuned" would fit a decision rule)
OWN_CHAIN = {"events": "gaussian", "rule": "predict"}


def test_per_row_orders_equal_one_chain_per_row():
    base, weight, absent, _ = chain_terms(0, n=30, n_labels=6)
    orders = np.array([np.random.default_rng(i).permutation(6) for i in range(30)])
    labels, conditional = dynamic_greedy_search(base, weight, absent, orders, block=7)
    for i in range(30):
        one = greedy_search(base[i : i + 1], weight, absent, orders[i])
        np.testing.assert_array_equal(labels[i], one[0][0])
        np.testing.assert_allclose(conditional[i], one[1][0], rtol=1e-12)


def test_fixed_order_equals_classifier_chain():
    X, Y = dependent_labels(0)
    order = [3, 1, 0, 5, 2, 4]
    dynamic = DynamicChain(order=order, validation_fraction=0.0, events="gaussian", rule="predict")
    dynamic.fit(X, Y)
    chain = ClassifierChain(order=order, **OWN_CHAIN).fit(X, Y)
    np.testing.assert_array_equal(dynamic.predict(X), chain.predict(X))
    np.testing.assert_allclose(dynamic.predict_proba(X), chain.predict_proba(X), rtol=1e-12)
    np.testing.assert_array_equal(dynamic.predict_orders(X[:3]), np.tile(order, (3, 1)))


def test_local_f1_order_by_hand():
    # validation points at 0 and 3 on a line; test point at 1; beta = 1
    validation_X = np.array([[0.0], [3.0]])
    truth = np.array([[1, 1, 0], [1, 0, 1]])
    predicted = np.array([[1, 0, 0], [0, 0, 1]])
    mu = np.exp(-np.array([1.0, 4.0]) + 1.0)  # exp(-d^2), shifted by the smallest d^2 = 1
    # label 0: TP at v0, FN at v1; label 1: FN at v0; label 2: TP at v1
    f1 = np.array([2 * mu[0] / (2 * mu[0] + mu[1]), 0.0, 1.0])
    orders, local = local_f1_orders(np.array([[1.0]]), validation_X, truth, predicted, 1.0)
    np.testing.assert_allclose(local[0], f1)
    np.testing.assert_array_equal(orders[0], [2, 0, 1])
    sparse_orders, _ = local_f1_orders(
        sp.csr_matrix([[1.0]]), sp.csr_matrix(validation_X), truth, predicted, 1.0
    )
    np.testing.assert_array_equal(sparse_orders, orders)


def test_far_points_do_not_underflow():
    orders, local = local_f1_orders(
        np.array([[1000.0]]), np.array([[0.0], [1.0]]), np.eye(2), np.eye(2), 10.0
    )
    assert np.all(np.isfinite(local)) and local[0, 1] == 1.0  # only the nearest point counts
    np.testing.assert_array_equal(orders[0], [1, 0])


def test_dynamic_chain_end_to_end_and_beta_search():
    X, Y = dependent_labels(1, n=240)
    model = DynamicChain(random_state=0).fit(X, Y)
    assert model.beta_ in range(1, 11)
    orders = model.predict_orders(X)
    assert all(sorted(row) == list(range(6)) for row in orders)
    assert len({tuple(row) for row in orders}) > 1  # orders do differ between instances
    predicted = model.predict(X)
    assert predicted.shape == Y.shape and (predicted == Y).mean() > 0.8
    again = DynamicChain(random_state=0).fit(X, Y)
    np.testing.assert_array_equal(again.predict(X), predicted)
    fixed_beta = DynamicChain(beta=3.0, random_state=0).fit(X, sp.csr_matrix(Y))
    assert fixed_beta.beta_ == 3.0


def test_bad_arguments():
    X, Y = dependent_labels(2)
    with pytest.raises(ValueError, match="validation set"):
        DynamicChain(validation_fraction=0.0).fit(X, Y)
    with pytest.raises(ValueError, match="beta"):
        DynamicChain(beta=-1).fit(X, Y)
    with pytest.raises(ValueError, match="use fit"):
        DynamicChain().partial_fit(X, Y)


def test_a_fixed_order_learns_from_every_row():
    X, Y = dependent_labels(4)
    fixed = DynamicChain(
        order=[2, 0, 1, 3, 5, 4], events="gaussian", rule="predict", random_state=0
    ).fit(X, Y)
    chain = ClassifierChain(order=[2, 0, 1, 3, 5, 4], **OWN_CHAIN).fit(X, Y)
    assert fixed.feature_stats_.total_count == len(X)
    np.testing.assert_array_equal(fixed.predict(X), chain.predict(X))


def test_feature_names_are_kept():
    import pandas as pd

    X, Y = dependent_labels(5)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    model = DynamicChain(beta=2.0, random_state=0).fit(frame, Y)
    assert list(model.feature_names_in_) == list(frame.columns)
