"""``events="auto"`` / ``"weka"`` in the estimators: the same as the explicit Mixed model.

Weka's NaiveBayes on a nominal + numeric ARFF (the dynamic-chains paper's setup) is one
parameter: ``events=Auto("weka", column_types=data.column_types, ...)`` equals the Mixed
model of Laplace discrete estimators and NormalEstimators written out by hand. ../shared/data
holds no ARFF with both kinds of attribute, so one is written here from sf2's nominal
attributes and a numeric one.
"""

import numpy as np
import pandas as pd
import pytest

from mlnb import BinaryRelevance, DynamicChainEnsemble, MixedNB
from mlnb.datasets import load_arff
from mlnb.events import (
    Auto,
    Bernoulli,
    Categorical,
    DiscretisedGaussian,
    Gaussian,
    Mixed,
    weka_precision,
)


def mixed_arff(tmp_path, data):
    """An ARFF of sf2's nominal attributes, one numeric attribute and sf2's labels."""
    rng = np.random.default_rng(0)
    numeric = np.round(rng.normal(size=data.n_samples) + data.Y[:, 0], 2)
    lines = ["@relation 'mixed: -C -3'"]
    for name in data.feature_names:
        values = ",".join(data.categories[name])
        lines.append(f"@attribute {name} {{{values}}}")
    lines.append("@attribute reading numeric")
    lines += [f"@attribute {label} {{0,1}}" for label in data.label_names]
    lines.append("@data")
    for row, value, labels in zip(data.X.astype(int), numeric, data.Y, strict=True):
        pairs = zip(data.feature_names, row, strict=True)
        nominal = [data.categories[name][code] for name, code in pairs]
        lines.append(",".join([*nominal, f"{value}", *map(str, labels)]))
    path = tmp_path / "mixed.arff"
    path.write_text("\n".join(lines) + "\n")
    return load_arff(path, labels=-3)


def weka_by_hand(data, X):
    """Weka's NaiveBayes estimators, written out: the model "weka" must choose."""
    types = np.array(data.column_types)
    declared = data.n_categories
    nominal = np.flatnonzero(types == "nominal")
    binary, many = nominal[declared[nominal] == 2], nominal[declared[nominal] > 2]
    numeric = np.flatnonzero(types == "numeric")
    blocks = [
        (Categorical(alpha=1.0, n_categories=declared[many]), many),
        (Bernoulli(alpha=1.0), binary),
        (DiscretisedGaussian(precision=weka_precision(X[:, numeric])), numeric),
    ]
    return Mixed(blocks=[block for block in blocks if len(block[1])])


@pytest.fixture
def mixed(tmp_path, shared_dataset):
    return mixed_arff(tmp_path, shared_dataset("sf2", split="full"))


def test_the_mixed_arff_has_both_kinds(mixed):
    assert mixed.column_types.count("nominal") == 10
    assert mixed.column_types[-1] == "numeric"


@pytest.mark.parametrize(
    "make",
    [
        lambda events: BinaryRelevance(events=events, prior_alpha=1.0),
        lambda events: DynamicChainEnsemble(
            events=events, n_chains=3, beta=2.0, random_state=0, prior_alpha=1.0
        ),
    ],
    ids=["BR", "DCE"],
)
def test_weka_rule_equals_the_explicit_mixed_model(mixed, make):
    X, Y = mixed.X, mixed.Y
    rule = Auto("weka", column_types=mixed.column_types, n_categories=mixed.n_categories)
    by_rule = make(rule).fit(X, Y)
    by_hand = make(weka_by_hand(mixed, X)).fit(X, Y)
    assert isinstance(by_rule.events_, Mixed)
    np.testing.assert_allclose(by_rule.predict_proba(X), by_hand.predict_proba(X), rtol=1e-12)


def test_weka_rule_beta_search_uses_the_model_of_all_rows(mixed):
    X, Y = mixed.X, mixed.Y
    rule = Auto("weka", column_types=mixed.column_types, n_categories=mixed.n_categories)
    make = lambda events: DynamicChainEnsemble(events=events, n_chains=2, random_state=0)  # noqa: E731
    by_rule, by_hand = make(rule).fit(X, Y), make(weka_by_hand(mixed, X)).fit(X, Y)
    assert by_rule.beta_ == by_hand.beta_
    np.testing.assert_array_equal(by_rule.predict(X), by_hand.predict(X))


def test_single_label_mixed_nb_takes_a_rule(mixed):
    X, y = mixed.X, mixed.Y[:, 0]
    rule = Auto("weka", column_types=mixed.column_types, n_categories=mixed.n_categories)
    by_rule = MixedNB(blocks=rule).fit(X, y)
    by_hand = MixedNB(blocks=weka_by_hand(mixed, X).blocks).fit(X, y)
    np.testing.assert_allclose(by_rule.predict_log_proba(X), by_hand.predict_log_proba(X))


def frame(n=60, seed=0):
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], size=n)
    size = rng.normal(size=n) + (colour == "red")
    Y = np.column_stack([colour == "red", size > 0.5]).astype(int)
    X = pd.DataFrame(
        {"colour": pd.Categorical(colour, categories=["blue", "green", "red"]), "size": size}
    )
    return X, Y


def test_auto_rule_on_a_dataframe_reads_its_categorical_columns():
    X, Y = frame()
    model = BinaryRelevance(events="auto").fit(X, Y)
    assert model.column_types_ == ("nominal", "numeric")
    codes = np.column_stack([X["colour"].cat.codes, X["size"]]).astype(float)
    explicit = Mixed(blocks=[(Categorical(alpha=1.0, n_categories=[3]), [0]), (Gaussian(), [1])])
    by_hand = BinaryRelevance(events=explicit).fit(codes, Y)
    np.testing.assert_allclose(model.predict_proba(X), by_hand.predict_proba(codes))
    # rows whose categorical column lists its categories in another order: coded by label
    reordered = X.assign(colour=X["colour"].cat.reorder_categories(["red", "green", "blue"]))
    np.testing.assert_allclose(model.predict_proba(reordered), by_hand.predict_proba(codes))
    unseen = X.assign(colour=X["colour"].astype(object).replace("blue", "purple"))
    with pytest.raises(ValueError, match="purple"):
        model.predict(unseen)
    tolerant = BinaryRelevance(events="auto", missing="ignore").fit(X, Y)
    assert tolerant.predict(unseen).shape == Y.shape


def test_a_rule_before_fitting_says_how_to_get_a_model():
    X, Y = frame()
    with pytest.raises(ValueError, match="fit first"):
        BinaryRelevance(events="weka").batch_statistics(np.asarray(X["size"])[:, None], Y)


def test_partial_fit_keeps_the_model_of_the_first_batch():
    X, Y = frame(n=90)
    X = np.column_stack([X["colour"].cat.codes, X["size"]]).astype(float)
    model = BinaryRelevance(events=Auto("weka", column_types=["nominal", "numeric"]))
    model.partial_fit(X[:30], Y[:30])
    first = model.events_
    model.partial_fit(X[30:], Y[30:])
    assert model.events_ is first
