"""KNNChain: nearest neighbours in the label-extended space (Trajdos and Kurzynski, eqs. 10-11)."""

import numpy as np
import pytest
import scipy.sparse as sp

from mlnb.multilabel.knn_chain import KNNChain

from .test_chain import dependent_labels


def brute_force_chain(X_train, Y_train, X, order, R):
    """The chain by its definition: one row at a time, distances recomputed each step."""
    out = np.zeros((len(X), Y_train.shape[1]), dtype=int)
    for i, x in enumerate(X):
        decided = []
        for label in order:
            extended_train = np.hstack([X_train, Y_train[:, decided]])
            extended_x = np.concatenate([x, out[i, decided]])
            d = ((extended_train - extended_x) ** 2).sum(axis=1)
            nearest = np.argsort(d, kind="stable")[:R]
            out[i, label] = Y_train[nearest, label].mean() > 0.5
            decided.append(label)
    return out


def test_incremental_distances_equal_the_definition():
    X, Y = dependent_labels(0, n=80)
    order = [2, 0, 5, 1, 4, 3]
    model = KNNChain(n_neighbors=5, order=order, scale=False).fit(X[:60], Y[:60])
    expected = brute_force_chain(X[:60], Y[:60], X[60:], order, 5)
    np.testing.assert_array_equal(model.predict(X[60:]), expected)
    sparse = KNNChain(n_neighbors=5, order=order, scale=False).fit(sp.csr_matrix(X[:60]), Y[:60])
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X[60:])), expected)


def test_dynamic_order_and_neighbour_search():
    X, Y = dependent_labels(1, n=200)
    model = KNNChain(order="local_f1", random_state=0).fit(X, Y)
    assert model.n_neighbors_ in (1, 3, 5, 7, 9, 11)
    orders = model.predict_orders(X)
    assert all(sorted(row) == list(range(6)) for row in orders)
    assert (model.predict(X) == Y).mean() > 0.75
    with pytest.raises(ValueError, match="n_neighbors"):
        KNNChain(n_neighbors=0).fit(X, Y)


def test_predict_in_orders_is_the_chain_in_each_order():
    X, Y = dependent_labels(2, n=150)
    model = KNNChain(n_neighbors=3).fit(X[:100], Y[:100])
    orders = [np.arange(6), np.array([5, 3, 1, 0, 2, 4]), np.arange(6)[::-1]]
    labels = model.predict_in_orders(X[100:], orders)
    assert labels.shape == (3, 50, 6) and labels.dtype == int
    for order, predicted in zip(orders, labels, strict=True):
        model.order_ = order
        np.testing.assert_array_equal(predicted, model.predict(X[100:]))
    with pytest.raises(ValueError, match="permutation"):
        model.predict_in_orders(X, [[0, 1]])
    with pytest.raises(ValueError, match="orders"):
        model.predict_in_orders(X, [])


def test_neighbour_search_cross_validates_the_chain_in_its_order():
    from sklearn.model_selection import KFold

    from mlnb.metrics import f1_score
    from mlnb.multilabel._knn_members import NEIGHBOURS, choose_neighbours

    X, Y = dependent_labels(3, n=120)
    order = np.array([4, 2, 0, 1, 5, 3])
    rng = np.random.RandomState(0)
    chosen = choose_neighbours(X, Y, rng, chain_order=order)
    folds = KFold(3, shuffle=True, random_state=np.random.RandomState(0).randint(2**31 - 1))
    scores = np.zeros(len(NEIGHBOURS))
    for train, test in folds.split(X):
        for i, R in enumerate(NEIGHBOURS):
            chain = KNNChain(n_neighbors=R, order=order, scale=False).fit(X[train], Y[train])
            scores[i] += f1_score(Y[test], chain.predict(X[test]), average="samples")
    assert chosen == NEIGHBOURS[int(np.argmax(scores))]
