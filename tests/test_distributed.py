"""mlnb.distributed on an in-process Dask cluster: equal to a single-machine fit.

Every supported estimator is fitted on data split into uneven row partitions, one of them
empty, with a class (single-label) or a label (multi-label) present in one partition only;
the statistics and the predicted probabilities must equal those of ``fit`` on all rows to
1e-9. The multi-label estimators are given their settings explicitly (``events=`` and, where
they have it, ``rule="predict"``): at the defaults the settings are chosen from the data, on
the first partition for Dask and on all rows for ``fit`` (the defaults are tested in
test_defaults.py). The cluster (two workers, one thread each, in this process: no worker
start-up cost and nothing to spawn in CI) is started once for the module.
"""

from __future__ import annotations

import importlib
import itertools
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

da = pytest.importorskip("dask.array")
dask_distributed = pytest.importorskip("distributed")

import mlnb.distributed as mlnb_dask  # noqa: E402
from mlnb import (  # noqa: E402
    BayesianBernoulliNB,
    BayesianGaussianNB,
    BayesianMultinomialNB,
    BernoulliNB,
    BinaryRelevance,
    CategoricalNB,
    ClassifierChain,
    EnsembleClassifierChains,
    GaussianNB,
    LabelPowerset,
    MixedNB,
    MultinomialNB,
    RAkEL,
)
from mlnb.events import Categorical  # noqa: E402
from mlnb.naive_bayes import ComplementNB  # noqa: E402
from mlnb.stats import GroupStats  # noqa: E402


def _optional(module, name):
    """An estimator class being written in parallel, or None if it does not import yet."""
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


NaiBX = _optional("mlnb.multilabel.naibx", "NaiBX")
IMLNB = _optional("mlnb.multilabel.imlnb", "IMLNB")

# Uneven row partitions, one of them empty: 200 rows.
CHUNKS = (37, 0, 101, 12, 50)
RARE_ROWS = slice(37, 138)  # the rows of the third partition, the only one with the rare
TOL = 1e-9


def _data(kind, *, seed=0, n_labels=4):
    """(X, y, Y): Gaussian or count features, a class vector and a label matrix.

    Class 2 and label 3 occur only in the rows of the third partition (RARE_ROWS).
    """
    rng = np.random.default_rng(seed)
    n = sum(CHUNKS)
    y = rng.integers(0, 2, n)
    y[RARE_ROWS] = rng.integers(0, 3, RARE_ROWS.stop - RARE_ROWS.start)
    Y = (rng.random((n, n_labels)) < 0.4).astype(np.uint8)
    Y[:, -1] = 0
    Y[RARE_ROWS, -1] = rng.random(RARE_ROWS.stop - RARE_ROWS.start) < 0.3
    signal = np.column_stack([y, Y]).astype(float)
    if kind in ("gaussian", "holes"):
        X = rng.normal(size=(n, 6)) + signal @ rng.normal(size=(signal.shape[1], 6)) + 10.0
        if kind == "holes":  # missing entries (NaN), for missing="ignore"
            X[rng.random(X.shape) < 0.1] = np.nan
    else:
        X = rng.poisson(1.0 + signal @ rng.random((signal.shape[1], 6)) * 2).astype(float)
    return X, y, Y


def _ids(cases):
    return [f"{type(e).__name__}-{k}-{'sparse' if s else 'dense'}" for e, k, s in cases]


def _dask(array, sparse=False):
    chunks = (CHUNKS, *array.shape[1:])
    out = da.from_array(array, chunks=chunks)
    return out.map_blocks(sp.csr_matrix, dtype=out.dtype) if sparse else out


def _stats_of(model):
    """Every GroupStats attribute of a fitted model (lists of them too), by name."""
    found = {}
    for name, value in vars(model).items():
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            if isinstance(item, GroupStats):
                found[f"{name}[{i}]"] = item
    return found


def assert_same_model(got, expected, X_test):
    """Equal statistics and predictions (to TOL, relative to each array's scale)."""
    got_stats, expected_stats = _stats_of(got), _stats_of(expected)
    assert got_stats.keys() == expected_stats.keys()
    assert got_stats, "no statistics found"
    for name, stats in expected_stats.items():
        fields = ("count", "sums", "m2", "total_count", "total_sums", "total_m2", "observed")
        for field in fields:
            want, have = getattr(stats, field), getattr(got_stats[name], field)
            if want is None:
                assert have is None
                continue
            scale = max(float(np.max(np.abs(want), initial=0.0)), 1.0)
            np.testing.assert_allclose(have, want, rtol=TOL, atol=TOL * scale, err_msg=name)
    scores = [m for m in ("predict_proba", "predict_size_proba") if hasattr(expected, m)]
    for method in scores:
        np.testing.assert_allclose(
            getattr(got, method)(X_test), getattr(expected, method)(X_test), rtol=0, atol=TOL
        )
    np.testing.assert_array_equal(got.predict(X_test), expected.predict(X_test))


# ---- single-label classifiers ------------------------------------------------------------
SINGLE_LABEL = [
    (GaussianNB(), "gaussian", False),
    (BayesianGaussianNB(a=2.0, b=0.5), "gaussian", False),
    (MixedNB(blocks=[("gaussian", [0, 1, 2]), ("multinomial", [3, 4, 5])]), "counts", False),
    (MultinomialNB(alpha=0.5), "counts", True),
    (BernoulliNB(binarize=1.0), "counts", True),
    (BayesianMultinomialNB(beta=0.3), "counts", True),
    (BayesianBernoulliNB(a=2.0, b=1.0, binarize=1.0), "counts", True),
    (ComplementNB(alpha=0.5, norm=True), "counts", True),
    (CategoricalNB(max_categories=64), "counts", False),
    (CategoricalNB(max_categories=64), "counts", True),
    (GaussianNB(missing="ignore"), "holes", False),
    (BernoulliNB(binarize=10.0, missing="ignore"), "holes", True),
]


@pytest.mark.parametrize(("estimator", "kind", "sparse"), SINGLE_LABEL, ids=_ids(SINGLE_LABEL))
def test_single_label_equals_fit(client, estimator, kind, sparse):
    X, y, _ = _data(kind)
    expected = clone(estimator).fit(X, y)
    model = clone(estimator)
    assert mlnb_dask.fit(model, _dask(X, sparse), _dask(y)) is model
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])
    assert_same_model(model, expected, X[::3])


# ---- multi-label estimators ---------------------------------------------------------------
# Explicit settings: the model must not depend on the rows it chose its settings on.
OWN = {"rule": "predict"}
MULTI_LABEL = [
    (BinaryRelevance(events="gaussian", **OWN), "gaussian", False),
    (BinaryRelevance(events="multinomial", prior_alpha=1.0, **OWN), "counts", True),
    (ClassifierChain(events="bayesian_gaussian", **OWN), "gaussian", False),
    (
        ClassifierChain(
            events="bernoulli", order="random", random_state=3, inference="beam", **OWN
        ),
        "counts",
        True,
    ),
    (
        EnsembleClassifierChains(
            n_chains=3, sample_fraction=1.0, random_state=1, events="gaussian", **OWN
        ),
        "gaussian",
        False,
    ),
    (BinaryRelevance(events="complement", **OWN), "counts", True),
    (ClassifierChain(events=Categorical(max_categories=64), **OWN), "counts", False),
    (BinaryRelevance(events="gaussian", missing="ignore", **OWN), "holes", False),
]
if NaiBX is not None:
    MULTI_LABEL += [
        (NaiBX(events="gaussian", **OWN), "gaussian", False),
        (NaiBX(events="multinomial", **OWN), "counts", True),
    ]
if IMLNB is not None:
    MULTI_LABEL += [(IMLNB(threshold=0.1, events="gaussian", **OWN), "gaussian", False)]


@pytest.mark.parametrize(("estimator", "kind", "sparse"), MULTI_LABEL, ids=_ids(MULTI_LABEL))
def test_multi_label_equals_fit(client, estimator, kind, sparse):
    X, _, Y = _data(kind)
    expected = clone(estimator).fit(X, Y)
    model = mlnb_dask.fit(clone(estimator), _dask(X, sparse), _dask(Y, sparse))
    assert_same_model(model, expected, X[::3])


def test_naibx_and_imlnb_are_tested():
    """Reports (as a skip) an estimator module that did not import."""
    missing = [name for name, cls in (("NaiBX", NaiBX), ("IMLNB", IMLNB)) if cls is None]
    if missing:
        pytest.skip(f"not importable yet: {missing}")


@pytest.mark.skipif(not hasattr(LabelPowerset, "merge"), reason="LabelPowerset has no merge")
@pytest.mark.parametrize(
    "estimator", [LabelPowerset(events="gaussian"), RAkEL(k=2, random_state=0, events="gaussian")]
)
def test_powerset_predicts_as_fit(client, estimator):
    """Label sets are classes numbered in the order first seen, which differs between one
    fit and merged partitions: the predictions are compared, not the statistics."""
    X, _, Y = _data("gaussian")
    expected = clone(estimator).fit(X, Y)
    model = mlnb_dask.fit(clone(estimator), _dask(X), _dask(Y))
    np.testing.assert_allclose(model.predict_proba(X), expected.predict_proba(X), atol=TOL)
    np.testing.assert_array_equal(model.predict(X), expected.predict(X))


def test_ensemble_with_row_sampling_equals_merged_partition_models(client):
    """ECC's partial_fit samples rows online, its fit draws exactly 66% of all rows: the
    distributed model equals the per-partition partial_fit models merged, not one fit."""
    X, _, Y = _data("gaussian")
    estimator = EnsembleClassifierChains(n_chains=4, random_state=7, events="gaussian", **OWN)
    expected, start = None, 0
    for size in CHUNKS:
        rows = slice(start, start + size)
        start += size
        if size:
            part = clone(estimator).partial_fit(X[rows], Y[rows])
            expected = part if expected is None else expected.merge(part)
    model = mlnb_dask.fit(clone(estimator), _dask(X), _dask(Y))
    assert [list(o) for o in model.orders_] == [list(o) for o in expected.orders_]
    assert_same_model(model, expected, X[::3])


# ---- inputs -------------------------------------------------------------------------------
def test_column_chunks_sample_weight_and_in_memory_labels(client):
    X, y, _ = _data("counts")
    weight = np.random.default_rng(1).random(len(y)) * 3
    expected = MultinomialNB().fit(X, y, sample_weight=weight)
    X_dask = da.from_array(X, chunks=(CHUNKS, (2, 4))).map_blocks(sp.csr_matrix)
    model = mlnb_dask.fit(MultinomialNB(), X_dask, y, sample_weight=_dask(weight))
    assert_same_model(model, expected, X)


def test_dataframe_with_label_columns_and_empty_partition(client):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, _, Y = _data("gaussian")
    features, labels = [f"x{i}" for i in range(X.shape[1])], [f"l{j}" for j in range(Y.shape[1])]
    frame = pd.DataFrame(np.hstack([X, Y]), columns=features + labels)
    frame[labels] = frame[labels].astype(int)
    parts = [frame.iloc[a:b] for a, b in itertools.pairwise(np.cumsum((0, *CHUNKS)))]
    ddf = dd.concat([dd.from_pandas(p, npartitions=1, sort=False) for p in parts])
    assert ddf.npartitions == len(CHUNKS)
    estimator = BinaryRelevance(events="gaussian", rule="predict")  # as fit: not chosen
    expected = clone(estimator).fit(frame[features], frame[labels])
    model = mlnb_dask.fit(clone(estimator), ddf, labels)
    assert list(model.feature_names_in_) == features
    assert_same_model(model, expected, frame[features])
    proba = mlnb_dask.predict_proba(model, ddf[features]).compute()
    assert proba.index.equals(frame.index)
    np.testing.assert_allclose(proba.to_numpy(), expected.predict_proba(frame[features]))


def test_single_label_dataframe_and_series(client):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y, _ = _data("gaussian")
    frame = pd.DataFrame(X, columns=list("abcdef")).assign(target=np.array(["u", "v", "w"])[y])
    ddf = dd.from_pandas(frame, npartitions=3)
    expected = GaussianNB().fit(frame[list("abcdef")], frame["target"])
    model = mlnb_dask.fit(GaussianNB(), ddf[list("abcdef")], ddf["target"])
    np.testing.assert_array_equal(model.classes_, ["u", "v", "w"])
    assert_same_model(model, expected, frame[list("abcdef")])
    labels = mlnb_dask.predict(model, ddf[list("abcdef")]).compute()
    np.testing.assert_array_equal(labels.to_numpy(), expected.predict(frame[list("abcdef")]))


def test_classes_given_may_hold_unseen_classes(client):
    X, y, _ = _data("gaussian")
    model = mlnb_dask.fit(MultinomialNB(), _dask(np.abs(X)), _dask(y), classes=[0, 1, 2, 5])
    np.testing.assert_array_equal(model.classes_, [0, 1, 2, 5])
    assert model.class_count_[-1] == 0


def assert_identical(got, expected):
    """The same classes and statistics, bit for bit."""
    np.testing.assert_array_equal(got.classes_, expected.classes_)
    assert got.classes_.dtype == expected.classes_.dtype
    fields = ("count", "sums", "m2", "total_count", "total_sums", "total_m2", "observed")
    for field in fields:
        want, have = getattr(expected.stats_, field), getattr(got.stats_, field)
        assert (have is None) == (want is None), field
        if want is not None:
            np.testing.assert_array_equal(have, want, err_msg=field)


@pytest.mark.parametrize(("estimator", "kind", "sparse"), SINGLE_LABEL, ids=_ids(SINGLE_LABEL))
def test_classes_learnt_by_partitions_equal_classes_given(client, estimator, kind, sparse):
    """Issue #31: without ``classes`` every partition learns its own (the first partition
    lacks class 2, the second is empty) and the merge aligns them: the very model fitted
    with every class given, and the in-memory fit."""
    X, y, _ = _data(kind)
    learnt = mlnb_dask.fit(clone(estimator), _dask(X, sparse), _dask(y))
    given = mlnb_dask.fit(clone(estimator), _dask(X, sparse), _dask(y), classes=[0, 1, 2])
    assert_identical(learnt, given)
    X_test = X[::3]
    np.testing.assert_array_equal(learnt.predict_proba(X_test), given.predict_proba(X_test))
    assert_same_model(learnt, clone(estimator).fit(X, y), X_test)


def test_classes_learnt_by_partitions_keep_the_label_type(client):
    X, y, _ = _data("gaussian")
    names = np.array(["a", "bb", "ccc"])[y]  # the longest name in one partition only
    learnt = mlnb_dask.fit(GaussianNB(), _dask(X), _dask(names))
    assert_identical(learnt, mlnb_dask.fit(GaussianNB(), _dask(X), _dask(names), classes=names))
    expected = GaussianNB().fit(X, names)
    assert learnt.classes_.dtype == expected.classes_.dtype
    assert_same_model(learnt, expected, X[::3])


def test_fit_without_classes_reads_y_once():
    """No first pass over y for its classes: each partition of y is computed once, in the
    graph that fits the partition models (the first pass loaded every partition twice)."""
    dask = pytest.importorskip("dask")
    X, y, _ = _data("counts")
    bounds = np.cumsum((0, *CHUNKS))
    loads = []

    def load_y(part):  # a partition's classes, as read from a file
        loads.append(part)
        return y[bounds[part] : bounds[part + 1]]

    parts = [dask.delayed(load_y)(part) for part in range(len(CHUNKS))]
    sizes = zip(parts, CHUNKS, strict=True)
    y_dask = da.concatenate([da.from_delayed(p, shape=(n,), dtype=y.dtype) for p, n in sizes])
    with dask.config.set(scheduler="synchronous"):  # the counter in this thread
        model = mlnb_dask.fit(MultinomialNB(), _dask(X), y_dask)
    assert len(loads) == len(set(loads))  # none twice (Dask may skip the empty one)
    assert set(loads) >= {part for part, n in enumerate(CHUNKS) if n}
    assert_same_model(model, MultinomialNB().fit(X, y), X[::3])


def test_x_and_y_of_one_source_are_computed_once():
    """X and y read together (one load per partition) are loaded once by the fit."""
    dask = pytest.importorskip("dask")
    X, y, _ = _data("counts")
    bounds = np.cumsum((0, *CHUNKS))
    loads = []

    def load(part):  # a partition's rows and classes, as read from one file
        loads.append(part)
        rows = slice(bounds[part], bounds[part + 1])
        return X[rows], y[rows]

    parts = list(zip([dask.delayed(load)(p) for p in range(len(CHUNKS))], CHUNKS, strict=True))
    X_dask = da.concatenate(
        [da.from_delayed(p[0], shape=(n, X.shape[1]), dtype=X.dtype) for p, n in parts]
    )
    y_dask = da.concatenate([da.from_delayed(p[1], shape=(n,), dtype=y.dtype) for p, n in parts])
    with dask.config.set(scheduler="synchronous"):  # the counter in this thread
        model = mlnb_dask.fit(MultinomialNB(), X_dask, y_dask)
    assert len(loads) == len(set(loads))  # none twice (Dask may skip the empty one)
    assert set(loads) >= {part for part, n in enumerate(CHUNKS) if n}
    assert_same_model(model, MultinomialNB().fit(X, y), X[::3])


# ---- prediction ---------------------------------------------------------------------------
@pytest.mark.parametrize("sparse", [False, True])
def test_predict_by_blocks_equals_predict(client, sparse):
    X, y, Y = _data("counts")
    single = MultinomialNB().fit(X, y)
    multi = ClassifierChain(events="multinomial").fit(X, Y)
    X_dask = _dask(X, sparse)
    for model in (single, multi):
        for method in ("predict", "predict_proba"):
            lazy = getattr(mlnb_dask, method)(model, X_dask)
            assert lazy.shape[0] == X.shape[0]
            np.testing.assert_allclose(lazy.compute(), getattr(model, method)(X), atol=1e-12)
    log_proba = mlnb_dask.predict_log_proba(single, X_dask).compute()
    np.testing.assert_allclose(log_proba, single.predict_log_proba(X), atol=1e-12)


# ---- the reduction ------------------------------------------------------------------------
class _Leaf:
    """A stand-in for a fitted model whose merge records the shape of the reduction."""

    def __init__(self, tree):
        self.tree = tree

    def merge(self, other):
        self.tree = (self.tree, other.tree)
        return self


def test_merges_form_a_tree_not_a_linear_fold():
    import dask

    leaves = [dask.delayed(_Leaf)(i) for i in range(5)] + [dask.delayed(None)]
    merged = mlnb_dask.tree_merge(leaves).compute(scheduler="sync")
    assert merged.tree == (((0, 1), (2, 3)), 4)
    merged = mlnb_dask.tree_merge(leaves, split_every=3).compute(scheduler="sync")
    assert merged.tree == (((0, 1), 2), (3, 4))
    assert mlnb_dask.tree_merge([dask.delayed(None)] * 3).compute(scheduler="sync") is None
    with pytest.raises(ValueError, match="split_every"):
        mlnb_dask.tree_merge(leaves, split_every=1)


# ---- errors -------------------------------------------------------------------------------
def test_errors(client):
    X, y, Y = _data("gaussian")
    empty = da.zeros((0, 6), chunks=(0, 6))
    with pytest.raises(ValueError, match="no rows"):
        mlnb_dask.fit(BinaryRelevance(), empty, da.zeros((0, 4), chunks=(0, 4)))
    if not hasattr(LabelPowerset, "merge"):
        with pytest.raises(TypeError, match="no merge"):
            mlnb_dask.fit(LabelPowerset(), _dask(X), _dask(Y))
    with pytest.raises(ValueError, match="base_estimator"):
        mlnb_dask.fit(BinaryRelevance(base_estimator=GaussianNB()), _dask(X), _dask(Y))
    with pytest.raises(TypeError, match="Dask array or DataFrame"):
        mlnb_dask.fit(GaussianNB(), X, y)
    with pytest.raises(ValueError, match="y is required"):
        mlnb_dask.fit(GaussianNB(), _dask(X))
    with pytest.raises(ValueError, match="integer random_state"):
        mlnb_dask.fit(EnsembleClassifierChains(n_chains=2), _dask(X), _dask(Y))
    short = _dask(X).map_blocks(lambda b: b[: len(b) // 2])  # fewer rows than declared
    with pytest.raises(ValueError, match="rows"):
        mlnb_dask.fit(GaussianNB(), short, _dask(y), classes=[0, 1, 2])


def test_import_without_dask_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.array", None)
    monkeypatch.delitem(sys.modules, "mlnb.distributed")
    with pytest.raises(ImportError, match=r'pip install "mlnb\[dask\]"'):
        importlib.import_module("mlnb.distributed")
