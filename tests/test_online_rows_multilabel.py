"""The fast path of the multi-label Naive Bayes' ``partial_fit`` on a few rows
(``mlnb.multilabel._online_rows``): the model of rows learnt one at a time equals the batch
fit, a bad row raises the full path's error and changes nothing, and the parameters derived
again lazily are seen by every reader (predictions between rows, pickles, copies, files)."""

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

from mlnb import IMLNB, BinaryRelevance, ClassifierChain
from mlnb import _online_rows as shared
from mlnb.io import load, save
from mlnb.multilabel import _online_rows as online
from mlnb.multilabel.naibx import NaiBX

FIELDS = ("count", "sums", "m2", "total_sums", "total_m2")
# (a maker of the estimator, the kind of values it takes)
ESTIMATORS = [
    (lambda: BinaryRelevance(events="gaussian", rule="predict"), "real"),
    (lambda: BinaryRelevance(events="multinomial", rule="predict"), "count"),
    (lambda: BinaryRelevance(events="bernoulli", rule="predict"), "count"),
    (lambda: ClassifierChain(events="gaussian", rule="predict"), "real"),
    (lambda: ClassifierChain(events="multinomial", rule="predict"), "count"),
    (lambda: NaiBX(events="gaussian", rule="predict"), "real"),
    (lambda: NaiBX(events="multinomial", rule="predict"), "count"),
    (lambda: NaiBX(events="multinomial", rule="predict", fixed_size=2), "count"),
]


def statistics_of(model):
    """The model's statistics by attribute name (those it keeps)."""
    names = [name for name, _, _ in type(model)._ONLINE_STATISTICS]
    return {name: getattr(model, name) for name in names if getattr(model, name) is not None}


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
    return rng.poisson(1.0, size=shape).astype(float)


def labels(rng, n_rows, n_labels):
    """Random label sets whose rows 0 and 2 hold every label and rows 1 and 3 none: every
    label is held by two rows at least and missed by two (the first call knows every
    label-set size NaiBX meets)."""
    Y = (rng.random((n_rows, n_labels)) < 0.4).astype(int)
    Y[[0, 2]], Y[[1, 3]] = 1, 0
    return Y


def rows_apart(X):
    """X with rows 2 and 3 unlike rows 0 and 1 in every feature: every group's Gaussian
    has a spread (a group of equal rows has none, to rounding that differs between two
    ways of summing, which its variance floor magnifies)."""
    X[2:4] = X[:2] + 8.0
    return X


def assert_same_statistics(model, reference, scale):
    """Every statistic to 1e-12 relative (and 1e-12 of the data's scale absolute)."""
    mine, theirs = statistics_of(model), statistics_of(reference)
    assert mine.keys() == theirs.keys()
    for name, stats in theirs.items():
        for field in FIELDS:
            a, b = getattr(mine[name], field), getattr(stats, field)
            assert (a is None) == (b is None), f"{name}.{field}"
            if b is not None:
                np.testing.assert_allclose(
                    a, b, rtol=1e-12, atol=1e-12 * scale, err_msg=f"{name}.{field}"
                )
        assert mine[name].total_count == pytest.approx(stats.total_count, rel=1e-12)


def assert_same_predictions(model, reference, X):
    """Equal scores to 1e-9, and equal label sets where no score is within rounding of a
    decision (a chain's later labels depend on its earlier ones; NaiBX's cascade on ties
    of equal statistics, compared by its step probabilities)."""
    if isinstance(reference, NaiBX):
        np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X), rtol=1e-9)
        np.testing.assert_allclose(
            model.predict_steps(X).proba, reference.predict_steps(X).proba, rtol=1e-9, atol=1e-12
        )
        return
    base = reference._independent_log_odds(X)
    np.testing.assert_allclose(model._independent_log_odds(X), base, rtol=1e-9, atol=1e-9)
    scores = reference.decision_function(X)
    clear = np.all(np.abs(scores) > 1e-6 * (1 + np.abs(scores)), axis=1)
    np.testing.assert_allclose(model.decision_function(X)[clear], scores[clear], rtol=1e-9)
    np.testing.assert_array_equal(model.predict(X)[clear], reference.predict(X)[clear])


@settings(max_examples=60, deadline=None)
@given(
    which=st.integers(0, len(ESTIMATORS) - 1),
    seed=st.integers(0, 2**32 - 1),
    n_rows=st.integers(4, 30),
    n_features=st.integers(1, 6),
    n_labels=st.integers(2, 5),
    weighted=st.booleans(),
    sparse=st.booleans(),
    batch=st.sampled_from([1, 1, 2, 7]),
)
def test_rows_one_at_a_time_equal_the_batch_fit(
    which, seed, n_rows, n_features, n_labels, weighted, sparse, batch
):
    make, kind = ESTIMATORS[which]
    rng = np.random.default_rng(seed)
    X = rows_apart(values(rng, kind, (n_rows, n_features)))
    Y = labels(rng, n_rows, n_labels)
    weight = rng.choice([0.0, 0.5, 1.0, 3.0], n_rows) if weighted else None
    if weighted:
        weight[:4] = [1.0, 0.5, 3.0, 1.0]
    rows = sp.csr_matrix(X) if sparse else X
    model = make().partial_fit(rows[:2], Y[:2], sample_weight=_part(weight, 0, 2))
    with fast_path_calls() as calls:
        for start in range(2, n_rows, batch):
            part = _part(weight, start, start + batch)
            if part is not None and not part.any():
                part[0] = weight[start] = 1.0  # a batch whose weights are all 0 is refused
            model.partial_fit(
                rows[start : start + batch], Y[start : start + batch], sample_weight=part
            )
    assert all(calls), "every call after the first takes the fast path"
    reference = make().fit(rows, Y, sample_weight=weight)
    assert_same_statistics(model, reference, 1.0 + np.abs(X).max() ** 2 * n_rows * 3)
    assert_same_predictions(model, reference, X)


def _part(weight, start, stop):
    return None if weight is None else weight[start:stop].copy()


@pytest.mark.parametrize("make", [ESTIMATORS[0][0], ESTIMATORS[3][0], ESTIMATORS[5][0]])
def test_predictions_between_rows_see_the_new_rows(make):
    rng = np.random.default_rng(3)
    X, Y = rows_apart(values(rng, "real", (40, 4))), labels(rng, 40, 3)
    model = make().fit(X[:10], Y[:10])
    for stop in range(11, 40):
        model.predict(X)  # derives (and caches) what the statistics give
        with fast_path_calls() as calls:
            model.partial_fit(X[stop - 1 : stop], Y[stop - 1 : stop])
        assert calls == [True]
        reference = make().fit(X[:stop], Y[:stop])
        assert_same_predictions(model, reference, X)
    if not isinstance(model, NaiBX):
        model.partial_fit(X[39:], Y[39:])
        assert "prior_log_odds_" not in vars(model)  # dropped by the row, derived when read
        reference = make().fit(X, Y)
        np.testing.assert_allclose(model.prior_log_odds_, reference.prior_log_odds_)
        assert "prior_log_odds_" in vars(model)


def _fitted(make=ESTIMATORS[0][0], kind="real", **params):
    rng = np.random.default_rng(1)
    X, Y = rows_apart(values(rng, kind, (20, 3))), labels(rng, 20, 3)
    return make().set_params(**params).fit(X, Y), X, Y


def _bad_rows():
    br, multinomial, naibx = ESTIMATORS[0], ESTIMATORS[1], ESTIMATORS[5]
    one, y = np.ones((1, 3)), np.array([[1, 0, 1]])
    cases = [
        (br, {}, np.ones((1, 4)), y, None),  # width
        (br, {}, np.ones(3), y, None),  # 1-D
        (br, {}, np.array([[1.0, np.nan, 2.0]]), y, None),  # NaN refused
        (br, {"missing": "ignore"}, np.array([[1.0, np.inf, 2.0]]), y, None),
        (br, {}, np.array([[1e200, 0.0, 1.0]]), y, None),  # the event model's range
        (br, {}, np.array([[1e-200, 2.0, 1.0]]), y, None),
        (br, {}, sp.csr_matrix([[1e-200, 2.0, 1.0]]), y, None),
        (br, {}, one, np.array([[2, 0, 1]]), None),  # not 0/1
        (br, {}, one, np.array([[np.inf, 0, 1]]), None),  # (NaN: an unknown cell, learnt)
        (naibx, {}, one, np.array([[1, np.inf, 1]]), None),
        (br, {}, one, np.array([[1, 0]]), None),  # fewer labels
        (br, {}, one, np.array([[1, 0, 1], [0, 1, 0]]), None),  # lengths
        (br, {}, one, np.array([["a", "b", "c"]]), None),
        (br, {}, one, y, [-1.0]),  # a negative weight
        (br, {}, one, y, [0.0]),  # all weights 0
        (br, {}, one, y, [np.nan]),
        (br, {}, np.array([["a", "b", "c"]]), y, None),  # not numbers
        (multinomial, {}, np.array([[1.0, -1.0, 0.0]]), y, None),  # a negative count
        (multinomial, {}, sp.csr_matrix([[1.0, -1.0, 0.0]]), y, None),
        (naibx, {}, np.array([[1e200, 0.0, 1.0]]), y, None),
        (naibx, {}, one, np.array([[1, 0, 3]]), None),
        (naibx, {}, one, y, [-2.0]),
    ]
    return [pytest.param(*case, id=str(i)) for i, case in enumerate(cases)]


@pytest.mark.parametrize(("estimator", "params", "X", "Y", "weight"), _bad_rows())
def test_a_bad_row_raises_the_full_paths_error_and_changes_nothing(estimator, params, X, Y, weight):
    model, _, _ = _fitted(*estimator, **params)
    reference, _, _ = _fitted(*estimator, **params)
    shared.disown(reference)  # the full path only
    assert shared.owned(model) is not None  # the model's rows may take the fast path
    before = copy.deepcopy(statistics_of(model))
    state = dict(vars(model))
    with pytest.raises((ValueError, TypeError)) as fast:
        model.partial_fit(X, Y, sample_weight=weight)
    with pytest.raises((ValueError, TypeError)) as full:
        reference.partial_fit(X, Y, sample_weight=weight)
    assert type(fast.value) is type(full.value)
    assert str(fast.value) == str(full.value)
    assert vars(model).keys() == state.keys()
    for name, stats in statistics_of(model).items():
        assert stats is state[name]
        for field in FIELDS:
            a, b = getattr(stats, field), getattr(before[name], field)
            assert (a is None and b is None) or np.array_equal(a, b), f"{name}.{field}"
        assert stats.total_count == before[name].total_count


def test_the_fast_path_runs_for_good_rows_of_every_form():
    model, X, Y = _fitted(*ESTIMATORS[1])
    forms = [
        (X[:1], Y[:1]),
        (X[:1].astype(int), Y[:1].astype(bool)),
        (X[:1].astype(np.float32), Y[:1].astype(float)),
        (sp.csr_matrix(X[:2]), sp.csr_matrix(Y[:2])),
        (X[:5], Y[:5]),
    ]
    with fast_path_calls() as calls:
        for rows, y in forms:
            model.partial_fit(rows, y)
    assert calls == [True] * len(forms)
    picks = [0, 0, 0, 0, 1, 0, 1, 2, 3, 4]
    reference = ESTIMATORS[1][0]().fit(np.vstack([X, X[picks]]), np.vstack([Y, Y[picks]]))
    assert_same_statistics(model, reference, 1.0)


def test_rows_the_fast_path_is_not_sure_of_take_the_full_path():
    model, X, Y = _fitted()
    wider = np.hstack([Y[:1], [[1]]])  # a new label
    with fast_path_calls() as calls:
        model.partial_fit(X[:1].tolist(), Y[:1])  # a list
        model.partial_fit(sp.coo_matrix(X[:1]), Y[:1])  # not CSR
        model.partial_fit(X[:1], wider)
        model.partial_fit(X[:1], wider)  # the new label known: fast again
    assert calls == [False, False, False, True]
    assert model.n_labels_ == 4


def test_a_naibx_row_of_a_new_size_takes_the_full_path():
    rng = np.random.default_rng(0)
    X, Y = values(rng, "real", (12, 3)), np.zeros((12, 4), dtype=int)
    Y[:6, 0], Y[6:, :2], Y[11] = 1, 1, 1  # sizes 1, then 2, then 4
    model = NaiBX(events="gaussian", rule="predict").fit(X[:6], Y[:6])
    with fast_path_calls() as calls:
        for i in range(6, 12):
            model.partial_fit(X[i : i + 1], Y[i : i + 1])
    assert calls == [False, True, True, True, True, False]
    reference = NaiBX(events="gaussian", rule="predict").fit(X, Y)
    assert_same_statistics(model, reference, 1e6)


def test_a_model_deriving_more_than_it_declares_takes_the_full_path():
    rng = np.random.default_rng(0)
    X, Y = values(rng, "count", (20, 3)), labels(rng, 20, 3)
    model = IMLNB(events="multinomial").fit(X[:10], Y[:10])
    with fast_path_calls() as calls:
        model.partial_fit(X[10:11], Y[10:11])
    assert calls == [False]
    assert shared.owned(model) is None


def test_rows_with_missing_entries_take_the_full_path_and_count_as_in_the_batch_fit():
    rng = np.random.default_rng(2)
    X, Y = rows_apart(values(rng, "real", (30, 4))), labels(rng, 30, 3)
    X[[12, 20], [1, 3]] = np.nan
    model = BinaryRelevance(events="gaussian", rule="predict", missing="ignore")
    model.fit(X[:10], Y[:10])
    with fast_path_calls() as calls:
        for i in range(10, 30):
            model.partial_fit(X[i : i + 1], Y[i : i + 1])
    assert calls == [True] * 2 + [False] * 18  # the statistics keep missing entries from then
    reference = BinaryRelevance(events="gaussian", rule="predict", missing="ignore").fit(X, Y)
    assert_same_statistics(model, reference, 1e6)
    np.testing.assert_allclose(model.feature_stats_.observed, reference.feature_stats_.observed)
    assert_same_predictions(model, reference, X)


def test_compact_statistics_take_the_full_path(monkeypatch):
    from mlnb.multilabel import _label_model

    monkeypatch.setattr(_label_model, "COMPACT_ENTRIES", 0)  # sparse sums for any size
    rng = np.random.default_rng(4)
    X, Y = sp.csr_matrix(values(rng, "count", (30, 6))), labels(rng, 30, 3)
    model = BinaryRelevance(events="multinomial", rule="predict").fit(X[:10], Y[:10])
    assert sp.issparse(model.feature_stats_.sums)
    with fast_path_calls() as calls:
        for i in range(10, 30):
            model.partial_fit(X[i : i + 1], Y[i : i + 1])
    assert not any(calls)
    reference = BinaryRelevance(events="multinomial", rule="predict").fit(X, Y)
    np.testing.assert_allclose(
        model.feature_stats_.sums.toarray(), reference.feature_stats_.sums.toarray()
    )
    np.testing.assert_allclose(model.decision_function(X), reference.decision_function(X))


def test_pickles_copies_and_files_see_the_rows(tmp_path):
    model, X, Y = _fitted(ESTIMATORS[3][0])
    model.partial_fit(X[:1], Y[:1])
    assert "_feature_params" not in vars(model)
    restored = pickle.loads(pickle.dumps(model))
    assert "_feature_params" in vars(restored)
    np.testing.assert_allclose(restored.decision_function(X), model.decision_function(X))
    shallow = copy.copy(model)
    model.partial_fit(X[1:2], Y[1:2])  # modifies no statistics the copy shares
    assert shallow.feature_stats_.total_count == 21 and model.feature_stats_.total_count == 22
    model.partial_fit(X[2:3], Y[2:3])
    save(model, tmp_path / "model.mlnb")
    loaded = load(tmp_path / "model.mlnb")
    assert loaded.feature_stats_.total_count == 23
    np.testing.assert_allclose(loaded.decision_function(X), model.decision_function(X))


def test_statistics_given_to_from_statistics_are_not_modified():
    model, X, Y = _fitted()
    stats = model.batch_statistics(X, Y)
    installed = BinaryRelevance(events="gaussian", rule="predict").from_statistics(stats)
    installed.partial_fit(X[:1], Y[:1])
    installed.partial_fit(X[1:2], Y[1:2])
    assert stats["features"].total_count == 20 and installed.feature_stats_.total_count == 22


def test_set_params_between_calls_takes_effect():
    model, X, Y = _fitted(*ESTIMATORS[1])
    model.partial_fit(X[:1], Y[:1])
    model.set_params(prior_alpha=0.5)
    with fast_path_calls() as calls:
        model.partial_fit(X[1:2], Y[1:2])
        model.partial_fit(X[2:3], Y[2:3])
    assert calls == [False, True]
    reference = BinaryRelevance(events="multinomial", rule="predict", prior_alpha=0.5)
    reference.fit(np.vstack([X, X[:3]]), np.vstack([Y, Y[:3]]))
    np.testing.assert_allclose(model.prior_log_odds_, reference.prior_log_odds_)
    model.set_params(prior_alpha=-1.0)
    with pytest.raises(ValueError, match="prior_alpha"):
        model.partial_fit(X[:1], Y[:1])


def test_settings_chosen_at_the_defaults_are_kept_and_later_rows_take_the_fast_path():
    rng = np.random.default_rng(0)
    Y = (rng.random((120, 3)) < 0.4).astype(int)
    X = rng.poisson(1.0 + 3 * Y @ rng.random((3, 5))).astype(float)
    model = BinaryRelevance().partial_fit(X[:80], Y[:80])
    chosen = repr(model.events_)
    with fast_path_calls() as calls:
        for i in range(80, 120):
            model.partial_fit(X[i : i + 1], Y[i : i + 1])
    assert calls == [False] + [True] * 39  # the first makes the statistics its own
    assert repr(model.events_) == chosen
    whole = model.batch_statistics(X, Y)["features"]
    for field in FIELDS:
        a, b = getattr(model.feature_stats_, field), getattr(whole, field)
        assert (a is None and b is None) or np.allclose(a, b, rtol=1e-12), field


def test_yeast_one_row_at_a_time_equals_the_batch_fit(shared_dataset):
    train, test = shared_dataset("yeast", "train"), shared_dataset("yeast", "test")
    X, Y = np.asarray(train.X, dtype=float), np.asarray(train.Y, dtype=int)
    for make in (ESTIMATORS[0][0], ESTIMATORS[5][0]):
        model = make().partial_fit(X[:1], Y[:1])
        with fast_path_calls() as calls:
            for i in range(1, len(X)):
                model.partial_fit(X[i : i + 1], Y[i : i + 1])
        assert sum(calls) >= len(X) - 10  # NaiBX: a row of a size not seen yet takes the full
        reference = make().fit(X, Y)
        assert_same_statistics(model, reference, np.abs(X).max() ** 2 * len(X))
        assert_same_predictions(model, reference, np.asarray(test.X, dtype=float))


def test_medical_sparse_rows_one_at_a_time_equal_the_batch_fit(shared_dataset):
    train = shared_dataset("medical", "train")
    X, Y = sp.csr_matrix(train.X, dtype=float), np.asarray(train.Y, dtype=int)
    for make in (ESTIMATORS[2][0], ESTIMATORS[4][0], ESTIMATORS[6][0]):
        model = make().partial_fit(X[:1], Y[:1])
        with fast_path_calls() as calls:
            for i in range(1, X.shape[0]):
                model.partial_fit(X[i : i + 1], Y[i : i + 1])
        assert sum(calls) >= X.shape[0] - 10
        reference = make().fit(X, Y)
        assert_same_statistics(model, reference, float(X.shape[0]))
        assert_same_predictions(model, reference, X)
