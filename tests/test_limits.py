"""Bounds on parameters without an upper bound (:mod:`mlnb.limits`): a fit whose planned
memory or work is absurd is refused before it starts, with the estimate and how to lift the
bound; the benchmark sets at the defaults and the papers' settings stay far inside."""

import csv
import re
from pathlib import Path

import numpy as np
import pytest

import mlnb.limits
from mlnb import (
    IMLNB,
    OOCC,
    BaggedBinaryRelevance,
    BinaryRelevance,
    ClassifierChain,
    DynamicChainEnsemble,
    EnsembleClassifierChains,
    GeneticChainEnsemble,
    KNNChain,
    LabelPowerset,
    NaiBX,
    RAkEL,
)
from mlnb.limits import ResourceLimitError, are_lifted, check_cost, lifted

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def rows(n=40, n_labels=3, seed=0):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, n_labels)) < 0.4).astype(int)
    return rng.poisson(1 + 3 * Y @ rng.random((n_labels, 5))), Y


def test_a_hundred_million_chains_on_40_rows_are_refused_at_once():
    X, Y = rows()
    model = EnsembleClassifierChains(n_chains=100_000_000)
    with pytest.raises(ResourceLimitError) as error:
        model.fit(X, Y)
    message = str(error.value)
    assert "n_chains=100000000" in message
    assert "40 rows x 5 features x 3 labels" in message
    assert re.search(r"about [\d.e+]+ float64 values \([\d.]+ GiB", message)
    assert "mlnb.limits.lifted()" in message and "MLNB_LIFT_LIMITS=1" in message
    assert not hasattr(model, "feature_stats_")  # refused before any work


def test_a_refused_fit_leaves_a_fitted_model_as_it_was():
    X, Y = rows()
    model = EnsembleClassifierChains(n_chains=2, events="multinomial", random_state=0).fit(X, Y)
    before, state = model.decision_function(X), dict(vars(model))
    model.set_params(n_chains=10**9)
    with pytest.raises(ResourceLimitError):
        model.partial_fit(X, Y)
    assert all(vars(model)[k] is v for k, v in state.items() if k != "n_chains")
    model.set_params(n_chains=2)
    np.testing.assert_array_equal(model.decision_function(X), before)


@pytest.fixture
def tight(monkeypatch):
    """Bounds so low that a small, reasonable ensemble trips them."""
    monkeypatch.delenv(mlnb.limits.ENVIRONMENT_VARIABLE, raising=False)
    monkeypatch.setattr(mlnb.limits, "MAX_VALUES", 100)
    monkeypatch.setattr(mlnb.limits, "MAX_STEPS", 100)


def test_the_lifted_bound_runs_a_reasonable_case(tight):
    X, Y = rows()
    model = EnsembleClassifierChains(n_chains=3, events="multinomial", random_state=0)
    with pytest.raises(ResourceLimitError):
        model.fit(X, Y)
    with lifted():
        assert are_lifted()
        model.fit(X, Y)
    assert not are_lifted()
    assert model.predict(X).shape == Y.shape


def test_the_environment_variable_lifts_the_bound(tight, monkeypatch):
    X, Y = rows()
    model = BaggedBinaryRelevance(n_estimators=3, events="multinomial", random_state=0)
    for off in ("", "0", "false"):
        monkeypatch.setenv(mlnb.limits.ENVIRONMENT_VARIABLE, off)
        with pytest.raises(ResourceLimitError):
            model.fit(X, Y)
    monkeypatch.setenv(mlnb.limits.ENVIRONMENT_VARIABLE, "1")
    assert model.fit(X, Y).predict(X).shape == Y.shape


# Each parameter without an upper bound, at an absurd value on 40 rows.
HUGE = [
    (EnsembleClassifierChains, {"n_chains": 10**8}, "n_chains"),
    (EnsembleClassifierChains, {"inference": "beam", "beam_width": 10**9}, "beam_width"),
    (ClassifierChain, {"inference": "beam", "beam_width": 10**9}, "beam_width"),
    (ClassifierChain, {"inference": "marginal", "n_draws": 10**8}, "n_draws"),
    (BaggedBinaryRelevance, {"n_estimators": 10**8}, "n_estimators"),
    (DynamicChainEnsemble, {"n_chains": 10**8}, "n_chains"),
    (OOCC, {"n_orders": 10**10}, "n_orders"),
    (GeneticChainEnsemble, {"n_generations": 10**9}, "n_generations"),
    (GeneticChainEnsemble, {"n_chains": 10**9}, "n_chains"),
    (IMLNB, {"fixed_point": True, "max_iter": 10**10}, "max_iter"),
]


@pytest.mark.parametrize(("cls", "params", "name"), HUGE, ids=lambda v: str(v))
def test_every_unbounded_parameter_is_bounded(cls, params, name):
    X, Y = rows(n_labels=12)  # more than 10 labels: the marginals are sampled
    with pytest.raises(ResourceLimitError, match=f"{name}="):
        cls(**params).fit(X, Y)


def test_rakel_counts_only_the_subsets_that_exist():
    X, Y = rows(n_labels=40)
    with pytest.raises(ResourceLimitError, match="n_subsets="):
        RAkEL(k=20, n_subsets=10**8).fit(X, Y)  # C(40, 20) = 1.4e11 subsets exist
    X, Y = rows(n_labels=4)
    model = RAkEL(k=3, n_subsets=10**8, events="multinomial").fit(X, Y)
    assert len(model.subsets_) == 4  # C(4, 3): all of them, found at once


def test_a_bad_parameter_is_reported_as_such_before_any_estimate():
    X, Y = rows()
    with pytest.raises(ValueError, match="'n_chains' parameter") as error:
        EnsembleClassifierChains(n_chains="many").fit(X, Y)
    assert not isinstance(error.value, ResourceLimitError)


def manifest_shapes():
    """(name, rows, features, labels) of every multi-label benchmark set."""
    path = DATA / "MANIFEST.tsv"
    if not path.is_file():
        pytest.skip(f"benchmark data not found at {DATA}")
    with path.open() as handle:
        entries = [
            e for e in csv.DictReader(handle, delimiter="\t") if e["category"] == "multilabel"
        ]
    return [
        (
            e["name"],
            *(
                int(re.match(r"\d+", e[k]).group())
                for k in ("instances", "features", "labels_or_classes")
            ),
        )
        for e in entries
    ]


# The defaults, and the papers' settings: ensembles of up to 50 members, beams of 10.
SETTINGS = [
    BinaryRelevance(),
    ClassifierChain(),
    ClassifierChain(inference="beam", beam_width=10),
    ClassifierChain(inference="marginal", n_draws=200),
    EnsembleClassifierChains(),
    EnsembleClassifierChains(n_chains=50, inference="beam", beam_width=10),
    BaggedBinaryRelevance(n_estimators=50),
    DynamicChainEnsemble(),
    DynamicChainEnsemble(n_chains=50),
    OOCC(),
    OOCC(n_orders=50),
    GeneticChainEnsemble(),
    GeneticChainEnsemble(n_chains=50, n_generations=50),
    RAkEL(),
    LabelPowerset(),
    IMLNB(fixed_point=True, max_iter=100),
    KNNChain(n_neighbors=50),
    NaiBX(),
]


@pytest.mark.parametrize("model", SETTINGS, ids=repr)
def test_the_benchmark_sets_stay_inside_the_bounds(model, monkeypatch):
    monkeypatch.delenv(mlnb.limits.ENVIRONMENT_VARIABLE, raising=False)
    for name, n_samples, n_features, n_labels in manifest_shapes():
        if isinstance(model, RAkEL):
            model.set_params(n_subsets=2 * n_labels)  # the usual m = 2L
        cost = model._planned_cost(n_samples, n_features, n_labels)
        check_cost(
            type(model).__name__,
            cost,
            n_samples=n_samples,
            n_features=n_features,
            n_labels=n_labels,
        )
        if cost is not None:  # with room to spare
            assert cost.values < mlnb.limits.MAX_VALUES / 4, name
            assert cost.steps < mlnb.limits.MAX_STEPS / 2, name


def test_the_message_names_both_estimates():
    with pytest.raises(ResourceLimitError, match=r"hold about .* and take about .* steps"):
        check_cost(
            "Model",
            mlnb.limits.Cost(1e12, 1e13, {"n_members": 5}),
            n_samples=1,
            n_features=1,
            n_labels=1,
        )
    check_cost("Model", None, n_samples=1, n_features=1, n_labels=1)  # nothing to bound
