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
"""

from __future__ import annotations

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
    "Threshold",
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


def _best_f1_cuts(scores, truth, n_true=None):
    """The threshold of every column maximising the F1 of ``scores >= t`` against
    ``truth`` (inf for a column without positives), all in one sort of the columns: the
    cuts between consecutive distinct scores are all tried at once. ``n_true``: the
    positives of each column when ``scores`` holds only its top part. Returns the
    thresholds and their F1.

    Works on the transposed columns, each contiguous (3x faster on delicious's 12920 x 983
    out-of-fold scores than sorting along the first axis).
    """
    n_samples, n_labels = scores.shape
    if n_samples == 0:
        return np.full(n_labels, np.inf), np.zeros(n_labels)
    columns = np.ascontiguousarray(scores.T)
    order = np.argsort(-columns, axis=1)
    ordered = np.take_along_axis(columns, order, axis=1)
    positive = np.take_along_axis(np.ascontiguousarray(truth.T), order, axis=1)
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


def _cut_shares(scores, shares):
    """:func:`_cut_share` of every column with its own share (one sort of the columns)."""
    n_samples, n_labels = scores.shape
    ordered = np.sort(np.ascontiguousarray(scores.T), axis=1)  # each label's, increasing
    k = np.rint(np.asarray(shares) * n_samples).astype(np.intp)
    labels = np.arange(n_labels)
    high = ordered[labels, np.clip(n_samples - k, 0, n_samples - 1)]  # the k-th largest
    low = ordered[labels, np.clip(n_samples - k - 1, 0, n_samples - 1)]
    with np.errstate(invalid="ignore"):
        middle = (low + high) / 2
    threshold = np.where(np.isfinite(low) & np.isfinite(high), middle, high)
    threshold = np.where(k <= 0, np.inf, threshold)
    return np.where(k >= n_samples, -np.inf, threshold)


class _Rule(Registered, BaseEstimator):
    """Base: ``fit(scores, Y)`` then ``predict(scores)`` (0/1, the shape of scores)."""

    def fit(self, scores, Y):
        raise NotImplementedError

    def predict(self, scores):
        scores = _check(scores)
        return (scores >= self._thresholds()).astype(int)


class Threshold(_Rule):
    """One threshold for every label: ``threshold``, or fitted to maximise micro F1.

    Parameters
    ----------
    threshold : float or None, default=None
        The cut on the scores (0 is the 0.5 rule on log-odds); None learns it.
    """

    def __init__(self, threshold=None):
        self.threshold = threshold

    def fit(self, scores, Y):
        scores, truth = _check(scores, Y)
        if self.threshold is None:
            self.threshold_ = _micro_f1_cut(scores, truth)
        else:
            self.threshold_ = float(self.threshold)
        return self

    def _thresholds(self):
        return self.threshold_


class PCut(_Rule):
    """One threshold over all labels, giving the training label density of positives."""

    def fit(self, scores, Y):
        scores, truth = _check(scores, Y)
        self.density_ = float(truth.mean()) if truth.size else 0.0
        self.threshold_ = _cut_share(scores, self.density_)
        return self

    def _thresholds(self):
        return self.threshold_


class PCutL(_Rule):
    """One threshold per label, giving each label its training frequency of positives."""

    def fit(self, scores, Y):
        scores, truth = _check(scores, Y)
        self.frequency_ = truth.mean(axis=0)
        self.thresholds_ = _cut_shares(scores, self.frequency_)
        return self

    def _thresholds(self):
        return self.thresholds_[None, :]


class RCut(_Rule):
    """The ``k`` best-scored labels of every row.

    Parameters
    ----------
    k : int or None, default=None
        None: the training label cardinality (mean labels per row), rounded, at least 1.
    """

    def __init__(self, k=None):
        self.k = k

    def fit(self, scores, Y):
        scores, truth = _check(scores, Y)
        if self.k is None:
            cardinality = truth.sum(axis=1).mean() if truth.size else 1.0
            self.k_ = max(round(float(cardinality)), 1)
        else:
            self.k_ = int(self.k)
        return self

    def predict(self, scores):
        scores = _check(scores)
        k = min(self.k_, scores.shape[1])
        out = np.zeros(scores.shape, dtype=int)
        if k > 0:
            top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
            np.put_along_axis(out, top, 1, axis=1)
        return out


class MCut(_Rule):
    """Each row cut at the largest gap between its sorted scores (Largeron et al. 2012).

    Parameter-free; every row gets at least one label. Best on scores of a common scale
    (probabilities or bounded log-odds).
    """

    def fit(self, scores, Y):
        _check(scores, Y)
        return self

    def predict(self, scores):
        scores = _check(scores)
        if scores.shape[1] < 2:
            return (scores >= 0).astype(int)
        ordered = np.sort(scores, axis=1)[:, ::-1]  # each row decreasing (a view)
        with np.errstate(invalid="ignore"):
            gaps = ordered[:, :-1] - ordered[:, 1:]
        gaps[~np.isfinite(gaps)] = -1.0  # a gap next to an infinite score is no cut
        cut = np.argmax(gaps, axis=1)
        rows = np.arange(len(scores))
        upper, lower = ordered[rows, cut], ordered[rows, cut + 1]
        threshold = np.where(np.isfinite(lower), (upper + lower) / 2, upper)
        return (scores >= threshold[:, None]).astype(int)


class _ShrunkCuts(_Rule):
    """Base: one threshold per label (:meth:`_label_cuts`), shrunk towards the best global
    one by ``shrinkage`` pseudo-positives: ``t_l = (n_l t_l* + m t) / (n_l + m)``."""

    def __init__(self, shrinkage=10.0):
        self.shrinkage = shrinkage

    def fit(self, scores, Y):
        scores, truth = _check(scores, Y)
        shrinkage = float(self.shrinkage)
        if shrinkage < 0:
            raise ValueError(f"shrinkage must be >= 0; got {self.shrinkage!r}")
        overall = _micro_f1_cut(scores, truth)
        if not np.isfinite(overall):
            overall = 0.0
        positives = truth.sum(axis=0)
        best = self._label_cuts(scores, truth)
        # a label without positives (or scores all -inf) takes the global threshold
        best = np.where(np.isfinite(best), best, overall)
        weight = positives / np.maximum(positives + shrinkage, 1e-300)
        self.thresholds_ = weight * best + (1 - weight) * overall
        return self

    def _label_cuts(self, scores, truth):
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

    def _label_cuts(self, scores, truth):
        return _best_f1_cuts(scores, truth)[0]


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

    def _label_cuts(self, scores, truth):
        return _micro_cuts(scores, truth)


def _micro_cuts(scores, truth, rounds=20):
    """Each label's threshold of the cuts that maximise micro F1 together (inf for a label
    without positives: it predicts nothing)."""
    n_samples, n_labels = scores.shape
    if n_samples == 0:
        return np.full(n_labels, np.inf)
    columns = np.ascontiguousarray(scores.T)
    order = np.argsort(-columns, axis=1)
    ordered = np.take_along_axis(columns, order, axis=1)
    positive = np.take_along_axis(np.ascontiguousarray(truth.T), order, axis=1)
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
    """The k(x) best-scored labels of each row, k(x) predicted from the row's scores.

    A Gaussian Naive Bayes size model (the set size as its class, as NaiBX's first stage
    and Tang et al.'s 2009 MetaLabeler predict it) on the row's ``n_top`` largest scores,
    sorted: a row whose top scores stand out gets a small set, a flat one a larger one.

    Parameters
    ----------
    n_top : int, default=10
        How many of the largest scores describe a row.
    """

    def __init__(self, n_top=10):
        self.n_top = n_top

    def _features(self, scores):
        top = min(int(self.n_top), scores.shape[1])
        return np.clip(_top_scores(scores, top)[0], -LOG_ODDS_BOUND, LOG_ODDS_BOUND)

    def fit(self, scores, Y):
        from .naive_bayes import GaussianNB

        scores, truth = _check(scores, Y)
        if int(self.n_top) < 1:
            raise ValueError(f"n_top must be >= 1; got {self.n_top!r}")
        sizes = truth.sum(axis=1)
        self.size_model_ = GaussianNB(var_smoothing=1e-3).fit(self._features(scores), sizes)
        return self

    def predict(self, scores):
        scores = _check(scores)
        sizes = self.size_model_.predict(self._features(scores)).astype(np.intp)
        out = np.zeros(scores.shape, dtype=int)
        largest = min(int(sizes.max(initial=0)), scores.shape[1])
        if largest > 0:
            columns = _top_scores(scores, largest)[1]  # each row's best, best first
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

    def fit(self, scores, Y):
        """Nothing to learn; returns self."""
        return self

    def predict(self, scores):
        return self.rule.predict(scores)


def rule_name(rule):
    """The name of :data:`RULES` of a rule object (its class name if it has none)."""
    names = {cls: name for name, cls in RULES.items()}
    return names.get(type(rule), type(rule).__name__)


def _top_scores(scores, k):
    """Each row's ``k`` largest scores, largest first, and their columns (a partition,
    then a sort of the k: not a sort of the whole row)."""
    if k < scores.shape[1]:
        columns = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    else:
        columns = np.broadcast_to(np.arange(scores.shape[1]), scores.shape)
    values = np.take_along_axis(scores, columns, axis=1)
    order = np.argsort(-values, axis=1, kind="stable")
    return np.take_along_axis(values, order, axis=1), np.take_along_axis(columns, order, axis=1)


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
    """A rule object from a name of :data:`RULES` or a rule (unchanged)."""
    if isinstance(spec, _Rule):
        return spec
    if isinstance(spec, str) and spec in RULES:
        return RULES[spec]()
    raise ValueError(f"unknown decision rule {spec!r}; use one of {sorted(RULES)} or a rule object")
