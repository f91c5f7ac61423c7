"""Safe model files: round trips for every estimator, and every kind of bad file."""

import json
import zipfile

import numpy as np
import pytest
from sklearn.svm import LinearSVC

import mlnb
from mlnb.datasets import make_multilabel
from mlnb.io import FORMAT_VERSION, ModelFileError, load, save

SINGLE_LABEL = [
    mlnb.GaussianNB(var_smoothing=1e-3),
    mlnb.MultinomialNB(alpha=0.5, class_prior=[0.2, 0.3, 0.5]),
    mlnb.BernoulliNB(binarize=1.0),
    mlnb.BayesianGaussianNB(a=0.1, b=0.1),
    mlnb.BayesianMultinomialNB(beta=0.1),
    mlnb.BayesianBernoulliNB(a=0.5, b=2.0),
    mlnb.MixedNB(
        blocks=[(mlnb.events.Multinomial(alpha=0.3), slice(0, 5)), ("gaussian", [5, 6, 7])]
    ),
]
MULTI_LABEL = [
    mlnb.BinaryRelevance(events="multinomial"),
    mlnb.ClassifierChain(events=mlnb.events.Bernoulli(alpha=0.5), inference="beam", order="random"),
    mlnb.EnsembleClassifierChains(n_chains=3, events="multinomial", random_state=0),
    mlnb.DynamicChain(events="multinomial", beta=2.0, random_state=0),
    mlnb.KNNChain(order="local_f1", random_state=0),
    mlnb.OOCC(n_orders=4, events="multinomial", random_state=0),
    mlnb.NaiBX(events="multinomial"),
    mlnb.GeneticChainEnsemble(n_chains=3, n_generations=2, events="multinomial", random_state=0),
    mlnb.LabelPowerset(events="multinomial"),
    mlnb.RAkEL(events="multinomial", random_state=0),
]


def data():
    X, Y = make_multilabel(120, 8, 4, features="counts", doc_length=20, random_state=0)
    y = np.array(["red", "green", "blue"])[np.arange(len(X)) % 3]
    return X, Y, y


@pytest.mark.parametrize("model", SINGLE_LABEL + MULTI_LABEL, ids=lambda m: type(m).__name__)
def test_round_trip_predicts_identically(model, tmp_path):
    X, Y, y = data()
    target = Y if model in MULTI_LABEL else y
    fitted = model.fit(X, target)
    path = tmp_path / "model.mlnb"
    save(fitted, path)
    restored = load(path)
    assert type(restored) is type(fitted)
    assert repr(restored.get_params()) == repr(fitted.get_params())
    np.testing.assert_array_equal(restored.predict(X), fitted.predict(X))
    if hasattr(fitted, "predict_proba"):
        np.testing.assert_array_equal(restored.predict_proba(X), fitted.predict_proba(X))
    # the restored model keeps learning as the original does
    if hasattr(fitted, "partial_fit") and model in SINGLE_LABEL:
        np.testing.assert_array_equal(
            restored.partial_fit(X[:10], target[:10]).predict_proba(X),
            fitted.partial_fit(X[:10], target[:10]).predict_proba(X),
        )


def saved(tmp_path):
    X, _, y = data()
    path = tmp_path / "model.mlnb"
    save(mlnb.MultinomialNB().fit(X, y), path)
    return path


def rewrite(path, change):
    """Rewrite the archive with ``change(meta, arrays)`` applied."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    meta = json.loads(arrays.pop("__meta__").tobytes())
    change(meta, arrays)
    encoded = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(path, "wb") as handle:  # np.savez would add ".npz" to a path
        np.savez(handle, **arrays, __meta__=encoded)


def test_truncated_foreign_and_missing_files(tmp_path):
    path = saved(tmp_path)
    content = path.read_bytes()
    path.write_bytes(content[: len(content) // 2])
    with pytest.raises(ModelFileError, match="not a readable mlnb model file"):
        load(path)
    path.write_bytes(b"just some text, not a model")
    with pytest.raises(ModelFileError, match="not a readable"):
        load(path)
    with open(path, "wb") as handle:
        np.savez(handle, x=np.arange(3))
    with pytest.raises(ModelFileError, match="no metadata"):
        load(path)
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "absent.mlnb")


def test_tampered_arrays_and_newer_versions(tmp_path):
    path = saved(tmp_path)

    def tamper(meta, arrays):
        name = next(k for k, a in arrays.items() if a.dtype.kind == "f")
        arrays[name] = arrays[name] + 1

    rewrite(path, tamper)
    with pytest.raises(ModelFileError, match="checksum mismatch"):
        load(path)
    path = saved(tmp_path)
    rewrite(path, lambda meta, arrays: meta.update(format_version=FORMAT_VERSION + 1))
    with pytest.raises(ModelFileError, match="upgrade mlnb"):
        load(path)
    path = saved(tmp_path)
    rewrite(path, lambda meta, arrays: meta["model"].update({"__object__": "os.system"}))
    with pytest.raises(ModelFileError, match=r"does not load: 'os\.system'"):
        load(path)


def test_archive_holds_no_pickle(tmp_path):
    path = saved(tmp_path)
    with np.load(path, allow_pickle=False) as archive:  # raises on any pickled member
        assert all(not archive[name].dtype.hasobject for name in archive.files)
    with zipfile.ZipFile(path) as archive:
        assert all(name.endswith(".npy") for name in archive.namelist())


def test_what_cannot_be_saved():
    X, Y, _ = data()
    with pytest.raises(TypeError, match="generic base_estimator"):
        save(mlnb.BinaryRelevance(base_estimator=LinearSVC()).fit(X, Y), "unused")
    with pytest.raises(TypeError, match="mlnb estimators"):
        save(LinearSVC(), "unused")
