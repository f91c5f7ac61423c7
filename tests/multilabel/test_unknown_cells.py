"""Unknown label cells: binary relevance learns each label from the rows where it is known,
exactly as a fit on those rows alone, through every path of the statistics (fit,
partial_fit, merge, Dask, fold subtraction, forget, model files); the other estimators
refuse them by name, and the metrics skip them."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mlnb import (
    IMLNB,
    BinaryRelevance,
    ClassifierChain,
    EnsembleClassifierChains,
    LabelPowerset,
    NaiBX,
)
from mlnb.base import FoldStatistics
from mlnb.io import load, save
from mlnb.labels import split_unknown
from mlnb.metrics import f1_score, hamming_loss, precision_score, subset_accuracy

EVENTS = ["multinomial", "bernoulli", "gaussian", "complement", "bayesian_gaussian"]
#: Agreement with the fit on the known rows: the count models exactly (same sums); the
#: Gaussian's centred moments are subtracted (known = total - unknown), whose rounding the
#: variance floor turns into up to 1e-7 relative near log-odds of 1e8 (as forget's).
RTOL = {"gaussian": 1e-6}


def _data(seed, n=40, n_features=5, n_labels=3, hidden=0.3):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, n_labels)) < 0.4).astype(float)
    X = rng.poisson(1.0 + 2.0 * Y @ rng.random((n_labels, n_features))).astype(float)
    unknown = rng.random(Y.shape) < hidden
    unknown[:4] = False  # every label known on a few rows of each value
    Y[:2], Y[2:4] = 1.0, 0.0
    with_unknown = Y.copy()
    with_unknown[unknown] = np.nan
    return X, with_unknown, rng


def _plain(events):
    return BinaryRelevance(events=events, rule="predict")


def _check_known_rows(model, X, Y, events, sparse_x=False):
    """Each label's log-odds equal a one-label fit on the rows where it is known."""
    for label in range(Y.shape[1]):
        known = ~np.isnan(Y[:, label])
        rows = sp.csr_matrix(X[known]) if sparse_x else X[known]
        alone = _plain(events).fit(rows, Y[known][:, [label]])
        np.testing.assert_allclose(
            model.predict_log_odds(X)[:, label],
            alone.predict_log_odds(X)[:, 0],
            rtol=RTOL.get(events, 1e-12),
            atol=1e-9,
        )


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    events=st.sampled_from(EVENTS),
    sparse_x=st.booleans(),
    hidden=st.floats(0.05, 0.7),
)
def test_each_label_equals_a_fit_on_its_known_rows(seed, events, sparse_x, hidden):
    X, Y, _ = _data(seed, hidden=hidden)
    rows = sp.csr_matrix(X) if sparse_x else X
    _check_known_rows(_plain(events).fit(rows, Y), X, Y, events, sparse_x)


def test_every_form_of_unknown_cells_gives_the_same_model():
    pandas = pytest.importorskip("pandas")
    X, Y, _ = _data(1)
    unknown = np.isnan(Y)
    forms = {
        "nan": Y,
        "masked": np.ma.masked_array(np.nan_to_num(Y).astype(int), mask=unknown),
        "sparse": sp.csr_matrix(Y),  # NaN entries stored
        "objects": np.where(unknown, None, np.nan_to_num(Y).astype(int).astype(object)),
        "frame": pandas.DataFrame(Y),
        "nullable": pandas.DataFrame(np.nan_to_num(Y).astype(int)).astype("Int64").mask(unknown),
    }
    reference = _plain("multinomial").fit(X, Y).predict_log_odds(X)
    for name, form in forms.items():
        odds = _plain("multinomial").fit(X, form).predict_log_odds(X)
        np.testing.assert_array_equal(odds, reference, err_msg=name)


def test_the_known_cells_are_not_the_cells_taken_as_zero():
    X, Y, _ = _data(2, hidden=0.5)
    known = _plain("multinomial").fit(X, Y).predict_log_odds(X)
    zeros = _plain("multinomial").fit(X, np.nan_to_num(Y)).predict_log_odds(X)
    assert not np.allclose(known, zeros)


@pytest.mark.parametrize("events", ["multinomial", "gaussian"])
def test_batches_partitions_and_folds_equal_the_fit(events):
    X, Y, _ = _data(3)
    Y[10:20] = np.where(np.isnan(Y[10:20]), 0.0, Y[10:20])  # a batch without unknown cells
    whole = _plain(events).fit(X, Y)
    rtol = RTOL.get(events, 1e-12)
    online = _plain(events)
    for start in range(0, len(X), 10):
        online.partial_fit(X[start : start + 10], Y[start : start + 10])
    merged = _plain(events).fit(X[:10], Y[:10]).merge(_plain(events).fit(X[10:], Y[10:]))
    known_first = _plain(events).fit(X[10:20], Y[10:20]).merge(_plain(events).fit(X, Y))
    twice = _plain(events).fit(np.vstack([X[10:20], X]), np.vstack([Y[10:20], Y]))
    for model in (online, merged):
        np.testing.assert_allclose(model.predict_log_odds(X), whole.predict_log_odds(X), rtol=rtol)
    np.testing.assert_allclose(
        known_first.predict_log_odds(X), twice.predict_log_odds(X), rtol=rtol
    )
    folds = [np.arange(k, len(X), 4) for k in range(4)]
    engine = FoldStatistics(_plain(events), X, Y, folds)
    for k, test in enumerate(folds):
        train = np.setdiff1d(np.arange(len(X)), test)
        refit = _plain(events).fit(X[train], Y[train])
        np.testing.assert_allclose(
            engine.model(k).predict_log_odds(X), refit.predict_log_odds(X), rtol=rtol, atol=1e-9
        )


@pytest.mark.parametrize("events", ["multinomial", "gaussian"])
def test_the_unknown_part_keeps_the_totals_of_every_row(events):
    """Batches without unknown cells add their rows to the unknown part's totals too (as
    its partner's statistics emptied): a model of a known batch, then one with unknown
    cells, can forget rows of both."""
    X, Y, _ = _data(19, n=50)
    Y[:40] = np.nan_to_num(Y[:40])  # a first batch with every cell known
    online = _plain(events).partial_fit(X[:40], Y[:40]).partial_fit(X[40:], Y[40:])
    merged = _plain(events).fit(X[:40], Y[:40]).merge(_plain(events).fit(X[40:], Y[40:]))
    for model in (online, merged):
        assert model.unknown_stats_.total_count == model.feature_stats_.total_count == 50
        _check_known_rows(model, X, Y, events)
    forgot = online.forget(X[30:], Y[30:])  # 20 rows, 10 of them with unknown cells
    rest = _plain(events).fit(X[:30], Y[:30])
    np.testing.assert_allclose(
        forgot.predict_log_odds(X), rest.predict_log_odds(X), rtol=RTOL.get(events, 1e-12)
    )


def test_dask_training_equals_the_fit():
    da = pytest.importorskip("dask.array")
    from mlnb import distributed

    X, Y, _ = _data(4)
    model = distributed.fit(
        _plain("multinomial"), da.from_array(X, chunks=(13, -1)), da.from_array(Y, chunks=(13, -1))
    )
    np.testing.assert_allclose(
        model.predict_log_odds(X),
        _plain("multinomial").fit(X, Y).predict_log_odds(X),
        rtol=1e-12,
    )


def test_forget_takes_rows_with_unknown_cells_out_exactly():
    X, Y, _ = _data(5)
    model = _plain("multinomial").fit(X, Y).forget(X[:15], Y[:15])
    rest = _plain("multinomial").fit(X[15:], Y[15:])
    np.testing.assert_allclose(model.predict_log_odds(X), rest.predict_log_odds(X), rtol=1e-12)
    with pytest.raises(ValueError):  # rows never learnt as unknown: negative statistics
        _plain("multinomial").fit(X[15:], np.nan_to_num(Y[15:])).forget(X[:15], Y[:15])


def test_the_model_file_keeps_the_unknown_cells(tmp_path):
    X, Y, _ = _data(6)
    model = _plain("gaussian").fit(X, Y)
    path = tmp_path / "model.mlnb"
    save(model, path)
    loaded = load(path)
    np.testing.assert_array_equal(loaded.predict_log_odds(X), model.predict_log_odds(X))
    more = _plain("gaussian").fit(X[:20], Y[:20])
    loaded_more = load(path)
    more.partial_fit(X[20:], Y[20:])
    loaded_more.forget(X[:20], Y[:20])
    np.testing.assert_allclose(
        loaded_more.predict_log_odds(X),
        _plain("gaussian").fit(X[20:], Y[20:]).predict_log_odds(X),
        rtol=1e-6,
    )


def test_a_label_known_nowhere_has_even_prior_odds():
    X, Y, _ = _data(7)
    Y[:, 2] = np.nan
    model = _plain("multinomial").fit(X, Y)
    assert model.prior_log_odds_[2] == 0.0
    assert np.all(np.isfinite(model.predict_log_odds(X)))


def test_the_defaults_choose_their_settings_on_the_known_cells():
    X, Y, _ = _data(8, n=120, hidden=0.4)
    model = BinaryRelevance().fit(X, Y)
    assert model.chosen_ is not None
    same = BinaryRelevance(**model.chosen_params_).fit(X, Y)
    np.testing.assert_array_equal(model.predict(X), same.predict(X))


@pytest.mark.parametrize("seed", [17, 18])  # (17: fitting on the known cells matters, 18:
def test_retune_fits_and_judges_the_known_cells_only(seed):  # judging them too)
    from mlnb.decision_rules import RULES
    from mlnb.metrics import f1_score as micro

    X, Y, _ = _data(seed, n=120, hidden=0.3)
    unknown = np.isnan(Y)
    model = BinaryRelevance(events="multinomial", rule="predict").fit(X, Y).retune(X, Y)
    scores = model.predict_log_odds(X)
    truth = np.nan_to_num(Y)
    fitting = np.where(unknown, -1e300, scores)
    best = (micro(Y, (scores > 0).astype(int), average="micro"), None)  # Y's NaN skipped
    for make in RULES.values():
        rule = make().fit(fitting, truth)
        value = micro(Y, rule.predict(scores), average="micro")
        if value > best[0]:
            best = (value, rule)
    expected = (scores > 0).astype(int) if best[1] is None else best[1].predict(scores)
    np.testing.assert_array_equal(model.predict(X), expected)


def test_the_rules_of_the_search_never_judge_an_unknown_cell():
    from mlnb.decision_rules import SortedScores
    from mlnb.multilabel._resolution import _folds, _rule_options, _rules_to_try

    rng = np.random.default_rng(11)
    truth = (rng.random((90, 5)) < 0.3).astype(np.int8)
    scores = 3.0 * truth + rng.normal(size=truth.shape)
    hidden = rng.random(truth.shape) < 0.3
    folds = _folds(len(truth), 0)
    outcomes = []
    for fill in (0, 1):  # whatever the unknown cells hold, nothing fitted or judged changes
        given = np.where(hidden, fill, truth).astype(np.int8)
        options = _rule_options(_rules_to_try(None), SortedScores(scores, given), folds, hidden)
        outcomes.append(options)
        for _, _, labels in options:
            assert not labels[hidden].any()
    for (name, fitted_0, labels_0), (_, fitted_1, labels_1) in zip(*outcomes, strict=True):
        np.testing.assert_array_equal(labels_0, labels_1, err_msg=name)
        np.testing.assert_array_equal(fitted_0.predict(scores), fitted_1.predict(scores))


def test_the_other_estimators_refuse_unknown_cells_by_name():
    X, Y, _ = _data(10)
    refusing = (EnsembleClassifierChains(events="multinomial"), LabelPowerset())
    for model in refusing:
        with pytest.raises(ValueError, match=r"unknown cells.*BinaryRelevance"):
            model.fit(X, Y)
    from sklearn.naive_bayes import MultinomialNB

    for model in (BinaryRelevance, ClassifierChain):
        with pytest.raises(ValueError, match="unknown cells"):
            model(base_estimator=MultinomialNB()).fit(X, Y)
    with pytest.raises(ValueError, match="no known cell"):
        _plain("multinomial").fit(X, np.full(Y.shape, np.nan))
    with pytest.raises(ValueError, match="only 0 and 1"):
        _plain("multinomial").fit(X, np.where(np.isnan(Y), np.inf, Y))


def test_split_unknown_gives_the_positive_and_the_unknown_cells():
    Y = sp.csr_matrix(np.array([[1.0, np.nan, 0.0], [np.nan, 1.0, 1.0]]))
    labels, unknown = split_unknown(Y)
    np.testing.assert_array_equal(labels.toarray(), [[1, 0, 0], [0, 1, 1]])
    np.testing.assert_array_equal(unknown.toarray(), [[0, 1, 0], [1, 0, 0]])
    assert split_unknown(sp.csr_matrix(np.eye(2)))[1] is None


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), sparse_form=st.booleans())
def test_metrics_skip_unknown_cells(seed, sparse_form):
    rng = np.random.default_rng(seed)
    truth = (rng.random((12, 4)) < 0.4).astype(float)
    predicted = (rng.random((12, 4)) < 0.4).astype(int)
    unknown = rng.random(truth.shape) < 0.3
    given_truth = np.where(unknown, np.nan, truth)
    if sparse_form:
        given_truth = sp.csr_matrix(given_truth)
    known = ~unknown
    tp = np.sum((truth == 1) & (predicted == 1) & known)
    fp = np.sum((truth == 0) & (predicted == 1) & known)
    fn = np.sum((truth == 1) & (predicted == 0) & known)
    micro = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0
    assert f1_score(given_truth, predicted, average="micro") == pytest.approx(micro)
    errors = np.sum((truth != predicted) & known)
    assert hamming_loss(given_truth, predicted) == pytest.approx(errors / max(known.sum(), 1))
    exact = np.all((truth == predicted) | unknown, axis=1).mean()
    assert subset_accuracy(given_truth, predicted) == pytest.approx(exact)
    masked = np.ma.masked_array(truth, mask=unknown)
    assert precision_score(masked, predicted, average="macro") == pytest.approx(
        precision_score(given_truth, predicted, average="macro")
    )


# ---- chains and IMLNB: the other labels as features where they are known -------------------
@pytest.mark.parametrize("prior", ["uniform", "marginal"])
def test_a_chains_label_terms_come_from_the_rows_where_both_labels_are_known(prior):
    X, Y, _ = _data(12, n=80, hidden=0.35)
    alpha = 1.0
    model = ClassifierChain(
        events="multinomial", rule="predict", label_alpha=alpha, label_prior=prior
    ).fit(X, Y)
    weight, absent = model._label_pairs
    for k in range(Y.shape[1]):
        for j in range(Y.shape[1]):
            if j == k:
                continue
            both = ~np.isnan(Y[:, k]) & ~np.isnan(Y[:, j])
            p = {}
            frequency = (Y[both, j].sum() + 1.0) / (both.sum() + 2.0)
            for value in (1, 0):
                rows = both & (Y[:, k] == value)
                centre = 0.5 if prior == "uniform" else frequency
                p[value] = (Y[rows, j].sum() + 2 * alpha * centre) / (rows.sum() + 2 * alpha)
            expected_absent = np.log1p(-p[1]) - np.log1p(-p[0])
            expected = np.log(p[1]) - np.log(p[0]) - expected_absent
            assert weight[k, j] == pytest.approx(expected, rel=1e-12)
            assert absent[k, j] == pytest.approx(expected_absent, rel=1e-12)
    # each label's features: as binary relevance's, from the rows where it is known
    br = _plain("multinomial").fit(X, Y)
    np.testing.assert_allclose(model._independent_log_odds(X), br.predict_log_odds(X), rtol=1e-12)


def test_imlnb_correlates_each_pair_over_the_rows_where_both_are_known():
    X, Y, _ = _data(13, n=90, hidden=0.3)
    model = IMLNB(events="multinomial", rule="predict").fit(X, Y)
    for k in range(Y.shape[1]):
        for j in range(Y.shape[1]):
            both = ~np.isnan(Y[:, k]) & ~np.isnan(Y[:, j])
            expected = np.corrcoef(Y[both, k], Y[both, j])[0, 1]
            assert model.label_correlation_[k, j] == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("estimator", [ClassifierChain, IMLNB, NaiBX])
def test_batches_partitions_folds_and_files_equal_the_fit(estimator, tmp_path):
    X, Y, _ = _data(14, n=60)

    def plain():
        return estimator(events="multinomial", rule="predict")

    whole = plain().fit(X, Y)
    online = plain()
    for start in range(0, len(X), 20):
        online.partial_fit(X[start : start + 20], Y[start : start + 20])
    merged = plain().fit(X[:25], Y[:25]).merge(plain().fit(X[25:], Y[25:]))
    forgot = plain().fit(X, Y).forget(X[:25], Y[:25])
    rest = plain().fit(X[25:], Y[25:])
    path = tmp_path / "chain.mlnb"
    save(whole, path)
    for model in (online, merged, load(path)):
        np.testing.assert_allclose(
            model.decision_function(X), whole.decision_function(X), rtol=1e-10
        )
    np.testing.assert_allclose(forgot.decision_function(X), rest.decision_function(X), rtol=1e-10)
    folds = [np.arange(k, len(X), 3) for k in range(3)]
    engine = FoldStatistics(plain(), X, Y, folds)
    train = np.setdiff1d(np.arange(len(X)), folds[1])
    np.testing.assert_allclose(
        engine.model(1).decision_function(X), plain().fit(X[train], Y[train]).decision_function(X)
    )


# ---- NaiBX: the label stage on the known cells, the size stage on the fully known rows -----
def test_naibx_learns_each_table_from_the_cells_it_needs():
    X, Y, _ = _data(15, n=120, n_labels=4, hidden=0.25)
    alpha = 1.0
    model = NaiBX(events="multinomial", rule="predict", prior_alpha=alpha).fit(X, Y)
    known, positive = ~np.isnan(Y), np.nan_to_num(Y)
    n, n_labels = Y.shape
    # P(Y = y): each label's rate over the rows where it is known, as a count of n rows
    occurrences = positive.sum(axis=0) / known.sum(axis=0) * n
    expected = np.log((occurrences + alpha) / (occurrences.sum() + n_labels * alpha))
    np.testing.assert_allclose(model.log_label_prior_, expected, rtol=1e-12)
    # P(Y' | Y = y): co-occurrences over the rows where y' is known, scaled to y's rows
    holding = positive.sum(axis=0)
    pairs = np.zeros((n_labels, n_labels))
    for y in range(n_labels):
        for other in range(n_labels):
            rows = (positive[:, y] == 1) & known[:, other]
            if other != y and rows.any():
                pairs[y, other] = positive[rows, other].sum() / rows.sum() * holding[y]
    expected = np.log((pairs + alpha) / (pairs.sum(axis=1, keepdims=True) + (n_labels - 1) * alpha))
    off = ~np.eye(n_labels, dtype=bool)
    np.testing.assert_allclose(model.log_pair_[off], expected[off], rtol=1e-12)
    # P(M = m): the rows whose every label is known
    complete = known.all(axis=1)
    sizes = positive[complete].sum(axis=1).astype(int)
    counts = np.bincount(sizes, minlength=n_labels + 1)
    expected = np.log((counts + alpha) / (complete.sum() + (n_labels + 1) * alpha))
    np.testing.assert_allclose(model.log_size_prior_, expected, rtol=1e-12)
    # p(x | y in Y): the rows known to hold y
    holding_rows = NaiBX(events="multinomial", rule="predict").fit(X, positive)
    np.testing.assert_allclose(model.feature_stats_.sums, holding_rows.feature_stats_.sums)


def test_score_skips_unknown_cells():
    X, Y, _ = _data(18, n=60, hidden=0.3)
    model = _plain("multinomial").fit(X, Y)
    predicted = model.predict(X)
    right = np.all((predicted == Y) | np.isnan(Y), axis=1)
    assert model.score(X, Y) == pytest.approx(right.mean())
    masked = np.ma.masked_array(np.nan_to_num(Y), mask=np.isnan(Y))
    assert model.score(X, masked) == pytest.approx(right.mean())
    weights = np.arange(1.0, len(X) + 1)
    assert model.score(X, Y, sample_weight=weights) == pytest.approx(
        np.average(right, weights=weights)
    )
    known = np.nan_to_num(Y)  # (every cell known: scikit-learn's subset accuracy)
    assert model.score(X, known) == pytest.approx(np.all(predicted == known, axis=1).mean())
