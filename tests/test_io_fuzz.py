"""Fuzzed model files: a flipped, truncated or spliced file of any estimator is a
ModelFileError or a model that predicts exactly as the original, and loading it never
allocates much memory."""

import collections
import contextlib
import io
import tracemalloc
import zipfile
from dataclasses import dataclass
from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

import mlnb
from mlnb.datasets import make_multilabel
from mlnb.estimators import test_instances
from mlnb.io import ModelFileError, load, read_metadata, save
from mlnb.text import make_text_pipeline

# Every kind of model the library saves (a constructor each), fitted on tiny data.
SINGLE_LABEL = {
    "GaussianNB": lambda: mlnb.GaussianNB(),
    "MultinomialNB": lambda: mlnb.MultinomialNB(alpha=0.5),
    "BernoulliNB": lambda: mlnb.BernoulliNB(binarize=1.0),
    "ComplementNB": lambda: mlnb.ComplementNB(norm=True),
    "CategoricalNB": lambda: mlnb.CategoricalNB(),
    "BayesianGaussianNB": lambda: mlnb.BayesianGaussianNB(),
    "BayesianMultinomialNB": lambda: mlnb.BayesianMultinomialNB(),
    "BayesianBernoulliNB": lambda: mlnb.BayesianBernoulliNB(),
    "MixedNB": lambda: mlnb.MixedNB(blocks=[("multinomial", slice(0, 4)), ("gaussian", [4, 5])]),
}
MULTI_LABEL = {
    "BinaryRelevance": lambda: mlnb.BinaryRelevance(events="multinomial"),
    "ClassifierChain": lambda: mlnb.ClassifierChain(events="bernoulli", order="random"),
    "EnsembleClassifierChains": lambda: mlnb.EnsembleClassifierChains(
        n_chains=2, events="multinomial", random_state=0
    ),
    "DynamicChain": lambda: mlnb.DynamicChain(events="multinomial", random_state=0),
    "KNNChain": lambda: mlnb.KNNChain(random_state=0),
    "OOCC": lambda: mlnb.OOCC(n_orders=2, events="multinomial", random_state=0),
    "NaiBX": lambda: mlnb.NaiBX(events="multinomial"),
    "IMLNB": lambda: mlnb.IMLNB(events="multinomial"),
    "DynamicChainEnsemble": lambda: mlnb.DynamicChainEnsemble(
        n_chains=2, events="multinomial", random_state=0
    ),
    "GeneticChainEnsemble": lambda: mlnb.GeneticChainEnsemble(
        n_chains=2, n_generations=1, events="multinomial", random_state=0
    ),
    "LabelPowerset": lambda: mlnb.LabelPowerset(events="multinomial"),
    "RAkEL": lambda: mlnb.RAkEL(events="multinomial", random_state=0),
    "TunedThresholdsCV": lambda: mlnb.TunedThresholdsCV(mlnb.BinaryRelevance()),
}


def _others(kinds):
    """Constructors of the test instances of the estimators (of ``kinds``) left out above."""
    covered = {*SINGLE_LABEL, *MULTI_LABEL}
    return {
        name: partial(clone, model)
        for kind in kinds
        for name, model in test_instances(kind)
        if type(model).__name__ not in covered
    }


# every other estimator, as its _unit_test_params say: a new one is fuzzed too
SINGLE_LABEL.update(_others(["single_label"]))
MULTI_LABEL.update(_others(["multi_label", "meta"]))  # mlnb's meta-estimator is multi-label
KINDS = [*SINGLE_LABEL, *MULTI_LABEL, "text pipeline"]
LIMIT = 4 * 2**20  # the most memory a load of one of these (~5 kB) files may take
OUTCOMES = collections.Counter()  # (mutation, outcome): reported at the end of the module


@dataclass(repr=False)
class Original:
    content: bytes
    X: object
    predictions: tuple

    def __repr__(self):  # short, in hypothesis's reports
        return f"<a {len(self.content)}-byte model file>"


def predictions(model, X):
    """What must not change: the predictions, and the probabilities if any."""
    return (
        model.predict(X),
        *([model.predict_proba(X)] if hasattr(model, "predict_proba") else []),
    )


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    """Each kind's saved file and predictions (fitted once per module)."""
    X, Y = make_multilabel(40, 6, 3, features="counts", doc_length=10, random_state=0)
    y = np.arange(len(X)) % 3
    docs = [
        " ".join(["ball goal", "vote tax", "the team"][c] for _ in range(1 + i % 3))
        for i, c in enumerate(y)
    ]
    path = tmp_path_factory.mktemp("originals") / "model.mlnb"
    files = {}
    for kind in KINDS:
        if kind == "text pipeline":
            model, data = make_text_pipeline(mlnb.MultinomialNB()).fit(docs, y), docs
        else:
            multi = kind in MULTI_LABEL
            model = {**SINGLE_LABEL, **MULTI_LABEL}[kind]().fit(X, Y if multi else y)
            data = X
        save(model, path)
        files[kind] = Original(path.read_bytes(), data, predictions(model, data))
    yield files
    print("\nfuzzed model files (mutation, outcome): count")
    for (mutation, outcome), count in sorted(OUTCOMES.items()):
        print(f"  {mutation:9} {outcome:22} {count}")


@pytest.fixture(scope="module")
def case_path(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz") / "case.mlnb"


def check(mutation, content, candidates, path):
    """Load ``content``: a ModelFileError, or a model predicting as one of ``candidates``."""
    path.write_bytes(content)
    with contextlib.suppress(ModelFileError):  # read_metadata: the same errors
        assert isinstance(read_metadata(path), dict)
    tracemalloc.start()
    try:
        model = load(path)
    except ModelFileError as error:
        assert str(path) in str(error)
        outcome = "ModelFileError"
    else:
        outcome = "identical predictions"
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < LIMIT, f"loading a {len(content)}-byte file took {peak} bytes"
    if outcome != "ModelFileError":
        assert any(same_predictions(model, original) for original in candidates), (
            f"{mutation}: a {type(model).__name__} that predicts differently"
        )
    OUTCOMES[mutation, outcome] += 1


def same_predictions(model, original):
    if isinstance(original.X, list) != hasattr(model, "steps"):  # text or not
        return False
    try:
        got = predictions(model, original.X)
    except ValueError:  # e.g. another model's number of features or labels
        return False
    return len(got) == len(original.predictions) and all(
        a.shape == b.shape and np.array_equal(a, b)
        for a, b in zip(got, original.predictions, strict=True)
    )


kinds = st.sampled_from(KINDS)


@settings(max_examples=300, deadline=None, database=None)
@given(kind=kinds, data=st.data())
def test_flipped_bytes(originals, case_path, kind, data):
    content = bytearray(originals[kind].content)
    positions = st.integers(0, len(content) - 1)
    for position, mask in data.draw(
        st.lists(st.tuples(positions, st.integers(1, 255)), min_size=1, max_size=3)
    ):
        content[position] ^= mask
    check("flip", bytes(content), [originals[kind]], case_path)


@settings(max_examples=100, deadline=None, database=None)
@given(kind=kinds, data=st.data())
def test_truncated_files(originals, case_path, kind, data):
    content = originals[kind].content
    check("truncate", content[: data.draw(st.integers(0, len(content) - 1))], [], case_path)


@settings(max_examples=150, deadline=None, database=None)
@given(first=kinds, second=kinds, data=st.data())
def test_spliced_bytes(originals, case_path, first, second, data):
    """The start of one file followed by the end of another (or of the same) file."""
    a, b = originals[first].content, originals[second].content
    cut_a, cut_b = data.draw(st.integers(0, len(a))), data.draw(st.integers(0, len(b)))
    candidates = [originals[first], originals[second]]
    check("splice", a[:cut_a] + b[cut_b:], candidates, case_path)


def members(content):
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


@settings(max_examples=100, deadline=None, database=None)
@given(first=kinds, second=kinds, data=st.data())
def test_spliced_members(originals, case_path, first, second, data):
    """One file's archive with some members taken from another file, or left out (the
    zip entries intact, their CRCs valid)."""
    ours = members(originals[first].content)
    theirs = dict(members(originals[second].content))
    swaps = data.draw(st.lists(st.booleans(), min_size=len(ours), max_size=len(ours)))
    dropped = data.draw(st.none() | st.integers(0, len(ours) - 1))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for index, ((name, raw), swap) in enumerate(zip(ours, swaps, strict=True)):
            if index != dropped:
                archive.writestr(name, theirs.get(name, raw) if swap else raw)
    check("members", buffer.getvalue(), [originals[first], originals[second]], case_path)


def reshaped(content, name, array):
    """``content`` with its array ``name`` replaced by ``array``, the checksum valid."""
    import hashlib
    import json

    with np.load(io.BytesIO(content), allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    meta = json.loads(arrays.pop("__meta__").tobytes())
    arrays[name] = array
    meta["checksums"][name] = hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()
    buffer = io.BytesIO()
    encoded = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(buffer, **arrays, __meta__=encoded)
    return buffer.getvalue()


def misshapen(array):
    """Plausible mistakes of a hand-made file: an entry short, an extra axis, text."""
    if array.ndim and len(array) > 1:
        yield "shorter", array[:-1]
    if array.ndim:
        yield "extra axis", array[None]
    if array.dtype.kind == "f":
        yield "text", array.astype(str)


@pytest.mark.parametrize("kind", KINDS)
def test_misshapen_arrays_fail_at_load_not_in_predict(originals, case_path, kind):
    """Every array of a model's file replaced by a misshapen one (valid checksums): a
    ModelFileError at load, or a model that predicts without error."""
    original = originals[kind]
    with np.load(io.BytesIO(original.content), allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files if k != "__meta__"}
    for name, array in arrays.items():
        for mistake, wrong in misshapen(array):
            case_path.write_bytes(reshaped(original.content, name, wrong))
            try:
                model = load(case_path)
            except ModelFileError as error:
                assert str(case_path) in str(error)
                OUTCOMES["misshapen", "ModelFileError"] += 1
                continue
            try:
                predictions(model, original.X)
            except Exception as error:
                raise AssertionError(f"{kind}: {name} {mistake}: loads, then {error!r}") from None
            OUTCOMES["misshapen", "predicts"] += 1
