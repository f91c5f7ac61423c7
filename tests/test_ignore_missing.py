"""``missing=`` decided once: :func:`mlnb.events.bind_missing` and :class:`IgnoreMissing`.

The wrapper's ``prepare`` / ``score`` / ``score_ratio`` are its model's ``*_observed``
methods, bit for bit; estimators with ``missing="ignore"`` score as those methods do;
``missing="error"`` leaves the model as it is; the fitted state (and so a model file)
holds the plain model, never the wrapper.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from mlnb import (
    BayesianBernoulliNB,
    BayesianGaussianNB,
    BayesianMultinomialNB,
    BernoulliNB,
    BinaryRelevance,
    CategoricalNB,
    ComplementNB,
    EnsembleClassifierChains,
    GaussianNB,
    LabelPowerset,
    MultinomialNB,
    NaiBX,
)
from mlnb._registered import registered_classes
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
    IgnoreMissing,
    Mixed,
    Multinomial,
    bind_missing,
)
from mlnb.io import load, save
from mlnb.stats import GroupStats, one_hot

MODELS = {
    "gaussian": ("real", lambda: Gaussian(var_smoothing=1e-3)),
    "bayesian_gaussian": ("real", BayesianGaussian),
    "discretised": ("real", lambda: DiscretisedGaussian(precision=0.1)),
    "bernoulli": ("binary", lambda: Bernoulli(alpha=0.5)),
    "bayesian_bernoulli": ("binary", lambda: BayesianBernoulli(a=0.5, b=2.0)),
    "multinomial": ("counts", lambda: Multinomial(alpha=0.5)),
    "bayesian_multinomial": ("counts", lambda: BayesianMultinomial(beta=0.5)),
    "complement": ("counts", lambda: Complement(norm=True)),
    "categorical": ("counts", lambda: Categorical(alpha=0.7, max_categories=6)),
    "bayesian_categorical": ("counts", lambda: BayesianCategorical(max_categories=6)),
    "mixed": (
        "counts",
        lambda: Mixed(blocks=[(Gaussian(var_smoothing=1e-3), [0, 2]), (Categorical(), [1, 3])]),
    ),
}


def holed(kind, n, d, share, rng):
    """Rows of the model's domain with about ``share`` of their entries NaN."""
    if kind == "real":
        X = rng.normal(size=(n, d)) * np.arange(1, d + 1) + 1.0
    elif kind == "binary":
        X = (rng.random((n, d)) < 0.4).astype(float)
    else:  # counts and categorical codes
        X = rng.integers(0, 4, size=(n, d)).astype(float)
    X[rng.random((n, d)) < share] = np.nan
    return X


def dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


def assert_same(got, expected):
    """Bit for bit, NaN where NaN, and sparse where sparse."""
    assert sp.issparse(got) == sp.issparse(expected)
    np.testing.assert_array_equal(dense(got), dense(expected))


# ---- (a) the wrapper is its model's *_observed methods ---------------------------------------
@pytest.mark.parametrize("name", MODELS)
@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(3, 25),
    share=st.sampled_from([0.0, 0.1, 0.3, 0.6]),
    sparse=st.booleans(),
)
def test_wrapper_scores_are_the_observed_methods(name, seed, n, share, sparse):
    kind, make = MODELS[name]
    rng = np.random.default_rng(seed)
    model = make()
    wrapped = bind_missing(model, "ignore")
    assert isinstance(wrapped, IgnoreMissing) and wrapped.events is model
    as_input = sp.csr_matrix if sparse else np.asarray
    X, test = as_input(holed(kind, n, 4, share, rng)), as_input(holed(kind, 7, 4, share, rng))
    y = np.arange(n) % 3  # every class seen

    prepared = wrapped.prepare(X, caller="test")
    assert_same(prepared, model.prepare_observed(X, caller="test"))
    stats = GroupStats.from_data(prepared, one_hot(y, 3), second_moments=wrapped.second_moments)
    positive, negative = wrapped.estimate(stats), wrapped.estimate(stats.complement())
    rows = wrapped.prepare(test)
    assert_same(rows, model.prepare_observed(test))
    assert_same(wrapped.score(positive, rows), model.score_observed(positive, rows))
    assert_same(
        wrapped.score_ratio(positive, negative, rows),
        model.score_ratio_observed(positive, negative, rows),
    )
    assert_same(wrapped.zero_terms(positive), model.zero_terms(positive))
    assert_same(
        wrapped.log_likelihood(stats, test, params=positive),
        model.log_likelihood(stats, test, params=positive),
    )


@pytest.mark.parametrize("name", MODELS)
def test_wrapper_forwards_the_rest_of_the_protocol(name):
    kind, make = MODELS[name]
    model = make()
    wrapped = IgnoreMissing(model)
    for attribute in ("input_kind", "second_moments", "zero_features_silent", "keeps_width"):
        assert getattr(wrapped, attribute) == getattr(model, attribute)
    assert wrapped.statistics_key() == model.statistics_key()
    assert wrapped.prepared_width(4) == model.prepared_width(4)
    assert wrapped.input_width(model.prepared_width(4)) == 4
    rng = np.random.default_rng(0)
    X = holed(kind, 30, 4, 0.2, rng)
    prepared = wrapped.prepare(X)
    stats = GroupStats.from_data(prepared, one_hot(np.arange(30) % 2, 2), second_moments=True)
    a, b = wrapped.estimate(stats), model.estimate(stats)
    assert type(a) is type(b)
    mask = np.array([[True, False, True, False], [False, True, True, True]])
    if not model.keeps_width:
        mask = mask[:, model.prepared_columns(4)]
    pos, neg = model.estimate(stats.select_groups([0])), model.estimate(stats.select_groups([1]))
    try:
        expected = model.silence(pos, neg, mask[:1])
    except TypeError as error:
        with pytest.raises(TypeError, match=str(error)[:30]):
            wrapped.silence(pos, neg, mask[:1])
    else:
        got = wrapped.silence(pos, neg, mask[:1])
        assert_same(
            wrapped.score_ratio(*got, prepared), model.score_ratio_observed(*expected, prepared)
        )


def test_the_wrapper_is_an_estimator_of_its_model():
    model = Multinomial(alpha=0.3)
    wrapped = IgnoreMissing(model)
    assert wrapped.get_params(deep=False) == {"events": model}
    copy = clone(wrapped)
    assert isinstance(copy, IgnoreMissing) and copy.events is not model
    assert copy.events.get_params() == model.get_params()
    assert repr(wrapped) == "IgnoreMissing(events=Multinomial(alpha=0.3))"
    assert f"{IgnoreMissing.__module__}.IgnoreMissing" in registered_classes()
    assert bind_missing(wrapped, "ignore") is wrapped  # bound once, not twice
    with pytest.raises(AttributeError):  # private names are not forwarded
        wrapped._statistics_params
    with pytest.raises(AttributeError):
        wrapped.no_such_method


def test_a_wrapper_in_a_fitted_state_would_load(tmp_path):
    """Estimators keep it out of their state; were it there, a model file holds it."""
    X, Y = _multilabel()
    model = BinaryRelevance().fit(X, Y)
    model.bound_ = IgnoreMissing(model.events_)
    save(model, tmp_path / "model.mlnb")
    loaded = load(tmp_path / "model.mlnb").bound_
    # the event model BinaryRelevance() chose (events="tuned"; the Gaussian on these rows)
    assert isinstance(loaded, IgnoreMissing) and type(loaded.events) is type(model.events_)


# ---- (c) missing="error" leaves the model as it is -----------------------------------------
@pytest.mark.parametrize("missing", ["error", None])
@pytest.mark.parametrize("name", MODELS)
def test_error_leaves_the_model_unwrapped(name, missing):
    model = MODELS[name][1]()
    assert bind_missing(model, missing) is model


@pytest.mark.parametrize("make", [GaussianNB, MultinomialNB, BinaryRelevance, NaiBX, LabelPowerset])
def test_estimators_bind_their_option_and_keep_the_plain_model(make, tmp_path):
    X, Y = _multilabel()
    target = Y[:, 0] + Y[:, 1] if make in (GaussianNB, MultinomialNB) else Y
    X = np.abs(X)
    plain = make().fit(X, target)
    assert plain._bound_events() is plain.events_
    assert isinstance(plain.events_, EventModel)
    X[0, 0] = np.nan
    ignoring = make(missing="ignore").fit(X, target)
    ignoring.predict(X)
    bound = ignoring._bound_events()
    assert isinstance(bound, IgnoreMissing) and bound.events is ignoring.events_
    assert not isinstance(ignoring.events_, IgnoreMissing)
    assert not isinstance(ignoring.event_model(), IgnoreMissing)
    assert not any(isinstance(v, IgnoreMissing) for v in vars(ignoring).values())
    save(ignoring, tmp_path / "model.mlnb")
    loaded = load(tmp_path / "model.mlnb")
    assert type(loaded.events_) is type(ignoring.events_)
    np.testing.assert_array_equal(loaded.predict(X), ignoring.predict(X))


# ---- (b) estimators with missing="ignore" score as the *_observed methods ------------------
def _multilabel(n=70, seed=0):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 3)) < 0.4).astype(int)
    X = rng.normal(size=(n, 5)) + Y @ rng.normal(size=(3, 5)) * 2
    return X, Y


SINGLE_LABEL = {
    GaussianNB: "real",
    BayesianGaussianNB: "real",
    MultinomialNB: "counts",
    BayesianMultinomialNB: "counts",
    ComplementNB: "counts",
    BernoulliNB: "binary",
    BayesianBernoulliNB: "binary",
    CategoricalNB: "counts",
}


@pytest.mark.parametrize("make", SINGLE_LABEL, ids=lambda c: c.__name__)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**16), share=st.sampled_from([0.05, 0.3]), sparse=st.booleans())
def test_single_label_estimators_score_as_the_observed_methods(make, seed, share, sparse):
    rng = np.random.default_rng(seed)
    kind = SINGLE_LABEL[make]
    as_input = sp.csr_matrix if sparse else np.asarray
    X, test = as_input(holed(kind, 40, 4, share, rng)), as_input(holed(kind, 9, 4, share, rng))
    y = np.arange(40) % 3
    model = make(missing="ignore").fit(X, y)
    events = model.events_
    expected_stats = GroupStats.from_data(
        events.prepare_observed(X), one_hot(y, 3), second_moments=events.second_moments
    )
    np.testing.assert_allclose(model.stats_.sums, expected_stats.sums, rtol=1e-13)
    np.testing.assert_allclose(model.stats_.feature_count, expected_stats.feature_count, rtol=1e-13)
    joint = events.score_observed(model.params_, events.prepare_observed(test))
    joint = joint + model.class_log_prior_[None, :]
    np.testing.assert_array_equal(model.predict_joint_log_proba(test), joint)
    np.testing.assert_array_equal(model.predict(test), model.classes_[np.argmax(joint, axis=1)])


@pytest.mark.parametrize("events", ["gaussian", "multinomial", "bernoulli", "bayesian_gaussian"])
@pytest.mark.parametrize("sparse", [False, True])
def test_binary_relevance_log_odds_are_the_observed_ratio(events, sparse):
    X, Y = _multilabel()
    X = np.abs(X)
    X[np.random.default_rng(1).random(X.shape) < 0.2] = np.nan
    X = sp.csr_matrix(X) if sparse else X
    # rule="predict": the own 0.5 rule, the sign of the log-odds checked below
    model = BinaryRelevance(events=events, missing="ignore", rule="predict").fit(X, Y)
    model_events, features = model.events_, model.feature_stats_
    positive = model_events.estimate(features)
    negative = model_events.estimate(features.complement())
    ratio = model_events.score_ratio_observed(positive, negative, model_events.prepare_observed(X))
    expected = ratio + model.prior_log_odds_[None, :]
    np.testing.assert_array_equal(model.predict_log_odds(X), expected)
    np.testing.assert_array_equal(model.predict(X), (expected > 0).astype(int))


def _maker(model):
    """``make(**params)``: a copy of ``model`` with ``params`` set."""
    return lambda **params: clone(model).set_params(**params)


# every multi-label estimator with the missing option, as its _unit_test_params say, and
# an ensemble of complement models
MULTILABEL = {
    **{
        name: _maker(model)
        for name, model in test_instances("multi_label")
        if "missing" in model.get_params()
    },
    "ECC-complement": lambda **k: EnsembleClassifierChains(
        n_chains=3, random_state=0, events=Complement(), **k
    ),
}


@pytest.mark.parametrize("make", MULTILABEL.values(), ids=MULTILABEL.keys())
def test_ignore_without_missing_entries_is_error_bit_for_bit(make):
    """Rows without NaN: the wrapper's path gives exactly the plain model's scores."""
    X, Y = _multilabel()
    X = np.abs(X)
    ignoring, plain = make(missing="ignore").fit(X, Y), make().fit(X, Y)
    for method in ("predict", "predict_proba", "decision_function"):
        if hasattr(plain, method):
            got, expected = getattr(ignoring, method)(X), getattr(plain, method)(X)
            np.testing.assert_array_equal(got, expected, err_msg=method)
