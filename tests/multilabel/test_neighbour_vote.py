"""ML-kNN, BR-kNN and IBLR-ML against references written here from the papers' definitions.

ML-kNN (Zhang and Zhou 2007): priors, leave-one-out count tables and posteriors, row by row
and label by label in plain Python. BR-kNN (Spyromitros, Tsoumakas and Vlahavas 2008): the
neighbours' shares and the extensions -a and -b. IBLR-ML (Cheng and Hüllermeier 2009): a
scikit-learn logistic regression per label on the reference neighbours' shares. Neighbours
by exact distance, ties to the lowest index: inputs on a small integer grid make ties common.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mlnb import IBLRML, BRkNN, MLkNN, _compiled
from mlnb.multilabel._neighbour_lists import nearest_rows, nearest_rows_by_group
from mlnb.multilabel.neighbour_vote import NEIGHBOURS, SMOOTHING, fold_of_rows


def _folds(fold):
    """(train, test) rows of each of the folds numbered in ``fold``."""
    return [(np.flatnonzero(fold != g), np.flatnonzero(fold == g)) for g in range(fold.max() + 1)]


def test_the_folds_are_a_random_third_each():
    fold = fold_of_rows(1000, 0)
    assert np.bincount(fold).tolist() == [334, 333, 333]
    assert not np.array_equal(fold, fold_of_rows(1000, 1))  # drawn, not fixed
    assert 0.2 < np.mean(fold[:500] == 0) < 0.45  # not in blocks


def reference_neighbours(x, points, k, skip=None):
    """The k nearest points of x by (squared distance, index), leaving out index ``skip``."""
    distances = [float(((x - p) ** 2).sum()) for p in points]
    ranked = sorted((d, i) for i, d in enumerate(distances) if i != skip)
    return [i for _, i in ranked[:k]]


def reference_mlknn(X, Y, X_test, k, s, leave_one_out=False):
    """P(H1 | C) of every test row and label, from Zhang and Zhou's equations
    (``leave_one_out``: X_test is X, each row's neighbours the other rows)."""
    n, L = Y.shape
    counts = np.array([Y[reference_neighbours(X[i], X, k, skip=i)].sum(axis=0) for i in range(n)])
    probabilities = np.zeros((len(X_test), L))
    for label in range(L):
        prior_1 = (s + Y[:, label].sum()) / (2 * s + n)
        c1 = [
            sum(1 for i in range(n) if Y[i, label] == 1 and counts[i, label] == j)
            for j in range(k + 1)
        ]
        c0 = [
            sum(1 for i in range(n) if Y[i, label] == 0 and counts[i, label] == j)
            for j in range(k + 1)
        ]
        for t, x in enumerate(X_test):
            j = Y[reference_neighbours(x, X, k, skip=t if leave_one_out else None), label].sum()
            like_1 = (s + c1[j]) / (s * (k + 1) + sum(c1))
            like_0 = (s + c0[j]) / (s * (k + 1) + sum(c0))
            one, zero = prior_1 * like_1, (1 - prior_1) * like_0
            probabilities[t, label] = one / (one + zero)
    return probabilities


@st.composite
def problems(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, d, L = draw(st.integers(3, 30)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    X = rng.integers(0, 3, size=(n, d)).astype(float)
    Y = (rng.random((n, L)) < 0.4).astype(int)
    X_test = rng.integers(0, 3, size=(draw(st.integers(1, 8)), d)).astype(float)
    k = draw(st.integers(1, n - 1))
    return X, Y, X_test, k


@settings(max_examples=60, deadline=None)
@given(problems(), st.sampled_from([0.5, 1.0, 3.0]), st.booleans())
def test_mlknn_equals_the_papers_equations(problem, s, sparse):
    X, Y, X_test, k = problem
    expected = reference_mlknn(X, Y, X_test, k, s)
    fit_X, test_X = (sp.csr_matrix(X), sp.csr_matrix(X_test)) if sparse else (X, X_test)
    model = MLkNN(n_neighbors=k, smoothing=s, scale=False).fit(fit_X, Y)
    np.testing.assert_allclose(model.predict_proba(test_X), expected, rtol=0, atol=1e-12)
    clear = np.abs(expected - 0.5) > 1e-12  # at a posterior of 1/2 rounding decides
    np.testing.assert_array_equal(model.predict(test_X)[clear], (expected > 0.5)[clear])


def test_mlknn_on_emotions(shared_dataset):
    """The paper's equations on emotions' features as they are, and scaled (the default):
    the same model as plain distances on the features divided by their spread."""
    data, test = shared_dataset("emotions"), shared_dataset("emotions", split="test")
    X, Y = np.asarray(data.X, dtype=float), np.asarray(data.Y, dtype=int)
    X_test = np.asarray(test.X, dtype=float)[:40]
    expected = reference_mlknn(X, Y, X_test, 10, 1.0)
    plain = MLkNN(scale=False).fit(X, Y).predict_proba(X_test)
    np.testing.assert_allclose(plain, expected, rtol=0, atol=1e-12)
    model = MLkNN().fit(X, Y)
    np.testing.assert_allclose(model.scale_, X.std(axis=0), rtol=1e-10)
    expected = reference_mlknn(X / model.scale_, Y, X_test / model.scale_, 10, 1.0)
    np.testing.assert_allclose(model.predict_proba(X_test), expected, rtol=0, atol=1e-12)


def test_duplicates_are_each_others_neighbours_but_not_their_own():
    points = np.array([[0.0], [0.0], [5.0], [0.0]])
    assert nearest_rows(points, points, 2, leave_one_out=True).tolist() == [
        [1, 3],
        [0, 3],
        [0, 1],
        [0, 1],
    ]
    assert nearest_rows(points[:1], points, 4).tolist() == [[0, 1, 3, 2]]


def reference_brknn(X, Y, X_test, k, extension):
    """BR-kNN's labels: share of the k nearest at least 1/2, then the extension."""
    out = np.zeros((len(X_test), Y.shape[1]), dtype=int)
    for t, x in enumerate(X_test):
        nearest = reference_neighbours(x, X, k)
        counts = Y[nearest].sum(axis=0)
        labels = [int(2 * c >= k) for c in counts]
        if extension == "a" and sum(labels) == 0:
            labels[int(np.argmax(counts))] = 1
        if extension == "b":
            wanted = int(np.floor(Y[nearest].sum() / k + 0.5))
            ranked = sorted(range(len(counts)), key=lambda label: (-counts[label], label))
            labels = [int(label in ranked[:wanted]) for label in range(len(counts))]
        out[t] = labels
    return out


@settings(max_examples=60, deadline=None)
@given(problems(), st.sampled_from([None, "a", "b"]), st.booleans())
def test_brknn_equals_its_definition(problem, extension, sparse):
    X, Y, X_test, k = problem
    fit_X, test_X = (sp.csr_matrix(X), sp.csr_matrix(X_test)) if sparse else (X, X_test)
    model = BRkNN(n_neighbors=k, extension=extension, scale=False).fit(fit_X, Y)
    np.testing.assert_array_equal(
        model.predict(test_X), reference_brknn(X, Y, X_test, k, extension)
    )
    shares = np.array([Y[reference_neighbours(x, X, k)].mean(axis=0) for x in X_test])
    np.testing.assert_allclose(model.predict_proba(test_X), shares, rtol=0, atol=1e-15)


@pytest.mark.parametrize("cls, most", [(MLkNN, 4), (BRkNN, 5)])
def test_too_many_neighbours_is_a_clear_error(cls, most):
    X, Y = np.arange(10.0).reshape(5, 2), np.eye(5, 2, dtype=int)
    with pytest.raises(ValueError, match=f"n_neighbors must be between 1 and {most} for 5"):
        cls(n_neighbors=most + 1).fit(X, Y)
    cls(n_neighbors=most).fit(X, Y)


@pytest.mark.parametrize("cls", [MLkNN, BRkNN])
def test_auto_on_too_few_rows_for_three_folds_is_a_clear_error(cls):
    X, Y = np.arange(4.0).reshape(2, 2), np.eye(2, dtype=int)
    with pytest.raises(ValueError, match=r'\("auto"\) needs at least 3 training rows; got 2'):
        cls(n_neighbors="auto").fit(X, Y)
    cls(n_neighbors="auto").fit(np.vstack([X, X[:1]]), np.vstack([Y, Y[:1]]))


@pytest.mark.parametrize("cls", [MLkNN, BRkNN, IBLRML])
def test_values_whose_squared_distances_overflow_are_a_clear_error(cls):
    """Infinite distances would tie, and a row could be among its own neighbours."""
    X, Y = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]]), np.eye(5, 2, dtype=int)
    with pytest.raises(ValueError, match="squared distances overflow float64"):
        cls(n_neighbors=2, scale=False).fit(X * 1e200, Y)
    model = cls(n_neighbors=2, scale=False).fit(X, Y)
    with pytest.raises(ValueError, match="squared distances overflow float64"):
        model.predict(np.array([[1e200]]))


def _adversarial_distances(kind, n):
    """Rows whose k nearest defeat a sampled cut: crowded into fold 0 of ``np.arange(n) %
    3`` (every other fold's list then reaches past the first prefix), all equal, or
    growing or shrinking with the column index."""
    rng = np.random.default_rng(0)
    if kind == "crowded":
        return rng.random((n, n)) + 10.0 * (np.arange(n) % 3 != 0)
    if kind == "equal":
        return np.full((n, n), 5.0)
    ramp = np.arange(n, dtype=float) if kind == "growing" else np.arange(n, 0.0, -1)
    return np.tile(ramp, (n, 1))


@pytest.mark.parametrize("kind", ["crowded", "equal", "growing", "shrinking"])
@pytest.mark.parametrize("k", [1, 20, 64])
def test_the_compiled_lists_equal_the_reference_where_a_sampled_cut_fails(kind, k):
    from mlnb.multilabel._neighbour_lists import _block_lists

    n = 300
    groups = np.arange(n) % 3
    outputs = []
    for compiled in (False, True):
        with _compiled.using(compiled):
            outputs.append(
                (
                    _block_lists(_adversarial_distances(kind, n), 0, groups, k, True),
                    _block_lists(_adversarial_distances(kind, n), 0, None, k, False),
                )
            )
    for reference, compiled in zip(*outputs, strict=True):
        np.testing.assert_array_equal(compiled, reference)


def test_the_lists_kernel_refuses_a_k_beyond_its_columns():
    from mlnb.multilabel._neighbour_lists import _block_lists_kernel

    if not _compiled.enabled():
        pytest.skip("the compiled kernels are off")
    with pytest.raises(ValueError, match="k exceeds the columns"):
        _block_lists_kernel(np.array([[0.0, 1.0, 2.0]]), 0, np.full(3, -1), 0, 5, False)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_auto_chooses_as_refitting_every_setting_on_every_fold(seed, sparse):
    """k and s chosen from one pass of distances equal the choice made by fitting every
    (k, s) on every fold's training rows and scoring Hamming loss on its test rows."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 70))
    X = rng.integers(0, 3, size=(n, 3)).astype(float)
    Y = (rng.random((n, 3)) < 0.4).astype(int)
    fit_X = sp.csr_matrix(X) if sparse else X
    model = MLkNN(n_neighbors="auto", smoothing="auto", scale=False, random_state=seed % 1000)
    model.fit(fit_X, Y)
    folds = _folds(fold_of_rows(n, seed % 1000))
    best, chosen = -np.inf, None
    for k in NEIGHBOURS:
        for s in SMOOTHING:
            score = 0.0
            for train, test in folds:
                fold_model = MLkNN(n_neighbors=k, smoothing=s, scale=False).fit(X[train], Y[train])
                score -= np.mean(fold_model.predict(X[test]) != Y[test])
            if score > best:
                best, chosen = score, (k, s)
    assert (model.n_neighbors_, model.smoothing_) == chosen
    refit = MLkNN(n_neighbors=chosen[0], smoothing=chosen[1], scale=False).fit(X, Y)
    np.testing.assert_array_equal(model.predict_proba(fit_X), refit.predict_proba(X))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 4), st.booleans())
def test_compiled_neighbour_lists_equal_the_numpy_reference(seed, n_groups, sparse):
    """Integer-grid rows (many equal distances): the lists of every fold and of all. Up
    to 200 rows and mostly small k, so that the kernel's sampled cut (which needs more
    than 64 columns and a k small beside them) and its retry without the cut both run;
    the folds either interleaved or in blocks (a row's nearest then crowd into one)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(n_groups + 3, 200))
    X = rng.integers(0, 3 + int(rng.integers(0, 20)), size=(n, 2)).astype(float)
    X = sp.csr_matrix(X) if sparse else X
    groups = np.arange(n) % n_groups
    if rng.random() < 0.5:
        groups = np.sort(groups)
    most = n - 1 - int(np.bincount(groups).max())
    k = int(rng.integers(1, min(most, 25 if rng.random() < 0.8 else most) + 1))
    outputs = []
    for compiled in (False, True):
        with _compiled.using(compiled):
            outputs.append(
                (
                    nearest_rows_by_group(X, groups, k, budget=7 * n),
                    nearest_rows(X[:5], X, k),
                    nearest_rows(X, X, k, leave_one_out=True, budget=3 * n),
                )
            )
    for reference, compiled in zip(*outputs, strict=True):
        np.testing.assert_array_equal(compiled, reference)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, "a", "b"]))
def test_brknn_auto_chooses_as_refitting_every_k_on_every_fold(seed, extension):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 70))
    X = rng.integers(0, 3, size=(n, 3)).astype(float)
    Y = (rng.random((n, 4)) < 0.4).astype(int)
    model = BRkNN(n_neighbors="auto", extension=extension, scale=False, random_state=seed % 1000)
    model.fit(X, Y)
    folds = _folds(fold_of_rows(n, seed % 1000))
    scores = [
        -sum(
            np.mean(
                BRkNN(n_neighbors=k, extension=extension, scale=False)
                .fit(X[train], Y[train])
                .predict(X[test])
                != Y[test]
            )
            for train, test in folds
        )
        for k in NEIGHBOURS
    ]
    assert model.n_neighbors_ == NEIGHBOURS[int(np.argmax(scores))]


def same_rule(fitted, expected, scores):
    """The rules learnt the same and decide ``scores`` alike."""
    learnt = {name: value for name, value in vars(expected).items() if name.endswith("_")}
    for name, value in learnt.items():
        np.testing.assert_array_equal(getattr(fitted, name), value)
    np.testing.assert_array_equal(fitted.predict(scores), expected.predict(scores))


@settings(max_examples=30, deadline=None)
@given(problems(), st.sampled_from(["scut", "pcut", "rcut", "mcut"]))
def test_rules_are_fitted_to_the_leave_one_out_scores(problem, rule):
    """Each training row scored from its k nearest other rows (the reference's lists), by
    the model's own parameters (which the tests above check against the papers)."""
    from mlnb.decision_rules import make_rule
    from mlnb.multilabel._knn_members import share_log_odds

    X, Y, X_test, k = problem
    votes = np.array(
        [Y[reference_neighbours(X[i], X, k, skip=i)].sum(axis=0) for i in range(len(X))]
    )
    model = MLkNN(n_neighbors=k, scale=False, rule=rule).fit(X, Y)
    labels = np.arange(Y.shape[1])
    loo_odds = model.log_prior_odds_ + model.log_likelihood_ratio_[labels, votes]
    scores = model.decision_function(X_test)
    same_rule(model.rule_, make_rule(rule).fit(loo_odds, Y), scores)
    np.testing.assert_array_equal(model.predict(X_test), model.rule_.predict(scores))
    # BR-kNN likewise, on the log odds of the confidences
    model = BRkNN(n_neighbors=k, scale=False, rule=rule).fit(X, Y)
    expected = make_rule(rule).fit(share_log_odds(votes / k, k), Y)
    scores = model.decision_function(X_test)
    same_rule(model.rule_, expected, scores)
    np.testing.assert_array_equal(model.predict(X_test), model.rule_.predict(scores))


def test_a_rule_beats_the_papers_cut_on_emotions_and_excludes_an_extension(shared_dataset):
    from mlnb.metrics import f1_score

    train, test = shared_dataset("emotions"), shared_dataset("emotions", split="test")
    for cls in (MLkNN, BRkNN):
        plain = cls().fit(train.X, train.Y).predict(test.X)
        ruled = cls(rule="pcut").fit(train.X, train.Y).predict(test.X)
        assert f1_score(test.Y, ruled, average="micro") > f1_score(test.Y, plain, average="micro")
    with pytest.raises(ValueError, match="extension='a' and rule='scut' both decide"):
        BRkNN(extension="a", rule="scut").fit(train.X, train.Y)


def reference_iblr(X, Y, X_test, k, C):
    """IBLR-ML's log-odds (Cheng and Hüllermeier 2009): per label, a logistic regression on
    the training rows' leave-one-out label shares, applied to the test rows' shares."""
    from sklearn.linear_model import LogisticRegression

    n = len(X)
    shares = np.array([Y[reference_neighbours(X[i], X, k, skip=i)].mean(axis=0) for i in range(n)])
    test = np.array([Y[reference_neighbours(x, X, k)].mean(axis=0) for x in X_test])
    odds = np.zeros((len(X_test), Y.shape[1]))
    for label in range(Y.shape[1]):
        positives = Y[:, label].sum()
        if positives in (0, n):
            odds[:, label] = np.log((positives + 0.5) / (n - positives + 0.5))
            continue
        model = LogisticRegression(C=C, max_iter=1000).fit(sp.csr_matrix(shares), Y[:, label])
        odds[:, label] = model.decision_function(sp.csr_matrix(test))
    return odds


@settings(max_examples=30, deadline=None)
@given(problems(), st.sampled_from([0.3, 1.0, 20.0]), st.booleans())
def test_iblr_ml_equals_a_regression_per_label_on_the_shares(problem, C, sparse):
    X, Y, X_test, k = problem[:4]
    Y[:, 0] = 0  # a label no training row holds: its smoothed log-odds, no regression
    fit_X = sp.csr_matrix(X) if sparse else X
    model = IBLRML(n_neighbors=k, C=C, scale=False).fit(fit_X, Y)
    expected = reference_iblr(X, Y, X_test, k, C)
    np.testing.assert_allclose(model.decision_function(X_test), expected, rtol=1e-5, atol=1e-5)
    assert np.all(model.coef_[0] == 0)
    decided = np.abs(expected) > 1e-4  # away from the cut, where the solvers may differ
    np.testing.assert_array_equal(model.predict(X_test)[decided], (expected > 0)[decided])


def test_iblr_ml_learns_a_dependency_between_labels():
    """Label 1 is held exactly where label 0 is absent: label 1's model weighs label 0's
    share negatively (what binary relevance on the shares could not use)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    Y = np.column_stack([X[:, 0] > 0, X[:, 0] <= 0]).astype(int)
    model = IBLRML(n_neighbors=7).fit(X, Y)
    assert model.coef_[1, 0] < 0 < model.coef_[1, 1]
    assert np.mean(model.predict(X) == Y) > 0.9


@settings(max_examples=20, deadline=None)
@given(problems(), st.sampled_from(["scut", "pcut", "mcut"]))
def test_iblr_ml_rule_is_fitted_to_the_training_log_odds(problem, rule):
    from mlnb.decision_rules import make_rule

    X, Y, X_test, k = problem
    model = IBLRML(n_neighbors=k, scale=False, rule=rule).fit(X, Y)
    shares = np.array(
        [Y[reference_neighbours(X[i], X, k, skip=i)].mean(axis=0) for i in range(len(X))]
    )
    training = np.asarray(sp.csr_matrix(shares) @ model.coef_.T) + model.intercept_  # as fitted
    scores = model.decision_function(X_test)
    same_rule(model.rule_, make_rule(rule).fit(training, Y), scores)
    np.testing.assert_array_equal(model.predict(X_test), model.rule_.predict(scores))


def test_iblr_ml_reports_unconverged_regressions_once(monkeypatch):
    from sklearn.exceptions import ConvergenceWarning

    from mlnb.datasets import make_multilabel
    from mlnb.multilabel import neighbour_vote

    monkeypatch.setattr(neighbour_vote, "MAX_ITER", 1)
    X, Y = make_multilabel(150, 5, 3, random_state=0)
    with pytest.warns(ConvergenceWarning) as caught:
        IBLRML(n_neighbors=5, C=100.0).fit(X, Y)
    assert len(caught) == 1
    assert "labels [0, 1, 2] stopped at 1 iterations" in str(caught[0].message)


def test_iblr_ml_fits_the_labels_at_once_to_the_same_model_and_reports_progress(capfd):
    from mlnb.datasets import make_multilabel

    X, Y = make_multilabel(150, 5, 4, random_state=1)
    alone = IBLRML(n_neighbors=5).fit(X, Y)
    together = IBLRML(n_neighbors=5, n_jobs=2, verbose=1).fit(X, Y)
    np.testing.assert_array_equal(together.coef_, alone.coef_)
    np.testing.assert_array_equal(together.intercept_, alone.intercept_)
    assert capfd.readouterr().err.count("IBLRML: label ") == 4  # a line per label
