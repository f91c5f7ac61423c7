"""The public protocols between layers: event models, statistics, fold subtraction.

An event model defined here, outside mlnb, must serve the multi-label estimators (feature
selection included) and survive a model file; every built-in event model must silence
features; FoldSubtractionSearchCV must equal GridSearchCV on every multi-label estimator of
the statistics protocol and refuse the others with a TypeError.
"""

from dataclasses import dataclass

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold

from mlnb import (
    IMLNB,
    BinaryRelevance,
    ClassifierChain,
    DynamicChainEnsemble,
    NaiBX,
)
from mlnb.base import is_additive
from mlnb.datasets import make_multilabel
from mlnb.estimators import test_instances
from mlnb.events import (
    BayesianBernoulli,
    BayesianCategorical,
    BayesianGaussian,
    BayesianMultinomial,
    Bernoulli,
    Categorical,
    Complement,
    DiscretisedGaussian,
    EventModel,
    Gaussian,
    Mixed,
    Multinomial,
    Parameters,
)
from mlnb.io import load, save
from mlnb.selection import FoldSubtractionSearchCV
from mlnb.stats import GroupStats


# ---- an event model that mlnb does not know ---------------------------------------------
@dataclass
class ExponentialParameters(Parameters):
    """Log-rates and rates of every group and feature."""

    log_rate: np.ndarray
    rate: np.ndarray

    per_feature = ("log_rate", "rate")


class Exponential(EventModel):
    """``x_v ~ Exponential(rate_cv)``, the rate a Gamma(a, b) posterior mean."""

    name = "exponential"

    def __init__(self, a=1.0, b=1.0):
        self.a = a
        self.b = b

    def prepare(self, X, *, caller="this model"):
        values = X.data if sp.issparse(X) else X
        if values.size and values.min() < 0:
            raise ValueError(f"{caller}: the exponential model needs values >= 0")
        return X

    def estimate(self, stats):
        rate = (stats.count[:, None] + self.a) / (stats.sums + self.b)
        return ExponentialParameters(np.log(rate), rate)

    def score(self, params, X):
        return params.log_rate.sum(axis=1)[None, :] - np.asarray(X @ params.rate.T)


def positive_data(seed=0, n=90):
    X, Y = make_multilabel(n, 6, 3, label_dependence=0.5, random_state=seed)
    return np.abs(X), Y


def test_a_user_event_model_gives_the_hand_computed_log_odds():
    X, Y = positive_data()
    model = BinaryRelevance(events=Exponential(a=2.0, b=0.5)).fit(X, Y)
    x = X[:4]
    for label in range(Y.shape[1]):
        positive = Y[:, label] == 1
        rate_p = (positive.sum() + 2.0) / (X[positive].sum(axis=0) + 0.5)
        rate_n = ((~positive).sum() + 2.0) / (X[~positive].sum(axis=0) + 0.5)
        odds = (
            np.log(rate_p).sum()
            - x @ rate_p
            - np.log(rate_n).sum()
            + x @ rate_n
            + np.log(positive.mean() / (1 - positive.mean()))
        )
        np.testing.assert_allclose(model.predict_log_odds(x)[:, label], odds, rtol=1e-10)


@pytest.mark.parametrize(
    "estimator",
    [
        BinaryRelevance(events=Exponential()),
        ClassifierChain(events=Exponential(), order=[2, 0, 1]),
        DynamicChainEnsemble(events=Exponential(), n_chains=3, beta=2.0, random_state=0),
    ],
    ids=["BR", "CC", "DCE"],
)
def test_a_user_event_model_serves_estimators_and_model_files(estimator, tmp_path):
    X, Y = positive_data(1)
    fitted = estimator.fit(X[:60], Y[:60])
    predicted = fitted.predict(X[60:])
    assert predicted.shape == (30, 3)
    path = tmp_path / "model.mlnb"
    save(fitted, path)
    again = load(path)
    assert isinstance(again.events_, Exponential)
    np.testing.assert_array_equal(again.predict(X[60:]), predicted)


def test_a_named_user_event_model_is_found_by_name():
    X, Y = positive_data(3)
    by_name = BinaryRelevance(events="exponential").fit(X, Y)
    assert isinstance(by_name.events_, Exponential)
    np.testing.assert_array_equal(
        by_name.predict(X), BinaryRelevance(events=Exponential()).fit(X, Y).predict(X)
    )


# ---- every event model silences unselected features ------------------------------------
MODELS = [
    Gaussian(),
    BayesianGaussian(),
    DiscretisedGaussian(precision=1.0),
    Multinomial(alpha=0.5),
    BayesianMultinomial(beta=0.5),
    Bernoulli(alpha=0.5),
    BayesianBernoulli(a=0.5, b=2.0),
    Mixed(blocks=[("gaussian", [0, 2, 4]), (Multinomial(), [1, 3, 5])]),
    Categorical(max_categories=40),
    BayesianCategorical(max_categories=40),
    Complement(norm=True),
    Exponential(),
]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: type(m).__name__)
@pytest.mark.parametrize("sparse", [False, True])
def test_silenced_features_carry_no_evidence(model, sparse):
    rng = np.random.default_rng(3)
    X = rng.poisson(1.5, size=(50, 6)).astype(float)
    Y = (rng.random((50, 3)) < 0.4).astype(float)
    prepared = model.prepare(X)
    stats = GroupStats.from_data(prepared, Y, second_moments=model.second_moments)
    positive, negative = model.estimate(stats), model.estimate(stats.complement())
    selected = np.array([True, False, True, True, False, False])
    chosen = model.prepare(selected[None, :].astype(float))  # the prepared order
    chosen = chosen.toarray() if sp.issparse(chosen) else chosen
    mask = np.tile(chosen != 0, (3, 1))
    quiet = model.silence(positive, negative, mask)
    changed = X.copy()
    changed[:, ~selected] = rng.poisson(4.0, size=(50, (~selected).sum()))
    scores = []
    for rows in (X, changed):
        rows = model.prepare(sp.csr_matrix(rows) if sparse else rows)
        scores.append(model.score_ratio(*quiet, rows))
    np.testing.assert_allclose(scores[0], scores[1], rtol=1e-9, atol=1e-9)
    loud = model.score_ratio(positive, negative, model.prepare(X))
    assert not np.allclose(loud, scores[0])  # the selection did change the scores


def test_a_model_whose_parameters_list_no_features_cannot_silence():
    class Opaque(Gaussian):
        def estimate(self, stats):
            return {"inner": super().estimate(stats)}

    stats = GroupStats.from_data(np.eye(3), np.eye(3))
    model = Opaque()
    with pytest.raises(TypeError, match="Opaque cannot silence"):
        model.silence(model.estimate(stats), model.estimate(stats), np.ones((3, 3), bool))


@pytest.mark.parametrize(
    "events",
    [
        Mixed(blocks=[("gaussian", [0, 1, 2]), ("bernoulli", [3, 4, 5])]),
        BayesianMultinomial(beta=0.5),
        BayesianGaussian(),
    ],
    ids=["Mixed", "BayesianMultinomial", "BayesianGaussian"],
)
def test_dce_fits_every_event_model_with_feature_selection(events):
    X, Y = positive_data(2, n=120)
    X = np.round(X * 3)  # counts, for the multinomial
    model = DynamicChainEnsemble(events=events, n_chains=3, beta=2.0, random_state=0)
    model.fit(X, Y)
    assert all(mask is not None for mask in model.feature_masks_)
    proba = model.predict_proba(X)
    assert proba.shape == Y.shape and np.all((proba >= 0) & (proba <= 1))


def test_input_kinds():
    kinds = {type(m).__name__: m.input_kind for m in MODELS}
    assert kinds["Multinomial"] == kinds["BayesianMultinomial"] == "counts"
    assert kinds["Bernoulli"] == kinds["BayesianBernoulli"] == "binary"
    assert kinds["Gaussian"] == kinds["BayesianGaussian"] == kinds["DiscretisedGaussian"] == "real"
    assert kinds["Mixed"] == "mixed"


# ---- fold subtraction on every multi-label estimator -------------------------------------
# explicit settings (the defaults before "tuned"): a model made from statistics predicts
# with its own rule, and a fixed event model is what a grid without "events" keeps
FIXED = {"events": "gaussian", "rule": "predict"}
ADDITIVE = [
    (
        BinaryRelevance(**FIXED),
        {"prior_alpha": [0.0, 1.0], "events": ["gaussian", Gaussian(1e-2)]},
    ),
    (ClassifierChain(order=[1, 0, 2, 3], **FIXED), {"label_alpha": [0.5, 2.0]}),
    (IMLNB(**FIXED), {"prior_alpha": [0.0, 1.0]}),
    (NaiBX(**FIXED), {"prior_alpha": [0.5, 1.0], "events": ["gaussian", "bayesian_gaussian"]}),
]
# every other multi-label estimator, as its _unit_test_params say
OTHERS = [
    pytest.param(estimator, id=name)
    for name, estimator in test_instances("multi_label")
    if not is_additive(estimator)
]


@pytest.mark.parametrize("estimator,grid", ADDITIVE, ids=lambda e: type(e).__name__)
def test_fold_subtraction_equals_grid_search(estimator, grid):
    X, Y = make_multilabel(150, 6, 4, label_dependence=0.6, random_state=4)
    cv = KFold(3, shuffle=True, random_state=0)
    ours = FoldSubtractionSearchCV(estimator, grid, scoring="f1_micro", cv=cv).fit(X, Y)
    theirs = GridSearchCV(estimator, grid, scoring="f1_micro", cv=cv).fit(X, Y)
    for k in range(3):
        key = f"split{k}_test_score"
        np.testing.assert_allclose(ours.cv_results_[key], theirs.cv_results_[key], atol=1e-12)
    np.testing.assert_array_equal(
        ours.best_estimator_.predict(X), theirs.best_estimator_.predict(X)
    )


@pytest.mark.parametrize("estimator", OTHERS)
def test_fold_subtraction_refuses_other_estimators(estimator):
    X, Y = make_multilabel(60, 5, 3, random_state=0)
    with pytest.raises(TypeError, match="not a function of additive statistics"):
        FoldSubtractionSearchCV(estimator, {"random_state": [0]}).fit(X, Y)


class ThresholdBR(BinaryRelevance):
    """A user's estimator: binary relevance that predicts at log-odds above ``margin``."""

    def __init__(self, *, events="gaussian", prior_alpha=0.0, base_estimator=None, margin=1.0):
        super().__init__(events=events, prior_alpha=prior_alpha, base_estimator=base_estimator)
        self.margin = margin

    def predict(self, X):
        return (self.predict_log_odds(X) > self.margin).astype(int)


def test_a_user_subclass_of_an_estimator_survives_a_model_file(tmp_path):
    X, Y = positive_data(4)
    model = ThresholdBR(events=Exponential(), margin=0.5).fit(X, Y)
    save(model, tmp_path / "model.mlnb")
    again = load(tmp_path / "model.mlnb")
    assert type(again) is ThresholdBR and again.margin == 0.5
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


# ---- every event model in every multi-label estimator ------------------------------------
# every multi-label estimator that takes an event model, as its _unit_test_params say
ESTIMATORS = [
    pytest.param(estimator, id=name)
    for name, estimator in test_instances("multi_label")
    if "events" in estimator.get_params()
]


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("events", MODELS, ids=lambda m: type(m).__name__)
def test_every_event_model_serves_every_multilabel_estimator(events, estimator):
    X, Y = positive_data(5, n=80)
    X = np.round(X * 3)  # non-negative counts: in every model's domain
    predicted = clone(estimator).set_params(events=events).fit(X, Y).predict(X)
    assert predicted.shape == Y.shape and set(np.unique(predicted)) <= {0, 1}


def test_models_with_equal_event_model_objects_merge():
    X, Y = positive_data(6)
    a = BinaryRelevance(events=Exponential(a=2.0)).fit(X[:40], Y[:40])
    b = BinaryRelevance(events=Exponential(a=2.0)).fit(X[40:], Y[40:])
    whole = BinaryRelevance(events=Exponential(a=2.0)).fit(X, Y)
    np.testing.assert_allclose(
        a.merge(b).predict_log_odds(X), whole.predict_log_odds(X), rtol=1e-10, atol=1e-10
    )
    with pytest.raises(ValueError, match="same type and hyper-parameters"):
        a.merge(BinaryRelevance(events=Exponential(a=3.0)).fit(X, Y))
