"""Model files under faults and hostile input: saves that are killed, that fill the disk or
meet a read-only folder leave the previous file intact; crafted files (method-named state,
wrong shapes or parameters, JSON and size bombs, pipes) fail at load with ModelFileError
naming the file; loading takes no more memory than the arrays the file declares."""

import errno
import io
import json
import multiprocessing
import os
import random
import re
import signal
import time
import tracemalloc
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import mlnb
from mlnb.io import ModelFileError, ModelSaveError, load, read_metadata, save


def counts(n=60, d=6, seed=0):
    rng = np.random.default_rng(seed)
    return rng.poisson(1.0, size=(n, d)), np.arange(n) % 3


def saved(path, model=None):
    """A fitted model saved at ``path``; the model."""
    model = model or mlnb.MultinomialNB().fit(*counts())
    save(model, path)
    return model


def same_model(a, b):
    X, _ = counts(seed=1)
    return type(a) is type(b) and np.array_equal(a.predict_proba(X), b.predict_proba(X))


def others_in(folder, target):
    """What else is in ``folder`` beside ``target`` (e.g. a temporary file left behind)."""
    return sorted(p.name for p in folder.iterdir() if p.name != target.name)


# ---- saving: atomic, with one clear error -------------------------------------------------


def test_save_replaces_the_file_and_keeps_its_permissions(tmp_path):
    path = tmp_path / "model.mlnb"
    saved(path)
    os.chmod(path, 0o640)
    new = saved(path, mlnb.MultinomialNB(alpha=0.5).fit(*counts(seed=2)))
    assert same_model(load(path), new)
    assert path.stat().st_mode & 0o777 == 0o640
    assert others_in(tmp_path, path) == []


def test_save_through_a_symbolic_link_writes_the_linked_file(tmp_path):
    target, link = tmp_path / "real.mlnb", tmp_path / "link.mlnb"
    saved(target)
    link.symlink_to(target)
    new = saved(link, mlnb.MultinomialNB(alpha=0.5).fit(*counts(seed=2)))
    assert link.is_symlink() and same_model(load(target), new)


class FullDisk:
    """A file whose writes fail with ENOSPC once ``room`` bytes have been written."""

    def __init__(self, handle, room):
        self.handle, self.room = handle, room

    def write(self, data):
        self.room -= len(data)
        if self.room < 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return self.handle.write(data)

    def __getattr__(self, name):
        return getattr(self.handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle.close()


def filling_the_disk_after(monkeypatch, room):
    """save's temporary file (opened with os.fdopen) runs out of space after ``room``."""
    real = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: FullDisk(real(fd, *a, **k), room))


@pytest.mark.parametrize("share", [0.0, 0.1, 0.9])
def test_a_full_disk_is_one_clear_error_and_keeps_the_old_file(tmp_path, monkeypatch, share):
    path = tmp_path / "model.mlnb"
    old = saved(path)
    before = path.read_bytes()
    filling_the_disk_after(monkeypatch, int(share * len(before)))  # the new file is as big
    with pytest.raises(ModelSaveError) as caught:
        save(mlnb.MultinomialNB(alpha=0.5).fit(*counts(seed=2)), path)
    error = caught.value
    assert isinstance(error, OSError) and error.errno == errno.ENOSPC
    assert error.filename == str(path) and error.strerror == "No space left on device"
    assert str(error) == (
        f"cannot save the model to {path}: No space left on device ({path} is unchanged)"
    )
    assert path.read_bytes() == before and same_model(load(path), old)
    assert others_in(tmp_path, path) == []  # the temporary file was removed


def test_a_full_disk_on_a_new_file_writes_nothing(tmp_path, monkeypatch):
    path = tmp_path / "new.mlnb"
    filling_the_disk_after(monkeypatch, 100)
    with pytest.raises(ModelSaveError, match=r"No space left on device \(no file was written\)"):
        save(mlnb.MultinomialNB().fit(*counts()), path)
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_save_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "model.mlnb"
    saved(path)
    before = path.read_bytes()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)  # after the whole archive is written
    with pytest.raises(KeyboardInterrupt):
        save(mlnb.MultinomialNB(alpha=0.5).fit(*counts(seed=2)), path)
    assert path.read_bytes() == before and others_in(tmp_path, path) == []


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores permissions")
def test_a_read_only_folder_is_one_clear_error(tmp_path):
    path = tmp_path / "model.mlnb"
    old = saved(path)
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(ModelSaveError, match=r"Permission denied \(.* is unchanged\)"):
            save(old, path)
    finally:
        tmp_path.chmod(0o755)
    assert same_model(load(path), old)


def test_a_folder_without_write_permission_is_one_clear_error(tmp_path, monkeypatch):
    """As the test above, for a user whom permissions bind (root: simulated)."""
    path = tmp_path / "model.mlnb"
    old = saved(path)
    real = os.open

    def refused(name, flags, *args, **kwargs):
        if flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(name))
        return real(name, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refused)
    with pytest.raises(ModelSaveError) as caught:
        save(old, path)
    assert caught.value.errno == errno.EACCES
    assert str(caught.value) == (
        f"cannot save the model to {path}: Permission denied ({path} is unchanged)"
    )
    assert "\n" not in str(caught.value) and same_model(load(path), old)


def test_saving_over_a_directory_or_into_a_missing_folder(tmp_path):
    model = mlnb.MultinomialNB().fit(*counts())
    (tmp_path / "folder").mkdir()
    with pytest.raises(ModelSaveError, match=r"cannot save the model to .*folder: Is a directory"):
        save(model, tmp_path / "folder")
    with pytest.raises(ModelSaveError, match=r"No such file or directory \(no file was written\)"):
        save(model, tmp_path / "absent" / "model.mlnb")
    assert others_in(tmp_path, tmp_path / "folder") == []


def save_until_killed(model, path, saves):
    """In a child process: save ``model`` over ``path`` again and again, counting."""
    for count in range(1, 1000):
        save(model, path)
        saves.value = count
    os._exit(0)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_save_killed_at_any_point_leaves_a_loadable_file(tmp_path):
    """A dozen saves over an existing file, killed (SIGKILL, SIGTERM) at random points of
    their first, second or third save: the file is always the old model or the new one."""
    context = multiprocessing.get_context("fork")  # the child starts with the model fitted
    path = tmp_path / "model.mlnb"
    old = saved(path)
    X = sp.random(40, 10_000, density=0.3, format="csr", random_state=1) * 5
    new = mlnb.MultinomialNB(alpha=0.5).fit(X, np.arange(40) % 8)
    start = time.perf_counter()
    save(new, tmp_path / "new.mlnb")  # how long one save takes here
    seconds = time.perf_counter() - start
    (tmp_path / "new.mlnb").unlink()
    rng = random.Random(30)
    outcomes = []
    for trial in range(12):
        save(old, path)  # the file that existed before
        saves = context.Value("i", 0)  # saves completed
        child = context.Process(target=save_until_killed, args=(new, path, saves))
        child.start()
        done = trial % 3  # killed within its first (done = 0), second or third save
        while saves.value < done and child.is_alive():
            time.sleep(0.001)
        time.sleep(rng.uniform(0.0, (0.5 if done == 0 else 1.0) * seconds))
        child.kill() if trial % 2 else child.terminate()  # SIGKILL, SIGTERM
        child.join(timeout=60)
        assert child.exitcode in (-signal.SIGTERM, -signal.SIGKILL)
        model = load(path)  # never missing, empty or truncated
        outcomes.append("old" if model.n_features_in_ == 6 else "new")
        assert same_model(model, old) if outcomes[-1] == "old" else model.n_features_in_ == 10_000
        if done:
            assert outcomes[-1] == "new"
    assert "old" in outcomes, outcomes  # some kills came before the first save's rename
    left = others_in(tmp_path, path)  # a killed process may leave its temporary file
    assert all(name.startswith(".model.mlnb.") and name.endswith(".tmp") for name in left)


# ---- loading: crafted files fail at load, naming the file and the key ---------------------


def rewrite(path, change):
    """Rewrite the archive with ``change(meta, arrays)`` applied (checksums kept valid)."""
    import hashlib

    with np.load(path, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    meta = json.loads(arrays.pop("__meta__").tobytes())
    change(meta, arrays)
    meta["checksums"] = {
        name: hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()
        for name, a in arrays.items()
    }
    encoded = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(path, "wb") as handle:
        np.savez_compressed(handle, **arrays, __meta__=encoded)


def refused(path, match, **kwargs):
    with pytest.raises(ModelFileError, match=match) as caught:
        load(path, **kwargs)
    assert str(path) in str(caught.value)
    return caught.value


def entry(meta, *keys):
    """The ``__dict__`` of the state (or params) along ``keys`` from the model's root."""
    node = meta["model"]
    for key in keys:
        node = node[key]["__dict__"] if key in ("state", "params") else node[key]
    return node


def array_of(meta, arrays, *keys):
    return arrays[entry(meta, *keys[:-1])[keys[-1]]["__array__"]]


def add_array(arrays, value):
    name = f"a{len(arrays)}"
    arrays[name] = np.asarray(value)
    return {"__array__": name}


def set_state(key, value):
    return lambda meta, arrays: entry(meta, "state").update({key: value(arrays)})


@pytest.mark.parametrize(
    "change,match",
    [
        (set_state("predict", lambda a: add_array(a, np.eye(3))), "attribute 'predict'"),
        (set_state("predict_proba", lambda a: None), "attribute 'predict_proba'"),
        (set_state("__class__", lambda a: None), "attribute '__class__'"),
        (set_state("_parameter_constraints", lambda a: {"__dict__": {}}), "_parameter_constra"),
        (set_state("alpha", lambda a: 5.0), "no fitted attribute 'alpha'"),
        (set_state("n_features_in_", lambda a: "six"), "n_features_in_ must be a count"),
        (set_state("n_features_in_", lambda a: -1), "n_features_in_ must be a count"),
        (set_state("n_features_in_", lambda a: 7), "events_ makes 7 of n_features_in_=7"),
        (set_state("events_", lambda a: add_array(a, [1.0])), "events_ must be of type Event"),
        (set_state("stats_", lambda a: "stats"), "stats_ must be of type GroupStats"),
        (set_state("classes_", lambda a: add_array(a, [0, 1])), "class_count_ does not hold"),
        (set_state("classes_", lambda a: 3), "classes_ must be of type ndarray or list"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_crafted_state_keys_fail_at_load(tmp_path, change, match):
    path = tmp_path / "model.mlnb"
    saved(path)
    rewrite(path, change)
    error = refused(path, match)
    assert "MultinomialNB" in str(error)


@pytest.mark.parametrize(
    "change,match",
    [
        (lambda m, a: entry(m, "state", "stats_", "state").update(sums=add_array(a, [[1.0]])),
         r"GroupStats\.sums must be a numeric array of shape \(3, 6\)"),
        (lambda m, a: entry(m, "state", "stats_", "state").update(
            count=add_array(a, ["a", "b", "c"])), r"GroupStats\.count must be a numeric"),
        (lambda m, a: entry(m, "state", "stats_", "state").pop("sums"), "without fields.*sums"),
        (lambda m, a: entry(m, "state", "stats_", "state").update(predict=None),
         "unknown fields.*predict"),
        (lambda m, a: entry(m, "state", "stats_", "state").update(n_groups=True),
         "n_groups must be a count"),
        (lambda m, a: entry(m, "state", "params_", "state").update(log_phi=None, extra=1),
         "MultinomialParameters with unknown fields .'extra'."),
        (lambda m, a: entry(m, "state", "params_", "state").pop("log_phi"),
         "without fields .'log_phi'."),
        (lambda m, a: entry(m, "state").update(class_log_prior_=add_array(a, np.zeros(4))),
         "class_log_prior_ does not hold one value per class"),
    ],
    ids=["sums-shape", "count-dtype", "no-sums", "stats-key", "n_groups", "params-key",
         "params-missing", "prior-shape"],
)  # fmt: skip
def test_crafted_shapes_and_fields_fail_at_load(tmp_path, change, match):
    path = tmp_path / "model.mlnb"
    saved(path)
    rewrite(path, change)
    refused(path, match)


def test_crafted_event_parameters_fail_at_load(tmp_path):
    path = tmp_path / "model.mlnb"
    saved(path, mlnb.GaussianNB().fit(*counts()))

    def wrong_means(meta, arrays):
        entry(meta, "state", "params_", "state")["mean"] = add_array(arrays, np.zeros((3, 5)))

    rewrite(path, wrong_means)
    refused(path, r"GaussianParameters: the fields .* must be numeric arrays of one shape")


def multi_label_model(path, **params):
    X, _ = counts()
    Y = np.eye(3, dtype=int)[np.arange(len(X)) % 3]
    return saved(path, mlnb.ClassifierChain(**params).fit(X, Y))


@pytest.mark.parametrize(
    "change,match",
    [
        (lambda p: p.update(events="no_such_events"), "unknown event model 'no_such_events'"),
        (lambda p: p.update(prior_alpha=-1.0), "prior_alpha' parameter of ClassifierChain"),
        (lambda p: p.update(beam_width=-1), "'beam_width' parameter of ClassifierChain"),
        (lambda p: p.update(label_prior=3), "'label_prior' parameter of ClassifierChain"),
        (lambda p: p.update(shell="rm -rf /"), "unexpected keyword argument 'shell'"),
    ],
    ids=["events", "prior_alpha", "beam_width", "label_prior", "unknown"],
)
def test_crafted_parameters_fail_at_load(tmp_path, change, match):
    path = tmp_path / "model.mlnb"
    multi_label_model(path, events="multinomial", rule="threshold")
    rewrite(path, lambda meta, arrays: change(entry(meta, "params")))
    refused(path, match)


def test_crafted_single_label_parameters_fail_at_load(tmp_path):
    path = tmp_path / "model.mlnb"
    saved(path)
    rewrite(path, lambda meta, arrays: entry(meta, "params").update(alpha=-1.0))
    refused(path, r"invalid parameters of MultinomialNB: The 'alpha' parameter")
    saved(path, mlnb.MixedNB(blocks=[("multinomial", slice(0, 3)), ("gaussian", [3, 4, 5])]))

    def unknown_block(meta, arrays):
        entry(meta, "params")["blocks"][1]["__tuple__"][0] = "no_such_events"

    rewrite(path, unknown_block)
    refused(path, "invalid parameters of MixedNB: unknown event model 'no_such_events'")


def test_crafted_label_state_fails_at_load(tmp_path):
    path = tmp_path / "model.mlnb"
    multi_label_model(path, events="multinomial", rule="threshold")
    rewrite(path, lambda m, a: entry(m, "state").update(order_=add_array(a, [0, 1, 7])))
    refused(path, r"an order of the labels is not a permutation of 0\.\.2")
    multi_label_model(path, events="multinomial", rule="threshold")
    rewrite(path, lambda m, a: entry(m, "state").update(n_labels_=5))
    refused(path, "classes_ has 3 entries for n_labels_=5")
    multi_label_model(path, events="multinomial", rule="threshold")
    rewrite(path, lambda m, a: entry(m, "state").update(prior_log_odds_=add_array(a, [0.0])))
    refused(path, r"prior_log_odds_ has shape \(1,\) for 3 labels")


def test_a_method_named_key_cannot_reach_predict(tmp_path):
    """The reported attack: "predict" in the state, as an array, shadowed the method."""
    path = tmp_path / "model.mlnb"
    saved(path)
    rewrite(path, set_state("predict", lambda a: add_array(a, np.arange(6))))
    with pytest.raises(ModelFileError, match=r"has no fitted attribute 'predict'"):
        load(path)


# ---- loading: what is not a regular file, and bounded memory ------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_named_pipe_is_refused_without_being_opened(tmp_path):
    fifo = tmp_path / "model.mlnb"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer forever
    for function in (load, read_metadata):
        with pytest.raises(ModelFileError, match=r"model\.mlnb: is a named pipe \(FIFO\)"):
            function(fifo)


def test_devices_and_directories_are_refused(tmp_path):
    if os.path.exists("/dev/zero"):  # reading it would never end
        refused("/dev/zero", "/dev/zero: is a character device, not a model file")
    refused(tmp_path, "is a directory, not a model file")
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "absent.mlnb")


def big_model(path, n_features):
    """A MultinomialNB of ``n_features`` saved at ``path`` (its statistics and parameters:
    ``2 * 3 * n_features`` float64 values); the bytes its arrays declare."""
    X = sp.csr_matrix((np.ones(3), ([0, 1, 2], [0, 0, 0])), shape=(3, n_features))
    saved(path, mlnb.MultinomialNB().fit(X, [0, 1, 2]))
    with zipfile.ZipFile(path) as archive:
        return sum(i.file_size for i in archive.infolist() if i.filename != "__meta__.npy")


def size_bomb(path, n_values):
    """A small model's file with its first array replaced by ``n_values`` float64 zeros
    (deflated about a thousandfold; its checksum no longer matches); the declared bytes."""
    saved(path)
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (n_values,)}
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            if name != "a0.npy":
                archive.writestr(name, data)
                continue
            with archive.open(name, "w", force_zip64=True) as member:
                member.write(header.getvalue())
                for _ in range(n_values // 2**17):
                    member.write(bytes(2**20))
    return 8 * n_values


def peak_of(function, *args, **kwargs):
    tracemalloc.start()
    try:
        result = function(*args, **kwargs)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak, result


def test_loading_takes_the_declared_bytes_and_a_small_constant(tmp_path):
    path = tmp_path / "model.mlnb"
    declared = big_model(path, 1_000_000)  # 2 x 3 x 8 MB of float64 (and smaller arrays)
    assert declared > 48 * 2**20
    peak, model = peak_of(load, path)
    assert peak < declared + 4 * 2**20, f"{peak / declared:.2f} x the declared bytes"
    assert model.n_features_in_ == 1_000_000


def json_model(path, metadata_text):
    """A saved model whose user metadata is ``metadata_text`` (raw JSON)."""
    saved(path)
    with np.load(path, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    text = (
        arrays.pop("__meta__")
        .tobytes()
        .decode()
        .replace('"metadata": {}', f'"metadata": {{"x": {metadata_text}}}')
    )
    with open(path, "wb") as handle:
        np.savez_compressed(handle, **arrays, __meta__=np.frombuffer(text.encode(), np.uint8))


COST = r"parsing its (\d+) bytes of metadata may take (\d+) bytes"


def just_over_the_json(path):
    """A max_bytes that lets the JSON part be read (its declared size, 8 bytes per byte,
    fits beside the arrays) but not parsed (it has brackets, commas or colons)."""
    with zipfile.ZipFile(path) as archive:
        sizes = {info.filename: info.file_size for info in archive.infolist()}
    meta = sizes.pop("__meta__.npy")
    return sum(sizes.values()) + 8 * meta


def test_a_json_bomb_is_refused_within_max_bytes(tmp_path):
    path = tmp_path / "model.mlnb"
    json_model(path, "[" + ",".join(["{}"] * 2_000_000) + "]")  # 6 MB: ~150 MB as objects
    assert path.stat().st_size < 100_000
    for function in (load, read_metadata):
        with pytest.raises(ModelFileError, match=COST + ", more than the .* max_bytes leaves"):
            function(path, max_bytes=2**27)
    # refused from its declared size (8 bytes per byte), before it is decompressed
    peak, error = peak_of(refused, path, COST, max_bytes=2**25)
    assert peak < 2**20 and "may take 48" in str(error)
    error = refused(path, COST, max_bytes=just_over_the_json(path))
    cost = int(re.search(COST, str(error)).group(2))
    assert cost <= 2**30  # within the default max_bytes: it loads, as cost promised
    peak, info = peak_of(read_metadata, path)
    assert len(info["x"]) == 2_000_000 and peak <= cost


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=8) | st.dictionaries(st.text(max_size=4), children, max_size=8)
    ),
    max_leaves=200,
)


@settings(max_examples=40, deadline=None, database=None)
@given(value=json_values, repeat=st.integers(1, 2000))
def test_parsing_metadata_never_takes_more_than_its_counted_cost(tmp_path_factory, value, repeat):
    """Whatever the JSON, reading it takes no more than the cost counted in max_bytes (as
    the refusal reports it), beyond what reading a file with no metadata takes."""
    folder = tmp_path_factory.mktemp("json")
    json_model(folder / "empty.mlnb", "null")
    baseline, _ = peak_of(read_metadata, folder / "empty.mlnb")
    path = folder / "model.mlnb"
    json_model(path, "[" + ",".join([json.dumps(value)] * repeat) + "]")
    with pytest.raises(ModelFileError, match=COST) as caught:
        read_metadata(path, max_bytes=just_over_the_json(path))
    cost = int(re.search(COST, str(caught.value)).group(2))
    peak, info = peak_of(read_metadata, path, max_bytes=None)
    assert info["x"] == [value] * repeat and peak - baseline <= cost


def test_a_declared_size_bomb_takes_at_most_its_declared_size(tmp_path):
    path = tmp_path / "bomb.mlnb"
    declared = size_bomb(path, 2**23)  # 64 MiB of zeros in a file of about 70 kB
    assert path.stat().st_size < declared / 500
    peak, _ = peak_of(refused, path, "more than max_bytes=16777216", max_bytes=16 * 2**20)
    assert peak < 2**20  # refused before anything is decompressed
    peak, _ = peak_of(refused, path, "checksum mismatch in array a0")
    assert peak < declared + 4 * 2**20  # not twice: the checksum is taken while reading


def test_save_refuses_to_replace_a_device_or_a_pipe(tmp_path):
    """A rename over /dev/null or a FIFO would replace it with a model file."""
    import os

    from mlnb import MultinomialNB
    from mlnb.io import ModelSaveError, save

    model = MultinomialNB().fit([[1, 2], [3, 0]], [0, 1])
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for target in (fifo, "/dev/null"):
        with pytest.raises(ModelSaveError, match="not a regular file"):
            save(model, target)
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")
    assert not os.path.isfile(fifo)
