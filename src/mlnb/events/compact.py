"""Compact log-odds of per-label count models: memory in the (label, feature) pairs seen.

A binary-relevance multinomial model of L labels and d features has an L x d table of
log-odds weights ``w[l, f] = log phi+[l, f] - log phi-[l, f]``. Where label l never met
feature f (``n[l, f] = 0``, most pairs of a large label space) the weight does not depend
on the pair itself: with Lidstone smoothing alpha (Xu 2018, eq. 4, on each side of the
label),

    w[l, f] = log(alpha_f / (N_f + alpha_f)) + log((N - n_l + A) / (n_l + A))
            =  base[f]                        + length[l]

where ``N_f`` is feature f's total count, ``n_l`` label l's number of words, ``N`` all
words and ``A = sum_f alpha_f``. So the table is ``base[f] + length[l]`` plus a correction
on the pairs seen, and a row's log-odds are

    X @ w.T = (X @ base)[:, None] + (X.sum(1))[:, None] * length[None, :] + X @ corrections

with ``corrections`` a sparse (d x L) matrix of as many entries as the statistics' non-zero
sums. Memory and prediction cost then grow with the statistics' non-zeros, not with
labels x features (20,000 labels and 50,000 features: 8 GB per dense table). Equal to the
dense weights up to rounding (about 1e-15 relative).

Written here, not taken from a library: scikit-learn's and the extreme-classification
libraries' Naive Bayes keep dense tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..missing import split_missing
from ._base import Parameters

__all__ = ["CompactLogOdds"]


@dataclass
class CompactLogOdds(Parameters):
    """Per-label log-odds weights ``base[f] + length[l] + corrections[f, l]``.

    Parameters
    ----------
    base : ndarray of shape (n_features,)
        What a unit of feature f adds to every label's log-odds where the pair is unseen.
    length : ndarray of shape (n_labels,)
        What each unit of a row's total adds to label l's log-odds.
    corrections : CSR matrix of shape (n_features, n_labels)
        The rest of the weight, on the pairs seen (explicit zeros allowed).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> odds = CompactLogOdds(np.zeros(2), np.array([0.5]), sp.csr_matrix([[1.0], [0.0]]))
    >>> odds.score(np.array([[2.0, 1.0]]))
    array([[3.5]])
    """

    base: np.ndarray
    length: np.ndarray
    corrections: sp.csr_matrix

    def refreshed(self):
        """Checked and in canonical types (also what a model file's are checked by)."""
        self.base = np.asarray(self.base, dtype=np.float64)
        self.length = np.asarray(self.length, dtype=np.float64)
        self.corrections = sp.csr_matrix(self.corrections, dtype=np.float64)
        shape = (self.base.shape[0], self.length.shape[0])
        if self.base.ndim != 1 or self.length.ndim != 1 or self.corrections.shape != shape:
            raise ValueError(
                f"CompactLogOdds: corrections of shape {self.corrections.shape} do not match "
                f"{self.base.shape} features and {self.length.shape} labels"
            )
        return self

    @property
    def shape(self):
        """(n_labels, n_features): the shape of the dense table it stands for."""
        return self.corrections.shape[::-1]

    @property
    def nbytes(self) -> int:
        """Bytes held (the dense table would hold ``8 * n_labels * n_features``)."""
        c = self.corrections
        return (
            self.base.nbytes
            + self.length.nbytes
            + c.data.nbytes
            + c.indices.nbytes
            + (c.indptr.nbytes)
        )

    def score(self, X) -> np.ndarray:
        """``X @ w.T``, shape (n_samples, n_labels); a missing (NaN) count adds nothing."""
        X = split_missing(X)[0]
        product = X @ self.corrections
        out = product.toarray() if sp.issparse(product) else np.array(product, dtype=np.float64)
        out += np.asarray(X @ self.base).reshape(-1, 1)
        out += np.asarray(X.sum(axis=1)).reshape(-1, 1) * self.length[None, :]
        return out

    def toarray(self) -> np.ndarray:
        """The dense (n_labels, n_features) weight table (for tests and small models)."""
        table = self.corrections.toarray().T
        table += self.base[None, :]
        table += self.length[:, None]
        return table
