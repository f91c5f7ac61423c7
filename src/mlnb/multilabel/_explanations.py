"""Explanations of the multi-label Naive Bayes estimators: what each feature adds to a
label's log-odds.

Each label l of a :class:`~mlnb.multilabel._base.MultiLabelNB` has an independent log-odds
``odds_l(z) = prior_l + log p(z | y_l = 1) - log p(z | y_l = 0)`` of a row z prepared by the
event model. A row x is explained by three parts that sum to ``decision_function(x)[l]``:

- ``baseline = odds_l(0)``: the prior and what every feature adds at 0 (a Bernoulli
  feature's absence, a Gaussian feature's density at 0);
- ``contribution_f = odds_l(x_f e_f) - baseline``: what feature f at its value adds, the
  others at 0; exactly 0 where ``x_f = 0``. All of a row's are scored at once, as a sparse
  matrix with one stored entry per row;
- ``rest = decision_function(x)[l] - baseline - sum_f contribution_f``: what the features
  do not explain one by one. 0 to rounding for binary relevance with an event model whose
  log-likelihood is a sum over features (multinomial, Bernoulli, Gaussian, categorical,
  ...); not 0 where it is not (the Bayesian multinomial's document-length term) or where
  the scores add label terms (chains) or are not the independent log-odds at all.

Event models that change the width of a row (categorical one-hot, mixed blocks holding
one) are explained per prepared column and the columns summed back onto their input
column (``events.prepared_columns``); a missing entry left as NaN (``missing="ignore"``)
contributes the removal of what a 0 would have added there.

A label's most telling features (:func:`top_features`) are, for count and 0/1 models,
the contribution of one occurrence (the row with feature f at 1, minus the zero row);
for real-valued models, the contribution at the mean of the label's rows minus that at
the mean of the other rows. That difference measures how far apart the two sides lie
(for the Gaussian it is ``(m1 - m0)^2 (1/v1 + 1/v0) / 2``, never negative), so it takes
the sign of ``m1 - m0``: a raising feature is larger in the label's rows, a lowering one
smaller.
"""

from __future__ import annotations

from numbers import Integral
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from ._label_model import feature_log_odds

__all__ = ["Explanation", "TopFeatures", "explain", "top_features"]

#: Floats of dense scores made at once (2**21: 16 MiB).
_BUDGET = 1 << 21


class TopFeatures(NamedTuple):
    """The features that raise and lower a label's log-odds most.

    ``raising``: (feature name, weight) pairs of positive weight, largest first;
    ``lowering``: those of negative weight, most negative first.
    """

    label: object
    raising: list
    lowering: list

    def __str__(self):
        lines = [f"label {self.label}"]
        for title, pairs in (("raising", self.raising), ("lowering", self.lowering)):
            lines.append(f"  {title}:")
            width = max((len(str(name)) for name, _ in pairs), default=0)
            lines += [f"    {name!s:<{width}}  {weight:+.4f}" for name, weight in pairs]
            if not pairs:
                lines.append("    (none)")
        return "\n".join(lines)


class Explanation:
    """What each feature of each row adds to one label's log-odds.

    ``baseline + contributions.sum(axis=1) + rest == log_odds`` (to rounding), row by row.

    Attributes
    ----------
    label : object
        The label's name (``label_names_``).
    label_index : int
    feature_names : ndarray of str, shape (n_features,)
    baseline : ndarray of shape (n_samples,)
        The label's log-odds of a row of zeros: the prior and what features at 0 add.
    contributions : ndarray or CSR matrix of shape (n_samples, n_features)
        What each feature at its value adds (0 where the value is 0); CSR for sparse X.
    rest : ndarray of shape (n_samples,)
        ``log_odds`` minus the baseline and the contributions: what the features do not
        explain one by one (0 to rounding for binary relevance with a separable model).
    log_odds : ndarray of shape (n_samples,)
        The model's ``decision_function`` of the label.
    """

    def __init__(self, label, label_index, feature_names, baseline, contributions, rest, log_odds):
        self.label = label
        self.label_index = label_index
        self.feature_names = feature_names
        self.baseline = baseline
        self.contributions = contributions
        self.rest = rest
        self.log_odds = log_odds

    def __repr__(self):
        return (
            f"Explanation(label={self.label!r}, n_samples={self.log_odds.shape[0]}, "
            f"n_features={len(self.feature_names)})"
        )

    def top(self, row=0, k=10):
        """A row's ``k`` largest raising and lowering contributions (:class:`TopFeatures`)."""
        n = self.log_odds.shape[0]
        if not isinstance(row, Integral) or not -n <= row < n:
            raise IndexError(f"row {row!r} is out of range: the explanation holds {n} rows")
        values = self.contributions[row]
        values = values.toarray().ravel() if sp.issparse(values) else np.asarray(values).ravel()
        return _ranked(self.label, self.feature_names, values, k)


def label_index(model, label):
    """The column of ``label``: an index in ``0 .. L-1`` or a name of ``label_names_``."""
    n_labels = model.n_labels_
    names = list(getattr(model, "label_names_", range(n_labels)))
    if label in names and not isinstance(label, (bool, np.bool_)):
        return names.index(label)
    if isinstance(label, Integral) and not isinstance(label, (bool, np.bool_)):
        if 0 <= label < n_labels:
            return int(label)
        raise ValueError(
            f"label {label} is out of range: the model has {n_labels} labels (0 .. {n_labels - 1})"
        )
    shown = ", ".join(map(repr, names[:10])) + (", ..." if len(names) > 10 else "")
    raise ValueError(
        f"unknown label {label!r}: give an index 0 .. {n_labels - 1} or a name ({shown})"
    )


def feature_names_of(model, feature_names=None):
    """Names of the input features: as given, else ``feature_names_in_``, else x0, x1, ..."""
    n = int(model.n_features_in_)
    if feature_names is None:
        feature_names = getattr(model, "feature_names_in_", None)
    if feature_names is None:
        return np.array([f"x{j}" for j in range(n)], dtype=object)
    names = np.asarray(list(feature_names), dtype=object)
    if names.shape != (n,):
        raise ValueError(f"feature_names holds {names.size} names; the model has {n} features")
    return names


def _check(model):
    """Refuse what the decomposition does not cover, with the reason."""
    if getattr(model, "base_estimator", None) is not None:
        raise TypeError(
            f"{type(model).__name__} with a base_estimator is not a Naive Bayes model: its "
            "labels are scored by the given classifier, which explain cannot take apart"
        )
    check_is_fitted(model, "feature_stats_")
    if model.feature_stats_.n_groups != model.n_labels_:
        raise TypeError(
            f"{type(model).__name__} scores its labels with several sets of statistics "
            f"({model.feature_stats_.n_groups} groups for {model.n_labels_} labels): explain "
            "one member, or a BinaryRelevance fitted on the same rows"
        )
    if not hasattr(model, "prior_log_odds_"):
        raise TypeError(
            f"{type(model).__name__} does not score a label as a prior plus per-label "
            "feature log-odds (NaiBX takes a mixture over label-set sizes, an ensemble its "
            "members' scores), so there is no such sum to take apart: explain a "
            "BinaryRelevance fitted on the same rows"
        )


def _odds(model, events, prepared, label):
    """The label's independent log-odds of prepared rows, (n,), a chunk of rows at a time."""
    n, width = prepared.shape
    step = max(1, _BUDGET // max(width, model.n_labels_, 1))
    out = np.empty(n)
    for start in range(0, n, step):
        part = prepared[start : start + step]
        odds = feature_log_odds(events, model.feature_stats_, part, params=model._feature_params)
        out[start : start + step] = np.asarray(odds)[:, label]
    return out + model.prior_log_odds_[label]


def _single_entries(rows_like, width, columns, values):
    """Rows with one entry each: ``values[i]`` at ``columns[i]`` (sparse or dense, as
    ``rows_like``)."""
    n = len(values)
    single = sp.csr_matrix(
        (np.asarray(values, dtype=float), np.asarray(columns), np.arange(n + 1)),
        shape=(n, width),
    )
    return single if sp.issparse(rows_like) else single.toarray()


def _single_odds(model, events, prepared, columns, values, label):
    """The label's log-odds of one-entry rows, scored a chunk at a time."""
    width = prepared.shape[1]
    step = max(1, _BUDGET // max(width, model.n_labels_, 1))
    out = np.empty(len(values))
    for start in range(0, len(values), step):
        stop = start + step
        rows = _single_entries(prepared, width, columns[start:stop], values[start:stop])
        out[start:stop] = _odds(model, events, rows, label)
    return out


def _zero_row(prepared):
    width = prepared.shape[1]
    return sp.csr_matrix((1, width)) if sp.issparse(prepared) else np.zeros((1, width))


def _input_columns(events, n_features, width):
    """The input column of each prepared column, or None where they are the same."""
    if width == n_features:
        return None
    return np.asarray(events.prepared_columns(n_features))


def explain(model, X, label, *, feature_names=None):
    """:class:`Explanation` of one label's log-odds on the rows X (see the module)."""
    _check(model)
    index = label_index(model, label)
    names = feature_names_of(model, feature_names)
    events = model._bound_events()
    prepared = model._prepared(X)
    n, width = prepared.shape
    n_features = int(model.n_features_in_)
    baseline = _odds(model, events, _zero_row(prepared), index)[0]

    entries = sp.coo_matrix(prepared)
    stored = entries.data != 0  # NaN (a missing entry) is kept: it removes a zero term
    rows, columns, values = entries.row[stored], entries.col[stored], entries.data[stored]
    order = np.lexsort((columns, rows))
    rows, columns, values = rows[order], columns[order], values[order]
    added = _single_odds(model, events, prepared, columns, values, index) - baseline
    contributions = sp.csr_matrix((added, (rows, columns)), shape=(n, width))
    mapped = _input_columns(events, n_features, width)
    if mapped is not None:
        fold = sp.csr_matrix(
            (np.ones(width), (np.arange(width), mapped)), shape=(width, n_features)
        )
        contributions = (contributions @ fold).tocsr()
    contributions.sort_indices()

    log_odds = np.asarray(model.decision_function(X), dtype=float)[:, index]
    total = np.asarray(contributions.sum(axis=1)).ravel()
    rest = log_odds - baseline - total
    if not sp.issparse(X):
        contributions = contributions.toarray()
    return Explanation(
        _label_name(model, index),
        index,
        names,
        np.full(n, baseline),
        contributions,
        rest,
        log_odds,
    )


def top_features(model, label, k=10, *, feature_names=None):
    """The ``k`` features that raise and lower the label's log-odds most (:class:`TopFeatures`).

    Count and 0/1 models (``input_kind`` "counts" or "binary"): the weight of a feature is
    what one occurrence adds to the log-odds. Real-valued models: what the feature adds
    at the mean of the label's rows minus what it adds at the mean of the other rows, a
    separation of the two sides (never negative for the Gaussian), with the sign of the
    difference of the means: a raising feature is larger in the label's rows.
    """
    _check(model)
    if not isinstance(k, Integral) or k < 1:
        raise ValueError(f"k must be a positive integer; got {k!r}")
    index = label_index(model, label)
    names = feature_names_of(model, feature_names)
    events = model._bound_events()
    n_features = int(model.n_features_in_)
    width = model.feature_stats_.n_features
    if width != n_features:
        raise TypeError(
            f"top_features does not rank the features of {type(events).__name__}, which "
            "encodes its columns (one-hot categories): use explain on rows instead"
        )
    like = sp.csr_matrix((1, width))  # one-entry rows, scored sparse
    baseline = _odds(model, events, _zero_row(like), index)[0]
    columns = np.arange(width)
    if events.input_kind in ("counts", "binary"):
        weights = _single_odds(model, events, like, columns, np.ones(width), index) - baseline
    else:
        stats = model.feature_stats_
        own = np.asarray(stats.mean)[index]
        other = np.asarray(stats.complement().mean)[index]
        gap = _single_odds(model, events, like, columns, own, index) - _single_odds(
            model, events, like, columns, other, index
        )
        # the gap is a separation (for the Gaussian, (m1 - m0)^2 (1/v1 + 1/v0) / 2 >= 0):
        # it raises the label where the label's rows hold the larger values, else lowers it
        weights = np.sign(own - other) * gap
    return _ranked(_label_name(model, index), names, weights, k)


def _label_name(model, index):
    names = getattr(model, "label_names_", None)
    if names is None or len(names) != model.n_labels_:
        return index
    name = names[index]
    return name.item() if isinstance(name, np.generic) else name


def _ranked(label, names, weights, k):
    """:class:`TopFeatures` of per-feature weights: ties to the lower feature index."""
    weights = np.asarray(weights, dtype=float)
    # a weight at rounding distance from 0 (a feature whose two sides agree) is none
    scale = np.max(np.abs(weights[np.isfinite(weights)]), initial=1.0)
    weights = np.where(np.abs(weights) <= 1e-12 * scale, 0.0, weights)
    position = np.arange(weights.size)
    up = np.lexsort((position, -weights))
    down = np.lexsort((position, weights))
    raising = [(str(names[j]), float(weights[j])) for j in up[:k] if weights[j] > 0]
    lowering = [(str(names[j]), float(weights[j])) for j in down[:k] if weights[j] < 0]
    return TopFeatures(label, raising, lowering)
