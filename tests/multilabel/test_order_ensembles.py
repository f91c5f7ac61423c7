"""OOCC and the genetic ensemble of orders, on the order-free NB chain."""

import numpy as np
import pytest

from mlnb import KNNChain
from mlnb.metrics import f1_score
from mlnb.multilabel.order_ensembles import OOCC, GeneticChainEnsemble

from .test_chain import dependent_labels


def test_oocc_with_one_order_is_that_chain():
    X, Y = dependent_labels(0)
    model = OOCC(n_orders=1, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(model.predict(X), model.chain_.predict(X, order=model.orders_[0]))


def test_oocc_records_the_best_order_of_each_validation_instance():
    X, Y = dependent_labels(1)
    model = OOCC(n_orders=6, n_neighbors=3, random_state=0).fit(X, Y)
    validation = model.validation_X_ * model.scale_  # back to the original features
    for row in range(0, len(validation), 17):
        x = validation[row : row + 1]
        truth = Y[np.all(np.isclose(X, x), axis=1)][0]
        scores = [
            f1_score(truth[None], model.chain_.predict(x, order=o), average="samples")
            for o in model.orders_
        ]
        assert model.best_order_[row] == int(np.argmax(scores))
    proba = model.predict_proba(X)
    assert np.all(np.isin(proba * 3, [0, 1, 2, 3]))  # mean of 3 votes


def test_genetic_ensemble():
    X, Y = dependent_labels(2)
    model = GeneticChainEnsemble(n_chains=4, n_generations=5, random_state=0).fit(X, Y)
    assert len(model.orders_) == 4
    assert len({o.tobytes() for o in model.orders_}) == 4
    assert all(sorted(o) == list(range(6)) for o in model.orders_)
    assert np.all(np.diff(model.validation_scores_) <= 0)  # best first
    again = GeneticChainEnsemble(n_chains=4, n_generations=5, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    single = GeneticChainEnsemble(n_chains=1, n_generations=2, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(
        single.predict(X), single.chain_.predict(X, order=single.orders_[0])
    )
    with pytest.raises(ValueError, match="n_chains"):
        GeneticChainEnsemble(n_chains=0).fit(X, Y)


# ---- nearest-neighbour chains ----------------------------------------------------------------
def knn_chain_in_order(chain, order, X):
    """KNNChain's own prediction (not the ensembles' code) in a given order."""
    chain.order_ = np.asarray(order)
    return chain.predict(X)


def test_knn_oocc_with_one_order_is_that_knn_chain():
    X, Y = dependent_labels(3)
    model = OOCC(n_orders=1, base="knn", chain_neighbors=3, random_state=0).fit(X, Y)
    assert isinstance(model.chain_, KNNChain) and model.chain_.n_neighbors_ == 3
    expected = knn_chain_in_order(model.chain_, model.orders_[0], X)
    np.testing.assert_array_equal(model.predict(X), expected)


def test_knn_genetic_ensemble_scores_orders_with_the_knn_chain():
    X, Y = dependent_labels(4)
    model = GeneticChainEnsemble(
        n_chains=3, n_generations=3, base="knn", chain_neighbors=3, random_state=0
    ).fit(X, Y)
    assert len({o.tobytes() for o in model.orders_}) == 3
    votes = np.mean([knn_chain_in_order(model.chain_, o, X) for o in model.orders_], axis=0)
    np.testing.assert_array_equal(model.predict_proba(X), votes)
    with pytest.raises(ValueError, match="base"):
        OOCC(base="tree").fit(X, Y)
