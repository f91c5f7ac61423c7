"""Semi-supervised Naive Bayes (EM over unlabelled rows, Nigam et al. 2000)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.naive_bayes import MultinomialNB as SklearnMultinomialNB
from sklearn.utils.estimator_checks import check_estimator

from mlnb import BernoulliNB, GaussianNB, MultinomialNB
from mlnb.semi_supervised import DEFAULT_ALPHAS, WEIGHTS, SemiSupervisedNB


def _words(seed=0, n=300, n_labelled=12):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    rates = rng.gamma(1.0, 1.0, size=(3, 20))
    X = rng.poisson(rates[y])
    partial = np.full(n, -1)
    labelled = rng.choice(n, size=n_labelled, replace=False)
    partial[labelled] = y[labelled]
    return X, y, partial


def test_the_first_m_step_is_the_weighted_fit_by_hand():
    """One iteration: the labelled rows, plus each unlabelled row in every class with
    weight lambda * P(class | row) under the labelled rows' model."""
    X, _, partial = _words()
    labelled = partial != -1
    lam = 0.3
    model = SemiSupervisedNB(MultinomialNB(), unlabelled_weight=lam, max_iter=1).fit(X, partial)
    first = MultinomialNB().fit(X[labelled], partial[labelled])
    proba = first.predict_proba(X[~labelled])
    classes = first.classes_
    stacked_X = np.vstack([X[labelled]] + [X[~labelled]] * len(classes))
    stacked_y = np.concatenate(
        [partial[labelled]] + [np.full((~labelled).sum(), c) for c in classes]
    )
    stacked_w = np.concatenate(
        [np.ones(labelled.sum())] + [lam * proba[:, k] for k in range(len(classes))]
    )
    by_hand = MultinomialNB().fit(stacked_X, stacked_y, sample_weight=stacked_w)
    np.testing.assert_allclose(
        model.estimator_.feature_log_prob_, by_hand.feature_log_prob_, rtol=1e-12
    )
    np.testing.assert_allclose(
        model.estimator_.class_log_prior_, by_hand.class_log_prior_, rtol=1e-12
    )
    assert model.n_iter_ == 2


def test_no_weight_is_the_fit_on_the_labelled_rows():
    X, _, partial = _words(1)
    labelled = partial != -1
    model = SemiSupervisedNB(unlabelled_weight=0.0).fit(X, partial)
    plain = MultinomialNB(alpha=DEFAULT_ALPHAS[1]).fit(X[labelled], partial[labelled])
    np.testing.assert_array_equal(model.predict_proba(X), plain.predict_proba(X))
    assert model.n_iter_ == 1 and model.log_likelihood_ == []


def test_em_learns_from_unlabelled_rows():
    """Few labelled rows, many unlabelled ones from the same classes: EM is better."""
    accuracy = {0.0: [], 1.0: []}
    for seed in range(5):
        X, y, partial = _words(seed, n=600, n_labelled=6)
        for lam in accuracy:
            model = SemiSupervisedNB(unlabelled_weight=lam, max_iter=20).fit(X, partial)
            accuracy[lam].append(model.score(X, y))
    gains = np.subtract(accuracy[1.0], accuracy[0.0])
    assert (gains >= 0).all() and gains.mean() > 0.015  # measured: +0.003 to +0.07


@pytest.mark.parametrize("estimator", [MultinomialNB(), BernoulliNB(), GaussianNB()], ids=repr)
def test_every_additive_classifier_and_sparse_rows(estimator):
    X, _, partial = _words(2)
    dense = SemiSupervisedNB(estimator, unlabelled_weight=0.5).fit(X, partial)
    stored = SemiSupervisedNB(estimator, unlabelled_weight=0.5).fit(sp.csr_matrix(X), partial)
    # the Gaussian's second moments are summed raw for sparse rows, centred for dense ones:
    # equal to rounding, which the EM iterations carry on (1e-8 relative, measured)
    rtol = 1e-6 if isinstance(estimator, GaussianNB) else 1e-9
    np.testing.assert_allclose(
        dense.predict_proba(X), stored.predict_proba(sp.csr_matrix(X)), rtol=rtol, atol=1e-12
    )
    assert np.isfinite(dense.log_likelihood_).all()


def test_the_tuned_weight_and_smoothing_are_chosen_out_of_fold():
    X, _, partial = _words(3, n=400, n_labelled=30)
    model = SemiSupervisedNB().fit(X, partial)
    results = model.cv_results_
    assert results["unlabelled_weight"] == [0.0, *WEIGHTS] * len(DEFAULT_ALPHAS)
    assert [e.alpha for e in results["estimator"]] == list(np.repeat(DEFAULT_ALPHAS, 4))
    chosen = results["mean_accuracy"].index(max(results["mean_accuracy"]))
    alone = max(
        (j for j, w in enumerate(results["unlabelled_weight"]) if w == 0),
        key=results["mean_accuracy"].__getitem__,
    )
    assert model.unlabelled_weight_ in (results["unlabelled_weight"][chosen], 0.0)
    if model.unlabelled_weight_ == 0.0:
        assert model.estimator_.alpha == results["estimator"][alone].alpha
    given = SemiSupervisedNB(MultinomialNB(alpha=0.5)).fit(X, partial)
    assert {e.alpha for e in given.cv_results_["estimator"]} == {0.5}


def test_with_too_few_labelled_rows_to_hold_out_the_weight_is_nigams():
    X, _, partial = _words(5, n=200, n_labelled=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning about folds of a few rows
        model = SemiSupervisedNB().fit(X, partial)
    assert model.unlabelled_weight_ == 1.0 and model.cv_results_ is None
    assert model.estimator_.alpha == DEFAULT_ALPHAS[1]


def test_bad_input_is_refused_by_name():
    X, _, partial = _words(4)
    with pytest.raises(ValueError, match="no labelled row"):
        SemiSupervisedNB().fit(X, np.full(X.shape[0], -1))
    with pytest.raises(ValueError, match="soft_statistics"):  # not an mlnb classifier
        SemiSupervisedNB(SklearnMultinomialNB()).fit(X, partial)
    with pytest.raises(ValueError, match="proba has shape"):
        MultinomialNB().soft_statistics(X, np.ones((X.shape[0], 2)) / 2, classes=[0, 1, 2])


def test_scikit_learn_conventions():
    """check_estimator, but for check_classifiers_classes: -1 marks an unlabelled row
    (scikit-learn's SelfTrainingClassifier's convention), so a class named -1 is unlabelled."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(SemiSupervisedNB(GaussianNB()), on_fail=None)
    failed = {r["check_name"] for r in results if r["status"] == "failed"}
    assert failed == {"check_classifiers_classes"}


# ---- binary relevance: each label learnt by EM --------------------------------------------
def _tags(seed=0, n=200, n_labelled=40):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 3)) < 0.35).astype(int)
    X = rng.poisson(0.3 + 2.0 * np.repeat(Y, 4, axis=1))
    partial = Y.copy()
    partial[n_labelled:] = -1
    return X, Y, partial


def test_binary_relevance_first_m_step_is_the_weighted_fit_of_each_label():
    from mlnb import BinaryRelevance

    X, _, partial = _tags()
    labelled = partial[:, 0] != -1
    lam = 0.5
    base = BinaryRelevance(events="multinomial", rule="predict")
    model = SemiSupervisedNB(base, unlabelled_weight=lam, max_iter=1).fit(X, partial)
    first = BinaryRelevance(events="multinomial", rule="predict").fit(
        X[labelled], partial[labelled]
    )
    proba = first.predict_proba(X[~labelled])
    for label in range(partial.shape[1]):
        stacked_X = np.vstack([X[labelled], X[~labelled], X[~labelled]])
        column = np.concatenate(
            [partial[labelled, label], np.ones((~labelled).sum()), np.zeros((~labelled).sum())]
        ).astype(int)[:, None]
        weight = np.concatenate(
            [np.ones(labelled.sum()), lam * proba[:, label], lam * (1 - proba[:, label])]
        )
        alone = BinaryRelevance(events="multinomial", rule="predict")
        alone.fit(stacked_X, column, sample_weight=weight)
        np.testing.assert_allclose(
            model.estimator_.decision_function(X)[:, label],
            alone.decision_function(X)[:, 0],
            rtol=1e-10,
        )


def test_binary_relevance_keeps_what_its_defaults_choose_on_the_labelled_rows():
    from mlnb import BinaryRelevance

    X, _, partial = _tags(1)
    labelled = partial[:, 0] != -1
    model = SemiSupervisedNB(unlabelled_weight=0.0).fit(X, partial)  # BR() by default
    plain = BinaryRelevance().fit(X[labelled], partial[labelled])
    np.testing.assert_array_equal(model.predict(X), plain.predict(X))
    tuned = SemiSupervisedNB().fit(X, partial)
    assert tuned.unlabelled_weight_ in (0.0, *WEIGHTS)
    assert tuned.predict(X).shape == partial.shape


def test_unknown_cells_in_a_labelled_row_are_refused():
    from mlnb import BinaryRelevance

    X, _, partial = _tags(2)
    partial[0, 1] = -1
    with pytest.raises(ValueError, match="unknown cells"):
        SemiSupervisedNB().fit(X, partial)
    with pytest.raises(TypeError, match="binary relevance"):
        SemiSupervisedNB(MultinomialNB()).fit(X, _tags(3)[2])
    assert BinaryRelevance  # the estimator named in the message
