"""The two kinds of members of a :class:`~mlnb.multilabel.DynamicChainEnsemble`.

:class:`NBMembers` are Naive Bayes chains, :class:`KNNMembers` nearest-neighbour chains.
A kind knows how to fit a member on its rows (given the ensemble's undersampling and
feature selection), how binary relevance predicts the member's validation rows (for its
local-F1 orders), and a member's labels in any orders: any order costs a prediction, not a
fit, because a member's statistics, kept rows and feature masks do not depend on it.

Each kind is a view of one ensemble: the fitted state lives in the ensemble's public
attributes (which model files keep), so a view is made afresh, by :func:`members_of`,
whenever it is needed. While the ensemble fits, its view also holds the training data.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..events.auto import is_rule, is_tuned
from ..missing import has_missing
from ..stats import GroupStats
from ._inference import dynamic_greedy_searches, greedy_search
from ._knn_members import choose_neighbours, knn_chain_labels, share_log_odds, tiled_orders
from ._label_model import feature_log_odds, feature_parameters, label_log_odds, log_prior_odds
from ._neighbourhood import divide_columns, feature_scale
from ._orders import is_local_f1, local_f1_orders
from ._out_of_bag import OutOfBag
from ._resolution import finite_scores

__all__ = ["KNNMembers", "NBMembers", "members_of"]


def members_of(ensemble):
    """The members of ``ensemble`` as the kind its ``base`` names ("nb" or "knn")."""
    kinds = {"nb": NBMembers, "knn": KNNMembers}
    if not isinstance(ensemble.base, str) or ensemble.base not in kinds:
        raise ValueError(f'base must be "nb" or "knn"; got {ensemble.base!r}')
    return kinds[ensemble.base](ensemble)


class _Members:
    """What both kinds share: the members' orders, votes and labels in given orders.

    A kind implements ``check``, ``start``, ``add``, ``validation``, ``fold_settings``
    (fitting) and ``inputs``, ``order_space``, ``labels`` (prediction).
    """

    def __init__(self, ensemble):
        self.ensemble = ensemble

    @property
    def n_members(self):
        return len(self.ensemble.feature_masks_)

    def orders(self, inputs, member, betas):
        """A member's orders: (1, L) fixed, or (n_betas, n, L) by local F1 of each width."""
        ensemble = self.ensemble
        if not is_local_f1(ensemble.order):
            return ensemble.orders_[member][None]
        return local_f1_orders(
            self.order_space(inputs, member),
            ensemble.validation_X_[member],
            ensemble.validation_Y_[member],
            ensemble.validation_predicted_[member],
            betas,
        )[0]

    def votes(self, X, betas, *, soft=False):
        """Mean of the members' 0/1 labels (``soft``: of their probabilities, the logistic
        of :meth:`member_scores`) in their own orders, (n_sets, n, L), X validated."""
        inputs = self.inputs(X)
        n_sets = len(betas) if is_local_f1(self.ensemble.order) else 1
        votes = np.zeros((n_sets, X.shape[0], self.ensemble.n_labels_))
        for member in range(self.n_members):
            votes += self.vote(inputs, member, self.orders(inputs, member, betas), soft=soft)
        return votes / self.n_members

    def vote(self, inputs, member, orders, *, soft=False):
        """A member's vote in each of ``orders``: its 0/1 labels, or (``soft``) its
        probabilities, the logistic of :meth:`member_scores`."""
        if soft:
            return expit(self.member_scores(inputs, member, orders))
        return self.labels(inputs, member, orders)

    def scores(self, X, beta):
        """Soft label scores, (n, L), X validated: the members' mean path log-odds (Naive
        Bayes members, +-inf bounded; kNN members: of their neighbour votes)."""
        inputs = self.inputs(X)
        total = np.zeros((X.shape[0], self.ensemble.n_labels_))
        for member in range(self.n_members):
            orders = self.orders(inputs, member, [beta])
            total += self.member_scores(inputs, member, orders)[0]
        return total / self.n_members

    def member_scores(self, inputs, member, orders):
        """A member's label scores in each of ``orders``, (len(orders), n, L)."""
        raise NotImplementedError

    def member_outputs(self, inputs, member, orders):
        """A member's (:meth:`member_scores`, :meth:`labels`) in each of ``orders``."""
        return self.member_scores(inputs, member, orders), self.labels(inputs, member, orders)

    def out_of_bag(self, X, in_bag, beta, *, soft=False):
        """The members' scores and vote of the rows each did not learn from
        (:class:`~._out_of_bag.OutOfBag`); ``in_bag``: (n_samples, n_members), whether
        member k learnt from row i (or kept it as its validation row); X validated."""
        inputs = self.inputs(X)
        held_out = OutOfBag(X.shape[0], self.ensemble.n_labels_, soft=soft)
        for member in range(in_bag.shape[1]):
            scores, labels = self.member_outputs(
                inputs, member, self.orders(inputs, member, [beta])
            )
            held_out.add(scores[0], labels[0], in_bag[:, member])
        return held_out

    def scores_in_orders(self, X, orders):
        """The members' mean label scores in each fixed order, (len(orders), n, L)."""
        inputs = self.inputs(X)
        orders = np.asarray(orders)
        total = np.zeros((len(orders), X.shape[0], self.ensemble.n_labels_))
        for member in range(self.n_members):
            total += self.member_scores(inputs, member, orders)
        return total / self.n_members

    def labels_in_orders(self, X, orders, member=None, *, soft=False):
        """0/1 labels of one member (or the members' hard or ``soft`` vote) in each order."""
        inputs = self.inputs(X)
        orders = np.asarray(orders)
        if member is not None:
            return self.labels(inputs, member, orders).astype(int)
        votes = np.zeros((len(orders), X.shape[0], self.ensemble.n_labels_))
        for k in range(self.n_members):
            votes += self.vote(inputs, k, orders, soft=soft)
        return (votes / self.n_members > 0.5).astype(int)


class NBMembers(_Members):
    """Naive Bayes members: the statistics of X and Y grouped by ``[Y * keep, (1 - Y) * keep]``.

    Fitted attributes of the ensemble: ``events_``, ``member_features_``,
    ``member_labels_`` and (local-F1 order) ``scales_``, each member's feature scale.
    """

    def __init__(self, ensemble):
        super().__init__(ensemble)
        # member -> its feature parameters (positive, negative), until it is added
        self._estimates = {}
        # member -> the same, silenced by its mask: kept while the accessor lives (a fit,
        # its beta search's folds, a prediction), about the size of the members' statistics
        self._parameters = {}

    def check(self):
        pass

    def start(self, X, Y, weight, sample_weight, rng, event_model):
        """Prepare the fit; returns the features and row weights feature selection sees."""
        ensemble = self.ensemble
        events = event_model(X)
        self.X, self.Y, self.weight = X, Y, weight
        self.prepared = ensemble._bound_events(events).prepare(X, caller=type(ensemble).__name__)
        ensemble.events_ = events
        ensemble.member_features_, ensemble.member_labels_, ensemble.scales_ = [], [], []
        return self.prepared, weight

    def add(self, train, keep, mask):
        """A member on the ``train`` rows, with each label's kept rows and its mask."""
        ensemble = self.ensemble
        labels, weight = self.Y[train], self.weight[train]
        grouping = np.hstack([labels * keep, (1 - labels) * keep])
        second_moments = ensemble.events_.second_moments
        ensemble.member_features_.append(
            GroupStats.from_data(
                self.prepared[train], grouping, weight, second_moments=second_moments
            )
        )
        ensemble.member_labels_.append(
            GroupStats.from_data(labels, grouping, weight, second_moments=False)
        )
        member = len(ensemble.member_features_) - 1
        if mask is not None:
            self._keep_evidence(member, train, mask)
        self._estimates.pop(member, None)  # needed again only if the check widened the mask

    def _keep_evidence(self, member, train, mask):
        """Give every label whose selected features carry no evidence all the features.

        A multinomial model renormalises over the selected words: a label left with one
        word has the same log-odds for every row, and is never predicted if it is rare
        (medical's DCE with multinomial events predicted no label at all). A label whose
        selection is not empty but whose log-odds over the member's training rows are
        constant keeps every feature (``mask`` is changed in place). A label with no
        selected feature keeps its prior alone, as Weka's Naive Bayes on no attribute.
        """
        odds = self.log_odds(member, self.prepared[train])
        with np.errstate(invalid="ignore"):  # a label never seen: -inf everywhere, left alone
            spread = np.ptp(odds, axis=0)
            flat = spread <= 1e-12 * np.maximum(np.abs(odds).max(axis=0), 1.0)
        flat &= mask.any(axis=1)
        if flat.any():
            mask[flat] = True
            del self._parameters[member]  # silenced by the mask of before

    def validation(self, train, validation):
        """The newest member's scale; its validation rows scaled, and their BR labels."""
        ensemble = self.ensemble
        member = len(ensemble.member_features_) - 1
        scale = feature_scale(self.X[train]) if ensemble.scale else None
        validation_X = self.X[validation]
        base = self.log_odds(member, self.prepare(validation_X))
        ensemble.scales_.append(scale)
        scaled = validation_X if scale is None else divide_columns(validation_X, scale)
        return scaled, (base > 0).astype(np.int8)

    def fold_settings(self):
        """The inner folds' event model and label terms: those a rule or the search
        (``"tuned"``) chose from all the training rows."""
        ensemble = self.ensemble
        chosen = is_rule(ensemble.events) or is_tuned(ensemble.events)
        events = {"events": ensemble.events_} if chosen else {}
        return {**events, **getattr(ensemble, "label_terms_", {})}

    def model(self, member):
        """Feature parameters, prior log-odds and label-pair terms of one member."""
        ensemble = self.ensemble
        n_labels = ensemble.n_labels_
        positive, negative = slice(0, n_labels), slice(n_labels, 2 * n_labels)
        features, labels = ensemble.member_features_[member], ensemble.member_labels_[member]
        params = self._parameters.get(member)
        if params is None:  # estimated once per member and use (fit, vote, predict)
            params = self._estimates.get(member)
            if params is None:
                holding = features.select_groups(positive)
                params = feature_parameters(
                    ensemble.events_, holding, features.select_groups(negative)
                )
                self._estimates[member] = params
            if ensemble.feature_masks_[member] is not None:
                params = ensemble.events_.silence(*params, ensemble.feature_masks_[member])
            self._parameters[member] = params
        holding, other = features.count[positive], features.count[negative]
        prior = log_prior_odds(holding, holding + other, ensemble.prior_alpha)
        terms = ensemble._label_terms()  # as given, or chosen where "tuned"
        pairs = label_log_odds(
            labels.select_groups(positive),
            terms["label_alpha"],
            negative=labels.select_groups(negative),
            prior=terms["label_prior"],
        )
        return params, prior, pairs

    def log_odds(self, member, prepared, model=None):
        """A member's independent log-odds of every label of ``prepared`` rows, (n x L)."""
        params, prior, _ = self.model(member) if model is None else model
        events = self.ensemble._bound_events()
        return feature_log_odds(events, None, prepared, params=params) + prior

    def prepare(self, X):
        """Validated rows prepared by the ensemble's event model (its ``missing`` bound)."""
        ensemble = self.ensemble
        return ensemble._bound_events().prepare(X, caller=type(ensemble).__name__)

    def inputs(self, X):
        return X, self.prepare(X)

    def order_space(self, inputs, member):
        X, scale = inputs[0], self.ensemble.scales_[member]
        return X if scale is None else divide_columns(X, scale)

    def labels(self, inputs, member, orders):
        """Greedy chains: ``orders`` (k, L) fixed orders or (k, n, L) one per row."""
        return self._searched(inputs, member, orders)[0]

    def member_scores(self, inputs, member, orders):
        """The greedy chains' log-odds of every label along their paths (+-inf bounded)."""
        return self.member_outputs(inputs, member, orders)[0]

    def member_outputs(self, inputs, member, orders):
        """The greedy chains' log-odds (finite ones as they are, +-inf bounded: a cut
        fitted to their mean keeps its place) and labels, from one search."""
        labels, log_odds = self._searched(inputs, member, orders)
        return finite_scores(log_odds), labels

    def _searched(self, inputs, member, orders):
        """The labels and conditional log-odds of the member's greedy searches."""
        model = self.model(member)
        base, (weight, absent) = self.log_odds(member, inputs[1], model), model[2]
        if orders.ndim == 3:  # per-row orders of each set: rows whose order stays, copied
            return dynamic_greedy_searches(base, weight, absent, orders)
        found = [greedy_search(base, weight, absent, order) for order in orders]
        return np.stack([f[0] for f in found]), np.stack([f[1] for f in found])


class KNNMembers(_Members):
    """Nearest-neighbour members: each a sample of the ensemble's (scaled) training rows.

    Fitted attributes of the ensemble: ``scale_``, ``train_X_``, ``train_Y_``,
    ``n_neighbors_``, ``member_rows_`` and ``member_keep_`` (each label's kept rows).
    """

    def check(self):
        R = self.ensemble.n_neighbors
        if not (R == "auto" or (np.isscalar(R) and int(R) >= 1)):
            raise ValueError(f'n_neighbors must be "auto" or >= 1; got {R!r}')

    def start(self, X, Y, weight, sample_weight, rng, event_model):
        """Scale, keep the points, choose R; returns what feature selection sees."""
        if sample_weight is not None:
            raise ValueError("nearest-neighbour members (base='knn') take no sample_weight")
        if has_missing(X):
            raise ValueError(
                "nearest-neighbour members (base='knn') take no missing values (NaN): their "
                "votes compare whole rows; impute X first, or use base='nb'"
            )
        ensemble = self.ensemble
        ensemble.scale_ = feature_scale(X) if ensemble.scale else None
        X = self._scaled(X)
        self.X, self.Y = X, Y
        ensemble.train_X_, ensemble.train_Y_ = X, Y.astype(np.int8)
        auto = isinstance(ensemble.n_neighbors, str)
        ensemble.n_neighbors_ = choose_neighbours(X, Y, rng) if auto else int(ensemble.n_neighbors)
        ensemble.member_rows_, ensemble.member_keep_ = [], []
        return X, np.ones(X.shape[0])

    def add(self, train, keep, mask):
        self.ensemble.member_rows_.append(train)
        self.ensemble.member_keep_.append(keep.astype(bool))

    def validation(self, train, validation):
        """The newest member's validation rows and their binary relevance kNN labels."""
        ensemble = self.ensemble
        validation_X = self.X[validation]
        first = np.tile(np.arange(self.Y.shape[1]), (len(validation), 1))
        predicted = knn_chain_labels(
            validation_X,
            self.X[train],
            self.Y[train],
            ensemble.n_neighbors_,
            first,
            keep=ensemble.member_keep_[-1],
            masks=ensemble.feature_masks_[-1],
            extend=False,
        )
        return validation_X, predicted

    def fold_settings(self):
        return {"n_neighbors": self.ensemble.n_neighbors_}

    def _scaled(self, X):
        scale = self.ensemble.scale_
        return X if scale is None else divide_columns(X, scale)

    def inputs(self, X):
        return self._scaled(X)

    def order_space(self, inputs, member):
        return inputs

    def labels(self, inputs, member, orders):
        """kNN chains: ``orders`` (k, L) fixed orders or (k, n, L) one per row."""
        return self._chain(inputs, member, orders)

    def member_scores(self, inputs, member, orders):
        """The log-odds of the kNN chains' neighbour votes (``share_log_odds``)."""
        shares = self._chain(inputs, member, orders, shares=True)[1]
        return share_log_odds(shares, self.ensemble.n_neighbors_)

    def _chain(self, inputs, member, orders, **options):
        ensemble = self.ensemble
        if orders.ndim == 2:
            orders = tiled_orders(orders, inputs.shape[0])
        rows = ensemble.member_rows_[member]
        return knn_chain_labels(
            inputs,
            ensemble.train_X_[rows],
            ensemble.train_Y_[rows],
            ensemble.n_neighbors_,
            orders,
            keep=ensemble.member_keep_[member],
            masks=ensemble.feature_masks_[member],
            **options,
        )
