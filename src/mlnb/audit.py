"""A label-noise audit: each (row, label) cell against its exact leave-one-out prediction.

Binary relevance is a function of additive statistics, so the model of every row but one
is the total minus that row's own contribution. Its log-odds for the row's labels follow
in closed form, for all rows at once:

- multinomial (Xu 2018, eq. 4): the label's side that holds the row loses the row's counts,
  ``log phi' = log(N_lf - x_f + alpha) - log(N_l - |x| + F alpha)``, a term per stored
  entry and label;
- Bernoulli (eq. 6): that side loses one row and the row's present features, a term per
  present feature and label plus a sum over the features made once per label;
- Gaussian: the side that holds the row loses its count, mean and centred second moment,
  and every variance's floor is that of the other rows (a term per feature and label);
- any other event model: each row's model made by fold subtraction with the row as its own
  fold (:class:`~mlnb.base.FoldStatistics`: exact, one model per row).

The label priors lose the row too (Laplace-smoothed, ``prior_alpha=1``: a label whose only
positive row is left out keeps a finite log-odds). A cell contradicts its leave-one-out
prediction by ``-log-odds`` where it is 1 and ``+log-odds`` where it is 0; the cells that
contradict most are the likeliest errors of annotation (Brodley and Friedl 1999 filter
mislabelled rows by such held-out predictions).

Written here (not a refit per row) because the closed forms cost one scoring of the rows,
where ``n`` refits cost ``n`` fits.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .base import FoldStatistics, check_label_matrix, validate_rows
from .events import Bernoulli, Gaussian, Multinomial, entrywise_sums, make_event_model
from .multilabel import BinaryRelevance
from .multilabel._label_model import log_prior_odds

__all__ = ["audit_labels", "leave_one_out_log_odds"]

#: Rows x labels x features the Gaussian closed form holds at once (float64: 64 MB).
_BLOCK_ENTRIES = 1 << 23


def leave_one_out_log_odds(X, Y, *, events="multinomial", prior_alpha=1.0):
    """Every row's log-odds of every label under binary relevance fitted to the other rows.

    Exact: equal to ``n`` refits of ``BinaryRelevance(events=events, prior_alpha=...)``
    without row ``i``, scoring row ``i`` (closed forms for the multinomial, Bernoulli and
    Gaussian models, fold subtraction for the others; see the module docstring).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
    Y : label matrix of shape (n_samples, n_labels)
    events : str or event model, default="multinomial"
    prior_alpha : float, default=1.0
        Pseudo-count of each label's prior.

    Returns
    -------
    ndarray of shape (n_samples, n_labels)

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import BinaryRelevance
    >>> X = np.array([[3, 0, 1], [2, 1, 0], [0, 3, 1], [1, 2, 2]])
    >>> Y = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    >>> loo = leave_one_out_log_odds(X, Y)
    >>> refit = BinaryRelevance(events="multinomial", rule="predict", prior_alpha=1.0)
    >>> refit = refit.fit(X[1:], Y[1:]).decision_function(X[:1])
    >>> bool(np.allclose(loo[0], refit[0]))
    True
    """
    model = BinaryRelevance(events=events, rule="predict", prior_alpha=prior_alpha)
    X = validate_rows(model, X, missing="error")
    Y = _every_cell_known(Y, X.shape[0])
    if X.shape[0] < 2:
        raise ValueError("leave_one_out_log_odds needs at least 2 rows")
    model.fit(X, Y)
    events = model.events_
    truth = Y.toarray().astype(bool)
    stats = model.feature_stats_
    if type(events) is Multinomial:
        odds = _multinomial(events, stats, sp.csr_matrix(events.prepare(X)), truth)
    elif type(events) is Bernoulli:
        odds = _bernoulli(events, stats, sp.csr_matrix(events.prepare(X)), truth)
    elif type(events) is Gaussian and not stats.has_missing:
        odds = _gaussian(events, stats, events.prepare(X), truth)
    else:
        return _refitted(model, X, Y)
    count, total = stats.count[None, :], stats.total_count
    return odds + log_prior_odds(count - truth, total - 1.0, prior_alpha)


def _refitted(model, X, Y):
    """Each row scored by the model of the other rows, made by fold subtraction."""
    engine = FoldStatistics(model, X, Y, [np.array([i]) for i in range(X.shape[0])])
    return np.vstack([engine.model(i).decision_function(X[[i]]) for i in range(X.shape[0])])


def _sides(stats):
    """(feature sums, row counts) of every label's rows and of its other rows."""
    sides = []
    for side in (stats, stats.complement()):
        sums = side.sums.toarray() if sp.issparse(side.sums) else np.asarray(side.sums)
        sides.append((sums, np.asarray(side.count, dtype=np.float64)))
    return sides


def _where_held(X, func, params, truth):
    """The sums over each row's stored entries of ``func`` (vanishing at 0) with each
    side's ``params`` (:func:`~mlnb.events.entrywise_sums`), kept where the row is on that
    side (``truth`` for the label's rows, its complement for the others'). Elsewhere the
    terms may be undefined (a row's count above a side it is not in): they are dropped."""
    with np.errstate(invalid="ignore", divide="ignore"):
        sums = entrywise_sums(X, func, params)
    return [np.where(holds, terms, 0.0) for terms, holds in zip(sums, (truth, ~truth), strict=True)]


def _multinomial(events, stats, X, truth):
    """Leave-one-out feature log-odds of the multinomial model (module docstring)."""
    n_features = X.shape[1]
    alpha = np.broadcast_to(events.smoothing(n_features), (n_features,))
    length = np.asarray(X.sum(axis=1)).ravel()[:, None]
    sides = _sides(stats)
    smoothing = np.broadcast_to(alpha, sides[0][0].shape)
    kept = _where_held(X, _count_without_row, [[sums, smoothing] for sums, _ in sides], truth)
    scores = []
    for (sums, _), holds, words in zip(sides, (truth, ~truth), kept, strict=True):
        total = sums.sum(axis=1)[None, :] + alpha.sum()
        full = np.asarray(X @ (np.log(sums + alpha) - np.log(total.T)).T)
        with np.errstate(invalid="ignore", divide="ignore"):
            left = words - length * np.log(total - length)
        scores.append(np.where(holds, left, full))
    return scores[0] - scores[1]


def _count_without_row(x, sums, alpha):
    """A word counted ``x`` times: its term once the row's own counts are left out."""
    return x * np.log(sums - x + alpha)


def _bernoulli(events, stats, X, truth):
    """Leave-one-out feature log-odds of the Bernoulli model (module docstring): the side
    holding the row has one row fewer, and its present features one count fewer."""
    n_features = X.shape[1]
    a, b = (np.broadcast_to(p, (n_features,)) for p in events.pseudo_counts(n_features))
    sides, parts = _sides(stats), []
    for sums, count in sides:
        count = count[:, None]
        present = np.log(sums + a) - np.log(count - sums + b)  # per (label, feature)
        base = np.log(count - sums + b).sum(axis=1) - np.log(count + a + b).sum(axis=1)
        fewer = count - 1.0  # the side holding the row, without it
        with np.errstate(invalid="ignore", divide="ignore"):
            absent = np.log(np.where(fewer - sums + b > 0, fewer - sums + b, 1.0))
        left_base = absent.sum(axis=1) - np.log(fewer + a + b).sum(axis=1)
        full = np.asarray(X @ present.T) + base[None, :]
        parts.append((full, left_base, [sums, np.broadcast_to(a, sums.shape), absent]))
    kept = _where_held(X, _present_without_row, [params for _, _, params in parts], truth)
    scores = []
    for (full, left_base, _), holds, words in zip(parts, (truth, ~truth), kept, strict=True):
        scores.append(np.where(holds, words + left_base[None, :], full))
    return scores[0] - scores[1]


def _present_without_row(x, sums, a, absent):
    """A present feature (``x`` = 1) of a row left out: its presence term against the
    absence already counted in the side's base."""
    return x * (np.log(sums - x + a) - absent)


def _gaussian(events, stats, X, truth):
    """Leave-one-out feature log-odds of the Gaussian model (Xu 2018, section 3.3): the side
    holding the row loses it (count, mean and centred second moment by the removal of one
    row), and the variance floor of both sides is that of the other rows' total variance."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    n_samples, n_features = X.shape
    total = float(stats.total_count)
    centre = stats.total_mean[None, :]
    others = (total * centre - X) / (total - 1.0)
    total_var = (stats.total_m2[None, :] - (X - centre) * (X - others)) / (total - 1.0)
    largest = total_var.max(axis=1) if n_features else np.zeros(n_samples)
    epsilon = float(events.var_smoothing)
    floor = np.where(largest > 0, epsilon * largest, epsilon)  # per row
    rest = stats.complement()
    n_labels = truth.shape[1]
    step = max(1, _BLOCK_ENTRIES // max(n_labels * n_features, 1))
    scores = []
    for side, holds in ((stats, truth), (rest, ~truth)):
        count = np.asarray(side.count, dtype=np.float64)[None, :, None]
        mean, m2 = np.asarray(side.mean)[None], np.asarray(side.m2)[None]
        out = np.empty((n_samples, n_labels))
        for start in range(0, n_samples, step):
            x = X[start : start + step, None, :]
            held = holds[start : start + step, :, None]
            fewer = count - 1.0
            with np.errstate(invalid="ignore", divide="ignore"):
                left_mean = np.where(fewer > 0, (count * mean - x) / fewer, 0.0)
                left_var = np.where(fewer > 0, (m2 - (x - mean) * (x - left_mean)) / fewer, 0.0)
                full_var = np.where(count > 0, m2 / count, 0.0)
            mu = np.where(held, left_mean, mean)
            var = np.maximum(np.where(held, left_var, full_var), 0.0)
            var = var + floor[start : start + step, None, None]
            out[start : start + step] = -0.5 * (np.log(var) + (x - mu) ** 2 / var).sum(axis=2)
        scores.append(out)
    return scores[0] - scores[1]


def audit_labels(X, Y, *, events=None, prior_alpha=1.0, top=None, label_names=None):
    """The (row, label) cells whose given value its leave-one-out prediction contradicts
    most: a ranked list of likely annotation errors.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
    Y : label matrix of shape (n_samples, n_labels)
    events : str, event model or None, default=None
        The model of the features; None: multinomial for non-negative X, else Gaussian.
    prior_alpha : float, default=1.0
    top : int or None, default=None
        The number of cells listed (None: every cell).
    label_names : sequence of str, optional

    Returns
    -------
    pandas.DataFrame
        Columns ``row``, ``label``, ``given`` (0/1), ``log_odds`` (leave-one-out) and
        ``contradiction`` (``-log_odds`` for a 1, ``+log_odds`` for a 0), most
        contradicted first.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> Y = rng.integers(0, 2, size=(60, 2))
    >>> X = rng.poisson(0.2 + 3 * np.repeat(Y, 5, axis=1))  # 5 words tell each label
    >>> Y[7, 0] = 1 - Y[7, 0]  # an annotation error
    >>> audit_labels(X, Y, top=1)[["row", "label"]].values.tolist()
    [[7, 0]]
    """
    if events is None:
        values = X.data if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        events = "gaussian" if values.size and np.nanmin(values) < 0 else "multinomial"
    make_event_model(events)  # a clear error for an unknown name
    Y = _every_cell_known(Y, np.shape(X)[0])
    odds = leave_one_out_log_odds(X, Y, events=events, prior_alpha=prior_alpha)
    given = Y.toarray().astype(np.int8)
    contradiction = np.where(given == 1, -odds, odds)
    order = np.argsort(-contradiction, axis=None, kind="stable")
    if top is not None:
        order = order[: int(top)]
    rows, labels = np.unravel_index(order, given.shape)
    names = np.asarray(label_names if label_names is not None else range(given.shape[1]))
    return pd.DataFrame(
        {
            "row": rows,
            "label": names[labels],
            "given": given[rows, labels],
            "log_odds": odds[rows, labels],
            "contradiction": contradiction[rows, labels],
        }
    )


def _every_cell_known(Y, n_samples):
    """Y as a CSR 0/1 matrix; a ValueError that says so if some cells are unknown."""
    Y = check_label_matrix(Y, n_samples, sparse=True, unknown=True)
    n_unknown = int(np.isnan(Y.data).sum())
    if n_unknown:
        raise ValueError(
            f"the audit needs every label cell given: Y has {n_unknown} unknown cells (NaN, "
            "masked or '?'); audit the rows whose labels are all known, or fill the cells"
        )
    return Y
