"""Tests of mlnb.metrics: hand-computed cases, the 0/0 convention, scikit-learn equality."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn import metrics as skm

from mlnb import metrics as M

# Hand-computed example.  Rows: (tp, n_true, n_pred) = (1, 2, 2), (0, 0, 0), (0, 2, 0), (0, 0, 1)
T = np.array([[1, 0, 1], [0, 0, 0], [1, 1, 0], [0, 0, 0]])
P = np.array([[1, 1, 0], [0, 0, 0], [0, 0, 0], [0, 1, 0]])
# Columns: label 0 (1, 2, 1), label 1 (0, 1, 2), label 2 (0, 1, 0); totals (1, 4, 3).
EXPECTED = {
    ("hamming", None): 5 / 12,
    ("zero_one", None): 3 / 4,
    ("jaccard", "samples"): (1 / 3 + 1 + 0 + 0) / 4,
    ("precision", "samples"): (1 / 2 + 1 + 0 + 0) / 4,
    ("recall", "samples"): (1 / 2 + 1 + 0 + 0) / 4,
    ("f1", "samples"): (1 / 2 + 1 + 0 + 0) / 4,
    ("precision", "macro"): (1 + 0 + 0) / 3,
    ("recall", "macro"): (1 / 2 + 0 + 0) / 3,
    ("f1", "macro"): (2 / 3 + 0 + 0) / 3,
    ("jaccard", "macro"): (1 / 2 + 0 + 0) / 3,
    ("precision", "micro"): 1 / 3,
    ("recall", "micro"): 1 / 4,
    ("f1", "micro"): 2 / 7,
    ("jaccard", "micro"): 1 / 6,
}
FUNCS = {
    "hamming": M.hamming_loss,
    "zero_one": M.zero_one_loss,
    "jaccard": M.jaccard_score,
    "precision": M.precision_score,
    "recall": M.recall_score,
    "f1": M.f1_score,
}


def _call(name, average, Yt, Yp):
    if average is None:
        return FUNCS[name](Yt, Yp)
    return FUNCS[name](Yt, Yp, average=average)


def _variants(Y):
    """The same indicator matrix in every accepted representation."""
    return [
        Y,
        Y.astype(bool),
        Y.astype(np.uint8),
        Y.astype(np.int8),
        Y.astype(float),
        Y.tolist(),
        sp.csr_matrix(Y),
        sp.csr_array(Y),
        sp.coo_matrix(Y),
        sp.csc_array(Y.astype(np.uint8)),
    ]


@pytest.mark.parametrize(("name", "average"), list(EXPECTED))
def test_hand_computed_values(name, average):
    assert _call(name, average, T, P) == pytest.approx(EXPECTED[name, average], abs=1e-12)


@pytest.mark.parametrize(("name", "average"), list(EXPECTED))
def test_every_representation_gives_the_same_value(name, average):
    expected = EXPECTED[name, average]
    for Yt, Yp in zip(_variants(T), _variants(P), strict=True):
        assert _call(name, average, Yt, Yp) == pytest.approx(expected, abs=1e-12)
    # Mixed dense / sparse.
    assert _call(name, average, T, sp.csr_matrix(P)) == pytest.approx(expected, abs=1e-12)


def test_fdr_fnr_subset_accuracy_are_complements():
    for average in ("samples", "macro", "micro"):
        assert M.fdr(T, P, average=average) == pytest.approx(1 - EXPECTED["precision", average])
        assert M.fnr(T, P, average=average) == pytest.approx(1 - EXPECTED["recall", average])
    assert M.subset_accuracy(T, P) == pytest.approx(1 / 4)


def test_per_label_values():
    np.testing.assert_allclose(M.precision_score(T, P, average=None), [1, 0, 0])
    np.testing.assert_allclose(M.recall_score(T, P, average=None), [1 / 2, 0, 0])
    np.testing.assert_allclose(M.f1_score(T, P, average=None), [2 / 3, 0, 0])


class TestZeroOverZeroConvention:
    def test_both_empty_everywhere_is_perfect(self):
        Z = np.zeros((3, 4), dtype=int)
        for average in ("samples", "macro", "micro"):
            for f in (M.precision_score, M.recall_score, M.f1_score, M.jaccard_score):
                assert f(Z, Z, average=average) == 1.0
            assert M.fdr(Z, Z, average=average) == 0.0
            assert M.fnr(Z, Z, average=average) == 0.0
        assert M.hamming_loss(Z, Z) == 0.0
        assert M.zero_one_loss(Z, Z) == 0.0

    def test_empty_prediction_of_a_non_empty_truth(self):
        Yt, Yp = np.array([[1, 0], [1, 1]]), np.zeros((2, 2), dtype=int)
        for average in ("samples", "macro", "micro"):
            assert M.precision_score(Yt, Yp, average=average) == 0.0
            assert M.recall_score(Yt, Yp, average=average) == 0.0
            assert M.f1_score(Yt, Yp, average=average) == 0.0

    def test_non_empty_prediction_of_an_empty_truth(self):
        Yt, Yp = np.zeros((2, 2), dtype=int), np.array([[0, 1], [1, 1]])
        for average in ("samples", "macro", "micro"):
            assert M.precision_score(Yt, Yp, average=average) == 0.0
            assert M.recall_score(Yt, Yp, average=average) == 0.0
            assert M.jaccard_score(Yt, Yp, average=average) == 0.0

    def test_mixed_units(self):
        # Row 0 both empty (1), row 1 predicts nothing of {0} (0), row 2 predicts {1} of {} (0).
        Yt = np.array([[0, 0], [1, 0], [0, 0]])
        Yp = np.array([[0, 0], [0, 0], [0, 1]])
        assert M.precision_score(Yt, Yp) == pytest.approx(1 / 3)
        assert M.recall_score(Yt, Yp) == pytest.approx(1 / 3)
        # Labels: label 0 (tp 0, true 1, pred 0), label 1 (0, 0, 1): both 0.
        assert M.precision_score(Yt, Yp, average="macro") == 0.0


class TestValidation:
    def test_shape_mismatch(self):
        with pytest.raises(ValueError, match="same shape"):
            M.hamming_loss(np.zeros((2, 3)), np.zeros((2, 2)))

    def test_one_dimensional(self):
        with pytest.raises(ValueError, match="Y_true must be a 2-D"):
            M.f1_score([0, 1, 1], [0, 1, 1])

    def test_not_binary(self):
        with pytest.raises(ValueError, match="Y_pred must contain only 0 and 1"):
            M.f1_score(np.eye(2), 2 * np.eye(2))
        with pytest.raises(ValueError, match="Y_true must contain only 0 and 1"):
            M.f1_score(sp.csr_matrix(2 * np.eye(2)), np.eye(2))
        with pytest.raises(ValueError, match="Y_pred must contain only 0 and 1"):
            M.f1_score(np.eye(2), np.full((2, 2), np.nan))  # (in Y_true: unknown cells)

    def test_empty(self):
        with pytest.raises(ValueError, match="non-empty"):
            M.hamming_loss(np.zeros((0, 3)), np.zeros((0, 3)))

    def test_bad_average(self):
        with pytest.raises(ValueError, match="average must be one of"):
            M.f1_score(T, P, average="weighted")


def test_sparse_input_is_never_densified():
    # Dense, this would be 2e5 x 5e4 = 1e10 cells: it must be computed from the non-zeros.
    n, n_labels = 200_000, 50_000
    rng = np.random.default_rng(0)
    rows, cols = rng.integers(0, n, 500), rng.integers(0, n_labels, 500)
    Yt = sp.csr_matrix((np.ones(500), (rows, cols)), shape=(n, n_labels))
    Yt.data[:] = 1
    Yp = Yt[:, ::-1].tocsr()
    Yp = (Yp + Yt).astype(bool).astype(np.uint8)
    n_true, n_pred = Yt.nnz, Yp.nnz
    assert M.hamming_loss(Yt, Yp) == pytest.approx((n_pred - n_true) / (n * n_labels))
    assert M.precision_score(Yt, Yp, average="micro") == pytest.approx(n_true / n_pred)
    assert 0 < M.f1_score(Yt, Yp, average="macro") <= 1


# ---------------------------------------------------------------- scikit-learn equality


@st.composite
def indicator_pairs(draw):
    n = draw(st.integers(2, 9))
    n_labels = draw(st.integers(2, 7))
    Yt = draw(arrays(np.int8, (n, n_labels), elements=st.integers(0, 1)))
    Yp = draw(arrays(np.int8, (n, n_labels), elements=st.integers(0, 1)))
    # Force all-zero rows and columns often (the 0/0 cases).
    for Y in (Yt, Yp):
        if draw(st.booleans()):
            Y[draw(st.integers(0, n - 1))] = 0
        if draw(st.booleans()):
            Y[:, draw(st.integers(0, n_labels - 1))] = 0
    return Yt, Yp


def _both_empty_fraction(Yt, Yp, axis):
    return np.mean((Yt.sum(axis=axis) == 0) & (Yp.sum(axis=axis) == 0))


def _sklearn_reference(Yt, Yp):
    """Our expected values, from scikit-learn's functions."""
    ref = {
        "hamming": skm.hamming_loss(Yt, Yp),
        "zero_one": skm.zero_one_loss(Yt, Yp),
        "subset": skm.accuracy_score(Yt, Yp),
        ("f1", None): skm.f1_score(Yt, Yp, average=None, zero_division=1.0),
    }
    for average, axis in (("samples", 1), ("macro", 0), ("micro", None)):
        # F1 and Jaccard are 0/0 only when both sets are empty: zero_division=1 is ours.
        ref["f1", average] = skm.f1_score(Yt, Yp, average=average, zero_division=1.0)
        ref["jaccard", average] = skm.jaccard_score(Yt, Yp, average=average, zero_division=1.0)
        # Precision / recall: scikit-learn's zero_division=0 plus 1 for each both-empty unit.
        for name, theirs in (("precision", skm.precision_score), ("recall", skm.recall_score)):
            if axis is None:
                both_empty = Yt.sum() == 0 and Yp.sum() == 0
                ref[name, average] = theirs(
                    Yt, Yp, average="micro", zero_division=1.0 if both_empty else 0.0
                )
            else:
                ref[name, average] = theirs(
                    Yt, Yp, average=average, zero_division=0.0
                ) + _both_empty_fraction(Yt, Yp, axis)
    return ref


@settings(max_examples=80, deadline=None)
@given(indicator_pairs())
def test_equal_to_scikit_learn(pair):
    Yt, Yp = pair
    ref = _sklearn_reference(Yt, Yp)
    for Ya, Yb in ((Yt, Yp), (sp.csr_matrix(Yt), sp.csr_matrix(Yp))):
        assert M.hamming_loss(Ya, Yb) == pytest.approx(ref["hamming"])
        assert M.zero_one_loss(Ya, Yb) == pytest.approx(ref["zero_one"])
        assert M.subset_accuracy(Ya, Yb) == pytest.approx(ref["subset"])
        np.testing.assert_allclose(M.f1_score(Ya, Yb, average=None), ref["f1", None])
        for average in ("samples", "macro", "micro"):
            assert M.f1_score(Ya, Yb, average=average) == pytest.approx(ref["f1", average])
            assert M.jaccard_score(Ya, Yb, average=average) == pytest.approx(
                ref["jaccard", average]
            )
            assert M.precision_score(Ya, Yb, average=average) == pytest.approx(
                ref["precision", average]
            )
            assert M.recall_score(Ya, Yb, average=average) == pytest.approx(ref["recall", average])


# ---------------------------------------------------------------- single-label


def test_single_label_hand_computed():
    y_true = ["a", "b", "c", "c", "c"]
    y_pred = ["a", "c", "c", "b", "c"]
    # a: tp 1 true 1 pred 1; b: tp 0 true 1 pred 1; c: tp 2 true 3 pred 3.
    np.testing.assert_allclose(
        M.single_label_precision(y_true, y_pred, average=None), [1, 0, 2 / 3]
    )
    np.testing.assert_allclose(M.single_label_recall(y_true, y_pred, average=None), [1, 0, 2 / 3])
    np.testing.assert_allclose(M.single_label_f1(y_true, y_pred, average=None), [1, 0, 2 / 3])
    assert M.single_label_f1(y_true, y_pred) == pytest.approx(5 / 9)
    assert M.single_label_accuracy(y_true, y_pred) == pytest.approx(3 / 5)
    # Micro averages of a single-label problem all equal the accuracy.
    assert M.single_label_precision(y_true, y_pred, average="micro") == pytest.approx(3 / 5)


def test_single_label_explicit_labels_and_the_convention():
    y_true, y_pred = [0, 0, 1], [0, 1, 1]
    # Class 2 is neither true nor predicted: scores 1; class 3 likewise.
    values = M.single_label_precision(y_true, y_pred, labels=[1, 0, 2], average=None)
    np.testing.assert_allclose(values, [1 / 2, 1, 1])
    # A class predicted but never true has recall 0; never predicted but true, precision 0.
    np.testing.assert_allclose(M.single_label_recall([0, 0], [0, 1], average=None), [1 / 2, 0])
    np.testing.assert_allclose(M.single_label_precision([0, 1], [0, 0], average=None), [1 / 2, 0])


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 30).flatmap(
        lambda n: st.tuples(
            arrays(np.int64, n, elements=st.integers(0, 4)),
            arrays(np.int64, n, elements=st.integers(0, 4)),
        )
    )
)
def test_single_label_equal_to_scikit_learn(pair):
    y_true, y_pred = pair
    p, r, f, _ = skm.precision_recall_fscore_support(y_true, y_pred, zero_division=0.0)
    np.testing.assert_allclose(M.single_label_precision(y_true, y_pred, average=None), p)
    np.testing.assert_allclose(M.single_label_recall(y_true, y_pred, average=None), r)
    np.testing.assert_allclose(M.single_label_f1(y_true, y_pred, average=None), f)
    for average in ("macro", "micro"):
        assert M.single_label_f1(y_true, y_pred, average=average) == pytest.approx(
            skm.f1_score(y_true, y_pred, average=average, zero_division=0.0)
        )
    assert M.single_label_accuracy(y_true, y_pred) == pytest.approx(
        skm.accuracy_score(y_true, y_pred)
    )


def test_single_label_validation():
    with pytest.raises(ValueError, match="y_true must be a 1-D"):
        M.single_label_f1(np.eye(2), [0, 1])
    with pytest.raises(ValueError, match="same length"):
        M.single_label_f1([0, 1], [0])
    with pytest.raises(ValueError, match="distinct"):
        M.single_label_f1([0, 1], [0, 1], labels=[0, 0])


# ---------------------------------------------------------------- registry


def test_dynamic_chains_criteria_are_the_eleven_losses():
    names = M.METRIC_SETS["dynamic_chains"]
    assert len(names) == 11 == len(set(names))
    assert all(not M.METRICS[n].greater_is_better for n in names)
    assert all(M.METRICS[n].task == "multilabel" for n in names)
    assert list(M.get_metrics("dynamic_chains")) == list(names)


def test_an_unknown_set_name_lists_the_known_sets():
    with pytest.raises(ValueError, match=r"unknown name 'bogus'; known sets \['dynamic_chains'"):
        M.get_metrics("bogus")


def test_registry_values_match_the_functions():
    got = {
        name: metric(T, P) for name, metric in M.get_metrics(["dynamic_chains", "naibx"]).items()
    }
    assert got["hamming"] == pytest.approx(EXPECTED["hamming", None])
    assert got["zero_one"] == pytest.approx(EXPECTED["zero_one", None])
    assert got["accuracy"] == pytest.approx(EXPECTED["jaccard", "samples"])
    for prefix, average in (("example", "samples"), ("macro", "macro"), ("micro", "micro")):
        assert got[f"{prefix}_fdr"] == pytest.approx(1 - EXPECTED["precision", average])
        assert got[f"{prefix}_fnr"] == pytest.approx(1 - EXPECTED["recall", average])
        assert got[f"{prefix}_f1_loss"] == pytest.approx(1 - EXPECTED["f1", average])
    assert got["example_precision"] == pytest.approx(EXPECTED["precision", "samples"])
    assert M.METRICS["sl_macro_f1"]([0, 1, 1], [0, 1, 0]) == pytest.approx(
        skm.f1_score([0, 1, 1], [0, 1, 0], average="macro")
    )


def test_registry_flags():
    assert M.METRICS["accuracy"].greater_is_better
    assert M.METRICS["micro_f1"].greater_is_better
    assert not M.METRICS["sl_error"].greater_is_better
    assert M.METRICS["sl_accuracy"].task == "single_label"


def test_get_metrics_errors():
    with pytest.raises(ValueError, match="unknown name 'nope'"):
        M.get_metrics(["hamming", "nope"])
    with pytest.raises(ValueError, match="do not score multilabel"):
        M.get_metrics("single_label", task="multilabel")
    with pytest.raises(ValueError, match="at least one"):
        M.get_metrics([])
