"""Event models chosen per column (mlnb.events.auto) and the loaders' column types."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from mlnb.events import (
    Bernoulli,
    Categorical,
    DiscretisedGaussian,
    Gaussian,
    Mixed,
    Multinomial,
    weka_precision,
)
from mlnb.events.auto import column_kinds, encode_frame, frame_to_array, resolve
from mlnb.stats import GroupStats, one_hot

nan = np.nan


def _log_likelihood(model, X, classes):
    """``model``'s log-likelihoods of X's rows under the classes' statistics of X."""
    prepared = model.prepare(X)
    stats = GroupStats.from_data(prepared, one_hot(classes, int(classes.max()) + 1))
    return model.score(model.estimate(stats), prepared)


# ---- Dataset.column_types and n_categories ---------------------------------------------------
def test_column_types_of_nominal_and_numeric_data(shared_dataset):
    sf2 = shared_dataset("sf2", "full")
    assert sf2.column_types == ("nominal",) * 10
    np.testing.assert_array_equal(sf2.n_categories, [7, 6, 4, 2, 3, 3, 2, 2, 2, 2])
    assert sf2.n_categories.dtype.kind == "i"
    emotions = shared_dataset("emotions")
    assert emotions.column_types == ("numeric",) * 72
    np.testing.assert_array_equal(emotions.n_categories, np.zeros(72))


# ---- column_kinds ----------------------------------------------------------------------------
# columns: 0/1, counts, real, 0/1 with every value 1 but the missing ones
MIXED = np.array(
    [
        [0.0, 3.0, 0.5, 1.0],
        [1.0, 0.0, -1.25, nan],
        [nan, 7.0, 2.0, 1.0],
        [1.0, nan, nan, 1.0],
        [0.0, 1.0, 0.0, nan],
    ]
)


@pytest.mark.parametrize("sparse", [False, True])
def test_column_kinds_beside_real_columns(sparse):
    X = sp.csr_matrix(MIXED) if sparse else MIXED
    kinds = column_kinds(X)
    # integers beside real values are magnitudes: Gaussian, not a one-column multinomial
    assert kinds.tolist() == ["bernoulli", "gaussian", "gaussian", "bernoulli"]
    nominal = column_kinds(X, ["numeric", "nominal", "numeric", "nominal"])
    assert nominal.tolist() == ["bernoulli", "categorical", "gaussian", "categorical"]


@pytest.mark.parametrize("sparse", [False, True])
def test_column_kinds_of_a_count_table(sparse):
    counts = MIXED[:, [0, 1, 3]]  # 0/1, counts, 0/1: a bag of words
    X = sp.csr_matrix(counts) if sparse else counts
    assert column_kinds(X).tolist() == ["multinomial"] * 3
    # a nominal column leaves the count table a count table
    with_nominal = np.column_stack([counts, [2, 0, 1, 1, 0]])
    kinds = column_kinds(
        sp.csr_matrix(with_nominal) if sparse else with_nominal, ["numeric"] * 3 + ["nominal"]
    )
    assert kinds.tolist() == ["multinomial"] * 3 + ["categorical"]
    # a lone count column is a magnitude
    assert column_kinds(counts[:, [1]]).tolist() == ["gaussian"]
    # without any count above 1 the 0/1 columns stay Bernoulli
    assert column_kinds(counts[:, [0, 2]]).tolist() == ["bernoulli", "bernoulli"]


def test_a_lone_count_column_would_tell_the_classes_nothing_as_a_multinomial():
    X = np.array([[0.0], [5.0], [1.0], [9.0]])
    scores = _log_likelihood(Multinomial(), X, np.array([0, 0, 1, 1]))
    np.testing.assert_array_equal(scores, 0.0)  # why such a column is Gaussian


def test_sparse_kinds_count_the_implicit_zeros():
    # stored values all 1 (present) or all 2: with the zeros, 0/1 and counts
    X = sp.csr_matrix(np.array([[1.0, 2.0, 0.5], [0.0, 0.0, 0.0], [1.0, 2.0, 1.5]]))
    assert column_kinds(X).tolist() == ["bernoulli", "gaussian", "gaussian"]
    assert column_kinds(X[:, :2]).tolist() == ["multinomial", "multinomial"]  # a count table
    assert column_kinds(sp.csr_matrix(np.ones((2, 1)))).tolist() == ["bernoulli"]
    assert column_kinds(sp.csr_matrix(np.full((2, 1), 0.5))).tolist() == ["gaussian"]


def test_column_kinds_checks_its_arguments():
    with pytest.raises(ValueError, match="column_types must give one type per column"):
        column_kinds(MIXED, ["numeric"])
    with pytest.raises(ValueError, match="column_types holds 'ordinal'"):
        column_kinds(MIXED, ["ordinal"] * 4)
    with pytest.raises(ValueError, match="column_types marks column 2 nominal"):
        column_kinds(MIXED, ["numeric", "numeric", "nominal", "numeric"])
    with pytest.raises(ValueError, match="rule must be one of"):
        column_kinds(MIXED, rule="sklearn")
    with pytest.raises(ValueError, match="n_categories gives column 1 3 values"):
        column_kinds(MIXED, ["numeric", "nominal", "numeric", "numeric"], n_categories=[0, 3, 0, 0])


# ---- rule "weka" -----------------------------------------------------------------------------
def test_weka_rule_on_nominal_data(shared_dataset):
    sf2 = shared_dataset("sf2", "full")
    model = resolve("weka", sf2.X, sf2.column_types, n_categories=sf2.n_categories)
    assert isinstance(model, Mixed)
    (categorical, many), (bernoulli, two) = model.blocks
    assert isinstance(categorical, Categorical) and isinstance(bernoulli, Bernoulli)
    np.testing.assert_array_equal(many, [0, 1, 2, 4, 5])
    np.testing.assert_array_equal(two, [3, 6, 7, 8, 9])
    np.testing.assert_array_equal(categorical.n_categories, [7, 6, 4, 3, 3])
    assert categorical.alpha == 1.0 and bernoulli.alpha == 1.0 and bernoulli.binarize is None
    assert many.dtype.kind == "i" and two.dtype.kind == "i"
    # without the declarations the observed codes tell two-valued attributes
    kinds = column_kinds(sf2.X, sf2.column_types, rule="weka")
    assert (
        kinds.tolist()
        == ["categorical"] * 3 + ["bernoulli", "categorical", "categorical"] + ["bernoulli"] * 4
    )


def test_weka_rule_on_numeric_data(shared_dataset):
    emotions = shared_dataset("emotions")
    model = resolve("weka", emotions.X, emotions.column_types)
    assert isinstance(model, DiscretisedGaussian)
    np.testing.assert_array_equal(model.precision, weka_precision(emotions.X))
    # numeric columns are never guessed: 0/1 values get the NormalEstimator too
    binary = resolve("weka", np.array([[0.0, 1.0], [1.0, 3.0], [1.0, 2.0]]))
    assert isinstance(binary, DiscretisedGaussian)
    np.testing.assert_allclose(binary.precision, [1.0, 1.0])


@pytest.mark.parametrize("sparse", [False, True])
def test_weka_precision_leaves_missing_values_out(sparse):
    X = np.array([[0.0, 1.0], [0.5, nan], [2.0, 1.5], [nan, 3.0], [0.0, 0.0]])
    model = resolve("weka", sp.csr_matrix(X) if sparse else X)
    expected = [weka_precision(X[[0, 1, 2, 4], :1])[0], weka_precision(X[[0, 2, 3, 4], 1:])[0]]
    np.testing.assert_allclose(model.precision, expected)
    np.testing.assert_allclose(model.precision, [(2.0 - 0.0) / 2, (3.0 - 0.0) / 3])


def test_weka_rule_on_sparse_binary_data(shared_dataset):
    enron = shared_dataset("enron")
    model = resolve("weka", enron.X, enron.column_types, n_categories=enron.n_categories)
    assert isinstance(model, Bernoulli)
    assert sp.issparse(model.prepare(enron.X))


def test_bernoulli_equals_two_category_categorical(shared_dataset):
    """Weka's Laplace estimator of a two-valued attribute, in either form."""
    sf2 = shared_dataset("sf2", "full")
    X = sf2.X[:, [3, 6, 7, 8, 9]]
    classes = (sf2.Y[:, 0] > 0).astype(int) + (sf2.Y[:, 1] > 0)
    bernoulli = _log_likelihood(Bernoulli(alpha=1.0, binarize=None), X, classes)
    categorical = _log_likelihood(Categorical(alpha=1.0, n_categories=2), X, classes)
    np.testing.assert_allclose(bernoulli, categorical, rtol=0, atol=1e-12)
    # and Weka's counts by hand: (count of the value + 1) / (rows of the class + 2)
    for c in range(3):
        rows = X[classes == c]
        p_one = (rows.sum(axis=0) + 1) / (len(rows) + 2)
        by_hand = np.log(np.where(X == 1, p_one, 1 - p_one)).sum(axis=1)
        np.testing.assert_allclose(bernoulli[:, c], by_hand, rtol=1e-12)


# ---- rule "auto" -----------------------------------------------------------------------------
def test_auto_rule_on_nominal_data(shared_dataset):
    sf2 = shared_dataset("sf2", "full")
    declared = resolve("auto", sf2.X, sf2.column_types, n_categories=sf2.n_categories)
    assert isinstance(declared, Categorical)
    np.testing.assert_array_equal(declared.n_categories, sf2.n_categories)
    learnt = resolve("auto", sf2.X, sf2.column_types)
    assert learnt.n_categories is None and learnt.max_categories == 7  # largest code 6
    assert learnt.prepare(sf2.X).shape == (sf2.n_samples, 10 * 6)
    many = np.array([[0.0], [20.0], [3.0]])  # beyond the default max_categories of 16
    assert resolve("auto", many, ["nominal"]).max_categories == 21
    partly = resolve(
        "auto",
        np.array([[0.0, 1.0], [2.0, 0.0]]),
        ["nominal"] * 2,
        n_categories={1: ("a", "b", "c", "d")},
    )
    np.testing.assert_array_equal(partly.min_categories, [0, 4])
    assert partly.max_categories == 4


def _blocks_sum(model, X, classes):
    return sum(_log_likelihood(block, X[:, columns], classes) for block, columns in model.blocks)


@pytest.mark.parametrize("sparse", [False, True])
def test_auto_rule_mixes_blocks(sparse):
    rng = np.random.default_rng(0)
    n = 60
    X = np.column_stack(
        [
            rng.normal(size=n),  # real
            rng.integers(0, 2, n),  # 0/1
            rng.integers(0, 4, n),  # nominal codes
            rng.poisson(3.0, n),  # an integer beside real values: a magnitude
            rng.integers(0, 2, n),  # 0/1
        ]
    ).astype(float)
    classes = rng.integers(0, 3, n)
    types = ["numeric", "numeric", "nominal", "numeric", "numeric"]
    model = resolve("auto", sp.csr_matrix(X) if sparse else X, types, n_categories=[0, 0, 4, 0, 0])
    assert isinstance(model, Mixed)
    kinds = [type(block) for block, _ in model.blocks]
    assert kinds == [Gaussian, Bernoulli, Categorical]
    columns = [columns.tolist() for _, columns in model.blocks]
    assert columns == [[0, 3], [1, 4], [2]]
    assert model.blocks[2][0].n_categories.tolist() == [4]
    whole = _log_likelihood(model, X, classes)
    np.testing.assert_allclose(whole, _blocks_sum(model, X, classes), rtol=1e-12)
    assert np.ptp(whole, axis=1).max() > 0  # the groups differ: not a vacuous equality


def test_auto_rule_count_table_with_a_nominal_column():
    rng = np.random.default_rng(1)
    n = 40
    counts = rng.poisson(1.0, (n, 6)).astype(float)
    X = np.column_stack([rng.integers(0, 3, n), counts])
    classes = rng.integers(0, 2, n)
    model = resolve("auto", X, ["nominal"] + ["numeric"] * 6)
    (categorical, nominal), (multinomial, words) = model.blocks
    assert isinstance(categorical, Categorical) and isinstance(multinomial, Multinomial)
    assert nominal.tolist() == [0] and words.tolist() == [1, 2, 3, 4, 5, 6]
    np.testing.assert_allclose(
        _log_likelihood(model, X, classes), _blocks_sum(model, X, classes), rtol=1e-12
    )
    assert isinstance(resolve("auto", counts), Multinomial)  # one kind: one model


# ---- pandas ----------------------------------------------------------------------------------
def _frame():
    pd = pytest.importorskip("pandas")
    return pd, pd.DataFrame(
        {
            "colour": pd.Categorical(
                ["red", "blue", None, "red", "green"], categories=["red", "green", "blue", "pink"]
            ),
            "town": ["Oslo", "Bergen", "Oslo", None, "Alta"],
            "height": [1.5, np.nan, 2.0, 0.25, 3.0],
            "flag": [True, False, True, True, True],
        }
    )


def test_frame_to_array():
    _, frame = _frame()
    X, types, categories = frame_to_array(frame)
    assert types == ("nominal", "nominal", "numeric", "nominal")
    assert categories == {
        0: ("red", "green", "blue", "pink"),  # declared order, unused categories kept
        1: ("Alta", "Bergen", "Oslo"),  # sorted
        3: (False, True),
    }
    expected = np.array(
        [
            [0, 2, 1.5, 1],
            [2, 1, nan, 0],
            [nan, 2, 2.0, 1],
            [0, nan, 0.25, 1],
            [1, 0, 3.0, 1],
        ]
    )
    np.testing.assert_array_equal(X, expected)
    assert X.dtype == np.float64
    model = resolve("auto", X, types, n_categories=categories)
    assert [columns.tolist() for _, columns in model.blocks] == [[0, 1, 3], [2]]
    assert model.blocks[0][0].n_categories.tolist() == [4, 3, 2]


def test_encode_frame_by_label():
    pd, frame = _frame()
    X, _, categories = frame_to_array(frame)
    np.testing.assert_array_equal(encode_frame(frame, categories), X)
    new = pd.DataFrame(
        {
            # other category order, and a category ("pink") not seen in the rows at fit
            "colour": pd.Categorical(["blue", "pink", "red"], categories=["pink", "blue", "red"]),
            "town": ["Alta", "Oslo", "Tromso"],
            "height": [0.5, 1.0, np.nan],
            "flag": [False, True, None],
        }
    )
    with pytest.raises(ValueError, match=r"column 'town' holds 'Tromso'.*unknown='nan'"):
        encode_frame(new, categories)
    coded = encode_frame(new, categories, unknown="nan")
    expected = np.array([[2, 0, 0.5, 0], [3, 2, 1.0, 1], [0, nan, nan, nan]])
    np.testing.assert_array_equal(coded, expected)
    with pytest.raises(ValueError, match="unknown must be 'error' or 'nan'"):
        encode_frame(new, categories, unknown="zero")
    with pytest.raises(ValueError, match="frame must be a pandas DataFrame"):
        frame_to_array(X)
