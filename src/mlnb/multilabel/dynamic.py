"""Dynamic classifier chains: the label order is chosen per instance at prediction time.

Trajdos and Kurzynski (2017), sections 2.2 and 2.4. The Naive Bayes chain needs only
per-label and pairwise label statistics, so any order costs a prediction, not a fit
(Algorithms 1-2). The order of an instance x puts first the labels that binary relevance
predicts best near x: local F1 on a validation part V of the training set (t = 0.6 / 0.4),
:func:`~._orders.local_f1_orders`. beta is chosen in {1, ..., 10} by 3-fold
cross-validation on example-based F1 unless given (:func:`~._orders.search_beta`).
"""

from __future__ import annotations

from functools import partial
from numbers import Real
from typing import ClassVar

import numpy as np
from scipy.special import expit
from sklearn.base import clone
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from ..base.validation import check_label_matrix
from ..events.auto import is_rule, is_tuned
from ._base import NB_CONSTRAINTS, MultiLabelNB
from ._inference import dynamic_greedy_search, greedy_search
from ._labels import resolve_order
from ._neighbourhood import divide_columns, feature_scale, validation_mask
from ._orders import BETAS, is_local_f1, local_f1_orders, search_beta
from ._out_of_bag import RULE_CONSTRAINT, OutOfBag, apply_rule, settle_rule
from ._resolution import OWN_RULE
from ._tuned_events import choose_events

__all__ = ["DynamicChain", "local_f1_orders"]


class DynamicChain(MultiLabelNB):
    """Naive Bayes classifier chain with a label order chosen for every instance.

    Parameters
    ----------
    events : str or event model, default="tuned"
        Event model of the Naive Bayes members; ``"tuned"``: the one
        :class:`~mlnb.BinaryRelevance` chooses on the same rows by cross-validation (one
        search by fold subtraction, ``events_`` after fit).
    beta : float or "auto", default="auto"
        Width of the fuzzy neighbourhood (eq. 13); "auto" picks the best of 1..10 by
        3-fold cross-validation on example-based F1 (the paper's procedure).
    validation_fraction : float, default=0.4
        Share of the training rows kept as the validation set V (the paper's t = 0.6) of
        the local-F1 order; the chain's statistics come from the other rows (Algorithm 1).
        A fixed order needs no validation set: the chain then learns from every row.
    order : None, "local_f1" or array-like, default="local_f1"
        "local_f1": the dynamic order; an explicit permutation (or None for 0..L-1): one
        fixed order for every instance, as :class:`ClassifierChain`.
    scale : bool, default=True
        Measure distances on features divided by their training standard deviation (the
        paper standardises; centring does not change distances, so sparse data stay sparse).
    prior_alpha, label_alpha : float
        As :class:`ClassifierChain`.
    label_prior : {"uniform", "marginal"}, default="uniform"
        As :class:`ClassifierChain`.
    rule : "tuned", "predict", rule name or rule object, default="tuned"
        The decision. ``"predict"``: the chain's own labels (the paper's); ``"tuned"``:
        those unless a rule of :mod:`mlnb.decision_rules` fitted to
        :meth:`decision_function` wins by one standard error of micro F1 on the training
        rows the chain did not learn from: the validation rows (the dynamic order), or
        every row by chains refitted on three folds (a fixed order; ``rule_``,
        ``chosen_``); a rule name or object: that rule, fitted to them; a fitted rule
        (``chosen_params_``): as given.
    random_state : int, RandomState or None, default=None
        The train/validation split and the folds of the beta search.
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.

    Attributes
    ----------
    beta_ : float
        The width used.
    validation_X_, validation_Y_, validation_predicted_ : the validation set V with binary
        relevance's predictions of it.
    """

    _uses_label_pairs = True
    _parameter_constraints: ClassVar[dict] = {
        **NB_CONSTRAINTS,
        "beta": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
        "validation_fraction": [Interval(Real, 0, 1, closed="left")],
        "order": ["array-like", StrOptions({"local_f1", "random"}), None],
        "scale": ["boolean"],
        "rule": RULE_CONSTRAINT,
    }

    @classmethod
    def _unit_test_params(cls):
        return [{"beta": 2.0, "random_state": 0}]

    def __init__(
        self,
        *,
        events="tuned",
        beta="auto",
        validation_fraction=0.4,
        order="local_f1",
        scale=True,
        prior_alpha=0.0,
        label_alpha=1.0,
        label_prior="uniform",
        rule="tuned",
        random_state=None,
        missing="error",
    ):
        self.events = events
        self.beta = beta
        self.validation_fraction = validation_fraction
        self.order = order
        self.scale = scale
        self.prior_alpha = prior_alpha
        self.label_alpha = label_alpha
        self.label_prior = label_prior
        self.rule = rule
        self.random_state = random_state
        self.missing = missing

    def _dynamic(self):
        return is_local_f1(self.order)

    def fit(self, X, y, sample_weight=None):
        """Fit the chain on the training part and keep the validation part for the orders."""
        self._validate_params()
        fraction = float(self.validation_fraction)
        if not 0 <= fraction < 1:
            raise ValueError(f"validation_fraction must be in [0, 1); got {fraction}")
        if self._dynamic() and fraction == 0:
            raise ValueError("the local-F1 order needs a validation set: validation_fraction > 0")
        if not (self.beta == "auto" or (np.isscalar(self.beta) and float(self.beta) > 0)):
            raise ValueError(f'beta must be "auto" or a positive number; got {self.beta!r}')
        X = self._validate_X(X, reset=True)
        Y = check_label_matrix(y, X.shape[0])
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        rng = check_random_state(self.random_state)
        n_samples = X.shape[0]
        # a fixed order needs no validation part: the chain learns from every row
        validation = np.zeros(n_samples, dtype=bool)
        if self._dynamic():
            validation = validation_mask(n_samples, fraction, rng)
        train = ~validation
        if not train.any() or (self._dynamic() and n_samples < 2):
            raise ValueError(
                "DynamicChain splits off a validation set and needs at least 2 rows; got "
                f"n_samples = {n_samples}"
            )
        for attribute in ("feature_stats_", "label_stats_", "n_labels_"):
            self.__dict__.pop(attribute, None)
        self._validate_params()
        choose_events(self, X, Y, weight)
        events = self.event_model(X)
        # the statistics of the training part, from the X validated above (its feature
        # names kept): no second validation
        labels = check_label_matrix(Y[train], sparse=True)
        self._install(*self._statistics(events, X[train], labels, weight[train]), events)
        self.scale_ = feature_scale(X[train]) if self.scale else None
        if self._dynamic():
            validation_X = X[validation]
            odds = self._independent_log_odds(validation_X, validated=True)
            self.validation_predicted_ = (odds > 0).astype(np.int8)
            self.validation_X_ = self._scaled(validation_X)
            self.validation_Y_ = Y[validation].astype(np.int8)
            self.beta_ = (
                float(self.beta) if self.beta != "auto" else self._search_beta(X, Y, weight, rng)
            )
        else:
            self.order_ = resolve_order(self.order, self.n_labels_)
        held_out = partial(self._held_out, X, Y, weight, rng, validation)
        settle_rule(self, Y, held_out, any_out=X.shape[0] >= 3, held_out="held out")
        return self

    def _fold_model(self, X, Y, weight, train):
        """The chain fitted on the ``train`` rows with this one's event model, deciding
        by its own labels."""
        inner = clone(self).set_params(beta=1.0, random_state=0, rule=OWN_RULE)
        if is_rule(self.events) or is_tuned(self.events):  # chosen from all the rows
            inner.set_params(events=self.events_)
        return inner.fit(X[train], Y[train], sample_weight=weight[train])

    def _held_out(self, X, Y, weight, rng, validation, rows):
        """Label scores and own labels of the training ``rows`` by a chain that did not
        learn them (:class:`~._out_of_bag.OutOfBag`): the validation rows by this chain
        (dynamic order), else every row by the chain of three folds refitted now."""
        if validation.any():
            folds = [(self, np.flatnonzero(validation))]
        else:
            split = KFold(3, shuffle=True, random_state=rng.randint(2**31 - 1))
            folds = [(self._fold_model(X, Y, weight, t), s) for t, s in split.split(X)]
        shape = (len(rows), Y.shape[1])
        held_out = OutOfBag(*shape)
        for chain, test in folds:
            part = np.flatnonzero(np.isin(rows, test))  # the scored rows of this fold
            labels, scores = np.zeros(shape, dtype=np.int8), np.zeros(shape)
            labels[part], scores[part] = chain._search(X[rows[part]], validated=True)
            learnt = np.ones(len(rows), dtype=bool)
            learnt[part] = False
            held_out.add(scores, labels, learnt)
        return held_out

    def partial_fit(self, X, y, sample_weight=None):
        raise ValueError(
            "DynamicChain learns its orders from a validation split of the whole training "
            "set: use fit (ClassifierChain learns online)"
        )

    def merge(self, other):
        raise ValueError("DynamicChain keeps a validation set: models cannot be merged")

    def _scaled(self, X):
        return X if self.scale_ is None else divide_columns(X, self.scale_)

    def _search_beta(self, X, Y, weight, rng):
        """beta in 1..10 by 3-fold cross-validation (example-based F1)."""

        def fold_labels(train, test):
            inner = self._fold_model(X, Y, weight, train)
            for beta in BETAS:  # the fitted chain serves every width
                inner.beta_ = float(beta)
                yield inner.predict(X[test])

        return search_beta(fold_labels, X, Y, rng, average="samples")

    def predict_orders(self, X):
        """The label order of every row, best first, shape (n_samples, n_labels)."""
        check_is_fitted(self)
        if not self._dynamic():
            X = self._validate_X(X, reset=False)
            return np.tile(self.order_, (X.shape[0], 1))
        return self._orders(self._validate_X(X, reset=False))

    def _orders(self, X):
        """The local-F1 order of every validated row."""
        return local_f1_orders(
            self._scaled(X),
            self.validation_X_,
            self.validation_Y_,
            self.validation_predicted_,
            self.beta_,
        )[0]

    def _search(self, X, *, validated=False):
        base = self._independent_log_odds(X, validated=validated)
        weight, absent = self._label_pairs
        if not self._dynamic():
            return greedy_search(base, weight, absent, self.order_)
        orders = self._orders(X if validated else self._validate_X(X, reset=False))
        return dynamic_greedy_search(base, weight, absent, orders)

    def predict(self, X):
        """0/1 labels, each row's chain in its own order, shape (n_samples, n_labels); or
        the fitted ``rule_`` on :meth:`decision_function`."""
        return apply_rule(self, X, lambda X: self._search(X)[0])

    def decision_function(self, X):
        """``log P(y_k = 1 | x, labels decided before k in x's order)`` minus that of 0:
        label scores for ranking and thresholding (conditional on the path)."""
        return self._search(X)[1]

    def predict_proba(self, X):
        """``P(y_k = 1 | x, labels decided before k in x's order)``."""
        return expit(self._search(X)[1])
