"""Tests of mlnb.evaluation.cross_validate with scikit-learn estimators."""

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.model_selection import KFold, cross_val_predict, cross_val_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.multioutput import MultiOutputClassifier
from sklearn.naive_bayes import BernoulliNB, GaussianNB

from mlnb import metrics as M
from mlnb.evaluation import CVResult, cross_validate


@pytest.fixture(scope="module")
def single_label():
    return make_classification(
        n_samples=120, n_features=6, n_informative=4, n_classes=3, random_state=0
    )


def test_default_multilabel_run(multilabel):
    X, Y = multilabel
    result = cross_validate(OneVsRestClassifier(GaussianNB()), X, Y, random_state=0)
    assert isinstance(result, CVResult)
    assert result.n_folds == 10
    assert list(result.scores) == list(M.METRIC_SETS["dynamic_chains"])
    assert all(v.shape == (10,) for v in result.scores.values())
    assert np.all(result.train_time > 0) and np.all(result.test_time > 0)
    # The folds partition the rows; train and test are disjoint.
    tests = np.concatenate(result.test_indices)
    np.testing.assert_array_equal(np.sort(tests), np.arange(len(X)))
    for train, test in zip(result.train_indices, result.test_indices, strict=True):
        assert np.intersect1d(train, test).size == 0
        assert train.size + test.size == len(X)


def test_fold_scores_are_the_metrics_of_a_refitted_clone(multilabel):
    X, Y = multilabel
    estimator = MultiOutputClassifier(GaussianNB())
    result = cross_validate(
        estimator, X, Y, cv=4, metrics=["dynamic_chains", "accuracy"], random_state=3
    )
    for i in (0, 3):
        train, test = result.train_indices[i], result.test_indices[i]
        Y_pred = clone(estimator).fit(X[train], Y[train]).predict(X[test])
        assert result.scores["hamming"][i] == pytest.approx(M.hamming_loss(Y[test], Y_pred))
        assert result.scores["accuracy"][i] == pytest.approx(M.jaccard_score(Y[test], Y_pred))
        assert result.scores["macro_f1_loss"][i] == pytest.approx(
            1 - M.f1_score(Y[test], Y_pred, average="macro")
        )


def test_same_seed_same_result_other_seed_other_folds(multilabel):
    X, Y = multilabel
    est = OneVsRestClassifier(GaussianNB())
    a = cross_validate(est, X, Y, cv=5, random_state=7)
    b = cross_validate(est, X, Y, cv=5, random_state=7)
    c = cross_validate(est, X, Y, cv=5, random_state=8)
    for name in a.scores:
        np.testing.assert_array_equal(a.scores[name], b.scores[name])
    for ta, tb in zip(a.test_indices, b.test_indices, strict=True):
        np.testing.assert_array_equal(ta, tb)
    assert any(
        not np.array_equal(ta, tc) for ta, tc in zip(a.test_indices, c.test_indices, strict=True)
    )


def test_holdout_split(multilabel):
    X, Y = multilabel
    result = cross_validate(
        OneVsRestClassifier(GaussianNB()), X, Y, cv=0.66, metrics="naibx", random_state=0
    )
    assert result.n_folds == 1
    assert result.train_indices[0].size == 99 and result.test_indices[0].size == 51
    assert list(result.scores) == [
        "zero_one",
        "hamming",
        "accuracy",
        "example_precision",
        "example_recall",
    ]
    assert np.isnan(result.std()["hamming"])
    assert result.mean()["hamming"] == result.scores["hamming"][0]


def test_single_label_matches_scikit_learn(single_label):
    X, y = single_label
    result = cross_validate(GaussianNB(), X, y, cv=5, random_state=0, return_predictions=True)
    assert list(result.scores) == list(M.METRIC_SETS["single_label"])
    splitter = KFold(n_splits=5, shuffle=True, random_state=0)
    expected = cross_val_score(GaussianNB(), X, y, cv=splitter, scoring="accuracy")
    np.testing.assert_allclose(result.scores["sl_accuracy"], expected)
    expected_f1 = cross_val_score(GaussianNB(), X, y, cv=splitter, scoring="f1_macro")
    np.testing.assert_allclose(result.scores["sl_macro_f1"], expected_f1)
    # Out-of-fold predictions put back in row order equal scikit-learn's.
    oof = np.empty_like(y)
    for test, pred in zip(result.test_indices, result.predictions, strict=True):
        oof[test] = pred
    np.testing.assert_array_equal(oof, cross_val_predict(GaussianNB(), X, y, cv=splitter))


def test_sparse_and_dense_inputs_give_the_same_scores(multilabel):
    X, Y = multilabel
    Xb = (X > 2).astype(float)
    est = OneVsRestClassifier(BernoulliNB())
    dense = cross_validate(est, Xb, Y, cv=3, random_state=1)
    sparse = cross_validate(est, sp.csr_matrix(Xb), sp.csr_matrix(Y), cv=3, random_state=1)
    for name in dense.scores:
        np.testing.assert_allclose(dense.scores[name], sparse.scores[name])


def _label_deviation(result, Y):
    """Largest deviation of a fold's label frequencies from the whole data's."""
    overall = Y.mean(axis=0)
    return max(np.abs(Y[test].mean(axis=0) - overall).max() for test in result.test_indices)


def test_iterative_stratification_balances_labels_and_is_deterministic():
    rng = np.random.default_rng(0)
    n = 400
    # Rare labels make plain k-fold uneven.
    Y = (rng.random((n, 8)) < np.array([0.02, 0.03, 0.05, 0.05, 0.1, 0.2, 0.3, 0.5])).astype(int)
    X = rng.normal(size=(n, 3))
    est = OneVsRestClassifier(GaussianNB())
    plain = [cross_validate(est, X, Y, cv=5, metrics="hamming", random_state=s) for s in range(3)]
    strat = [
        cross_validate(est, X, Y, cv=5, metrics="hamming", random_state=s, stratify="iterative")
        for s in range(3)
    ]
    assert max(_label_deviation(r, Y) for r in strat) < min(_label_deviation(r, Y) for r in plain)
    again = cross_validate(est, X, Y, cv=5, metrics="hamming", random_state=0, stratify="iterative")
    for ta, tb in zip(strat[0].test_indices, again.test_indices, strict=True):
        np.testing.assert_array_equal(ta, tb)
    # Holdout with iterative stratification; sparse labels are accepted.
    hold = cross_validate(
        est, X, sp.csr_matrix(Y), cv=0.66, metrics="hamming", random_state=0, stratify="iterative"
    )
    assert hold.n_folds == 1 and abs(hold.test_indices[0].size - 136) <= 2


def test_stratified_single_label(single_label):
    X, y = single_label
    result = cross_validate(GaussianNB(), X, y, cv=4, stratify="iterative", random_state=0)
    totals = np.bincount(y)
    for test in result.test_indices:
        assert np.all(np.abs(np.bincount(y[test], minlength=3) - totals / 4) <= 1)


def test_user_splitter_and_parallel_folds(single_label):
    X, y = single_label
    serial = cross_validate(GaussianNB(), X, y, cv=KFold(3), metrics="sl_accuracy")
    np.testing.assert_array_equal(serial.test_indices[0], np.arange(40))
    with joblib.parallel_config(backend="threading"):  # no process start-up in a unit test
        parallel = cross_validate(GaussianNB(), X, y, cv=KFold(3), metrics="sl_accuracy", n_jobs=2)
    np.testing.assert_array_equal(serial.scores["sl_accuracy"], parallel.scores["sl_accuracy"])


def test_tables_and_frame(single_label):
    X, y = single_label
    result = cross_validate(GaussianNB(), X, y, cv=3, random_state=0)
    md = result.to_table()
    assert "| sl_macro_f1" in md and "train_time" in md
    assert r"\begin{tabular}" in result.to_table(fmt="latex")
    per_fold = result.to_table(fmt="csv", per_fold=True).splitlines()
    assert per_fold[0].startswith("fold,sl_accuracy") and len(per_fold) == 4
    frame = result.to_frame()
    assert frame.shape == (3, 6)
    np.testing.assert_allclose(frame["sl_accuracy"], result.scores["sl_accuracy"])
    assert result.std()["sl_accuracy"] == pytest.approx(np.std(frame["sl_accuracy"], ddof=1))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"cv": 1}, ValueError, "cv must be at least 2"),
        ({"cv": 1.5}, ValueError, "train fraction"),
        ({"cv": "ten"}, ValueError, "cv must be an int"),
        ({"cv": True}, ValueError, "cv must be an int"),
        ({"stratify": "label"}, ValueError, "stratify must be"),
        ({"metrics": "sl_accuracy"}, ValueError, "do not score multilabel"),
        ({"metrics": "bogus"}, ValueError, "unknown name 'bogus'"),
    ],
)
def test_bad_arguments(multilabel, kwargs, error, match):
    X, Y = multilabel
    with pytest.raises(error, match=match):
        cross_validate(OneVsRestClassifier(GaussianNB()), X, Y, **kwargs)


def test_bad_inputs(multilabel):
    X, Y = multilabel
    with pytest.raises(ValueError, match="same number of rows"):
        cross_validate(GaussianNB(), X, Y[:-1])
    with pytest.raises(TypeError, match="fit and predict"):
        cross_validate(object(), X, Y)


def test_the_choices_of_a_tuning_estimator_are_kept_per_fold(multilabel):
    from mlnb import BinaryRelevance, ClassifierChain, TunedThresholdsCV

    X, Y = multilabel
    # explicit settings choose nothing: no choices
    plain = cross_validate(
        BinaryRelevance(events="multinomial", rule="predict"), X, Y, cv=3, random_state=0
    )
    assert plain.choices is None
    # a rule left to the estimator ("tuned", the default) is chosen on each training part
    searching = BinaryRelevance(events="multinomial")
    result = cross_validate(searching, X, Y, cv=3, random_state=0)
    assert len(result.choices) == 3
    for train, choice in zip(result.train_indices, result.choices, strict=True):
        chosen = clone(searching).fit(X[train], Y[train]).chosen_
        assert choice == f"rule {chosen['rule']}, events={chosen['events']!r}"
    # a chain's label terms are said too
    chain = cross_validate(ClassifierChain(events="multinomial"), X, Y, cv=3, random_state=0)
    for train, choice in zip(chain.train_indices, chain.choices, strict=True):
        terms = clone(ClassifierChain(events="multinomial")).fit(X[train], Y[train]).label_terms_
        assert choice.endswith(
            f"label_prior={terms['label_prior']!r}, label_alpha={terms['label_alpha']!r}"
        )
    tuned = TunedThresholdsCV(BinaryRelevance(), param_grid="auto", cv=3)
    result = cross_validate(tuned, X, Y, cv=3, random_state=0)
    assert len(result.choices) == 3
    for train, choice in zip(result.train_indices, result.choices, strict=True):
        fitted = clone(tuned).fit(X[train], Y[train])
        expected = [f"rule {fitted.best_strategy_}"]
        if fitted.best_strategy_ == "predict":
            expected = ["its own predict"]
        # the own predict comes with an event model too (the plainest the inner estimator,
        # at events="tuned", would try)
        expected += [f"{k}={v!r}" for k, v in sorted(fitted.best_params_.items())]
        assert choice == ", ".join(expected)


def test_label_lists_and_a_dataframe_cross_validate_as_their_0_1_matrix():
    """Tags are encoded once, before the folds, so every fold has the same columns."""
    import numpy as np
    import pandas as pd

    from mlnb import BinaryRelevance
    from mlnb.evaluation import cross_validate

    rng = np.random.default_rng(0)
    Y = (rng.random((90, 3)) < 0.4).astype(int)
    X = rng.poisson(1.0 + 3 * np.repeat(Y, 3, axis=1))
    names = np.array(["art", "bio", "cs"])
    tags = [list(names[row == 1]) for row in Y]
    frame = pd.DataFrame(Y, columns=names)
    model = BinaryRelevance(events="multinomial", rule="predict")
    expected = cross_validate(model, X, Y, cv=3, random_state=0).scores
    for form in (tags, frame):
        got = cross_validate(model, X, form, cv=3, random_state=0).scores
        for name, values in expected.items():
            np.testing.assert_array_equal(got[name], values, err_msg=name)
