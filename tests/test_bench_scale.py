"""The helpers of benchmarks/bench_scale.py (a benchmark is no test: only its arithmetic)."""

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
bench_scale = pytest.importorskip("bench_scale")


class _Holder:
    __slots__ = ("kept",)


def test_model_nbytes_counts_each_array_once_through_any_container():
    shared = np.zeros(10)  # 80 bytes, reached twice
    holder = _Holder()
    holder.kept = np.zeros(3, dtype=np.int32)  # 12 bytes, through __slots__
    matrix = sp.csr_matrix(np.eye(4))  # data 32, indices 16 (int32), indptr 20
    model = type("Model", (), {})()
    model.a_ = shared
    model.parts_ = [shared, {"m": matrix, "h": holder, "name": "x"}, (1.5, None)]
    assert bench_scale.model_nbytes(model) == 80 + 12 + 32 + 16 + 20


def test_fitted_exponent_recovers_a_power_law_and_skips_missing_points():
    sizes = [10, 20, 40, 80]
    assert bench_scale.fitted_exponent(sizes, [3 * s**1.5 for s in sizes]) == pytest.approx(1.5)
    assert bench_scale.fitted_exponent(sizes, [None, 2.0, None, 8.0]) == pytest.approx(1.0)
    assert bench_scale.fitted_exponent(sizes, [None, None, 1.0, None]) is None


def test_top_k_matrix_ranks_the_lists_for_the_metrics():
    from mlnb.metrics import precision_at_k

    top = np.array([[2, 0, -1], [1, 3, 0]])  # ranked, -1: no label
    scores = bench_scale.top_k_matrix(top, 4)
    assert scores.toarray().tolist() == [[2, 0, 3, 0], [1, 3, 0, 2]]
    Y = np.array([[0, 0, 1, 0], [1, 0, 0, 0]])
    assert precision_at_k(Y, scores, k=1) == pytest.approx(0.5)
    assert precision_at_k(Y, scores, k=3) == pytest.approx((1 / 3 + 1 / 3) / 2)
