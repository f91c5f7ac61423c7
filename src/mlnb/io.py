"""Safe model files: arrays in an ``.npz`` archive plus JSON metadata, never pickle.

A model file holds a fitted mlnb estimator: its class, its hyper-parameters and its fitted
state (statistics, cached estimates, orders, ...), written as plain arrays and JSON.
Loading never unpickles and builds objects only from a fixed list of classes, so opening a
file cannot run code. It checks each layer (zip directory, array headers, JSON, checksums)
before decoding the next, and the sizes the file declares against ``max_bytes`` before
allocating anything; a truncated, corrupt, crafted or foreign file, or one of a newer format
version, raises :class:`ModelFileError` naming the file and the problem.

Loading takes the memory of the arrays the file declares and little more (checksums are
taken while reading; what parsing the JSON may take counts in ``max_bytes``), and refuses
what is not a regular file (a named pipe, a device) without opening it. Each object's
parameters are checked as ``fit`` checks them, and its fitted
state must be attributes it can have (no key naming a method, property or class
attribute), of plausible types and consistent shapes, so a bad file fails at ``load``
naming the key. The checksums detect corruption, not tampering: a crafted file of
plausible values still loads and may predict anything, so load only files you trust
(docs/model_files.md). ``save(..., metadata={...})`` adds a JSON dictionary (what the
model was trained on, say), read back by :func:`read_metadata`.

Saving is atomic: the file is written to a temporary file in the same folder, synced and
renamed over the target, so a save that fails (a full disk: :class:`ModelSaveError`) or
is interrupted leaves the previous file intact.

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

import contextlib
import errno
import functools
import hashlib
import json
import math
import os
import re
import secrets
import stat
import struct
import warnings
import zipfile
import zlib
from pathlib import Path

import numpy as np
import scipy.sparse as sp

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FORMAT_VERSION",
    "ModelFileError",
    "ModelSaveError",
    "load",
    "read_metadata",
    "save",
]

FORMAT_VERSION = 1
_MAGIC = "mlnb-model"
_META = "__meta__"


class ModelFileError(ValueError):
    """A model file that cannot be read: truncated, corrupt, crafted, foreign, over the size
    limit or too new."""


class ModelSaveError(OSError):
    """A model file that could not be written (a full disk, a folder without write
    permission, ...): one line naming the path and the cause. The file that was at the
    path before, if any, is unchanged. ``errno`` and ``strerror`` are the failed call's,
    ``filename`` the path given to :func:`save`."""

    def __str__(self):  # the message alone, not OSError's "[Errno n] ..."
        return str(self.args[0]) if self.args else super().__str__()


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
        if isinstance(value, Parameters):  # its fields, not private caches
            state = {k: v for k, v in vars(value).items() if not k.startswith("_")}
            return {"__object__": name, "state": self.encode(state)}
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
            if hasattr(cls, "get_params") != ("params" in fields):
                raise ModelFileError(f"malformed entry of {cls.__name__}")
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
                _check_params(obj)
            else:
                obj = cls.__new__(cls)
            state = self.decode(fields.get("state"))
            if not isinstance(state, dict):
                raise ModelFileError(f"malformed fitted state of {cls.__name__}")
            _check_state(obj, state)
            vars(obj).update(state)
            if "params" in fields:
                _check_fitted(obj)
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


# Checks of what a file restores. A crafted file can hold any values with valid checksums:
# each object's parameters are checked as its constructor's caller would have them
# checked, and its state must be attributes that the class itself does not define, of the
# types and shapes its kind of object holds, so that a bad file fails here, naming the
# class and the key, rather than later inside predict.


def _check_params(estimator):
    """Check the parameters as ``fit`` does (scikit-learn's ``_parameter_constraints``),
    and that the event models they name exist."""
    from mlnb.events import make_event_model
    from mlnb.events.auto import is_rule, is_tuned

    name = type(estimator).__name__
    params = estimator.get_params(deep=False)
    try:
        if _declares(type(estimator), "_parameter_constraints"):
            estimator._validate_params()
        named = [params.get("events")]
        if isinstance(params.get("blocks"), list):  # MixedNB's and Mixed's (model, columns)
            named += [b[0] for b in params["blocks"] if isinstance(b, tuple) and len(b) == 2]
        for events in named:
            if isinstance(events, str) and not (is_rule(events) or is_tuned(events)):
                make_event_model(events)
    except (TypeError, ValueError) as error:
        raise ModelFileError(f"invalid parameters of {name}: {error}") from None


def _declares(cls, name):
    """Whether ``cls`` or a base class defines ``name`` (read without calling anything)."""
    return any(name in vars(base) for base in cls.__mro__)


# The fields of mlnb.stats.GroupStats: (shape in n_groups "g" and n_features "f", or a
# Python type), whether required (files of older versions may lack the others).
_STATS_FIELDS = {
    "n_groups": (int, True),
    "n_features": (int, True),
    "second_moments": (bool, False),
    "count": (("g",), True),
    "sums": (("g", "f"), True),
    "m2": (("g", "f"), False),
    "total_count": (float, True),
    "total_sums": (("f",), True),
    "total_m2": (("f",), False),
    "observed": (("g", "f"), False),
    "total_observed": (("f",), False),
    "groups": (("g",), False),
}
_COUNT_KEY = re.compile(r"n_[a-z0-9_]*_")  # n_features_in_, n_labels_, ...: counts


def _check_state(obj, state):
    """Refuse a fitted state that ``obj`` (just constructed) cannot have (see above)."""
    from mlnb.events import Parameters
    from mlnb.stats import GroupStats

    if isinstance(obj, GroupStats):
        _check_stats(state)
    elif isinstance(obj, Parameters):
        _check_parameters(type(obj), state)
    else:
        _check_attributes(obj, state)


def _check_attributes(obj, state):
    """An estimator's or event model's fitted attributes: names ending in "_" (or
    private) that the class does not define, or attributes its constructor sets; counts,
    and the types of the shared ones."""
    cls = type(obj)
    # set by a subclass's constructor beside its parameters (a user's subclass that does
    # not take all of its base's parameters): restored as saved, parameters never
    constructed = set(vars(obj)) - set(obj.get_params(deep=False))
    for key, value in state.items():
        fitted = key.endswith("_") or (key.startswith("_") and not key.startswith("__"))
        if key not in constructed and (not (key.isidentifier() and fitted) or _declares(cls, key)):
            raise ModelFileError(
                f"{cls.__name__} has no fitted attribute {key!r} (a fitted attribute ends "
                "in '_' and is not a method, property or class attribute)"
            )
        if _COUNT_KEY.fullmatch(key) and not (value is None or _is_count(value)):
            raise ModelFileError(f"{cls.__name__}.{key} must be a count; got {value!r:.80}")
        if not (key == "classes_" or "names_" in key) and _holds_text(value):
            raise ModelFileError(
                f"{cls.__name__}.{key} holds an array of strings; mlnb keeps strings only in "
                "classes_ and names (feature_names_in_, label_names_, ...)"
            )
        expected = _state_types().get(key, ())
        items = value if isinstance(value, list) and list in expected else [value]
        if expected and not all(isinstance(item, expected) for item in items):
            names = " or ".join(t.__name__ for t in expected)
            raise ModelFileError(
                f"{cls.__name__}.{key} must be of type {names}; got {_describe(value)}"
            )


@functools.cache
def _state_types():
    """The types of the fitted attributes that mlnb's estimators share (a list: of them)."""
    from mlnb.events import EventModel, Parameters
    from mlnb.stats import GroupStats

    statistics = (GroupStats, list, type(None))
    return {
        "events_": (EventModel,),
        "params_": (Parameters,),
        "classes_": (np.ndarray, list),
        "stats_": statistics,
        "feature_stats_": statistics,
        "label_stats_": statistics,
        "size_stats_": statistics,
        "size_feature_stats_": statistics,
    }


def _check_fitted(estimator):
    """Cheap relations between fitted attributes that every estimator having them keeps:
    the statistics' width that the event model makes of n_features_in_, the parameters'
    shape, one entry per class or per label."""
    from mlnb.events import EventModel, Parameters
    from mlnb.stats import GroupStats

    state = vars(estimator)

    def refuse(message):
        raise ModelFileError(f"{type(estimator).__name__}: inconsistent fitted state: {message}")

    n_features, events = state.get("n_features_in_"), state.get("events_")
    names = state.get("feature_names_in_")
    if isinstance(names, np.ndarray) and names.shape != (n_features,):
        refuse(f"feature_names_in_ does not hold n_features_in_={n_features} names")
    for key in ("stats_", "feature_stats_"):
        stats = state.get(key)
        if isinstance(stats, GroupStats) and isinstance(events, EventModel) and n_features:
            width = events.prepared_width(n_features)
            if width != stats.n_features:
                refuse(
                    f"{key} has {stats.n_features} features, but events_ makes {width} of "
                    f"n_features_in_={n_features}"
                )
    stats, params = state.get("stats_"), state.get("params_")
    if isinstance(stats, GroupStats) and isinstance(params, Parameters):
        widths = {stats.n_features, n_features}  # prepared features, or input features
        for owner, field, (groups, width) in _tables(params):
            # a block's parameters (Mixed) have the groups, but not the width, of the whole
            if groups != stats.n_groups or (owner is params and width not in widths):
                refuse(
                    f"params_ holds {type(owner).__name__}.{field} of shape {(groups, width)}, "
                    f"but stats_ has {stats.n_groups} groups of {stats.n_features} features"
                )
    classes = state.get("classes_")
    if isinstance(classes, np.ndarray):
        if classes.ndim != 1:
            refuse(f"classes_ has shape {classes.shape}")
        for key in ("class_count_", "class_log_prior_"):
            if key in state and np.shape(state[key]) != classes.shape:
                refuse(f"{key} does not hold one value per class of classes_")
        if isinstance(stats, GroupStats) and stats.n_groups != len(classes):
            refuse(f"stats_ has {stats.n_groups} groups for {len(classes)} classes")
    n_labels = state.get("n_labels_")
    if isinstance(classes, list) and n_labels is not None and len(classes) != n_labels:
        refuse(f"classes_ has {len(classes)} entries for n_labels_={n_labels}")
    sizes = {"feature": n_features, "label": n_labels}
    for key, axis in _LAST_AXIS.items():
        value = state.get(key)
        values = value if isinstance(value, list) else [value]
        arrays = [a for a in values if isinstance(a, np.ndarray) and sizes[axis] is not None]
        for array in arrays:
            if array.ndim == 0 or array.shape[-1] != sizes[axis]:
                refuse(f"{key} has shape {array.shape} for {sizes[axis]} {axis}s")
    for first, second in _SAME_ROWS:
        a, b = state.get(first), state.get(second)
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and len(a) != len(b):
            refuse(f"{first} and {second} have {len(a)} and {len(b)} rows")
    orders = [state.get("order_")]
    if isinstance(state.get("orders_"), list):
        orders += state["orders_"]
    for order in [o for o in orders if isinstance(o, np.ndarray)] if n_labels is not None else []:
        if not np.array_equal(np.sort(order, axis=None), np.arange(n_labels)):
            refuse(f"an order of the labels is not a permutation of 0..{n_labels - 1}")


def _tables(params):
    """``(parameters object, field, shape)`` of the 2-D arrays of ``params`` and of the
    parameters it holds in lists and tuples (a Mixed model's blocks)."""
    from mlnb.events import Parameters

    found = []
    for field, value in vars(params).items():
        if isinstance(value, np.ndarray) and value.ndim == 2:
            found.append((params, field, value.shape))
        inner = value if isinstance(value, (list, tuple)) else []
        while inner:
            item, *inner = inner
            if isinstance(item, Parameters):
                found += _tables(item)
            elif isinstance(item, (list, tuple)):
                inner += list(item)
    return found


# Fitted attributes (or lists of them) whose last axis is one per feature or per label, and
# pairs of attributes of one row per training or validation row.
_LAST_AXIS = {
    "scale_": "feature",
    "scales_": "feature",
    "train_X_": "feature",
    "validation_X_": "feature",
    "prior_log_odds_": "label",
    "train_Y_": "label",
    "validation_Y_": "label",
    "validation_predicted_": "label",
}
_SAME_ROWS = [
    ("train_X_", "train_Y_"),
    ("validation_X_", "validation_Y_"),
    ("validation_Y_", "validation_predicted_"),
]


def _holds_text(value):
    """Whether ``value`` is, or a list, tuple or dict holds, an array of strings (the
    objects it holds are checked on their own)."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "US"
    if isinstance(value, dict):
        value = list(value.values())
    return isinstance(value, (list, tuple)) and any(_holds_text(v) for v in value)


def _is_count(value):
    return type(value) is int and value >= 0


def _check_stats(state):
    """The fields of a GroupStats, each of its type, the arrays numeric and of the shapes
    that n_groups and n_features give."""
    unknown = sorted(set(state) - set(_STATS_FIELDS))
    missing = sorted(k for k, (_, required) in _STATS_FIELDS.items() if required and k not in state)
    if unknown or missing:
        raise ModelFileError(
            f"GroupStats with unknown fields {unknown} or without fields {missing}"
        )
    sizes = {"g": state["n_groups"], "f": state["n_features"]}
    for key, (kind, _) in _STATS_FIELDS.items():
        value = state.get(key)
        if kind is int and not _is_count(value):
            raise ModelFileError(f"GroupStats.{key} must be a count; got {value!r:.80}")
        if kind is bool and key in state and not isinstance(value, bool):
            raise ModelFileError(f"GroupStats.{key} must be True or False; got {value!r:.80}")
        if kind is float and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ModelFileError(f"GroupStats.{key} must be a number; got {value!r:.80}")
        if isinstance(kind, tuple) and value is not None:
            numeric = key == "groups" or getattr(value, "dtype", np.dtype(object)).kind in "biuf"
            shape = tuple(sizes[axis] for axis in kind)
            if getattr(value, "shape", None) != shape or not numeric:
                raise ModelFileError(
                    f"GroupStats.{key} must be a numeric array of shape {shape} (n_groups, "
                    f"n_features); got {_describe(value)}"
                )


def _check_parameters(cls, state):
    """An event model's parameters: the fields its dataclass declares, the per-feature
    ones numeric arrays of one (n_groups, n_features) shape."""
    import dataclasses

    fields = {field.name: field for field in dataclasses.fields(cls)}
    unknown = sorted(set(state) - set(fields))
    missing = sorted(
        name
        for name, field in fields.items()
        if name not in state and field.default is dataclasses.MISSING
    )
    if unknown or missing:
        raise ModelFileError(
            f"{cls.__name__} with unknown fields {unknown} or without fields {missing}"
        )
    own_check = getattr(cls, "check_fields", None)
    if own_check is not None:  # parameters whose fields are not per-feature tables
        try:
            own_check(state)
        except (TypeError, ValueError) as error:
            raise ModelFileError(f"{cls.__name__}: {error}") from None
        return
    shapes = {getattr(state.get(name), "shape", None) for name in cls.per_feature}
    numeric = all(
        isinstance(state.get(name), np.ndarray) and state[name].dtype.kind in "biuf"
        for name in cls.per_feature
    )
    if cls.per_feature and (len(shapes) != 1 or not numeric or len(shapes.pop()) != 2):
        described = {name: _describe(state.get(name)) for name in cls.per_feature}
        raise ModelFileError(
            f"{cls.__name__}: the fields {list(cls.per_feature)} must be numeric arrays of "
            f"one shape (n_groups, n_features); got {described}"
        )
    tables = [v.shape for v in state.values() if isinstance(v, np.ndarray) and v.ndim == 2]
    for name, value in state.items():
        if isinstance(value, np.ndarray) and not _fits_tables(value, tables):
            raise ModelFileError(
                f"{cls.__name__}.{name} must be a numeric array of one value per group or "
                f"feature of its other fields {tables}; got {_describe(value)}"
            )


def _fits_tables(array, tables):
    """Whether an array of a Parameters is numeric and fits its 2-D fields (``tables``,
    their shapes): a table of as many groups, or one value per group or per feature."""
    if array.dtype.kind not in "biuf" or array.ndim not in (1, 2):
        return False
    if not tables:
        return True
    if array.ndim == 2:
        return array.shape[0] == tables[0][0]
    return array.ndim == 1 and array.shape[0] in {n for shape in tables for n in shape}


def _describe(value):
    if isinstance(value, np.ndarray) or sp.issparse(value):
        return f"{type(value).__name__} of shape {value.shape} and dtype {value.dtype}"
    return f"{type(value).__name__} {value!r:.60}"


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
    """Everything set on the estimator beyond its constructor parameters (the parameters
    a single-label classifier re-estimates lazily after one-row updates made first)."""
    refresh = getattr(type(estimator), "_refresh_fitted", None)
    if refresh is not None:
        refresh(estimator)
    params = set(estimator.get_params(deep=False))
    return {k: v for k, v in vars(estimator).items() if k not in params}


def _checksum(array):
    """SHA-256 of the array's bytes in C order, without copying the array."""
    digest = hashlib.sha256()
    if array.flags.c_contiguous:
        digest.update(memoryview(array.reshape(-1)).cast("B"))
    else:
        flags = ["external_loop", "buffered", "zerosize_ok"]
        for block in np.nditer(array, flags=flags, buffersize=_CHUNK // 8, order="C"):
            digest.update(block.tobytes())
    return digest.hexdigest()


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

    Raises
    ------
    TypeError
        If the estimator, or something it holds, or ``metadata`` cannot be saved.
    ModelSaveError
        If the file cannot be written (a full disk, no permission to write in the folder,
        a directory at ``path``, ...): an ``OSError`` with the failed call's ``errno``,
        whose message is one line naming ``path`` and the cause. The file is written in one
        step (a temporary file beside it, renamed over it), so a save that fails or is
        interrupted leaves a file that was at ``path`` unchanged.
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
    _replace_atomically(path, {**writer.arrays, _META: meta_bytes})


# Writing. A model file is written whole to a temporary file beside the target, synced to
# disk, then renamed over the target in one step (os.replace): a save that fails or is
# interrupted at any point leaves the previous file as it was.


def _replace_atomically(path, members):
    """Write ``members`` as an .npz archive to ``path`` in one step (see above)."""
    target = Path(os.path.realpath(path))  # through a symbolic link, as open() would
    existed, temporary = False, None
    try:
        with contextlib.suppress(FileNotFoundError):
            status = os.stat(target)
            existed = True
            if not stat.S_ISREG(status.st_mode):  # a rename would replace a device or pipe
                if stat.S_ISDIR(status.st_mode):
                    raise OSError(errno.EISDIR, os.strerror(errno.EISDIR))
                raise OSError(errno.EINVAL, "it is not a regular file")
            mode = stat.S_IMODE(status.st_mode)  # the new file keeps the old's
        descriptor, temporary = _create_beside(target)
        with os.fdopen(descriptor, "wb") as handle:
            np.savez_compressed(handle, **members)
            handle.flush()
            os.fsync(handle.fileno())
        if existed:
            os.chmod(temporary, mode)
        os.replace(temporary, target)
        temporary = None
    except OSError as error:
        kept = f"{path} is unchanged" if existed else "no file was written"
        reason = error.strerror or str(error)
        failure = ModelSaveError(f"cannot save the model to {path}: {reason} ({kept})")
        failure.errno, failure.strerror, failure.filename = error.errno, reason, os.fspath(path)
        raise failure from error
    finally:  # also on KeyboardInterrupt
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.remove(temporary)
    _sync_folder(target.parent)


def _create_beside(target):
    """A new, empty temporary file in ``target``'s folder: its descriptor and name.

    Created with mode 0o666 less the umask, as ``open`` creates files, and hidden (its
    name starts with a dot); a process killed before the rename may leave it behind.
    """
    for _ in range(100):
        name = target.parent / f".{target.name[:200]}.{secrets.token_hex(4)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        try:
            return os.open(name, flags, 0o666), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(target.parent))


def _sync_folder(folder):
    """Sync the folder's entry of the renamed file to disk, where the system allows it."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:  # e.g. Windows, where folders cannot be opened
        return
    try:
        os.fsync(descriptor)
    except OSError:  # some file systems refuse fsync on a folder
        pass
    finally:
        os.close(descriptor)


# Reading. Every layer (the file, the zip archive, each .npy member, the JSON, the object
# tree) checks what it is given and turns its own failures into a ModelFileError.

DEFAULT_MAX_BYTES = 2**30
"""Default ``max_bytes`` of :func:`load` and :func:`read_metadata`: 1 GiB of decoded members."""

_MAX_META_BYTES = 64 * 2**20  # the JSON part: parsed into Python objects, so kept smaller
_MAX_DEPTH = 100  # JSON nesting (mlnb's own files nest less than 20 deep)
_MAX_RATIO = 1032  # deflate cannot expand data more than this
_MAX_HEADER = 4096  # an .npy header written by numpy is 128 bytes or a little more
_CHUNK = 2**20  # bytes decompressed (and hashed) at a time
# What parsing the JSON may take, counted in max_bytes: 8 bytes per byte of text (its
# copies while checked, decoded and parsed; 4-byte characters), and 128 per bracket,
# comma or colon (a Python object and its slot). Measured with tracemalloc: at most about
# 5x the text for numbers and strings, 25x for lists of empty dictionaries; 70 to 82 bytes
# per bracket, comma or colon for lists of small dictionaries or of 4-byte characters.
_JSON_BYTE_COST = 8
_JSON_ITEM_COST = 128
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
_NOT_MARKS = bytes(sorted(set(range(256)) - set(b'[]{}"')))  # what _json_depth skips


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


def _read_member(archive, info, path, checksum=None):
    """One member as an array, its header checked before any allocation, and its SHA-256
    compared with ``checksum`` (if given) as it is read: nothing is allocated beyond the
    array itself and one chunk."""
    name = info.filename
    digest = hashlib.sha256()
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
            digest.update(view[done : done + read])
            done += read
        if handle.read(1):  # reading to the end also checks the member's CRC-32
            raise ModelFileError(f"{path}: member {name} holds more data than declared")
    array = array.T if fortran else array
    found = _checksum(array) if fortran else digest.hexdigest()  # of the C-ordered bytes
    if checksum is not None and found != checksum:
        raise ModelFileError(f"{path}: checksum mismatch in array {name[:-4]} (corrupt file)")
    return array


def _json_depth(text):
    """How deeply a JSON text (bytes) nests, its strings skipped: vectorised, without
    recursion, and in chunks, so that it takes little time and memory."""
    text = text.replace(b"\\\\", b"").replace(b'\\"', b"")  # escapes, left to right
    marks = text.translate(None, _NOT_MARKS)  # the brackets, and the quotes of strings
    depth = deepest = quoted = 0
    for start in range(0, len(marks), _CHUNK):
        chunk = np.frombuffer(marks[start : start + _CHUNK], dtype=np.uint8)
        quote = chunk == ord('"')
        inside = np.bitwise_xor.accumulate(quote.view(np.uint8)) ^ quoted  # within a string
        quoted = int(inside[-1])
        # "[" and "{" have bit 1 set, "]" and "}" do not: +1 opens, -1 closes
        steps = np.where(quote | inside.view(bool), 0, (chunk & 2).astype(np.int32) - 1)
        levels = depth + np.cumsum(steps)
        deepest, depth = max(deepest, int(levels.max())), int(levels[-1])
    return deepest


def _json_cost(text):
    """The bytes that parsing ``text`` may take at most (see _JSON_ITEM_COST)."""
    items = sum(text.count(mark) for mark in (b"[", b"{", b",", b":"))
    return _JSON_BYTE_COST * len(text) + _JSON_ITEM_COST * items


def _check_json_cost(path, size, cost, budget):
    """Refuse JSON of ``size`` bytes whose parsing may take ``cost`` bytes over ``budget``."""
    if budget is not None and cost > budget:
        raise ModelFileError(
            f"{path}: parsing its {size} bytes of metadata may take {cost} bytes, more than "
            f"the {max(budget, 0)} that max_bytes leaves beside the arrays; if you trust the "
            "file, pass a larger max_bytes (or None)"
        )


def _parse_meta(archive, info, path, budget):
    """The JSON part, parsed if its cost fits ``budget`` bytes (None: no limit): its
    declared size is checked before it is decompressed, its content before it is parsed."""
    _check_json_cost(path, info.file_size, _JSON_BYTE_COST * info.file_size, budget)
    raw = _read_member(archive, info, path)
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise ModelFileError(f"{path}: malformed metadata member")
    text = raw.tobytes()
    del raw
    _check_json_cost(path, len(text), _json_cost(text), budget)
    depth = _json_depth(text)
    if depth > _MAX_DEPTH:
        raise ModelFileError(
            f"{path}: the metadata nests {depth} levels deep; the limit is {_MAX_DEPTH}"
        )
    try:
        text = text.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ModelFileError(f"{path}: the metadata is not UTF-8 text ({error})") from error
    try:
        return json.loads(text)
    except ValueError as error:  # JSONDecodeError, or a number too long to convert
        raise ModelFileError(f"{path}: the metadata is not valid JSON ({error})") from error


_NOT_REGULAR = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def _open(path):
    """The file, opened for reading if it is a regular file: a directory, pipe, device or
    socket is refused before it is opened (reading a pipe could wait forever); a missing
    file raises FileNotFoundError as usual."""
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISREG(mode):  # opened without waiting, in case it became a pipe since
            flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
            handle = open(os.open(path, flags), "rb")  # noqa: SIM115 (returned open)
            mode = os.fstat(handle.fileno()).st_mode
            if stat.S_ISREG(mode):
                return handle
            handle.close()
    except FileNotFoundError:
        raise
    except OSError as error:
        raise ModelFileError(f"{path}: cannot be read ({error.strerror or error})") from error
    kind = _NOT_REGULAR.get(stat.S_IFMT(mode), "not a regular file")
    raise ModelFileError(f"{path}: is {kind}, not a model file")


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
                meta_info = by_name.pop(_META)
                budget = None
                if max_bytes is not None:
                    budget = max_bytes - sum(info.file_size for info in by_name.values())
                meta = _parse_meta(archive, meta_info, path, budget)
                _check_meta(meta, path, names=list(by_name))
                stored = None
                if arrays:
                    stored = {
                        name: _read_member(archive, info, path, meta["checksums"][name])
                        for name, info in by_name.items()
                    }
        except ModelFileError:
            raise
        except _ZIP_ERRORS as error:
            raise ModelFileError(
                f"{path}: not a readable mlnb model file (damaged or truncated archive: {error})"
            ) from error
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
        file declares before anything is decompressed or allocated, plus what parsing its
        JSON part may take (8 bytes per byte of JSON and 128 per bracket, comma or colon,
        checked before it is parsed); None for no limit. Loading takes about this much
        memory at most.

    Returns
    -------
    estimator
        The fitted estimator (or text pipeline).

    Raises
    ------
    ModelFileError
        If the file is not an mlnb model file, or is not a regular file (a directory, a
        named pipe, a device), or is corrupt, truncated, over ``max_bytes`` or of a newer
        format, or holds parameters or fitted state the estimator cannot have (the
        message names the file, and the class and key). FileNotFoundError if it does not
        exist.
    """
    path = Path(path)
    meta, arrays = _read(path, max_bytes=max_bytes)
    try:
        model = _Reader(arrays, _loadable_classes()).decode(meta["model"])
    except ModelFileError as error:
        raise ModelFileError(f"{path}: {error}") from error
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        raise ModelFileError(
            f"{path}: inconsistent model file ({type(error).__name__}: {error})"
        ) from error
    _check_predicts(model, path)
    return model


def _zero_rows(n_features):
    """Two rows of zeros (two: no broadcast of one row hides a wrong shape), dense up to
    1 MiB and sparse beyond, so the check adds little to the memory of a load (a model of
    a million features is one of sparse text, which its estimator takes sparse)."""
    if 2 * n_features * 8 <= 2**20:
        return np.zeros((2, n_features))
    return sp.csr_matrix((2, n_features))


def _is_multi_label(model):
    """Whether ``model`` (or the model a meta-estimator wraps) predicts label sets."""
    if model is None:
        return False
    if model.__sklearn_tags__().target_tags.multi_output or hasattr(model, "n_labels_"):
        return True
    return _is_multi_label(getattr(model, "estimator_", None))


def _check_predicts(model, path):
    """A restored multi-label model predicts rows of zeros: a last check of its fitted
    state as a whole (the caches and weight tables it saves, an ensemble's members and
    masks), so that an inconsistent file fails here, naming the file, rather than later
    inside ``predict``."""
    n_features = getattr(model, "n_features_in_", None)
    if _is_text_pipeline(model) or not isinstance(n_features, int) or not hasattr(model, "predict"):
        return
    if not _is_multi_label(model):
        return  # a single-label model's state is checked whole above; its first predict
        # builds its weight tables, which would add their size to the memory of a load
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.predict(_zero_rows(n_features))
    except Exception as error:  # any failure of a restored model is the file's
        raise ModelFileError(
            f"{path}: the restored {type(model).__name__} cannot predict "
            f"({type(error).__name__}: {error})"
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
