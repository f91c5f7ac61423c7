"""ChiSquaredSelection: each label's k features of largest chi-squared, from statistics."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_selection import chi2

from mlnb import BinaryRelevance
from mlnb.events import Bernoulli, ChiSquaredSelection, Multinomial, PerLabel
from mlnb.events.selection import chi_squared
from mlnb.multilabel._resolution import MIN_KEPT, resolve_settings, selects_features


def _noisy_words(seed=0, n=240, n_labels=3, n_informative=2, n_noise=60):
    """0/1 words: a few per label tell it, many say nothing."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, n_labels)) < 0.35).astype(int)
    informative = rng.random((n, n_labels * n_informative)) < np.where(
        np.repeat(Y, n_informative, axis=1) == 1, 0.6, 0.1
    )
    noise = rng.random((n, n_noise)) < 0.2
    return np.hstack([informative, noise]).astype(float), Y


def test_chi_squared_is_scikit_learns_chi2_for_every_label():
    X, Y = _noisy_words(seed=1)
    statistic = chi_squared(Y.T @ X, Y.sum(axis=0), (1 - Y).T @ X, (1 - Y).sum(axis=0))
    for label in range(Y.shape[1]):
        expected = np.nan_to_num(chi2(X, Y[:, label])[0])
        np.testing.assert_allclose(statistic[label], expected, rtol=1e-10, atol=1e-12)


def test_bernoulli_with_k_features_is_each_label_refitted_on_its_own_features():
    """Silencing a Bernoulli feature removes both its terms: each label's log-odds equal
    those of a Bernoulli binary relevance fitted on that label's k best columns alone."""
    X, Y = _noisy_words(seed=2)
    k = 4
    model = BinaryRelevance(events=ChiSquaredSelection(Bernoulli(alpha=0.5), k=k), rule="predict")
    scores = model.fit(X, Y).decision_function(X)
    statistic = chi_squared(Y.T @ X, Y.sum(axis=0), (1 - Y).T @ X, (1 - Y).sum(axis=0))
    for label in range(Y.shape[1]):
        columns = np.argsort(-statistic[label], kind="stable")[:k]
        alone = BinaryRelevance(events=Bernoulli(alpha=0.5), rule="predict")
        alone.fit(X[:, columns], Y[:, [label]])
        np.testing.assert_allclose(scores[:, label], alone.decision_function(X[:, columns])[:, 0])


def test_k_at_least_the_number_of_features_changes_nothing_and_sparse_equals_dense():
    X, Y = _noisy_words(seed=3)
    plain = BinaryRelevance(events=Multinomial(), rule="predict").fit(X, Y)
    every = BinaryRelevance(events=ChiSquaredSelection(Multinomial(), k=X.shape[1]), rule="predict")
    np.testing.assert_allclose(every.fit(X, Y).decision_function(X), plain.decision_function(X))
    few = ChiSquaredSelection(Multinomial(), k=5)
    dense = BinaryRelevance(events=few, rule="predict").fit(X, Y).decision_function(X)
    stored = BinaryRelevance(events=few, rule="predict").fit(sp.csr_matrix(X), Y)
    np.testing.assert_allclose(stored.decision_function(sp.csr_matrix(X)), dense)


@pytest.mark.parametrize("k", [0, -3, 2.5, True, "10"])
def test_a_bad_k_is_refused_by_name(k):
    X, Y = _noisy_words(seed=4)
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        BinaryRelevance(events=ChiSquaredSelection(Multinomial(), k=k), rule="predict").fit(X, Y)


def test_the_defaults_keep_each_labels_best_features_where_most_are_noise():
    """Two informative words per label among 60 noise words: the search keeps a few
    features per label, and that setting given explicitly is the same model."""
    X, Y = _noisy_words(seed=5, n=300)
    model = BinaryRelevance().fit(X, Y)
    events = model.chosen_params_["events"]
    # one number for every label, or (PerLabel) a number per label
    selections = events.models if isinstance(events, PerLabel) else [events]
    assert all(isinstance(selection, ChiSquaredSelection) for selection in selections)
    assert all(MIN_KEPT <= selection.k <= X.shape[1] // 4 for selection in selections)
    again = BinaryRelevance(**model.chosen_params_).fit(X, Y)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


def test_the_search_keeps_every_feature_where_every_feature_tells():
    rng = np.random.default_rng(6)
    Y = (rng.random((300, 3)) < 0.4).astype(int)
    X = rng.poisson(1.0 + 2.0 * np.repeat(Y, 8, axis=1))  # 24 words, all informative
    resolution = resolve_settings(BinaryRelevance(), X, sp.csr_matrix(Y))
    assert not isinstance(resolution.events, ChiSquaredSelection)


def test_selection_is_tried_only_on_non_negative_data_with_features_to_spare():
    X, _ = _noisy_words(seed=7)
    assert selects_features(X) and selects_features(sp.csr_matrix(X))
    assert not selects_features(X - 0.5)
    assert not selects_features(X[:, : 4 * MIN_KEPT - 1])


def test_each_rows_k_largest_with_ties_to_the_first_columns():
    from mlnb.events.selection import _top_mask

    rng = np.random.default_rng(9)
    statistic = rng.integers(0, 4, size=(30, 12)).astype(float)  # many ties
    for k in (1, 3, 7, 12, 20):
        expected = np.zeros(statistic.shape, dtype=bool)
        order = np.argsort(-statistic, axis=1, kind="stable")[:, :k]
        np.put_along_axis(expected, order, True, axis=1)
        np.testing.assert_array_equal(_top_mask(statistic, k), expected)


def test_selection_that_ranks_the_labels_of_a_row_worse_is_not_kept(monkeypatch):
    """The selection wins on micro F1 in the noisy-words case; with its out-of-fold label
    ranking loss made worse than the full model's, the full model is kept."""
    from mlnb.multilabel import _resolution

    X, Y = _noisy_words(seed=5, n=300)
    # a selection for all labels (no model per label, which has its own check)
    monkeypatch.setattr(_resolution, "_with_per_label_choice", lambda chosen, *_: chosen)
    assert isinstance(BinaryRelevance().fit(X, Y).events_, ChiSquaredSelection)
    losses = iter([0.3, 0.1])  # the selected scores' loss first, then the full model's
    monkeypatch.setattr(_resolution, "_ranking_loss", lambda truth, scores: next(losses))
    assert not isinstance(BinaryRelevance().fit(X, Y).events_, ChiSquaredSelection)


def test_a_model_with_selected_features_survives_a_model_file(tmp_path):
    """The defaults' choice on noisy words (a ChiSquaredSelection) saves and loads, with
    the same scores, after predictions have cached the silenced tables."""
    from mlnb.io import load, save

    X, Y = _noisy_words(seed=5, n=300)
    model = BinaryRelevance().fit(X, Y)
    assert isinstance(model.events_, (ChiSquaredSelection, PerLabel))
    scores = model.decision_function(X)  # fills the cache, which the file leaves out
    save(model, tmp_path / "m.mlnb")
    loaded = load(tmp_path / "m.mlnb")
    np.testing.assert_array_equal(loaded.decision_function(X), scores)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
