"""NaiBX, the Naive Bayes cascade: equivalences, online learning, sizes, twins, bad input."""

import pickle
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from mlnb import (
    BayesianBernoulliNB,
    BayesianGaussianNB,
    BayesianMultinomialNB,
    BernoulliNB,
    BinaryRelevance,
    GaussianNB,
    MultinomialNB,
)
from mlnb.datasets import make_subset_selection
from mlnb.events import Bernoulli
from mlnb.multilabel.naibx import NaiBX

from .test_chain import dependent_labels

STATS = ("feature_stats_", "label_stats_", "size_stats_", "size_feature_stats_")
# The paper's cascade with Gaussian events, not settings chosen from the data (the default):
# for the equivalences, the invariants of fit, partial_fit and merge, and the twins.
PAPER = {"events": "gaussian", "rule": "predict"}


def single_label(seed, n=240, d=5, n_classes=4, kind="gaussian", balanced=False):
    """Classes 0..n_classes-1 with shifted features; X as the event model wants it."""
    rng = np.random.default_rng(seed)
    c = np.arange(n) % n_classes if balanced else rng.integers(0, n_classes, n)
    X = rng.normal(size=(n, d)) + 0.7 * rng.normal(size=(n_classes, d))[c]
    if kind == "multinomial":
        X = rng.poisson(np.exp(0.5 * X)).astype(float)
    elif kind == "bernoulli":
        X = (X > 0.3).astype(float)
    return X, c, np.eye(n_classes, dtype=int)[c]


def varied_sizes(seed, n=200, d=4, n_labels=5):
    """Label sets of sizes 0..n_labels tied to the features, sizes growing along the rows."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    merit = X @ rng.normal(size=(d, n_labels)) + rng.normal(size=(n, n_labels))
    sizes = np.sort(rng.integers(0, n_labels + 1, n))  # the largest sizes come last
    rank = np.argsort(np.argsort(-merit, axis=1), axis=1)
    X[:, 0] += sizes  # the size is predictable from feature 0
    return X, (rank < sizes[:, None]).astype(int)


def assert_same_model(a, b, X, rtol=1e-9):
    for name in STATS:
        left, right = getattr(a, name), getattr(b, name)
        if left is None:
            assert right is None
            continue
        for field in ("count", "sums", "m2", "total_count", "total_sums", "total_m2"):
            x, y = getattr(left, field), getattr(right, field)
            if x is not None:
                np.testing.assert_allclose(x, y, rtol=rtol, atol=1e-9, err_msg=f"{name}.{field}")
    steps_a, steps_b = a.predict_steps(X), b.predict_steps(X)
    np.testing.assert_allclose(steps_a.proba, steps_b.proba, rtol=rtol, atol=1e-12)
    # the same order of labels, but where two labels' scores differ only by rounding (the
    # statistics summed in another order): then the same labels, swapped, with the same
    # step probabilities (seed 308, one cut at row 1, Gaussian: labels 1 and 3 of row 10)
    same = (steps_a.labels == steps_b.labels).all(axis=1)
    assert same.mean() > 0.9
    np.testing.assert_array_equal(
        np.sort(steps_a.labels[~same], axis=1), np.sort(steps_b.labels[~same], axis=1)
    )


# ---- single-label data: the multi-class Naive Bayes of the same event model --------------
NB_OF_EVENTS = [
    ("gaussian", "gaussian", lambda a: GaussianNB(prior_alpha=a)),
    ("multinomial", "multinomial", lambda a: MultinomialNB(prior_alpha=a)),
    ("bernoulli", "bernoulli", lambda a: BernoulliNB(prior_alpha=a)),
    ("bayesian_gaussian", "gaussian", lambda a: BayesianGaussianNB(alpha=a)),
    ("bayesian_multinomial", "multinomial", lambda a: BayesianMultinomialNB(alpha=a)),
    ("bayesian_bernoulli", "bernoulli", lambda a: BayesianBernoulliNB(alpha=a)),
]


@pytest.mark.parametrize("events,kind,make_nb", NB_OF_EVENTS)
def test_single_label_data_predicts_as_multiclass_nb(events, kind, make_nb):
    """With prior_alpha=0, P(M = 1 | y) = 1 and step 1 is exactly the NB posterior."""
    X, c, Y = single_label(0, kind=kind)
    X_test = single_label(1, kind=kind)[0]
    model = NaiBX(events=events, rule="predict", prior_alpha=0).fit(X, Y)
    nb = make_nb(0.0).fit(X, c)
    np.testing.assert_array_equal(model.predict_size(X_test), 1)
    np.testing.assert_array_equal(model.predict(X_test), np.eye(4, dtype=int)[nb.predict(X_test)])
    steps = model.predict_steps(X_test)
    np.testing.assert_allclose(steps.proba[:, 0], nb.predict_proba(X_test).max(axis=1), rtol=1e-9)


@pytest.mark.parametrize("events,kind,make_nb", NB_OF_EVENTS[:3])
def test_single_label_with_laplace_is_nb_times_the_size_term(events, kind, make_nb):
    """prior_alpha=1: NB with a Laplace prior, times P(M = 1 | y) = (N_y + 1) / (N_y + L)."""
    X, c, Y = single_label(2, kind=kind)
    model = NaiBX(events=events, rule="predict").fit(X, Y)
    joint = make_nb(1.0).fit(X, c).predict_joint_log_proba(X)
    count = np.bincount(c, minlength=4)
    joint += np.log(count + 1) - np.log(count + 4)
    expected = np.exp(joint.max(axis=1) - np.logaddexp.reduce(joint, axis=1))
    np.testing.assert_allclose(model.predict_steps(X).proba[:, 0], expected, rtol=1e-9)
    np.testing.assert_array_equal(model.predict(X).argmax(axis=1), joint.argmax(axis=1))
    # Equally frequent classes: the size term is a constant, the NB with Laplace prior exactly.
    X, c, Y = single_label(3, kind=kind, balanced=True)
    expected = make_nb(1.0).fit(X, c).predict(X)
    np.testing.assert_array_equal(
        NaiBX(events=events, rule="predict").fit(X, Y).predict(X).argmax(axis=1), expected
    )


@pytest.mark.parametrize("n_labels", [2, 3, 6])
def test_single_size_model_is_binary_or_multiclass_nb(n_labels):
    """The paper (section 4.1): m = 1 and L = 2 is a binary NB; L > 2 a multi-class one."""
    X, c, Y = single_label(4, n_classes=n_labels)
    model = NaiBX(**PAPER, fixed_size=1, prior_alpha=0).fit(X, Y)
    nb = GaussianNB().fit(X, c)
    np.testing.assert_array_equal(model.predict(X).argmax(axis=1), nb.predict(X))
    if n_labels == 2:  # the binary NB of label 1 alone
        binary = GaussianNB().fit(X, Y[:, 1]).predict(X)
        np.testing.assert_array_equal(model.predict(X)[:, 1], binary)


def test_size_predictor_is_the_nb_over_sizes():
    X, Y = varied_sizes(5)
    sizes = Y.sum(axis=1)
    expected = GaussianNB(prior_alpha=1.0).fit(X, sizes).predict(X)
    model = NaiBX(**PAPER).fit(X, Y)
    np.testing.assert_array_equal(model.predict_size(X), expected)
    np.testing.assert_array_equal(model.predict(X).sum(axis=1), expected)
    proba = model.predict_size_proba(X)
    assert proba.shape == (len(X), Y.shape[1] + 1)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


# ---- the six distributions, by hand ------------------------------------------------------
def test_distributions_and_scores_by_hand():
    # 5 examples, 3 labels; sizes 1, 2, 2, 0, 3.
    Y = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1], [0, 0, 0], [1, 1, 1]])
    X = np.array([[2, 0], [1, 1], [0, 2], [1, 0], [1, 1]], dtype=float)
    model = NaiBX(events="multinomial").fit(X, Y)
    F = Fraction
    L, N = 3, 5
    # P(M = m) = (N_m + 1) / (N + L + 1): sizes 0..3 seen 1, 1, 2, 1 times.
    size_prior = [F(1 + 1, N + 4), F(1 + 1, N + 4), F(2 + 1, N + 4), F(1 + 1, N + 4)]
    # P(Y = y) = (N_y + 1) / (occurrences + L): N_y = 3, 3, 2; 8 occurrences.
    label_prior = [F(4, 11), F(4, 11), F(3, 11)]
    # P(M = m | y) = (N_my + 1) / (N_y + L): rows m = 0..3.
    n_my = np.array([[0, 0, 0], [1, 0, 0], [1, 2, 1], [1, 1, 1]])
    n_y = np.array([3, 3, 2])
    size_given = [[F(int(n_my[m, y]) + 1, int(n_y[y]) + L) for y in range(3)] for m in range(4)]
    # P(Y' = y' | Y = y) = (C[y, y'] + 1) / (sum_{y'' != y} C[y, y''] + L - 1).
    C = np.array([[0, 2, 1], [2, 0, 2], [1, 2, 0]])
    pair = [[F(int(C[y, v]) + 1, int(C[y].sum()) + L - 1) for v in range(3)] for y in range(3)]
    as_log = np.vectorize(lambda f: np.log(float(f)))
    np.testing.assert_allclose(model.log_size_prior_, as_log(size_prior))
    np.testing.assert_allclose(model.log_label_prior_, as_log(label_prior))
    np.testing.assert_allclose(model.log_size_given_label_, as_log(size_given))
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose(model.log_pair_[off], as_log(pair)[off])
    assert np.all(np.isneginf(np.diag(model.log_pair_)))
    for y in range(3):  # each conditional distribution sums to 1 over its K values
        assert sum(pair[y][v] for v in range(3) if v != y) == 1
    # The cascade for x = (3, 1) with m = 2: word probabilities (n_yv + 1) / (n_y + 2).
    x = np.array([[3.0, 1.0]])
    words = np.array([[4, 2], [2, 4], [1, 3]], dtype=float)  # Y.T @ X
    phi = (words + 1) / (words + 1).sum(axis=1, keepdims=True)
    step1 = as_log(label_prior) + x @ np.log(phi).T + as_log(size_given)[2]
    step1 = step1.ravel()
    first = int(np.argmax(step1))
    step2 = step1 + as_log(pair)[:, first]
    step2[first] = -np.inf
    second = int(np.argmax(step2))
    steps = model.predict_steps(x, sizes=2)
    np.testing.assert_array_equal(steps.labels, [[first, second]])
    expected = [np.exp(step1[first]) / np.exp(step1).sum()]
    expected.append(np.exp(step2[second]) / np.exp(step2[np.isfinite(step2)]).sum())
    np.testing.assert_allclose(steps.proba, [expected], rtol=1e-12)


# ---- online learning and merging ---------------------------------------------------------
@pytest.mark.parametrize("events", ["gaussian", "bernoulli", "bayesian_gaussian"])
def test_partial_fit_one_example_at_a_time_equals_fit(events):
    X, Y = varied_sizes(6)
    if events == "bernoulli":
        X = (X > 0).astype(float)
    whole = NaiBX(events=events).fit(X, Y)
    online = NaiBX(events=events)
    for i in range(len(X)):
        online.partial_fit(X[i : i + 1], Y[i : i + 1])
    assert_same_model(online, whole, X)
    weighted = NaiBX(events=events)
    for i in range(len(X)):  # sample weights of one row: the same as the row repeated
        weighted.partial_fit(X[i : i + 1], Y[i : i + 1], sample_weight=[2.0])
    doubled = NaiBX(events=events).fit(np.repeat(X, 2, axis=0), np.repeat(Y, 2, axis=0))
    assert_same_model(weighted, doubled, X)


def test_sparse_input_and_label_dtypes_give_the_same_model():
    X, Y = dependent_labels(7, counts=True)
    dense = NaiBX(events="multinomial").fit(X, Y)
    for X_variant, Y_variant in [
        (sp.csr_matrix(X), Y),
        (X, sp.csr_matrix(Y)),
        (X, Y.astype(bool)),
        (X, Y.astype(np.uint8)),
    ]:
        assert_same_model(NaiBX(events="multinomial").fit(X_variant, Y_variant), dense, X)
    online = NaiBX(events="multinomial").fit(X[:250], Y[:250])
    for i in range(250, len(X)):  # one sparse row at a time: the general path
        online.partial_fit(sp.csr_matrix(X[i : i + 1]), Y[i : i + 1])
    assert_same_model(online, dense, X)


@pytest.mark.parametrize("fixed_size", [None, 2])
def test_merge_of_partitions_equals_fit(fixed_size):
    X, Y = varied_sizes(8)
    if fixed_size:
        X, Y = make_subset_selection(300, n_items=6, subset_size=2, n_twins=1, random_state=0)
    whole = NaiBX(**PAPER, fixed_size=fixed_size).fit(X, Y)
    parts = np.array_split(np.random.default_rng(0).permutation(len(X)), 4)
    models = [NaiBX(**PAPER, fixed_size=fixed_size).fit(X[rows], Y[rows]) for rows in parts]
    merged = models[3].merge(models[2]).merge(models[1].merge(models[0]))
    assert_same_model(merged, whole, X)
    with pytest.raises(ValueError, match="hyper-parameters"):
        merged.merge(NaiBX(**PAPER, prior_alpha=0.5).fit(X, Y))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**16),
    cuts=st.lists(st.integers(1, 59), max_size=6, unique=True),
    events=st.sampled_from(["gaussian", "multinomial", "bayesian_bernoulli"]),
)
@example(seed=308, cuts=[1], events="gaussian")  # two labels tied to rounding (see above)
def test_any_chunking_or_partition_gives_the_fitted_model(seed, cuts, events):
    rng = np.random.default_rng(seed)
    n, n_labels = 60, 4
    Y = (rng.random((n, n_labels)) < rng.random()).astype(int)
    X = rng.poisson(2.0, size=(n, 3)).astype(float) + Y @ rng.integers(0, 3, (n_labels, 3))
    whole = NaiBX(events=events, rule="predict").fit(X, Y)
    chunks = np.split(np.arange(n), sorted(cuts))
    online, parts = NaiBX(events=events, rule="predict"), []
    for rows in chunks:
        online.partial_fit(X[rows], Y[rows])
        parts.append(NaiBX(events=events, rule="predict").fit(X[rows], Y[rows]))
    merged = parts[0]
    for part in parts[1:]:
        merged.merge(part)
    assert_same_model(online, whole, X)
    assert_same_model(merged, whole, X)
    # Invariants of the prediction: sizes respected, probabilities in (0, 1].
    sizes = rng.integers(0, n_labels + 1, n)
    steps = whole.predict_steps(X, sizes=sizes)
    np.testing.assert_array_equal(whole.predict(X, sizes=sizes).sum(axis=1), sizes)
    valid = steps.labels >= 0
    np.testing.assert_array_equal(valid.sum(axis=1), sizes)
    assert np.all((steps.proba[valid] > 0) & (steps.proba[valid] <= 1 + 1e-12))
    assert np.all(np.isnan(steps.proba[~valid]))
    np.testing.assert_array_equal(whole.predict(X).sum(axis=1), whole.predict_size(X))


def test_rows_of_different_sizes_are_predicted_as_alone_and_survive_pickling():
    X, Y = varied_sizes(12)
    model = NaiBX().fit(X, Y)
    sizes = model.predict_size(X)
    assert len(np.unique(sizes)) > 3
    together = model.predict_steps(X)
    alone = [model.predict_steps(X[i : i + 1]) for i in range(len(X))]
    for i, steps in enumerate(alone):
        k = sizes[i]
        np.testing.assert_array_equal(steps.labels[0], together.labels[i, :k])
        np.testing.assert_allclose(steps.proba[0], together.proba[i, :k], rtol=1e-12)
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict(X), model.predict(X))


# ---- the twin items of the power-plant problem -------------------------------------------
@pytest.mark.parametrize("subset_size", [3, (2, 5)])
def test_twins_are_never_chosen_together(subset_size):
    X, Y, twins = make_subset_selection(
        1500, n_items=10, subset_size=subset_size, n_twins=2, return_twins=True, random_state=1
    )
    train, test = slice(0, 1000), slice(1000, None)
    assert not np.any(Y[:, twins[:, 0]] & Y[:, twins[:, 1]])

    def both_twins(predicted):
        return int((predicted[:, twins[:, 0]] & predicted[:, twins[:, 1]]).sum())

    fixed = subset_size if isinstance(subset_size, int) else None
    cascade = NaiBX(**PAPER, fixed_size=fixed).fit(X[train], Y[train])
    predicted = cascade.predict(X[test])
    assert both_twins(predicted) == 0
    assert both_twins(cascade.predict(X[test], sizes=Y[test].sum(axis=1))) == 0
    binary_relevance = BinaryRelevance(**PAPER).fit(X[train], Y[train]).predict(X[test])
    assert both_twins(binary_relevance) > 10
    subset_accuracy = (predicted == Y[test]).all(axis=1).mean()
    assert subset_accuracy > (binary_relevance == Y[test]).all(axis=1).mean()


def test_fixed_size_mode():
    X, Y = make_subset_selection(400, n_items=8, subset_size=3, n_twins=1, random_state=2)
    model = NaiBX(fixed_size=3).fit(X, Y)
    assert model.size_feature_stats_ is None
    np.testing.assert_array_equal(model.predict(X).sum(axis=1), 3)
    np.testing.assert_array_equal(model.predict_size(X), 3)
    np.testing.assert_array_equal(model.predict_size_proba(X)[:, 3], 1.0)
    np.testing.assert_array_equal(model.predict(X, sizes=1).sum(axis=1), 1)  # sizes override
    with pytest.raises(ValueError, match="fixed_size=9 exceeds"):
        NaiBX(fixed_size=9).fit(X, Y)
    with pytest.raises(ValueError, match="'fixed_size' parameter"):
        NaiBX(fixed_size=1.5).fit(X, Y)


# ---- sizes and labels out of the ordinary ------------------------------------------------
def test_empty_label_sets_are_learnt_and_predicted():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(200, 2))
    Y = np.zeros((200, 3), dtype=int)
    Y[X[:, 0] > 0.5, 0] = 1  # x_0 <= 0.5: the empty set
    Y[X[:, 0] > 1.0, 1] = 1
    model = NaiBX().fit(X, Y)
    assert model.size_stats_.count[0] == np.sum(Y.sum(axis=1) == 0)
    low = np.array([[-2.0, 0.0], [-1.0, 0.5]])
    np.testing.assert_array_equal(model.predict_size(low), 0)
    np.testing.assert_array_equal(model.predict(low), 0)
    steps = model.predict_steps(low)
    assert steps.labels.shape == (2, 0) and steps.proba.shape == (2, 0)
    high = X[X[:, 0] > 1.5]
    np.testing.assert_array_equal(model.predict(high), Y[X[:, 0] > 1.5])
    # Only empty sets seen: every prediction is empty; asked sizes still work.
    empty = NaiBX().fit(X, np.zeros_like(Y))
    np.testing.assert_array_equal(empty.predict(X), 0)
    np.testing.assert_array_equal(empty.predict(X, sizes=3), 1)


def test_labels_never_seen_come_last_in_index_order():
    X, Y = dependent_labels(10, n_labels=6)
    Y[:, [1, 4]] = 0
    model = NaiBX().fit(X, Y)
    assert not np.any(model.predict(X)[:, [1, 4]])
    steps = model.predict_steps(X[:5], sizes=6)
    np.testing.assert_array_equal(steps.labels[:, 4:], [[1, 4]] * 5)
    np.testing.assert_allclose(steps.proba[:, 4:], [[0.5, 1.0]] * 5)
    np.testing.assert_array_equal(model.predict(X, sizes=6), 1)


def test_sizes_larger_than_any_seen():
    X, Y = make_subset_selection(300, n_items=8, subset_size=2, n_twins=1, random_state=3)
    model = NaiBX(**PAPER).fit(X, Y)
    assert model.size_stats_.n_groups == 3  # sizes 0..2 stored
    assert np.all(model.predict_size(X) == 2)  # f0 only chooses sizes seen
    proba = model.predict_size_proba(X)
    np.testing.assert_array_equal(proba[:, [0, 1, 3, 4]], 0)
    big = model.predict(X, sizes=5)  # TrueM beyond the sizes seen
    np.testing.assert_array_equal(big.sum(axis=1), 5)
    n_y = model.label_stats_.count
    np.testing.assert_allclose(model.log_size_given_label_[5], np.log(1 / (n_y + 8)))
    np.testing.assert_allclose(np.exp(model.log_size_prior_).sum(), 1.0)
    np.testing.assert_allclose(np.exp(model.log_size_given_label_[1:]).sum(axis=0), 1.0)
    # A later batch with larger sets extends the size classes.
    X2, Y2 = make_subset_selection(50, n_items=8, subset_size=4, n_twins=1, random_state=4)
    model.partial_fit(X2, Y2)
    assert model.size_stats_.n_groups == 5
    assert_same_model(model, NaiBX(**PAPER).fit(np.vstack([X, X2]), np.vstack([Y, Y2])), X)
    for sizes, message in [(9, "0..8"), (-1, "0..8"), (1.5, "integer"), ([1, 2], "integer")]:
        with pytest.raises(ValueError, match=message):
            model.predict(X, sizes=sizes)


def test_maximum_likelihood_forbids_pairs_never_seen():
    X, Y, twins = make_subset_selection(
        600, n_items=6, subset_size=3, n_twins=2, return_twins=True, random_state=5
    )
    model = NaiBX(prior_alpha=0).fit(X, Y)
    assert np.all(np.isneginf(model.log_pair_[twins[:, 0], twins[:, 1]]))
    predicted = model.predict(X, sizes=4)  # 4 of 6 with 2 twin pairs: impossible without both
    np.testing.assert_array_equal(predicted.sum(axis=1), 4)
    steps = model.predict_steps(X, sizes=4)
    assert np.all(np.isfinite(steps.proba)) and np.all(steps.proba > 0)


# ---- storage, parameters -----------------------------------------------------------------
def test_storage_does_not_grow_with_the_data():
    def n_numbers(model):
        stats = [getattr(model, name) for name in STATS]
        arrays = [getattr(s, f) for s in stats for f in ("count", "sums", "m2", "total_sums")]
        return sum(np.size(a) for a in arrays if a is not None)

    small = make_subset_selection(100, n_items=12, subset_size=4, random_state=6)
    large = make_subset_selection(20000, n_items=12, subset_size=4, random_state=6)
    assert n_numbers(NaiBX().fit(*small)) == n_numbers(NaiBX().fit(*large))


def test_parameters_are_stored_unchanged_and_clone():
    model = NaiBX(events="multinomial", fixed_size=3, prior_alpha=0.5)
    expected = {
        "events": "multinomial",
        "rule": "tuned",
        "fixed_size": 3,
        "prior_alpha": 0.5,
        "missing": "error",
    }
    assert model.get_params() == expected
    assert clone(model).get_params() == model.get_params()
    with pytest.raises(TypeError):
        NaiBX("gaussian")


# ---- bad input ---------------------------------------------------------------------------
def bad_inputs(X, Y):
    nan = X.copy()
    nan[0, 0] = np.nan
    two = Y.copy()
    two[0, 0] = 2
    return [
        (nan, Y, None, "NaN"),
        (X[:, :2], Y, None, "features"),
        (X, Y[:, :3], None, "Y has 3 labels"),
        (X, Y[:-1], None, "rows"),
        (X, two, None, "only 0 and 1"),
        (X, Y * 0.5, None, "only 0 and 1"),
        (X, Y[:, 0], None, "2-D"),
        (-X, Y, None, "Negative values"),
        (X, Y, -np.ones(len(X)), "sample_weight"),
    ]


@pytest.mark.parametrize("rows", [slice(None), slice(0, 1)])
def test_bad_input_raises_and_leaves_the_model_unchanged(rows):
    X, Y = dependent_labels(11, counts=True)
    model = NaiBX(events="multinomial").fit(X, Y)
    reference = NaiBX(events="multinomial").fit(X, Y)
    for bad_X, bad_Y, weight, message in bad_inputs(X[rows], Y[rows]):
        refit_is_legal = message in ("features", "Y has 3 labels")  # fit starts afresh
        for method in (model.partial_fit,) if refit_is_legal else (model.partial_fit, model.fit):
            with pytest.raises(ValueError, match=message):
                method(bad_X, bad_Y, sample_weight=weight)
            assert_same_model(model, reference, X)
    with pytest.raises(ValueError, match="prior_alpha"):
        NaiBX(prior_alpha=-1.0).fit(X, Y)
    fresh = NaiBX(events="multinomial")
    with pytest.raises(ValueError, match="Negative values"):
        fresh.partial_fit(-X, Y)
    assert not hasattr(fresh, "feature_stats_")
    with pytest.raises(ValueError, match="only 0 and 1"):
        NaiBX(events=Bernoulli(binarize=None)).fit(X, Y)


# ---- predict_proba --------------------------------------------------------------------------
def test_predict_proba_on_single_label_data_is_the_multiclass_posterior():
    from mlnb import GaussianNB

    rng = np.random.default_rng(0)
    classes = rng.integers(0, 3, 200)
    X = rng.normal(size=(200, 4)) + classes[:, None]
    model = NaiBX(**PAPER, prior_alpha=0.0).fit(X, np.eye(3, dtype=int)[classes])
    expected = GaussianNB().fit(X, classes).predict_proba(X)
    np.testing.assert_allclose(model.predict_proba(X), expected, atol=1e-12)


def test_predict_proba_weighs_the_first_step_by_the_size():
    rng = np.random.default_rng(1)
    Y = (rng.random((150, 4)) < 0.4).astype(int)
    X = rng.normal(size=(150, 3)) + Y @ rng.normal(size=(4, 3))
    model = NaiBX().fit(X, Y)
    proba = model.predict_proba(X)
    assert proba.shape == Y.shape and proba.min() >= 0 and proba.max() <= 1
    expected_size = model.predict_size_proba(X) @ np.arange(5)
    assert np.all(proba.sum(axis=1) <= expected_size + 1e-12)
    one = NaiBX(fixed_size=1).fit(X, Y).predict_proba(X)  # m pi never exceeds 1
    np.testing.assert_allclose(one.sum(axis=1), 1.0)
    # the label ranked first is the cascade's first choice
    steps = NaiBX(fixed_size=1).fit(X, Y).predict_steps(X)
    np.testing.assert_array_equal(np.argmax(one, axis=1), steps.labels[:, 0])


def test_scikit_learn_scorers_take_naibx():
    from sklearn.metrics import average_precision_score, get_scorer

    rng = np.random.default_rng(2)
    Y = (rng.random((120, 3)) < 0.4).astype(int)
    X = rng.normal(size=(120, 3)) + Y @ rng.normal(size=(3, 3)) * 2
    model = NaiBX().fit(X, Y)
    score = get_scorer("average_precision")(model, X, Y)
    assert score == pytest.approx(average_precision_score(Y, model.decision_function(X)))
    assert score > Y.mean() + 0.2  # better than ranking at random


@pytest.mark.parametrize("fixed_size", [None, 2])
def test_decision_function_is_the_size_weighted_log_sum_over_sizes(fixed_size):
    X, Y = varied_sizes(4)
    Y[:, 4] = 0  # a label never seen
    model = NaiBX(fixed_size=fixed_size).fit(X, Y)
    prepared = model._prepared(X)
    expected = model._size_by_size_scores(prepared)  # log sum_m P(m|x) m pi_m, size by size
    scores = model.decision_function(X)
    seen = np.isfinite(expected)
    assert not seen[:, 4].any() and seen[:, :4].all()
    np.testing.assert_allclose(scores[seen], expected[seen], rtol=1e-10, atol=1e-10)
    # the never-seen label scores 1 below the row's lowest other score
    np.testing.assert_allclose(scores[:, 4], scores[:, :4].min(axis=1) - 1.0)
    # rows far from everything (log-likelihoods near -1e4, sizes > 0 of weight 0 for some)
    far = model.decision_function(X * 300.0)
    reference = model._size_by_size_scores(model._prepared(X * 300.0))[:, :4]
    finite = np.isfinite(reference)
    assert finite.any() and (fixed_size is not None or not finite.all())
    np.testing.assert_allclose(far[:, :4][finite], reference[finite], rtol=1e-9)
    assert np.isfinite(far).all()
