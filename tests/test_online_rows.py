"""The fast path of the single-label classifiers' ``partial_fit`` on a few rows
(``mlnb._online_rows``): the model of rows learnt one at a time equals the batch fit, a bad
row raises the full path's error and changes nothing, and the parameters re-estimated
lazily are seen by every reader (prediction, fitted attributes, merge, pickle, files)."""

from __future__ import annotations

import contextlib
import copy
import pickle
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mlnb import (
    BayesianBernoulliNB,
    BayesianGaussianNB,
    BayesianMultinomialNB,
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MixedNB,
    MultinomialNB,
)
from mlnb import _online_rows as online
from mlnb.io import load, save
from mlnb.stats import GroupStats, one_hot

# (classifier, kind of values it takes)
CLASSIFIERS = [
    (GaussianNB, "real"),
    (BayesianGaussianNB, "real"),
    (MixedNB, "real"),
    (MultinomialNB, "count"),
    (ComplementNB, "count"),
    (BernoulliNB, "count"),
    (BayesianMultinomialNB, "count"),
    (BayesianBernoulliNB, "count"),
    (CategoricalNB, "code"),
]
STAT_FIELDS = ("count", "sums", "m2", "total_sums", "total_m2", "observed", "total_observed")


@contextlib.contextmanager
def fast_path_calls():
    """The results of the fast-path attempts made within (True: the rows took it)."""
    calls = []
    original = online.add_rows

    def spy(*args):
        calls.append(original(*args))
        return calls[-1]

    with mock.patch.object(online, "add_rows", spy):
        yield calls


def values(rng, kind, shape):
    if kind == "real":  # multiples of 1/8: sums exact, so predictions compare exactly
        return rng.integers(-512, 512, size=shape) / 8.0
    if kind == "count":
        return rng.poisson(1.5, size=shape).astype(float)
    return rng.integers(0, 4, size=shape).astype(float)


def assert_stats_close(online_stats, batch_stats, scale):
    """Every statistic to 1e-12 relative (and 1e-12 of the data's scale absolute)."""
    for field in STAT_FIELDS:
        a, b = getattr(online_stats, field), getattr(batch_stats, field)
        if field in ("m2", "total_m2") and not batch_stats.second_moments:
            continue
        assert (a is None) == (b is None), field
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * scale, err_msg=field)
    assert online_stats.total_count == pytest.approx(batch_stats.total_count, rel=1e-12)


def assert_same_predictions(model, reference, X):
    """Equal classes wherever the reference's best class leads by more than rounding."""
    joint = reference.predict_joint_log_proba(X)
    np.testing.assert_allclose(model.predict_joint_log_proba(X), joint, rtol=1e-9, atol=1e-9)
    top = np.sort(joint, axis=1)
    clear = top[:, -1] - top[:, -2] > 1e-6 * (1 + np.abs(top[:, -1]))
    np.testing.assert_array_equal(model.predict(X)[clear], reference.predict(X)[clear])


@settings(max_examples=60, deadline=None)
@given(
    which=st.integers(0, len(CLASSIFIERS) - 1),
    seed=st.integers(0, 2**32 - 1),
    n_rows=st.integers(4, 40),
    n_features=st.integers(1, 6),
    n_classes=st.integers(2, 4),
    weighted=st.booleans(),
    sparse=st.booleans(),
    batch=st.sampled_from([1, 1, 2, 7]),
)
def test_rows_one_at_a_time_equal_the_batch_fit(
    which, seed, n_rows, n_features, n_classes, weighted, sparse, batch
):
    cls, kind = CLASSIFIERS[which]
    rng = np.random.default_rng(seed)
    X = values(rng, kind, (n_rows, n_features))
    y = rng.integers(0, n_classes, n_rows)
    y[rng.permutation(n_rows)[:n_classes]] = np.arange(n_classes)  # every class has rows
    weight = rng.choice([0.0, 0.5, 1.0, 3.0], n_rows) if weighted else None
    if weighted:
        weight[0] = 1.0  # the first call's rows are not all of weight 0
    rows = sp.csr_matrix(X) if sparse else X
    model = cls().partial_fit(
        rows[:1], y[:1], classes=np.arange(n_classes), sample_weight=_part(weight, 0, 1)
    )
    with fast_path_calls() as calls:
        for start in range(1, n_rows, batch):
            part = _part(weight, start, start + batch)
            if part is not None and not part.any():
                part[0] = 1.0  # scikit-learn refuses a batch whose weights are all 0
                weight[start] = 1.0
            model.partial_fit(
                rows[start : start + batch], y[start : start + batch], sample_weight=part
            )
    assert all(calls), "every call after the first takes the fast path"
    reference = cls().fit(X, y, sample_weight=weight)
    scale = 1.0 + np.abs(X).max() ** 2 * n_rows * 3
    assert_stats_close(model.stats_, reference.stats_, scale)
    assert_same_predictions(model, reference, X)


def _part(weight, start, stop):
    return None if weight is None else weight[start:stop].copy()


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    loc=st.floats(-1e6, 1e6),
    spread=st.floats(1e-3, 1e3),
    n_rows=st.integers(2, 50),
)
def test_gaussian_moments_of_one_row_updates_are_exact(seed, loc, spread, n_rows):
    """Welford's update against the batch's two-pass moments, any location and spread."""
    rng = np.random.default_rng(seed)
    X = loc + spread * rng.normal(size=(n_rows, 3))
    y = np.arange(n_rows) % 2
    model = GaussianNB().partial_fit(X[:2], y[:2], classes=[0, 1])
    for i in range(2, n_rows):
        model.partial_fit(X[i : i + 1], y[i : i + 1])
    reference = GaussianNB().fit(X, y)
    # 1e-12 of the squares' scale: both algorithms round within it (cancellation included)
    assert_stats_close(model.stats_, reference.stats_, (abs(loc) + 10 * spread) ** 2 * n_rows)


def test_missing_entries_are_ignored_as_in_the_batch_fit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    X[rng.random(X.shape) < 0.2] = np.nan
    y = np.arange(30) % 3
    model = GaussianNB(missing="ignore").partial_fit(X[:1], y[:1], classes=[0, 1, 2])
    with fast_path_calls() as calls:
        for i in range(1, 30):
            model.partial_fit(X[i : i + 1], y[i : i + 1])
    assert all(calls)
    reference = GaussianNB(missing="ignore").fit(X, y)
    assert_stats_close(model.stats_, reference.stats_, 100.0)
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X), atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sizes=st.lists(st.integers(1, 9), min_size=1, max_size=6),
    second_moments=st.booleans(),
    sparse=st.booleans(),
    missing=st.booleans(),
)
def test_group_stats_add_rows_equals_one_pass(seed, sizes, second_moments, sparse, missing):
    rng = np.random.default_rng(seed)
    n_rows, n_groups = sum(sizes), 3
    X = rng.integers(-8, 9, size=(n_rows, 4)) / 4.0
    X[rng.random(X.shape) < 0.3] = 0.0
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    index = rng.integers(0, n_groups, n_rows)
    weights = rng.choice([0.0, 0.5, 2.0], n_rows)
    rows = sp.csr_matrix(X) if sparse else X
    stats = GroupStats(n_groups, 4, second_moments=second_moments)
    start = 0
    for size in sizes:
        part = slice(start, start + size)
        stats.add_rows(index[part], rows[part], weights[part])
        np.testing.assert_allclose(stats.group_sums(), stats.sums.sum(axis=1))  # no stale cache
        start += size
    whole = GroupStats.from_data(
        rows, one_hot(index, n_groups), weights, second_moments=second_moments
    )
    assert_stats_close(stats, whole, 1e3)


def _fitted(cls=GaussianNB, **params):
    rng = np.random.default_rng(1)
    X = rng.poisson(2.0, size=(20, 3)).astype(float)
    if params.get("binarize", 0.0) is None:
        X = (X > 1).astype(float)
    return cls(**params).fit(X, np.arange(20) % 3), X


BAD_ROWS = [
    (GaussianNB, {}, np.ones((1, 4)), [0], None),  # width
    (GaussianNB, {}, np.ones(3), [0], None),  # 1-D
    (GaussianNB, {}, np.array([[1.0, np.nan, 2.0]]), [0], None),  # NaN refused
    (GaussianNB, {"missing": "ignore"}, np.array([[1.0, np.inf, 2.0]]), [0], None),
    (GaussianNB, {}, np.array([[1e200, 0.0, 1.0]]), [0], None),  # the event model's range
    (GaussianNB, {}, np.array([[1e-200, 2.0, 1.0]]), [0], None),
    (GaussianNB, {}, np.array([[-1e151, 2.0, 1.0]]), [0], None),
    (GaussianNB, {}, np.ones((1, 3)), [7], None),  # an unknown class
    (GaussianNB, {}, np.ones((1, 3)), [np.nan], None),  # a missing class
    (GaussianNB, {}, np.ones((1, 3)), ["a"], None),  # a class of another kind
    (GaussianNB, {}, np.ones((1, 3)), [0, 1], None),  # lengths
    (GaussianNB, {}, np.ones((1, 3)), [0], [-1.0]),  # a negative weight
    (GaussianNB, {}, np.ones((1, 3)), [0], [0.0]),  # all weights 0
    (GaussianNB, {}, np.ones((1, 3)), [0], [np.nan]),
    (GaussianNB, {}, np.array([["a", "b", "c"]]), [0], None),  # not numbers
    (MultinomialNB, {}, np.array([[1.0, -1.0, 0.0]]), [0], None),  # a negative count
    (BernoulliNB, {"binarize": None}, np.array([[1.0, 2.0, 0.0]]), [0], None),
    (CategoricalNB, {"max_categories": 8}, np.array([[1.0, 9.0, 0.0]]), [0], None),
]


@pytest.mark.parametrize(("cls", "params", "X", "y", "weight"), BAD_ROWS)
def test_a_bad_row_raises_the_full_paths_error_and_changes_nothing(cls, params, X, y, weight):
    model, _ = _fitted(cls, **params)
    reference, _ = _fitted(cls, **params)
    online.disown(reference)  # the full path only
    assert online._OWNED.get(model) is not None  # the model's rows may take the fast path
    before = {name: copy.deepcopy(value) for name, value in vars(model).items()}
    with pytest.raises((ValueError, TypeError)) as fast:
        model.partial_fit(X, y, sample_weight=weight)
    with pytest.raises((ValueError, TypeError)) as full:
        reference.partial_fit(X, y, sample_weight=weight)
    assert type(fast.value) is type(full.value)
    assert str(fast.value) == str(full.value)
    assert vars(model).keys() == before.keys()
    for field in STAT_FIELDS:
        a, b = getattr(model.stats_, field), getattr(before["stats_"], field)
        assert (a is None and b is None) or np.array_equal(a, b)
    assert model.stats_.total_count == before["stats_"].total_count


def test_the_fast_path_runs_for_good_rows_of_every_form():
    model, X = _fitted(MultinomialNB)
    forms = [
        (X[:1], [0]),
        (X[:1].astype(int), np.array([0])),
        (X[:1].astype(np.float32), (0,)),
        (sp.csr_matrix(X[:2]), np.array([0, 2])),
        (X[:5], np.arange(5) % 3),
    ]
    with fast_path_calls() as calls:
        for rows, y in forms:
            model.partial_fit(rows, y, classes=[0, 1, 2])
    assert calls == [True] * len(forms)
    reference = MultinomialNB().fit(
        np.vstack([X, X[:1], X[:1], X[:1], X[:2], X[:5]]),
        np.concatenate([np.arange(20) % 3, [0, 0, 0, 0, 2], np.arange(5) % 3]),
    )
    np.testing.assert_allclose(model.feature_count_, reference.feature_count_)
    np.testing.assert_allclose(model.feature_log_prob_, reference.feature_log_prob_)


def test_parameters_are_re_estimated_when_read():
    model, X = _fitted()
    model.partial_fit(X[:1], [1])
    assert "params_" not in vars(model)  # dropped: estimated at the next use
    reference = GaussianNB().fit(np.vstack([X, X[:1]]), np.append(np.arange(20) % 3, 1))
    for name in ("theta_", "var_", "epsilon_", "class_count_", "class_prior_"):
        np.testing.assert_allclose(getattr(model, name), getattr(reference, name), rtol=1e-12)
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))
    with pytest.raises(AttributeError, match="params_"):
        GaussianNB().params_


def test_pickles_copies_and_merges_see_the_rows():
    model, X = _fitted()
    model.partial_fit(X[:1], [1])
    restored = pickle.loads(pickle.dumps(model))
    assert "params_" in vars(restored)
    np.testing.assert_allclose(restored.predict_proba(X), model.predict_proba(X))
    shallow = copy.copy(model)
    model.partial_fit(X[1:2], [2])  # modifies no statistics the copy shares
    assert shallow.stats_.total_count == 21 and model.stats_.total_count == 22
    other, _ = _fitted()
    other.partial_fit(X[2:3], [0])
    merged = copy.deepcopy(model).merge(other)
    assert merged.stats_.total_count == 43
    np.testing.assert_allclose(merged.class_count_, model.class_count_ + other.class_count_)


def test_a_saved_model_holds_the_rows(tmp_path):
    model, X = _fitted()
    model.partial_fit(X[:1], [1])
    save(model, tmp_path / "model.mlnb")
    loaded = load(tmp_path / "model.mlnb")
    assert loaded.stats_.total_count == 21
    assert {"params_", "class_count_", "class_log_prior_"} <= set(vars(loaded))  # the file's
    np.testing.assert_allclose(loaded.predict_proba(X), model.predict_proba(X), rtol=1e-12)


def test_statistics_given_to_from_statistics_are_not_modified():
    model, X = _fitted()
    stats = model.stats_.copy()
    installed = GaussianNB().from_statistics(stats, classes=model.classes_)
    installed.partial_fit(X[:1], [0])
    installed.partial_fit(X[1:2], [1])
    assert stats.total_count == 20 and installed.stats_.total_count == 22


def test_set_params_between_calls_takes_effect():
    model, X = _fitted(MultinomialNB)
    model.partial_fit(X[:1], [0])
    model.set_params(alpha=0.5)
    model.partial_fit(X[1:2], [1])
    reference = MultinomialNB(alpha=0.5).fit(
        np.vstack([X, X[:2]]), np.append(np.arange(20) % 3, [0, 1])
    )
    np.testing.assert_allclose(model.feature_log_prob_, reference.feature_log_prob_)
    model.set_params(alpha=-1.0)
    with pytest.raises(ValueError, match="alpha"):
        model.partial_fit(X[:1], [0])


def test_yeast_first_label_one_row_at_a_time_equals_the_batch_fit(shared_dataset):
    train, test = shared_dataset("yeast", "train"), shared_dataset("yeast", "test")
    X, y = np.asarray(train.X, dtype=float), np.asarray(train.Y)[:, 0]
    model = GaussianNB().partial_fit(X[:1], y[:1], classes=[0, 1])
    with fast_path_calls() as calls:
        for i in range(1, len(X)):
            model.partial_fit(X[i : i + 1], y[i : i + 1])
    assert all(calls)
    reference = GaussianNB().fit(X, y)
    assert_stats_close(model.stats_, reference.stats_, np.abs(X).max() ** 2 * len(X))
    X_test = np.asarray(test.X, dtype=float)
    np.testing.assert_array_equal(model.predict(X_test), reference.predict(X_test))


def test_medical_sparse_rows_one_at_a_time_equal_the_batch_fit(shared_dataset):
    train = shared_dataset("medical", "train")
    X, y = sp.csr_matrix(train.X), np.asarray(train.Y)[:, 0]
    for cls in (MultinomialNB, BernoulliNB):
        model = cls().partial_fit(X[:1], y[:1], classes=[0, 1])
        with fast_path_calls() as calls:
            for i in range(1, X.shape[0]):
                model.partial_fit(X[i : i + 1], y[i : i + 1])
        assert all(calls)
        reference = cls().fit(X, y)
        assert_stats_close(model.stats_, reference.stats_, 1.0)
        np.testing.assert_array_equal(model.predict(X), reference.predict(X))
