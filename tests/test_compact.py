"""Compact statistics and log-odds of count models in large label spaces.

The compact form (sparse sums, :class:`~mlnb.events.compact.CompactLogOdds`) must equal the
dense one to 1e-12, keep every state change (partial_fit, merge, new labels, fold
subtraction, model files) exact, and hold memory in the non-zero statistics.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mlnb import BinaryRelevance
from mlnb.base.additive import FoldStatistics
from mlnb.datasets import make_extreme_multilabel
from mlnb.events import BayesianBernoulli, Bernoulli, Multinomial, bernoulli
from mlnb.events.compact import CompactLogOdds
from mlnb.io import load, save
from mlnb.multilabel import _label_model, _resolution
from mlnb.stats import GroupStats


def _data(seed, n=120, d=40, n_labels=12):
    X, Y = make_extreme_multilabel(
        n_samples=n, n_features=d, n_labels=n_labels, avg_features=8, random_state=seed
    )
    return sp.csr_matrix(X), sp.csr_matrix(Y)


@pytest.fixture
def compact_everywhere(monkeypatch):
    """Every sparse count model compact, whatever its size."""
    monkeypatch.setattr(_label_model, "COMPACT_ENTRIES", 0)


def _dense_log_odds(model, stats):
    """(weights table, constant per label) of the dense path."""
    positive, negative = model.estimate(stats), model.estimate(stats.complement())
    if isinstance(model, Multinomial):
        return positive.log_phi - negative.log_phi, 0.0
    return (
        positive.log_odds - negative.log_odds,
        positive.log_absent_sum - negative.log_absent_sum,
    )


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    alpha=st.sampled_from([1.0, 0.1, 1e-3]),
    per_feature=st.booleans(),
)
def test_compact_log_odds_equal_dense_table(seed, alpha, per_feature):
    X, Y = _data(seed)
    if per_feature:
        alpha = np.random.default_rng(seed).uniform(0.01, 2.0, X.shape[1])
    model = Multinomial(alpha=alpha)
    dense_stats = GroupStats.from_data(X, Y, second_moments=False)
    compact_stats = GroupStats.from_data(X, Y, second_moments=False, compact=True)
    assert compact_stats.compact and not dense_stats.compact
    expected, _ = _dense_log_odds(model, dense_stats)
    odds = model.compact_log_odds(compact_stats)
    np.testing.assert_allclose(odds.toarray(), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(odds.score(X), X @ expected.T, rtol=0, atol=1e-11)
    # only the pairs seen are stored
    assert odds.corrections.nnz == compact_stats.sums.nnz == (Y.T @ X).nnz


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    model=st.sampled_from([Bernoulli(), Bernoulli(alpha=0.01), BayesianBernoulli(a=0.5, b=2.0)]),
    weighted=st.booleans(),
)
def test_compact_bernoulli_log_odds_equal_dense_table(seed, model, weighted):
    X, Y = _data(seed)
    X = model.prepare(X)
    weight = np.random.default_rng(seed).uniform(0.5, 2.0, X.shape[0]) if weighted else None
    dense_stats = GroupStats.from_data(X, Y, weight, second_moments=False)
    compact_stats = GroupStats.from_data(X, Y, weight, second_moments=False, compact=True)
    table, constant = _dense_log_odds(model, dense_stats)
    odds = model.compact_log_odds(compact_stats)
    np.testing.assert_allclose(odds.toarray(), table, rtol=0, atol=1e-12)
    np.testing.assert_allclose(odds.score(X), X @ table.T + constant, rtol=0, atol=1e-11)
    assert odds.corrections.nnz == compact_stats.sums.nnz
    if not weighted:  # unweighted rows: few distinct counts
        n_rest = np.unique(compact_stats.total_count - compact_stats.count).size
        assert odds.pair_table.shape == (n_rest, np.unique(compact_stats.total_sums).size)


def test_compact_bernoulli_by_hand():
    # one label held by row 1 of 3; word 1 in rows 1 and 2, word 2 in row 3
    X = sp.csr_matrix([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    Y = sp.csr_matrix([[1], [0], [0]])
    odds = Bernoulli(alpha=1.0).compact_log_odds(
        GroupStats.from_data(X, Y, second_moments=False, compact=True)
    )
    # p+ = (2/3, 1/3), p- = (2/4, 2/4): present weights log(2) - 0 and log(1/2) - 0;
    # absent terms log(1/3) - log(1/2) and log(2/3) - log(1/2)
    np.testing.assert_allclose(odds.toarray(), [[np.log(2.0), np.log(0.5)]], atol=1e-15)
    np.testing.assert_allclose(odds.constant, [np.log(1 / 3 * 2 / 3 / 0.25)], atol=1e-15)


def test_compact_bernoulli_falls_back_to_dense_tables(compact_everywhere, monkeypatch):
    X, Y = _data(5, n=150, d=40, n_labels=10)
    params = {"events": "bernoulli", "rule": "predict"}
    expected = BinaryRelevance(**params).fit(X, Y)
    assert isinstance(expected._feature_params, CompactLogOdds)
    monkeypatch.setattr(bernoulli, "MAX_PAIR_TABLE", 1)  # the distinct pairs do not fit
    model = BinaryRelevance(**params).fit(X, Y)
    assert model.feature_stats_.compact and not isinstance(model._feature_params, CompactLogOdds)
    np.testing.assert_allclose(
        model.decision_function(X), expected.decision_function(X), atol=1e-11
    )


def test_compact_log_odds_by_hand():
    # two words, one label: the label's rows have counts [2, 0], the others' [1, 1]
    X = sp.csr_matrix([[2.0, 0.0], [1.0, 1.0]])
    Y = sp.csr_matrix([[1], [0]])
    odds = Multinomial(alpha=1.0).compact_log_odds(
        GroupStats.from_data(X, Y, second_moments=False, compact=True)
    )
    # phi+ = (3, 1) / 4, phi- = (2, 2) / 4: weights log(3/2), log(1/2)
    np.testing.assert_allclose(odds.toarray(), [[np.log(1.5), np.log(0.5)]], atol=1e-15)
    assert odds.corrections.nnz == 1  # word 2 never met the label


def test_compact_log_odds_refuse_mismatched_shapes():
    with pytest.raises(ValueError, match="do not match"):
        CompactLogOdds(np.zeros(3), np.zeros(2), sp.csr_matrix((2, 2)))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), factor=st.floats(0.1, 3.0))
def test_compact_statistics_algebra_equals_dense(seed, factor):
    X, Y = _data(seed)
    half = X.shape[0] // 2

    def both(rows):
        return [
            GroupStats.from_data(X[rows], Y[rows], second_moments=False, compact=c)
            for c in (False, True)
        ]

    (dense, compact), (dense_b, compact_b) = both(slice(None, half)), both(slice(half, None))
    results = [
        (dense.copy().merge(dense_b), compact.copy().merge(compact_b)),
        (
            dense.copy().merge(dense_b).subtract(dense_b),
            compact.copy().merge(compact_b).subtract(compact_b),
        ),
        (dense.copy().scale(factor), compact.copy().scale(factor)),
        (dense.select_groups([2, 0]), compact.select_groups([2, 0])),
        (dense.select_features([1, 3]), compact.select_features([1, 3])),
        (dense.add_groups(2), compact.add_groups(2)),
        (dense.add_features(3), compact.add_features(3)),
        (
            dense.placed([3, 1, 0, 2, 4, 5, 6, 7, 8, 9, 10, 11], 14),
            compact.placed([3, 1, 0, 2, 4, 5, 6, 7, 8, 9, 10, 11], 14),
        ),
    ]
    for expected, got in results:
        assert got.compact
        np.testing.assert_allclose(got.sums.toarray(), expected.sums, atol=1e-12)
        np.testing.assert_allclose(got.count, expected.count, atol=1e-12)
        np.testing.assert_allclose(got.total_sums, expected.total_sums, atol=1e-12)
        np.testing.assert_allclose(got.group_sums(), expected.group_sums(), atol=1e-12)
    # a compact copy is a copy
    copied = compact.copy()
    copied.sums.data[:] = 0
    assert compact.sums.sum() > 0
    # the complement of compact statistics is the dense complement
    np.testing.assert_allclose(compact.complement().sums, dense.complement().sums)


def test_compact_statistics_have_no_second_moments():
    X, Y = _data(0)
    with pytest.raises(ValueError, match="second moments"):
        GroupStats.from_data(X, Y, compact=True)


@pytest.mark.parametrize("events", ["multinomial", "bernoulli"])
def test_binary_relevance_compact_equals_dense(compact_everywhere, monkeypatch, tmp_path, events):
    X, Y = _data(1, n=200, d=60, n_labels=15)
    params = {"events": events, "rule": "predict"}
    monkeypatch.setattr(_label_model, "COMPACT_ENTRIES", 1 << 40)
    dense = BinaryRelevance(**params).fit(X, Y)
    monkeypatch.setattr(_label_model, "COMPACT_ENTRIES", 0)
    compact = BinaryRelevance(**params).fit(X, Y)
    assert compact.feature_stats_.compact and not dense.feature_stats_.compact
    assert isinstance(compact._feature_params, CompactLogOdds)
    expected = dense.decision_function(X)
    np.testing.assert_allclose(compact.decision_function(X), expected, atol=1e-12)
    np.testing.assert_array_equal(compact.predict(X), dense.predict(X))
    np.testing.assert_allclose(compact.predict_proba(X), dense.predict_proba(X), atol=1e-12)
    top = compact.predict_top_k(X, 3)
    np.testing.assert_array_equal(top.indices, dense.predict_top_k(X, 3).indices)
    # dense rows score as the sparse ones
    np.testing.assert_allclose(compact.decision_function(X.toarray()), expected, atol=1e-12)

    # online, merged, grown by new labels, saved: still compact and equal
    online = BinaryRelevance(**params).fit(X[:90], Y[:90]).partial_fit(X[90:], Y[90:])
    merged = BinaryRelevance(**params).fit(X[:90], Y[:90])
    merged.merge(BinaryRelevance(**params).fit(X[90:], Y[90:]))
    grown = BinaryRelevance(**params).fit(X[:90], Y[:90, :10])
    grown.partial_fit(X[90:], Y[90:])  # new labels: 0 in the earlier rows
    path = tmp_path / "compact.mlnb"
    save(compact, path)
    loaded = load(path)
    for model in (online, merged, loaded):
        assert model.feature_stats_.compact
        np.testing.assert_allclose(model.decision_function(X), expected, atol=1e-11)
    assert grown.feature_stats_.compact
    Y_grown = Y.toarray()
    Y_grown[:90, 10:] = 0
    refit = BinaryRelevance(**params).fit(X, Y_grown)
    np.testing.assert_allclose(grown.decision_function(X), refit.decision_function(X), atol=1e-11)


def test_compact_fold_subtraction_equals_refit(compact_everywhere):
    X, Y = _data(2, n=150, d=50, n_labels=10)
    model = BinaryRelevance(events="multinomial", rule="predict")
    folds = [np.arange(0, 50), np.arange(50, 100), np.arange(100, 150)]
    engine = FoldStatistics(model, X, Y, folds)
    for k, test in enumerate(folds):
        train = np.setdiff1d(np.arange(150), test)
        by_subtraction = engine.model(k, model)
        assert by_subtraction.feature_stats_.compact
        refit = BinaryRelevance(events="multinomial", rule="predict").fit(X[train], Y[train])
        np.testing.assert_allclose(
            by_subtraction.decision_function(X[test]), refit.decision_function(X[test]), atol=1e-11
        )


def test_compact_model_memory_grows_with_the_pairs_seen(compact_everywhere):
    X, Y = make_extreme_multilabel(
        n_samples=400, n_features=3000, n_labels=500, avg_features=20, random_state=3
    )
    model = BinaryRelevance(events="multinomial", rule="predict").fit(X, Y)
    odds, stats = model._feature_params, model.feature_stats_
    pairs_seen = (sp.csr_matrix(Y).T @ sp.csr_matrix(X)).nnz
    assert stats.sums.nnz == odds.corrections.nnz == pairs_seen
    dense_table = 8 * 500 * 3000
    assert odds.nbytes < 16 * pairs_seen + 8 * (500 + 3000) + 8 * 3001
    assert odds.nbytes < dense_table / 10


def test_defaults_in_a_large_label_space_search_a_sample(compact_everywhere, monkeypatch):
    X, Y = _data(4, n=400, d=80, n_labels=20)
    monkeypatch.setattr(_resolution, "SEARCH_ENTRIES", 200 * 20)
    monkeypatch.setattr(_resolution, "MIN_SEARCH_ROWS", 50)
    searched = []
    original = _resolution.FoldStatistics

    def spy(model, X, Y, folds, **kwargs):
        searched.append(X.shape[0])
        return original(model, X, Y, folds, **kwargs)

    monkeypatch.setattr(_resolution, "FoldStatistics", spy)
    model = BinaryRelevance().fit(X, Y)
    assert searched and set(searched) == {200}  # the search saw a sample of 200 rows
    assert isinstance(model.events_, Multinomial)  # the models with a compact form
    assert model.feature_stats_.compact
    np.testing.assert_allclose(model.feature_stats_.count, np.asarray(Y.sum(axis=0)).ravel())
    given = BinaryRelevance(**model.chosen_params_).fit(X, Y)
    np.testing.assert_array_equal(given.predict(X), model.predict(X))


def test_model_files_refuse_inconsistent_compact_weights():
    from mlnb.io import ModelFileError, _check_parameters

    good = {
        "base": np.zeros(3),
        "length": np.zeros(2),
        "corrections": sp.csr_matrix((3, 2)),
        "constant": np.zeros(2),
        "pair_table": np.zeros((1, 2)),
        "label_class": np.zeros(2, dtype=np.intp),
        "feature_class": np.array([0, 1, 1]),
    }
    _check_parameters(CompactLogOdds, good)
    for change in (
        {"corrections": sp.csr_matrix((2, 2))},
        {"corrections": np.zeros((3, 2))},
        {"constant": np.zeros(3)},
        {"feature_class": np.array([0, 1, 2])},  # a class the table does not have
        {"label_class": None},  # the table without its classes
        {"base": np.array(["a", "b", "c"])},
    ):
        with pytest.raises(ModelFileError, match="CompactLogOdds"):
            _check_parameters(CompactLogOdds, {**good, **change})


@pytest.mark.parametrize("name", ["medical", "enron", "bibtex"])
@pytest.mark.parametrize("model", [Multinomial, Bernoulli])
def test_float32_weight_tables_change_no_decision(shared_dataset, name, model):
    train, test = shared_dataset(name, "train"), shared_dataset(name, "test")
    exact = BinaryRelevance(events=model(), rule="predict").fit(train.X, train.Y)
    single = BinaryRelevance(events=model(dtype="float32"), rule="predict").fit(train.X, train.Y)
    expected, got = exact.decision_function(test.X), single.decision_function(test.X)
    assert got.dtype == np.float64
    finite = np.isfinite(expected)
    assert not np.array_equal(got[finite], expected[finite])  # single precision was used
    scale = np.abs(expected[finite]).max()  # single-precision sums of terms of this size
    np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-5, atol=2e-6 * scale)
    np.testing.assert_array_equal(single.predict(test.X), exact.predict(test.X))
    np.testing.assert_array_equal(
        single.predict_top_k(test.X, 5).indices, exact.predict_top_k(test.X, 5).indices
    )
    tables = [v[1] for k, v in vars(single._feature_params[0]).items() if k.startswith("_table_")]
    assert tables and all(table.dtype == np.float32 for table in tables)


@pytest.mark.parametrize("model", [Multinomial, Bernoulli])
def test_weights_dtype_is_checked_at_fit(model):
    X, Y = _data(0)
    with pytest.raises(ValueError, match="dtype must be one of"):
        BinaryRelevance(events=model(dtype="float16"), rule="predict").fit(X, Y)
