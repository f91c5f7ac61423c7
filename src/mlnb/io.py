"""Safe model files: arrays in an ``.npz`` archive plus JSON metadata, never pickle.

A model file holds a fitted mlnb estimator: its class, its hyper-parameters and its fitted
state (statistics, cached estimates, orders, ...), written as plain arrays and JSON.
Loading reads arrays with ``allow_pickle=False`` and builds objects only from a fixed list
of classes, so opening a file cannot run code. Each array carries a SHA-256 checksum;
a truncated, tampered or foreign file, or one of a newer format version, raises
:class:`ModelFileError` with the reason. ``save(..., metadata={...})`` adds a JSON
dictionary (what the model was trained on, say), read back by :func:`read_metadata`.

Text models. A classifier on documents is the scikit-learn ``Pipeline`` that
:func:`mlnb.text.make_text_pipeline` builds: ``CountVectorizer`` -> optional
:class:`~mlnb.text.LogTfidfTransformer` (mlnb's, on the list) -> mlnb classifier. Rather
than a wrapper class of our own, the two scikit-learn classes are on the list, so the same
object serves in Python, in scikit-learn tools (grid search, cross-validation), on the
command line and in model files. They are admitted narrowly, because their parameters and
fitted state are plain data:

- ``Pipeline``: its steps (names and whitelisted objects) and ``verbose``; ``memory``
  (a cache folder written to on fit) must be None;
- ``CountVectorizer``: strings, numbers and tuples, the dtype by name, and the vocabulary
  (stored as UTF-8 bytes plus offsets, not as a JSON object); ``input`` must be
  ``"content"`` (not file names to open), ``analyzer`` one of its named modes, and a
  callable ``tokenizer``, ``preprocessor`` or ``analyzer`` cannot be saved at all.

Of these two classes only the fitted attributes ``vocabulary_`` and ``fixed_vocabulary_``
are restored, after the same checks of the parameters as on saving; a file with anything
else is refused.

Examples
--------
>>> import numpy as np, tempfile, os
>>> from mlnb import MultinomialNB
>>> from mlnb.io import load, save
>>> model = MultinomialNB().fit(np.array([[2, 0], [0, 3]]), [0, 1])
>>> path = os.path.join(tempfile.mkdtemp(), "model.mlnb")
>>> save(model, path)
>>> load(path).predict([[1, 0]])
array([0])
"""

from __future__ import annotations

import functools
import hashlib
import io as _io
import json
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

__all__ = ["FORMAT_VERSION", "ModelFileError", "load", "read_metadata", "save"]

FORMAT_VERSION = 1
_MAGIC = "mlnb-model"
_META = "__meta__"


class ModelFileError(ValueError):
    """A model file that cannot be read: truncated, tampered, foreign or too new."""


@functools.cache
def _allowed_classes():
    """The classes a model file may name: mlnb's estimators, event models and statistics,
    the text transformer, and the two scikit-learn classes of a text pipeline."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import Pipeline

    import mlnb
    from mlnb import stats, text

    classes = [
        getattr(mlnb, name) for name in mlnb.__all__ if isinstance(getattr(mlnb, name), type)
    ]
    classes += [stats.GroupStats, text.LogTfidfTransformer, Pipeline, CountVectorizer]
    return {f"{cls.__module__}.{cls.__qualname__}": cls for cls in classes}


def _loadable_classes():
    """What a model file may name: :func:`_allowed_classes`, and the estimators, event
    models and parameter classes defined so far (mlnb's and a user's subclasses)."""
    from mlnb._state import registered_classes

    return {**registered_classes(), **_allowed_classes()}


# Foreign (scikit-learn) classes: the fitted attributes restored, and the check of their
# parameters, applied when saving and again when loading.
_PIPELINE = "sklearn.pipeline.Pipeline"
_VECTORIZER = "sklearn.feature_extraction.text.CountVectorizer"
_FOREIGN_STATE = {_PIPELINE: (), _VECTORIZER: ("vocabulary_", "fixed_vocabulary_")}


def _check_foreign_params(name, params):
    """Refuse parameters of a foreign class that are not plain, harmless data."""
    if name == _PIPELINE:
        if params.get("memory") is not None:
            raise TypeError(
                "a Pipeline with memory= (a cache folder) cannot be saved; set memory=None"
            )
        return
    for key in ("tokenizer", "preprocessor"):
        if params.get(key) is not None:
            raise TypeError(
                f"a CountVectorizer with a {key} function cannot be saved without pickle; "
                "use token_pattern (a regular expression) instead"
            )
    if params.get("analyzer") not in ("word", "char", "char_wb"):
        raise TypeError(
            "a CountVectorizer's analyzer must be 'word', 'char' or 'char_wb' to be saved; "
            f"got {params.get('analyzer')!r}"
        )
    if params.get("input") != "content":
        raise TypeError(
            f"a CountVectorizer reading input={params.get('input')!r} cannot be saved; "
            "model files hold vectorizers of text content (input='content')"
        )


class _Writer:
    """Turns an object tree into JSON-able values, collecting arrays on the side."""

    def __init__(self):
        self.arrays = {}

    def array(self, value):
        value = np.asarray(value)
        if value.dtype.hasobject:
            if not all(isinstance(v, str) for v in value.flat):
                raise TypeError("object arrays other than strings cannot be saved safely")
            value = value.astype(str)
        name = f"a{len(self.arrays)}"
        self.arrays[name] = np.ascontiguousarray(value)
        return {"__array__": name}

    def strings(self, values):
        """A sequence of strings as UTF-8 bytes plus end offsets (two compact arrays)."""
        encoded = [v.encode("utf-8") for v in values]
        ends = np.cumsum([len(b) for b in encoded], dtype=np.int64)
        data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        return [self.array(data), self.array(ends)]

    def vocabulary(self, vocabulary):
        """A ``{term: column}`` dictionary as its terms in column order."""
        terms = [None] * len(vocabulary)
        for term, column in vocabulary.items():
            terms[int(column)] = term
        if any(not isinstance(t, str) for t in terms):
            raise TypeError("a vocabulary must map distinct strings to columns 0..n-1")
        return {"__vocabulary__": self.strings(terms)}

    def foreign(self, value, name):
        params = value.get_params(deep=False)
        _check_foreign_params(name, params)
        state = {}
        for key in _FOREIGN_STATE[name]:
            if hasattr(value, key):
                attr = getattr(value, key)
                state[key] = self.vocabulary(attr) if key == "vocabulary_" else self.encode(attr)
        return {"__object__": name, "params": self.encode(params), "state": {"__dict__": state}}

    def encode(self, value):
        from mlnb.events import EventModel, Parameters
        from mlnb.stats import GroupStats

        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, (int, float, np.integer, np.floating, np.bool_)):
            return value.item() if isinstance(value, np.generic) else value
        if isinstance(value, np.ndarray):
            return self.array(value)
        if sp.issparse(value):
            value = sp.csr_matrix(value)
            return {
                "__csr__": [
                    self.array(value.data),
                    self.array(value.indices),
                    self.array(value.indptr),
                    list(value.shape),
                ]
            }
        if isinstance(value, slice):
            return {"__slice__": [value.start, value.stop, value.step]}
        if isinstance(value, tuple):
            return {"__tuple__": [self.encode(v) for v in value]}
        if isinstance(value, list):
            return [self.encode(v) for v in value]
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                raise TypeError("only dictionaries with string keys can be saved")
            return {"__dict__": {k: self.encode(v) for k, v in value.items()}}
        if isinstance(value, np.random.RandomState):
            return {"__random_state__": self.encode(value.get_state())}
        if isinstance(value, type) and issubclass(value, np.generic):
            return {"__dtype__": _dtype_name(value)}
        name = _qualified(value)
        if name in _FOREIGN_STATE:
            return self.foreign(value, name)
        mlnb_object = _is_mlnb_estimator(value) or isinstance(
            value, (GroupStats, EventModel, Parameters)
        )
        if mlnb_object and name not in _loadable_classes():
            raise TypeError(
                f"cannot save a {type(value).__name__}: {name} is not a class model files may hold"
            )
        if isinstance(value, Parameters):
            return {"__object__": name, "state": self.encode(vars(value))}
        if isinstance(value, GroupStats):
            state = {k: v for k, v in vars(value).items() if not k.startswith("_")}  # no caches
            return {"__object__": _qualified(value), "state": self.encode(state)}
        if isinstance(value, EventModel) or _is_mlnb_estimator(value):
            return {
                "__object__": _qualified(value),
                "params": self.encode(value.get_params(deep=False)),
                "state": self.encode(_fitted_state(value)),
            }
        raise TypeError(
            f"cannot save a {type(value).__name__} safely; model files hold mlnb estimators "
            "(a generic base_estimator from another library cannot be saved without pickle)"
        )


class _Reader:
    """Rebuilds the object tree from JSON values and checked arrays."""

    def __init__(self, arrays, classes):
        self.arrays, self.classes = arrays, classes

    def decode(self, value):
        if isinstance(value, list):
            return [self.decode(v) for v in value]
        if not isinstance(value, dict):
            return value
        (tag, body), *rest = value.items()
        if tag == "__array__":
            return self.arrays[body]
        if tag == "__csr__":
            data, indices, indptr, shape = body
            return sp.csr_matrix(
                (self.decode(data), self.decode(indices), self.decode(indptr)), shape=tuple(shape)
            )
        if tag == "__slice__":
            return slice(*body)
        if tag == "__tuple__":
            return tuple(self.decode(v) for v in body)
        if tag == "__dict__":
            return {k: self.decode(v) for k, v in body.items()}
        if tag == "__random_state__":
            state = np.random.RandomState()
            state.set_state(self.decode(body))
            return state
        if tag == "__dtype__":
            dtype = np.dtype(str(body))
            if dtype.kind not in "biuf":
                raise ModelFileError(f"the file names a dtype mlnb does not load: {body!r}")
            return dtype.type
        if tag == "__vocabulary__":
            terms = _decode_strings(*(self.decode(v) for v in body))
            if len(set(terms)) != len(terms):
                raise ModelFileError("the vocabulary repeats a term")
            return {term: column for column, term in enumerate(terms)}
        if tag == "__object__":
            cls = self.classes.get(body)
            if cls is None:
                raise ModelFileError(f"the file names a class mlnb does not load: {body!r}")
            fields = dict(rest)
            if body in _FOREIGN_STATE:
                return self.foreign(cls, body, fields)
            if "params" in fields:
                params = self.decode(fields["params"])
                try:
                    obj = cls(**params)
                except TypeError as error:  # e.g. a parameter an older mlnb had
                    raise ModelFileError(
                        f"the parameters of {cls.__name__} in the file do not fit this version "
                        f"of mlnb: {error}"
                    ) from None
            else:
                obj = cls.__new__(cls)
            vars(obj).update(self.decode(fields["state"]))
            return obj
        raise ModelFileError(f"unknown entry {tag!r} in the model file")

    def foreign(self, cls, name, fields):
        params = self.decode(fields["params"])
        state = self.decode(fields["state"])
        if not isinstance(params, dict) or not isinstance(state, dict):
            raise ModelFileError(f"malformed {name} entry")
        unexpected = sorted(set(state) - set(_FOREIGN_STATE[name]))
        if unexpected:
            raise ModelFileError(f"{name} with unexpected attributes {unexpected}")
        try:
            _check_foreign_params(name, params)
        except TypeError as error:
            raise ModelFileError(str(error)) from None
        obj = cls(**params)
        vars(obj).update(state)
        return obj


def _qualified(obj):
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


def _is_mlnb_estimator(value):
    """An mlnb estimator or event model, or a user's subclass of one."""
    from mlnb._state import Registered

    return hasattr(value, "get_params") and isinstance(value, Registered)


def _dtype_name(scalar_type):
    dtype = np.dtype(scalar_type)
    if dtype.kind not in "biuf":
        raise TypeError(f"cannot save the dtype {dtype}: model files hold numeric dtypes")
    return dtype.name


def _decode_strings(data, ends):
    data, ends = np.asarray(data), np.asarray(ends)
    if data.dtype != np.uint8 or ends.ndim != 1 or ends.dtype.kind not in "iu":
        raise ModelFileError("malformed list of strings")
    if ends.size and (ends[-1] != data.size or np.any(np.diff(ends) < 0) or ends[0] < 0):
        raise ModelFileError("malformed list of strings")
    raw = data.tobytes()
    starts = np.concatenate([[0], ends[:-1]]).tolist()
    return [raw[a:b].decode("utf-8") for a, b in zip(starts, ends.tolist(), strict=True)]


def _fitted_state(estimator):
    """Everything set on the estimator beyond its constructor parameters."""
    params = set(estimator.get_params(deep=False))
    return {k: v for k, v in vars(estimator).items() if k not in params}


def _checksum(array):
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


def _is_text_pipeline(value):
    return _qualified(value) == _PIPELINE


def save(estimator, path, *, metadata=None):
    """Write a fitted estimator to ``path`` (an ``.npz`` archive of arrays and JSON; no pickle).

    Parameters
    ----------
    estimator : mlnb estimator or text pipeline
        An mlnb estimator, or a scikit-learn ``Pipeline`` of whitelisted steps such as
        :func:`mlnb.text.make_text_pipeline` builds (see the module docstring).
    path : str or Path
        The file to write (any name; the command line uses ``.mlnb``).
    metadata : dict, optional
        JSON-able information stored beside the model; see :func:`read_metadata`.
    """
    import mlnb

    if not (_is_mlnb_estimator(estimator) or _is_text_pipeline(estimator)):
        raise TypeError(
            "save writes mlnb estimators (and text pipelines of them); "
            f"got {type(estimator).__name__}"
        )
    if metadata is not None:
        if not isinstance(metadata, dict):
            raise TypeError(f"metadata must be a dict; got {type(metadata).__name__}")
        try:
            metadata = json.loads(json.dumps(metadata, allow_nan=False))
        except (TypeError, ValueError) as error:
            raise TypeError(f"metadata must be plain JSON data ({error})") from None
    writer = _Writer()
    root = writer.encode(estimator)
    meta = {
        "format": _MAGIC,
        "format_version": FORMAT_VERSION,
        "mlnb_version": mlnb.__version__,
        "class": root["__object__"],
        "model": root,
        "metadata": metadata or {},
        "checksums": {name: _checksum(a) for name, a in writer.arrays.items()},
    }
    meta_bytes = np.frombuffer(json.dumps(meta, allow_nan=True).encode("utf-8"), dtype=np.uint8)
    buffer = _io.BytesIO()
    np.savez_compressed(buffer, **writer.arrays, **{_META: meta_bytes})
    Path(path).write_bytes(buffer.getvalue())


def _read(path, *, arrays=True):
    """The checked metadata of a model file, and its checked arrays (or None)."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            if _META not in archive.files:
                raise ModelFileError(f"{path}: not an mlnb model file (no metadata)")
            meta = json.loads(archive[_META].tobytes().decode("utf-8"))
            names = [name for name in archive.files if name != _META]
            stored = {name: archive[name] for name in names} if arrays else None
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, UnicodeDecodeError) as error:
        if isinstance(error, FileNotFoundError):
            raise
        raise ModelFileError(f"{path}: not a readable mlnb model file ({error})") from None
    if not isinstance(meta, dict) or meta.get("format") != _MAGIC:
        raise ModelFileError(f"{path}: not an mlnb model file")
    version = meta.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ModelFileError(
            f"{path}: written in model-file format {version} by mlnb "
            f"{meta.get('mlnb_version')}; this mlnb reads format {FORMAT_VERSION} and older: "
            "upgrade mlnb"
        )
    checksums = meta.get("checksums", {})
    if not isinstance(checksums, dict) or set(checksums) != set(names):
        raise ModelFileError(f"{path}: the arrays do not match the metadata (tampered file?)")
    for name, array in (stored or {}).items():
        if _checksum(array) != checksums[name]:
            raise ModelFileError(f"{path}: checksum mismatch in array {name} (tampered file?)")
    return meta, stored


def load(path):
    """Read a model file written by :func:`save`; raises ModelFileError if it is unreadable."""
    path = Path(path)
    meta, arrays = _read(path)
    try:
        return _Reader(arrays, _loadable_classes()).decode(meta["model"])
    except ModelFileError as error:
        raise ModelFileError(f"{path}: {error}") from None
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{path}: inconsistent model file ({error})") from None


def read_metadata(path):
    """The ``metadata`` dictionary saved with a model (empty if none), without loading it.

    Only the JSON part of the file is read and checked (not the arrays: use :func:`load`
    for that). Its format, mlnb version and class are added under the keys
    ``"format_version"``, ``"mlnb_version"`` and ``"class"``.
    """
    meta, _ = _read(Path(path), arrays=False)
    metadata = meta.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise ModelFileError(f"{path}: malformed metadata")
    return {
        **metadata,
        "format_version": meta["format_version"],
        "mlnb_version": meta.get("mlnb_version"),
        "class": meta.get("class"),
    }
