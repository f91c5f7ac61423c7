"""Compact log-odds of per-label count models: memory in the (label, feature) pairs seen.

A binary-relevance model of L labels and d features has an L x d table of log-odds
weights ``w[l, f]``. Where label l never met feature f (most pairs of a large label space)
the weight depends on the pair only through a few numbers of the label and of the feature,
so the table is a label term plus a feature term plus a correction on the pairs seen
(as many as the statistics' non-zero sums):

- **multinomial** (Lidstone's alpha on each side of the label, Xu 2018, eq. 4): an unseen
  pair weighs ``log(alpha_f / (N_f + alpha_f)) + log((N - n_l + A) / (n_l + A))``, a term
  ``base[f]`` of the feature (its total count ``N_f``) and a term ``length[l]`` of the
  label (its number of words ``n_l``; ``N`` all words, ``A = sum_f alpha_f``) that
  multiplies the row's total;
- **Bernoulli** (Xu 2018, eq. 6): an unseen pair's weight also holds
  ``log(r_l - T_f + alpha)``, the probability that a word present in ``T_f`` rows is
  absent from a negative row of label l (``r_l`` negative rows), which is not a sum of a
  label and a feature term. It depends on the pair only through ``(r_l, T_f)``: labels of
  equal ``r_l`` and features of equal ``T_f`` share it, so it is a small table
  ``pair_table[label_class[l], feature_class[f]]`` over the distinct values (unweighted
  rows give integer counts, and few distinct ones); every label also has a ``constant``,
  the absent words' sum over all features.

A row's log-odds are then::

    constant[l] + (X @ base) + X.sum(1) * length[l]
      + ((X @ onehot(feature_class)) @ pair_table.T)[:, label_class] + X @ corrections

Memory and prediction cost grow with the statistics' non-zeros and the distinct counts,
not with labels x features (20,000 labels and 50,000 features: 8 GB per dense table).
Equal to the dense weights up to rounding (about 1e-15 relative).

Written here, not taken from a library: scikit-learn's and the extreme-classification
libraries' Naive Bayes keep dense tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..missing import split_missing
from ._base import Parameters

__all__ = ["CompactLogOdds", "value_classes"]


def value_classes(values):
    """``(distinct values, class of each value)``: the index of each value among the
    distinct ones (``np.unique``)."""
    distinct, classes = np.unique(np.asarray(values, dtype=np.float64), return_inverse=True)
    return distinct, classes.ravel()


@dataclass
class CompactLogOdds(Parameters):
    """Per-label log-odds weights in the compact form of the module docstring.

    Parameters
    ----------
    base : ndarray of shape (n_features,)
        What a unit of feature f adds to every label's log-odds where the pair is unseen.
    length : ndarray of shape (n_labels,)
        What each unit of a row's total adds to label l's log-odds.
    corrections : CSR matrix of shape (n_features, n_labels)
        The rest of the weight, on the pairs seen (explicit zeros allowed). Always
        float64: a correction is the difference of a pair's weight and its unseen value,
        and in float32 their rounding changed decisions (1 of 3.1 million on delicious).
    constant : ndarray of shape (n_labels,), optional
        What every row adds to label l's log-odds (default 0).
    pair_table : ndarray of shape (n_label_classes, n_feature_classes), optional
        What a unit of feature f adds to label l's log-odds through their classes
        (``label_class``, ``feature_class``, given with it).
    label_class, feature_class : ndarray of int, optional

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
    constant: np.ndarray = None
    pair_table: np.ndarray = None
    label_class: np.ndarray = None
    feature_class: np.ndarray = None

    def refreshed(self):
        """Checked and in canonical types (also what a model file's are checked by)."""
        self.base = np.asarray(self.base, dtype=np.float64)
        self.length = np.asarray(self.length, dtype=np.float64)
        self.corrections = sp.csr_matrix(self.corrections, dtype=np.float64)
        n_features, n_labels = self.base.shape[0], self.length.shape[0]
        if (
            self.base.ndim != 1
            or self.length.ndim != 1
            or self.corrections.shape != (n_features, n_labels)
        ):
            raise ValueError(
                f"CompactLogOdds: corrections of shape {self.corrections.shape} do not match "
                f"{self.base.shape} features and {self.length.shape} labels"
            )
        if self.constant is not None:
            self.constant = np.asarray(self.constant, dtype=np.float64)
            if self.constant.shape != (n_labels,):
                raise ValueError(f"CompactLogOdds: constant must have {n_labels} values")
        given = [x is not None for x in (self.pair_table, self.label_class, self.feature_class)]
        if any(given) and not all(given):
            raise ValueError("CompactLogOdds: pair_table, label_class, feature_class go together")
        if all(given):
            self.pair_table = np.asarray(self.pair_table, dtype=np.float64)
            self.label_class = np.asarray(self.label_class, dtype=np.intp)
            self.feature_class = np.asarray(self.feature_class, dtype=np.intp)
            rows, columns = self.pair_table.shape
            for name, index, size, bound in (
                ("label_class", self.label_class, n_labels, rows),
                ("feature_class", self.feature_class, n_features, columns),
            ):
                if index.shape != (size,) or (size and not 0 <= index.min() <= index.max() < bound):
                    raise ValueError(
                        f"CompactLogOdds: {name} must give each of {size} a class below {bound}"
                    )
        return self

    @classmethod
    def check_fields(cls, fields):
        """Raise ValueError unless ``fields`` make consistent weights: numeric arrays, a
        sparse ``corrections``, the shapes of :meth:`refreshed` (what a model file's
        fields are checked by)."""
        for name, value in fields.items():
            if name == "corrections":
                if not sp.issparse(value):
                    raise ValueError(f"corrections must be a sparse matrix, not {type(value)}")
            elif value is not None and not (
                isinstance(value, np.ndarray) and value.dtype.kind in "biuf"
            ):
                raise ValueError(f"{name} must be a numeric array, not {type(value).__name__}")
        cls(**fields)

    @property
    def shape(self):
        """(n_labels, n_features): the shape of the dense table it stands for."""
        return self.corrections.shape[::-1]

    @property
    def nbytes(self) -> int:
        """Bytes held (the dense table would hold ``8 * n_labels * n_features``)."""
        c = self.corrections
        arrays = [self.base, self.length, c.data, c.indices, c.indptr, self.constant]
        arrays += [self.pair_table, self.label_class, self.feature_class]
        return sum(array.nbytes for array in arrays if array is not None)

    def _class_term(self, X):
        """``X @ T.T`` where ``T[l, f] = pair_table[label_class[l], feature_class[f]]``."""
        n_classes = self.pair_table.shape[1]
        n_features = self.feature_class.shape[0]
        onehot = sp.csr_matrix(
            (np.ones(n_features), (np.arange(n_features), self.feature_class)),
            shape=(n_features, n_classes),
        )
        by_class = X @ onehot  # each row's total of the features of every class
        by_class = by_class.toarray() if sp.issparse(by_class) else np.asarray(by_class)
        return (by_class @ self.pair_table.T)[:, self.label_class]

    def score(self, X) -> np.ndarray:
        """``X @ w.T`` (plus the constant), shape (n_samples, n_labels); a missing (NaN)
        value adds nothing."""
        X = split_missing(X)[0]
        product = X @ self.corrections
        out = product.toarray() if sp.issparse(product) else np.array(product, dtype=np.float64)
        out += np.asarray(X @ self.base).reshape(-1, 1)
        out += np.asarray(X.sum(axis=1)).reshape(-1, 1) * self.length[None, :]
        if self.pair_table is not None:
            out += self._class_term(X)
        if self.constant is not None:
            out += self.constant[None, :]
        return out

    def toarray(self) -> np.ndarray:
        """The dense (n_labels, n_features) weight table, without the constant (for tests
        and small models)."""
        table = self.corrections.toarray().T
        table += self.base[None, :]
        table += self.length[:, None]
        if self.pair_table is not None:
            table += self.pair_table[np.ix_(self.label_class, self.feature_class)]
        return table
