"""The statistics protocol and the fold-subtraction engine.

An *additive* estimator is a function of additive sufficient statistics of its training
rows, in one shape for every estimator:

- ``batch_statistics(X, y, sample_weight=...)`` builds them from rows (nothing is fitted);
- ``from_statistics(stats, n_features=...)`` makes the estimator the model of statistics;
- ``statistics_key()`` says what they depend on (equal keys share statistics).

The single-label Naive Bayes classifiers group the rows by class, and their statistics
carry the classes (``GroupStats.groups``; ``classes=`` aligns batches that lack some); the
additive multi-label ones (binary relevance, chains, iMLNB, NaiBX) group them by label
(:class:`~mlnb.stats.NamedStats`). Statistics add and subtract exactly, so:

- :func:`is_additive` tells whether an estimator follows the protocol;
- :func:`remaining_statistics` takes learnt rows out again (the estimators' ``forget``:
  exact unlearning, the model of the other rows);
- :class:`FoldStatistics` is *the* fold-subtraction engine: one statistics pass over the
  folds of a partition of the rows gives every fold's training statistics (total minus
  fold) and its model, equal to a refit on the training part (up to rounding), plus the
  model of all rows. Model selection (:mod:`mlnb.selection`), decision-rule tuning,
  forgetting (:mod:`mlnb.forgetting`) and streaming all build on it.
"""

from __future__ import annotations

import inspect

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import _check_sample_weight

from .validation import check_label_matrix

__all__ = [
    "FoldStatistics",
    "check_additive",
    "check_partition",
    "is_additive",
    "is_partition",
    "is_single_label",
    "remaining_statistics",
    "takes_classes",
]


def is_additive(estimator) -> bool:
    """Whether ``estimator`` follows the statistics protocol: it builds statistics
    (``batch_statistics``) and a model from them (``from_statistics``), with no generic
    base estimator. Its cross-validation then costs one statistics pass per distinct
    ``statistics_key`` and a prediction per candidate, not a refit per fold.

    Examples
    --------
    >>> from mlnb import BinaryRelevance, EnsembleClassifierChains, MultinomialNB
    >>> from mlnb.base import is_additive
    >>> is_additive(MultinomialNB()), is_additive(BinaryRelevance())
    (True, True)
    >>> is_additive(EnsembleClassifierChains())  # its chains see samples of the rows
    False
    """
    return (
        callable(getattr(estimator, "batch_statistics", None))
        and callable(getattr(estimator, "from_statistics", None))
        and getattr(estimator, "base_estimator", None) is None
    )


def remaining_statistics(fitted, batch, owner):
    """``fitted`` minus ``batch``, the statistics of rows the model learnt: those of the
    other rows (a new object; ``fitted`` is unchanged). What ``forget`` installs.

    Raises a ValueError naming ``owner`` where ``batch`` holds what ``fitted`` cannot have
    learnt: more rows (or weight) in a group than it holds, or a sum of non-negative
    values (counts, 0/1 indicators) that would turn negative. Rows never learnt are caught
    only so; equal rows learnt once and forgotten twice, likewise.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.stats import GroupStats
    >>> X, Y = np.array([[1.0], [3.0], [5.0]]), np.array([[1], [1], [1]])
    >>> total = GroupStats.from_data(X, Y)
    >>> rest = remaining_statistics(total, GroupStats.from_data(X[:1], Y[:1]), "model")
    >>> rest.count, rest.mean
    (array([2.]), array([[4.]]))
    """
    parts = getattr(fitted, "parts", {"statistics": fitted})
    remaining = fitted.copy()
    try:
        remaining.subtract(batch)
    except ValueError:
        raise ValueError(
            f"{owner}.forget: these rows were not all learnt (a group would hold fewer than "
            "no rows): give rows the model learnt, with their labels and weights"
        ) from None
    left = getattr(remaining, "parts", {"statistics": remaining})
    for name, stats in parts.items():
        if stats is None:
            continue
        for field in ("sums", "total_sums"):
            before, after = _values(getattr(stats, field)), _values(getattr(left[name], field))
            if not before.size or before.min() < 0:
                continue  # features that may be negative: no sign to check
            if after.min() < -1e-9 * max(1.0, float(before.max())):
                raise ValueError(
                    f"{owner}.forget: these rows were not all learnt (a sum of non-negative "
                    "features would turn negative): give rows the model learnt"
                )
    return remaining


def _values(array):
    """The stored values of a dense or sparse array."""
    return array.data if hasattr(array, "tocsr") else np.asarray(array)


def check_additive(estimator, purpose="fold subtraction", hint=""):
    """Raise a TypeError naming ``purpose`` (and ending with ``hint``) unless
    ``estimator`` is additive; a ValueError if it is one with a generic base estimator."""
    if getattr(estimator, "base_estimator", None) is not None and callable(
        getattr(estimator, "batch_statistics", None)
    ):
        raise ValueError(f"{purpose} needs the Naive Bayes path (no base_estimator)")
    if not is_additive(estimator):
        raise TypeError(
            f"{type(estimator).__name__} is not supported by {purpose}: its model is not "
            "a function of additive statistics alone. It needs an mlnb Naive Bayes classifier "
            "or an additive multi-label Naive Bayes (BinaryRelevance, ClassifierChain, IMLNB, "
            f"NaiBX){hint}"
        )


def is_partition(folds, n_samples) -> bool:
    """Whether the index arrays ``folds`` hold each of ``n_samples`` rows exactly once."""
    covered = np.zeros(n_samples, dtype=int)
    for test in folds:
        covered[test] += 1
    return bool(np.all(covered == 1))


def check_partition(folds, n_samples):
    """Raise a ValueError unless ``folds`` partition the rows (see :func:`is_partition`)."""
    if not is_partition(folds, n_samples):
        raise ValueError("the folds' test parts must partition the rows")


def is_single_label(y) -> bool:
    """Whether targets ``y`` are classes (one per row, 1-D) rather than a 0/1 label matrix
    (2-D): how the statistics protocol groups the rows, by class or by label."""
    return not hasattr(y, "tocsr") and np.ndim(y) == 1


def takes_classes(estimator) -> bool:
    """Whether ``partial_fit`` needs ``classes=`` (single-label classifiers, and a wrapper
    of one such as :class:`mlnb.forgetting.SlidingWindow`, which forwards them)."""
    if "classes" not in inspect.signature(estimator.partial_fit).parameters:
        return False
    inner = getattr(estimator, "estimator", None)
    return inner is None or takes_classes(inner)


class FoldStatistics:
    """The statistics of every fold of a partition of the rows, from one pass.

    Parameters
    ----------
    estimator : an additive estimator (see :func:`is_additive`)
        Its hyper-parameters decide the statistics (``statistics_key``); every estimator
        with the same key may be installed on them.
    X : array-like or sparse matrix of shape (n_samples, n_features)
    y : array-like of shape (n_samples,) or (n_samples, n_labels)
        Classes (single-label estimators), a 0/1 indicator matrix (multi-label ones) or a
        class per output (multi-target ones).
    folds : list of index arrays
        The test parts; they must partition the rows (each row in exactly one).
    sample_weight : array-like of shape (n_samples,), default=None

    Attributes
    ----------
    parts : list
        Each fold's statistics (:class:`~mlnb.stats.GroupStats` by class, or
        :class:`~mlnb.stats.NamedStats`).
    total : the statistics of all rows (the parts merged)
    classes : ndarray or None
        The sorted classes of a single-label estimator (None for multi-label ones).
    output_classes : list of ndarray or None
        Every output's classes, for an estimator of class-valued outputs (one that has
        ``target_classes(y)``, :mod:`mlnb.multitarget`): each fold's model keeps them all,
        as a refit with ``classes`` given would.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import MultinomialNB
    >>> from mlnb.base import FoldStatistics
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.poisson(2.0, size=(30, 4)), np.tile([0, 1, 2], 10)
    >>> folds = [np.arange(k, 30, 3) for k in range(3)]
    >>> engine = FoldStatistics(MultinomialNB(), X, y, folds)
    >>> train = np.setdiff1d(np.arange(30), folds[0])
    >>> refit = MultinomialNB().fit(X[train], y[train])
    >>> bool(np.allclose(engine.model(0).feature_log_prob_, refit.feature_log_prob_))
    True
    """

    def __init__(self, estimator, X, y, folds, *, sample_weight=None):
        check_additive(estimator)
        check_partition(folds, X.shape[0])
        self.estimator = estimator
        self.folds = [np.asarray(test) for test in folds]
        self.n_features = X.shape[1]
        self.single_label = is_single_label(y)
        # class-valued outputs (multi-target): every fold's statistics keep all classes
        output_classes = getattr(estimator, "target_classes", None)
        self.output_classes = None if output_classes is None else output_classes(y)
        if self.output_classes is not None:
            self.classes = None
            self._targets = np.asarray(y)
        elif self.single_label:
            self.classes, index = np.unique(np.asarray(y), return_inverse=True)
            self.index = index.ravel()
            self._targets = self.index
        else:
            self.classes = None
            # unknown cells kept (NaN): the estimator's batch_statistics learns or refuses them
            self._targets = check_label_matrix(y, sparse=True, unknown=True)
        weight = None if sample_weight is None else _check_sample_weight(sample_weight, X)
        self.parts = [self.statistics(X, test, weight) for test in self.folds]
        total = self.parts[0].copy(deep=False)
        for part in self.parts[1:]:
            total = total.merge(part)
        self.total = total

    def statistics(self, X, rows, sample_weight=None):
        """The statistics of ``X[rows]`` (rows of the data the engine was built on), grouped
        as the folds' (every class of ``y``, in order, for single-label estimators)."""
        w = None if sample_weight is None else np.asarray(sample_weight)[rows]
        if self.output_classes is not None:
            return self.estimator.batch_statistics(
                X[rows], self._targets[rows], classes=self.output_classes, sample_weight=w
            )
        if self.single_label:
            codes = np.arange(len(self.classes))
            return self.estimator.batch_statistics(
                X[rows], self._targets[rows], classes=codes, sample_weight=w
            )
        return self.estimator.batch_statistics(X[rows], self._targets[rows], w)

    def training(self, k):
        """The statistics of every row outside fold ``k`` (total minus fold; a new object,
        the engine's statistics are unchanged)."""
        return self.total.copy(deep=False).subtract(self.parts[k])

    def install(self, estimator, stats, *, codes=False, columns=None, n_features=None):
        """``estimator`` (a clone is not made) fitted to ``stats``; returns it.

        Single-label only: ``codes`` gives the model the classes' integer codes instead of
        the classes (faster scoring), ``columns`` scores ``X[:, columns]`` (multinomial
        models; see the classifiers' ``from_statistics``). Classes absent from ``stats``
        are dropped, as a refit on those rows would.
        """
        n_features = self.n_features if n_features is None else n_features
        if self.output_classes is not None:
            return estimator.from_statistics(
                stats, classes=self.output_classes, n_features=n_features
            )
        if not self.single_label:
            return estimator.from_statistics(stats, n_features=n_features)
        present = stats.count > 0
        kept = np.flatnonzero(present)  # the codes of the classes with rows
        if len(kept) < len(present):
            stats = stats.select_groups(present)
        classes = kept if codes else self.classes[kept]
        return estimator.from_statistics(
            stats, classes=classes, n_features=n_features, columns=columns
        )

    def release_folds(self):
        """Drop the folds' statistics (only :attr:`total` and :meth:`full_model` remain):
        a search that has scored every fold keeps just what its refit needs."""
        self.parts = None

    def model(self, k, estimator=None, **options):
        """The model of fold ``k``'s training part: ``estimator`` (default: the engine's)
        cloned and installed on :meth:`training` statistics (see :meth:`install`)."""
        estimator = clone(self.estimator if estimator is None else estimator)
        return self.install(estimator, self.training(k), **options)

    def models(self, estimator=None, **options):
        """Each fold's model in turn (a generator: one is held at a time)."""
        return (self.model(k, estimator, **options) for k in range(len(self.folds)))

    def full_model(self, estimator=None):
        """The model of all rows (from the total statistics: no pass over the data)."""
        estimator = clone(self.estimator if estimator is None else estimator)
        return self.install(estimator, self.total)
