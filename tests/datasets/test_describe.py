"""describe: label cardinality, density, imbalance ratio and label sets."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from mlnb.datasets import Dataset, describe

Y = np.array([[1, 0, 0], [1, 1, 0], [1, 0, 0], [0, 0, 0]])


def test_hand_computed_example():
    s = describe(Y)
    assert (s.n_samples, s.n_features, s.n_labels) == (4, None, 3)
    assert s.cardinality == 1.0  # 4 labels over 4 rows
    assert s.density == pytest.approx(1 / 3)
    # counts (3, 1, 0): IRLbl = 3/3 and 3/1; the never-seen label is left out
    assert s.avg_imbalance_ratio == 2.0 and s.max_imbalance_ratio == 3.0
    assert s.n_empty_labels == 1 and s.n_empty_rows == 1
    assert s.n_labelsets == 3  # {0}, {0, 1}, {}


def test_charte_definition_on_a_second_example():
    Y2 = np.array([[1, 1, 0, 1], [1, 0, 1, 0], [1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 0, 0]])
    counts = Y2.sum(axis=0)  # 4, 3, 1, 1
    s = describe(Y2)
    assert s.avg_imbalance_ratio == pytest.approx(np.mean(4 / counts))
    assert s.cardinality == pytest.approx(9 / 5) and s.n_labelsets == 5


@pytest.mark.parametrize(
    "convert",
    [
        lambda y: y.astype(np.uint8),
        lambda y: y.astype(bool),
        lambda y: y.astype(np.int64),
        lambda y: y.astype(float),
        sp.csr_matrix,
        lambda y: sp.csc_matrix(y.astype(np.int8)),
    ],
)
def test_any_dtype_and_sparse_format_give_the_same_figures(convert):
    assert describe(convert(Y)) == describe(Y)


def test_dataset_and_tuple_inputs_report_features():
    X = np.zeros((4, 7))
    ds = Dataset(X=X, Y=Y.astype(np.uint8), feature_names=[""] * 7, label_names=["a", "b", "c"])
    assert describe(ds).n_features == 7
    assert describe((sp.csr_matrix(X), Y)).n_features == 7
    assert describe(ds).as_dict()["cardinality"] == 1.0


@pytest.mark.parametrize(
    ("bad", "match"),
    [(np.array([[0, 2]]), "0/1"), (np.zeros((0, 3)), "at least one"), (np.zeros(3), "2-d")],
)
def test_bad_input(bad, match):
    with pytest.raises(ValueError, match=match):
        describe(bad)
