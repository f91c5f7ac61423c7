"""Y in the forms users have (label lists, DataFrames, sparse and dense 0/1 matrices), the
fitted ``label_names_``, and predictions back as names (:mod:`mlnb.labels`)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import mlnb.multilabel
from mlnb import BinaryRelevance, ClassifierChain, EnsembleClassifierChains, NaiBX
from mlnb.io import load, save
from mlnb.labels import is_label_lists, label_matrix, to_label_lists
from mlnb.multilabel._base import MultiLabelEstimator

pd = pytest.importorskip("pandas")

ESTIMATORS = [
    getattr(mlnb.multilabel, name)
    for name in mlnb.multilabel.__all__
    if isinstance(getattr(mlnb.multilabel, name), type)
    and issubclass(getattr(mlnb.multilabel, name), MultiLabelEstimator)
]
NAMES = np.array(["art", "news", "sport"])


def data(n=48, seed=0):
    """Counts that follow three labels, and the labels as a 0/1 matrix and as tag lists."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 3)) < 0.4).astype(int)
    Y[0] = 0  # a row without labels
    X = rng.poisson(1 + 4 * Y @ rng.random((3, 6)))
    return X, Y, [list(NAMES[row == 1]) for row in Y]


def make(cls):
    params = cls().get_params()
    return cls(**({"random_state": 0} if "random_state" in params else {}))


def test_the_estimators_are_all_listed():
    assert len(ESTIMATORS) == 16


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_estimator_fits_label_lists_as_the_matrix(cls):
    X, Y, tags = data()
    named = make(cls).fit(X, tags)
    plain = make(cls).fit(X, Y)
    np.testing.assert_array_equal(named.label_names_, NAMES)
    np.testing.assert_array_equal(plain.label_names_, np.arange(3))
    predicted = named.predict(X)
    np.testing.assert_array_equal(predicted, plain.predict(X))
    as_names = to_label_lists(predicted, named.label_names_)
    assert as_names == [list(NAMES[row == 1]) for row in predicted]
    assert named.score(X, tags) == plain.score(X, Y)


def test_label_lists_as_the_issue_gives_them():
    X = np.array([[3, 0, 1], [0, 2, 0], [1, 1, 1]])
    model = BinaryRelevance(events="multinomial", rule="predict").fit(X, [["a", "b"], ["c"], []])
    np.testing.assert_array_equal(model.label_names_, ["a", "b", "c"])
    assert model.n_labels_ == 3
    assert all(
        set(row) <= {"a", "b", "c"} for row in to_label_lists(model.predict(X), model.label_names_)
    )


def test_a_dataframe_keeps_its_column_names(shared_dataset):
    emotions = shared_dataset("emotions")
    frame = pd.DataFrame(emotions.Y, columns=emotions.label_names)
    named = BinaryRelevance(events="gaussian", rule="predict").fit(emotions.X, frame)
    plain = BinaryRelevance(events="gaussian", rule="predict").fit(emotions.X, emotions.Y)
    assert named.label_names_.tolist() == emotions.label_names
    np.testing.assert_array_equal(named.predict(emotions.X), plain.predict(emotions.X))
    assert named.score(emotions.X, frame) == plain.score(emotions.X, emotions.Y)


@pytest.mark.parametrize(
    "form",
    [
        lambda Y, tags: sp.csr_matrix(Y),
        lambda Y, tags: Y.astype(bool),
        lambda Y, tags: Y.tolist(),
        lambda Y, tags: pd.DataFrame(Y).astype(pd.SparseDtype(int, 0)),
        lambda Y, tags: pd.Series(tags),
        lambda Y, tags: [set(row) for row in tags],
        lambda Y, tags: tuple(tuple(row) for row in tags),
    ],
    ids=["sparse", "bool", "nested list", "sparse frame", "series of lists", "sets", "tuples"],
)
def test_every_form_gives_the_same_model(form):
    X, Y, tags = data()
    expected = ClassifierChain(events="multinomial", rule="predict").fit(X, Y)
    model = ClassifierChain(events="multinomial", rule="predict").fit(X, form(Y, tags))
    np.testing.assert_allclose(model.decision_function(X), expected.decision_function(X))


def test_numbers_as_tags_in_sets_and_a_rectangular_list_as_a_matrix():
    assert is_label_lists([{0, 2}, {1, 3}])
    assert is_label_lists([[0, 2], [1]])  # ragged: tags
    assert not is_label_lists([[0, 1], [1, 0]])  # rectangular numbers: a matrix, as before
    Y, names = label_matrix([{5, 7}, {6}])
    np.testing.assert_array_equal(names, [5, 6, 7])
    np.testing.assert_array_equal(Y.toarray(), [[1, 0, 1], [0, 1, 0]])
    with pytest.raises(ValueError, match="only 0 and 1"):
        BinaryRelevance().fit(np.ones((2, 2)), [[5, 7], [6, 8]])


def test_partial_fit_appends_unseen_tags_as_new_labels():
    X, Y, tags = data(n=60)
    first = [[t for t in row if t != "sport"] for row in tags[:30]]
    model = BinaryRelevance(events="multinomial", rule="predict")
    model.partial_fit(X[:30], first).partial_fit(X[30:], tags[30:])
    np.testing.assert_array_equal(model.label_names_, NAMES)
    padded = Y.copy()
    padded[:30, 2] = 0
    whole = BinaryRelevance(events="multinomial", rule="predict").fit(X, padded)
    np.testing.assert_allclose(model.decision_function(X), whole.decision_function(X))


def test_new_tags_sort_after_the_known_labels():
    X, _, _ = data(n=4)
    model = BinaryRelevance(events="multinomial", rule="predict").fit(X[:2], [["m"], ["z"]])
    model.partial_fit(X[2:], [["a"], ["m", "b"]])
    np.testing.assert_array_equal(model.label_names_, ["m", "z", "a", "b"])


def test_partial_fit_takes_a_frame_with_new_columns_after_the_known_ones():
    X, Y, _ = data(n=40)
    model = BinaryRelevance(events="multinomial", rule="predict")
    model.partial_fit(X[:20], pd.DataFrame(Y[:20, :2], columns=NAMES[:2]))
    model.partial_fit(X[20:], pd.DataFrame(Y[20:], columns=NAMES))
    np.testing.assert_array_equal(model.label_names_, NAMES)
    with pytest.raises(ValueError, match=r"must be this model's labels in order"):
        model.partial_fit(X[:5], pd.DataFrame(Y[:5], columns=NAMES[::-1]))
    np.testing.assert_array_equal(model.label_names_, NAMES)


def test_named_labels_refuse_unnamed_new_columns_and_unknown_names():
    X, Y, tags = data(n=40)
    model = BinaryRelevance(events="multinomial", rule="predict").fit(X, tags)
    with pytest.raises(ValueError, match="name the new ones"):
        model.partial_fit(X, np.hstack([Y, Y[:, :1]]))
    model.partial_fit(X, Y)  # the same columns: taken in order
    np.testing.assert_array_equal(model.label_names_, NAMES)
    with pytest.raises(ValueError, match="'weather'"):
        model.score(X, [["weather"]] * 40)
    with pytest.raises(ValueError, match="'weather'"):
        model.retune(X, [["weather"]] * 40)


def test_a_plain_matrix_grows_its_numbered_labels():
    X, Y, _ = data(n=40)
    model = BinaryRelevance(events="multinomial", rule="predict")
    model.partial_fit(X[:20], Y[:20, :2]).partial_fit(X[20:], Y[20:])
    np.testing.assert_array_equal(model.label_names_, [0, 1, 2])


def test_a_refused_batch_leaves_the_names():
    X, _, tags = data(n=40)
    model = NaiBX(events="multinomial", rule="predict").fit(X, tags)
    with pytest.raises(ValueError):
        model.partial_fit(X[:3], [["new"], ["art"]])  # 3 rows, 2 label lists
    np.testing.assert_array_equal(model.label_names_, NAMES)
    assert model.n_labels_ == 3


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ([["a", None], ["b"]], "row 0 holds None"),
        ([["a", ["b"]], ["b"]], "row 0 holds"),
        ([["a", 1], ["b"]], "all strings or all numbers"),
        ([[], []], "no label columns|no labels"),
        (["ab", "c"], "2-D"),
    ],
)
def test_malformed_label_lists_say_what_is_wrong(bad, message):
    with pytest.raises(ValueError, match=message):
        BinaryRelevance().fit(np.ones((2, 2)), bad)


def test_frame_columns_must_be_distinct():
    with pytest.raises(ValueError, match="distinct names"):
        BinaryRelevance().fit(np.ones((2, 2)), pd.DataFrame([[0, 1], [1, 0]], columns=["a", "a"]))


def test_model_files_keep_the_names(tmp_path):
    X, _, tags = data()
    for model in (
        BinaryRelevance(events="multinomial", rule="predict").fit(X, tags),
        EnsembleClassifierChains(n_chains=3, events="multinomial", random_state=0).fit(X, tags),
    ):
        path = tmp_path / f"{type(model).__name__}.mlnb"
        save(model, path)
        loaded = load(path)
        np.testing.assert_array_equal(loaded.label_names_, NAMES)
        assert to_label_lists(loaded.predict(X), loaded.label_names_) == to_label_lists(
            model.predict(X), model.label_names_
        )


@given(
    st.lists(st.lists(st.sampled_from(["x", "y", "z", "w"]), max_size=5), min_size=1, max_size=12)
)
def test_label_lists_round_trip(tags):
    if not any(tags):
        return
    Y, names = label_matrix(tags)
    assert list(names) == sorted({t for row in tags for t in row})
    assert to_label_lists(Y, names) == [sorted(set(row)) for row in tags]


def test_to_label_lists_checks_the_names():
    assert to_label_lists(np.array([[0, 1], [1, 1]])) == [[1], [0, 1]]
    with pytest.raises(ValueError, match="one name per column"):
        to_label_lists(np.array([[0, 1]]), ["a"])


def test_merge_refuses_models_of_other_labels():
    X, _, tags = data(n=40)
    a = BinaryRelevance(events="multinomial", rule="predict").fit(X[:20], tags[:20])
    b = BinaryRelevance(events="multinomial", rule="predict").fit(X[20:], tags[20:])
    a.merge(b)  # the same labels
    d = BinaryRelevance(events="multinomial", rule="predict").fit(X[20:], [["x", "y", "z"]] * 20)
    with pytest.raises(ValueError, match="column 0 is 'art' here and 'x' in the other"):
        a.merge(d)


def test_a_model_without_names_takes_them_as_column_numbers():
    X, Y, tags = data(n=40)
    model = BinaryRelevance(events="multinomial", rule="predict").fit(X, Y)
    del model.label_names_  # as a model file written before label_names_
    assert model.score(X, Y) == model.score(X, Y.tolist())
    with pytest.raises(ValueError, match="not fitted with"):
        model.score(X, tags)


def test_tuned_thresholds_take_tag_lists_and_keep_their_names():
    from mlnb import BinaryRelevance, TunedThresholdsCV
    from mlnb.labels import to_label_lists

    rng = np.random.default_rng(4)
    Y = (rng.random((80, 3)) < 0.4).astype(int)
    X = rng.poisson(1.0 + 3 * np.repeat(Y, 2, axis=1))
    names = np.array(["x", "y", "z"])
    tags = [list(names[row == 1]) for row in Y]
    base = BinaryRelevance(events="multinomial", rule="predict")
    model = TunedThresholdsCV(base).fit(X, tags)
    assert model.label_names_.tolist() == ["x", "y", "z"]
    same = TunedThresholdsCV(base).fit(X, Y)
    np.testing.assert_array_equal(model.predict(X), same.predict(X))
    predicted = to_label_lists(model.predict(X), model.label_names_)
    assert all(set(row) <= {"x", "y", "z"} for row in predicted)


def test_prequential_takes_tag_lists_batch_by_batch_as_their_0_1_matrix():
    """Tags coded batch by batch (a new tag: a new column after the known ones) score as
    the same stream given as 0/1 matrices, and the model keeps the tags' names."""
    from mlnb import BinaryRelevance
    from mlnb.evaluation import prequential

    rng = np.random.default_rng(6)
    Y = (rng.random((120, 3)) < 0.4).astype(int)
    Y[:40, 2] = 0  # the third tag first appears in the second batch
    X = rng.poisson(1.0 + 3 * np.repeat(Y, 2, axis=1))
    names = np.array(["a", "b", "c"])
    tags = [list(names[row == 1]) for row in Y]
    model = BinaryRelevance(events="multinomial", rule="predict")
    batches = [slice(0, 40), slice(40, 80), slice(80, 120)]
    with_tags = prequential(model, [(X[b], tags[b]) for b in batches], metrics=["micro_f1"])
    widths = [2, 3, 3]
    as_matrix = prequential(
        BinaryRelevance(events="multinomial", rule="predict"),
        [(X[b], Y[b, :w]) for b, w in zip(batches, widths, strict=True)],
        metrics=["micro_f1"],
    )
    np.testing.assert_array_equal(with_tags.scores["micro_f1"], as_matrix.scores["micro_f1"])
    assert model.label_names_.tolist() == ["a", "b", "c"]


def test_dask_fit_takes_tag_lists_in_memory_and_keeps_their_names():
    da = pytest.importorskip("dask.array")
    from mlnb import BinaryRelevance
    from mlnb.distributed import fit

    rng = np.random.default_rng(7)
    Y = (rng.random((90, 3)) < 0.4).astype(int)
    X = rng.poisson(1.0 + 3 * np.repeat(Y, 2, axis=1)).astype(float)
    names = np.array(["a", "b", "c"])
    tags = [list(names[row == 1]) for row in Y]
    model = fit(
        BinaryRelevance(events="multinomial", rule="predict"), da.from_array(X, chunks=30), tags
    )
    plain = BinaryRelevance(events="multinomial", rule="predict").fit(X, Y)
    np.testing.assert_allclose(model.decision_function(X), plain.decision_function(X))
    assert model.label_names_.tolist() == ["a", "b", "c"]
