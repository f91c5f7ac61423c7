"""Safe model files: round trips for every estimator, and every kind of bad file."""

import hashlib
import json
import zipfile

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC

import mlnb
from mlnb.datasets import make_multilabel
from mlnb.io import FORMAT_VERSION, ModelFileError, load, read_metadata, save
from mlnb.text import make_text_pipeline, word_counter

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
    mlnb.ComplementNB(alpha=0.5, norm=True),
    mlnb.CategoricalNB(alpha=0.5, max_categories=40),
]
MULTI_LABEL = [
    mlnb.BinaryRelevance(events="multinomial"),
    mlnb.ClassifierChain(events=mlnb.events.Bernoulli(alpha=0.5), inference="beam", order="random"),
    mlnb.EnsembleClassifierChains(n_chains=3, events="multinomial", random_state=0),
    mlnb.DynamicChain(events="multinomial", beta=2.0, random_state=0),
    mlnb.KNNChain(order="local_f1", random_state=0),
    mlnb.OOCC(n_orders=4, events="multinomial", random_state=0),
    mlnb.NaiBX(events="multinomial"),
    mlnb.IMLNB(events="multinomial", threshold=0.1),
    mlnb.DynamicChainEnsemble(n_chains=3, events="multinomial", random_state=0),
    mlnb.GeneticChainEnsemble(n_chains=3, n_generations=2, events="multinomial", random_state=0),
    mlnb.LabelPowerset(events="multinomial"),
    mlnb.RAkEL(events="multinomial", random_state=0),
    mlnb.TunedThresholdsCV(mlnb.BinaryRelevance(events="multinomial")),
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


def test_every_public_estimator_is_covered_above():
    """A new estimator in mlnb.__all__ must get a round trip here (and a CLI name)."""
    public = {
        getattr(mlnb, name)
        for name in mlnb.__all__
        if isinstance(getattr(mlnb, name), type) and hasattr(getattr(mlnb, name), "fit")
    }
    missing = public - {type(model) for model in SINGLE_LABEL + MULTI_LABEL}
    assert not missing, f"add to SINGLE_LABEL or MULTI_LABEL: {sorted(c.__name__ for c in missing)}"


WORDS = np.array(["ball", "goal", "team", "win", "vote", "law", "party", "tax", "the", "a-b"])


def documents(n=90, seed=0):
    """Short documents of three topics over a small vocabulary (a shared word: "the")."""
    rng = np.random.default_rng(seed)
    y = np.array(["sport", "politics", "other"])[np.arange(n) % 3]
    topics = {"sport": [0, 1, 2, 3, 8], "politics": [4, 5, 6, 7, 8], "other": list(range(10))}
    docs = [" ".join(rng.choice(WORDS[topics[c]], size=rng.integers(3, 9))) for c in y]
    return docs, y


@pytest.mark.parametrize(
    "pipeline",
    [
        make_text_pipeline(mlnb.MultinomialNB(alpha=0.5)),
        make_text_pipeline(mlnb.BayesianGaussianNB(a=0.1, b=0.1)),  # with the TF-IDF step
        make_text_pipeline(mlnb.BernoulliNB(), vectorizer=word_counter(ngram_range=(1, 2))),
        make_text_pipeline(
            mlnb.BayesianMultinomialNB(),
            vectorizer=CountVectorizer(stop_words=["the"], min_df=2, dtype=np.float32),
            tfidf=True,
        ),
    ],
    ids=["counts", "tfidf", "bigrams", "sklearn-options"],
)
def test_text_pipeline_round_trip(pipeline, tmp_path):
    docs, y = documents()
    fitted = pipeline.fit(docs, y)
    path = tmp_path / "text.mlnb"
    save(fitted, path)
    restored = load(path)
    assert [name for name, _ in restored.steps] == [name for name, _ in fitted.steps]
    assert restored.steps[0][1].vocabulary_ == fitted.steps[0][1].vocabulary_
    assert repr(restored) == repr(fitted)
    new = ["ball ball team", "tax law", "unknown words only", ""]
    np.testing.assert_array_equal(restored.predict(new), fitted.predict(new))
    np.testing.assert_array_equal(restored.predict_proba(docs), fitted.predict_proba(docs))
    with np.load(path, allow_pickle=False) as archive:  # the vocabulary is arrays, not JSON
        meta = archive["__meta__"].tobytes().decode()
    assert "goal" not in meta and "__vocabulary__" in meta


def test_text_pipelines_that_cannot_be_saved():
    docs, y = documents(30)
    custom = make_text_pipeline(
        mlnb.MultinomialNB(), vectorizer=CountVectorizer(tokenizer=str.split, token_pattern=None)
    )
    with pytest.raises(TypeError, match="tokenizer function cannot be saved"):
        save(custom.fit(docs, y), "unused")
    reading_files = make_text_pipeline(
        mlnb.MultinomialNB(), vectorizer=word_counter(input="filename")
    )
    with pytest.raises(TypeError, match="input='filename'"):
        save(reading_files, "unused")
    cached = Pipeline([("counts", word_counter()), ("nb", mlnb.MultinomialNB())], memory="cache")
    with pytest.raises(TypeError, match="memory=None"):
        save(cached, "unused")
    foreign = Pipeline([("counts", word_counter()), ("svm", LinearSVC())]).fit(docs, y)
    with pytest.raises(TypeError, match="cannot save a LinearSVC"):
        save(foreign, "unused")


def saved_text(tmp_path):
    docs, y = documents(30)
    path = tmp_path / "text.mlnb"
    save(make_text_pipeline(mlnb.MultinomialNB()).fit(docs, y), path)
    return path


def vectorizer_entry(meta):
    return meta["model"]["params"]["__dict__"]["steps"][0]["__tuple__"][1]


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda v: v["params"]["__dict__"].update(input="filename"), "input='filename'"),
        (lambda v: v["params"]["__dict__"].update(analyzer="tokens"), "analyzer must be"),
        (lambda v: v["params"]["__dict__"].update(dtype={"__dtype__": "object"}), "dtype"),
        (lambda v: v["state"]["__dict__"].update(stop_words_={"__dict__": {}}), "unexpected"),
        (lambda v: v["params"]["__dict__"].update(shell="rm -rf"), "inconsistent model file"),
    ],
    ids=["input", "analyzer", "dtype", "attribute", "parameter"],
)
def test_tampered_text_models_are_refused(tmp_path, change, message):
    path = saved_text(tmp_path)
    rewrite(path, lambda meta, arrays: change(vectorizer_entry(meta)))
    with pytest.raises(ModelFileError, match=message):
        load(path)


def test_tampered_vocabulary_is_refused(tmp_path):
    path = saved_text(tmp_path)

    def break_offsets(meta, arrays):
        name = vectorizer_entry(meta)["state"]["__dict__"]["vocabulary_"]["__vocabulary__"][1]
        arrays[name["__array__"]] = arrays[name["__array__"]][::-1].copy()
        new = np.ascontiguousarray(arrays[name["__array__"]]).tobytes()
        meta["checksums"][name["__array__"]] = hashlib.sha256(new).hexdigest()

    rewrite(path, break_offsets)
    with pytest.raises(ModelFileError, match="malformed list of strings"):
        load(path)


def test_metadata(tmp_path):
    path = tmp_path / "model.mlnb"
    X, _, y = data()
    save(mlnb.MultinomialNB().fit(X, y), path, metadata={"data": "webkb", "params": ["a=1"]})
    info = read_metadata(path)
    assert info["data"] == "webkb" and info["params"] == ["a=1"]
    assert info["class"] == "mlnb.naive_bayes.MultinomialNB"
    assert info["format_version"] == FORMAT_VERSION
    save(mlnb.MultinomialNB().fit(X, y), path)
    assert set(read_metadata(path)) == {"class", "format_version", "mlnb_version"}
    with pytest.raises(TypeError, match="plain JSON"):
        save(mlnb.MultinomialNB().fit(X, y), path, metadata={"bad": {1, 2}})
    with pytest.raises(TypeError, match="must be a dict"):
        save(mlnb.MultinomialNB().fit(X, y), path, metadata=["a"])
    path.write_text("not a model")
    with pytest.raises(ModelFileError, match="not a readable"):
        read_metadata(path)


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


def test_a_parameter_this_version_lacks_is_a_model_file_error(tmp_path):
    import io as io_module

    from mlnb import BinaryRelevance
    from mlnb.io import ModelFileError

    X, Y = np.random.default_rng(0).normal(size=(20, 3)), np.eye(2, dtype=int)[[0, 1] * 10]
    path = tmp_path / "old.mlnb"
    save(BinaryRelevance().fit(X, Y), path)
    with np.load(path, allow_pickle=False) as archive:
        members = {name: archive[name] for name in archive.files}
    meta = json.loads(members["__meta__"].tobytes().decode("utf-8"))
    meta["model"]["params"]["__dict__"]["label_alpha"] = 1.0  # as BinaryRelevance once had
    members["__meta__"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    buffer = io_module.BytesIO()
    np.savez_compressed(buffer, **members)
    path.write_bytes(buffer.getvalue())
    with pytest.raises(ModelFileError, match=r"BinaryRelevance.*label_alpha"):
        load(path)
