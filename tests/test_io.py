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
from mlnb.estimators import all_estimators, test_instances
from mlnb.io import DEFAULT_MAX_BYTES, FORMAT_VERSION, ModelFileError, load, read_metadata, save
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
    mlnb.BaggedBinaryRelevance(n_estimators=3, events="multinomial", random_state=0),
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


def _others():
    """Test instances of the estimators that the lists leave out."""
    covered = {type(model) for model in SINGLE_LABEL + MULTI_LABEL}
    return [model for _, model in test_instances() if type(model) not in covered]


# every other estimator, as its _unit_test_params say: a new one gets a round trip here
SINGLE_LABEL += [m for m in _others() if type(m) in all_estimators("single_label")]
MULTI_LABEL += _others()  # multi-label and meta (mlnb's wraps a multi-label estimator)


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
    """Every estimator gets a round trip here: a case above or its test instances."""
    public = set(all_estimators())
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
    with pytest.raises(ModelFileError, match=r"\(found text, not an mlnb model file\)"):
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
    with pytest.raises(ModelFileError, match=r"\(found text, not an mlnb model file\)"):
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


# Hand-made bad files: each must be a ModelFileError naming the file, never numpy's,
# zipfile's or zlib's own exception, and nothing large may be allocated on the way.


def zip_entries(content):
    """``(local header offset, data offset, central entry offset)`` of each member."""
    entries = []
    with zipfile.ZipFile(io_bytes(content)) as archive:
        for info in archive.infolist():
            local = info.header_offset
            name_length, extra_length = np.frombuffer(content[local + 26 : local + 30], "<u2")
            entries.append((info.filename, local, local + 30 + name_length + extra_length))
    central = [i for i in range(len(content)) if content[i : i + 4] == b"PK\1\2"]
    return [(*entry, offset) for entry, offset in zip(entries, central, strict=True)]


def io_bytes(content):
    import io

    return io.BytesIO(content)


def patched(content, offset, new):
    return content[:offset] + new + content[offset + len(new) :]


def write_archive(path, members, compression=zipfile.ZIP_DEFLATED):
    """A zip of raw ``{name: bytes}`` members (headers written by hand)."""
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def npy_bytes(array, shape=None):
    """An .npy member for ``array``, its header declaring ``shape`` (a lie, if given)."""
    header = {"descr": np.lib.format.dtype_to_descr(array.dtype), "fortran_order": False}
    header["shape"] = array.shape if shape is None else shape
    buffer = io_bytes(b"")
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue() + array.tobytes()


def members_of(path):
    """The raw ``{name: bytes}`` members of a saved model."""
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def raises_model_file_error(path, match, **kwargs):
    """load and read_metadata both refuse ``path`` with a message naming it."""
    for function in (load, read_metadata):
        with pytest.raises(ModelFileError, match=match) as caught:
            function(path, **kwargs)
        assert str(path) in str(caught.value)
    return caught.value


def test_zlib_corruption_is_a_model_file_error(tmp_path):
    import zlib

    path = saved(tmp_path)
    content = path.read_bytes()
    _, _, data, _ = next(e for e in zip_entries(content) if e[0] == "__meta__.npy")
    path.write_bytes(patched(content, data, b"\xff"))  # deflate block type 3: invalid
    error = raises_model_file_error(path, "damaged or truncated archive")
    assert isinstance(error.__cause__, zlib.error)
    central = zip_entries(content)[0][3]
    path.write_bytes(patched(content, central + 6, b"\x63\x00"))  # needs zip version 9.9
    error = raises_model_file_error(path, "damaged or truncated archive")
    assert isinstance(error.__cause__, NotImplementedError)
    path.write_bytes(patched(content, central + 8, b"\x20\x00"))  # "compressed patched data"
    raises_model_file_error(path, "is encrypted or patched")
    path.write_bytes(patched(content, central + 10, b"\x0e\x00"))  # method 14 (LZMA)
    raises_model_file_error(path, "compression method 14")


def test_a_member_declaring_a_huge_shape_allocates_nothing(tmp_path):
    import tracemalloc

    path = saved(tmp_path)
    members = members_of(path)
    name = next(n for n in members if n != "__meta__.npy")
    with np.load(path, allow_pickle=False) as archive:
        array = archive[name[:-4]]
    members[name] = npy_bytes(array, shape=(10**12,))  # 7.28 TiB of float64
    write_archive(path, members)
    for max_bytes in (DEFAULT_MAX_BYTES, None):
        tracemalloc.start()
        with pytest.raises(ModelFileError, match=r"shape \(1000000000000,\)"):
            load(path, max_bytes=max_bytes)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 4 * 2**20
    members[name] = npy_bytes(np.zeros(0), shape=(0, 9_999_999_999_999_999_999))
    write_archive(path, members)
    with pytest.raises(ModelFileError, match="impossible shape"):
        load(path)  # read_metadata reads no array header


def test_a_zip_directory_declaring_a_huge_size_is_refused(tmp_path):
    path = saved(tmp_path)
    write_archive(path, members_of(path))  # no zip64 fields: sizes at fixed offsets
    content = path.read_bytes()
    name, local, _, central = zip_entries(content)[0]
    huge = np.array([2**32 - 2], "<u4").tobytes()
    path.write_bytes(patched(patched(content, local + 22, huge), central + 24, huge))
    raises_model_file_error(path, f"member {name} declares 4294967294 bytes", max_bytes=None)


def test_max_bytes_refuses_a_zip_bomb_before_decompressing(tmp_path):
    import tracemalloc

    path = tmp_path / "bomb.mlnb"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("__meta__.npy", npy_bytes(np.frombuffer(b"{}", np.uint8)))
        with archive.open("a0.npy", "w", force_zip64=True) as member:
            member.write(npy_bytes(np.zeros(0), shape=(8 * 2**20,)))  # 64 MiB of zeros
            for _ in range(64):
                member.write(bytes(2**20))
    assert path.stat().st_size < 2**20
    tracemalloc.start()
    raises_model_file_error(path, "more than max_bytes=16777216", max_bytes=16 * 2**20)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4 * 2**20


def test_max_bytes(tmp_path):
    path = saved(tmp_path)
    assert load(path, max_bytes=None).predict(data()[0]).shape == (120,)
    assert DEFAULT_MAX_BYTES == 2**30
    raises_model_file_error(path, "max_bytes=1000; if you trust the file", max_bytes=1000)
    with pytest.raises(TypeError, match="max_bytes must be an int"):
        load(path, max_bytes="1")
    with pytest.raises(ValueError, match="max_bytes must be >= 0"):
        read_metadata(path, max_bytes=-1)


def replace_metadata_text(path, old, new):
    """Rewrite the JSON part as text (for JSON that json.dumps cannot write)."""
    members = members_of(path)
    with np.load(path, allow_pickle=False) as archive:
        text = archive["__meta__"].tobytes().decode()
    assert old in text
    encoded = np.frombuffer(text.replace(old, new).encode(), np.uint8)
    members["__meta__.npy"] = npy_bytes(encoded)
    write_archive(path, members)


def test_deeply_nested_json_is_refused(tmp_path):
    path = saved(tmp_path)
    depth = 200_000
    replace_metadata_text(
        path, '"metadata": {}', '"metadata": {"x": ' + "[" * depth + "]" * depth + "}"
    )
    raises_model_file_error(path, f"nests {depth + 2} levels deep; the limit is 100")
    path = saved(tmp_path)  # brackets inside strings do not count
    replace_metadata_text(path, '"metadata": {}', '"metadata": {"x": "' + "[{" * depth + '"}')
    assert read_metadata(path)["x"] == "[{" * depth


@pytest.mark.parametrize(
    "state,message",
    [
        ({"__tuple__": ["MT19937"]}, r"malformed random state \(IndexError"),
        ({"__tuple__": ["PCG64", {"__array__": "a0"}, 0, 0, 0.0]}, "malformed random state"),
        ("MT19937", "malformed random state"),
        ({"__dict__": []}, "malformed __dict__ entry"),
        ({}, "an empty entry"),
        ({"__array__": ["a0"]}, "missing array"),
        ({"__csr__": [1, 2]}, "malformed __csr__ entry"),
        ({"__slice__": [0, "a", None]}, "malformed __slice__"),
        ({"__dtype__": "float3"}, "unknown dtype"),
        ({"__object__": ["os.system"]}, "does not load"),
    ],
    ids=lambda v: str(v)[:20],
)
def test_malformed_entries_are_model_file_errors(tmp_path, state, message):
    path = saved(tmp_path)
    value = state if "random" not in message else {"__random_state__": state}
    rewrite(path, lambda meta, arrays: meta["model"]["state"]["__dict__"].update(rng_=value))
    with pytest.raises(ModelFileError, match=message) as caught:
        load(path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(
    "kind,content,found",
    [
        ("pickle", None, "a Python pickle, which mlnb never loads"),
        ("text", b"alpha=1.0\nclass_prior=None\n", "text"),
        ("empty", b"", "an empty file"),
        ("npy", npy_bytes(np.arange(3)), r"a single NumPy \.npy array"),
        ("binary", bytes(range(256)), "binary data of an unknown kind"),
    ],
)
def test_foreign_files_say_what_they_are(tmp_path, kind, content, found):
    import pickle

    path = tmp_path / "model.mlnb"
    if content is None:
        content = pickle.dumps(mlnb.MultinomialNB().fit(*data()[::2]))
    path.write_bytes(content)
    error = raises_model_file_error(
        path, rf"not a readable mlnb model file \(found {found}, not an mlnb model file\)"
    )
    assert "allow_pickle" not in str(error) and "pickle.load" not in str(error)


def test_other_archives_and_paths(tmp_path):
    path = tmp_path / "model.mlnb"
    write_archive(path, {"notes.txt": b"hello"})
    raises_model_file_error(path, "not an mlnb model file .*no metadata member __meta__.npy")
    model = saved(tmp_path)
    write_archive(path, {**members_of(model), "../evil.npy": b""})
    raises_model_file_error(path, "unexpected member")
    raises_model_file_error(tmp_path, "is a directory, not a model file")
