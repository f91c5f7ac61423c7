"""KNNChain: nearest neighbours in the label-extended space (Trajdos and Kurzynski, eqs. 10-11)."""

import numpy as np
import pytest
import scipy.sparse as sp

from mlnb.multilabel import _knn_members
from mlnb.multilabel._knn_members import knn_chain_labels
from mlnb.multilabel._neighbourhood import nearest_points
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


@pytest.mark.parametrize("share", [0.0, 1.0], ids=["every-point", "candidates"])
def test_incremental_distances_equal_the_definition_with_or_without_pruning(share, monkeypatch):
    monkeypatch.setattr(_knn_members, "MAX_CANDIDATE_SHARE", share)
    X, Y = dependent_labels(3, n=120)
    order = [4, 1, 0, 5, 3, 2]
    model = KNNChain(n_neighbors=3, order=order, scale=False).fit(X[:90], Y[:90])
    np.testing.assert_array_equal(
        model.predict(X[90:]), brute_force_chain(X[:90], Y[:90], X[90:], order, 3)
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("extend", [True, False])
def test_candidate_points_give_the_chain_of_every_point(seed, extend, monkeypatch):
    """Per-label views (kept points, selected features), one order per row and per set,
    R from 1 to 7, dense and sparse rows: pruned to candidates, the same labels and
    shares as over every point."""
    rng = np.random.default_rng(seed)
    m, n, d, L = 150, 40, 8, 5
    centres = rng.normal(scale=4.0, size=(L, d))
    points_Y = (rng.random((m, L)) < 0.4).astype(int)
    points = points_Y @ centres + rng.normal(size=(m, d))
    X = (rng.random((n, L)) < 0.4) @ centres + rng.normal(size=(n, d))
    keep = rng.random((m, L)) < 0.8 if seed % 2 else None
    masks = rng.random((L, d)) < 0.6 if seed > 1 else None
    orders = np.stack([np.stack([rng.permutation(L) for _ in range(n)]) for _ in range(3)])
    R = (1, 3, 5, 7)[seed]
    options = {"keep": keep, "masks": masks, "extend": extend, "shares": True, "block": 16}
    results = []
    for share, inputs in [(0.0, X), (1.0, X), (1.0, sp.csr_matrix(X))]:
        monkeypatch.setattr(_knn_members, "MAX_CANDIDATE_SHARE", share)
        points_in = sp.csr_matrix(points) if sp.issparse(inputs) else points
        results.append(knn_chain_labels(inputs, points_in, points_Y, R, orders, **options))
    for labels, shares in results[1:]:
        np.testing.assert_array_equal(labels, results[0][0])
        np.testing.assert_allclose(shares, results[0][1])
    # pruning happened: far fewer candidates than points
    base = np.stack([((X[:, None, :] - points[None]) ** 2).sum(axis=2)])
    index, _ = _knn_members._candidate_points(base, R, L - 1)
    assert index.shape[1] < m / 2


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


@pytest.mark.parametrize("k", [1, 2, 3, 7])
def test_nearest_points_break_ties_by_the_lowest_index(k):
    """Against a stable sort, on distances full of ties and infinities."""
    rng = np.random.default_rng(k)
    for _ in range(20):
        distances = rng.integers(0, 4, size=(30, int(rng.integers(k, 60)))).astype(float)
        distances[:, rng.random(distances.shape[1]) < 0.2] = np.inf
        expected = np.sort(np.argsort(distances, axis=1, kind="stable")[:, :k], axis=1)
        np.testing.assert_array_equal(nearest_points(distances, k), expected)
    assert nearest_points(np.array([[3.0, 1.0]]), 5).tolist() == [[0, 1]]  # k > points
