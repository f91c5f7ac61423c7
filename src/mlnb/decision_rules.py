"""Decision rules: label scores (log-odds or any monotone score) to 0/1 label sets.

A multi-label model's 0.5 rule (log-odds > 0) over-predicts where labels are rare (Naive
Bayes log-odds grow with the number of features). The rules of the thresholding literature
(Yang 2001, "A study of thresholding strategies for text categorization", SIGIR; Largeron
et al. 2012 for MCut; MEKA's PCut family) learn a cut from scores and labels, e.g. the
out-of-fold scores of :class:`mlnb.selection.TunedThresholdsCV`:

- :class:`Threshold`: one threshold for every label, given, or the one that maximises micro
  F1 on the scores it is fitted to;
- :class:`PCut`: one threshold, set so that the share of positive predictions equals the
  training label density (Yang's proportional cut, over all labels at once);
- :class:`PCutL`: one threshold per label, each matching that label's training frequency;
- :class:`RCut`: the k best labels of each row (k: the training label cardinality, rounded);
- :class:`MCut`: each row cut at the largest gap between its sorted scores;
- :class:`SCut`: one threshold per label maximising that label's F1, shrunk towards the
  best global threshold by ``shrinkage`` pseudo-positives, so that rare labels do not
  overfit (Yang's SCut with a shrinkage of our choosing);
- :class:`MicroCuts`: one threshold per label, the cuts that maximise micro F1 together
  (Dinkelbach's iteration), shrunk like SCut's;
- :class:`Cardinality`: the k(x) best labels, k(x) from a Naive Bayes size model of the
  row's top scores (the predicted-cardinality rule of NaiBX's first stage and MetaLabeler).

Every rule works on scores, never on saturated probabilities: give it log-odds
(``decision_function``). Rules are fitted with ``fit(scores, Y)`` and applied with
``predict(scores)``; they hold only what they learnt (``threshold_``, ``thresholds_``, ``k_``).
Rules fitted to the same scores share one sort of each label's scores and one of each row's:
give them a :class:`SortedScores` (what a search over rules does, :func:`fit_rules`).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from ._registered import Registered
from .base.validation import LOG_ODDS_BOUND

__all__ = [
    "RULES",
    "Cardinality",
    "FittedRule",
    "MCut",
    "MicroCuts",
    "PCut",
    "PCutL",
    "RCut",
    "SCut",
    "SortedScores",
    "Threshold",
    "fit_rules",
    "make_rule",
    "rule_name",
]


def _check(scores, Y=None):
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2:
        raise ValueError(f"scores must be 2-D (n_samples, n_labels); got shape {scores.shape}")
    if np.isnan(scores).any():
        raise ValueError("scores hold NaN; give finite log-odds (decision_function)")
    if Y is None:
        return scores
    Y = Y.toarray() if sp.issparse(Y) else np.asarray(Y)
    if Y.shape != scores.shape:
        raise ValueError(f"Y has shape {Y.shape}; the scores {scores.shape}")
    return scores, (Y != 0)


def _label_order(scores):
    """Each label's rows by decreasing score, (n_labels, n_samples) (each label contiguous:
    3x faster on delicious's 12920 x 983 out-of-fold scores than sorting along the first
    axis)."""
    return np.argsort(-np.ascontiguousarray(scores.T), axis=1)


def _label_sort(scores, truth, order=None):
    """Each label's scores in decreasing order and its truth in that order, as rows of two
    (n_labels, n_samples) arrays; ``order``: :func:`_label_order` of the scores, if made."""
    order = _label_order(scores) if order is None else order
    ordered = np.take_along_axis(np.ascontiguousarray(scores.T), order, axis=1)
    return ordered, np.take_along_axis(np.ascontiguousarray(truth.T), order, axis=1)


def _best_f1_cuts(scores, truth, n_true=None, label_sort=None):
    """The threshold of every column maximising the F1 of ``scores >= t`` against
    ``truth`` (inf for a column without positives), all in one sort of the columns: the
    cuts between consecutive distinct scores are all tried at once. ``n_true``: the
    positives of each column when ``scores`` holds only its top part; ``label_sort``: the
    columns already sorted (:func:`_label_sort`). Returns the thresholds and their F1.
    """
    n_samples, n_labels = scores.shape
    if n_samples == 0:
        return np.full(n_labels, np.inf), np.zeros(n_labels)
    ordered, positive = _label_sort(scores, truth) if label_sort is None else label_sort
    n_true = positive.sum(axis=1) if n_true is None else np.broadcast_to(n_true, (n_labels,))
    true_positives = np.cumsum(positive, axis=1, dtype=np.int64)
    f1 = 2 * true_positives / (np.arange(1, n_samples + 1)[None, :] + n_true[:, None])
    f1[:, :-1][ordered[:, 1:] == ordered[:, :-1]] = -1.0  # no cut inside a run of ties
    best = np.argmax(f1, axis=1)
    labels = np.arange(n_labels)
    at = ordered[labels, best]
    following = np.where(
        best + 1 < n_samples, ordered[labels, np.minimum(best + 1, n_samples - 1)], -np.inf
    )
    with np.errstate(invalid="ignore"):
        middle = (at + following) / 2
    threshold = np.where(np.isfinite(following) & np.isfinite(middle), middle, at)
    return np.where(n_true > 0, threshold, np.inf), f1[labels, best]


def _micro_f1_cut(scores, truth):
    """The one threshold over every label maximising micro F1.

    Sorts only the top of the scores when that settles it: a cut predicting m entries
    has F1 at most ``2 T / (m + T)`` (T positives), so once the best cut among the top
    ``m`` entries beats that bound no lower cut can win (the result is that of the full
    sort; on delicious's 12.7 M out-of-fold scores the sort drops from about 1 s).
    """
    flat, positive = np.ravel(scores), np.ravel(truth)
    n_true = int(np.count_nonzero(positive))
    size = 8 * n_true + 1024
    if 0 < n_true and size < flat.size:
        kth = -np.partition(-flat, size - 1)[size - 1]
        top = flat >= kth  # entries tied with the k-th stay together
        size = int(np.count_nonzero(top))
        if size < flat.size:
            cut, f1 = _best_f1_cuts(flat[top, None], positive[top, None], n_true)
            if f1[0] > 2 * n_true / (size + n_true):
                return float(cut[0])
    return float(_best_f1_cuts(flat[:, None], positive[:, None])[0][0])


def _cut_share(scores, share):
    """The threshold above which the given share of ``scores`` (any shape) lies."""
    flat = np.ravel(scores)
    k = round(share * flat.size)
    if k <= 0:
        return np.inf
    if k >= flat.size:
        return -np.inf
    # the k-th and (k+1)-th largest: a partition, not a sort
    n = flat.size
    low, high = np.partition(flat, (n - k - 1, n - k))[[n - k - 1, n - k]]
    return (low + high) / 2 if np.isfinite(low) and np.isfinite(high) else high


def _cut_shares(ordered, shares):
    """:func:`_cut_share` of every label with its own share, from each label's scores in
    decreasing order (the rows of ``ordered``, :func:`_label_sort`)."""
    n_labels, n_samples = ordered.shape
    k = np.rint(np.asarray(shares) * n_samples).astype(np.intp)
    labels = np.arange(n_labels)
    high = ordered[labels, np.clip(k - 1, 0, n_samples - 1)]  # the k-th largest
    low = ordered[labels, np.clip(k, 0, n_samples - 1)]
    with np.errstate(invalid="ignore"):
        middle = (low + high) / 2
    threshold = np.where(np.isfinite(low) & np.isfinite(high), middle, high)
    threshold = np.where(k <= 0, np.inf, threshold)
    return np.where(k >= n_samples, -np.inf, threshold)


class SortedScores:
    """Label scores (and their truth, for fitting), with each label's sort and each row's
    computed once, on first use, and shared by every rule fitted to or applied to them.

    Parameters
    ----------
    scores : array-like of shape (n_samples, n_labels)
        Finite or infinite log-odds (no NaN).
    Y : array-like or sparse matrix of shape (n_samples, n_labels), optional
        The true label sets (needed to fit rules).

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb.decision_rules import SortedScores, fit_rules
    >>> scores = np.array([[2.0, -1.0], [0.5, 1.5], [-3.0, 0.2]])
    >>> Y = np.array([[1, 0], [1, 1], [0, 1]])
    >>> rules = fit_rules(["pcutl", "rcut"], SortedScores(scores, Y))
    >>> rules["pcutl"].predict(scores).tolist()
    [[1, 0], [1, 1], [0, 1]]
    """

    def __init__(self, scores, Y=None):
        if Y is None:
            self.scores, self.truth = _check(scores), None
        else:
            self.scores, self.truth = _check(scores, Y)

    @property
    def shape(self):
        return self.scores.shape

    def _need_truth(self):
        if self.truth is None:
            raise ValueError("fitting a rule needs the true label sets: SortedScores(scores, Y)")
        return self.truth

    @cached_property
    def label_order(self):
        """Each label's rows by decreasing score (n_labels x n)."""
        return _label_order(self.scores)

    @cached_property
    def by_label(self):
        """Each label's scores, decreasing, and its truth in that order (n_labels x n)."""
        return _label_sort(self.scores, self._need_truth(), self.label_order)

    def rows(self, selected, sorts=("label_order", "by_row")):
        """The scores (and truth) of the rows where the mask ``selected`` is true, with the
        ``sorts`` made so far carried over: the rows of a sorted list stay sorted, so a
        rule cross-fitted on parts of the rows needs no new sort."""
        selected = np.asarray(selected, dtype=bool)
        part = SortedScores.__new__(SortedScores)
        part.scores = self.scores[selected]
        part.truth = None if self.truth is None else self.truth[selected]
        made = [name for name in sorts if name in self.__dict__]
        renumbered = np.cumsum(selected) - 1  # each kept row's index in the part
        if "label_order" in made:
            order = self.label_order
            kept = order[selected[order]].reshape(order.shape[0], int(selected.sum()))
            part.label_order = renumbered[kept]
        if "by_row" in made:
            values, columns = self.by_row
            part.by_row = (values[selected], columns[selected])
        return part

    @cached_property
    def micro_cut(self):
        """The one threshold over all labels maximising micro F1."""
        return _micro_f1_cut(self.scores, self._need_truth())

    @cached_property
    def by_row(self):
        """Each row's scores, decreasing, and their columns."""
        order = np.argsort(-self.scores, axis=1, kind="stable")
        return np.take_along_axis(self.scores, order, axis=1), order

    def top(self, k):
        """Each row's ``k`` largest scores, largest first, and their columns (ties: the
        first column first)."""
        values, columns = self.by_row
        return values[:, :k], columns[:, :k]


def _sorted(scores, Y=None):
    """``scores`` as :class:`SortedScores` (as they are if they already are)."""
    if isinstance(scores, SortedScores):
        if Y is not None and scores.truth is None:
            return SortedScores(scores.scores, Y)
        return scores
    return SortedScores(scores, Y)


def fit_rules(rules, scores, Y=None):
    """Fit several rules to the same scores, sharing their sorts.

    Parameters
    ----------
    rules : iterable of rule names or rule objects, or dict name -> rule
    scores : array-like or SortedScores
    Y : label sets (unless ``scores`` is a SortedScores with its truth)

    Returns
    -------
    dict
        name -> fitted clone of the rule.
    """
    from sklearn.base import clone

    scores = _sorted(scores, Y)
    if not isinstance(rules, dict):
        rules = {(r if isinstance(r, str) else rule_name(r)): r for r in rules}
    return {name: clone(make_rule(rule)).fit(scores) for name, rule in rules.items()}


class _Rule(Registered, BaseEstimator):
    """Base: ``fit(scores, Y)`` then ``predict(scores)`` (0/1, the shape of scores);
    ``scores`` may be a :class:`SortedScores` (then ``Y`` may be left out)."""

    #: Whether the rule reads each row's sorted scores (:attr:`SortedScores.by_row`): a
    #: search that fits several rules sorts the rows only if one does.
    sorts_rows = False

    def fit(self, scores, Y=None):
        raise NotImplementedError

    def predict(self, scores):
        return (_sorted(scores).scores >= self._thresholds()).astype(int)


class Threshold(_Rule):
    """One threshold for every label: ``threshold``, or fitted to maximise micro F1.

    Parameters
    ----------
    threshold : float or None, default=None
        The cut on the scores (0 is the 0.5 rule on log-odds); None learns it.
    """

    def __init__(self, threshold=None):
        self.threshold = threshold

    def fit(self, scores, Y=None):
        scores = _sorted(scores, Y)
        if self.threshold is None:
            self.threshold_ = scores.micro_cut
        else:
            self.threshold_ = float(self.threshold)
        return self

    def _thresholds(self):
        return self.threshold_


class PCut(_Rule):
    """One threshold over all labels, giving the training label density of positives."""

    def fit(self, scores, Y=None):
        scores = _sorted(scores, Y)
        truth = scores._need_truth()
        self.density_ = float(truth.mean()) if truth.size else 0.0
        self.threshold_ = _cut_share(scores.scores, self.density_)
        return self

    def _thresholds(self):
        return self.threshold_


class PCutL(_Rule):
    """One threshold per label, giving each label its training frequency of positives."""

    def fit(self, scores, Y=None):
        scores = _sorted(scores, Y)
        self.frequency_ = scores._need_truth().mean(axis=0)
        if scores.shape[0] == 0:
            self.thresholds_ = np.full(scores.shape[1], np.inf)
        else:
            self.thresholds_ = _cut_shares(scores.by_label[0], self.frequency_)
        return self

    def _thresholds(self):
        return self.thresholds_[None, :]


class RCut(_Rule):
    """The ``k`` best-scored labels of every row (among tied scores, the first columns).

    Parameters
    ----------
    k : int or None, default=None
        None: the training label cardinality (mean labels per row), rounded, at least 1.
    """

    sorts_rows = True

    def __init__(self, k=None):
        self.k = k

    def fit(self, scores, Y=None):
        truth = _sorted(scores, Y)._need_truth()
        if self.k is None:
            cardinality = truth.sum(axis=1).mean() if truth.size else 1.0
            self.k_ = max(round(float(cardinality)), 1)
        else:
            self.k_ = int(self.k)
        return self

    def predict(self, scores):
        scores = _sorted(scores)
        k = min(self.k_, scores.shape[1])
        out = np.zeros(scores.shape, dtype=int)
        if k > 0:
            np.put_along_axis(out, scores.top(k)[1], 1, axis=1)
        return out


class MCut(_Rule):
    """Each row cut at the largest gap between its sorted scores (Largeron et al. 2012).

    Parameter-free; every row gets at least one label. Best on scores of a common scale
    (probabilities or bounded log-odds).
    """

    sorts_rows = True

    def fit(self, scores, Y=None):
        _sorted(scores, Y)._need_truth()
        return self

    def predict(self, scores):
        scores = _sorted(scores)
        if scores.shape[1] < 2:
            return (scores.scores >= 0).astype(int)
        ordered = scores.by_row[0]  # each row decreasing
        with np.errstate(invalid="ignore"):
            gaps = ordered[:, :-1] - ordered[:, 1:]
        gaps[~np.isfinite(gaps)] = -1.0  # a gap next to an infinite score is no cut
        cut = np.argmax(gaps, axis=1)
        rows = np.arange(scores.shape[0])
        upper, lower = ordered[rows, cut], ordered[rows, cut + 1]
        threshold = np.where(np.isfinite(lower), (upper + lower) / 2, upper)
        return (scores.scores >= threshold[:, None]).astype(int)


class _ShrunkCuts(_Rule):
    """Base: one threshold per label (:meth:`_label_cuts`), shrunk towards the best global
    one by ``shrinkage`` pseudo-positives: ``t_l = (n_l t_l* + m t) / (n_l + m)``."""

    def __init__(self, shrinkage=10.0):
        self.shrinkage = shrinkage

    def fit(self, scores, Y=None):
        scores = _sorted(scores, Y)
        shrinkage = float(self.shrinkage)
        if shrinkage < 0:
            raise ValueError(f"shrinkage must be >= 0; got {self.shrinkage!r}")
        overall = scores.micro_cut
        if not np.isfinite(overall):
            overall = 0.0
        positives = scores._need_truth().sum(axis=0)
        best = self._label_cuts(scores)
        # a label without positives (or scores all -inf) takes the global threshold
        best = np.where(np.isfinite(best), best, overall)
        weight = positives / np.maximum(positives + shrinkage, 1e-300)
        self.thresholds_ = weight * best + (1 - weight) * overall
        return self

    def _label_cuts(self, scores):
        """Each label's cut, from a :class:`SortedScores` with its truth."""
        raise NotImplementedError

    def _thresholds(self):
        return self.thresholds_[None, :]


class SCut(_ShrunkCuts):
    """One threshold per label maximising its F1, shrunk towards the best global one.

    ``t_l = (n_l t_l* + m t) / (n_l + m)`` with ``n_l`` the label's positives, ``t_l*`` its
    F1-best threshold, ``t`` the micro-F1-best global threshold and ``m`` = ``shrinkage``.

    Parameters
    ----------
    shrinkage : float, default=10.0
        Pseudo-positives of the global threshold; 0 is the unshrunk per-label SCut.
    """

    def _label_cuts(self, scores):
        if scores.shape[0] == 0:
            return np.full(scores.shape[1], np.inf)
        return _best_f1_cuts(scores.scores, scores.truth, label_sort=scores.by_label)[0]


class MicroCuts(_ShrunkCuts):
    """One threshold per label, jointly maximising micro F1, shrunk towards the best global one.

    Micro F1 over all labels is ``2 T / (K + P)`` (T true positives, K predicted, P true,
    summed over labels). At the optimum F*, each label's cut maximises ``2 T_l - F* K_l``
    (Dinkelbach 1967 for a ratio objective): one sort of each label's scores, then a few
    rounds of ``F <- micro F1 of the cuts``, which increases to F*. SCut, by contrast,
    maximises each label's own F1 (a macro objective). Rare labels are shrunk as in
    :class:`SCut`: ``t_l = (n_l t_l* + m t) / (n_l + m)``.

    Parameters
    ----------
    shrinkage : float, default=10.0
        Pseudo-positives ``m`` of the global micro-F1 threshold.
    """

    def _label_cuts(self, scores):
        if scores.shape[0] == 0:
            return np.full(scores.shape[1], np.inf)
        return _micro_cuts(*scores.by_label)


def _micro_cuts(ordered, positive, rounds=20):
    """Each label's threshold of the cuts that maximise micro F1 together (inf for a label
    without positives: it predicts nothing), from each label's scores in decreasing order
    and its truth in that order (:func:`_label_sort`)."""
    n_labels, n_samples = ordered.shape
    hits = np.zeros((n_labels, n_samples + 1))
    hits[:, 1:] = np.cumsum(positive, axis=1)  # true positives of the top k, k = 0..n
    n_true = hits[:, -1].sum()
    allowed = np.ones((n_labels, n_samples + 1), dtype=bool)
    allowed[:, 1:-1] = ordered[:, 1:] != ordered[:, :-1]  # no cut inside a run of ties
    predicted = np.arange(n_samples + 1)[None, :]
    labels = np.arange(n_labels)
    level, k = 0.0, np.zeros(n_labels, dtype=np.intp)
    for _ in range(rounds):
        gain = np.where(allowed, 2 * hits - level * predicted, -np.inf)
        k = np.argmax(gain, axis=1)
        total = k.sum() + n_true
        new_level = 2 * hits[labels, k].sum() / total if total else 0.0
        if new_level <= level + 1e-12:
            break
        level = new_level
    upper = ordered[labels, np.maximum(k - 1, 0)]
    lower = ordered[labels, np.minimum(k, n_samples - 1)]
    with np.errstate(invalid="ignore"):
        middle = (upper + lower) / 2
    cut = np.where(np.isfinite(middle), middle, upper)
    cut = np.where(k == 0, np.inf, cut)  # nothing predicted
    cut = np.where(k == n_samples, -np.inf, cut)  # every row
    return np.where(hits[:, -1] > 0, cut, np.inf)


class Cardinality(_Rule):
    """The k(x) best-scored labels of each row (ties: the first columns), k(x) predicted
    from the row's scores.

    A Gaussian Naive Bayes size model (the set size as its class, as NaiBX's first stage
    and Tang et al.'s 2009 MetaLabeler predict it) on the row's ``n_top`` largest scores,
    sorted: a row whose top scores stand out gets a small set, a flat one a larger one.

    Parameters
    ----------
    n_top : int, default=10
        How many of the largest scores describe a row.
    """

    sorts_rows = True

    def __init__(self, n_top=10):
        self.n_top = n_top

    def _features(self, scores):
        top = min(int(self.n_top), scores.shape[1])
        return np.clip(scores.top(top)[0], -LOG_ODDS_BOUND, LOG_ODDS_BOUND)

    def fit(self, scores, Y=None):
        from .naive_bayes import GaussianNB

        scores = _sorted(scores, Y)
        if int(self.n_top) < 1:
            raise ValueError(f"n_top must be >= 1; got {self.n_top!r}")
        sizes = scores._need_truth().sum(axis=1)
        self.size_model_ = GaussianNB(var_smoothing=1e-3).fit(self._features(scores), sizes)
        return self

    def predict(self, scores):
        scores = _sorted(scores)
        sizes = self.size_model_.predict(self._features(scores)).astype(np.intp)
        out = np.zeros(scores.shape, dtype=int)
        largest = min(int(sizes.max(initial=0)), scores.shape[1])
        if largest > 0:
            columns = scores.top(largest)[1]  # each row's best, best first
            chosen = np.arange(largest)[None, :] < sizes[:, None]
            np.put_along_axis(out, columns, chosen.astype(int), axis=1)
        return out


class FittedRule(_Rule):
    """A fitted rule used as it is, kept whole by ``sklearn.base.clone`` (a setting, not a
    learner): what ``chosen_params_["rule"]`` of a multi-label estimator holds, so that
    ``clone(model).set_params(**model.chosen_params_)`` decides as ``model`` does.

    Parameters
    ----------
    rule : fitted rule
    """

    def __init__(self, rule):
        self.rule = rule

    def __sklearn_clone__(self):
        return self

    def fit(self, scores, Y=None):
        """Nothing to learn; returns self."""
        return self

    def predict(self, scores):
        return self.rule.predict(scores)


def rule_name(rule):
    """The name of :data:`RULES` of a rule object (its class name if it has none)."""
    names = {cls: name for name, cls in RULES.items()}
    return names.get(type(rule), type(rule).__name__)


#: Rules by the names that ``TunedThresholdsCV(strategy=...)`` takes.
RULES = {
    "threshold": Threshold,
    "pcut": PCut,
    "pcutl": PCutL,
    "rcut": RCut,
    "mcut": MCut,
    "scut": SCut,
    "microcuts": MicroCuts,
    "cardinality": Cardinality,
}


def make_rule(spec):
    """A rule object from a name of :data:`RULES` or a rule (unchanged: one of this
    module's, or any object with ``fit(scores, Y)`` and ``predict(scores)``)."""
    if isinstance(spec, _Rule) or (
        callable(getattr(spec, "fit", None)) and callable(getattr(spec, "predict", None))
    ):
        return spec
    if isinstance(spec, str) and spec in RULES:
        return RULES[spec]()
    raise ValueError(f"unknown decision rule {spec!r}; use one of {sorted(RULES)} or a rule object")
