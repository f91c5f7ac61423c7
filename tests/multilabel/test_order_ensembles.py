"""OOCC and the genetic ensemble of orders, on the order-free NB or kNN chain."""

import hashlib

import numpy as np
import pytest
from scipy.special import expit
from sklearn.utils import check_random_state

from mlnb import ClassifierChain, DynamicChainEnsemble, KNNChain
from mlnb.metrics import f1_score
from mlnb.multilabel._neighbourhood import validation_mask
from mlnb.multilabel._resolution import finite_scores
from mlnb.multilabel.order_ensembles import OOCC, GeneticChainEnsemble

from .test_chain import dependent_labels

# no section 2.5 preprocessing: the plain ClassifierChain / KNNChain as the order-free chain
PLAIN = {"max_imbalance": None, "feature_selection": None}
# the event model of before the tuned defaults (events="tuned" chooses it from the data), for
# the tests of fixed models: recorded predictions, equality with an independent chain
GAUSSIAN = {"events": "gaussian"}


def test_oocc_with_one_order_is_that_chain():
    X, Y = dependent_labels(0)
    model = OOCC(n_orders=1, random_state=0, **PLAIN).fit(X, Y)
    np.testing.assert_array_equal(model.predict(X), model.chain_.predict(X, order=model.orders_[0]))


def test_oocc_records_the_best_order_of_each_validation_instance():
    X, Y = dependent_labels(1)
    model = OOCC(n_orders=6, n_neighbors=3, random_state=0, **PLAIN).fit(X, Y)
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
    single = GeneticChainEnsemble(n_chains=1, n_generations=2, random_state=0, **PLAIN).fit(X, Y)
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
    model = OOCC(n_orders=1, base="knn", chain_neighbors=3, random_state=0, **PLAIN).fit(X, Y)
    assert isinstance(model.chain_, KNNChain) and model.chain_.n_neighbors_ == 3
    expected = knn_chain_in_order(model.chain_, model.orders_[0], X)
    np.testing.assert_array_equal(model.predict(X), expected)


def test_knn_genetic_ensemble_scores_orders_with_the_knn_chain():
    X, Y = dependent_labels(4)
    model = GeneticChainEnsemble(
        n_chains=3, n_generations=3, base="knn", chain_neighbors=3, random_state=0, **PLAIN
    ).fit(X, Y)
    assert len({o.tobytes() for o in model.orders_}) == 3
    votes = np.mean([knn_chain_in_order(model.chain_, o, X) for o in model.orders_], axis=0)
    np.testing.assert_array_equal(model.predict_proba(X), votes)
    with pytest.raises(ValueError, match="base"):
        OOCC(base="tree").fit(X, Y)


# ---- section 2.5's preprocessing (undersampling, feature selection) -----------------------
def training_rows(n_samples, random_state, fraction=0.4):
    """The rows the order-free chain is fitted on (the estimators' first draw)."""
    return ~validation_mask(n_samples, fraction, check_random_state(random_state))


def digest(array):
    return hashlib.sha256(np.ascontiguousarray(array, dtype=np.int8).tobytes()).hexdigest()[:16]


# predictions, orders and best orders / validation scores recorded from the code before the
# preprocessing was added (X, Y = dependent_labels(7, n=200), random_state=3)
BEFORE_PREPROCESSING = {
    ("oocc", "nb"): ("a51f57720ba1eb8f", "2893fc4f7f7fcddf", "800887f4309ec2b2"),
    ("oocc", "knn"): ("78d87bd1d8cbc98a", "04e36ba37d1bc608", "6b42fda57f509b69"),
    ("ga", "nb"): (
        "cd4857fbe0912c2a",
        "b336a9db5bcb646a",
        [0.6348094248094248, 0.6300836476114825, 0.629412366874373],
    ),
    ("ga", "knn"): (
        "dcc8ec234ca2d329",
        "152c13ee4dc62c6f",
        [0.47617644632778755, 0.4747590495780231, 0.4659571745466298],
    ),
}


@pytest.mark.parametrize("base", ["nb", "knn"])
def test_without_preprocessing_the_predictions_are_unchanged(base):
    X, Y = dependent_labels(7, n=200)
    extra = {"chain_neighbors": 3} if base == "knn" else {}
    extra["rule"] = "predict"  # the vote, as recorded
    oocc = OOCC(n_orders=5, base=base, random_state=3, **extra, **PLAIN, **GAUSSIAN).fit(X, Y)
    predicted, orders, best = BEFORE_PREPROCESSING["oocc", base]
    assert digest(oocc.predict(X)) == predicted
    assert digest(np.array(oocc.orders_)) == orders
    assert digest(oocc.best_order_) == best
    ga = GeneticChainEnsemble(
        n_chains=3, n_generations=3, base=base, random_state=3, **extra, **PLAIN, **GAUSSIAN
    ).fit(X, Y)
    predicted, orders, scores = BEFORE_PREPROCESSING["ga", base]
    assert digest(ga.predict(X)) == predicted
    assert digest(np.array(ga.orders_)) == orders
    np.testing.assert_allclose(ga.validation_scores_, scores, rtol=1e-12)


@pytest.mark.parametrize("base", ["nb", "knn"])
def test_without_preprocessing_orders_are_scored_by_the_plain_chain(base):
    """An independent ClassifierChain / KNNChain on the training rows, in each order."""
    X, Y = dependent_labels(8, n=200)
    train = training_rows(len(X), 4)
    # the ensembles score orders with the chain's own predict
    nb_chain = ClassifierChain(rule="predict", **GAUSSIAN)
    plain = (KNNChain(n_neighbors=3) if base == "knn" else nb_chain).fit(X[train], Y[train])

    def in_order(order):
        if base == "knn":
            return knn_chain_in_order(plain, order, X)
        return plain.predict(X, order=order)

    extra = {"chain_neighbors": 3} if base == "knn" else {}
    ga = GeneticChainEnsemble(
        n_chains=3, n_generations=2, base=base, random_state=4, **extra, **PLAIN, **GAUSSIAN
    ).fit(X, Y)
    assert type(ga.chain_) is type(plain)
    votes = np.mean([in_order(order) for order in ga.orders_], axis=0)
    np.testing.assert_array_equal(ga.predict_proba(X), votes)
    oocc = OOCC(n_orders=4, base=base, random_state=4, **extra, **PLAIN, **GAUSSIAN).fit(X, Y)
    expected = np.stack([in_order(order) for order in oocc.orders_])
    np.testing.assert_array_equal(oocc._predict_orders(X, oocc.orders_), expected)


def rare_label_data(seed, random_state, n_positives=2, n=200):
    """dependent_labels with label 5 rare: n_positives rows, all in the training part."""
    X, Y = dependent_labels(seed, n=n, d=12)
    train = training_rows(n, random_state)
    Y[:, 5] = 0
    Y[np.flatnonzero(train)[:n_positives], 5] = 1
    X[Y[:, 5] == 1] += 2.0
    return X, Y, train


def one_member(base, order, seed, **settings):
    """The reference: a one-member DynamicChainEnsemble with a fixed order on every row."""
    extra = {"n_neighbors": 3} if base == "knn" else {}
    return DynamicChainEnsemble(
        n_chains=1,
        base=base,
        order=order,
        sample_fraction=1.0,
        rule="predict",  # as OOCC's member: its labels in given orders
        label_alpha=1.0,  # and its label terms, Laplace's
        label_prior="uniform",
        random_state=seed,
        **extra,
        **settings,
    )


@pytest.mark.parametrize("base", ["nb", "knn"])
def test_preprocessed_orders_are_those_of_a_one_member_dynamic_ensemble(base):
    X, Y, train = rare_label_data(9, random_state=5)
    X_test, _ = dependent_labels(10, n=60, d=12)
    extra = {"chain_neighbors": 3} if base == "knn" else {}
    model = OOCC(
        n_orders=4, base=base, max_features=4, rule="predict", random_state=5, **extra
    ).fit(X, Y)
    member = model.chain_
    assert isinstance(member, DynamicChainEnsemble) and len(member.feature_masks_) == 1
    mask = member.feature_masks_[0]
    assert not mask.all() and mask.sum(axis=1).max() <= 4  # feature selection is on
    orders = [*model.orders_, np.arange(6)[::-1]]
    expected = np.stack(
        [
            one_member(base, order, member.random_state, max_features=4)
            .fit(X[train], Y[train])
            .predict(X_test)
            for order in orders
        ]
    )
    np.testing.assert_array_equal(model._predict_orders(X_test, orders), expected)
    # a pool of one order predicts with that member
    single = OOCC(
        n_orders=1, base=base, max_features=4, rule="predict", random_state=5, **extra
    ).fit(X, Y)
    reference = one_member(base, single.orders_[0], single.chain_.random_state, max_features=4)
    np.testing.assert_array_equal(
        single.predict(X_test), reference.fit(X[train], Y[train]).predict(X_test)
    )


@pytest.mark.parametrize("base", ["nb", "knn"])
def test_undersampling_limits_the_majority_of_a_rare_label(base):
    X, Y, train = rare_label_data(11, random_state=6)
    extra = {"chain_neighbors": 3} if base == "knn" else {}
    n_train, n_labels = int(train.sum()), Y.shape[1]

    def kept(model):
        """Kept (positive, negative) rows of each label in the member."""
        member = model.chain_
        if base == "knn":
            keep = member.member_keep_[0]
            labels = Y[train].astype(bool)
            return (keep & labels).sum(axis=0), (keep & ~labels).sum(axis=0)
        count = member.member_features_[0].count
        return count[:n_labels], count[n_labels:]

    model = GeneticChainEnsemble(n_chains=2, n_generations=1, base=base, random_state=6, **extra)
    positives, negatives = kept(model.fit(X, Y))
    assert positives[5] == 2 and positives[5] + negatives[5] <= 21 * 2
    assert negatives[5] == 40  # floor(20 * 2) random negatives
    np.testing.assert_array_equal((positives + negatives)[:5], n_train)  # balanced enough
    off = model.set_params(max_imbalance=None).fit(X, Y)  # feature selection only
    positives, negatives = kept(off)
    np.testing.assert_array_equal(positives + negatives, n_train)


def test_the_genetic_search_scores_a_generation_in_one_batch_with_preprocessing():
    X, Y = dependent_labels(12, n=200)
    model = GeneticChainEnsemble(n_chains=3, n_generations=4, rule="predict", random_state=7)
    calls = []
    scorer = model._predict_orders

    def counted(X, orders):
        calls.append(len(orders))
        return scorer(X, orders)

    model._predict_orders = counted
    model.fit(X, Y)
    assert isinstance(model.chain_, DynamicChainEnsemble)
    assert calls[0] == 9 and len(calls) <= 4 + 1  # the first population, then <= 1 a generation
    del model._predict_orders
    member = model.chain_
    train = training_rows(len(X), 7)
    votes = np.mean(
        [
            one_member("nb", order, member.random_state).fit(X[train], Y[train]).predict(X)
            for order in model.orders_
        ],
        axis=0,
    )
    np.testing.assert_array_equal(model.predict_proba(X), votes)


@pytest.mark.parametrize("estimator", [OOCC, GeneticChainEnsemble])
def test_preprocessing_parameters_are_checked_by_the_dynamic_ensemble(estimator):
    X, Y = dependent_labels(13, n=100)
    model = estimator(feature_selection="pca", random_state=0)
    assert model.get_params()["feature_selection"] == "pca"
    with pytest.raises(ValueError, match=r"feature_selection.*'pca'"):
        model.fit(X, Y)
    with pytest.raises(ValueError, match="feature_selection"):
        estimator(max_imbalance=None, feature_selection="bogus").fit(X, Y)
    with pytest.raises(ValueError, match="max_imbalance"):
        estimator(max_imbalance=0.5).fit(X, Y)
    with pytest.raises(ValueError, match="max_features"):
        estimator(max_features=0).fit(X, Y)


# ---- soft label scores -----------------------------------------------------------------------
@pytest.mark.parametrize("base", ["nb", "knn"])
@pytest.mark.parametrize("plain", [True, False])
def test_soft_scores_are_the_mean_chain_scores_of_the_voting_orders(base, plain):
    X, Y = dependent_labels(5)
    options = {"base": base, "rule": "predict", "random_state": 0, **(PLAIN if plain else {})}
    genetic = GeneticChainEnsemble(n_chains=3, n_generations=2, **options).fit(X, Y)
    in_orders = genetic.chain_.decision_function_in_orders(X, genetic.orders_)
    expected = finite_scores(in_orders).mean(axis=0)
    np.testing.assert_allclose(genetic.decision_function(X), expected)
    oocc = OOCC(n_orders=4, n_neighbors=3, **options).fit(X, Y)
    scores = oocc.decision_function(X)
    assert scores.shape == Y.shape and np.isfinite(scores).all()
    # one recorded order per row and one neighbour: the row's chain score in that order
    single = OOCC(n_orders=1, n_neighbors=1, **options).fit(X, Y)
    chain_scores = single.chain_.decision_function_in_orders(X, single.orders_)[0]
    np.testing.assert_allclose(single.decision_function(X), finite_scores(chain_scores))
    np.testing.assert_array_equal((single.decision_function(X) > 0), single.predict(X) == 1)
    # finer than the vote fractions: more distinct values
    assert len(np.unique(scores)) > len(np.unique(oocc.predict_proba(X)))


def test_soft_scores_keep_log_odds_beyond_745(monkeypatch):
    X, Y = dependent_labels(5)
    genetic = GeneticChainEnsemble(n_chains=3, n_generations=2, random_state=0).fit(X, Y)
    in_orders = genetic.chain_.decision_function_in_orders(X, genetic.orders_)
    scaled = in_orders * 1000.0 / np.abs(in_orders).max()  # some beyond +-745, ranked
    scaled[0, 0, 0] = np.inf  # a constant label: bounded, not inf
    monkeypatch.setattr(
        type(genetic.chain_), "decision_function_in_orders", lambda self, X, orders: scaled
    )
    scores = genetic.decision_function(X)
    assert np.isfinite(scores).all() and np.abs(scores).max() > 745
    expected = finite_scores(scaled).mean(axis=0)
    np.testing.assert_allclose(scores, expected)


@pytest.mark.parametrize("base", ["nb", "knn"])
@pytest.mark.parametrize("plain", [True, False])
def test_soft_voting_averages_the_chains_probabilities(base, plain):
    X, Y = dependent_labels(6)
    options = {"base": base, "rule": "predict", "random_state": 0, **(PLAIN if plain else {})}
    settings = {"n_chains": 3, "n_generations": 2, **options}
    genetic = GeneticChainEnsemble(voting="soft", **settings).fit(X, Y)
    hard = GeneticChainEnsemble(**settings).fit(X, Y)
    np.testing.assert_array_equal(genetic.orders_, hard.orders_)  # the same search
    in_orders = genetic.chain_.decision_function_in_orders(X, genetic.orders_)
    expected = expit(finite_scores(in_orders)).mean(axis=0)
    np.testing.assert_allclose(genetic.predict_proba(X), expected)
    np.testing.assert_array_equal(genetic.predict(X), (expected > 0.5).astype(int))
    np.testing.assert_allclose(hard.predict_proba(X), (expit(in_orders) > 0.5).mean(axis=0))
    oocc = OOCC(n_orders=4, n_neighbors=3, voting="soft", **options).fit(X, Y)
    _, chosen = oocc._chosen_orders(X)
    per_order = expit(finite_scores(oocc.chain_.decision_function_in_orders(X, oocc.orders_)))
    expected = per_order[chosen, np.arange(len(X))[:, None]].mean(axis=1)
    np.testing.assert_allclose(oocc.predict_proba(X), expected)
    np.testing.assert_array_equal(oocc.predict(X), (expected > 0.5).astype(int))
    hard = OOCC(n_orders=4, n_neighbors=3, **options).fit(X, Y)
    assert len(np.unique(oocc.predict_proba(X))) > len(np.unique(hard.predict_proba(X)))
    with pytest.raises(ValueError, match="voting"):
        OOCC(voting="mean").fit(X, Y)


def test_chain_scores_in_orders_are_its_scores_in_each_order():
    X, Y = dependent_labels(6)
    orders = [np.arange(6), np.arange(6)[::-1]]
    # fixed settings: at the defaults each refit would choose its event model and decision
    # rule again (in its own order), and a fitted rule does not cut the scores at 0
    nb = ClassifierChain(rule="predict", **GAUSSIAN).fit(X, Y)
    knn = KNNChain(n_neighbors=5).fit(X, Y)
    for chain in (nb, knn):
        got = chain.decision_function_in_orders(X, orders)
        for order, scores in zip(orders, got, strict=True):
            refit = type(chain)(**{**chain.get_params(), "order": order}).fit(X, Y)
            np.testing.assert_allclose(scores, refit.decision_function(X))
            np.testing.assert_array_equal(scores > 0, refit.predict(X) == 1)
    ensemble = DynamicChainEnsemble(n_chains=2, order=orders[0], random_state=0).fit(X, Y)
    np.testing.assert_allclose(
        ensemble.decision_function_in_orders(X, orders[:1])[0], ensemble.decision_function(X)
    )
