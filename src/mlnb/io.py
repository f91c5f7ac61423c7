"""Safe model files: arrays in an ``.npz`` archive plus JSON metadata, never pickle.

A model file holds a fitted mlnb estimator: its class, its hyper-parameters and its fitted
state (statistics, cached estimates, orders, ...), written as plain arrays and JSON.
Loading reads arrays with ``allow_pickle=False`` and builds objects only from a fixed list
of mlnb classes, so opening a file cannot run code. Each array carries a SHA-256 checksum;
a truncated, tampered or foreign file, or one of a newer format version, raises
:class:`ModelFileError` with the reason.

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

import hashlib
import io as _io
import json
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

__all__ = ["FORMAT_VERSION", "ModelFileError", "load", "save"]

FORMAT_VERSION = 1
_MAGIC = "mlnb-model"
_META = "__meta__"


class ModelFileError(ValueError):
    """A model file that cannot be read: truncated, tampered, foreign or too new."""


def _allowed_classes():
    """The classes a model file may name: mlnb's estimators, event models and statistics."""
    import mlnb
    from mlnb import events, stats

    classes = [
        getattr(mlnb, name) for name in mlnb.__all__ if isinstance(getattr(mlnb, name), type)
    ]
    classes += [
        getattr(events, name) for name in events.__all__ if isinstance(getattr(events, name), type)
    ]
    classes.append(stats.GroupStats)
    return {f"{cls.__module__}.{cls.__qualname__}": cls for cls in classes}


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

    def encode(self, value):
        from mlnb.events import EventModel
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
        if tag == "__object__":
            cls = self.classes.get(body)
            if cls is None:
                raise ModelFileError(f"the file names a class mlnb does not load: {body!r}")
            fields = dict(rest)
            if "params" in fields:
                obj = cls(**self.decode(fields["params"]))
            else:
                obj = cls.__new__(cls)
            vars(obj).update(self.decode(fields["state"]))
            return obj
        raise ModelFileError(f"unknown entry {tag!r} in the model file")


def _qualified(obj):
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


def _is_mlnb_estimator(value):
    return hasattr(value, "get_params") and type(value).__module__.startswith("mlnb.")


def _fitted_state(estimator):
    """Everything set on the estimator beyond its constructor parameters."""
    params = set(estimator.get_params(deep=False))
    return {k: v for k, v in vars(estimator).items() if k not in params}


def _checksum(array):
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


def save(estimator, path):
    """Write a fitted mlnb estimator to ``path`` (an ``.npz`` archive; no pickle)."""
    import mlnb

    if not _is_mlnb_estimator(estimator):
        raise TypeError(f"save writes mlnb estimators; got {type(estimator).__name__}")
    writer = _Writer()
    root = writer.encode(estimator)
    meta = {
        "format": _MAGIC,
        "format_version": FORMAT_VERSION,
        "mlnb_version": mlnb.__version__,
        "class": root["__object__"],
        "model": root,
        "checksums": {name: _checksum(a) for name, a in writer.arrays.items()},
    }
    meta_bytes = np.frombuffer(json.dumps(meta, allow_nan=True).encode("utf-8"), dtype=np.uint8)
    buffer = _io.BytesIO()
    np.savez_compressed(buffer, **writer.arrays, **{_META: meta_bytes})
    Path(path).write_bytes(buffer.getvalue())


def load(path):
    """Read a model file written by :func:`save`; raises ModelFileError if it is unreadable."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as archive:
            if _META not in archive.files:
                raise ModelFileError(f"{path}: not an mlnb model file (no metadata)")
            meta = json.loads(archive[_META].tobytes().decode("utf-8"))
            arrays = {name: archive[name] for name in archive.files if name != _META}
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
    if set(checksums) != set(arrays):
        raise ModelFileError(f"{path}: the arrays do not match the metadata (tampered file?)")
    for name, array in arrays.items():
        if _checksum(array) != checksums[name]:
            raise ModelFileError(f"{path}: checksum mismatch in array {name} (tampered file?)")
    try:
        return _Reader(arrays, _allowed_classes()).decode(meta["model"])
    except ModelFileError as error:
        raise ModelFileError(f"{path}: {error}") from None
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{path}: inconsistent model file ({error})") from None
