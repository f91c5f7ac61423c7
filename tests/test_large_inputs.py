"""Large, tiny and ill-typed inputs: finite results or a clear error naming the input."""

import inspect

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

import mlnb
from mlnb.base import Integers
from mlnb.estimators import all_estimators

pytestmark = pytest.mark.filterwarnings("error")

SINGLE = [mlnb.GaussianNB, mlnb.BayesianGaussianNB]
MULTI = [mlnb.BinaryRelevance, mlnb.ClassifierChain, mlnb.NaiBX]


@pytest.fixture(scope="module")
def emotions(shared_dataset):
    data = shared_dataset("emotions")
    return data.X[:200], data.Y[:200]


def _fit(cls, X, Y, **params):
    target = Y[:, 0] if cls in SINGLE else Y
    return cls(**params).fit(X, target)


@pytest.mark.parametrize("scale", [1e140, 1e-140])
@pytest.mark.parametrize("cls", [mlnb.GaussianNB, *MULTI], ids=lambda c: c.__name__)
def test_gaussian_predictions_do_not_depend_on_the_scale(emotions, cls, scale):
    # Rescaling every feature by c scales means by c and variances (and their floor,
    # var_smoothing * largest variance) by c**2: the log-likelihoods move by a
    # class-independent constant, so the predictions are the same. (The Gaussian model
    # named: at events="tuned" the choice is among models that are not all scale-free,
    # the Bayesian Gaussian's prior and the discretised Gaussian's 1e-10 floor absolute.)
    X, Y = emotions
    params = {} if cls in SINGLE else {"events": "gaussian", "rule": "predict"}
    reference = _fit(cls, X, Y, **params).predict(X)
    model = _fit(cls, X * scale, Y, **params)
    assert np.array_equal(model.predict(X * scale), reference)
    assert np.all(np.isfinite(model.predict_proba(X * scale)))


@pytest.mark.parametrize("scale", [1e140, 1e-140])
def test_bayesian_gaussian_is_finite_at_extreme_scales(emotions, scale):
    # Not scale-invariant (the Normal-Gamma prior's a, b are absolute): finite only.
    X, Y = emotions
    proba = mlnb.BayesianGaussianNB().fit(X * scale, Y[:, 0]).predict_proba(X * scale)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("scale", [1e155, 1e160, 1e-155, 1e-160])
@pytest.mark.parametrize("cls", [*SINGLE, *MULTI], ids=lambda c: c.__name__)
def test_values_beyond_float64_squares_raise_a_value_error_naming_X(emotions, cls, scale):
    X, Y = emotions
    with pytest.raises(ValueError, match=r"^X passed to .*(1e\+150|1e-150)"):
        _fit(cls, X * scale, Y)


def test_predicting_out_of_range_rows_raises_too(emotions):
    X, Y = emotions
    model = mlnb.GaussianNB().fit(X, Y[:, 0])
    with pytest.raises(ValueError, match=r"^X passed to GaussianNB"):
        model.predict(X * 1e160)


@pytest.mark.parametrize("y", [["a", None, "b", "a"], [0, 1, None, 1], [0.0, np.nan, 1.0, 1.0]])
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_single_label_y_with_none_raises_a_value_error_naming_y(y, method):
    X = np.arange(8.0).reshape(4, 2)
    kwargs = {"classes": [0, 1]} if method == "partial_fit" else {}
    with pytest.raises(ValueError, match=r"^y holds 1 missing class"):
        getattr(mlnb.GaussianNB(), method)(X, y, **kwargs)


@pytest.mark.parametrize("cls", [mlnb.KNNChain, mlnb.LabelPowerset], ids=lambda c: c.__name__)
def test_multi_label_y_with_none_raises_a_value_error_naming_the_unknown_cells(cls):
    X = np.arange(8.0).reshape(4, 2)
    Y = [[0, 1], [1, None], [1, 0], [0, 1]]
    with pytest.raises(ValueError, match=r"^Y has 1 unknown cells .*BinaryRelevance"):
        cls().fit(X, Y)


def test_multi_label_y_with_none_is_an_unknown_cell_where_learnt():
    X = np.arange(8.0).reshape(4, 2)
    Y = [[0, 1], [1, None], [1, 0], [0, 1]]
    with_none = mlnb.BinaryRelevance(events="gaussian", rule="predict").fit(X, Y)
    with_nan = mlnb.BinaryRelevance(events="gaussian", rule="predict").fit(
        X, np.array(Y, dtype=float)
    )
    np.testing.assert_array_equal(with_none.predict_log_odds(X), with_nan.predict_log_odds(X))


ESTIMATORS = [pytest.param(cls, id=cls.__name__) for cls in all_estimators()]
WITH_N_CHAINS = [cls for cls in all_estimators() if "n_chains" in inspect.signature(cls).parameters]


def _make(cls, **params):
    """``cls`` with ``params`` over its first test instance's (a meta-estimator's wrapped one)."""
    return cls(**{**cls._unit_test_params()[0], **params})


@pytest.mark.parametrize("bad", [True, "3", 2.5])
@pytest.mark.parametrize("cls", WITH_N_CHAINS, ids=lambda c: c.__name__)
def test_n_chains_of_a_wrong_type_is_refused(cls, bad):
    X = np.random.RandomState(0).rand(12, 3)
    Y = np.eye(3, dtype=int)[np.arange(12) % 3]
    with pytest.raises(InvalidParameterError, match="'n_chains' parameter"):
        cls(n_chains=bad).fit(X, Y)


def test_n_chains_is_found_on_the_ensembles():
    names = {cls.__name__ for cls in WITH_N_CHAINS}
    assert {"EnsembleClassifierChains", "DynamicChainEnsemble", "GeneticChainEnsemble"} <= names


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_every_parameter_is_declared(cls):
    declared = getattr(cls, "_parameter_constraints", {})
    params = set(inspect.signature(cls).parameters) - {"estimator"}
    assert params <= set(declared)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_a_bool_where_an_int_is_declared_is_refused(cls):
    declared = getattr(cls, "_parameter_constraints", {})
    params = inspect.signature(cls).parameters
    integers = [
        name
        for name in params
        if any(isinstance(c, Integers) for c in declared.get(name, ()))
        or (
            isinstance(params[name].default, int)
            and not isinstance(params[name].default, bool)
            and name != "random_state"
        )
    ]
    X = np.random.RandomState(0).rand(12, 3)
    Y = np.eye(3, dtype=int)[np.arange(12) % 3]
    y = Y.argmax(axis=1)
    target = y if cls in all_estimators("single_label") else Y
    if not integers:
        pytest.skip(f"{cls.__name__} has no integer parameter")
    for name in integers:
        with pytest.raises(InvalidParameterError, match=f"'{name}' parameter"):
            _make(cls, **{name: True}).fit(X, target)
