"""DynamicChainEnsemble: dynamic NB chains, undersampling, CFS (Trajdos and Kurzynski, sec. 2.5)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit
from sklearn.exceptions import NotFittedError

from mlnb import (
    BernoulliNB,
    ClassifierChain,
    DynamicChain,
    DynamicChainEnsemble,
    GaussianNB,
    KNNChain,
    MultinomialNB,
)
from mlnb.datasets import make_multilabel
from mlnb.events import Gaussian
from mlnb.multilabel._feature_selection import cfs_masks
from mlnb.multilabel._members import members_of
from mlnb.multilabel.dynamic_ensemble import undersampling_mask

from .test_chain import dependent_labels

#: Plain members: every row, no preprocessing, the classic chain's label terms (Laplace's;
#: at "tuned" they are chosen from the data)
PLAIN = {
    "sample_fraction": 1.0,
    "max_imbalance": None,
    "feature_selection": None,
    "label_alpha": 1.0,
    "label_prior": "uniform",
}
# A member compared with an independent ClassifierChain: the event model is given (at
# events="tuned" it is chosen from the data) and the chain decides by its own 0.5 rule, as
# the members do (rule="tuned" would fit a decision rule)
GAUSSIAN = {"events": "gaussian"}
OWN_CHAIN = {"events": "gaussian", "rule": "predict"}


# ---- the ensemble of one plain chain is that chain --------------------------------------
@pytest.mark.parametrize("sparse", [False, True])
def test_one_member_without_preprocessing_equals_its_dynamic_chain(sparse):
    X, Y = dependent_labels(0, n=300)
    X = X - X.min()
    X_in = sp.csr_matrix(X) if sparse else X
    ensemble = DynamicChainEnsemble(n_chains=1, beta=3.0, rule="predict", random_state=5, **PLAIN)
    ensemble.fit(X_in, Y)
    chain = DynamicChain(beta=3.0, rule="predict", random_state=5).fit(X_in, Y)
    np.testing.assert_array_equal(ensemble.predict(X_in), chain.predict(X_in))
    np.testing.assert_array_equal(ensemble.validation_predicted_[0], chain.validation_predicted_)
    # both choose their event model (events="tuned") on the same rows; log_odds takes rows
    # prepared by it (Weka's discretised Gaussian rounds them to its precision)
    members = members_of(ensemble)
    np.testing.assert_allclose(
        members.log_odds(0, members.prepare(X_in)), chain._independent_log_odds(X_in), rtol=1e-9
    )


def test_one_member_with_a_random_order_equals_classifier_chain():
    X, Y = dependent_labels(1, n=200)
    ensemble = DynamicChainEnsemble(n_chains=1, order="random", random_state=2, **PLAIN, **GAUSSIAN)
    ensemble.fit(X, Y)
    chain = ClassifierChain(order=ensemble.orders_[0], **OWN_CHAIN).fit(X, Y)
    np.testing.assert_array_equal(ensemble.predict(X), chain.predict(X))
    assert ensemble.beta_ is None


def test_members_vote_and_the_mean_is_thresholded_at_one_half():
    X, Y = dependent_labels(2, n=240)
    model = DynamicChainEnsemble(n_chains=4, order="random", random_state=0, **PLAIN, **GAUSSIAN)
    model.fit(X, Y)
    # with sample_fraction = 1 and no preprocessing, member k is the chain in its order
    chains = [
        ClassifierChain(order=order, **OWN_CHAIN).fit(X, Y).predict(X) for order in model.orders_
    ]
    np.testing.assert_allclose(model.predict_proba(X), np.mean(chains, axis=0))
    np.testing.assert_array_equal(model.predict(X), (np.mean(chains, axis=0) > 0.5).astype(int))


@pytest.mark.parametrize("base", ["nb", "knn"])
@pytest.mark.parametrize("order", ["random", "local_f1"])
def test_soft_voting_averages_the_members_probabilities(base, order):
    X, Y = continuous_labels(6, n=240)
    settings = {"n_chains": 3, "base": base, "order": order, "beta": 2.0, "random_state": 0}
    settings["rule"] = "predict"  # the vote at 0.5
    soft = DynamicChainEnsemble(voting="soft", **settings).fit(X[:160], Y[:160])
    hard = DynamicChainEnsemble(**settings).fit(X[:160], Y[:160])
    for a, b in zip(soft.feature_masks_, hard.feature_masks_, strict=True):
        np.testing.assert_array_equal(a, b)  # voting does not change the fit
    # each member alone: its probabilities are the logistic of its label scores
    members = members_of(soft)
    inputs = members.inputs(soft._validate_X(X[160:], reset=False))
    probabilities = [
        expit(members.member_scores(inputs, k, members.orders(inputs, k, [2.0]))[0])
        for k in range(3)
    ]
    expected = np.mean(probabilities, axis=0)
    np.testing.assert_allclose(soft.predict_proba(X[160:]), expected)
    np.testing.assert_array_equal(soft.predict(X[160:]), (expected > 0.5).astype(int))
    # the hard vote is the share of members whose probability is above 0.5
    shares = np.mean([p > 0.5 for p in probabilities], axis=0)
    np.testing.assert_allclose(hard.predict_proba(X[160:]), shares)
    assert len(np.unique(expected)) > len(np.unique(shares))


def test_soft_voting_in_given_orders_and_in_the_beta_search():
    X, Y = continuous_labels(7, n=240)
    settings = {"n_chains": 3, "random_state": 0, "rule": "predict"}  # the members' labels
    fixed = DynamicChainEnsemble(order=None, voting="soft", **settings).fit(X, Y)
    orders = [np.arange(5), np.arange(5)[::-1]]
    labels = fixed.predict_in_orders(X, orders)
    np.testing.assert_array_equal(labels[0], fixed.predict(X))
    refitted = DynamicChainEnsemble(order=orders[1], voting="soft", **settings).fit(X, Y)
    np.testing.assert_array_equal(labels[1], refitted.predict(X))
    auto = DynamicChainEnsemble(voting="soft", **settings).fit(X, Y)
    assert auto.beta_ in range(1, 11)
    with pytest.raises(ValueError, match="voting"):
        DynamicChainEnsemble(voting="mean").fit(X, Y)


# ---- undersampling ----------------------------------------------------------------------
def test_undersampling_keeps_twenty_majority_rows_per_minority_row():
    rng = np.random.RandomState(0)
    Y = np.zeros((100, 4))
    Y[:2, 0] = 1  # 2 vs 98: keep 40 negatives
    Y[:50, 1] = 1  # balanced: keep all
    Y[:95, 3] = 1  # 95 positives vs 5: IR 19 <= 20, keep all; column 2 is constant
    keep = undersampling_mask(Y, 20, rng).astype(bool)
    assert keep[:, 0].sum() == 42 and keep[:2, 0].all()
    assert keep[:, 1:].all()
    Y[:99, 3] = 1  # 99 vs 1: keep 20 positives and the negative
    keep = undersampling_mask(Y, 20, rng).astype(bool)
    assert keep[:, 3].sum() == 21 and keep[99, 3]
    assert undersampling_mask(Y, None, rng).all()


def test_an_undersampled_label_is_naive_bayes_on_its_kept_rows():
    X, Y = make_multilabel(400, 6, 4, cardinality=0.6, random_state=3)
    model = DynamicChainEnsemble(
        n_chains=1,
        sample_fraction=1.0,
        max_imbalance=3.0,
        order="random",
        feature_selection=None,
        events="gaussian",  # compared with GaussianNB
        random_state=0,
    ).fit(X, Y)
    # the member's first draw is its undersampling (no sample, no validation split here)
    kept = undersampling_mask(Y, 3.0, np.random.RandomState(0)).astype(bool)
    assert (kept.sum(axis=0) < len(Y)).sum() >= 2, "the data must have labels to undersample"
    log_odds = members_of(model).log_odds(0, X)
    for label in range(Y.shape[1]):
        rows = kept[:, label]
        nb = GaussianNB().fit(X[rows], Y[rows, label])
        expected = np.diff(nb.predict_joint_log_proba(X), axis=1)[:, 0]
        # the variance floor is 1e-9 of the largest variance of all the member's rows
        np.testing.assert_allclose(log_odds[:, label], expected, rtol=1e-6, atol=1e-6)


# ---- correlation-based feature selection ------------------------------------------------
def _merit(X, y, subset):
    corr = np.abs(np.corrcoef(np.column_stack([X[:, subset], y]), rowvar=False))
    k = len(subset)
    pairs = corr[:k, :k][np.triu_indices(k, 1)].sum()
    return corr[:k, k].sum() / np.sqrt(k + 2 * pairs)


def _greedy_cfs(X, y, max_stale=5):
    """Reference: forward selection by Hall's merit, brute force with np.corrcoef."""
    chosen, best, best_size, stale = [], 0.0, 0, 0
    while stale < max_stale and len(chosen) < X.shape[1]:
        candidates = [f for f in range(X.shape[1]) if f not in chosen]
        merits = [_merit(X, y, [*chosen, f]) for f in candidates]
        chosen.append(candidates[int(np.argmax(merits))])
        if max(merits) > best:
            best, best_size, stale = max(merits), len(chosen), 0
        else:
            stale += 1
    return set(chosen[:best_size])


@pytest.mark.parametrize("seed", range(4))
def test_cfs_equals_brute_force_forward_selection(seed):
    X, Y = make_multilabel(300, 12, 3, cardinality=1.2, label_dependence=0.5, random_state=seed)
    X[:, 5] = X[:, 4] + 0.01 * np.random.default_rng(seed).normal(size=len(X))  # a twin
    rows = np.random.default_rng(seed).random((len(X), 3)) < 0.8  # each label's own rows
    mask = cfs_masks(X, Y, rows.astype(float))
    for label in range(3):
        r = rows[:, label]
        assert set(np.flatnonzero(mask[label])) == _greedy_cfs(X[r], Y[r, label])


def test_cfs_sparse_equals_dense_and_caps_at_max_features():
    X, Y = make_multilabel(300, 40, 3, features="counts", random_state=1)
    weights = np.ones(Y.shape)
    dense = cfs_masks(X.toarray() if sp.issparse(X) else X, Y, weights)
    np.testing.assert_array_equal(cfs_masks(sp.csr_matrix(X), Y, weights), dense)
    capped = cfs_masks(X, Y, weights, max_features=2, rng=np.random.RandomState(0))
    assert (capped.sum(axis=1) == np.minimum(dense.sum(axis=1), 2)).all()
    assert not (capped & ~dense).any()
    constant = np.zeros((300, 1))
    assert not cfs_masks(X, constant, np.ones((300, 1))).any()


@pytest.mark.parametrize(
    ("events", "reference"),
    [("gaussian", GaussianNB), ("bernoulli", BernoulliNB), ("multinomial", MultinomialNB)],
)
def test_unselected_features_add_nothing(events, reference):
    X, Y = make_multilabel(300, 15, 3, features="counts", doc_length=30, random_state=4)
    X = X.toarray() if sp.issparse(X) else X
    model = DynamicChainEnsemble(
        n_chains=1,
        sample_fraction=1.0,
        max_imbalance=None,
        order="random",
        events=events,
        random_state=0,
    ).fit(X, Y)
    log_odds = members_of(model).log_odds(0, model.events_.prepare(X))
    for label, selected in enumerate(model.feature_masks_[0]):
        # (a multinomial label left with one word, which carries no evidence, gets them all)
        assert 0 < selected.sum() < X.shape[1] or events == "multinomial"
        nb = reference().fit(X[:, selected], Y[:, label])
        expected = np.diff(nb.predict_joint_log_proba(X[:, selected]), axis=1)[:, 0]
        np.testing.assert_allclose(log_odds[:, label], expected, rtol=1e-6, atol=1e-6)


def test_unselected_features_add_nothing_with_wekas_gaussian():
    from mlnb.events.discretised import DiscretisedGaussian
    from mlnb.stats import GroupStats

    X, Y = make_multilabel(300, 15, 3, features="counts", doc_length=30, random_state=5)
    X = X.toarray() if sp.issparse(X) else X
    events = DiscretisedGaussian(precision=1.0)
    model = DynamicChainEnsemble(
        n_chains=1,
        sample_fraction=1.0,
        max_imbalance=None,
        order="random",
        events=events,
        random_state=0,
    ).fit(X, Y)
    log_odds = members_of(model).log_odds(0, events.prepare(X))
    for label, selected in enumerate(model.feature_masks_[0]):
        assert 0 < selected.sum() < X.shape[1]
        y = Y[:, label]
        stats = GroupStats.from_data(X[:, selected], np.column_stack([y, 1 - y]))
        joint = events.log_likelihood(stats, X[:, selected]) + np.log(stats.count)
        np.testing.assert_allclose(log_odds[:, label], joint[:, 0] - joint[:, 1], rtol=1e-9)


def test_event_model_that_cannot_silence_asks_for_no_selection():
    X, Y = dependent_labels(0, n=60)
    with pytest.raises(TypeError, match=r"Opaque cannot silence.*feature_selection=None"):
        DynamicChainEnsemble(n_chains=1, events=Opaque(), beta=1.0).fit(X, Y)
    DynamicChainEnsemble(n_chains=1, events=Opaque(), feature_selection=None, beta=1.0).fit(X, Y)


class Opaque(Gaussian):
    """A Gaussian whose parameters are a plain dict: nothing says which are per feature."""

    def estimate(self, stats):
        return {"inner": super().estimate(stats)}

    def score(self, params, X):
        return super().score(params["inner"], X)

    def score_ratio(self, params_a, params_b, X):
        return super().score_ratio(params_a["inner"], params_b["inner"], X)


# ---- behaviour ----------------------------------------------------------------------------
def test_dynamic_members_order_each_instance_and_auto_beta_is_on_the_grid():
    X, Y = make_multilabel(300, 10, 5, cardinality=1.5, label_dependence=0.7, random_state=6)
    model = DynamicChainEnsemble(n_chains=3, random_state=0).fit(X, Y)
    assert model.beta_ in range(1, 11)
    assert len(model.validation_X_) == 3 and model.orders_ is None
    again = DynamicChainEnsemble(n_chains=3, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"n_chains": 0}, "n_chains"),
        ({"sample_fraction": 0.0}, "sample_fraction"),
        ({"max_imbalance": 0.5}, "max_imbalance"),
        ({"feature_selection": "chi2"}, "feature_selection"),
        ({"order": "best"}, "order"),
        ({"validation_fraction": 0.0}, "validation_fraction"),
        ({"beta": -1.0}, "beta"),
    ],
)
def test_bad_parameters_are_named(params, message):
    X, Y = dependent_labels(0, n=60)
    with pytest.raises(ValueError, match=message):
        DynamicChainEnsemble(**params).fit(X, Y)


def test_not_fitted_partial_fit_and_merge_say_why():
    X, Y = dependent_labels(0, n=60)
    with pytest.raises(NotFittedError):
        DynamicChainEnsemble().predict(X)
    model = DynamicChainEnsemble(n_chains=2, beta=1.0, random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="use fit"):
        model.partial_fit(X, Y)
    with pytest.raises(ValueError, match="merged"):
        model.merge(model)


# ---- nearest-neighbour members ------------------------------------------------------------
def continuous_labels(seed, n=500):
    X, Y = make_multilabel(n, 8, 5, cardinality=1.6, label_dependence=0.7, random_state=seed)
    return X, Y  # continuous features: no distance ties


@pytest.mark.parametrize("R", [1, 5])
def test_one_plain_knn_member_equals_the_knn_chain(R):
    X, Y = continuous_labels(0)
    order = [2, 0, 4, 1, 3]
    settings = {"n_chains": 1, "base": "knn", "n_neighbors": R, "order": order, **PLAIN}
    ours = DynamicChainEnsemble(**settings).fit(X[:300], Y[:300])
    chain = KNNChain(order=order, n_neighbors=R).fit(X[:300], Y[:300])
    np.testing.assert_array_equal(ours.predict(X[300:]), chain.predict(X[300:]))


def test_one_plain_dynamic_knn_member_equals_the_dynamic_knn_chain():
    X, Y = continuous_labels(1)
    settings = {"n_chains": 1, "base": "knn", "n_neighbors": 3, "beta": 2.0, **PLAIN}
    ours = DynamicChainEnsemble(**settings, random_state=4).fit(X[:300], Y[:300])
    chain = KNNChain(order="local_f1", n_neighbors=3, beta=2.0, random_state=4)
    chain.fit(X[:300], Y[:300])
    np.testing.assert_array_equal(ours.validation_predicted_[0], chain.validation_predicted_)
    np.testing.assert_array_equal(ours.predict(X[300:]), chain.predict(X[300:]))


def test_knn_members_vote_only_with_kept_rows_and_selected_features():
    X, Y = continuous_labels(2, n=400)
    X[:, 7] = 1e3 * np.random.default_rng(0).normal(size=len(X))  # loud noise
    model = DynamicChainEnsemble(
        n_chains=1,
        base="knn",
        n_neighbors=3,
        sample_fraction=1.0,
        order=[0, 1, 2, 3, 4],
        max_imbalance=2.0,
        random_state=0,
    ).fit(X, Y)
    mask, keep = model.feature_masks_[0], model.member_keep_[0]
    assert not mask[:, 7].any(), "CFS drops the noise feature"
    assert not keep.all(), "some label is undersampled"
    # label 0 (first in the order) is plain kNN on its kept rows and selected features
    Z = X / model.scale_
    columns, rows = np.flatnonzero(mask[0]), np.flatnonzero(keep[:, 0])
    distance = ((Z[:50, None, columns] - Z[None, rows][:, :, columns]) ** 2).sum(axis=2)
    nearest = np.argsort(distance, axis=1)[:, :3]
    expected = (Y[rows][nearest, 0].mean(axis=1) > 0.5).astype(int)
    np.testing.assert_array_equal(model.predict(X[:50])[:, 0], expected)


def test_knn_ensemble_chooses_r_and_beta_on_their_grids():
    X, Y = continuous_labels(3, n=300)
    model = DynamicChainEnsemble(n_chains=3, base="knn", random_state=0).fit(X, Y)
    assert model.n_neighbors_ in (1, 3, 5, 7, 9, 11) and model.beta_ in range(1, 11)
    proba = model.predict_proba(X)
    assert set(np.unique(proba * 3)) <= {0, 1, 2, 3}
    with pytest.raises(ValueError, match="sample_weight"):
        DynamicChainEnsemble(base="knn").fit(X, Y, sample_weight=np.ones(len(X)))
    with pytest.raises(ValueError, match="base"):
        DynamicChainEnsemble(base="svm").fit(X, Y)


def test_an_event_model_object_survives_the_beta_search():
    from mlnb.events import Gaussian

    X, Y = dependent_labels(0, n=90)
    model = DynamicChainEnsemble(n_chains=2, events=Gaussian(var_smoothing=1e-6), random_state=0)
    assert model.fit(X, Y).beta_ in range(1, 11)
    chain = DynamicChain(events=Gaussian(var_smoothing=1e-6), random_state=0).fit(X, Y)
    assert chain.beta_ in range(1, 11)


# ---- predictions in given orders -------------------------------------------------------------
@pytest.mark.parametrize("base", ["nb", "knn"])
def test_predict_in_orders_is_the_ensemble_refitted_with_that_order(base):
    """Fixed orders draw nothing: an ensemble fitted with order o is the same ensemble."""
    X, Y = continuous_labels(4, n=300)
    settings = {"n_chains": 3, "base": base, "n_neighbors": 3, "random_state": 1}
    settings["rule"] = "predict"  # predict_in_orders gives the vote
    model = DynamicChainEnsemble(order=None, **settings).fit(X[:200], Y[:200])
    orders = [np.array([4, 2, 0, 1, 3]), np.arange(5)[::-1]]
    labels = model.predict_in_orders(X[200:], orders)
    assert labels.shape == (2, 100, 5) and labels.dtype == int
    for order, predicted in zip(orders, labels, strict=True):
        refitted = DynamicChainEnsemble(order=order, **settings).fit(X[:200], Y[:200])
        np.testing.assert_array_equal(predicted, refitted.predict(X[200:]))
    # member 0 alone: the first member drawn, i.e. a one-member ensemble's
    one = DynamicChainEnsemble(order=orders[1], **{**settings, "n_chains": 1})
    first = one.fit(X[:200], Y[:200]).predict(X[200:])
    np.testing.assert_array_equal(model.predict_in_orders(X[200:], orders, member=0)[1], first)


def test_predict_in_orders_of_one_plain_member_is_classifier_chain():
    X, Y = dependent_labels(5, n=200)
    model = DynamicChainEnsemble(n_chains=2, order="random", random_state=3, **PLAIN, **GAUSSIAN)
    model.fit(X, Y)
    chain = ClassifierChain(**OWN_CHAIN).fit(X, Y)
    orders = [np.arange(6), np.array([2, 5, 0, 3, 1, 4])]
    labels = model.predict_in_orders(X, orders, member=1)
    for order, predicted in zip(orders, labels, strict=True):
        np.testing.assert_array_equal(predicted, chain.predict(X, order=order))
    with pytest.raises(ValueError, match="member"):
        model.predict_in_orders(X, orders, member=2)
    with pytest.raises(ValueError, match="permutation"):
        model.predict_in_orders(X, ["random"])


def test_a_selection_without_evidence_falls_back_to_every_feature(shared_dataset):
    """medical with multinomial events: CFS leaves labels one word, which a renormalised
    multinomial cannot use; they get every word, and the ensemble predicts positives."""
    train, test = shared_dataset("medical", "train"), shared_dataset("medical", "test")
    Y = np.asarray(train.Y)
    model = DynamicChainEnsemble(n_chains=2, events="multinomial", random_state=0)
    model.fit(train.X, Y)
    widths = model.feature_masks_[0].sum(axis=1)
    assert not np.any(widths == 1)  # no label is left with a single word
    assert np.any(widths == train.X.shape[1])
    predicted = model.predict(test.X)
    assert predicted.sum() > 0.2 * np.asarray(test.Y).sum()


def test_soft_scores_rank_better_than_hard_votes(shared_dataset):
    from mlnb.metrics import label_ranking_loss

    train, test = shared_dataset("yeast", "train"), shared_dataset("yeast", "test")
    model = DynamicChainEnsemble(n_chains=5, beta=2.0, random_state=0).fit(train.X, train.Y)
    scores = model.decision_function(test.X)
    assert np.all(np.isfinite(scores)) and scores.shape == test.Y.shape
    soft = label_ranking_loss(test.Y, scores)
    assert soft < label_ranking_loss(test.Y, model.predict_proba(test.X)) - 0.05


def test_an_empty_word_selection_scores_zero_with_the_bayesian_multinomial():
    """A label whose selection holds no word: every document has probability 1 under it on
    both sides (its class total is 0; no inf - inf, no NaN, no warning)."""
    from mlnb.events import BayesianMultinomial
    from mlnb.stats import GroupStats

    rng = np.random.default_rng(0)
    X = rng.poisson(1.0, (30, 5)).astype(float)
    Y = (rng.random((30, 2)) < 0.5).astype(float)
    events = BayesianMultinomial()
    stats = GroupStats.from_data(X, Y, None, second_moments=False)
    positive, negative = events.estimate(stats), events.estimate(stats.complement())
    mask = np.array([[True, False, True, False, False], [False] * 5])
    silenced = events.silence(positive, negative, mask)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        ratio = events.score_ratio(*silenced, X)
    assert np.all(np.isfinite(ratio))
    np.testing.assert_array_equal(ratio[:, 1], 0.0)


def test_the_fits_cached_estimates_equal_fresh_ones_after_a_widened_mask(shared_dataset):
    """The accessor a fit returns (its estimates cached while the members were added, a
    mask widened by the evidence check among them) scores as a fresh accessor does."""
    from mlnb.multilabel._members import members_of

    data = shared_dataset("enron")
    X, Y = data.X[:400], data.Y[:400]
    model = DynamicChainEnsemble(
        n_chains=4, beta=1.0, events="bayesian_multinomial", rule="predict", random_state=0
    )
    fitted = model._fit(X, Y, None)
    assert any(mask.all(axis=1).any() for mask in model.feature_masks_)  # widened
    fresh = members_of(model)
    rows = fresh.inputs(X[:50])
    for member in range(4):
        np.testing.assert_array_equal(
            fitted.log_odds(member, rows[1]), fresh.log_odds(member, rows[1])
        )
