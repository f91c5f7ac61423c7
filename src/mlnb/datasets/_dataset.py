"""The data-set container returned by the loaders."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True, eq=False)
class Dataset:
    """A multi-label (or multi-target) data set: features, label matrix and names.

    Attributes
    ----------
    X : ndarray of shape (n, d) float64, or scipy.sparse CSR matrix
        Features. Sparse ARFF rows give CSR, dense rows a dense array. Nominal features
        hold the index of their value in the attribute's declaration (see ``categories``).
    Y : ndarray of shape (n, L), uint8, int64 or float64, or None
        Label indicator matrix (0/1, uint8), or multi-target classes (int64, see
        ``target_classes``); None when the labels are unknown (data to predict, read
        with ``load_arff(..., unknown_labels="allow")``). Read with
        ``unknown_labels="cells"``, data with unknown label cells has a float64 ``Y``
        holding NaN at those cells (the estimators learn each label from the rows where it
        is known; `describe` needs every cell known).
    feature_names, label_names : list of str
        Column names of ``X`` and ``Y``.
    name : str
        Data-set name (file stem, or the registry name).
    dropped : tuple of str
        Attributes that are not features (identifiers, string and date attributes).
    categories : dict
        Feature name -> declared values, for the nominal features (ordinal coded).
    relation : str
        The ARFF relation name.
    target_classes : list of ndarray, or None
        Multi-target data (``load_arff(..., multi_target=True)``): per target, its classes.
        A nominal target's are its declared values (str), and ``Y[:, j]`` holds their
        indices; a numeric target's are the distinct integer values of ``Y[:, j]`` (int64,
        sorted), which holds the values themselves. None for multi-label data (0/1 ``Y``).
        A `subset` keeps them; `concatenate` unites a numeric target's values.
    """

    X: np.ndarray | sp.csr_matrix
    Y: np.ndarray | None
    feature_names: list[str]
    label_names: list[str]
    name: str = ""
    dropped: tuple[str, ...] = ()
    categories: dict[str, tuple[str, ...]] = field(default_factory=dict)
    relation: str = ""
    target_classes: list[np.ndarray] | None = None

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_labels(self) -> int:
        return len(self.label_names)

    @property
    def is_sparse(self) -> bool:
        return sp.issparse(self.X)

    @property
    def column_types(self) -> tuple[str, ...]:
        """The type of every feature column: ``"nominal"`` (in ``categories``) or
        ``"numeric"``, for :func:`mlnb.events.auto.resolve` to choose event models by."""
        return tuple(
            "nominal" if name in self.categories else "numeric" for name in self.feature_names
        )

    @property
    def n_categories(self) -> np.ndarray:
        """The number of declared values of every nominal feature, 0 for numeric ones
        (ndarray of int of shape (n_features,))."""
        return np.array(
            [len(self.categories.get(name, ())) for name in self.feature_names], dtype=np.int64
        )

    def __len__(self) -> int:
        return self.n_samples

    def __repr__(self) -> str:
        kind = "sparse" if self.is_sparse else "dense"
        return (
            f"Dataset(name={self.name!r}, n_samples={self.n_samples}, "
            f"n_features={self.n_features}, n_labels={self.n_labels}, {kind})"
        )

    def subset(self, rows, *, name: str | None = None) -> Dataset:
        """Return the data set restricted to ``rows`` (indices, slice or boolean mask)."""
        if isinstance(rows, slice):
            rows = np.arange(self.n_samples)[rows]
        rows = np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        Y = None if self.Y is None else self.Y[rows]
        return replace(self, X=self.X[rows], Y=Y, name=name or self.name)


class TrainTest(NamedTuple):
    """A provided train/test split of data sets (or text corpora).

    ``train, test = load_dataset("emotions")``; also ``pair.train``, ``pair.test``.
    """

    train: Dataset
    test: Dataset


def _has_unknown_cells(Y) -> bool:
    """Whether a label matrix holds unknown cells (NaN, from ``unknown_labels="cells"``)."""
    return Y is not None and Y.dtype.kind == "f" and bool(np.isnan(Y).any())


def concatenate(parts: list[Dataset], *, name: str) -> Dataset:
    """Stack data sets with the same columns row-wise (e.g. a train and a test file).

    Parts with unknown label cells (NaN) stack as float64 with NaN; beside them, a part
    whose labels are all unknown (Y=None) counts as all NaN.
    """
    first = parts[0]
    cells = any(_has_unknown_cells(p.Y) for p in parts)
    for p in parts[1:]:
        if p.feature_names != first.feature_names or p.label_names != first.label_names:
            raise ValueError(f"cannot concatenate {p.name!r} to {first.name!r}: columns differ")
        if (p.Y is None) != (first.Y is None) and not cells:
            raise ValueError(
                f"cannot concatenate {p.name!r} to {first.name!r}: one has unknown labels (Y=None)"
            )
    if any(p.is_sparse for p in parts):
        X = sp.vstack([sp.csr_matrix(p.X) for p in parts], format="csr")
    else:
        X = np.vstack([p.X for p in parts])
    if cells:
        Y = np.vstack(
            [np.full((p.n_samples, p.n_labels), np.nan) if p.Y is None else p.Y for p in parts]
        ).astype(np.float64, copy=False)
    else:
        Y = None if first.Y is None else np.vstack([p.Y for p in parts])
    return replace(first, X=X, Y=Y, name=name, target_classes=_united_classes(parts))


def _united_classes(parts: list[Dataset]) -> list[np.ndarray] | None:
    """The ``target_classes`` of stacked parts: a nominal target's declared values (those
    of the first part), the union of a numeric target's values; None for multi-label."""
    first = parts[0].target_classes
    if first is None:
        return None
    united = []
    for j, classes in enumerate(first):
        if classes.dtype.kind != "U":  # numeric: the values of every part
            classes = np.unique(np.concatenate([p.target_classes[j] for p in parts]))
        united.append(classes)
    return united
