"""Additive sufficient statistics of rows under a grouping matrix.

Every Naive Bayes model in mlnb is a function of these additive statistics of the data:
for a grouping matrix ``G`` (n x g: one-hot classes, a label-indicator matrix, one-hot subset
sizes) and sample weights ``w``,

- ``count[g]  = sum_i w_i G_ig``                      (``G.T @ w``)
- ``sums[g]   = sum_i w_i G_ig x_i``                  (``G.T @ (w * X)``)
- ``m2[g]     = sum_i w_i G_ig (x_i - mean_g)**2``    (centred second moments, optional)

plus the same three over all rows (``total_*``), which binary relevance needs to form the
complement group ("not label l") as total minus group.

Statistics of disjoint batches combine exactly: counts and sums add, and centred second
moments combine with the pairwise update of Chan, Golub and LeVeque (1983)::

    M2 = M2_a + M2_b + (mean_b - mean_a)**2 * n_a * n_b / (n_a + n_b)

which is what ``partial_fit``, the Dask path (``merge``) and fold-subtraction cross-validation
(``subtract``) rely on. Within one batch the second moments are computed with one matrix
product: for dense ``X`` about the batch mean (the "shifted data" formula, which avoids the
cancellation of raw sums of squares when a feature's mean is large against its spread); for
sparse ``X`` from raw sums of squares, so that the data stay sparse.

**Missing entries** (NaN in ``X``, see :mod:`mlnb.missing`): a row with a missing entry
counts in its groups' ``count`` but not in that feature's ``observed[g, v]``, the weighted
number of rows of group g whose feature v is observed; means, variances and Chan's update
then use ``observed`` in place of ``count``, feature by feature. Without missing entries
``observed`` is None (it would equal ``count`` in every column).

**Compact statistics** (``from_data(..., compact=True)``): without second moments,
``sums`` may be kept as a CSR matrix (X is then multiplied as CSR), whose memory grows with
the (group, feature) pairs actually seen rather than with groups x features (20,000 labels
and 50,000 features: 8 GB dense). Counts and totals stay dense. ``merge``, ``subtract``,
``scale``, ``copy``, the group and feature selections and the growth methods keep the form
(``merge`` and ``subtract`` the form of the statistics they change); ``complement`` gives
dense sums, and the in-place row updates merge rows into compact statistics. The event
models that read compact statistics say so
(:meth:`mlnb.events.Multinomial.compact_log_odds`).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import scipy.sparse as sp

from .missing import split_missing

__all__ = ["GroupStats", "NamedStats", "one_hot"]


def one_hot(indices, n_groups) -> sp.csr_matrix:
    """Sparse (n x n_groups) one-hot grouping matrix of integer group indices."""
    n = len(indices)
    return sp.csr_matrix(
        (np.ones(n), (np.arange(n), indices)), shape=(n, n_groups), dtype=np.float64
    )


def _as_dense(matrix) -> np.ndarray:
    """Return a dense ndarray for a product result that may be sparse or np.matrix."""
    if sp.issparse(matrix):
        return matrix.toarray()
    return np.asarray(matrix)


def _combined(a, b, sign=1.0):
    """``a + sign * b`` of two ``sums``, in the form of ``a`` (the statistics changed):
    CSR for compact ones, else dense."""
    if sp.issparse(a):
        b = sp.csr_matrix(b)
        return sp.csr_matrix(a + b if sign > 0 else a - b)
    b = _as_dense(b)
    return a + b if sign > 0 else a - b


def _copied(array):
    """A copy of an ndarray or sparse matrix (``np.copy`` of a sparse matrix is an object
    array)."""
    return array.copy() if sp.issparse(array) else np.copy(array)


# A dense grouping matrix with at most this share of non-zeros is multiplied as CSR.
_SPARSE_DENSITY = 0.25


def _product_T(G, X, *, keep_sparse=False) -> np.ndarray:
    """``G.T @ X`` as a dense array, in the fastest form scipy offers for each pairing;
    as CSR for sparse G and X with ``keep_sparse`` (compact statistics).

    A CSR ``G.T`` times X needs no conversion of X (measured on 20 Newsgroups counts with
    one-hot classes: 15 ms against 26 ms for scikit-learn's dense ``Y.T @ X``); a dense G
    times sparse X is computed as ``(X.T @ G).T``, a CSC matrix times a dense block.
    """
    if isinstance(G, _MemberLabels):
        return G.product_T(X)
    if sp.issparse(G):
        product = sp.csr_matrix(G.T) @ X
        return sp.csr_matrix(product) if keep_sparse and sp.issparse(X) else _as_dense(product)
    if sp.issparse(X):
        return _as_dense(X.T @ G).T
    return G.T @ X


def _as_grouping(G):
    """G as float64: CSR when sparse or mostly zeros (one-hot classes, labels), else dense."""
    if sp.issparse(G):
        return sp.csr_matrix(G, dtype=np.float64)
    G = np.asarray(G, dtype=np.float64)
    if G.size and np.count_nonzero(G) <= _SPARSE_DENSITY * G.size:
        return sp.csr_matrix(G)
    return G


# Size of the temporaries _MemberLabels builds at once: a dense grouping matrix up to
# 2**22 entries (32 MiB) is formed as it is; stacked sparse rows hold 2**18 entries at most
# (about 4 MiB with their indices; enron's 370,000 take two blocks, delicious' 4.6 M 18).
_MEMBER_BUDGET = 1 << 22


class _MemberLabels:
    """The grouping matrix of an ensemble's members and labels, never formed for sparse X.

    ``G[:, k * L + l] = M[:, k] * Y[:, l]`` (the rows of member k's sample, weights
    ``M[:, k]``, that hold label l) for every member k and label l, then
    ``G[:, K * L + k] = M[:, k]`` (all of member k's rows). For a sparse X, ``G.T @ X`` is
    computed label by label: the rows holding label l (a column of Y in CSC) times their
    weights in every member, ``X[rows].T @ M[rows]``, for blocks of labels at once (their
    row blocks stacked, their columns shifted apart), and the members' totals as
    ``X.T @ M``. On the benchmark sets that is a third to a quarter of the time of the
    sparse product ``G.T @ X``, and the block being accumulated stays in cache. For a
    dense X the dense G is formed when it is small (a BLAS product beats the sparse one
    there), else the sparse G.
    """

    def __init__(self, membership, labels):
        self.membership = np.asarray(membership, dtype=np.float64)
        labels = sp.csr_matrix(labels, dtype=np.float64)
        ones = sp.csr_matrix(np.ones((labels.shape[0], 1)))
        self.labels = sp.hstack([labels, ones], format="csr")  # [Y, 1]
        n_members, n_columns = self.membership.shape[1], self.labels.shape[1]
        self.shape = (labels.shape[0], n_members * n_columns)

    def _like(self, membership, labels):
        new = object.__new__(_MemberLabels)
        new.membership, new.labels = membership, labels
        new.shape = (membership.shape[0], self.shape[1])
        return new

    def multiply(self, weights):
        """Rows weighted by ``weights`` (n, 1): folded into the memberships."""
        return self._like(self.membership * weights, self.labels)

    def __getitem__(self, rows):
        new = self._like(self.membership[rows], self.labels[rows])
        if getattr(self, "_dense", None) is not None:
            new._dense = self._dense[rows]
        return new

    def sum(self, axis=0):
        """Column sums (the groups' weighted counts), shape (1, n_groups)."""
        by_column = np.asarray(self.labels.T @ self.membership)  # ([Y, 1] column, member)
        return np.concatenate([by_column[:-1].T.ravel(), by_column[-1]]).reshape(1, -1)

    def tocsr(self):
        """G as a CSR matrix."""
        labels = self.labels[:, :-1]
        blocks = [labels.multiply(self.membership[:, [k]]) for k in range(self.membership.shape[1])]
        return sp.hstack([*blocks, sp.csr_matrix(self.membership)], format="csr")

    def product_T(self, X):
        """``G.T @ X`` as a dense array of shape (n_groups, n_features)."""
        n_samples, n_groups = self.shape
        n_members, n_columns = self.membership.shape[1], self.labels.shape[1]
        n_labels = n_columns - 1
        if not sp.issparse(X):
            if n_samples * n_groups > _MEMBER_BUDGET:
                return _product_T(self.tocsr(), X)
            G = getattr(self, "_dense", None)  # kept: _batch multiplies it by X, then X**2
            if G is None:
                G = np.empty((n_samples, n_groups))
                dense_labels = self.labels[:, :-1].toarray()
                np.multiply(
                    self.membership[:, :, None],
                    dense_labels[:, None, :],
                    out=G[:, : n_members * n_labels].reshape(n_samples, n_members, n_labels),
                )
                G[:, n_members * n_labels :] = self.membership
                self._dense = G
            return G.T @ X
        X = sp.csr_matrix(X)
        n_features = X.shape[1]
        out = np.empty((n_groups, n_features))
        by_label = out[: n_members * n_labels].reshape(n_members, n_labels, n_features)
        by_member = out[n_members * n_labels :]
        # the members' totals: X.T @ M, no gathering
        by_member[...] = np.asarray(X.T @ self.membership).T
        columns = self.labels[:, :-1].tocsc()
        # entries[e]: the entries of X in the rows of the first e (label, row) pairs
        entries = np.concatenate([[0], np.cumsum(np.diff(X.indptr)[columns.indices])])
        start = 0
        while start < n_labels:
            # columns start .. stop - 1: their rows' entries within the budget (at least one)
            lo = columns.indptr[start]
            limit = entries[lo] + _MEMBER_BUDGET // 16
            stop = int(np.searchsorted(entries[columns.indptr], limit, side="right")) - 1
            stop = min(max(stop, start + 1), n_labels)
            hi = columns.indptr[stop]
            rows = columns.indices[lo:hi]
            stacked = X[rows]  # the rows holding each column of the block, one after the other
            # column j of the block moves to the features' columns j*d .. j*d + d - 1
            first_entry = stacked.indptr[columns.indptr[start : stop + 1] - lo]
            width = (stop - start) * n_features
            index_dtype = stacked.indices.dtype if width < 2**31 else np.int64
            shift = np.repeat(
                np.arange(0, width, n_features, dtype=index_dtype), np.diff(first_entry)
            )
            shifted = sp.csr_matrix(
                (stacked.data, stacked.indices + shift, stacked.indptr),
                shape=(hi - lo, width),
            )
            weights = self.membership[rows] * columns.data[lo:hi, None]
            block = (shifted.T @ weights).reshape(stop - start, n_features, n_members)
            by_label[:, start:stop] = block.transpose(2, 0, 1)  # [member, label, feature]
            start = stop
        return out


def _m2_from_raw(raw_squares, count, offset):
    """Centred second moments from sums of squares about a centre: raw - n * offset**2."""
    return np.maximum(raw_squares - count * offset**2, 0.0)


def _is_partition(G) -> bool:
    """Whether every row of the grouping matrix is one-hot (a single 1)."""
    if sp.issparse(G):
        G = sp.csr_matrix(G)
        return bool(np.all(np.diff(G.indptr) == 1) and np.all(G.data == 1))
    G = np.asarray(G)
    return bool(np.all((G == 0) | (G == 1)) and np.all(G.sum(axis=1) == 1))


def _block_rows(n_features) -> int:
    """Rows per block so that a dense block holds about 2**19 floats (4 MB)."""
    return max((1 << 19) // max(n_features, 1), 1)


def _group_of_rows(G) -> np.ndarray:
    """The group index of each row of a one-hot grouping matrix."""
    if sp.issparse(G):
        return sp.csr_matrix(G).indices.astype(np.intp)
    return np.argmax(np.asarray(G), axis=1)


def _centred_squares(X, weighted_G, centre, row_centre):
    """``G.T @ (X - centre[row_centre])**2`` in blocks of rows of dense X.

    Blocks keep the centred squares small instead of materialising an n x d temporary.
    """
    n_samples, n_features = X.shape
    squares = np.zeros((weighted_G.shape[1], n_features))
    step = _block_rows(n_features)
    one_centre = centre.shape[0] == 1  # broadcast it rather than repeat it row by row
    for start in range(0, n_samples, step):
        stop = start + step
        centred = X[start:stop] - (centre if one_centre else centre[row_centre[start:stop]])
        np.square(centred, out=centred)
        squares += _product_T(weighted_G[start:stop], centred)
    return squares


def _at_centre(X, missing, centre, row_centre):
    """Dense X with its missing entries (``missing``, CSR 0/1 or None) set to their row's
    centre, so that they add nothing to squares about it."""
    if missing is None:
        return X
    missing = sp.coo_matrix(missing)
    X = X.copy()
    X[missing.row, missing.col] = centre[row_centre[missing.row], missing.col]
    return X


def _safe_divide(numerator, denominator):
    """numerator / denominator, 0 where the denominator is 0 (an empty group)."""
    out = np.zeros(np.broadcast_shapes(np.shape(numerator), np.shape(denominator)))
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _welford_step(m2, sums, count, x, weight):
    """``m2 += (x - sums / count)**2 count w / (count + w)`` in place (Welford's update of
    one group's centred squares by one row of weight w; nothing for an empty group), with
    one temporary (a third faster than the expression)."""
    if count > 0:
        deviation = sums / count
        deviation -= x
        deviation *= deviation
        deviation *= count * weight / (count + weight)
        m2 += deviation


def _chan_combine(count_a, mean_a, m2_a, count_b, mean_b, m2_b):
    """Centred second moments of the union of two disjoint sets (Chan et al. 1983).

    ``count_*`` broadcast against ``mean_*`` and ``m2_*`` (e.g. shape (g, 1) against (g, d)).
    """
    count = count_a + count_b
    delta = mean_b - mean_a
    return m2_a + m2_b + delta**2 * _safe_divide(count_a * count_b, count)


def _chan_remove(count_union, m2_union, count_a, mean_a, m2_a, count_b, mean_b):
    """Centred second moments of part b of a union = a + b: Chan's update solved for b.

    Clipped at 0: removing rows can leave rounding residue of either sign.
    """
    delta = mean_b - mean_a
    m2_b = m2_union - m2_a - delta**2 * _safe_divide(count_a * count_b, count_union)
    return np.maximum(m2_b, 0.0)


class GroupStats:
    """Weighted counts, feature sums and centred second moments of rows per group.

    Parameters
    ----------
    n_groups : int
        Number of groups (columns of the grouping matrix ``G``).
    n_features : int
        Number of features (columns of ``X``).
    second_moments : bool, default=True
        Whether to track centred second moments (needed by Gaussian event models only).

    Attributes
    ----------
    count : ndarray of shape (n_groups,)
        Weighted number of rows in each group.
    sums : ndarray or CSR matrix of shape (n_groups, n_features)
        Weighted feature sums of each group; CSR for compact statistics (see
        :attr:`compact`).
    m2 : ndarray of shape (n_groups, n_features) or None
        Weighted centred sums of squares of each group.
    total_count, total_sums, total_m2 : float, ndarray (n_features,), ndarray or None
        The same statistics over all rows, whatever their groups.
    observed, total_observed : ndarray of shape (n_groups, n_features), (n_features,) or None
        Weighted number of rows whose feature is observed (not missing), per group and over
        all rows; None when no entry is missing (see :attr:`feature_count`).
    groups : ndarray of shape (n_groups,) or None
        What the groups are, when they name something (a single-label classifier's
        classes, so that statistics carry them to ``from_statistics``); kept by
        :meth:`copy`, :meth:`merge`, :meth:`subtract`, :meth:`scale` and subset by
        :meth:`select_groups`; None otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.stats import GroupStats
    >>> X = np.array([[1.0, 2.0], [3.0, 2.0], [5.0, 8.0]])
    >>> G = np.array([[1, 0], [1, 0], [0, 1]])
    >>> stats = GroupStats(2, 2).update(X, G)
    >>> stats.count
    array([2., 1.])
    >>> stats.mean
    array([[2., 2.],
           [5., 8.]])
    >>> stats.var
    array([[1., 0.],
           [0., 0.]])
    """

    #: Default of :attr:`groups`: set on an object only when the groups are named, so that
    #: statistics without names are saved as before (and files saved before load).
    groups = None

    def _adopt_groups(self, groups):
        """Name the groups ``groups`` if these statistics do not name them yet."""
        if groups is not None and self.groups is None:
            self.groups = groups

    def __init__(self, n_groups: int, n_features: int, *, second_moments: bool = True):
        self.n_groups = int(n_groups)
        self.n_features = int(n_features)
        self.second_moments = bool(second_moments)
        self.count = np.zeros(self.n_groups)
        self.sums = np.zeros((self.n_groups, self.n_features))
        self.m2 = np.zeros((self.n_groups, self.n_features)) if second_moments else None
        self.total_count = 0.0
        self.total_sums = np.zeros(self.n_features)
        self.total_m2 = np.zeros(self.n_features) if second_moments else None
        self.observed = None
        self.total_observed = None

    @classmethod
    def from_arrays(
        cls,
        count,
        sums,
        total_count,
        total_sums,
        m2=None,
        total_m2=None,
        *,
        observed=None,
        total_observed=None,
    ):
        """Statistics with the given arrays (kept, not copied); second moments if ``m2``.

        Parameters
        ----------
        count : ndarray of shape (n_groups,)
        sums : ndarray of shape (n_groups, n_features)
        total_count : float
        total_sums : ndarray of shape (n_features,)
        m2 : ndarray of shape (n_groups, n_features), optional
        total_m2 : ndarray of shape (n_features,), optional
            Required with ``m2``.
        observed, total_observed : ndarray, optional
            Rows whose feature is observed (given together; None: every entry observed).
        """
        new = cls.__new__(cls)
        new.n_groups, new.n_features = sums.shape
        new.second_moments = m2 is not None
        if new.second_moments and total_m2 is None:
            raise ValueError("total_m2 is required with m2")
        new.count, new.sums, new.m2 = count, sums, m2
        new.total_count, new.total_sums = float(total_count), total_sums
        new.total_m2 = total_m2 if new.second_moments else None
        if (observed is None) != (total_observed is None):
            raise ValueError("observed and total_observed are given together")
        new.observed, new.total_observed = observed, total_observed
        return new

    # ------------------------------------------------------------------ derived quantities
    @property
    def compact(self) -> bool:
        """Whether ``sums`` is a CSR matrix (memory in the pairs seen, see the module
        docstring)."""
        return sp.issparse(self.sums)

    @property
    def has_missing(self) -> bool:
        """Whether some entry of the rows was missing (``observed`` is kept)."""
        return self.observed is not None

    @property
    def feature_count(self) -> np.ndarray:
        """Weighted rows of each group whose feature is observed: ``observed``, or
        ``count[:, None]`` (shape (n_groups, 1), broadcasting) when nothing is missing.

        What an event model divides by feature by feature (e.g. a Bernoulli model's
        ``(sums + a) / (feature_count + a + b)``), so that it ignores missing entries.
        """
        return self.count[:, None] if self.observed is None else self.observed

    @property
    def total_feature_count(self):
        """``total_observed``, or ``total_count`` (a float) when nothing is missing."""
        return self.total_count if self.total_observed is None else self.total_observed

    def _full_observed(self):
        """``feature_count`` as a full (n_groups, n_features) array and its total."""
        if self.observed is not None:
            return self.observed, self.total_observed
        shape = (self.n_groups, self.n_features)
        return (
            np.broadcast_to(self.count[:, None], shape),
            np.full(self.n_features, float(self.total_count)),
        )

    @property
    def mean(self) -> np.ndarray:
        """Weighted mean of each group (0 for an empty group), shape (n_groups, n_features)."""
        return _safe_divide(self.sums, self.feature_count)

    def group_sums(self) -> np.ndarray:
        """``sums.sum(axis=1)``: each group's total over all features, cached until the
        statistics change (they replace ``sums`` rather than modify it)."""
        cached = getattr(self, "_group_sums", None)
        if cached is None or cached[0] is not self.sums:
            cached = (self.sums, np.asarray(self.sums.sum(axis=1)).ravel())
            self._group_sums = cached
        return cached[1]

    @property
    def var(self) -> np.ndarray:
        """Weighted maximum-likelihood variance of each group (0 for an empty group)."""
        self._require_second_moments("var")
        return _safe_divide(self.m2, self.feature_count)

    @property
    def total_mean(self) -> np.ndarray:
        """Weighted mean over all rows, shape (n_features,)."""
        return _safe_divide(self.total_sums, np.asarray(self.total_feature_count))

    @property
    def total_var(self) -> np.ndarray:
        """Weighted maximum-likelihood variance over all rows, shape (n_features,)."""
        self._require_second_moments("total_var")
        return _safe_divide(self.total_m2, np.asarray(self.total_feature_count))

    def _require_second_moments(self, what):
        if not self.second_moments:
            raise ValueError(f"{what} needs second moments; create GroupStats(second_moments=True)")

    # ------------------------------------------------------------------ building
    @classmethod
    def from_data(
        cls, X, G, sample_weight=None, *, second_moments=True, compact=False
    ) -> GroupStats:
        """Statistics of one batch (``GroupStats(g, d).update(X, G, sample_weight)``).

        ``compact``: keep ``sums`` as CSR (X multiplied as CSR; not with missing
        entries, and only without second moments; see the module docstring).
        """
        if compact and second_moments:
            raise ValueError("compact statistics have no second moments")
        return cls._shell(G.shape[1], X.shape[1], second_moments)._batch(
            X, G, sample_weight, compact=compact
        )

    @classmethod
    def _shell(cls, n_groups, n_features, second_moments):
        """An object with the shape of statistics and no arrays: what :meth:`_batch`
        reads (not n_groups x n_features zeros, which may not fit in memory)."""
        new = cls.__new__(cls)
        new.n_groups, new.n_features = int(n_groups), int(n_features)
        new.second_moments = bool(second_moments)
        return new

    @classmethod
    def from_member_labels(
        cls, X, Y, membership, sample_weight=None, *, second_moments=True
    ) -> GroupStats:
        """``from_data`` with the groups of every member's labels and of its sample.

        Group ``k * L + l`` holds the rows of member k (weights ``membership[:, k]``,
        shape (n_samples, K)) with label l of ``Y`` (n_samples x L, 0/1), and group
        ``K * L + k`` all the rows of member k: the statistics of an ensemble whose
        members are fitted on samples of the rows, in one pass and without forming the
        grouping matrix for sparse X (see :class:`_MemberLabels`).
        """
        groups = _MemberLabels(membership, Y)
        return cls._shell(groups.shape[1], X.shape[1], second_moments)._batch(
            X, groups, sample_weight
        )

    def update(self, X, G, sample_weight=None) -> GroupStats:
        """Add the rows of ``X`` grouped by ``G`` (in place; returns self).

        Parameters
        ----------
        X : ndarray or sparse matrix of shape (n_samples, n_features)
            Feature values, already validated (finite float).
        G : ndarray or sparse matrix of shape (n_samples, n_groups)
            Non-negative grouping weights; usually 0/1 (one-hot classes, label indicators).
        sample_weight : ndarray of shape (n_samples,), default=None
            Row weights; None means 1 for every row.
        """
        batch = self._batch(X, G, sample_weight)
        return self.merge(batch)

    def _batch(self, X, G, sample_weight, *, compact=False):
        n_samples = X.shape[0]
        if G.shape[0] != n_samples or G.shape[1] != self.n_groups:
            raise ValueError(
                f"G has shape {G.shape}; expected ({n_samples}, {self.n_groups}) for "
                f"{n_samples} rows and {self.n_groups} groups"
            )
        if X.shape[1] != self.n_features:
            raise ValueError(f"X has {X.shape[1]} features; expected {self.n_features}")
        weighted = sample_weight is not None
        w = np.asarray(sample_weight, float) if weighted else np.ones(n_samples)
        member_labels = isinstance(G, _MemberLabels)
        groups = G if member_labels else _as_grouping(G)
        partition = False if member_labels else _is_partition(groups)
        if weighted and member_labels:
            groups = groups.multiply(w[:, None])
        elif weighted:
            groups = (
                sp.csr_matrix(groups.multiply(w[:, None]))
                if sp.issparse(groups)
                else groups * w[:, None]
            )
        count = _as_dense(groups.sum(axis=0)).ravel()
        if compact and not sp.issparse(X):
            X = sp.csr_matrix(X)  # so that the product stays sparse
        sums = _product_T(groups, X, keep_sparse=compact)
        # Every row in exactly one group: the totals follow from the groups.
        total_sums = (
            _as_dense(sums.sum(axis=0)).ravel() if partition else _product_T(w[:, None], X).ravel()
        )
        missing = None
        if np.isnan(total_sums).any() or np.isnan(sums.data if sp.issparse(sums) else sums).any():
            # Missing entries (NaN) reach the sums of every group and feature they concern
            # (NaN times a weight of 0 is NaN in a dense product; a sparse product skips
            # only rows of no group and weight 0, whose entries count nowhere): found here
            # without a pass over X, and only then split out and summed again.
            X, missing = split_missing(X)
            sums = _product_T(groups, X)
            total_sums = sums.sum(axis=0) if partition else _product_T(w[:, None], X).ravel()
        observed = total_observed = None
        if missing is not None:  # rows whose entry is observed: all rows but the missing
            observed = count[:, None] - _product_T(groups, missing)
            total_observed = (
                observed.sum(axis=0)
                if partition
                else w.sum() - _product_T(w[:, None], missing).ravel()
            )
        batch = GroupStats.from_arrays(
            count, sums, w.sum(), total_sums, observed=observed, total_observed=total_observed
        )
        if not self.second_moments:
            return batch
        mean, total_mean = batch.mean, batch.total_mean
        feature_count, total_feature_count = batch.feature_count, batch.total_feature_count
        total_m2 = None
        if sp.issparse(X):
            # Raw sums of squares (centre 0): centring would densify sparse X. A missing
            # entry is 0 in the filled X: it adds nothing to the raw sums.
            squares = X.multiply(X)
            m2 = _m2_from_raw(_product_T(groups, squares), feature_count, mean)
            if not partition:
                total_m2 = _m2_from_raw(
                    _product_T(w[:, None], squares).ravel(), total_feature_count, total_mean
                )
        elif partition:
            # Two passes, each row centred on its group's mean: exact zeros for a feature
            # constant within a group (a missing entry, set to that mean, adds nothing).
            row_group = _group_of_rows(groups)
            m2 = _centred_squares(_at_centre(X, missing, mean, row_group), groups, mean, row_group)
        else:
            # Overlapping groups: centre on the overall batch mean (shifted-data formula).
            centre, no_group = total_mean[None, :], np.zeros(n_samples, dtype=np.intp)
            X = _at_centre(X, missing, centre, no_group)
            squares = _centred_squares(X, groups, centre, no_group)
            m2 = _m2_from_raw(squares, feature_count, mean - centre)
            total_m2 = _centred_squares(X, w[:, None], centre, no_group).ravel()
        if partition:
            total_m2 = (m2 + feature_count * (mean - total_mean) ** 2).sum(axis=0)
        return GroupStats.from_arrays(
            count,
            sums,
            batch.total_count,
            total_sums,
            m2,
            total_m2,
            observed=observed,
            total_observed=total_observed,
        )

    # ------------------------------------------------------------------ algebra
    def _check_compatible(self, other: GroupStats):
        if not isinstance(other, GroupStats):
            raise TypeError(f"expected GroupStats, got {type(other).__name__}")
        if (other.n_groups, other.n_features) != (self.n_groups, self.n_features):
            raise ValueError(
                f"statistics of shape ({other.n_groups} groups, {other.n_features} features) "
                f"do not match ({self.n_groups} groups, {self.n_features} features)"
            )
        if self.second_moments and not other.second_moments:
            raise ValueError("cannot combine: the other statistics have no second moments")
        if (
            self.groups is not None
            and other.groups is not None
            and not np.array_equal(self.groups, other.groups)
        ):
            raise ValueError(f"statistics of groups {other.groups!r} do not match {self.groups!r}")

    def merge(self, other: GroupStats) -> GroupStats:
        """Add the statistics of disjoint rows (in place; returns self). Exact."""
        self._check_compatible(other)
        self._adopt_groups(other.groups)
        missing = self.has_missing or other.has_missing
        if self.second_moments:
            self.m2 = _chan_combine(
                self.feature_count, self.mean, self.m2, other.feature_count, other.mean, other.m2
            )
            self.total_m2 = _chan_combine(
                np.asarray(self.total_feature_count),
                self.total_mean,
                self.total_m2,
                np.asarray(other.total_feature_count),
                other.total_mean,
                other.total_m2,
            )
        if missing:
            (mine, my_total), (theirs, their_total) = self._full_observed(), other._full_observed()
            self.observed, self.total_observed = mine + theirs, my_total + their_total
        self.count = self.count + other.count
        self.sums = _combined(self.sums, other.sums)
        self.total_count = self.total_count + other.total_count
        self.total_sums = self.total_sums + other.total_sums
        return self

    def subtract(self, other: GroupStats) -> GroupStats:
        """Remove the statistics of a subset of the rows (in place; returns self).

        The inverse of :meth:`merge`: ``a.merge(b).subtract(b)`` gives back ``a`` (up to
        rounding). Used for fold-subtraction cross-validation.
        """
        self._check_compatible(other)
        count = self.count - other.count
        total_count = self.total_count - other.total_count
        if np.any(count < -1e-9 * np.maximum(self.count, 1)) or total_count < -1e-9 * max(
            self.total_count, 1
        ):
            raise ValueError("cannot subtract statistics of more rows than were added")
        count = np.maximum(count, 0.0)
        total_count = max(total_count, 0.0)
        observed = total_observed = None
        if self.has_missing or other.has_missing:
            (mine, my_total), (theirs, their_total) = self._full_observed(), other._full_observed()
            observed = np.maximum(mine - theirs, 0.0)
            total_observed = np.maximum(my_total - their_total, 0.0)
        rest = GroupStats.from_arrays(
            count,
            _combined(self.sums, other.sums, -1.0),
            total_count,
            self.total_sums - other.total_sums,
            observed=observed,
            total_observed=total_observed,
        )
        if self.second_moments:
            self.m2 = _chan_remove(
                self.feature_count,
                self.m2,
                other.feature_count,
                other.mean,
                other.m2,
                rest.feature_count,
                rest.mean,
            )
            self.total_m2 = _chan_remove(
                np.asarray(self.total_feature_count),
                self.total_m2,
                np.asarray(other.total_feature_count),
                other.total_mean,
                other.total_m2,
                np.asarray(rest.total_feature_count),
                rest.total_mean,
            )
        self.count, self.sums = count, rest.sums
        self.total_count, self.total_sums = total_count, rest.total_sums
        self.observed, self.total_observed = observed, total_observed
        return self

    def scale(self, factor) -> GroupStats:
        """Multiply every row's weight by ``factor`` (in place; returns self).

        Counts, sums and centred sums of squares are linear in the weights (the means and
        variances do not change), so the result equals statistics of the same rows with
        their weights times ``factor``: what exponential forgetting of a stream does.
        """
        factor = float(factor)
        if not factor >= 0:
            raise ValueError(f"factor must be >= 0; got {factor}")
        self.count = self.count * factor
        self.sums = self.sums * factor
        self.total_count = self.total_count * factor
        self.total_sums = self.total_sums * factor
        if self.second_moments:
            self.m2, self.total_m2 = self.m2 * factor, self.total_m2 * factor
        if self.observed is not None:
            self.observed = self.observed * factor
            self.total_observed = self.total_observed * factor
        return self

    def add_row(self, x, groups, weight=1.0) -> GroupStats:
        """Add one dense row ``x`` (1-D) of weight ``weight`` to ``groups`` (indices), in
        place: :meth:`add_grouped` of one row."""
        G = np.zeros((1, self.n_groups))
        G[0, groups] = 1.0
        return self.add_grouped(np.asarray(x, dtype=np.float64)[None, :], G, np.array([weight]))

    def add_grouped(self, X, G, weights) -> GroupStats:
        """Add rows X to the groups of a 0/1 grouping matrix G (a row to every group of its
        row of G, and to the totals), in place; returns self.

        The multi-label online fast path (a row to each label it holds). One row without
        missing entries takes Welford's update of the groups it reaches, i.e. Chan's
        pairwise update with a one-row second set, ``M2 += (x - mean)**2 n w / (n + w)``
        (one CSR row: without second moments only, each entry added where it falls);
        several rows, missing entries or compact statistics their statistics as
        :meth:`from_data` makes them, merged (:meth:`merge`) and written into the arrays.
        As :meth:`add_rows`, it modifies the arrays in place: not for a
        ``copy(deep=False)``.

        Parameters
        ----------
        X : ndarray or CSR matrix of shape (n_rows, n_features)
        G : ndarray of shape (n_rows, n_groups)
            0/1.
        weights : ndarray of shape (n_rows,)

        Examples
        --------
        >>> import numpy as np
        >>> from mlnb.stats import GroupStats
        >>> stats = GroupStats(2, 1)
        >>> stats.add_grouped(np.array([[1.0], [3.0]]), np.array([[1, 1], [1, 0]]), np.ones(2))
        GroupStats(n_groups=2, n_features=1, second_moments=True, total_count=2)
        >>> stats.var
        array([[1.],
               [0.]])
        """
        self.__dict__.pop("_group_sums", None)  # the sums change in place
        values = X.data if sp.issparse(X) else X
        if X.shape[0] > 1 or self.has_missing or self.compact or np.isnan(values.sum()):
            batch = GroupStats.from_data(
                X,
                sp.csr_matrix(G),
                weights,
                second_moments=self.second_moments,
                compact=self.compact,
            )
            if self.compact or self.has_missing or batch.has_missing:
                return self.merge(batch)
            reached = np.flatnonzero(batch.count > 0)  # the groups the rows belong to
            return self._merge_in_place(reached, batch.select_groups(reached, copy=False))
        groups, weight = np.flatnonzero(np.asarray(G)[0]), float(weights[0])
        if sp.issparse(X):
            if self.second_moments:
                raise ValueError("a sparse row with second moments: give it dense")
            entries = X.data if weight == 1.0 else weight * X.data
            np.add.at(self.sums, (groups[:, None], X.indices[None, :]), entries[None, :])
            np.add.at(self.total_sums, X.indices, entries)
        else:
            x = X[0]
            weighted = x if weight == 1.0 else weight * x
            if self.second_moments:
                self._welford(groups, x, weight)
            self.sums[groups] += weighted
            self.total_sums += weighted
        self.count[groups] += weight
        self.total_count += weight
        return self

    def _welford(self, groups, x, weight):
        """``M2 += (x - mean)**2 n w / (n + w)`` of ``groups`` and of the totals, for one
        dense row ``x`` of weight ``weight``, before its sums are added."""
        tiny = np.finfo(np.float64).tiny
        if groups.size:
            count = self.count[groups]
            deviation = self.sums[groups]  # a copy: fancy indexing
            deviation /= np.maximum(count, tiny)[:, None]
            deviation -= x
            deviation *= deviation
            deviation *= (count * weight / np.maximum(count + weight, tiny))[:, None]
            self.m2[groups] += deviation
        _welford_step(self.total_m2, self.total_sums, self.total_count, x, weight)

    def add_rows(self, index, X, weights) -> GroupStats:
        """Add row i of ``X`` to group ``index[i]`` with weight ``weights[i]``, in place.

        The single-label online fast path (one group per row; a few rows, dense or CSR).
        One dense row without missing entries takes Welford's update (as :meth:`add_row`),
        a few such rows the statistics of the groups they reach combined by Chan's update,
        and sparse rows without second moments add their entries where they are; rows with
        missing entries (or wide sparse ones with second moments) merge their statistics
        (:meth:`from_data` and :meth:`merge`). As :meth:`add_row`, it modifies the arrays
        in place: not for a ``copy(deep=False)``.

        Parameters
        ----------
        index : ndarray of int of shape (n_rows,)
        X : ndarray or CSR matrix of shape (n_rows, n_features)
            Rows as the event model prepares them (float).
        weights : ndarray of shape (n_rows,)

        Examples
        --------
        >>> import numpy as np
        >>> from mlnb.stats import GroupStats
        >>> stats = GroupStats(2, 1).add_rows(np.array([0]), np.array([[1.0]]), np.ones(1))
        >>> stats.add_rows(np.array([0, 1]), np.array([[3.0], [4.0]]), np.ones(2)).var
        array([[1.],
               [0.]])
        """
        sparse = sp.issparse(X)
        values = X.data if sparse else X
        if self.has_missing or self.compact or np.isnan(values.sum()):
            batch = GroupStats.from_data(
                X,
                one_hot(index, self.n_groups),
                weights,
                second_moments=self.second_moments,
                compact=self.compact,
            )
            return self.merge(batch)
        self.__dict__.pop("_group_sums", None)  # the sums change in place
        if sparse and not self.second_moments:
            X = sp.csr_matrix(X)
            rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
            entries = X.data * weights[rows]
            np.add.at(self.sums, (index[rows], X.indices), entries)
            np.add.at(self.total_sums, X.indices, entries)
            np.add.at(self.count, index, weights)
            self.total_count += float(weights.sum())
            return self
        if sparse and X.shape[0] * X.shape[1] > _block_rows(1):  # too large to densify
            batch = GroupStats.from_data(
                X, one_hot(index, self.n_groups), weights, second_moments=self.second_moments
            )
            return self.merge(batch)
        X = X.toarray() if sparse else X
        if X.shape[0] == 1:
            return self._add_one(int(index[0]), X[0], float(weights[0]))
        return self._add_dense(index, X, weights)

    def _add_dense(self, index, X, weights):
        """Dense rows without missing entries, row i to group ``index[i]``: their
        statistics by group (as :meth:`_batch` of a partition) combined in place with the
        groups they reach by Chan's update."""
        self.__dict__.pop("_group_sums", None)  # the sums change in place
        groups, inverse = np.unique(index, return_inverse=True)
        G = np.zeros((X.shape[0], len(groups)))
        G[np.arange(X.shape[0]), inverse.ravel()] = weights
        count, sums, total_count = G.sum(axis=0), G.T @ X, float(weights.sum())
        total_sums = sums.sum(axis=0)
        if self.second_moments:
            mean = _safe_divide(sums, count[:, None])
            centred = X - mean[inverse.ravel()]
            m2 = G.T @ (centred * centred)
            total_mean = _safe_divide(total_sums, total_count)
            total_m2 = (m2 + count[:, None] * (mean - total_mean) ** 2).sum(axis=0)
        else:
            m2 = total_m2 = None
        batch = GroupStats.from_arrays(count, sums, total_count, total_sums, m2, total_m2)
        return self._merge_in_place(groups, batch)

    def _merge_in_place(self, groups, batch):
        """:meth:`merge` of the statistics ``batch`` of groups ``groups`` (their order),
        without missing entries, written into these arrays (the groups not reached are
        unchanged): what the online updates of a few rows share."""
        self.__dict__.pop("_group_sums", None)  # the sums change in place
        if self.second_moments:
            mine = self.count[groups][:, None]
            self.m2[groups] = _chan_combine(
                mine,
                _safe_divide(self.sums[groups], mine),
                self.m2[groups],
                batch.count[:, None],
                batch.mean,
                batch.m2,
            )
            self.total_m2[...] = _chan_combine(
                np.asarray(self.total_count),
                self.total_mean,
                self.total_m2,
                np.asarray(batch.total_count),
                batch.total_mean,
                batch.total_m2,
            )
        self.count[groups] += batch.count
        self.sums[groups] += batch.sums
        self.total_count += batch.total_count
        self.total_sums += batch.total_sums
        return self

    def _add_one(self, group, x, weight):
        """:meth:`add_row` of a row ``x`` without missing entries to one ``group`` (an
        int): the same update, on views of the group's arrays rather than copies."""
        self.__dict__.pop("_group_sums", None)  # the sums change in place
        count, sums = float(self.count[group]), self.sums[group]
        weighted = x if weight == 1.0 else weight * x
        if self.second_moments:
            _welford_step(self.m2[group], sums, count, x, weight)
            _welford_step(self.total_m2, self.total_sums, self.total_count, x, weight)
        self.count[group] = count + weight
        sums += weighted
        self.total_count += weight
        self.total_sums += weighted
        return self

    def copy(self, *, deep=True) -> GroupStats:
        """A copy; ``deep=False`` shares the arrays, which :meth:`merge` and :meth:`subtract`
        replace rather than modify, so the copy can be merged into or subtracted from
        without touching the original."""
        take = _copied if deep else (lambda array: array)
        moments = (take(self.m2), take(self.total_m2)) if self.second_moments else ()
        copied = GroupStats.from_arrays(
            take(self.count),
            take(self.sums),
            self.total_count,
            take(self.total_sums),
            *moments,
            **self._observed_parts(take),
        )
        copied._adopt_groups(self.groups)
        return copied

    def _observed_parts(self, take=lambda array: array, rows=None, columns=None):
        """``observed`` and ``total_observed`` (as keyword arguments of :meth:`from_arrays`),
        taken by ``take``, of some groups (``rows``) and features (``columns``)."""
        if self.observed is None:
            return {}
        observed, total = self.observed, self.total_observed
        if rows is not None:
            observed = observed[rows]
        if columns is not None:
            observed, total = observed[:, columns], total[columns]
        return {"observed": take(observed), "total_observed": take(total)}

    def complement(self, excluded: GroupStats | None = None) -> GroupStats:
        """Statistics of the rows *outside* each group: total minus group.

        For a label-indicator grouping this gives every label's negative class at once
        (binary relevance). Second moments follow from Chan's update solved for the rest.
        ``excluded``: statistics of the same rows grouped otherwise, whose group i is also
        taken out of group i's rest (the rows whose label is unknown: the rest is then
        the rows known not to hold it); the totals stay this object's.
        """
        rest = self._complement()
        if excluded is None:
            return rest
        totals = (rest.total_count, rest.total_sums, rest.total_m2, rest.total_observed)
        rest = rest.subtract(excluded.padded(self.n_groups))
        rest.total_count, rest.total_sums, rest.total_m2, rest.total_observed = totals
        return rest

    def _complement(self) -> GroupStats:
        observed = {}
        if self.has_missing:
            rest_observed = np.maximum(self.total_observed[None, :] - self.observed, 0.0)
            observed = {"observed": rest_observed, "total_observed": self.total_observed.copy()}
        rest = GroupStats.from_arrays(
            np.maximum(self.total_count - self.count, 0.0),
            self.total_sums[None, :] - _as_dense(self.sums),
            self.total_count,
            self.total_sums.copy(),
            **observed,
        )
        if self.second_moments:
            rest.second_moments = True
            rest.m2 = _chan_remove(
                np.asarray(self.total_feature_count),
                self.total_m2[None, :],
                self.feature_count,
                self.mean,
                self.m2,
                rest.feature_count,
                rest.mean,
            )
            rest.total_m2 = self.total_m2.copy()
        return rest

    def complement_within(self, groups, totals) -> GroupStats:
        """For each i, the rows of group ``totals[i]`` outside group ``groups[i]``.

        :meth:`complement` with a total of its own per group: e.g. the negatives of the
        labels of several members of an ensemble, each within its member's sample (an
        extra group holding the sample). The result keeps this object's totals; the same
        arithmetic as :meth:`complement`, element by element.
        """
        totals = np.arange(self.n_groups)[totals]
        total_count = self.count[totals]
        rest_count = np.maximum(total_count - self.count[groups], 0.0)
        rest_sums = _as_dense(self.sums[totals])
        rest_sums -= _as_dense(self.sums[groups])  # a slice of groups: a view, no copy
        observed = {}
        if self.has_missing:
            rest_observed = np.maximum(self.observed[totals] - self.observed[groups], 0.0)
            observed = {"observed": rest_observed, "total_observed": self.total_observed.copy()}
        rest = GroupStats.from_arrays(
            rest_count, rest_sums, self.total_count, self.total_sums.copy(), **observed
        )
        if self.second_moments:
            own = self.select_groups(groups, copy=False)
            m2 = _chan_remove(
                self.feature_count[totals] if self.has_missing else total_count[:, None],
                self.m2[totals],
                own.feature_count,
                own.mean,
                self.m2[groups],
                rest.feature_count,
                rest.mean,
            )
            rest = GroupStats.from_arrays(
                rest_count,
                rest_sums,
                rest.total_count,
                rest.total_sums,
                m2,
                self.total_m2.copy(),
                **observed,
            )
        return rest

    def select_features(self, columns) -> GroupStats:
        """The statistics of a subset of the features (a copy)."""
        columns = np.arange(self.n_features)[columns]
        moments = ()
        if self.second_moments:
            moments = (self.m2[:, columns], self.total_m2[columns])
        selected = GroupStats.from_arrays(
            self.count.copy(),
            self.sums[:, columns],
            self.total_count,
            self.total_sums[columns],
            *moments,
            **self._observed_parts(columns=columns),
        )
        selected._adopt_groups(self.groups)  # the same groups
        return selected

    def select_groups(self, groups, *, total_group=None, copy=True) -> GroupStats:
        """The statistics of a subset of the groups (a copy).

        With ``total_group``, that group's statistics become the totals: e.g. one member of
        an ensemble whose rows are a sample, given as an extra group. With ``copy=False``
        and a slice of groups, the result shares (views of) this object's arrays, as a
        ``copy(deep=False)`` does.
        """
        if not (isinstance(groups, slice) and not copy):
            groups = np.arange(self.n_groups)[groups]
        if total_group is None:
            total_count, total_sums = self.total_count, self.total_sums.copy()
        else:
            total_sums = self.sums[total_group]
            total_count = self.count[total_group]
            total_sums = _as_dense(total_sums).ravel() if self.compact else total_sums.copy()
        moments = ()
        if self.second_moments:
            total_m2 = self.total_m2.copy() if total_group is None else self.m2[total_group]
            moments = (self.m2[groups], total_m2)
        observed = self._observed_parts(rows=groups)
        if observed and total_group is not None:
            observed["total_observed"] = self.observed[total_group].copy()
        selected = GroupStats.from_arrays(
            self.count[groups], self.sums[groups], total_count, total_sums, *moments, **observed
        )
        if self.groups is not None and total_group is None:
            selected._adopt_groups(self.groups[groups])
        return selected

    def add_groups(self, n_new: int) -> GroupStats:
        """A copy with ``n_new`` empty groups appended (e.g. classes first seen later)."""
        index = np.arange(self.n_groups)
        return self.placed(index, self.n_groups + n_new)

    def add_features(self, n_new: int) -> GroupStats:
        """A copy with ``n_new`` features appended that were 0 (and observed) in every row.

        What a label first seen in a later batch of a stream is in the rows before it,
        where it is a feature (the statistics of Y grouped by Y of a chain).

        Examples
        --------
        >>> import numpy as np
        >>> from mlnb.stats import GroupStats
        >>> Y = np.array([[1, 0], [1, 1]])
        >>> grown = GroupStats.from_data(Y, Y).add_features(1)
        >>> grown.sums
        array([[2., 1., 0.],
               [1., 1., 0.]])
        """
        zeros, none = np.zeros((self.n_groups, int(n_new))), np.zeros(int(n_new))
        moments = ()
        if self.second_moments:  # a constant feature: no spread
            moments = (np.hstack([self.m2, zeros]), np.concatenate([self.total_m2, none]))
        observed = {}
        if self.has_missing:  # the new features are observed in every row
            count = np.broadcast_to(self.count[:, None], zeros.shape)
            observed = {
                "observed": np.hstack([self.observed, count]),
                "total_observed": np.concatenate(
                    [self.total_observed, np.full(none.size, self.total_count)]
                ),
            }
        if self.compact:
            grown = sp.hstack([self.sums, sp.csr_matrix(zeros.shape)], format="csr")
        else:
            grown = np.hstack([self.sums, zeros])
        return GroupStats.from_arrays(
            self.count.copy(),
            grown,
            self.total_count,
            np.concatenate([self.total_sums, none]),
            *moments,
            **observed,
        )

    def emptied(self) -> GroupStats:
        """The statistics of the same rows with every group empty: the totals kept, each
        group's count, sums, moments and observed counts zero (a copy)."""
        return self.select_groups(np.arange(0)).add_groups(self.n_groups)

    def padded(self, n_groups: int) -> GroupStats:
        """These statistics, or a copy with empty groups appended up to ``n_groups``."""
        return self if self.n_groups >= n_groups else self.add_groups(n_groups - self.n_groups)

    def placed(self, index, n_groups: int) -> GroupStats:
        """A copy with group k moved to position ``index[k]`` among ``n_groups`` groups.

        Aligns the groups of two models whose classes were numbered differently (e.g. label
        sets met in another order) before :meth:`merge`.
        """
        if self.compact:  # rows moved by a 0/1 placement matrix: nothing dense
            index = np.asarray(index, dtype=np.intp).ravel()
            placement = sp.csr_matrix(
                (np.ones(len(index)), (index, np.arange(len(index)))),
                shape=(n_groups, self.n_groups),
            )
            new = GroupStats._shell(n_groups, self.n_features, False)
            new.count = np.zeros(n_groups)
            new.count[index] = self.count
            new.sums = sp.csr_matrix(placement @ self.sums)
            new.total_count, new.total_sums = self.total_count, self.total_sums.copy()
            new.m2 = new.total_m2 = new.observed = new.total_observed = None
            return new
        new = GroupStats(n_groups, self.n_features, second_moments=self.second_moments)
        new.count[index], new.sums[index] = self.count, self.sums
        new.total_count, new.total_sums = self.total_count, self.total_sums.copy()
        if self.second_moments:
            new.m2[index], new.total_m2 = self.m2, self.total_m2.copy()
        if self.has_missing:
            new.observed = np.zeros((n_groups, self.n_features))
            new.observed[index] = self.observed
            new.total_observed = self.total_observed.copy()
        return new

    def __repr__(self):
        return (
            f"GroupStats(n_groups={self.n_groups}, n_features={self.n_features}, "
            f"second_moments={self.second_moments}, total_count={self.total_count:g}"
            + (", compact=True)" if self.compact else ")")
        )


class NamedStats:
    """Several statistics of the same rows under names, added and subtracted name by name.

    What an estimator with more than one grouping keeps (multi-label Naive Bayes: X and Y
    grouped by the labels; NaiBX: also by the label-set sizes); its ``batch_statistics``
    returns one and its ``from_statistics`` takes one. A part may be None (not kept).
    Parts whose number of groups differs between two operands (sizes seen in one batch
    only) are aligned by appending empty groups.

    Parameters
    ----------
    **parts : GroupStats or None

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.stats import GroupStats, NamedStats
    >>> X, Y = np.array([[1.0], [3.0]]), np.array([[1, 0], [1, 1]])
    >>> a = NamedStats(features=GroupStats.from_data(X[:1], Y[:1]), labels=None)
    >>> b = NamedStats(features=GroupStats.from_data(X[1:], Y[1:]), labels=None)
    >>> a.copy().merge(b)["features"].count
    array([2., 1.])
    """

    #: Parts that may be None (or absent) in one operand and kept in the other, with the
    #: part over the same rows that they take their totals from: None means no row is in
    #: any of their groups (``unknown``, ``unknown_labels``: X and Y over the rows of each
    #: label where it is unknown, None where every cell was known), and they are added or
    #: subtracted as their partner's statistics with every group emptied
    #: (:meth:`GroupStats.emptied`), so that their totals stay those of every row.
    EMPTY_WHEN_NONE: ClassVar[dict] = {"unknown": "features", "unknown_labels": "labels"}

    def __init__(self, **parts):
        self.parts = parts

    def __getitem__(self, name):
        if name not in self.parts and name in self.EMPTY_WHEN_NONE:
            return None
        return self.parts[name]

    def __repr__(self):
        return f"NamedStats({', '.join(f'{k}={v!r}' for k, v in self.parts.items())})"

    def copy(self, *, deep=True) -> NamedStats:
        """A copy (``deep=False`` shares arrays, as :meth:`GroupStats.copy`)."""
        return NamedStats(
            **{k: None if v is None else v.copy(deep=deep) for k, v in self.parts.items()}
        )

    def _combine(self, other, operation):
        optional = set(self.EMPTY_WHEN_NONE)
        if set(other.parts) - optional != set(self.parts) - optional:
            raise ValueError(f"statistics of {sorted(self.parts)} and {sorted(other.parts)}")
        # an optional part kept by one operand only: the other's partner, emptied (made
        # before the operation changes the partners in place)
        filled = {
            name: tuple(
                stats[partner].emptied() if stats[name] is None else stats[name]
                for stats in (self, other)
            )
            for name, partner in self.EMPTY_WHEN_NONE.items()
            if (self[name] is None) != (other[name] is None)
        }
        for name in [*self.parts, *sorted(set(other.parts) - set(self.parts))]:
            mine, theirs = filled.get(name, (self[name], other[name]))
            if mine is None or theirs is None:
                if mine is None and theirs is None:
                    continue
                raise ValueError(f"the statistics {name!r} are kept by one operand only")
            n_groups = max(mine.n_groups, theirs.n_groups)
            mine, theirs = (stats.padded(n_groups) for stats in (mine, theirs))
            self.parts[name] = operation(mine, theirs)
        return self

    def merge(self, other: NamedStats) -> NamedStats:
        """Add the statistics of other rows (in place; returns self)."""
        return self._combine(other, GroupStats.merge)

    def subtract(self, other: NamedStats) -> NamedStats:
        """Remove the statistics of some of the rows (in place; returns self)."""
        return self._combine(other, GroupStats.subtract)

    def scale(self, factor) -> NamedStats:
        """Multiply every row's weight by ``factor`` (in place; returns self)."""
        for stats in self.parts.values():
            if stats is not None:
                stats.scale(factor)
        return self
