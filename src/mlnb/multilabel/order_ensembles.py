"""Ensembles of chain orders chosen on a validation set: OOCC and a genetic algorithm.

The reference methods of Trajdos and Kurzynski, both built on an order-free chain, so that scoring
an order costs a prediction, not a fit (its ``predict_in_orders``): the Naive Bayes chain
(:class:`ClassifierChain`, ``base="nb"``) or the nearest-neighbour chain (:class:`KNNChain`,
``base="knn"``, whose training points serve any order):

- :class:`OOCC` (da Silva et al. 2014): a pool of random orders; every validation instance
  records the order whose chain predicts it best (example-based F1); a test instance uses
  the orders recorded by its nearest validation instances and their mean vote (> 0.5).
- :class:`GeneticChainEnsemble` (after Trajdos and Kurzynski 2017): a genetic algorithm over
  orders (population 3K, order crossover, swap mutation) maximising the validation macro F1
  of each order's chain; the K best distinct orders form a static ensemble (eq. 22).

Both split the training set into a part that fits the chain statistics (t = 0.6) and a
validation part V, as Algorithm 1 of Trajdos and Kurzynski.

*Decision rule* (``rule``, default ``"tuned"``): the vote at 0.5 unless a rule of
:mod:`mlnb.decision_rules` fitted to the validation rows' soft scores wins by one standard
error of micro F1 (as the other ensembles choose theirs out of bag,
:func:`~._out_of_bag.settle_rule`). The chain did not learn the validation rows; OOCC
scores each of them with the orders recorded by its nearest *other* validation instances
(its own best order was chosen knowing its labels), the genetic ensemble with its K orders
(chosen for their macro F1 on those rows: a mild optimism, which the one-standard-error
rule tempers). ``rule="predict"`` is the papers' vote (their experiments pass it).

Preprocessing (Trajdos and Kurzynski, section 3: "the reference algorithm also uses Naive
Bayes/nearest neighbour algorithm with data preprocessing procedures described in Section 2.5"): by
default the order-free chain is one member of a :class:`DynamicChainEnsemble` with a fixed order,
built on the whole training part with that ensemble's per-label random undersampling (imbalance
ratio 20) and correlation-based feature selection (at most 300 features). Its statistics do not
depend on the order either, so any order is still scored by a prediction: the member's log-odds and
label-pair terms in a greedy chain search (NB), or its kNN chain with each label's kept rows and
selected features (kNN). ``max_imbalance=None`` with ``feature_selection=None`` gives the plain
chain (:class:`ClassifierChain` or :class:`KNNChain`) instead.
"""

from __future__ import annotations

from functools import partial
from numbers import Real
from typing import ClassVar

import numpy as np
from scipy.special import expit
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..base.validation import COUNT, Integers, check_label_matrix, validate_rows
from ..limits import Cost
from ..metrics import f1_score
from ._base import (
    NB_CONSTRAINTS,
    PREPROCESSING_CONSTRAINTS,
    VOTING,
    MultiLabelEstimator,
)
from ._labels import binary_classes
from ._neighbourhood import (
    divide_columns,
    feature_scale,
    fill_missing,
    nearest_points,
    squared_distances,
    validation_mask,
)
from ._out_of_bag import RULE_CONSTRAINT, OutOfBag, apply_rule, settle_rule
from ._resolution import finite_scores
from ._tuned_events import choose_events, member_events
from .chain import ClassifierChain
from .dynamic_ensemble import DynamicChainEnsemble
from .knn_chain import KNNChain

__all__ = ["GeneticChainEnsemble", "OOCC"]


_UNWEIGHTED = (
    "its orders are chosen by unweighted F1 on validation rows; repeat rows to weight them"
)


class _ValidatedOrders(MultiLabelEstimator):
    """Shared: split, fit the order-free chain, predict any order on any rows."""

    _parameter_constraints: ClassVar[dict] = {
        **NB_CONSTRAINTS,
        **PREPROCESSING_CONSTRAINTS,
        "chain_neighbors": [StrOptions({"auto"}), COUNT],
        "voting": [VOTING],
        "rule": RULE_CONSTRAINT,
    }

    def _split_and_fit(self, X, y):
        X = validate_rows(self, X, reset=True, missing=self.missing)
        Y = check_label_matrix(y, X.shape[0])
        fraction = float(self.validation_fraction)
        if not 0 < fraction < 1 or X.shape[0] < 2:
            raise ValueError(
                "needs 0 < validation_fraction < 1 and at least 2 rows to split off a "
                f"validation set; got validation_fraction = {fraction}, n_samples = {X.shape[0]}"
            )
        if self.base not in ("nb", "knn"):
            raise ValueError(f'base must be "nb" or "knn"; got {self.base!r}')
        if self.base == "knn" and self.missing == "ignore":
            raise ValueError(
                "nearest-neighbour chains (base='knn') take no missing values (NaN): impute X "
                "first, or use base='nb'"
            )
        rng = check_random_state(self.random_state)
        validation = validation_mask(X.shape[0], fraction, rng)
        if self._preprocessing():
            chain = self._preprocessed_chain(Y.shape[1], rng.randint(2**31 - 1))
        elif self.base == "knn":
            chain = KNNChain(n_neighbors=self.chain_neighbors, random_state=rng.randint(2**31 - 1))
        else:
            if self.base == "nb":
                choose_events(self, X, Y)
            chain = ClassifierChain(
                events=member_events(self),
                rule="predict",  # the pool's orders are scored with the chain's own
                prior_alpha=self.prior_alpha,
                label_alpha=self.label_alpha,
                missing=self.missing,
            )
        self.chain_ = chain.fit(X[~validation], Y[~validation])
        if self.base == "nb":  # the chain's event model (chosen by it, or given)
            self.events_ = self.chain_.events_
        self.n_labels_ = Y.shape[1]
        self.classes_ = binary_classes(self.n_labels_)
        return X[validation], Y[validation], rng

    def _preprocessing(self):
        return self.max_imbalance is not None or self.feature_selection is not None

    def _preprocessed_chain(self, n_labels, seed):
        """One DynamicChainEnsemble member on every training row (section 2.5's preprocessing).

        Its order is fixed only because the ensemble needs one: the member's statistics, kept
        rows and feature masks do not depend on it, and its ``predict_in_orders`` scores any
        order with them. The parameters are passed through unchecked: the ensemble checks
        them.
        """
        return DynamicChainEnsemble(
            n_chains=1,
            base=self.base,
            events=self.events,
            n_neighbors=self.chain_neighbors,
            order=np.arange(n_labels),
            sample_fraction=1.0,
            max_imbalance=self.max_imbalance,
            feature_selection=self.feature_selection,
            max_features=self.max_features,
            beta=1.0,  # not used with a fixed order
            rule="predict",  # its labels in given orders are what the ensemble uses
            prior_alpha=self.prior_alpha,
            label_alpha=self.label_alpha,
            label_prior="uniform",  # Laplace's terms, as the pool's chains have
            random_state=seed,
            missing=self.missing,
        )

    def _predict_orders(self, X, orders):
        """0/1 predictions of the chain in each order: shape (len(orders), n, L)."""
        return self.chain_.predict_in_orders(X, orders)

    def _scores_in_orders(self, X, orders):
        """The chain's label scores in each order, (len(orders), n, L): finite log-odds as
        they are, +-inf bounded (:func:`finite_scores`)."""
        return finite_scores(self.chain_.decision_function_in_orders(X, orders))

    def _votes_in_orders(self, X, orders):
        """What the orders' chains vote in each order, (len(orders), n, L): their 0/1
        labels ("hard" voting) or probabilities ("soft", the logistic of their scores)."""
        if self.voting == "soft":
            return expit(self._scores_in_orders(X, orders))
        return self._predict_orders(X, orders)

    def _settle_rule(self, validation_Y, held_out):
        """``rule_``, ``chosen_`` and ``chosen_params_`` from ``held_out(rows)``: the soft
        scores and own labels of those validation rows (see the module docstring)."""

        def scored(rows):
            scores, votes = held_out(rows)
            out = OutOfBag(len(rows), validation_Y.shape[1])
            out.add(scores, (votes > 0.5).astype(np.int8), [])
            return out

        settle_rule(self, validation_Y, scored, any_out=len(validation_Y) > 0, held_out="held out")

    def predict(self, X):
        """0/1 labels: the fitted ``rule_`` on :meth:`decision_function`, or ``[mean vote >
        0.5]`` (:meth:`predict_proba`; Trajdos and Kurzynski, eq. 22)."""
        return apply_rule(self, X, lambda X: (self.predict_proba(X) > 0.5).astype(int))


class OOCC(_ValidatedOrders):
    """Online-optimised classifier chains (da Silva et al. 2014) with an order-free chain.

    Parameters
    ----------
    n_orders : int, default=20
        Size of the pool of random orders.
    n_neighbors : int, default=5
        Validation instances whose recorded orders a test instance uses.
    base : {"nb", "knn"}, default="nb"
        The order-free chain: Naive Bayes or nearest neighbours.
    chain_neighbors : int or "auto", default="auto"
        R of the kNN chain (``base="knn"``), as :class:`KNNChain`'s ``n_neighbors``.
    events, prior_alpha, label_alpha : as :class:`ClassifierChain` (``base="nb"``).
    max_imbalance : float or None, default=20.0
        Section 2.5's random undersampling, as :class:`DynamicChainEnsemble`: a label's
        majority class in the training part is undersampled down to this imbalance ratio
        (None: never).
    feature_selection : str or None, default="cfs"
        Section 2.5's per-label feature selection, as :class:`DynamicChainEnsemble` (which
        checks the value): "cfs" is correlation-based feature selection. With
        ``max_imbalance=None`` and ``feature_selection=None`` the chain is the plain
        :class:`ClassifierChain` or :class:`KNNChain` (no preprocessing).
    max_features : int, default=300
        At most this many features per label, as :class:`DynamicChainEnsemble`.
    validation_fraction : float, default=0.4
    voting : {"hard", "soft"}, default="hard"
        How the recorded orders' chains are combined in :meth:`predict_proba` (and
        ``predict``, its 0.5 cut): "hard", the share of them predicting each label; "soft",
        the mean of their probabilities. The orders are chosen on 0/1 predictions either
        way.
    rule : "tuned", "predict", rule name or rule object, default="tuned"
        The decision: "predict" is the vote at 0.5; "tuned" keeps it unless a rule fitted
        to the validation rows' soft scores wins by one standard error (module
        docstring); a rule name or object: that rule, fitted to them; a fitted rule
        (``chosen_params_["rule"]``) as it is.
    random_state : int, RandomState or None, default=None
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.

    Attributes
    ----------
    chain_ : DynamicChainEnsemble, ClassifierChain or KNNChain
        The order-free chain fitted on the training part: a one-member ensemble holding the
        preprocessed statistics, or (no preprocessing) the plain chain.
    orders_ : list of ndarray
        The pool of orders.
    best_order_ : ndarray of shape (n_validation,)
        Index in ``orders_`` of each validation instance's best order.
    """

    _parameter_constraints: ClassVar[dict] = {
        **_ValidatedOrders._parameter_constraints,
        "n_orders": [COUNT],
        "n_neighbors": [COUNT],
    }

    @classmethod
    def _unit_test_params(cls):
        return [{"n_orders": 3, "random_state": 0}]

    def __init__(
        self,
        *,
        n_orders=20,
        n_neighbors=5,
        base="nb",
        chain_neighbors="auto",
        events="tuned",
        prior_alpha=0.0,
        label_alpha=1.0,
        max_imbalance=20.0,
        feature_selection="cfs",
        max_features=300,
        validation_fraction=0.4,
        voting="hard",
        rule="tuned",
        random_state=None,
        missing="error",
    ):
        self.n_orders = n_orders
        self.n_neighbors = n_neighbors
        self.base = base
        self.chain_neighbors = chain_neighbors
        self.events = events
        self.prior_alpha = prior_alpha
        self.label_alpha = label_alpha
        self.max_imbalance = max_imbalance
        self.feature_selection = feature_selection
        self.max_features = max_features
        self.validation_fraction = validation_fraction
        self.voting = voting
        self.rule = rule
        self.random_state = random_state
        self.missing = missing

    def _planned_cost(self, n_samples, n_features, n_labels):
        """The orders (a chain's predictions of every row in each); a step per order, row
        and label."""
        O = int(self.n_orders)
        return Cost(O * (n_labels + n_samples), O * n_samples * n_labels, {"n_orders": O})

    def fit(self, X, y, sample_weight=None):
        """Fit the chain, then record the best pool order of every validation instance.

        ``sample_weight`` must be None: orders are chosen by unweighted F1 on the
        validation rows (repeat rows to weight them).
        """
        self._validate_params()
        self._refuse_sample_weight(sample_weight, _UNWEIGHTED)
        if int(self.n_orders) < 1 or int(self.n_neighbors) < 1:
            raise ValueError("n_orders and n_neighbors must be >= 1")
        validation_X, validation_Y, rng = self._split_and_fit(X, y)
        self.orders_ = [rng.permutation(self.n_labels_) for _ in range(int(self.n_orders))]
        predictions = self._predict_orders(validation_X, self.orders_)  # (P, |V|, L)
        scores = _row_f1(validation_Y[None], predictions)  # (P, |V|)
        self.best_order_ = np.argmax(scores, axis=0)  # per validation instance
        self.scale_ = feature_scale(validation_X)
        self.validation_X_ = divide_columns(validation_X, self.scale_)
        self._settle_rule(validation_Y, partial(self._held_out, validation_X, predictions))
        return self

    def _held_out(self, validation_X, predictions, rows):
        """Soft scores and votes of validation ``rows``, each by the orders recorded by its
        nearest other validation instances (leave-one-out); ``predictions``: the 0/1
        labels of every validation row in every order, (P, |V|, L)."""
        scaled, others = fill_missing(self.validation_X_[rows], self.validation_X_)
        distances = squared_distances(scaled, others)
        distances[np.arange(len(rows)), rows] = np.inf  # not the row itself
        k = min(int(self.n_neighbors), max(others.shape[0] - 1, 1))
        chosen = self.best_order_[nearest_points(distances, k)]
        at = np.arange(len(rows))[:, None]
        in_orders = self._scores_in_orders(validation_X[rows], self.orders_)
        scores = in_orders[chosen, at].mean(axis=1)
        votes = expit(in_orders) if self.voting == "soft" else predictions[:, rows]
        return scores, votes[chosen, at].mean(axis=1)

    def predict_proba(self, X):
        """Mean vote of the orders recorded by the nearest validation instances: the
        share of them predicting each label ("hard"), or their mean probability ("soft")."""
        X, chosen = self._chosen_orders(X)
        votes = self._votes_in_orders(X, self.orders_)  # (P, n, L)
        return votes[chosen, np.arange(X.shape[0])[:, None]].mean(axis=1)

    def decision_function(self, X):
        """Soft label scores for ranking and thresholding, (n_samples, n_labels).

        The mean, over the orders recorded by a row's nearest validation instances, of
        the chain's label scores in that order (its ``decision_function_in_orders``:
        log-odds along the chain's path, +-inf bounded): finer than the vote fractions
        of :meth:`predict_proba`.
        """
        X, chosen = self._chosen_orders(X)
        scores = self._scores_in_orders(X, self.orders_)  # (P, n, L)
        return scores[chosen, np.arange(X.shape[0])[:, None]].mean(axis=1)

    def _chosen_orders(self, X):
        """Validated X and the pool indices recorded by each row's nearest validation
        instances, (n, n_neighbors)."""
        check_is_fitted(self, "best_order_")
        X = validate_rows(self, X, reset=False, missing=self.missing)
        scaled, validation_X = fill_missing(divide_columns(X, self.scale_), self.validation_X_)
        distances = squared_distances(scaled, validation_X)
        return X, self.best_order_[nearest_points(distances, self.n_neighbors)]


def _row_f1(Y, P):
    """Example-based F1 of every row, over the last axis (both sets empty: 1)."""
    Y, P = np.asarray(Y, bool), np.asarray(P, bool)
    tp = (Y & P).sum(axis=-1)
    denominator = Y.sum(axis=-1) + P.sum(axis=-1)
    return np.divide(2.0 * tp, denominator, out=np.ones(tp.shape), where=denominator > 0)


class GeneticChainEnsemble(_ValidatedOrders):
    """A static ensemble of chain orders found by a genetic algorithm (Trajdos 2017).

    Fitness of an order: the validation macro F1 of the order-free chain (by default with
    section 2.5's preprocessing, as :class:`OOCC`) in that order; the orders of a generation
    are scored in one batch.
    The population (3K orders) evolves by tournament selection, order crossover (OX1) and
    swap mutation, keeping the best orders (elitism); the K best distinct orders evaluated
    during the search vote (fewer when fewer distinct orders exist).

    Parameters
    ----------
    n_chains : int, default=20
        K, the committee size; the population is 3K.
    n_generations : int, default=20
    mutation_rate : float, default=0.2
    base, chain_neighbors, events, prior_alpha, label_alpha : as :class:`OOCC`.
    max_imbalance : float or None, default=20.0
        Section 2.5's random undersampling, as :class:`OOCC` and
        :class:`DynamicChainEnsemble` (None: never).
    feature_selection : str or None, default="cfs"
        Section 2.5's per-label feature selection, as :class:`OOCC` and
        :class:`DynamicChainEnsemble`. With ``max_imbalance=None`` and
        ``feature_selection=None`` the chain is the plain :class:`ClassifierChain` or
        :class:`KNNChain` (no preprocessing).
    max_features : int, default=300
        At most this many features per label, as :class:`DynamicChainEnsemble`.
    validation_fraction, voting, rule, random_state : as :class:`OOCC` (the rule is
        fitted to the validation rows' scores by the K orders).
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.

    Attributes
    ----------
    chain_ : DynamicChainEnsemble, ClassifierChain or KNNChain
        As :class:`OOCC`.
    orders_ : list of ndarray
        The K best distinct orders, best first.
    validation_scores_ : ndarray of shape ``(len(orders_),)``
        Their validation macro F1.
    """

    _parameter_constraints: ClassVar[dict] = {
        **_ValidatedOrders._parameter_constraints,
        "n_chains": [COUNT],
        "n_generations": [Integers(0, None, closed="left")],
        "mutation_rate": [Interval(Real, 0, 1, closed="both")],
    }

    @classmethod
    def _unit_test_params(cls):
        return [{"n_chains": 2, "n_generations": 2, "random_state": 0}]

    def __init__(
        self,
        *,
        n_chains=20,
        n_generations=20,
        mutation_rate=0.2,
        base="nb",
        chain_neighbors="auto",
        events="tuned",
        prior_alpha=0.0,
        label_alpha=1.0,
        max_imbalance=20.0,
        feature_selection="cfs",
        max_features=300,
        validation_fraction=0.4,
        voting="hard",
        rule="tuned",
        random_state=None,
        missing="error",
    ):
        self.n_chains = n_chains
        self.n_generations = n_generations
        self.mutation_rate = mutation_rate
        self.base = base
        self.chain_neighbors = chain_neighbors
        self.events = events
        self.prior_alpha = prior_alpha
        self.label_alpha = label_alpha
        self.max_imbalance = max_imbalance
        self.feature_selection = feature_selection
        self.max_features = max_features
        self.validation_fraction = validation_fraction
        self.voting = voting
        self.rule = rule
        self.random_state = random_state
        self.missing = missing

    def _planned_cost(self, n_samples, n_features, n_labels):
        """Every generation's chains, each predicting the rows; a step per chain,
        generation, row and label."""
        C, G = int(self.n_chains), int(self.n_generations)
        steps = C * (G + 1) * n_samples * n_labels
        return Cost(C * (n_labels + n_samples), steps, {"n_chains": C, "n_generations": G})

    def fit(self, X, y, sample_weight=None):
        """Evolve orders on the validation set; keep the K best distinct ones.

        ``sample_weight`` must be None: orders are scored by unweighted macro F1 on the
        validation rows (repeat rows to weight them).
        """
        self._validate_params()
        self._refuse_sample_weight(sample_weight, _UNWEIGHTED)
        K = int(self.n_chains)
        if K < 1 or int(self.n_generations) < 0:
            raise ValueError("n_chains must be >= 1 and n_generations >= 0")
        validation_X, validation_Y, rng = self._split_and_fit(X, y)
        L = self.n_labels_
        cache = {}

        def fitness(orders):
            """Validation macro F1 of each order; new orders are scored in one batch."""
            new = {o.tobytes(): o for o in orders if o.tobytes() not in cache}
            if new:
                predicted = self._predict_orders(validation_X, list(new.values()))
                for (key, order), labels in zip(new.items(), predicted, strict=True):
                    cache[key] = (f1_score(validation_Y, labels, average="macro"), order)
            return np.array([cache[o.tobytes()][0] for o in orders])

        population = [rng.permutation(L) for _ in range(3 * K)]
        for _ in range(int(self.n_generations)):
            scores = fitness(population)
            elite = [population[i] for i in np.argsort(-scores, kind="stable")[:K]]
            children = []
            while len(children) < 2 * K:
                a, b = (population[_tournament(scores, rng)] for _ in range(2))
                child = _order_crossover(a, b, rng)
                if rng.random_sample() < float(self.mutation_rate) and L > 1:
                    i, j = rng.choice(L, 2, replace=False)
                    child[[i, j]] = child[[j, i]]
                children.append(child)
            population = elite + children
        fitness(population)
        # the K best distinct orders evaluated during the whole search
        ranked = sorted(cache.values(), key=lambda entry: -entry[0])[:K]
        self.orders_ = [order for _, order in ranked]
        self.validation_scores_ = np.array([score for score, _ in ranked])

        def held_out(rows):  # the K orders' mean scores and votes
            X = validation_X[rows]
            scores = self._scores_in_orders(X, self.orders_).mean(axis=0)
            return scores, self._votes_in_orders(X, self.orders_).mean(axis=0)

        self._settle_rule(validation_Y, held_out)
        return self

    def predict_proba(self, X):
        """Mean vote of the K chains: of their 0/1 labels ("hard") or probabilities ("soft")."""
        check_is_fitted(self, "orders_")
        X = validate_rows(self, X, reset=False, missing=self.missing)
        return self._votes_in_orders(X, self.orders_).mean(axis=0)

    def decision_function(self, X):
        """Soft label scores for ranking and thresholding, (n_samples, n_labels): the mean
        of the K chains' label scores (log-odds along each chain's path, +-inf bounded),
        finer than the vote fractions of :meth:`predict_proba`."""
        check_is_fitted(self, "orders_")
        X = validate_rows(self, X, reset=False, missing=self.missing)
        return self._scores_in_orders(X, self.orders_).mean(axis=0)


def _tournament(scores, rng, size=2):
    contestants = rng.choice(len(scores), size, replace=False)
    return contestants[np.argmax(scores[contestants])]


def _order_crossover(a, b, rng):
    """OX1: a slice of parent a, the remaining labels in parent b's order."""
    n = len(a)
    i, j = sorted(rng.choice(n + 1, 2, replace=False))
    child = np.full(n, -1)
    child[i:j] = a[i:j]
    kept = set(a[i:j].tolist())
    child[child < 0] = [label for label in b if label not in kept]
    return child
