"""FoldSubtractionSearchCV gives GridSearchCV's scores without refitting per fold."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.model_selection import GridSearchCV, KFold, ShuffleSplit
from sklearn.svm import LinearSVC

from mlnb import (
    BayesianBernoulliNB,
    BayesianGaussianNB,
    BayesianMultinomialNB,
    BernoulliNB,
    BinaryRelevance,
    ClassifierChain,
    GaussianNB,
    MixedNB,
    MultinomialNB,
)
from mlnb.datasets import make_multilabel
from mlnb.selection import FoldSubtractionSearchCV

BETAS = [2.0**k for k in range(-10, 1, 2)]
CASES = [
    (MultinomialNB(), {"alpha": BETAS, "prior_alpha": [0.0, 1.0]}),
    (BernoulliNB(), {"alpha": BETAS, "binarize": [0.0, 1.5]}),
    (GaussianNB(), {"var_smoothing": [1e-9, 1e-3, 1e-1]}),
    (BayesianMultinomialNB(), {"beta": BETAS, "alpha": [1.0, 2.0]}),
    (BayesianBernoulliNB(), {"a": BETAS, "b": [0.5, 1.0]}),
    (BayesianGaussianNB(), [{"a": [2.0**-8, 2.0**-4], "b": [2.0**-8, 2.0**-4]}, {"lam": [0.5]}]),
    (
        MixedNB(),
        {
            "blocks": [
                [("multinomial", slice(0, 6)), ("bernoulli", slice(6, None))],
                [("gaussian", slice(None))],
            ]
        },
    ),
]


def count_data(seed, n=150, d=12, n_classes=4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    rates = rng.uniform(0.2, 2.5, size=(n_classes, d))
    return rng.poisson(rates[y]).astype(float), y


def assert_same_search(ours, theirs):
    for key in ["mean_test_score", "std_test_score", "rank_test_score"]:
        np.testing.assert_allclose(ours.cv_results_[key], theirs.cv_results_[key], atol=1e-12)
    assert ours.best_params_ == theirs.best_params_
    assert ours.best_score_ == pytest.approx(theirs.best_score_, abs=1e-12)


@pytest.mark.parametrize("model,grid", CASES, ids=[type(c[0]).__name__ for c in CASES])
@pytest.mark.parametrize("scoring", ["f1_macro", "neg_log_loss"])
def test_equals_grid_search_cv(model, grid, scoring):
    X, y = count_data(0)
    ours = FoldSubtractionSearchCV(model, grid, cv=5, scoring=scoring).fit(X, y)
    theirs = GridSearchCV(model, grid, cv=5, scoring=scoring).fit(X, y)
    assert_same_search(ours, theirs)
    np.testing.assert_allclose(
        ours.predict_proba(X), theirs.best_estimator_.predict_proba(X), rtol=1e-9
    )


def test_sparse_input_weights_and_a_class_missing_from_a_training_part():
    X, y = count_data(1, n=60)
    y[:3] = 9  # a rare class: absent from some training parts
    grid = {"alpha": BETAS, "prior_alpha": [0.0, 1.0]}
    cv = KFold(5, shuffle=True, random_state=0)
    ours = FoldSubtractionSearchCV(MultinomialNB(), grid, cv=cv, scoring="accuracy")
    theirs = GridSearchCV(MultinomialNB(), grid, cv=cv, scoring="accuracy")
    assert_same_search(ours.fit(sp.csr_matrix(X), y), theirs.fit(sp.csr_matrix(X), y))


def test_splits_that_do_not_partition_the_rows():
    X, y = count_data(2)
    cv = ShuffleSplit(4, test_size=0.3, random_state=0)
    grid = {"alpha": BETAS}
    ours = FoldSubtractionSearchCV(BernoulliNB(), grid, cv=cv, scoring="f1_macro").fit(X, y)
    theirs = GridSearchCV(BernoulliNB(), grid, cv=cv, scoring="f1_macro").fit(X, y)
    assert_same_search(ours, theirs)


@pytest.mark.parametrize(
    # rule="predict": a model made from statistics predicts with its own rule; a rule tuned
    # inside each of GridSearchCV's refits would be a different model
    "model",
    [
        BinaryRelevance(events="multinomial", rule="predict"),
        ClassifierChain(events="multinomial", rule="predict"),
    ],
)
def test_multilabel_estimators(model):
    X, Y = make_multilabel(
        200, 15, 5, label_dependence=0.7, features="counts", doc_length=30, random_state=3
    )
    grid = {"prior_alpha": [0.0, 0.5, 1.0]}
    if "label_alpha" in model.get_params():  # the chain's label features
        grid["label_alpha"] = [0.5, 1.0]
    grid_events = {"events": ["multinomial", "bernoulli", "gaussian"]}
    for g in (grid, grid_events):
        ours = FoldSubtractionSearchCV(model, g, cv=4, scoring="f1_micro").fit(X, Y)
        theirs = GridSearchCV(model, g, cv=4, scoring="f1_micro").fit(X, Y)
        assert_same_search(ours, theirs)


def test_unsupported_estimators_are_refused():
    X, y = count_data(4)
    with pytest.raises(TypeError, match="GridSearchCV"):
        FoldSubtractionSearchCV(LinearSVC(), {"C": [1.0]}).fit(X, y)
    X, Y = make_multilabel(50, 5, 3, random_state=0)
    with pytest.raises(ValueError, match="Naive Bayes path"):
        FoldSubtractionSearchCV(
            BinaryRelevance(base_estimator=LinearSVC()), {"prior_alpha": [0.0]}
        ).fit(X, Y)
