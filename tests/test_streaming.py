"""mlnb.streaming: partial_fit over ARFF chunks equals fit on the concatenated data."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from mlnb import (
    BinaryRelevance,
    ClassifierChain,
    GaussianNB,
    LabelPowerset,
    MultinomialNB,
)
from mlnb.datasets import load_arff, make_multilabel
from mlnb.streaming import fit_stream, iter_chunks

try:
    from mlnb.multilabel.naibx import NaiBX
except ImportError:  # being written in parallel
    NaiBX = None

TOL = 1e-9


def write_arff(path, X, Y, *, sparse=False):
    """A MEKA ARFF file: the L labels first (``-C L``), then the features."""
    n_labels = Y.shape[1]
    header = [f"@relation 'stream: -C {n_labels}'"]
    header += [f"@attribute label{j} {{0,1}}" for j in range(n_labels)]
    header += [f"@attribute x{i} numeric" for i in range(X.shape[1])]
    rows = np.hstack([Y, X])
    if sparse:
        lines = [
            "{" + ",".join(f"{j} {row[j]:.17g}" for j in np.flatnonzero(row)) + "}" for row in rows
        ]
    else:
        lines = [",".join(f"{v:.17g}" for v in row) for row in rows]
    path.write_text("\n".join([*header, "@data", *lines]) + "\n")
    return path


@pytest.fixture(scope="module")
def counts():
    X, Y = make_multilabel(230, 7, 4, features="counts", doc_length=20, random_state=0)
    return X, Y


def _same(got, expected, X):
    for name in ("feature_stats_", "stats_"):
        if hasattr(expected, name):
            want, have = getattr(expected, name), getattr(got, name)
            np.testing.assert_allclose(have.count, want.count, rtol=TOL)
            np.testing.assert_allclose(have.sums, want.sums, rtol=TOL)
            if want.m2 is not None:
                np.testing.assert_allclose(have.m2, want.m2, rtol=TOL, atol=TOL)
    np.testing.assert_allclose(got.predict_proba(X), expected.predict_proba(X), atol=TOL)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(
    "estimator",
    # explicit settings (the defaults before "tuned"): a stream chooses the settings that
    # "tuned" would on its first chunk, fit on all rows
    [
        BinaryRelevance(events="multinomial", rule="predict"),
        ClassifierChain(events="gaussian", rule="predict"),
        BinaryRelevance(events="gaussian", rule="predict"),
    ],
    ids=["BR-multinomial", "CC-gaussian", "BR-gaussian"],
)
def test_stream_of_one_file_equals_fit(tmp_path, counts, estimator, sparse):
    X, Y = counts
    path = write_arff(tmp_path / "data.arff", X, Y, sparse=sparse)
    expected = clone(estimator).fit(X, Y)
    model = clone(estimator)
    assert fit_stream(model, path, chunk_size=32) is model
    _same(model, expected, X)


def test_directory_of_files_in_name_order(tmp_path, counts):
    X, Y = counts
    bounds = [0, 50, 51, 170, 230]
    for name, labels in (("multi", Y), ("single", Y[:, :1])):
        (tmp_path / name).mkdir()
        for k in range(4):
            rows = slice(bounds[k], bounds[k + 1])
            part = tmp_path / name / f"part{k}.arff"
            write_arff(part, X[rows], labels[rows], sparse=k % 2 == 1)
    (tmp_path / "multi" / "notes.txt").write_text("not an ARFF file")
    chunks = list(iter_chunks(tmp_path / "multi", chunk_size=40))
    assert sum(c[0].shape[0] for c in chunks) == 230
    np.testing.assert_array_equal(
        np.vstack([c[0].toarray() if sp.issparse(c[0]) else c[0] for c in chunks]), X
    )
    multinomial = BinaryRelevance(events="multinomial", rule="predict")
    model = fit_stream(clone(multinomial), tmp_path / "multi", chunk_size=40)
    _same(model, clone(multinomial).fit(X, Y), X)
    # A single-label classifier takes the one label column; its classes need a first pass.
    model = fit_stream(MultinomialNB(), tmp_path / "single", chunk_size=40)
    np.testing.assert_array_equal(model.classes_, [0, 1])
    _same(model, MultinomialNB().fit(X, Y[:, 0]), X)
    if NaiBX is not None:
        expected = NaiBX(events="multinomial", rule="predict").fit(X, Y)
        model = fit_stream(
            NaiBX(events="multinomial", rule="predict"), tmp_path / "multi", chunk_size=40
        )
        np.testing.assert_allclose(model.size_stats_.count, expected.size_stats_.count)
        np.testing.assert_array_equal(model.predict(X), expected.predict(X))


def test_chunks_from_a_generator_and_refit_from_scratch():
    X, Y = make_multilabel(120, 5, 3, random_state=1)
    y = Y[:, 0] + 2 * Y[:, 1]

    def chunks():
        for start in range(0, 120, 25):
            yield X[start : start + 25], y[start : start + 25]
        yield X[:0], y[:0]

    with pytest.raises(ValueError, match="classes must be given"):
        fit_stream(GaussianNB(), chunks())
    model = GaussianNB().fit(X[:10], y[:10])
    fit_stream(model, chunks(), classes=[0, 1, 2, 3])  # the earlier fit is discarded
    _same(model, GaussianNB().fit(X, y), X)
    listed = list(chunks())
    _same(fit_stream(GaussianNB(), listed), model, X)  # a list can be read twice


def test_errors(tmp_path, counts):
    X, Y = counts
    write_arff(tmp_path / "a.arff", X, Y)
    write_arff(tmp_path / "b.arff", X[:, :-1], Y)
    with pytest.raises(ValueError, match="differ"):
        fit_stream(BinaryRelevance(), tmp_path)
    with pytest.raises(ValueError, match="neither a file nor a directory"):
        fit_stream(BinaryRelevance(), tmp_path / "missing.arff")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"no \.arff"):
        fit_stream(BinaryRelevance(), tmp_path / "empty")
    with pytest.raises(TypeError, match="no partial_fit"):
        fit_stream(object(), tmp_path / "a.arff")
    with pytest.raises(ValueError, match="base_estimator"):
        fit_stream(BinaryRelevance(base_estimator=GaussianNB()), tmp_path / "a.arff")
    with pytest.raises(ValueError, match="no rows"):
        fit_stream(BinaryRelevance(), [(X[:0], Y[:0])])
    with pytest.raises(TypeError, match="ARFF files only"):
        fit_stream(BinaryRelevance(), [(X, Y)], missing="zero")
    assert load_arff(tmp_path / "a.arff").X.shape == X.shape
    assert fit_stream(LabelPowerset(), tmp_path / "a.arff").n_labels_ == 4
