"""Label statistics of a multi-label data set (Charte et al.'s MLD measures)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import scipy.sparse as sp

from ._dataset import Dataset

__all__ = ["LabelStats", "describe"]


@dataclass(frozen=True)
class LabelStats:
    """Summary of a label matrix; see `describe`."""

    n_samples: int
    n_features: int | None
    n_labels: int
    cardinality: float
    density: float
    avg_imbalance_ratio: float
    max_imbalance_ratio: float
    n_labelsets: int
    n_empty_labels: int
    n_empty_rows: int
    n_unknown_cells: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


def _indicator(Y):
    """``(positive cells as CSR, unknown cells per label or None)``."""
    if not sp.issparse(Y):
        Y = np.asarray(Y)
        if Y.ndim != 2:
            raise ValueError(f"Y: expected a 2-d label indicator matrix, got shape {Y.shape}")
    Y = sp.csr_matrix(Y)
    Y = Y.copy()
    Y.eliminate_zeros()
    unknown = None
    if Y.dtype.kind == "f" and np.isnan(Y.data).any():
        missing = np.isnan(Y.data)
        unknown = np.bincount(Y.indices[missing], minlength=Y.shape[1])
        Y.data[missing] = 0.0
        Y.eliminate_zeros()
    if Y.nnz and not np.all(Y.data == 1):
        raise ValueError("Y: expected a 0/1 label indicator matrix (NaN: an unknown cell)")
    return Y, unknown


def describe(data) -> LabelStats:
    """Label cardinality, density, imbalance and label-set counts of a data set.

    Parameters
    ----------
    data : Dataset, (X, Y) tuple, or Y
        Y is an n x L 0/1 indicator matrix, dense or sparse, of any integer/bool dtype.

    Returns
    -------
    LabelStats
        ``cardinality`` LC = mean number of labels per row; ``density`` LD = LC / L;
        ``avg_imbalance_ratio`` avIR = mean over labels l of IRLbl(l) = max_l' n_l' / n_l,
        with n_l the number of rows holding label l (Charte et al. 2015, "Addressing
        imbalance in multilabel classification", eq. 1-2); labels that never occur have
        an infinite ratio and are left out of the mean (``n_empty_labels`` counts them);
        ``n_labelsets`` the number of distinct label combinations (the empty set included).
        With unknown cells (NaN, ``n_unknown_cells``), each label's frequency is taken over
        the rows where it is known: LD is the share of positive known cells, LC = LD x L,
        and the label counts of avIR are the frequencies times n; label sets and empty
        rows count the known positives.

    Examples
    --------
    >>> import numpy as np
    >>> s = describe(np.array([[1, 0], [1, 1], [1, 0], [0, 0]]))
    >>> s.cardinality, s.density, s.avg_imbalance_ratio, s.n_labelsets
    (1.0, 0.5, 2.0, 3)
    """
    X = None
    if isinstance(data, Dataset):
        X, Y = data.X, data.Y
        if Y is None:
            raise ValueError(f"data: data set {data.name!r} has unknown labels (Y is None)")
    elif isinstance(data, tuple) and len(data) == 2:
        X, Y = data
    else:
        Y = data
    Y, unknown = _indicator(Y)
    n, L = Y.shape
    if n == 0 or L == 0:
        raise ValueError(f"Y: expected at least one row and one label, got shape {Y.shape}")
    counts = np.asarray(Y.sum(axis=0)).ravel()
    per_row = np.diff(Y.indptr)
    lc = float(per_row.mean())
    if unknown is not None:
        known = n - unknown
        lc = float(counts.sum() / known.sum() * L) if known.sum() else float("nan")
        with np.errstate(invalid="ignore", divide="ignore"):
            counts = np.where(known > 0, counts / known * n, 0.0)
    present = counts > 0
    ir = counts.max() / counts[present] if present.any() else np.array([np.nan])
    rows = {tuple(Y.indices[Y.indptr[i] : Y.indptr[i + 1]].tolist()) for i in range(n)}
    return LabelStats(
        n_samples=int(n),
        n_features=None if X is None else int(X.shape[1]),
        n_labels=int(L),
        cardinality=lc,
        density=lc / L,
        avg_imbalance_ratio=float(ir.mean()),
        max_imbalance_ratio=float(ir.max()),
        n_labelsets=len(rows),
        n_empty_labels=int((~present).sum()),
        n_empty_rows=int((per_row == 0).sum()),
        n_unknown_cells=0 if unknown is None else int(unknown.sum()),
    )
