"""Settings chosen from the data: what a multi-label estimator does at its defaults.

At ``events="tuned"`` and ``rule="tuned"`` an additive multi-label estimator chooses its
event model (with its smoothing) and its decision rule from its training rows, by
cross-validation that costs one statistics pass over the data per kind of statistics plus
the scoring of every row once per candidate (about 50 to 600 plain fits, measured):

1. the rows are cut into folds; the statistics of every fold are computed once
   (:class:`~mlnb.base.additive.FoldStatistics`) and each fold's model is *total minus fold*;
2. every candidate event model scores the rows of each fold with the model that did not see
   them (out-of-fold log-odds); candidates whose statistics agree (the smoothings of one
   event model) share the pass;
3. every candidate is tried with its own ``predict`` and screened by one threshold for all
   labels fitted to micro F1 (how well its scores rank; on data of more than
   :data:`SCREEN_ENTRIES` label entries, on the first fold only); the plainest candidate
   and the :data:`FINALISTS` best on that screen are tried with every rule of
   :mod:`mlnb.decision_rules` (the plainest one too: on bibtex the screen ranks the
   multinomial with alpha 0.1 first, and alpha 1 with RCut does better out of fold and on
   the test rows, micro F1 0.377 -> 0.389, ranking loss 0.071 -> 0.069). A rule is
   judged cross-fitted: each fold's rows decided by the rule fitted to the other folds'
   out-of-fold scores (a cut per label judged on the scores it was fitted to looks better
   than it is); the rules share one sort of each label's and each row's scores
   (:class:`~mlnb.decision_rules.SortedScores`);
4. the plainest setting (the first candidate, the data type's natural event model, with the
   model's own 0.5 rule) is kept unless the best one with a classic rule beats it by more
   than one standard error of their difference over the folds (Breiman et al. 1984's
   one-standard-error rule), and that one unless the best with a threshold per label fitted
   to micro F1 (:class:`~mlnb.decision_rules.MicroCuts`) beats it in the same way;
5. on non-negative data with a rule to fit, the chosen setting with each label's k best
   features by chi-squared (:class:`~mlnb.events.ChiSquaredSelection`, computed from each
   fold's own statistics), k screened out of fold on a grid (every fourth power of two,
   then halves and doubles of the best) as in 3, the best k with the chosen rule refitted
   and cross-fitted, replaces it if it wins by one standard error and ranks each row's
   labels no worse (out-of-fold label ranking loss);
6. binary relevance and iMLNB (whose labels' feature models are separate problems): each
   label takes, among the settings screened that share the chosen model's statistics (its
   smoothings, the numbers of features kept), the one that ranks the label's held-out rows
   best
   (:mod:`._per_label`), unless the change raises the held-out label ranking loss; that
   model (:class:`~mlnb.events.PerLabel`), with every rule refitted and cross-fitted,
   replaces the choice if it wins by one standard error and ranks each row's labels no
   worse (out-of-fold label ranking loss, as in 5);
7. a chain whose label terms are searched (``label_alpha`` and ``label_prior`` at
   ``"tuned"``) chooses its event model and rule with the label terms nearly silent
   (:data:`WEAK_LABELS`: binary relevance's scores), then tries the smoothings of
   :data:`LABEL_TERMS` with them, screened as in 3; the best, with every rule, replaces
   the choice if it wins by one standard error: a chain at least as good as binary
   relevance out of fold;
8. the model of all rows follows from the total statistics (no further pass).

*Large label spaces.* Every candidate's out-of-fold scores are a rows x labels array: with
more than :data:`SEARCH_ENTRIES` label entries the search runs on a random sample of
``SEARCH_ENTRIES // n_labels`` rows (at least :data:`MIN_SEARCH_ROWS`), and the model is
then made of every row's statistics under the settings chosen. Where labels x features
calls for compact statistics (:func:`~mlnb.multilabel._label_model.keeps_compact`), only
the event models that have a compact form are tried and no feature selection (whose
tables are dense): memory stays in the statistics' non-zeros.

Written here rather than with :class:`~mlnb.selection.TunedThresholdsCV` (which searches
any grid for any estimator, and lives above the estimators) because it is the estimators'
own fit; the two search the same event models (:func:`candidate_events`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import KFold

from ..base.additive import FoldStatistics
from ..decision_rules import RULES, SortedScores, fit_rules, make_rule, rule_name
from ..events.auto import TUNED, is_tuned
from ..metrics import set_scorer
from ._label_model import keeps_compact
from ._per_label import label_average_precision, per_label_choice, ranking_safe_choice

__all__ = [
    "CLASSIC_LABELS",
    "LABEL_TERMS",
    "OWN_RULE",
    "TUNED",
    "Resolution",
    "WEAK_LABELS",
    "RuleChoice",
    "candidate_events",
    "choose_rule",
    "cross_fitted",
    "chooses_settings",
    "finite_scores",
    "fitted_to_known",
    "is_tuned",
    "label_terms_to_try",
    "resolve_settings",
    "truth_and_unknown",
    "weak_label_terms",
    "wins_by_one_standard_error",
    "with_chosen_settings",
]

#: ``rule="predict"``: the estimator's own decision (the 0.5 rule for most).
OWN_RULE = "predict"
#: The bound of an infinite log-odds (a constant label): beyond every finite log-odds a
#: model gives, and far from overflow when two are averaged.
INFINITE_SCORE = 1e300
#: Data with at least this share of non-zero entries (stored dense or sparse) also try
#: Weka's discretised Gaussian; it scores every stored entry with two normal tail
#: probabilities per label, too slow for sparse text, where it does not win.
DENSE_SHARE = 0.25
#: Folds of the search.
N_FOLDS = 5
#: The rule every candidate is tried with (with its own predict): one threshold for every
#: label, fitted to micro F1, which measures how well the candidate's scores rank.
SCREEN_RULE = "threshold"
#: Candidates tried with every rule (besides the plainest): those best with their own
#: predict or the screen rule.
FINALISTS = 2
#: The fewest features per label a search keeps (:func:`selects_features`).
MIN_KEPT = 5
#: How a chain's label terms are smoothed while its event model and rule are chosen:
#: towards each label's frequency with so many pseudo-counts (10^6) that the chain scores
#: as binary relevance.
WEAK_LABELS = {"label_prior": "marginal", "label_alpha": 1e6}
#: The label terms a chain tries once its event model and rule are chosen: Laplace's
#: smoothing (the classic chain), and smoothing towards each label's frequency with fewer
#: pseudo-counts than :data:`WEAK_LABELS` (the fewer, the more its labels say about each
#: other).
LABEL_TERMS = (
    {"label_prior": "uniform", "label_alpha": 1.0},
    *({"label_prior": "marginal", "label_alpha": a} for a in (1.0, 10.0, 100.0, 1e3, 1e4)),
)
#: The label terms of a chain whose ``"tuned"`` ones were not chosen (fitted with its event
#: model and rule given, or made from statistics): Laplace's, the classic chain's.
CLASSIC_LABELS = LABEL_TERMS[0]
#: Data of more label entries (rows x labels) than this screen the candidates and the
#: numbers of features kept on the first fold only (at least 50,000 entries); the
#: plainest candidate, the finalists and the best number are then scored on every fold.
SCREEN_ENTRIES = 250_000
#: Label entries (rows x labels) beyond which the search runs on a sample of the rows
#: (2**22: each candidate's out-of-fold scores 32 MB). On delicious (12,920 rows, 983
#: labels) a sample of 4,266 rows chose the same settings as all rows, with the search
#: 3.8 times faster (14 s against 54 s).
SEARCH_ENTRIES = 1 << 22
#: The fewest rows such a sample holds.
MIN_SEARCH_ROWS = 500


class Resolution(NamedTuple):
    """What :func:`resolve_settings` chose, and the evidence.

    ``events``: the event model; ``rule``: the fitted rule (None: the model's own
    ``predict``); ``rule_name``; ``total``: the statistics of all rows under ``events``;
    ``results``: the out-of-fold micro F1 of every (event model, rule) tried, as
    ``{events repr: {rule name: score}}``; ``predicted_cardinality`` and
    ``true_cardinality``: labels per row predicted out of fold by the choice, and in truth;
    ``params``: the other parameters chosen (a chain's ``label_prior`` and ``label_alpha``).
    """

    events: object
    rule: object
    rule_name: str
    total: object
    results: dict
    predicted_cardinality: float
    true_cardinality: float
    params: dict = {}  # noqa: RUF012 (never changed: a fresh dict is made for each)


def candidate_events(X, n_labels=None):
    """The event models a search tries for rows X, the data type's natural one first.

    Non-negative data (word counts, 0/1 indicators, non-negative measurements): multinomial
    and Bernoulli with alpha 1, 0.1 and 0.01 and their Bayesian versions (Xu 2018; the
    smoothings of one model share one statistics pass), and the Gaussian. Data with negative
    values: the Gaussian with variance floors 1e-9 (scikit-learn's), 1e-3 and 1e-2 of the
    largest variance, and its Bayesian version. Data with at least :data:`DENSE_SHARE`
    non-zero entries add Weka's discretised Gaussian (John and Langley 1995). The list
    depends on the values, not on how X is stored (dense or sparse). Left out: the
    complement model (with two classes per label it gives the multinomial's log-odds) and
    the categorical model (its table holds only the codes seen in training); give them by
    name. With ``n_labels`` so many that a count model's statistics are kept compact
    (:func:`~mlnb.multilabel._label_model.keeps_compact`): the multinomials alone, whose
    tables have a compact form.
    """
    from ..events import (
        BayesianBernoulli,
        BayesianGaussian,
        BayesianMultinomial,
        Bernoulli,
        DiscretisedGaussian,
        Gaussian,
        Multinomial,
    )
    from ..events.discretised import weka_precision

    sparse = hasattr(X, "tocsr")
    values = X.data if sparse else np.asarray(X, dtype=np.float64)
    if n_labels is not None and not _has_negative(X) and keeps_compact(Multinomial(), X, n_labels):
        return [Multinomial(alpha=a) for a in (1.0, 0.1, 0.01)]
    if _has_negative(X):
        models = [Gaussian(var_smoothing=v) for v in (1e-9, 1e-3, 1e-2)] + [BayesianGaussian()]
    else:
        models = [Multinomial(alpha=a) for a in (1.0, 0.1, 0.01)] + [BayesianMultinomial()]
        models += [Bernoulli(alpha=a) for a in (1.0, 0.1, 0.01)] + [BayesianBernoulli()]
        models += [Gaussian()]
    n_entries = X.shape[0] * X.shape[1]
    stored = X.nnz if sparse else np.count_nonzero(values)
    if n_entries and stored >= DENSE_SHARE * n_entries:  # whatever the storage
        dense = X.toarray() if sparse else values
        models.append(DiscretisedGaussian(precision=weka_precision(dense)))
    return models


def _has_negative(X):
    """Whether rows X (dense or sparse; NaN ignored) hold a negative value."""
    values = X.data if hasattr(X, "tocsr") else np.asarray(X, dtype=np.float64)
    finite = values[np.isfinite(values)]
    return bool(finite.size and finite.min() < 0)


def chooses_settings(estimator):
    """Whether fitting ``estimator`` chooses settings from the data (a parameter at
    ``"tuned"``): then two fits on different rows may choose differently."""
    params = estimator.get_params(deep=False).values()
    return any(is_tuned(value) for value in params)


def with_chosen_settings(estimator, fitted):
    """A clone of ``estimator`` with the settings ``fitted`` (a fitted clone of it) chose
    given explicitly (its ``chosen_params_``): every fit of it makes the same choice, so
    that models of different rows merge. Used by the Dask and forgetting wrappers, which
    choose on the first batch or partition."""
    return clone(estimator).set_params(**getattr(fitted, "chosen_params_", {}))


def finite_scores(scores):
    """Label scores with +-inf (constant labels) bounded at +-:data:`INFINITE_SCORE`; every
    finite score as it is, so that scores tie only where the model ties them."""
    scores = np.asarray(scores, dtype=np.float64)
    return np.clip(scores, -INFINITE_SCORE, INFINITE_SCORE)


def _name(rule):
    return rule if isinstance(rule, str) else rule_name(rule)


def _folds(n_samples, random_state):
    n_folds = min(N_FOLDS, n_samples)
    split = KFold(n_folds, shuffle=True, random_state=random_state)
    return [test for _, test in split.split(np.zeros((n_samples, 1)))]


class _Candidate(NamedTuple):
    events: object
    scores: np.ndarray  # out-of-fold label scores, (n x L)
    own: np.ndarray  # out-of-fold own predictions, (n x L)
    engine: object


def _out_of_fold(template, candidates, X, Y, folds, weight, *, engines=None, only=None):
    """Each candidate's out-of-fold scores and own predictions, one statistics pass per
    kind of statistics (a generator, in the candidates' order). ``engines``: the fold
    statistics already computed, by statistics key (filled in); ``only``: the folds to
    score (default all): the scores then cover the rows of those folds, in their order."""
    engines = {} if engines is None else engines
    scored = range(len(folds)) if only is None else only
    n_rows = Y.shape[0] if only is None else sum(len(folds[k]) for k in scored)
    hidden = _unknown_entries(
        Y, None if only is None else np.concatenate([folds[k] for k in scored])
    )
    for events in candidates:
        model = clone(template).set_params(events=events)
        key = repr(model.statistics_key())
        if key not in engines:
            engines[key] = FoldStatistics(model, X, Y, folds, sample_weight=weight)
        engine = engines[key]
        scores = np.empty((n_rows, Y.shape[1]))
        own = np.empty((n_rows, Y.shape[1]), dtype=np.int8)
        start = 0
        for k in scored:
            test = folds[k]
            at = test if only is None else slice(start, start + len(test))
            fold_scores, fold_labels = engine.model(k, model)._scores_and_own_labels(X[test])
            scores[at] = finite_scores(fold_scores)
            own[at] = fold_labels
            start += len(test)
        if hidden is not None:
            own[hidden] = 0  # unknown cells: judged nowhere (see truth_and_unknown)
        yield _Candidate(events, scores, own, engine)


def truth_and_unknown(Y):
    """The label matrix (CSR, unknown cells NaN) as a dense 0/1 truth and the dense bool
    array of its unknown cells (None if none).

    In the search an unknown cell is false in the truth and in every prediction judged
    (micro F1 counts no true or false positive or false negative there: the cell is
    skipped); rules are fitted to scores where unknown cells score lowest (a cut never
    counts them) and applied to the scores as they are (a rank rule may pick an unknown
    cell over a known one, as it would on new rows, and that pick is then skipped).
    """
    truth = Y.toarray()
    hidden = np.isnan(truth)
    if not hidden.any():
        return truth, None
    truth[hidden] = 0.0
    return truth, hidden


def _unknown_entries(Y, rows=None):
    """The (rows, labels) of the unknown cells (NaN) of a CSR label matrix, or of its
    ``rows`` in that order; None if none: its stored entries, without a dense copy (each
    candidate's scoring reads them)."""
    if not np.isnan(Y.data).any():
        return None
    if rows is not None:
        Y = Y[rows]
    missing = np.isnan(Y.data)
    row_of = np.repeat(np.arange(Y.shape[0]), np.diff(Y.indptr))
    return row_of[missing], Y.indices[missing]


def fitted_to_known(sorted_scores, hidden):
    """The sorted scores to fit rules to: ``sorted_scores``, with unknown cells (``hidden``)
    scored lowest and false."""
    if hidden is None:
        return sorted_scores
    masked = np.where(hidden, -INFINITE_SCORE, sorted_scores.scores)
    return SortedScores(masked, np.where(hidden, 0, sorted_scores.truth))


#: Rules richer than the classic ones (a threshold per label fitted to micro F1): chosen
#: only if they beat the best classic setting by more than one standard error.
RICHER_RULES = ("microcuts",)


def _tier(rule):
    """0: the model's own predict; 1: a classic rule; 2: a rule of :data:`RICHER_RULES`."""
    return 0 if rule == OWN_RULE else (2 if rule in RICHER_RULES else 1)


def wins_by_one_standard_error(score, truth, richer, plainer, folds):
    """Whether label sets ``richer`` beat ``plainer`` by more than one standard error of
    their difference in ``score`` over the folds (the one-standard-error rule of Breiman
    et al. 1984: a setting only as good out of fold is not trusted to do better)."""
    gains = np.array(
        [score(truth[test], richer[test]) - score(truth[test], plainer[test]) for test in folds]
    )
    standard_error = np.std(gains, ddof=1) / np.sqrt(len(gains)) if len(gains) > 1 else 0.0
    return bool(np.mean(gains) > standard_error)


def _climb(best, plainest, score, truth, folds):
    """The setting chosen from ``best`` (tier -> (score, candidate, rule name, fitted rule,
    labels), tiers of :func:`_tier`): from ``plainest`` (None: the best of all, no climb),
    the best of each richer tier replaces the choice only if it wins by one standard error
    (:func:`wins_by_one_standard_error`)."""
    if plainest is None:
        return max(best.values(), key=lambda option: option[0])
    chosen, tiers = plainest, sorted(best)
    for tier in tiers:
        richer = max((best[t] for t in tiers if t <= tier), key=lambda option: option[0])
        if richer[1] is chosen[1] and richer[2] == chosen[2]:
            continue
        if wins_by_one_standard_error(score, truth, richer[4], chosen[4], folds):
            chosen = richer
    return chosen


def _rules_to_try(rule):
    """The rules a search fits: every rule of :mod:`mlnb.decision_rules` (``rule`` None),
    none (``"predict"``), or the one given."""
    if rule is None:
        return {name: make_rule(name) for name in RULES}
    return {} if rule == OWN_RULE else {_name(rule): make_rule(rule)}


class RuleChoice(NamedTuple):
    """What :func:`choose_rule` chose: ``rule_name``, the fitted ``rule`` (None: the
    model's own labels), its ``predicted`` labels (cross-fitted) and the micro F1 of every
    rule tried, ``results``."""

    rule_name: str
    rule: object
    predicted: np.ndarray
    results: dict


def choose_rule(scores, own, truth, *, rule=None, random_state=0):
    """The decision rule of one model, chosen on held-out label scores as the defaults'
    search chooses it: its own labels unless a classic rule, then a richer one, wins by one
    standard error of micro F1 over the folds, every rule judged cross-fitted.

    Parameters
    ----------
    scores : ndarray of shape (n_samples, n_labels)
        Label scores of rows the model did not learn from (out of fold, or out of bag).
    own : ndarray of shape (n_samples, n_labels)
        The model's own 0/1 labels of the same rows.
    truth : ndarray of shape (n_samples, n_labels)
    rule : None, "predict", rule name or unfitted rule object
        None: every rule and the own labels; otherwise that one only.
    random_state : int
        The folds of the cross-fitting.

    Returns
    -------
    RuleChoice
    """
    score = set_scorer("f1_micro")
    truth = np.asarray(truth, dtype=np.int8)
    own = np.asarray(own, dtype=np.int8)
    with_own = rule is None or rule == OWN_RULE
    if truth.shape[0] < 2:  # nothing to cross-fit: the own labels, or the rule fitted
        if with_own:
            return RuleChoice(OWN_RULE, None, own, {})
        fitted = make_rule(rule).fit(finite_scores(scores), truth)
        return RuleChoice(_name(rule), fitted, fitted.predict(finite_scores(scores)), {})
    folds = _folds(truth.shape[0], random_state)
    rules = _rules_to_try(rule)
    options = [(OWN_RULE, None, own)] if with_own else []
    if rules:
        options += _rule_options(rules, SortedScores(finite_scores(scores), truth), folds)
    best, results = {}, {}
    for name, fitted_rule, predicted in options:
        value = results[name] = float(score(truth, predicted))
        tier = _tier(name)
        if tier not in best or value > best[tier][0]:
            best[tier] = (value, None, name, fitted_rule, predicted)
    plainest = (results[OWN_RULE], None, OWN_RULE, None, own) if with_own else None
    _, _, name, fitted_rule, predicted = _climb(best, plainest, score, truth, folds)
    return RuleChoice(name, fitted_rule, predicted, results)


def _rule_options(rules, sorted_scores, folds, hidden=None):
    """``(name, rule fitted to every row, cross-fitted labels)`` of each of ``rules``;
    ``hidden``: the unknown cells of the rows (see :func:`truth_and_unknown`), or None."""
    fitting = fitted_to_known(sorted_scores, hidden)
    fitted = fit_rules(rules, fitting)
    tried = cross_fitted(rules, fitting, folds, applied=sorted_scores)
    if hidden is not None:
        for labels in tried.values():
            labels[hidden] = 0
    return [(name, fitted[name], tried[name]) for name in fitted]


def cross_fitted(rules, sorted_scores, folds, *, applied=None):
    """Each rule's label sets with every fold's rows decided by the rule fitted to the
    other folds' scores: an estimate free of the optimism of a rule judged on the scores
    it was fitted to (a cut per label fits the noise of rare labels). The sorts of
    ``sorted_scores`` are made once and carried over to the parts. ``applied``: the
    sorted scores the fitted rules decide (default ``sorted_scores``), of the same rows."""
    applied = sorted_scores if applied is None else applied
    _ = sorted_scores.label_order
    if any(getattr(rule, "sorts_rows", True) for rule in rules.values()):
        _ = sorted_scores.by_row, applied.by_row
    predicted = {name: np.empty(sorted_scores.shape, dtype=np.int8) for name in rules}
    inside = np.zeros(sorted_scores.shape[0], dtype=bool)
    for test in folds:
        inside[:] = False
        inside[test] = True
        fitted = fit_rules(rules, sorted_scores.rows(~inside))
        held_out = applied.rows(inside, sorts=("by_row",))  # to apply the rules
        for name, rule in fitted.items():
            predicted[name][test] = rule.predict(held_out)
    return predicted


class _Search(NamedTuple):
    """What scoring one more setting out of fold needs."""

    template: object
    X: object
    Y: object
    folds: list
    weight: object
    engines: dict
    truth: np.ndarray
    score: object
    rules: dict
    hidden: np.ndarray | None  # the unknown cells (see truth_and_unknown)


def selects_features(X):
    """Whether a search tries keeping each label's best features (chi-squared, which needs
    non-negative X; and features enough to choose from)."""
    return X.shape[1] >= 4 * MIN_KEPT and not _has_negative(X)


def _kept_counts(n_features, tried):
    """The next numbers of features to keep: a coarse grid (every fourth power of two
    below the number of features), then the halves and doubles of the best so far."""
    if not tried:
        k, grid = n_features // 4, []
        while k >= MIN_KEPT:
            grid.append(k)
            k //= 4
        return grid
    best = max(tried, key=tried.get)
    return [k for k in (best // 2, best * 2) if MIN_KEPT <= k < n_features and k not in tried]


def _screen(scores, truth, score, hidden=None):
    """How well out-of-fold ``scores`` rank: the ``score`` of one threshold for all labels
    fitted to them (:data:`SCREEN_RULE`), with the sorted scores made for it; ``hidden``:
    the unknown cells (see :func:`truth_and_unknown`)."""
    sorted_scores = SortedScores(scores, truth)
    cut = make_rule(SCREEN_RULE).fit(fitted_to_known(sorted_scores, hidden))
    predicted = cut.predict(sorted_scores)
    if hidden is not None:
        predicted[hidden] = 0
    return float(score(truth, predicted)), sorted_scores


def _screen_rows(search):
    """``(only, truth, hidden)`` of a screen of settings: the first fold on data of more
    than :data:`SCREEN_ENTRIES` label entries (``only=[0]``), else every fold (``None``)."""
    if search.truth.size > SCREEN_ENTRIES:
        first = search.folds[0]
        return [0], search.truth[first], None if search.hidden is None else search.hidden[first]
    return None, search.truth, search.hidden


def _on_every_fold(search, template, screened, sorted_scores, only):
    """The ``screened`` setting (a :class:`_Candidate` and its sorted scores) scored on
    every fold: as it is if the screen had every fold (``only`` None), else scored again."""
    if only is None:
        return screened, sorted_scores
    args = (template, [screened.events], search.X, search.Y, search.folds, search.weight)
    screened = next(_out_of_fold(*args, engines=search.engines))
    return screened, SortedScores(screened.scores, search.truth)


def _with_selected_features(chosen, search, results, pool):
    """``chosen`` (value, candidate, rule name, fitted rule, labels) with each label's
    best features kept (:class:`~mlnb.events.ChiSquaredSelection`) if that wins by one
    standard error. The number kept is screened as the event models are (one threshold
    for all labels, fitted to micro F1), then the best number is judged with the chosen
    rule refitted and cross-fitted to its scores."""
    from ..events import ChiSquaredSelection

    _, candidate, name, _, _ = chosen
    if isinstance(candidate.events, ChiSquaredSelection):
        return chosen
    only, part, hidden = _screen_rows(search)
    screened, best = {}, None  # number kept -> screen value; the best's scores
    while grid := _kept_counts(search.X.shape[1], screened):
        kept = [ChiSquaredSelection(candidate.events, k=k) for k in grid]
        scored = _out_of_fold(
            search.template,
            kept,
            search.X,
            search.Y,
            search.folds,
            search.weight,
            engines=search.engines,
            only=only,
        )
        for k, selected in zip(grid, scored, strict=True):
            screened[k], sorted_scores = _screen(selected.scores, part, search.score, hidden)
            pool.append((selected.events, only, sorted_scores))
            if best is None or screened[k] > screened[best[0]]:
                best = (k, selected, sorted_scores)
    if best is None:
        return chosen
    _, selected, sorted_scores = best
    selected, sorted_scores = _on_every_fold(search, search.template, selected, sorted_scores, only)
    if name == OWN_RULE:
        fitted, predicted = None, selected.own
    else:
        [(_, fitted, predicted)] = _rule_options(
            {name: search.rules[name]}, sorted_scores, search.folds, search.hidden
        )
    value = float(search.score(search.truth, predicted))
    results[repr(selected.events)] = {name: value}
    option = (value, selected, name, fitted, predicted)
    wins = wins_by_one_standard_error(
        search.score, search.truth, predicted, chosen[4], search.folds
    )
    # and ranks the labels of a row no worse (labels scored on different features can
    # rank worse across labels while each label's cut gains: bibtex, 0.069 -> 0.102)
    ranks = _ranks_no_worse(search.truth, selected.scores, candidate.scores)
    return option if wins and ranks else chosen


def _with_per_label_choice(chosen, search, results, pool, with_own):
    """``chosen`` or, if it wins by one standard error and ranks each row's labels no
    worse out of fold, a :class:`~mlnb.events.PerLabel` model that gives each label the setting of
    ``pool`` (the settings screened, with the chosen model's statistics) that ranks its
    held-out rows best (:mod:`._per_label`), with every rule refitted and cross-fitted."""
    from ..events import PerLabel

    _, candidate, _, _, _ = chosen
    key = candidate.events.statistics_key()
    only, part, _ = _screen_rows(search)
    members = {}  # repr -> (event model, sorted scores), in the order screened
    for events, rows, sorted_scores in pool:
        if rows == only and events.statistics_key() == key:
            members.setdefault(repr(events), (events, sorted_scores))
    names = list(members)
    if len(names) < 2 or repr(candidate.events) not in members:
        return chosen
    base = names.index(repr(candidate.events))
    precisions = np.array([label_average_precision(members[name][1]) for name in names])
    choice = per_label_choice(precisions, part.sum(axis=0), base)
    gains = np.nan_to_num(precisions.max(axis=0) - precisions[base])
    scores = [members[name][1].scores for name in names]
    choice = ranking_safe_choice(choice, base, scores, part, gains)
    if np.all(choice == base):
        return chosen
    used = [base] + [i for i in np.unique(choice) if i != base]
    composite = PerLabel(
        models=tuple(members[names[i]][0] for i in used),
        choice=tuple(int(used.index(i)) for i in choice),
    )
    args = (search.template, [composite], search.X, search.Y, search.folds, search.weight)
    scored = next(_out_of_fold(*args, engines=search.engines))
    best = _best_with_rules(scored, None, search, with_own, results, repr(composite))
    wins = wins_by_one_standard_error(search.score, search.truth, best[3], chosen[4], search.folds)
    ranks = _ranks_no_worse(search.truth, scored.scores, candidate.scores)
    return (best[0], scored, *best[1:]) if wins and ranks else chosen


def _best_with_rules(scored, sorted_scores, search, with_own, results, key):
    """``(value, rule name, fitted rule, labels)`` of the best of ``scored``'s own labels
    (if ``with_own``) and every rule of the search, cross-fitted (``sorted_scores``: its
    scores sorted, or None to sort them); every value reported as ``results[key]``."""
    options = [(OWN_RULE, None, scored.own)] if with_own else []
    if search.rules:
        if sorted_scores is None:
            sorted_scores = SortedScores(scored.scores, search.truth)
        options += _rule_options(search.rules, sorted_scores, search.folds, search.hidden)
    values = {name: float(search.score(search.truth, labels)) for name, _, labels in options}
    results[key] = values
    name, fitted_rule, predicted = max(options, key=lambda option: values[option[0]])
    return values[name], name, fitted_rule, predicted


def _ranks_no_worse(truth, scores, plainer):
    """Whether out-of-fold ``scores`` rank each row's labels no worse than ``plainer`` (a
    setting whose micro F1 gains may rank labels scored on different scales worse)."""
    return _ranking_loss(truth, scores) <= _ranking_loss(truth, plainer)


def _ranking_loss(truth, scores):
    """The label ranking loss of out-of-fold scores over the rows with some labels but not
    all (NaN-free: scores are finite)."""
    from ..metrics import label_ranking_loss  # vectorised; equal to scikit-learn's

    count = truth.sum(axis=1)
    rows = (count > 0) & (count < truth.shape[1])
    if not rows.any():
        return 0.0
    return float(label_ranking_loss(truth[rows], scores[rows]))


def _search_sample(shape, random_state):
    """Sorted rows of a search on a sample (see the module docstring), or None: all."""
    n_samples, n_labels = shape
    size = max(MIN_SEARCH_ROWS, SEARCH_ENTRIES // max(n_labels, 1))
    if n_samples * n_labels <= SEARCH_ENTRIES or size >= n_samples:
        return None
    generator = np.random.default_rng(random_state if isinstance(random_state, int) else 0)
    return np.sort(generator.choice(n_samples, size=size, replace=False))


def resolve_settings(
    estimator, X, Y, *, sample_weight=None, events=None, rule=None, per_label=None
):
    """Choose an additive multi-label estimator's event model and rule from rows X, Y.

    Parameters
    ----------
    estimator : additive multi-label estimator (its other parameters are kept)
    X : validated rows (the estimator's validation has run)
    Y : sparse label matrix
    sample_weight : ndarray or None
    events : event model or None
        The event model to keep (None: search :func:`candidate_events`).
    rule : str, rule object or None
        The rule to fit out of fold (None: search every rule and the own ``predict``).
    per_label : bool or None
        Whether a model per label (:class:`~mlnb.events.PerLabel`) may be chosen; None:
        if the estimator's labels are separate problems (its ``_chooses_per_label``).

    Returns
    -------
    Resolution
    """
    sample = _search_sample(Y.shape, getattr(estimator, "random_state", None))
    if sample is not None:  # a large label space: the search on a sample of the rows
        part = sample_weight if sample_weight is None else sample_weight[sample]
        chosen = resolve_settings(
            estimator,
            X[sample],
            Y[sample],
            sample_weight=part,
            events=events,
            rule=rule,
            per_label=per_label,
        )
        model = clone(estimator).set_params(events=chosen.events, **chosen.params)
        return chosen._replace(total=model.batch_statistics(X, Y, sample_weight))
    score = set_scorer("f1_micro")
    truth, hidden = truth_and_unknown(Y)
    n_samples = truth.shape[0]
    candidates = [events] if events is not None else candidate_events(X, Y.shape[1])
    template = clone(estimator)
    if "rule" in template.get_params():
        template.set_params(rule=OWN_RULE)
    variants = label_terms_to_try(estimator)
    params = weak_label_terms(estimator) if variants else {}
    template.set_params(**params)  # the event model and rule: with the label terms silent
    if n_samples < 2:  # nothing to cross-validate: the plainest setting
        total = (
            clone(template).set_params(events=candidates[0]).batch_statistics(X, Y, sample_weight)
        )
        return Resolution(candidates[0], None, OWN_RULE, total, {}, np.nan, np.nan, params)
    folds = _folds(n_samples, getattr(estimator, "random_state", None) or 0)
    rules = _rules_to_try(rule)
    with_own = rule is None or rule == OWN_RULE

    # the best setting of each tier: 0 the model's own predict, 1 the classic rules, 2 the
    # rules with a threshold per label fitted to micro F1 (the richest)
    best, results, plain = {}, {}, None  # tier -> (score, candidate, rule, fitted, labels)

    def consider(candidate, options):
        for name, fitted, predicted in options:
            value = float(score(truth, predicted))
            results.setdefault(repr(candidate.events), {})[name] = value
            tier = _tier(name)
            if tier not in best or value > best[tier][0]:
                best[tier] = (value, candidate, name, fitted, predicted)

    def own(candidate):
        nonlocal plain
        plain = candidate if plain is None else plain
        consider(candidate, [(OWN_RULE, None, candidate.own)] if with_own else [])

    def with_rules(candidate, sorted_scores):
        options = _rule_options(rules, sorted_scores, folds, hidden) if rules else []
        consider(candidate, options)

    def screen(candidate, part, hidden):  # how well the scores rank: own predict or one cut
        value, sorted_scores = _screen(candidate.scores, part, score, hidden)
        return max(value, float(score(part, candidate.own))), sorted_scores

    engines = {}  # the fold statistics of each kind, shared by every candidate
    pool = []  # (event model, folds scored, sorted scores) of every setting screened
    if rule is not None:  # a rule given: every candidate with it
        for candidate in _out_of_fold(
            template, candidates, X, Y, folds, sample_weight, engines=engines
        ):
            own(candidate)
            sorted_scores = SortedScores(candidate.scores, truth)
            pool.append((candidate.events, None, sorted_scores))
            with_rules(candidate, sorted_scores)
    else:  # the FINALISTS best on the screen, with every rule
        on_one_fold = len(candidates) > 1 and truth.size > SCREEN_ENTRIES
        only, part = ([0], truth[folds[0]]) if on_one_fold else (None, truth)
        part_hidden = hidden[folds[0]] if on_one_fold and hidden is not None else hidden
        finalists = []  # (screen value, -order, candidate, sorted scores)
        for order, candidate in enumerate(
            _out_of_fold(
                template, candidates, X, Y, folds, sample_weight, engines=engines, only=only
            )
        ):
            if not on_one_fold:
                own(candidate)
            value, sorted_scores = screen(candidate, part, part_hidden)
            pool.append((candidate.events, only, sorted_scores))
            finalists.append((value, -order, candidate, sorted_scores))
            # the plainest (first, order 0) stays; beside it the FINALISTS best screened
            best_screened = sorted(finalists, key=lambda f: f[:2], reverse=True)[:FINALISTS]
            finalists = finalists[:1] + [f for f in best_screened if f[1] != 0]
        if on_one_fold:  # every fold for the plainest candidate and the finalists
            chosen = [f[2].events for f in finalists]
            again = [candidates[0]] + [e for e in chosen if e is not candidates[0]]
            finalists = []
            for candidate in _out_of_fold(
                template, again, X, Y, folds, sample_weight, engines=engines
            ):
                own(candidate)
                if any(candidate.events is events for events in chosen):
                    finalists.append((None, None, candidate, SortedScores(candidate.scores, truth)))
        for _, _, candidate, sorted_scores in finalists:
            with_rules(candidate, sorted_scores)
    search = _Search(template, X, Y, folds, sample_weight, engines, truth, score, rules, hidden)
    plainest = (None, plain, OWN_RULE, None, plain.own) if with_own else None
    chosen = _climb(best, plainest, score, truth, folds)
    # the event model searched: its features too; with a fitted rule only (the silenced
    # features' terms no longer balance the others', which shifts the 0.5 rule's cut)
    compact = keeps_compact(chosen[1].events, X, Y.shape[1])  # dense tables would not fit
    if events is None and rule != OWN_RULE and selects_features(X) and not compact:
        chosen = _with_selected_features(chosen, search, results, pool)
    if per_label is None:
        per_label = getattr(estimator, "_chooses_per_label", False)
    if events is None and per_label and not compact:  # dense tables per label otherwise
        chosen = _with_per_label_choice(chosen, search, results, pool, with_own)
    if variants:
        chosen, params = _with_label_terms(chosen, search, results, variants, params, with_own)
    _, candidate, name, fitted, predicted = chosen
    return Resolution(
        events=candidate.events,
        rule=fitted,
        rule_name=name,
        total=candidate.engine.total,
        results=results,
        predicted_cardinality=float(predicted.sum(axis=1).mean()),
        true_cardinality=float(truth.sum(axis=1).mean()),
        params=params,
    )


def label_terms_to_try(estimator):
    """The label terms a chain's search tries (:data:`LABEL_TERMS`, or those with its given
    ``label_prior`` or ``label_alpha``), or [] when neither is ``"tuned"`` (or the
    estimator has no label terms)."""
    params = estimator.get_params(deep=False)
    prior, alpha = params.get("label_prior"), params.get("label_alpha")
    if not (is_tuned(prior) or is_tuned(alpha)):
        return []
    if not is_tuned(alpha):  # the given smoothing, towards either prior
        priors = ("uniform", "marginal") if is_tuned(prior) else (prior,)
        return [{"label_prior": p, "label_alpha": alpha} for p in priors]
    return [dict(t) for t in LABEL_TERMS if is_tuned(prior) or t["label_prior"] == prior]


def weak_label_terms(estimator, weak=WEAK_LABELS):
    """The label terms a chain's event model and rule are chosen with: its given ones, and
    where ``"tuned"``, those of ``weak`` (:data:`WEAK_LABELS`: binary relevance's scores;
    :data:`CLASSIC_LABELS` for a chain that chooses nothing)."""
    given = {key: getattr(estimator, key, None) for key in weak}  # not get_params: hot
    return {key: weak[key] if is_tuned(value) else value for key, value in given.items()}


def _with_label_terms(chosen, search, results, variants, weak, with_own):
    """``chosen`` (found with the ``weak`` label terms) and those, or the best of
    ``variants`` with the chosen event model if it wins by one standard error. The
    variants are screened as the event models are; the best is tried with every rule
    (and its own labels), cross-fitted."""
    _, candidate, _, _, _ = chosen
    only, part, hidden = _screen_rows(search)
    best = None  # (screen value, variant, candidate, sorted scores)
    for variant in variants:
        template = clone(search.template).set_params(**variant)
        args = (template, [candidate.events], search.X, search.Y, search.folds, search.weight)
        scored = next(_out_of_fold(*args, engines=search.engines, only=only))
        value, sorted_scores = _screen(scored.scores, part, search.score, hidden)
        if with_own:
            value = max(value, float(search.score(part, scored.own)))
        if best is None or value > best[0]:
            best = (value, variant, scored, sorted_scores)
    _, variant, scored, sorted_scores = best
    template = clone(search.template).set_params(**variant)
    scored, sorted_scores = _on_every_fold(search, template, scored, sorted_scores, only)
    key = f"{candidate.events!r} with {variant}"
    value, name, fitted_rule, predicted = _best_with_rules(
        scored, sorted_scores, search, with_own, results, key
    )
    option = (value, candidate._replace(scores=scored.scores), name, fitted_rule, predicted)
    if wins_by_one_standard_error(search.score, search.truth, predicted, chosen[4], search.folds):
        return option, dict(variant)
    return chosen, weak
