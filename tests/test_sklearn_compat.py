"""mlnb's classical classifiers as a drop-in for scikit-learn's naive_bayes module.

The same fitted attributes (value, dtype, shape), predictions, errors and warnings as
scikit-learn's GaussianNB, MultinomialNB and BernoulliNB, on digits, iris and 20 Newsgroups
counts; fitted attributes in sync after partial_fit and merge.
"""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import naive_bayes as sk
from sklearn.base import clone
from sklearn.datasets import load_digits, load_iris
from sklearn.exceptions import NotFittedError

import mlnb
from mlnb.events import Bernoulli, Multinomial
from mlnb.stats import GroupStats, one_hot

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

GAUSSIAN_ATTRIBUTES = [
    "classes_",
    "class_count_",
    "class_prior_",
    "theta_",
    "var_",
    "epsilon_",
    "n_features_in_",
]
DISCRETE_ATTRIBUTES = [
    "classes_",
    "class_count_",
    "class_log_prior_",
    "feature_count_",
    "feature_log_prob_",
    "n_features_in_",
]
ATTRIBUTES = {
    "GaussianNB": GAUSSIAN_ATTRIBUTES,
    "MultinomialNB": DISCRETE_ATTRIBUTES,
    "BernoulliNB": DISCRETE_ATTRIBUTES,
}
NAMES = list(ATTRIBUTES)


def pair(name, **params):
    """mlnb's and scikit-learn's classifier of this name with these parameters."""
    return getattr(mlnb, name)(**params), getattr(sk, name)(**params)


@pytest.fixture(scope="module")
def digits():
    return load_digits(return_X_y=True)


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


@pytest.fixture(scope="module")
def newsgroups():
    """Counts of 2,000 training documents of 20 Newsgroups (all 20 classes) and 500 others."""
    if not (DATA / "text" / "20ng_bydate").is_dir():
        pytest.skip(f"20 Newsgroups not found under {DATA}")
    from mlnb.datasets import load_text_corpus
    from mlnb.text import word_counter

    train = load_text_corpus("20ng", variant="stemmed", split="train", data_dir=DATA)
    rows = np.random.default_rng(0).permutation(len(train))
    fit_rows, new_rows = rows[:2000], rows[2000:2500]
    counter = word_counter()
    X = counter.fit_transform([train.documents[i] for i in fit_rows])
    X_new = counter.transform([train.documents[i] for i in new_rows])
    return sp.csr_matrix(X), train.labels[fit_rows], sp.csr_matrix(X_new)


def data(request, name):
    """(X, y, X_new) of a data set fixture by name."""
    if name == "20ng":
        return request.getfixturevalue("newsgroups")
    X, y = request.getfixturevalue(name)
    return X, y, X[::3]


def assert_same_attribute(ours, theirs, attribute, rtol=1e-10, atol=0.0):
    a, b = getattr(ours, attribute), getattr(theirs, attribute)
    assert type(a) is type(b), attribute
    a_array, b_array = np.asarray(a), np.asarray(b)
    assert a_array.dtype == b_array.dtype, attribute
    assert a_array.shape == b_array.shape, attribute
    if a_array.dtype.kind == "f":
        assert_allclose(a_array, b_array, rtol=rtol, atol=atol, err_msg=attribute)
    else:
        assert_array_equal(a_array, b_array, err_msg=attribute)


def assert_same_attributes(ours, theirs, attributes, rtol=1e-10, atol=0.0):
    for attribute in attributes:
        assert_same_attribute(ours, theirs, attribute, rtol, atol)


def assert_same_predictions(ours, theirs, X):
    with np.errstate(divide="ignore", invalid="ignore"):
        assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-10)
        assert_allclose(
            ours.predict_joint_log_proba(X),
            theirs.predict_joint_log_proba(X),
            rtol=1e-10,
            atol=1e-9,
        )
        assert_allclose(
            ours.predict_log_proba(X), theirs.predict_log_proba(X), rtol=1e-10, atol=1e-9
        )
        predicted, expected = ours.predict(X), theirs.predict(X)
    assert predicted.dtype == expected.dtype
    assert_array_equal(predicted, expected)


# ---------------------------------------------------------------- equality on real data
CASES = [
    ("GaussianNB", "iris", {}),
    ("GaussianNB", "iris", {"var_smoothing": 1e-2}),
    ("GaussianNB", "digits", {}),
    ("MultinomialNB", "digits", {}),
    ("MultinomialNB", "digits", {"alpha": 0.01}),
    ("MultinomialNB", "20ng", {}),
    ("MultinomialNB", "20ng", {"alpha": 0.05}),
    ("BernoulliNB", "digits", {}),
    ("BernoulliNB", "digits", {"binarize": 7.5, "alpha": 0.3}),
    ("BernoulliNB", "20ng", {"alpha": 0.1}),
]


@pytest.mark.parametrize(("name", "dataset", "params"), CASES)
def test_fit_equals_scikit_learn(request, name, dataset, params):
    X, y, X_new = data(request, dataset)
    ours, theirs = pair(name, **params)
    ours.fit(X, y)
    theirs.fit(X, y)
    assert_same_attributes(ours, theirs, ATTRIBUTES[name])
    assert_same_predictions(ours, theirs, X_new)


@pytest.mark.parametrize("name", NAMES)
def test_weighted_fit_equals_scikit_learn(digits, name):
    """Equal but for the Gaussian floor: mlnb's weights rows in it, scikit-learn's doesn't."""
    X, y = digits
    weight = np.random.default_rng(1).uniform(0.2, 3.0, len(y))
    ours, theirs = pair(name)
    ours.fit(X, y, sample_weight=weight)
    theirs.fit(X, y, sample_weight=weight)
    if name == "GaussianNB":
        assert_same_attributes(ours, theirs, ["classes_", "class_count_", "class_prior_"])
        assert_allclose(ours.theta_, theirs.theta_, rtol=1e-10, atol=1e-12)
        assert_allclose(
            ours.var_ - ours.epsilon_, theirs.var_ - theirs.epsilon_, rtol=1e-9, atol=1e-12
        )
        total = np.average((X - np.average(X, axis=0, weights=weight)) ** 2, axis=0, weights=weight)
        assert ours.epsilon_ == pytest.approx(1e-9 * total.max(), rel=1e-12)
    else:
        assert_same_attributes(ours, theirs, ATTRIBUTES[name])
        assert_same_predictions(ours, theirs, X[::3])


def test_names_of_dataframe_columns_and_object_labels(iris):
    X, y = iris
    frame = pd.DataFrame(X, columns=["sepal length", "sepal width", "petal length", "petal width"])
    labels = pd.Series(np.array(["setosa", "versicolor", "virginica"], dtype=object)[y])
    for name in NAMES:
        ours, theirs = pair(name)
        ours.fit(frame, labels)
        theirs.fit(frame, labels)
        assert_same_attributes(ours, theirs, [*ATTRIBUTES[name], "feature_names_in_"])
        assert_same_predictions(ours, theirs, frame.iloc[::5])
        with pytest.warns(UserWarning, match="does not have valid feature names"):
            ours.predict(X[:2])
        with pytest.raises(ValueError, match="feature names"):
            ours.predict(frame.iloc[:2, ::-1])
        assert not hasattr(ours.fit(X, y), "feature_names_in_")  # refit on an array


@pytest.mark.parametrize("name", NAMES)
def test_parameters_include_scikit_learn_s(name):
    ours, theirs = pair(name)
    ours_params, theirs_params = ours.get_params(), theirs.get_params()
    assert set(theirs_params) <= set(ours_params)
    for key, value in theirs_params.items():
        assert ours_params[key] == value, key
    assert set(ours_params) - set(theirs_params) == {"prior_alpha", "missing"}


# ---------------------------------------------------------------- partial_fit and merge
@pytest.mark.parametrize(
    ("name", "dataset"),
    [(name, "digits") for name in NAMES] + [("MultinomialNB", "20ng"), ("BernoulliNB", "20ng")],
)
def test_partial_fit_in_chunks_and_merge_equal_fit(request, name, dataset):
    X, y, X_new = data(request, dataset)
    classes = np.unique(y)
    whole = getattr(mlnb, name)()
    whole.fit(X, y)
    chunked, theirs_chunked = pair(name)
    parts = []
    for rows in np.array_split(np.arange(len(y)), 5):
        chunked.partial_fit(X[rows], y[rows], classes=classes)
        theirs_chunked.partial_fit(X[rows], y[rows], classes=classes)
        parts.append(clone(whole).partial_fit(X[rows], y[rows], classes=classes))
    merged = parts[0]
    for part in parts[1:]:
        merged.merge(part)
    for model in (chunked, merged):
        assert_same_attributes(model, whole, ATTRIBUTES[name], rtol=1e-9)
        assert_allclose(model.predict_proba(X_new), whole.predict_proba(X_new), atol=1e-10)
    if name == "GaussianNB":
        # scikit-learn's floor is the last chunk's variance, mlnb's that of all rows
        assert chunked.epsilon_ == pytest.approx(whole.epsilon_, rel=1e-12)
        assert_same_attribute(chunked, theirs_chunked, "theta_", rtol=1e-9)
        assert_allclose(chunked.var_, theirs_chunked.var_, rtol=0, atol=2 * chunked.epsilon_)
    else:
        assert_same_attributes(chunked, theirs_chunked, ATTRIBUTES[name], rtol=1e-9)
        assert_same_predictions(chunked, theirs_chunked, X_new)


# ---------------------------------------------------------------- classes and errors
@pytest.mark.parametrize("name", NAMES)
def test_classes_rules_of_partial_fit(digits, name):
    X, y = digits
    ours, theirs = pair(name)
    for model in (ours, clone(theirs)):
        with pytest.raises(ValueError, match="classes must be passed on the first call to partial"):
            model.partial_fit(X[:50], y[:50])
        assert not hasattr(model, "classes_")
    # scikit-learn's GaussianNB is left changed by a partial_fit that raises: its errors are
    # checked on a copy; mlnb's calls that raise leave the model as it was
    for model in (ours, theirs):
        model.partial_fit(X[:50], y[:50], classes=np.arange(12))  # 10 and 11 never seen
    for model in (ours, clone(theirs).partial_fit(X[:50], y[:50], classes=np.arange(12))):
        with pytest.raises(ValueError):
            model.partial_fit(X[50:100], y[50:100], classes=np.arange(10))
        with pytest.raises(ValueError):
            model.partial_fit(X[50:100, :10], y[50:100])
    # a label outside classes: scikit-learn's discrete classifiers ignore its rows
    with pytest.raises(ValueError, match="not in classes"):
        ours.partial_fit(X[50:100], np.full(50, 12))
    for model in (ours, theirs):
        model.partial_fit(X[50:], y[50:], classes=np.arange(12)[::-1])  # the same set
        model.partial_fit(X[50:60], y[50:60])  # classes may be omitted after the first call
    attributes = [a for a in ATTRIBUTES[name] if a not in ("var_", "epsilon_")]  # last batch's
    assert_same_attributes(ours, theirs, attributes, rtol=1e-9)
    assert_array_equal(ours.class_count_[10:], 0.0)
    if name == "GaussianNB":  # the floors differ: the last batch's variance or all rows'
        assert_allclose(ours.var_, theirs.var_, rtol=0, atol=2 * ours.epsilon_)
    else:
        assert_same_predictions(ours, theirs, X[::7])


def test_string_classes_of_partial_fit(digits):
    X, y = digits
    labels = np.array(list("abcdefghij"))[y]
    for name in NAMES:
        ours, theirs = pair(name)
        ours.partial_fit(X, labels, classes=list("jihgfedcba"))
        theirs.partial_fit(X, labels, classes=list("jihgfedcba"))
        assert_same_attribute(ours, theirs, "classes_")
        assert_array_equal(ours.predict(X[::9]), theirs.predict(X[::9]))


@pytest.mark.parametrize("name", NAMES)
def test_errors_have_scikit_learn_s_types(digits, name):
    X, y = digits
    for model in pair(name):
        for method in ("predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba"):
            with pytest.raises(NotFittedError):
                getattr(model, method)(X)
        with pytest.raises(ValueError):
            model.fit(X, y[:-1])
        model.fit(X, y)
        with pytest.raises(ValueError):
            model.predict(X[:, :-1])
        with pytest.raises(ValueError):
            model.predict_joint_log_proba(X[:, :-1])
        with pytest.raises(ValueError):
            model.partial_fit(X[:, :-1], y)


# ---------------------------------------------------------------- priors
PRIOR_CASES = [
    ("GaussianNB", {"priors": np.full(10, 0.1)}),
    ("GaussianNB", {"priors": np.r_[0.5, np.full(9, 0.5 / 9)]}),
    ("MultinomialNB", {"class_prior": np.r_[0.5, np.full(9, 0.5 / 9)]}),
    ("MultinomialNB", {"fit_prior": False}),
    ("MultinomialNB", {"fit_prior": False, "class_prior": np.r_[np.full(9, 0.1), 0.1]}),
    ("BernoulliNB", {"class_prior": np.r_[0.5, np.full(9, 0.5 / 9)]}),
    ("BernoulliNB", {"fit_prior": False}),
]


@pytest.mark.parametrize(("name", "params"), PRIOR_CASES)
def test_given_and_uniform_priors_equal_scikit_learn(digits, name, params):
    X, y = digits
    ours, theirs = pair(name, **params)
    ours.fit(X, y)
    theirs.fit(X, y)
    assert_same_attributes(ours, theirs, ATTRIBUTES[name])
    assert_same_predictions(ours, theirs, X[::3])
    chunked = clone(ours)
    for rows in np.array_split(np.arange(len(y)), 3):
        chunked.partial_fit(X[rows], y[rows], classes=np.arange(10))
    attributes = [a for a in ATTRIBUTES[name] if a not in ("var_", "epsilon_")]
    assert_same_attributes(chunked, theirs, attributes, rtol=1e-9)


@pytest.mark.parametrize(
    ("name", "params"),
    [("GaussianNB", {"priors": [0.5, 0.5]}), ("MultinomialNB", {"class_prior": [0.5, 0.5]})],
)
def test_prior_of_the_wrong_length_raises_value_error(digits, name, params):
    X, y = digits
    for model in pair(name, **params):
        with pytest.raises(ValueError):
            model.fit(X, y)


# ---------------------------------------------------------------- force_alpha and array alpha
@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB"])
@pytest.mark.parametrize("force_alpha", [True, False])
@pytest.mark.parametrize("alpha", [0.0, 1e-12, 1e-10, 0.5])
def test_force_alpha_equals_scikit_learn(digits, name, force_alpha, alpha):
    X, y = digits
    X = sp.csr_matrix(X[:300])  # sparse: unseen features add -inf, not nan, when alpha = 0
    y = y[:300]
    ours, theirs = pair(name, alpha=alpha, force_alpha=force_alpha)
    caught = {}
    for model in (ours, theirs):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            with np.errstate(divide="ignore", invalid="ignore"):
                model.fit(X, y)
        caught[model] = [w for w in record if "alpha too small" in str(w.message)]
    floors = not force_alpha and alpha < 1e-10
    assert len(caught[ours]) == len(caught[theirs]) == int(floors)
    if floors:
        assert caught[ours][0].category is caught[theirs][0].category
    # log p near 0 (tiny alpha, p near 1) differs in its last bits: an absolute tolerance
    with np.errstate(divide="ignore"):
        assert_same_attributes(ours, theirs, DISCRETE_ATTRIBUTES, atol=1e-15)
        assert np.isneginf(ours.feature_log_prob_).any() == (alpha == 0 and force_alpha)
    smoothed = alpha if force_alpha else max(alpha, 1e-10)
    if name == "BernoulliNB" and 0 < smoothed < 1e-6:
        # scikit-learn's log(1 - exp(log p)) cancels for p near 1 (tiny alpha): compare with
        # its formula on the exact log(1 - p), and with scikit-learn itself loosely
        with np.errstate(divide="ignore"):
            log_p = theirs.feature_log_prob_
            count, n = theirs.feature_count_, theirs.class_count_[:, None]
            log_q = np.log(n - count + smoothed) - np.log(n + 2 * smoothed)
        expected = (X > 0) @ (log_p - log_q).T + theirs.class_log_prior_ + log_q.sum(axis=1)
        assert_allclose(ours.predict_joint_log_proba(X), expected, rtol=1e-10)
        joint = theirs.predict_joint_log_proba(X)
        assert_allclose(ours.predict_joint_log_proba(X), joint, rtol=1e-3)
    else:
        assert_same_predictions(ours, theirs, X[::4])


def test_small_alpha_warns_on_every_partial_fit_as_scikit_learn(digits):
    X, y = digits
    for model in pair("MultinomialNB", alpha=0.0, force_alpha=False):
        for rows in np.array_split(np.arange(len(y)), 2):
            with pytest.warns(UserWarning, match="alpha too small"):
                model.partial_fit(X[rows], y[rows], classes=np.arange(10))


@pytest.mark.parametrize("dataset", ["digits", "20ng"])
def test_multinomial_array_alpha_equals_scikit_learn(request, dataset):
    X, y, X_new = data(request, dataset)
    alpha = np.random.default_rng(2).uniform(0.01, 2.0, X.shape[1])
    ours, theirs = pair("MultinomialNB", alpha=alpha)
    ours.fit(X, y)
    theirs.fit(X, y)
    assert_same_attributes(ours, theirs, DISCRETE_ATTRIBUTES)
    assert_same_predictions(ours, theirs, X_new)
    chunked = clone(ours)
    for rows in np.array_split(np.arange(len(y)), 3):
        chunked.partial_fit(X[rows], y[rows], classes=np.unique(y))
    assert_same_attributes(chunked, theirs, DISCRETE_ATTRIBUTES, rtol=1e-9)


def test_multinomial_array_alpha_with_zeros_equals_scikit_learn(digits):
    X, y = digits
    alpha = np.where(np.arange(X.shape[1]) % 3 == 0, 0.0, 0.5)
    for force_alpha in (True, False):
        ours, theirs = pair("MultinomialNB", alpha=alpha, force_alpha=force_alpha)
        for model in (ours, theirs):
            with warnings.catch_warnings(record=True) as record:
                warnings.simplefilter("always")
                with np.errstate(divide="ignore"):
                    model.fit(sp.csr_matrix(X), y)
            assert any("alpha too small" in str(w.message) for w in record) != force_alpha
        assert_same_attributes(ours, theirs, DISCRETE_ATTRIBUTES)
        assert_same_predictions(ours, theirs, sp.csr_matrix(X[::4]))


@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB"])
@pytest.mark.parametrize("alpha", [np.ones(63), np.ones((2, 64)), np.r_[-1.0, np.ones(63)]])
def test_bad_array_alpha_raises_value_error(digits, name, alpha):
    X, y = digits
    with pytest.raises(ValueError, match="alpha"):
        getattr(mlnb, name)(alpha=alpha).fit(X, y)
    if name == "MultinomialNB" and alpha.ndim == 1:
        with pytest.raises(ValueError, match="alpha"):
            sk.MultinomialNB(alpha=alpha).fit(X, y)


def test_bernoulli_array_alpha_smooths_each_feature_with_its_own(digits):
    """``p_cv = (m_cv + alpha_v) / (l_c + 2 alpha_v)``; scikit-learn 1.9 cannot broadcast it."""
    X, y = digits
    alpha = np.random.default_rng(3).uniform(0.01, 2.0, X.shape[1])
    model = mlnb.BernoulliNB(alpha=alpha, binarize=4.0).fit(X, y)
    present = (X > 4.0).astype(float)
    count = np.stack([present[y == c].sum(axis=0) for c in range(10)])
    n = np.bincount(y).astype(float)[:, None]
    assert_allclose(model.feature_count_, count)
    assert_allclose(model.feature_log_prob_, np.log((count + alpha) / (n + 2 * alpha)), rtol=1e-12)
    log_p, log_q = (
        np.log((count + alpha) / (n + 2 * alpha)),
        np.log((n - count + alpha) / (n + 2 * alpha)),
    )
    expected = present @ log_p.T + (1 - present) @ log_q.T + model.class_log_prior_
    assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-10)
    # one alpha for all features equals the scalar, hence scikit-learn's
    same = mlnb.BernoulliNB(alpha=np.full(X.shape[1], 0.3)).fit(X, y)
    assert_same_predictions(same, sk.BernoulliNB(alpha=0.3).fit(X, y), X[::3])


def test_event_models_floor_silently_by_default(digits):
    """Multi-label estimators' event models keep their results: alpha floored, no warning."""
    X, y = digits
    for model in (Multinomial, Bernoulli):
        prepared = model().prepare(X.astype(float))
        stats = GroupStats.from_data(prepared, one_hot(y, 10), second_moments=False)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            floored = model(alpha=0.0).estimate(stats)
        smallest = model(alpha=1e-10).estimate(stats)
        with np.errstate(divide="ignore", invalid="ignore"):
            forced = model(alpha=0.0, force_alpha=True).estimate(stats)
        fields = list(vars(floored))
        for field in fields:
            assert_array_equal(getattr(floored, field), getattr(smallest, field))
        assert any(not np.array_equal(getattr(forced, f), getattr(floored, f)) for f in fields)


# ---- ComplementNB and CategoricalNB ---------------------------------------------------------
@pytest.mark.parametrize("norm", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_complement_nb_equals_scikit_learn(norm, sparse):
    from sklearn.naive_bayes import ComplementNB as Theirs

    rng = np.random.default_rng(3)
    X, y = rng.poisson(1.0, (150, 12)).astype(float), rng.integers(0, 3, 150)
    data = sp.csr_matrix(X) if sparse else X
    ours, theirs = mlnb.ComplementNB(norm=norm).fit(data, y), Theirs(norm=norm).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(data), theirs.predict_proba(X), atol=1e-10)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(data), theirs.predict_joint_log_proba(X), atol=1e-10
    )
    for name in ("feature_log_prob_", "feature_count_", "feature_all_", "class_count_"):
        np.testing.assert_allclose(getattr(ours, name), getattr(theirs, name), atol=1e-10)


@pytest.mark.parametrize("sparse", [False, True])
def test_categorical_nb_equals_scikit_learn(sparse):
    from sklearn.naive_bayes import CategoricalNB as Theirs

    rng = np.random.default_rng(4)
    X = np.column_stack([rng.integers(0, k, 200) for k in (2, 3, 5, 4)])
    y = rng.integers(0, 3, 200)
    data = sp.csr_matrix(X) if sparse else X
    ours = mlnb.CategoricalNB(alpha=0.5, min_categories=6).fit(data, y)
    theirs = Theirs(alpha=0.5, min_categories=6).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(data), theirs.predict_proba(X), atol=1e-10)
    np.testing.assert_array_equal(ours.n_categories_, theirs.n_categories_)


@pytest.mark.parametrize(
    "model,grid,categorical",
    [
        (mlnb.ComplementNB(), {"alpha": [0.1, 0.5, 1.0], "norm": [False, True]}, False),
        (mlnb.CategoricalNB(), {"alpha": [0.1, 0.5, 1.0]}, True),
    ],
    ids=["ComplementNB", "CategoricalNB"],
)
def test_fold_subtraction_tunes_the_new_classifiers(model, grid, categorical):
    from sklearn.model_selection import GridSearchCV

    from mlnb.selection import FoldSubtractionSearchCV

    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 180)
    X = rng.poisson(1.0 + y[:, None] * np.linspace(0, 1, 8), (180, 8)).astype(float)
    if categorical:
        X = np.minimum(X, 5)
    ours = FoldSubtractionSearchCV(model, grid, cv=4, scoring="f1_macro").fit(X, y)
    theirs = GridSearchCV(model, grid, cv=4, scoring="f1_macro").fit(X, y)
    assert_allclose(ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"])
    assert ours.best_params_ == theirs.best_params_
