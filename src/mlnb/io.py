"""Safe model files: arrays in an ``.npz`` archive plus JSON metadata, never pickle.

A model file holds a fitted mlnb estimator: its class, its hyper-parameters and its fitted
state (statistics, cached estimates, orders, ...), written as plain arrays and JSON.
Loading never unpickles and builds objects only from a fixed list of classes, so opening a
file cannot run code. It checks each layer (zip directory, array headers, JSON, checksums)
before decoding the next, and the sizes the file declares against ``max_bytes`` before
allocating anything; a truncated, corrupt, crafted or foreign file, or one of a newer format
version, raises :class:`ModelFileError` naming the file and the problem. The checksums
detect corruption, not tampering: a crafted file with valid checksums loads, so load only
files you trust (docs/model_files.md). ``save(..., metadata={...})`` adds a JSON
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
import math
import os
import re
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np
import scipy.sparse as sp

__all__ = ["DEFAULT_MAX_BYTES", "FORMAT_VERSION", "ModelFileError", "load", "read_metadata", "save"]

FORMAT_VERSION = 1
_MAGIC = "mlnb-model"
_META = "__meta__"


class ModelFileError(ValueError):
    """A model file that cannot be read: truncated, corrupt, crafted, foreign, over the size
    limit or too new."""


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
    from mlnb._registered import registered_classes

    allowed = _allowed_classes()  # first: it imports the estimators, which registers them
    return {**registered_classes(), **allowed}


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
    """Rebuilds the object tree from JSON values and checked arrays.

    A file can be crafted with valid checksums, so every entry's shape is checked and the
    errors of the constructors it calls (numpy, scipy, the estimators) become
    ModelFileError; the nesting depth was bounded when the JSON was parsed.
    """

    def __init__(self, arrays, classes):
        self.arrays, self.classes = arrays, classes

    def decode(self, value):
        if isinstance(value, list):
            return [self.decode(v) for v in value]
        if not isinstance(value, dict):
            return value
        if not value:
            raise ModelFileError("an empty entry in the model file")
        (tag, body), *rest = value.items()
        if tag == "__array__":
            if not isinstance(body, str) or body not in self.arrays:
                raise ModelFileError(f"the file refers to a missing array {body!r}")
            return self.arrays[body]
        if tag == "__csr__":
            _expect(body, list, tag, length=4)
            data, indices, indptr, shape = (self.decode(v) for v in body)
            try:
                return sp.csr_matrix((data, indices, indptr), shape=tuple(shape))
            except (TypeError, ValueError, IndexError) as error:
                raise ModelFileError(f"malformed sparse matrix ({error})") from error
        if tag == "__slice__":
            _expect(body, list, tag, length=3)
            if not all(v is None or type(v) is int for v in body):
                raise ModelFileError("malformed __slice__ entry")
            return slice(*body)
        if tag == "__tuple__":
            return tuple(self.decode(v) for v in _expect(body, list, tag))
        if tag == "__dict__":
            return {k: self.decode(v) for k, v in _expect(body, dict, tag).items()}
        if tag == "__random_state__":
            state = np.random.RandomState()
            try:
                state.set_state(self.decode(body))
            except (TypeError, ValueError, IndexError, KeyError) as error:
                raise ModelFileError(
                    f"malformed random state ({type(error).__name__}: {error})"
                ) from error
            return state
        if tag == "__dtype__":
            try:
                dtype = np.dtype(str(body))
            except TypeError as error:
                raise ModelFileError(f"the file names an unknown dtype: {body!r}") from error
            if dtype.kind not in "biuf":
                raise ModelFileError(f"the file names a dtype mlnb does not load: {body!r}")
            return dtype.type
        if tag == "__vocabulary__":
            _expect(body, list, tag, length=2)
            terms = _decode_strings(*(self.decode(v) for v in body))
            if len(set(terms)) != len(terms):
                raise ModelFileError("the vocabulary repeats a term")
            return {term: column for column, term in enumerate(terms)}
        if tag == "__object__":
            cls = self.classes.get(body) if isinstance(body, str) else None
            if cls is None:
                raise ModelFileError(f"the file names a class mlnb does not load: {body!r}")
            fields = dict(rest)
            if body in _FOREIGN_STATE:
                return self.foreign(cls, body, fields)
            if "params" in fields:
                params = self.decode(fields["params"])
                if not isinstance(params, dict):
                    raise ModelFileError(f"malformed parameters of {cls.__name__}")
                try:
                    obj = cls(**params)
                except TypeError as error:  # e.g. a parameter an older mlnb had
                    raise ModelFileError(
                        f"the parameters of {cls.__name__} in the file do not fit this version "
                        f"of mlnb: {error}"
                    ) from None
            else:
                obj = cls.__new__(cls)
            state = self.decode(fields.get("state"))
            if not isinstance(state, dict):
                raise ModelFileError(f"malformed fitted state of {cls.__name__}")
            vars(obj).update(state)
            return obj
        raise ModelFileError(f"unknown entry {tag!r} in the model file")

    def foreign(self, cls, name, fields):
        params = self.decode(fields.get("params"))
        state = self.decode(fields.get("state"))
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


def _expect(body, kind, tag, length=None):
    """``body`` if it is a ``kind`` (of ``length`` items), else a ModelFileError."""
    if not isinstance(body, kind) or (length is not None and len(body) != length):
        raise ModelFileError(f"malformed {tag} entry in the model file")
    return body


def _qualified(obj):
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


def _is_mlnb_estimator(value):
    """An mlnb estimator or event model, or a user's subclass of one."""
    from mlnb._registered import Registered

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


# Reading. Every layer (the file, the zip archive, each .npy member, the JSON, the object
# tree) checks what it is given and turns its own failures into a ModelFileError.

DEFAULT_MAX_BYTES = 2**30
"""Default ``max_bytes`` of :func:`load` and :func:`read_metadata`: 1 GiB of decoded members."""

_MAX_META_BYTES = 64 * 2**20  # the JSON part: parsed into Python objects, so kept smaller
_MAX_DEPTH = 100  # JSON nesting (mlnb's own files nest less than 20 deep)
_MAX_RATIO = 1032  # deflate cannot expand data more than this
_MAX_HEADER = 4096  # an .npy header written by numpy is 128 bytes or a little more
_CHUNK = 2**22
_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    EOFError,
    NotImplementedError,
    struct.error,
    OSError,
    ValueError,
)
_NPY_HEADER = re.compile(
    r"\{'descr': '([<>|=]?[biufcUS][0-9]{1,9})', 'fortran_order': (True|False), "
    r"'shape': \(((?:[0-9]{1,19}, )*(?:[0-9]{1,19},?)?)\), \} *\n"
)
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_JSON_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _found(head):
    """What a file that is not a zip archive looks like, from its first bytes."""
    if not head:
        return "an empty file"
    if head.startswith(b"\x93NUMPY"):
        return "a single NumPy .npy array"
    if head[0] == 0x80 and len(head) > 1 and 2 <= head[1] <= 5:
        return "a Python pickle, which mlnb never loads"
    if b"\0" not in head:
        for cut in range(4):  # the first bytes may end inside a multi-byte character
            try:
                head[: len(head) - cut].decode("utf-8")
                return "text"
            except UnicodeDecodeError:
                pass
    return "binary data of an unknown kind"


def _check_max_bytes(max_bytes):
    if max_bytes is None:
        return
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, np.integer)):
        raise TypeError(f"max_bytes must be an int or None; got {type(max_bytes).__name__}")
    if max_bytes < 0:
        raise ValueError(f"max_bytes must be >= 0; got {max_bytes}")


def _check_members(path, infos, file_size, max_bytes):
    """Check the zip directory before decompressing anything: the members' names, methods,
    offsets and declared sizes (against the file's size, deflate's ratio and max_bytes)."""
    names = [info.filename for info in infos]
    if len(set(names)) != len(names):
        raise ModelFileError(f"{path}: the archive repeats a member name")
    if _META + ".npy" not in names:
        raise ModelFileError(
            f"{path}: not an mlnb model file (found a zip archive with no metadata member "
            f"{_META}.npy)"
        )
    for info in infos:
        name = info.filename
        if not name.endswith(".npy") or "/" in name or "\\" in name:
            raise ModelFileError(f"{path}: unexpected member {name!r} in the archive")
        if info.flag_bits & 0x61:
            raise ModelFileError(f"{path}: member {name} is encrypted or patched")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise ModelFileError(
                f"{path}: member {name} uses compression method {info.compress_type}, "
                "which mlnb does not read"
            )
        if info.header_offset + info.compress_size > file_size:
            raise ModelFileError(
                f"{path}: member {name} extends past the end of the file (truncated file?)"
            )
        expandable = (
            info.compress_size
            if info.compress_type == zipfile.ZIP_STORED
            else _MAX_RATIO * info.compress_size + 64
        )
        if info.file_size > expandable:
            raise ModelFileError(
                f"{path}: member {name} declares {info.file_size} bytes, more than its "
                f"{info.compress_size} stored bytes can hold (corrupt or crafted file)"
            )
    meta_size = next(info.file_size for info in infos if info.filename == _META + ".npy")
    if meta_size > _MAX_META_BYTES:
        raise ModelFileError(
            f"{path}: the metadata declares {meta_size} bytes; the limit is {_MAX_META_BYTES}"
        )
    total = sum(info.file_size for info in infos)
    if max_bytes is not None and total > max_bytes:
        raise ModelFileError(
            f"{path}: the file declares {total} bytes of decoded arrays, more than "
            f"max_bytes={max_bytes}; if you trust the file, pass a larger max_bytes (or None)"
        )


def _read_header(handle, path, name, size):
    """Shape, dtype and order of an .npy member, from its header (numpy's own format)."""
    magic = handle.read(8)
    if len(magic) < 8 or magic[:6] != b"\x93NUMPY" or magic[6:] not in (b"\1\0", b"\2\0"):
        raise ModelFileError(f"{path}: member {name} is not a NumPy array of a known version")
    width = 2 if magic[6] == 1 else 4
    length = int.from_bytes(handle.read(width), "little")
    if length > _MAX_HEADER:
        raise ModelFileError(f"{path}: member {name} has an over-long array header")
    header = handle.read(length)
    match = _NPY_HEADER.fullmatch(header.decode("latin-1"))
    if len(header) != length or match is None:
        raise ModelFileError(f"{path}: member {name} has a malformed array header")
    descr, fortran, shape = match.groups()
    try:
        dtype = np.dtype(descr)
    except TypeError as error:
        raise ModelFileError(f"{path}: member {name} has an unknown dtype {descr!r}") from error
    shape = tuple(int(n) for n in shape.replace(",", " ").split())
    declared = math.prod(shape) * dtype.itemsize
    if dtype.itemsize == 0 or declared != size - 8 - width - length:
        raise ModelFileError(
            f"{path}: member {name} declares an array of shape {shape} and dtype {dtype} "
            f"({declared} bytes) but holds {size - 8 - width - length} bytes of data"
        )
    return shape, dtype, fortran == "True"


def _read_member(archive, info, path):
    """One member as an array, its header checked before any allocation."""
    name = info.filename
    with archive.open(info) as handle:
        shape, dtype, fortran = _read_header(handle, path, name, info.file_size)
        try:  # a Fortran-ordered array is read as its C-ordered transpose
            array = np.empty(shape[::-1] if fortran else shape, dtype=dtype)
        except ValueError as error:  # a dimension beyond what numpy can index
            raise ModelFileError(f"{path}: member {name} has an impossible shape") from error
        view = memoryview(array.reshape(-1)).cast("B")
        done = 0
        while done < len(view):
            read = handle.readinto(view[done : done + _CHUNK])
            if not read:
                raise ModelFileError(f"{path}: member {name} is truncated")
            done += read
        if handle.read(1):  # reading to the end also checks the member's CRC-32
            raise ModelFileError(f"{path}: member {name} holds more data than declared")
    return array.T if fortran else array


def _json_depth(text):
    """How deeply a JSON text nests (its strings skipped), computed without recursion."""
    brackets = _JSON_NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    steps = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    steps = np.where((steps == ord("[")) | (steps == ord("{")), 1, -1).astype(np.int32)
    return int(np.cumsum(steps).max(initial=0))


def _parse_meta(raw, path):
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise ModelFileError(f"{path}: malformed metadata member")
    try:
        text = raw.tobytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise ModelFileError(f"{path}: the metadata is not UTF-8 text ({error})") from error
    depth = _json_depth(text)
    if depth > _MAX_DEPTH:
        raise ModelFileError(
            f"{path}: the metadata nests {depth} levels deep; the limit is {_MAX_DEPTH}"
        )
    try:
        return json.loads(text)
    except ValueError as error:  # JSONDecodeError, or a number too long to convert
        raise ModelFileError(f"{path}: the metadata is not valid JSON ({error})") from error


def _open(path):
    """The file, opened for reading: a missing file raises FileNotFoundError as usual."""
    try:
        return open(path, "rb")
    except IsADirectoryError as error:
        raise ModelFileError(f"{path}: is a directory, not a model file") from error
    except FileNotFoundError:
        raise
    except OSError as error:
        raise ModelFileError(f"{path}: cannot be read ({error})") from error


def _read(path, *, arrays=True, max_bytes=DEFAULT_MAX_BYTES):
    """The checked metadata of a model file, and its checked arrays (or None)."""
    _check_max_bytes(max_bytes)
    with _open(path) as handle:
        try:
            file_size = os.fstat(handle.fileno()).st_size
            head = handle.read(512)
            handle.seek(0)
        except OSError as error:
            raise ModelFileError(f"{path}: cannot be read ({error})") from error
        if not head.startswith((b"PK\3\4", b"PK\5\6")):
            raise ModelFileError(
                f"{path}: not a readable mlnb model file (found {_found(head)}, "
                "not an mlnb model file)"
            )
        try:
            with zipfile.ZipFile(handle) as archive:
                infos = archive.infolist()
                _check_members(path, infos, file_size, max_bytes)
                by_name = {info.filename[: -len(".npy")]: info for info in infos}
                meta = _parse_meta(_read_member(archive, by_name.pop(_META), path), path)
                stored = None
                if arrays:
                    stored = {name: _read_member(archive, i, path) for name, i in by_name.items()}
        except ModelFileError:
            raise
        except _ZIP_ERRORS as error:
            raise ModelFileError(
                f"{path}: not a readable mlnb model file (damaged or truncated archive: {error})"
            ) from error
    _check_meta(meta, path, names=list(by_name))
    for name, array in (stored or {}).items():
        if _checksum(array) != meta["checksums"][name]:
            raise ModelFileError(f"{path}: checksum mismatch in array {name} (corrupt file)")
    return meta, stored


def _check_meta(meta, path, names):
    if not isinstance(meta, dict) or meta.get("format") != _MAGIC:
        raise ModelFileError(f"{path}: not an mlnb model file (no mlnb metadata)")
    version = meta.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ModelFileError(
            f"{path}: written in model-file format {version} by mlnb "
            f"{meta.get('mlnb_version')}; this mlnb reads format {FORMAT_VERSION} and older: "
            "upgrade mlnb"
        )
    checksums = meta.get("checksums", {})
    if (
        not isinstance(checksums, dict)
        or set(checksums) != set(names)
        or not all(isinstance(value, str) for value in checksums.values())
    ):
        raise ModelFileError(f"{path}: the arrays do not match the metadata (corrupt file)")
    model = meta.get("model")
    if not isinstance(model, dict) or not isinstance(model.get("__object__"), str):
        raise ModelFileError(f"{path}: the metadata holds no model")
    if not isinstance(meta.get("metadata", {}), dict):
        raise ModelFileError(f"{path}: malformed metadata")


def load(path, *, max_bytes=DEFAULT_MAX_BYTES):
    """Read a model file written by :func:`save`.

    Parameters
    ----------
    path : str or Path
        The model file.
    max_bytes : int or None, default=DEFAULT_MAX_BYTES (1 GiB)
        The most bytes the file's members may decode to, checked against the sizes the
        file declares before anything is decompressed or allocated; None for no limit.

    Returns
    -------
    estimator
        The fitted estimator (or text pipeline).

    Raises
    ------
    ModelFileError
        If the file is not an mlnb model file, or is corrupt, truncated, crafted, over
        ``max_bytes`` or of a newer format (FileNotFoundError if it does not exist).
    """
    path = Path(path)
    meta, arrays = _read(path, max_bytes=max_bytes)
    try:
        return _Reader(arrays, _loadable_classes()).decode(meta["model"])
    except ModelFileError as error:
        raise ModelFileError(f"{path}: {error}") from error
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise ModelFileError(
            f"{path}: inconsistent model file ({type(error).__name__}: {error})"
        ) from error


def read_metadata(path, *, max_bytes=DEFAULT_MAX_BYTES):
    """The ``metadata`` dictionary saved with a model (empty if none), without loading it.

    Only the JSON part of the file is decoded and checked (not the arrays: use
    :func:`load` for that), but ``max_bytes`` applies to the sizes all members declare,
    as in :func:`load`. Its format, mlnb version and class are added under the keys
    ``"format_version"``, ``"mlnb_version"`` and ``"class"``.

    Raises
    ------
    ModelFileError
        As :func:`load`.
    """
    meta, _ = _read(Path(path), arrays=False, max_bytes=max_bytes)
    return {
        **(meta.get("metadata") or {}),
        "format_version": meta["format_version"],
        "mlnb_version": meta.get("mlnb_version"),
        "class": meta.get("class"),
    }
