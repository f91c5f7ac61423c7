"""The decision rule of an ensemble of members fitted on samples, chosen out of bag.

Each member of :class:`~mlnb.EnsembleClassifierChains` and
:class:`~mlnb.DynamicChainEnsemble` learns from a sample of the rows, so every training
row can be scored by the members that did not see it: Breiman's (1996) out-of-bag
estimate, a held-out score of every row at the cost of one prediction of the training rows
(no refit per fold). At ``rule="tuned"`` the ensemble's decision is chosen on those scores
as binary relevance's defaults choose theirs (:func:`~._resolution.choose_rule`): the
members' vote at 0.5 unless a rule of :mod:`mlnb.decision_rules`, fitted to the members'
mean label scores, wins by one standard error of micro F1. Measured on the dynamic chain
ensemble at its defaults: the vote at 0.5 predicts 0.15 labels per row on scene (1.09 in
truth, micro F1 0.17) and 0.19 on birds (0.97, 0.16); the rule chosen out of bag gives 0.60
and 0.31.

A rule fitted to the mean scores of the members out of bag (about a third of them) is
applied to the mean of all of them: the same mean, less noisy.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from sklearn.utils._param_validation import HasMethods, StrOptions

from ..decision_rules import RULES, FittedRule
from ..events.auto import TUNED, is_tuned
from ._base import warn_cardinality
from ._resolution import OWN_RULE, choose_rule, finite_scores

__all__ = ["RULE_CONSTRAINT", "OutOfBag", "apply_rule", "settle_rule"]

#: The ``rule`` parameter of an ensemble: "tuned", "predict", a rule name or a rule object.
RULE_CONSTRAINT = [StrOptions({TUNED, OWN_RULE, *RULES}), HasMethods(["fit", "predict"])]

#: Fewer rows out of bag than this: the vote at 0.5 (a rule needs rows to be fitted).
MIN_ROWS = 10
#: At most this many training rows (a fixed random sample beyond) are scored to choose the
#: rule: scoring them is a prediction of the training rows, which for a dynamic ensemble
#: costs about as much as its fit (DCE on bibtex, 4,880 rows: 200 s), and a cut fitted to
#: this many rows is judged cross-fitted like any other.
MAX_SCORED_ROWS = 4000


class OutOfBag:
    """The members' label scores and own labels of the rows each member did not see
    (or, for models refitted on folds, of each fold's rows by the model of the others).

    Parameters
    ----------
    n_samples, n_labels : int
    soft : bool
        The vote of the members' probabilities (the logistic of their scores) instead of
        their 0/1 labels.
    """

    def __init__(self, n_samples, n_labels, *, soft=False):
        self.total = np.zeros((n_samples, n_labels))
        self.votes = np.zeros((n_samples, n_labels))
        self.count = np.zeros(n_samples)
        self.soft = soft

    def add(self, scores, labels, in_bag):
        """Add one member's ``scores`` and 0/1 ``labels`` of every row; ``in_bag``: the
        rows it learnt from (a mask or indices), which it does not score."""
        out = np.ones(self.count.shape[0], dtype=bool)
        out[in_bag] = False
        self.total[out] += finite_scores(scores[out])
        self.votes[out] += expit(scores[out]) if self.soft else labels[out]
        self.count[out] += 1

    def rows(self):
        """The rows some member did not see (a mask)."""
        return self.count > 0

    def scores(self):
        """Mean label scores of those rows, (rows, n_labels)."""
        rows = self.rows()
        return self.total[rows] / self.count[rows, None]

    def own_labels(self):
        """The members' vote at 0.5 on those rows, as the ensemble's ``predict``."""
        rows = self.rows()
        return (self.votes[rows] / self.count[rows, None] > 0.5).astype(np.int8)


def scored_rows(n_samples, random_state=0):
    """The training rows scored to choose a rule: all, or a sorted random sample of
    :data:`MAX_SCORED_ROWS` of them."""
    if n_samples <= MAX_SCORED_ROWS:
        return np.arange(n_samples)
    rng = np.random.default_rng(random_state)
    return np.sort(rng.choice(n_samples, MAX_SCORED_ROWS, replace=False))


def settle_rule(ensemble, Y, out_of_bag, *, any_out=True, held_out="out of bag", random_state=0):
    """Set the fitted ensemble's ``rule_``, ``chosen_`` and ``chosen_params_``.

    A fitted rule (a :class:`~mlnb.decision_rules.FittedRule`, as ``chosen_params_``
    gives it) is taken as it is, ``"predict"`` is the vote; otherwise (``"tuned"``, a rule
    name or object) the rule is chosen or fitted on ``out_of_bag(rows)`` (an
    :class:`OutOfBag` of the training rows ``rows``, :func:`scored_rows`; computed only
    then), with a warning if the labels per row predicted
    out of bag are far from the truth's (:func:`~._base.warn_cardinality`). ``Y``: the
    training labels (sparse or dense); ``any_out``: whether some member left a row out
    (if none did, the vote, and nothing is scored); ``held_out``: how the rows were held
    out ("out of bag", or "out of fold" for models refitted on folds), as ``chosen_`` and
    the warning name it.
    """
    rule = ensemble.rule
    ensemble.rule_, ensemble.chosen_ = None, None
    if isinstance(rule, FittedRule):
        ensemble.rule_ = rule.rule
    elif rule != OWN_RULE:
        rows = scored_rows(Y.shape[0], random_state)
        scored = out_of_bag(rows) if any_out else OutOfBag(len(rows), Y.shape[1])
        rule = None if rule == TUNED else rule
        _choose(ensemble, Y[rows], scored, rule, held_out, random_state)
    chosen = {}  # the event model chosen at events="tuned" (Naive Bayes members)
    if is_tuned(getattr(ensemble, "events", None)) and hasattr(ensemble, "events_"):
        chosen["events"] = ensemble.events_
    fitted = ensemble.rule_
    ensemble.chosen_params_ = {
        **chosen,
        "rule": OWN_RULE if fitted is None else FittedRule(fitted),
        **getattr(ensemble, "label_terms_", {}),  # an ensemble of chains' chosen ones
    }


def _choose(ensemble, Y, out_of_bag, rule, held_out, random_state):
    rows = out_of_bag.rows()
    truth = Y[rows]
    truth = truth.toarray() if hasattr(truth, "toarray") else np.asarray(truth)
    own = out_of_bag.own_labels()
    if rows.sum() < MIN_ROWS:  # too few rows to fit a rule to
        name, fitted, predicted, results = OWN_RULE, None, own, {}
    else:
        choice = choose_rule(out_of_bag.scores(), own, truth, rule=rule, random_state=random_state)
        name, fitted, predicted, results = choice
    ensemble.rule_ = fitted
    true_cardinality = float(truth.sum(axis=1).mean()) if len(truth) else np.nan
    predicted_cardinality = float(predicted.sum(axis=1).mean()) if len(truth) else np.nan
    events = getattr(ensemble, "events_", None)  # None: nearest-neighbour members
    ensemble.chosen_ = {
        "events": events,
        "rule": name,
        **({"label_terms": ensemble.label_terms_} if hasattr(ensemble, "label_terms_") else {}),
        f"{held_out.replace(' ', '_')}_micro_f1": results,
        "labels_per_row": (predicted_cardinality, true_cardinality),
    }
    warn_cardinality(
        predicted_cardinality,
        true_cardinality,
        where=f"{type(ensemble).__name__} {held_out}",
        setting=f"events={events!r}, rule={name!r}",
        estimator=ensemble,
    )


def apply_rule(ensemble, X, own_predict):
    """The ensemble's 0/1 labels of X: its fitted ``rule_`` on its label scores
    (``decision_function``), or ``own_predict(X)`` (the vote at 0.5) without one."""
    rule = getattr(ensemble, "rule_", None)
    if rule is None:
        return own_predict(X)
    return np.asarray(rule.predict(finite_scores(ensemble.decision_function(X))), dtype=int)
