"""Classifier chains whose Naive Bayes model is trained once for every label order.

Label k's classifier in a chain sees the features and the labels decided before it. With Naive Bayes
those label features are Bernoulli, so all it needs are the pairwise label statistics ``Y.T @ Y``
(as in the dynamic chains of Trajdos and Kurzynski): the chain is trained once, and ``predict(X,
order=...)`` works for any order without refitting. Inference is greedy (the classic chain), beam
search or exact (PCC, Dembczynski et al. 2010), or marginal: each label's marginal probability
under the chain's joint, by enumeration or sampling, thresholded at 0.5 (the Hamming-loss
optimal rule of Dembczynski et al. 2010). The generic path trains a chain of clones of any
scikit-learn classifier in a fixed order.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.special import expit
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base.validation import COUNT, check_label_matrix
from ..events.auto import TUNED
from ..limits import Cost
from ._base import NB_CONSTRAINTS, AdditiveLabelNB
from ._generic import chain_predict, check_nb_path, fit_chain
from ._inference import (
    MAX_EXACT_MARGINAL_LABELS,
    chain_layout,
    chain_marginals,
    chain_search,
    conditional_log_odds,
    joint_log_proba,
)
from ._label_model import LABEL_PRIORS
from ._labels import binary_classes, extended_order, resolve_order
from ._orders import resolve_orders

__all__ = ["ClassifierChain"]

INFERENCE = ("greedy", "beam", "exact", "marginal")


class ClassifierChain(AdditiveLabelNB):
    """Classifier chain: order-free Naive Bayes, or any base classifier in a fixed order.

    Parameters
    ----------
    events : str or event model, default="tuned"
        Event model of the features (:mod:`mlnb.events`); ``"tuned"``: chosen with its
        smoothing by cross-validation on the training rows (see ``chosen_``).
    rule : "tuned", "predict", a rule name or a rule object, default="tuned"
        How label scores become label sets (NB path): ``"predict"``, the model's own;
        a rule of :data:`mlnb.decision_rules.RULES` fitted to out-of-fold scores;
        ``"tuned"``: the best of them by out-of-fold micro F1, kept only if it beats the
        own ``predict`` by more than one standard error over the folds (see
        :class:`~mlnb.BinaryRelevance`).
    order : None, "random" or array-like of shape (n_labels,), default=None
        Chain order fixed at fit time (None: 0, 1, ..., L-1). The NB path can predict in any
        other order with ``predict(X, order=...)``.
    inference : {"greedy", "beam", "exact", "marginal"}, default="greedy"
        Greedy is the classic chain; beam and exact maximise the chain's joint probability
        (exact enumerates all 2**L vectors and needs L <= 20); marginal predicts each label
        whose marginal probability under the joint exceeds 0.5 and scores labels by it
        (``decision_function``, ``predict_proba``): exact for L <= 10, else estimated from
        ``n_draws`` samples of the chain per row.
    beam_width : int, default=5
    n_draws : int, default=100
        Samples per row of ``inference="marginal"`` with more than 10 labels.
    prior_alpha : float, default=0.0
        Pseudo-count of each label's prior (0: maximum likelihood, as scikit-learn).
    label_alpha : float or "tuned", default="tuned"
        Pseudo-counts of the smoothing of the label features ``P(y_j | y_k)``.
    label_prior : {"uniform", "marginal", "tuned"}, default="tuned"
        Prior of the label features' smoothing: ``"uniform"`` is Laplace's (1/2);
        ``"marginal"`` smooths ``P(y_j | y_k)`` towards label j's frequency (the m-estimate,
        m = 2 * label_alpha), so that a large ``label_alpha`` weakens the chain's label
        terms towards binary relevance. ``"tuned"`` (either): chosen out of fold when the
        event model or rule is (``label_terms_``): they are chosen with the label terms
        nearly silent (binary relevance's scores), then the smoothings of ``LABEL_TERMS``
        are tried and one kept if it wins by one standard error, so that the chain is at
        least as good as binary relevance out of fold. A chain that chooses nothing (its
        event model and ``rule="predict"`` given) has Laplace's 1.0 with the uniform
        prior: the classic chain, the default of earlier versions.
    base_estimator : classifier or None, default=None
        If given, a chain of its clones (generic path, greedy inference only).
    random_state : int, RandomState or None, default=None
        Used by ``order="random"``; an int also seeds the draws of ``inference="marginal"``
        (otherwise seed 0), so that predicting the same rows twice gives the same labels.
    missing : {"error", "ignore"}, default="error"
        ``"ignore"``: NaN marks a missing entry, which adds nothing to the statistics or to
        a row's score (Weka's semantics, see :mod:`mlnb.missing`); ``"error"``: NaN raises.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import ClassifierChain
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 4, 1], [0, 3, 2], [1, 1, 1]])
    >>> Y = np.array([[1, 0], [1, 0], [0, 1], [1, 1], [1, 1]])
    >>> chain = ClassifierChain(events="multinomial", rule="predict").fit(X, Y)
    >>> chain.predict([[0, 5, 1]], order=[1, 0])
    array([[0, 1]])
    """

    _uses_label_pairs = True
    #: Unknown cells of Y: each label learnt from the rows where it is known, the other
    #: labels entering as features where they are known (missing elsewhere).
    _learns_unknown_cells = True
    #: What ``_install`` derives (the fast path of ``partial_fit`` drops it), with the
    #: fitted order's layout.
    _DERIVED = (*AdditiveLabelNB._DERIVED, "_layout")
    _parameter_constraints: ClassVar[dict] = {
        **NB_CONSTRAINTS,
        "order": ["array-like", StrOptions({"random"}), None],
        "inference": [str],  # checked by fit, which names the choices
        "beam_width": [COUNT],
        "n_draws": [COUNT],
        "label_alpha": [Interval(Real, 0, None, closed="left"), StrOptions({TUNED})],
        "label_prior": [StrOptions({*LABEL_PRIORS, TUNED})],
    }

    @classmethod
    def _unit_test_params(cls):
        return [{}, {"inference": "marginal"}]

    def __init__(
        self,
        *,
        events="tuned",
        rule="tuned",
        order=None,
        inference="greedy",
        beam_width=5,
        n_draws=100,
        prior_alpha=0.0,
        label_alpha="tuned",
        label_prior="tuned",
        base_estimator=None,
        random_state=None,
        missing="error",
    ):
        self.events = events
        self.rule = rule
        self.order = order
        self.inference = inference
        self.beam_width = beam_width
        self.n_draws = n_draws
        self.prior_alpha = prior_alpha
        self.label_alpha = label_alpha
        self.label_prior = label_prior
        self.base_estimator = base_estimator
        self.random_state = random_state
        self.missing = missing

    def _planned_cost(self, n_samples, n_features, n_labels):
        """The beam's entries (``inference="beam"``) or the draws (``"marginal"``) of the
        rows: a step per row, label and entry or draw."""
        if self.inference == "beam":
            name, width = "beam_width", int(self.beam_width)
        elif self.inference == "marginal" and n_labels > MAX_EXACT_MARGINAL_LABELS:
            name, width = "n_draws", int(self.n_draws)
        else:
            return None
        steps = n_samples * n_labels * width
        # the beams of every row; the draws of one row at least (a few copies of them)
        values = steps if name == "beam_width" else 4 * width * n_labels
        return Cost(values, steps, {name: width})

    # ---- fitting ------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit the chain; the NB path fits statistics that serve every order."""
        self._validate_params()
        if self.inference not in INFERENCE:
            raise ValueError(f"inference must be one of {INFERENCE}; got {self.inference!r}")
        if self.base_estimator is None:
            self.__dict__.pop("order_", None)
            return super().fit(X, y, sample_weight)
        if self.inference != "greedy":
            raise ValueError("a chain of generic base estimators supports inference='greedy' only")
        X = validate_data(self, X, accept_sparse="csr", reset=True)
        Y = check_label_matrix(y, X.shape[0])
        self.n_labels_ = Y.shape[1]
        self.classes_ = binary_classes(self.n_labels_)
        self.order_ = resolve_order(self.order, self.n_labels_, self.random_state)
        self.estimators_ = fit_chain(self.base_estimator, X, Y, self.order_, sample_weight)
        return self

    def partial_fit(self, X, y, sample_weight=None):
        """Add a batch of rows (NB path only); the order stays as fitted.

        New labels (columns after the known ones, 0 in every earlier row) join the end of
        the order, in column order.
        """
        check_nb_path(self, "partial_fit")
        return super().partial_fit(X, y, sample_weight)

    def _install(self, features, labels, events=None, **unknown):
        super()._install(features, labels, events, **unknown)
        self._layout = None  # the fitted order's layout, made at the first prediction
        if not hasattr(self, "order_"):  # drawn once, when the first statistics arrive
            self.order_ = resolve_order(self.order, self.n_labels_, self.random_state)
        elif len(self.order_) < self.n_labels_:  # labels first seen in a later batch
            self.order_ = extended_order(self.order_, self.n_labels_)

    # ---- prediction ---------------------------------------------------------------------
    def _search(self, X, order, *, conditional=True):
        if self.base_estimator is not None:
            if order is not None:
                raise ValueError("a generic chain predicts in its fitted order only")
            return self._generic_search(X)
        base = self._independent_log_odds(X)
        weight, absent = self._label_pairs
        layout = None
        if order is None:
            order = self.order_
            if self.inference == "greedy":
                # the fitted order's layout is kept until the statistics change (_install)
                if self._layout is None:
                    self._layout = chain_layout(weight, absent, order)
                layout = self._layout
        else:
            order = resolve_order(order, self.n_labels_)
        return self._search_terms(base, order, layout=layout, conditional=conditional)

    def _search_terms(self, base, order, *, layout=None, conditional=True):
        """The chain's search in ``order`` from the features' log-odds ``base``."""
        weight, absent = self._label_pairs
        if self.inference == "marginal":
            seed = self.random_state if isinstance(self.random_state, Integral) else 0
            marginal = chain_marginals(
                base, weight, absent, order, n_draws=self.n_draws, random_state=seed
            )
            return (marginal > 0).astype(int), marginal
        return chain_search(
            base,
            weight,
            absent,
            order,
            self.inference,
            beam_width=self.beam_width,
            layout=layout,
            conditional=conditional,
        )

    def predict(self, X, order=None):
        """0/1 labels, shape (n_samples, n_labels); ``order`` overrides the fitted order (and
        then the chain's own inference decides, not the fitted rule)."""
        decided = self._decided(X) if order is None and self.base_estimator is None else None
        if decided is not None:
            return decided
        return self._search(X, order, conditional=False)[0]

    def _scores_and_own_labels(self, X):
        """``decision_function`` and the chain's own labels, from one search (NB path)."""
        labels, scores = self._search(X, None)
        return scores, labels

    def decision_function(self, X, order=None):
        """Finite label scores for ranking and thresholding (NB path).

        ``log P(y_k = 1 | x, labels decided before k)`` minus that of 0, along the
        predicted label vector; with ``inference="marginal"``, the marginal
        ``log P(y_k = 1 | x) - log P(y_k = 0 | x)`` under the chain's joint.
        """
        check_nb_path(self, "decision_function")
        return self._search(X, order)[1]

    def predict_proba(self, X, order=None):
        """``P(y_k = 1 | x, labels decided before k)`` along the predicted label vector;
        with ``inference="marginal"``, the marginal ``P(y_k = 1 | x)``."""
        return expit(self._search(X, order)[1])

    def predict_in_orders(self, X, orders):
        """0/1 labels of the chain in each of several orders, without refitting (NB path).

        The features are scored once for all the orders; each order then costs one
        search (``inference``).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        orders : sequence of array-like of shape (n_labels,)
            Label permutations.

        Returns
        -------
        ndarray of shape (len(orders), n_samples, n_labels)

        Examples
        --------
        The order decides here whether label 0 follows label 1:

        >>> import numpy as np
        >>> from mlnb import ClassifierChain
        >>> X, Y = np.array([[2, 0], [0, 3], [1, 1], [3, 1]]), np.eye(2, dtype=int)[[0, 1, 0, 0]]
        >>> Y[2, 1] = 1
        >>> chain = ClassifierChain(events="multinomial", rule="predict").fit(X, Y)
        >>> chain.predict_in_orders([[1, 2]], [[0, 1], [1, 0]])
        array([[[1, 1]],
        <BLANKLINE>
               [[0, 1]]])
        """
        check_nb_path(self, "predict_in_orders")
        base = self._independent_log_odds(X)
        orders = resolve_orders(orders, self.n_labels_)
        return np.stack([self._search_terms(base, o, conditional=False)[0] for o in orders])

    def decision_function_in_orders(self, X, orders):
        """:meth:`decision_function` in each of several orders, (len(orders), n, L)."""
        check_nb_path(self, "decision_function_in_orders")
        base = self._independent_log_odds(X)
        orders = resolve_orders(orders, self.n_labels_)
        return np.stack([self._search_terms(base, o)[1] for o in orders])

    def predict_joint_log_proba(self, X, order=None):
        """Log of the chain's joint probability of the predicted label vector (NB path)."""
        check_nb_path(self, "the joint probability")
        if self.inference != "marginal":
            return joint_log_proba(*self._search(X, order))
        # the marginal search scores labels by their marginals: the joint needs the
        # conditional log-odds along the predicted vector, from the same base
        order = self.order_ if order is None else resolve_order(order, self.n_labels_)
        base = self._independent_log_odds(X)
        labels = self._search_terms(base, order)[0]
        weight, absent = self._label_pairs
        return joint_log_proba(labels, conditional_log_odds(base, weight, absent, order, labels))

    def _generic_search(self, X):
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        return chain_predict(self.estimators_, self.order_, X, self.n_labels_)
