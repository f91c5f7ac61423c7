"""Shared machinery of the multi-label estimators.

- :class:`MultiLabelEstimator`: what every multi-label estimator shares (scikit-learn tags,
  input validation, the event model resolved from ``events``);
- :class:`MultiLabelNB`: Naive Bayes on per-label statistics (:mod:`._label_model`):
  ``fit`` / ``partial_fit`` / ``merge`` and the per-label log-odds that every inference
  strategy starts from; a subclass says whether it needs the label-pair statistics and
  how it predicts;
- :class:`AdditiveLabelNB`: the estimators whose fitted state *is* those statistics, so
  that a model follows from statistics alone: the public statistics protocol
  (``batch_statistics``, ``from_statistics``, ``statistics_key``) that fold-subtraction
  tuning uses.
"""

from __future__ import annotations

import warnings
from numbers import Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
)

from .._online_rows import disown, owned
from .._registered import Registered
from ..base.additive import remaining_statistics
from ..base.instances import UnitTestParams
from ..base.state import atomic, check_mergeable, same_params
from ..base.validation import COUNT, MISSING_OPTIONS, SHARE, check_label_matrix, validate_rows
from ..decision_rules import RULES, FittedRule, SortedScores, Threshold, fit_rules, rule_name
from ..events import EventModel, bind_missing
from ..events.auto import TUNED, Auto, estimator_events, is_tuned
from ..labels import label_matrix, split_unknown
from ..metrics import set_scorer, subset_accuracy
from ..stats import NamedStats
from . import _online_rows
from ._label_forms import fitted_names, wrap_entry_points
from ._label_model import (
    LABEL_PRIORS,
    feature_log_odds,
    feature_parameters,
    label_log_odds,
    label_pairs_with_unknown,
    label_statistics,
    log_prior_odds,
    unknown_parts,
    unknown_statistics,
)
from ._labels import binary_classes
from ._resolution import (
    CLASSIC_LABELS,
    OWN_RULE,
    finite_scores,
    fitted_to_known,
    resolve_settings,
    truth_and_unknown,
    weak_label_terms,
)
from ._top_k import top_k

__all__ = [
    "AdditiveLabelNB",
    "CardinalityWarning",
    "MultiLabelClassifierMixin",
    "MultiLabelEstimator",
    "MultiLabelNB",
    "at_defaults",
    "count_new_labels",
    "drop_rule",
    "warn_cardinality",
]


class MultiLabelClassifierMixin(Registered, ClassifierMixin):
    """scikit-learn tags of a multi-label classifier: 0/1 indicator targets, sparse X."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        tags.classifier_tags.multi_label = True
        tags.input_tags.allow_nan = getattr(self, "missing", None) == "ignore"
        return tags


#: Declarative checks of the parameters the Naive Bayes multi-label estimators share
#: (scikit-learn's ``_parameter_constraints``; a subclass adds its own).
NB_CONSTRAINTS = {
    "events": [str, EventModel, Auto],
    "prior_alpha": [Interval(Real, 0, None, closed="left")],
    "label_alpha": [Interval(Real, 0, None, closed="left")],
    "label_prior": [StrOptions(set(LABEL_PRIORS))],
    "base_estimator": [HasMethods(["fit", "predict"]), None],
    "random_state": ["random_state"],
    "missing": [StrOptions(set(MISSING_OPTIONS))],
    "rule": [StrOptions({TUNED, OWN_RULE, *RULES}), HasMethods(["fit", "predict"])],
}

#: How an ensemble combines its members: "hard", the mean of their 0/1 labels (Trajdos and
#: Kurzynski, eq. 22); "soft", the mean of their probabilities.
VOTING = StrOptions({"hard", "soft"})
#: Declarative checks of the dynamic chains' preprocessing (Trajdos and Kurzynski, 2.5).
PREPROCESSING_CONSTRAINTS = {
    "base": [StrOptions({"nb", "knn"})],
    "max_imbalance": [Interval(Real, 1, None, closed="left"), None],
    "feature_selection": [str, None],  # fit checks the name and lists the choices
    "max_features": [COUNT],
    "validation_fraction": [SHARE],
}


class MultiLabelEstimator(UnitTestParams, MultiLabelClassifierMixin, BaseEstimator):
    """Base of every multi-label estimator: tags, validation, the event model, label forms.

    ``Y`` may be given in every form of :mod:`mlnb.labels` (label lists, a DataFrame, a 0/1
    matrix): the ``fit``, ``partial_fit`` and ``retune`` a subclass defines are wrapped
    (:mod:`._label_forms`) to turn it into a 0/1 matrix, check the fit's planned cost
    (:meth:`_planned_cost`, :mod:`mlnb.limits`) and record the fitted ``label_names_``
    (``0 .. L-1`` for a plain matrix); its ``merge`` refuses a model of other labels.
    Predictions are 0/1 matrices (``predict(X, output="sparse")`` or ``"bool"``: a CSR or
    bool matrix, made a chunk of rows at a time); their names are
    ``mlnb.labels.to_label_lists(model.predict(X), model.label_names_)``.
    """

    #: Declarative checks of the parameters (scikit-learn's; ``fit`` calls
    #: ``_validate_params``): every subclass declares all of its own.
    _parameter_constraints: ClassVar[dict] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        wrap_entry_points(cls)

    def _planned_cost(self, n_samples, n_features, n_labels):
        """What a fit on data of this shape would hold and do (:class:`mlnb.limits.Cost`),
        for the parameters without an upper bound; None: nothing to bound."""
        return None

    def score(self, X, y, sample_weight=None):
        """Subset accuracy (every label of a row right) on X and ``y`` in any label form.

        Unknown cells of ``y`` (NaN or masked) are skipped: a row is right when its known
        cells are (as :func:`mlnb.metrics.subset_accuracy`).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : label lists, DataFrame or 0/1 matrix of shape (n_samples, n_labels)
            Coded on the fitted ``label_names_``.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        float
        """
        Y, _ = label_matrix(y, fitted_names(self))
        if sp.issparse(Y):
            Y = Y.toarray()
        if not isinstance(Y, np.ma.MaskedArray):
            Y = np.asarray(Y)
        if (Y.dtype.kind == "f" and np.isnan(Y).any()) or np.ma.is_masked(Y):
            return subset_accuracy(Y, self.predict(X), sample_weight=sample_weight)
        return super().score(X, Y, sample_weight=sample_weight)

    def predict_top_k(self, X, k=5, *, mode="scores", batch_size=None):
        """Each row's ``k`` best labels by :meth:`decision_function`, as a sparse matrix.

        For large label spaces, where the dense n x L scores would not fit in memory: the
        rows are scored ``batch_size`` at a time and only each row's k best scores kept,
        so the work memory does not grow with the number of rows. Ties at the cut go to
        the lower label index, the convention of :func:`mlnb.metrics.precision_at_k` and
        :func:`~mlnb.metrics.ndcg_at_k`, which take the result as their ``scores``.

        ``predict`` gives the model's decided label sets (dense, or with
        ``output="sparse"`` / ``"bool"`` a CSR or bool matrix made in chunks). As
        scikit-learn's ``kneighbors_graph(mode=...)``, ``mode`` chooses what the sparse
        result stores: the scores, or 1 for each of the k labels (a sparse label matrix
        of exactly k labels per row).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        k : int, default=5
            Labels per row, >= 1; every label when ``k`` is at least L.
        mode : {"scores", "labels"}, default="scores"
            ``"scores"``: the decision_function scores of the k labels (float64, ``±inf``
            bounded at ``±1e300``); ``"labels"``: 1 (int64) at each of them.
        batch_size : int or None, default=None
            Rows scored at a time; None: chunks of about 8 MB of dense scores.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, n_labels)
            ``min(k, L)`` stored entries in every row, a score of 0 included (an explicit
            zero: read ``.data`` and ``.indices``; ``eliminate_zeros`` would drop it);
            sorted indices. The scores are ``decision_function``'s on each chunk: those
            of all rows at once to rounding (a matrix product may sum in another order
            for another number of rows); a chain's sampled marginals are the chunk's.

        Examples
        --------
        >>> import numpy as np
        >>> from mlnb import BinaryRelevance
        >>> from mlnb.metrics import precision_at_k
        >>> X = np.array([[3, 0, 1], [0, 2, 1], [1, 1, 2], [2, 1, 0]])
        >>> Y = np.array([[1, 0, 0], [0, 1, 1], [1, 1, 0], [1, 0, 0]])
        >>> model = BinaryRelevance(events="multinomial", rule="predict").fit(X, Y)
        >>> top = model.predict_top_k(X, k=2)
        >>> top.shape, top.nnz
        ((4, 3), 8)
        >>> model.predict_top_k(X, k=2, mode="labels").toarray()
        array([[1, 1, 0],
               [0, 1, 1],
               [1, 1, 0],
               [1, 1, 0]])
        >>> precision_at_k(Y, top, k=2) == precision_at_k(Y, model.decision_function(X), k=2)
        True
        """
        check_is_fitted(self)
        return top_k(
            self.decision_function,
            X,
            k,
            n_labels=self.n_labels_,
            mode=mode,
            batch_size=batch_size,
        )

    def event_model(self, X=None):
        """The event model that ``events`` names (a new object; no fitting needed).

        A rule (``"auto"``, ``"weka"``, an :class:`mlnb.events.Auto`) is resolved from the
        training rows ``X`` (with the column types of a training DataFrame); without X,
        the fitted model's ``events_`` (its first fit chose it).
        """
        return estimator_events(self, self.events, X)

    #: How NaN in X is taken (see :mod:`mlnb.missing`); estimators built on event models
    #: take it as the parameter ``missing``, the others refuse NaN.
    missing = None

    def _validate_X(self, X, *, reset):
        return validate_rows(self, X, reset=reset, missing=self.missing)

    def _bound_events(self, events=None):
        """The model that prepares and scores rows: ``events`` (default: the fitted
        ``events_``) with the ``missing`` option bound (:func:`mlnb.events.bind_missing`)."""
        return bind_missing(self.events_ if events is None else events, self.missing)

    def __repr__(self, N_CHAR_MAX=700):
        text = super().__repr__(N_CHAR_MAX)
        chosen = getattr(self, "chosen_", None)
        if chosen:
            terms = chosen.get("label_terms") or {}  # a chain's, an ensemble of chains'
            said = [f"events={chosen['events']!r}", f"rule={chosen['rule']!r}"]
            said += [f"{name}={value!r}" for name, value in terms.items()]
            return f"{text} [chose {', '.join(said)}]"
        if is_tuned(getattr(self, "events", None)) and hasattr(self, "events_"):
            return f"{text} [chose events={self.events_!r}]"
        return text

    #: Why ``forget`` is not exact for the estimator (None: it is, see
    #: :meth:`AdditiveLabelNB.forget`).
    _forget_refused = (
        "its model is not a function of additive statistics of the rows alone (members "
        "fitted on samples of the rows, or choices made from them), so a refit without the "
        "rows is the only exact way"
    )

    def forget(self, X, y, sample_weight=None):
        """Take learnt rows out of the model exactly; refused here (TypeError): see
        :meth:`AdditiveLabelNB.forget` for the estimators that can."""
        raise TypeError(f"{type(self).__name__} cannot forget rows exactly: {self._forget_refused}")

    def _refuse_sample_weight(self, sample_weight, reason):
        """A TypeError with ``reason`` unless ``sample_weight`` is None."""
        if sample_weight is not None:
            raise TypeError(f"{type(self).__name__} takes no sample_weight: {reason}")


def count_new_labels(estimator, n_labels) -> int:
    """How many label columns a batch of ``n_labels`` brings after the fitted ones.

    A fitted online estimator takes new labels appended after the known columns, as 0 in
    every earlier row; fewer columns than fitted is a ValueError.
    """
    if n_labels < estimator.n_labels_:
        raise ValueError(
            f"Y has {n_labels} labels; this model was fitted with {estimator.n_labels_} "
            "(new labels may be appended after the known columns, none removed)"
        )
    return n_labels - estimator.n_labels_


class MultiLabelNB(MultiLabelEstimator):
    """Base class: statistics of X and Y grouped by each label, learnt online and mergeable.

    Subclasses set ``_uses_label_pairs`` and implement ``predict`` / ``predict_proba``.
    Parameters every subclass has: ``events`` (event-model name or object),
    ``prior_alpha`` (pseudo-count of each label's prior) and, for chains,
    ``label_alpha`` and ``label_prior`` (smoothing of the label features).
    """

    _uses_label_pairs = False
    _parameter_constraints = NB_CONSTRAINTS
    #: Whether ``Y`` may have unknown cells (:func:`mlnb.labels.split_unknown`): each
    #: label's statistics then hold only the rows where it is known (binary relevance,
    #: whose labels are separate problems); the others refuse them.
    _learns_unknown_cells = False

    #: The statistics a row adds to, and what ``_install`` derives from them, which the
    #: fast path of ``partial_fit`` on a few rows drops (:mod:`._online_rows`) and the
    #: first read derives again (:meth:`__getattr__`).
    _ONLINE_STATISTICS = (("feature_stats_", "X", "labels"), ("label_stats_", "Y", "labels"))
    _DERIVED = ("_feature_params", "prior_log_odds_", "_label_pairs")

    # ---- fitting ------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit from scratch on X (n x d) and the label-indicator matrix Y (n x L)."""
        for attribute in (
            "feature_stats_",
            "label_stats_",
            "unknown_stats_",
            "unknown_label_stats_",
            "n_labels_",
            "label_terms_",
        ):
            self.__dict__.pop(attribute, None)
        return self.partial_fit(X, y, sample_weight=sample_weight)

    def partial_fit(self, X, y, sample_weight=None):
        """Add a batch of rows (online learning); a call that raises changes nothing.

        A batch may bring new labels: columns after the known ones, taken as 0 in every
        earlier row (the model equals a fit on the whole stream with those zeros).
        """
        if _online_rows.add_rows(self, X, y, sample_weight):
            return self  # a few rows of a fitted model; changes nothing if it raises
        return self._partial_fit(X, y, sample_weight)

    @atomic
    def _partial_fit(self, X, Y, sample_weight):
        self._validate_params()
        first_call = not hasattr(self, "feature_stats_")
        X = self._validate_X(X, reset=first_call)
        Y = self._check_labels(Y, X.shape[0])
        new_labels = 0 if first_call else count_new_labels(self, Y.shape[1])
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        events = self.event_model(X if first_call else None)
        stats = self._named_statistics(events, X, Y, weight)
        if not first_call:
            stats = self._statistics_with_new_labels(new_labels).merge(stats)
        self._install(stats["features"], stats["labels"], events, **unknown_parts(stats))
        _online_rows.own(self)  # new statistics, made under checked hyper-parameters
        return self

    def _unknown_parts(self):
        """The fitted statistics of each label's rows where it is unknown, as keyword
        arguments of :meth:`_install`: ``unknown`` (X's, ``unknown_stats_``) and
        ``unknown_labels`` (Y's, label pairs only, ``unknown_label_stats_``); None if every
        cell was known (and in models fitted or saved before they were kept)."""
        return {
            "unknown": vars(self).get("unknown_stats_"),
            "unknown_labels": vars(self).get("unknown_label_stats_"),
        }

    def _check_labels(self, Y, n_samples):
        """Y as the statistics take it: CSR float64, unknown cells NaN where learnt."""
        Y = check_label_matrix(Y, n_samples, sparse=True, unknown=self._learns_unknown_cells)
        if Y.nnz == Y.shape[0] * Y.shape[1] and Y.size and np.isnan(Y.data).all():
            raise ValueError("Y has no known cell (every cell is NaN): nothing to learn from")
        return Y

    def _statistics_with_new_labels(self, n_new):
        """Copies of the fitted statistics with ``n_new`` labels appended, 0 in every row
        so far: empty groups, and (label pairs) zero features."""
        features, labels = self.feature_stats_.add_groups(n_new), self.label_stats_
        if labels is not None:
            labels = labels.add_groups(n_new).add_features(n_new)
        unknown, unknown_labels = self._unknown_parts().values()
        if unknown is not None:
            unknown = unknown.add_groups(n_new)
        if unknown_labels is not None:
            unknown_labels = unknown_labels.add_groups(n_new).add_features(n_new)
        return NamedStats(
            features=features, labels=labels, unknown=unknown, unknown_labels=unknown_labels
        )

    def _statistics(self, events, X, Y, weight):
        """(feature statistics, label statistics or None) of validated rows."""
        prepared = self._bound_events(events).prepare(X, caller=type(self).__name__)
        return label_statistics(prepared, Y, weight, events, with_labels=self._uses_label_pairs)

    def _install(self, features, labels, events=None, *, unknown=None, unknown_labels=None):
        """Install statistics and recompute what is derived from them. ``unknown`` and
        ``unknown_labels``: the statistics of X and of Y over the rows of each label where
        it is unknown, or None (every cell known); each label's negative rows and prior
        then leave them out."""
        events = self.event_model() if events is None else events
        if unknown is None:
            params = feature_parameters(events, features)
            prior = log_prior_odds(features.count, features.total_count, self.prior_alpha)
        else:  # each label from its known rows (group l of `known`); known nowhere: even odds
            known = unknown.complement()
            params = feature_parameters(events, features, features.complement(unknown), known)
            with np.errstate(invalid="ignore"):
                prior = log_prior_odds(features.count, known.count, self.prior_alpha)
            prior[known.count <= 0] = 0.0
        pairs = None
        if labels is not None:
            terms = self._label_terms()
            negative = None if unknown_labels is None else labels.complement(unknown_labels)
            pairs = label_log_odds(
                labels, terms["label_alpha"], negative=negative, prior=terms["label_prior"]
            )
        self.events_ = events
        self.feature_stats_ = features
        self.label_stats_ = labels
        for name, part in (("unknown_stats_", unknown), ("unknown_label_stats_", unknown_labels)):
            if part is None:  # (not kept: a model of known cells saves as before)
                self.__dict__.pop(name, None)
            else:
                setattr(self, name, part)
        self.n_labels_ = features.n_groups
        self.classes_ = binary_classes(self.n_labels_)
        self._feature_params = params
        self.prior_log_odds_ = prior
        self._label_pairs = pairs

    def _validate_params(self):
        # The parameters of a model whose statistics are its own and unchanged since are
        # the objects its last full fit validated (mlnb._online_rows): not checked again
        # for every row of a stream (scikit-learn's check reads the signature each time).
        if owned(self) is None:
            super()._validate_params()

    def __getattr__(self, name):
        # Reached only when an attribute is not found: one the fast path dropped.
        if name in type(self)._DERIVED and _online_rows.DROPPED in vars(self):
            self._refresh_fitted()
            if name in vars(self):
                return vars(self)[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _refresh_fitted(self):
        """Derive again what the fast path of ``partial_fit`` dropped: after it, the
        attributes hold the whole fitted state (what a model file saves)."""
        if vars(self).pop(_online_rows.DROPPED, False):
            self._install(
                self.feature_stats_, self.label_stats_, self.events_, **self._unknown_parts()
            )

    def __getstate__(self):
        # pickle, copy and deepcopy: the state holds the derived attributes, and the
        # statistics it shares are no longer modified in place by this object.
        self._refresh_fitted()
        disown(self)
        return super().__getstate__()

    def _label_terms(self):
        """``label_prior`` and ``label_alpha`` in force: as given, or where ``"tuned"``
        the chosen ones (``label_terms_``); a chain that chose nothing (its event model
        and rule given, or made from statistics) has Laplace's, the classic chain's."""
        chosen = getattr(self, "label_terms_", None)
        return weak_label_terms(self, CLASSIC_LABELS) if chosen is None else chosen

    def merge(self, other):
        """Add the statistics of an estimator fitted on other rows (in place; returns self)."""
        check_mergeable(self, other, "n_labels_", "n_features_in_")
        check_same_choice(self, other)
        self._refresh_fitted()
        total = self._fitted_statistics().copy().merge(other._fitted_statistics())
        self._install(total["features"], total["labels"], **unknown_parts(total))
        return self

    # ---- prediction ---------------------------------------------------------------------
    def _prepared(self, X, *, validated=False):
        """Rows prepared by the fitted event model (checked and validated first, unless
        ``validated``: inside fit)."""
        if not validated:
            check_is_fitted(self)
            X = self._validate_X(X, reset=False)
        return self._bound_events().prepare(X, caller=type(self).__name__)

    def _independent_log_odds(self, X, *, validated=False):
        """``log P(y_l = 1 | x) - log P(y_l = 0 | x)`` of every label alone, (n x L).

        ``validated``: X has passed this estimator's validation already (inside fit).
        """
        prepared = self._prepared(X, validated=validated)
        odds = feature_log_odds(
            self._bound_events(), self.feature_stats_, prepared, params=self._feature_params
        )
        return odds + self.prior_log_odds_[None, :]

    # ---- explanations -----------------------------------------------------------------------
    def explain(self, X, label, *, feature_names=None):
        """What each feature of each row adds to one label's log-odds.

        ``baseline`` is the label's log-odds of a row of zeros (its prior and what the
        features add at 0); a feature's contribution is the log-odds of the row with only
        that feature at its value, minus the baseline (0 where the value is 0); ``rest``
        is what is left of :meth:`decision_function`: 0 to rounding for
        :class:`~mlnb.BinaryRelevance` with a model whose log-likelihood is a sum over
        features (multinomial, Bernoulli, Gaussian, ...), not 0 for the Bayesian
        multinomial's document-length term or a chain's label terms.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        label : int or label name
            An index ``0 .. L-1`` or a name of ``label_names_``.
        feature_names : sequence of str, default=None
            Default: ``feature_names_in_`` (a model fitted on a DataFrame), else x0, x1, ...

        Returns
        -------
        Explanation
            ``baseline`` (n_samples,), ``contributions`` (n_samples, n_features; CSR for
            sparse X), ``rest`` (n_samples,) and ``log_odds`` (n_samples,), with
            ``baseline + contributions.sum(axis=1) + rest == log_odds``; ``top(row, k)``
            lists a row's largest raising and lowering contributions.

        Examples
        --------
        >>> import numpy as np
        >>> from mlnb import BinaryRelevance
        >>> X = np.array([[3, 0, 1], [0, 2, 1], [1, 1, 2], [2, 1, 0]])
        >>> Y = np.array([[1, 0], [0, 1], [1, 1], [1, 0]])
        >>> model = BinaryRelevance(events="multinomial", rule="predict").fit(X, Y)
        >>> why = model.explain(X, label=0, feature_names=["ball", "vote", "team"])
        >>> bool(np.allclose(why.baseline + why.contributions.sum(axis=1), why.log_odds))
        True
        >>> print(why.top(row=0, k=2))
        label 0
          raising:
            ball  +3.2958
          lowering:
            team  -0.1542
        """
        from ._explanations import explain

        return explain(self, X, label, feature_names=feature_names)

    def top_features(self, label, k=10, *, feature_names=None):
        """The features that raise and lower a label's log-odds most.

        Count and 0/1 event models: a feature's weight is what one occurrence adds to the
        label's log-odds. Real-valued models: what it adds at the mean of the label's rows
        minus what it adds at the mean of the other rows (a separation, never negative for
        the Gaussian), signed as the difference of the means: a raising feature is larger
        in the label's rows, a lowering one smaller.

        Parameters
        ----------
        label : int or label name
            An index ``0 .. L-1`` or a name of ``label_names_``.
        k : int, default=10
            Features listed on each side.
        feature_names : sequence of str, default=None
            Default: ``feature_names_in_`` (a model fitted on a DataFrame), else x0, x1, ...

        Returns
        -------
        TopFeatures
            A named tuple ``(label, raising, lowering)``: lists of (feature name, weight),
            the largest positive weights first, then the most negative first.

        Examples
        --------
        >>> import numpy as np
        >>> from mlnb import BinaryRelevance
        >>> X = np.array([[3, 0, 1], [0, 2, 1], [1, 1, 2], [2, 1, 0]])
        >>> Y = np.array([[1, 0], [0, 1], [1, 1], [1, 0]])
        >>> model = BinaryRelevance(events="multinomial", rule="predict").fit(X, Y)
        >>> top = model.top_features(0, k=2, feature_names=["ball", "vote", "team"])
        >>> top.raising[0][0], [name for name, _ in top.lowering]
        ('ball', ['vote', 'team'])
        >>> print(top)
        label 0
          raising:
            ball  +1.0986
          lowering:
            vote  -0.8473
            team  -0.1542
        """
        from ._explanations import top_features

        return top_features(self, label, k, feature_names=feature_names)


class AdditiveLabelNB(MultiLabelNB):
    """A multi-label Naive Bayes whose fitted state is its statistics (nothing else learnt).

    Such a model follows from the statistics of its training rows alone, and statistics
    add and subtract exactly, so a model of any union or difference of batches needs no
    pass over the data: what fold-subtraction tuning (:mod:`mlnb.selection`) relies on.
    """

    #: The decision rule of a subclass without a ``rule`` parameter: its own ``predict``.
    rule = OWN_RULE

    def statistics_key(self):
        """What the statistics depend on: estimators with equal keys share statistics."""
        return (type(self).__name__, self._uses_label_pairs, self.event_model().statistics_key())

    def batch_statistics(self, X, Y, sample_weight=None):
        """The statistics of a batch of rows; the estimator is not changed.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        Y : array-like or sparse matrix of shape (n_samples, n_labels)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        NamedStats
            Add and subtract them with ``merge`` and ``subtract``. ``features`` (X grouped
            by every label) and ``labels`` (Y grouped by every label, or None for methods
            without label pairs); NaiBX's are its four fitted statistics.
        """
        X = validate_rows(self, X, missing=self.missing)
        Y = self._check_labels(Y, X.shape[0])
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        return self._named_statistics(self.event_model(), X, Y, weight)

    def _named_statistics(self, events, X, Y, weight):
        """:meth:`batch_statistics` of validated rows (``unknown``: the statistics of each
        label's rows where it is unknown, None if every cell is known)."""
        given, cells = Y, None
        if sp.issparse(Y):
            Y, cells = split_unknown(Y)
        prepared = self._bound_events(events).prepare(X, caller=type(self).__name__)
        features, labels = label_statistics(
            prepared, Y, weight, events, with_labels=self._uses_label_pairs
        )
        unknown = unknown_labels = None
        if cells is not None:
            unknown = unknown_statistics(prepared, cells, weight, events)
            if self._uses_label_pairs:
                labels, unknown_labels = label_pairs_with_unknown(given, Y, cells, weight)
        return NamedStats(
            features=features, labels=labels, unknown=unknown, unknown_labels=unknown_labels
        )

    def from_statistics(self, stats, *, n_features=None):
        """Become the estimator fitted to ``stats`` (from :meth:`batch_statistics`, merged
        or subtracted); returns self. Nothing is chosen: ``events`` must name a model (or
        be ``"tuned"`` with ``events_`` set), and the decision rule is a rule object given
        as ``rule`` (a fitted one, or a given cut), else the model's own ``predict``.

        Parameters
        ----------
        stats : NamedStats
        n_features : int, default=None
            Number of input features (default: what the statistics were made from).
        """
        self._validate_params()
        features = stats["features"]
        if n_features is None:
            n_features = self.event_model().input_width(features.n_features)
        self.n_features_in_ = int(n_features)
        self._install(features, stats["labels"], **unknown_parts(stats))
        self._settings_given()
        return self

    def _settings_given(self):
        """The decision state of a model that chose nothing (from statistics, or fitted
        with explicit settings): ``rule_`` as given, ``chosen_`` None."""
        self.rule_ = self._given_rule()
        self.chosen_ = None

    @property
    def chosen_params_(self):
        """``events`` and ``rule`` in force, as parameters that give the same model with no
        search: ``clone(model).set_params(**model.chosen_params_)`` (the fitted rule as a
        :class:`~mlnb.decision_rules.FittedRule`, or ``"predict"``)."""
        rule = getattr(self, "rule_", None)
        chosen = {"events": self.events_, "rule": OWN_RULE if rule is None else FittedRule(rule)}
        return {**chosen, **getattr(self, "label_terms_", {})}

    # ---- unlearning ------------------------------------------------------------------------
    _forget_refused = None

    @atomic
    def forget(self, X, y, sample_weight=None):
        """Take rows the model learnt out of it again (in place; returns self).

        The model becomes the one of the other rows, exactly (the statistics add and
        subtract, up to rounding): ``model.fit(X, Y).forget(X[:10], Y[:10])`` predicts as
        ``model.fit(X[10:], Y[10:])`` with the same settings. What the defaults chose on
        the first fit (``events_``, the rule, a chain's label terms) is kept, as
        ``partial_fit`` keeps it; ``retune`` chooses the rule again. A correction of a
        row's labels is ``forget`` of the row as learnt, then ``partial_fit`` of it as it
        should be. A call that raises changes nothing.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : label matrix of shape (n_samples, n_labels), or any form of :mod:`mlnb.labels`
            The labels the rows were learnt with.
        sample_weight : array-like of shape (n_samples,), default=None
            The weights they were learnt with.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Rows that cannot all have been learnt (a label or a non-negative sum would
            go below zero), or of another width or number of labels.

        Examples
        --------
        >>> import numpy as np
        >>> from mlnb import BinaryRelevance
        >>> X = np.array([[2, 0, 1], [0, 3, 1], [1, 1, 0], [3, 0, 2]])
        >>> Y = np.array([[1, 0], [0, 1], [1, 1], [1, 0]])
        >>> model = BinaryRelevance(events="multinomial", rule="predict").fit(X, Y)
        >>> rest = BinaryRelevance(events="multinomial", rule="predict").fit(X[1:], Y[1:])
        >>> model.forget(X[:1], Y[:1])
        BinaryRelevance(events='multinomial', rule='predict')
        >>> bool(np.allclose(model.decision_function(X), rest.decision_function(X)))
        True
        """
        if getattr(self, "base_estimator", None) is not None:
            raise TypeError(
                f"{type(self).__name__} cannot forget rows exactly: its base_estimator is "
                "refitted, not made of statistics (the Naive Bayes path can: no base_estimator)"
            )
        check_is_fitted(self)
        self._refresh_fitted()
        X = self._validate_X(X, reset=False)
        Y = self._check_labels(y, X.shape[0])
        if Y.shape[1] != self.n_labels_:
            raise ValueError(
                f"{type(self).__name__}.forget: y has {Y.shape[1]} labels; the model "
                f"learnt {self.n_labels_}"
            )
        weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        batch = self._named_statistics(self.events_, X, Y, weight)
        remaining = remaining_statistics(self._fitted_statistics(), batch, type(self).__name__)
        self._replace_statistics(remaining)
        _online_rows.own(self)  # new statistics, made under checked hyper-parameters
        return self

    def _fitted_statistics(self):
        """The statistics of every row learnt, as :meth:`batch_statistics` names them."""
        return NamedStats(
            features=self.feature_stats_,
            labels=self.label_stats_,
            **self._unknown_parts(),
        )

    def _replace_statistics(self, stats):
        """Install ``stats`` (the fitted event model, rule and label terms kept)."""
        self._install(stats["features"], stats["labels"], self.events_, **unknown_parts(stats))

    # ---- settings chosen from the data (the defaults) ------------------------------------
    def partial_fit(self, X, y, sample_weight=None):
        """Add a batch of rows (online learning); a call that raises changes nothing.

        The first batch fixes the settings: at ``events="tuned"`` / ``rule="tuned"`` they
        are chosen on it by cross-validation (as :meth:`fit` does) and kept for every
        later batch, so the model never changes its event model or rule between batches
        (:meth:`retune` chooses the rule again, on rows you give). A batch may bring new
        labels: columns after the known ones, taken as 0 in every earlier row.
        """
        if hasattr(self, "feature_stats_") or not self._searches():
            first_call = not hasattr(self, "feature_stats_")
            n_labels = None if first_call else self.n_labels_
            super().partial_fit(X, y, sample_weight)
            if first_call:
                self._settings_given()
            elif self.n_labels_ != n_labels and getattr(self, "rule_", None) is not None:
                drop_rule(self, n_labels)
            return self
        return self._fit_resolved(X, y, sample_weight)

    def _given_rule(self):
        """The rule that needs no scores: a fitted rule object, or a given cut, fitted now;
        None for a rule by name (the own ``predict``, or one that is learnt at fit)."""
        given = None if isinstance(self.rule, str) else self.rule
        if isinstance(given, FittedRule):
            return given.rule
        if given is not None and not _is_fitted(given):  # a given cut
            empty = np.zeros((1, self.n_labels_))
            given = clone(given).fit(empty, empty)
        return given

    def _rule_to_fit(self):
        """The ``rule`` given to the search: None (``"tuned"``: every rule and the own
        ``predict``), or the given one."""
        return None if is_tuned(self.rule) else self.rule

    def _searches(self):
        """Whether fitting chooses settings out of fold: ``events="tuned"``, or a rule
        that learns (``"tuned"``, a rule name, or an unfitted rule object)."""
        if is_tuned(self.events):
            return True
        if isinstance(self.rule, str):
            return self._rule_to_fit() != OWN_RULE
        fixed = isinstance(self.rule, FittedRule) or _is_fitted(self.rule)
        return not (fixed or _learns_nothing(self.rule))

    @atomic
    def _fit_resolved(self, X, y, sample_weight):
        self._validate_params()
        X = self._validate_X(X, reset=True)
        Y = self._check_labels(y, X.shape[0])
        weight = None
        if sample_weight is not None:
            weight = _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        resolution = resolve_settings(
            self,
            X,
            Y,
            sample_weight=weight,
            events=None if is_tuned(self.events) else self.event_model(X),
            rule=self._rule_to_fit(),
        )
        self.events_ = resolution.events
        self.__dict__.pop("label_terms_", None)
        if resolution.params:  # a chain's label terms, chosen
            self.label_terms_ = dict(resolution.params)
        self.from_statistics(resolution.total, n_features=X.shape[1])
        self.rule_ = resolution.rule
        self.chosen_ = {
            "events": resolution.events,
            "rule": resolution.rule_name,
            **({"label_terms": dict(resolution.params)} if resolution.params else {}),
            "out_of_fold_micro_f1": resolution.results,
            "labels_per_row": (resolution.predicted_cardinality, resolution.true_cardinality),
        }
        warn_cardinality(
            resolution.predicted_cardinality,
            resolution.true_cardinality,
            where=f"{type(self).__name__} out of fold",
            setting=f"events={resolution.events!r}, rule={resolution.rule_name!r}",
            estimator=self,
        )
        return self

    def _scores_and_own_labels(self, X):
        """``(decision_function(X), predict(X))`` of a model at ``rule="predict"``: what the
        defaults' search needs of every fold model. Here two passes; a subclass whose
        inference makes both at once returns them from one."""
        return self.decision_function(X), self.predict(X)

    def _decided(self, X):
        """0/1 labels of the fitted rule on the label scores, or None: the own ``predict``."""
        rule = getattr(self, "rule_", None)
        if rule is None:
            return None
        return rule.predict(finite_scores(self.decision_function(X)))

    def retune(self, X, y):
        """Choose the decision rule again, on rows X, Y the model has not learnt from.

        The event model and the statistics stay; the rule (of :mod:`mlnb.decision_rules`,
        or the model's own ``predict``) with the best micro F1 on these rows replaces the
        fitted one. For a model learnt online, whose rule was chosen on its first batch.

        Returns
        -------
        self
        """
        check_is_fitted(self)
        micro_f1 = set_scorer("f1_micro")
        # unknown cells (NaN): fitted as lowest and false, never judged, as in the search
        truth, hidden = truth_and_unknown(
            check_label_matrix(y, sparse=True, unknown=self._learns_unknown_cells)
        )

        def score(labels):
            return micro_f1(truth, labels if hidden is None else np.where(hidden, 0, labels))

        self.rule_ = None  # the own predict's labels come with the scores
        scores, own = self._scores_and_own_labels(X)
        scores = finite_scores(scores)
        sorted_scores = SortedScores(scores, truth)
        fitted = fit_rules(list(RULES), fitted_to_known(sorted_scores, hidden))
        best = (score(own), None)
        for rule in fitted.values():
            value = score(rule.predict(sorted_scores))
            if value > best[0]:
                best = (value, rule)
        self.rule_ = best[1]
        if getattr(self, "chosen_", None) is not None:
            name = OWN_RULE if best[1] is None else rule_name(best[1])
            self.chosen_ = {**self.chosen_, "rule": name}
        return self


def drop_rule(estimator, n_labels):
    """New labels arrived: a rule fitted to ``n_labels`` labels' scores cannot cut the
    new ones, so the model's own ``predict`` decides from now on (one warning, and
    ``chosen_`` says so; a model with ``retune`` chooses again on rows you give)."""
    again = "retune(X, Y) chooses one again on rows with every label"
    if not hasattr(estimator, "retune"):
        again = "it is fitted again"
    warnings.warn(
        f"{type(estimator).__name__}: the decision rule was fitted to {n_labels} labels and "
        f"the model now has {estimator.n_labels_}: it predicts with its own rule until "
        f"{again}",
        UserWarning,
        stacklevel=4,
    )
    estimator.rule_ = None
    if getattr(estimator, "chosen_", None):
        estimator.chosen_ = {**estimator.chosen_, "rule": OWN_RULE}


def _learns_nothing(rule):
    """Whether a rule object is fully given (a :class:`~mlnb.decision_rules.Threshold`
    with its ``threshold``): fitting it needs no scores."""
    return isinstance(rule, Threshold) and rule.threshold is not None


def _is_fitted(rule):
    """Whether a rule object has learnt (a fitted rule is applied as it is)."""
    return any(name.endswith("_") and not name.startswith("_") for name in vars(rule))


class CardinalityWarning(UserWarning):
    """Predicted labels per row far from the truth's: the event model does not suit the
    data, or the decision rule cuts in the wrong place."""


def warn_cardinality(predicted, true, *, where, setting=None, estimator=None):
    """A :class:`CardinalityWarning` when ``predicted`` labels per row are below a quarter
    or above four times the ``true`` labels per row (``where`` says which rows). The
    message suggests the defaults unless ``estimator`` is at them (:func:`at_defaults`)."""
    if not (np.isfinite(predicted) and np.isfinite(true)) or true <= 0:
        return
    if true / 4 <= predicted <= 4 * true:
        return
    cause = f" with {setting}" if setting else ""
    advice = "try the defaults (events='tuned', rule='tuned')"
    if estimator is not None and at_defaults(estimator):
        advice = "at the defaults, no setting tried did better out of sample"
    warnings.warn(
        f"{where}: {predicted:.2f} labels per row predicted{cause}, {true:.2f} in truth; "
        "likely cause: an event model that does not suit the data (e.g. the Gaussian on word "
        f"counts or 0/1 features) or the decision rule; {advice}",
        CardinalityWarning,
        stacklevel=3,
    )


def at_defaults(estimator):
    """Whether ``estimator`` chooses its event model and decision rule itself (each of its
    ``events`` and ``rule`` parameters, at least one present, at ``"tuned"``)."""
    params = estimator.get_params(deep=False)
    given = [params[name] for name in ("events", "rule") if name in params]
    return bool(given) and all(is_tuned(value) for value in given)


def check_same_choice(estimator, other):
    """Raise unless two fitted estimators use the same event model (settings chosen from
    different data may differ: they cannot be merged)."""
    mine, theirs = getattr(estimator, "events_", None), getattr(other, "events_", None)
    if not same_params(mine, theirs):
        raise ValueError(
            f"cannot merge models with different event models ({mine!r} and {theirs!r}): "
            "settings chosen on different rows may differ; fit every part with the same "
            "settings, e.g. clone(model).set_params(**model.chosen_params_)"
        )
    # the label terms in force (chosen, or given), not how they came about
    mine, theirs = (getattr(m, "_label_terms", lambda: None)() for m in (estimator, other))
    if mine != theirs:
        raise ValueError(
            f"cannot merge chains with different label terms ({mine!r} and {theirs!r}): fit "
            "every part with the same settings, e.g. "
            "clone(model).set_params(**model.chosen_params_)"
        )


def probability(log_odds):
    """``P(y = 1)`` from log-odds, exact at +-inf (constant labels)."""
    return expit(log_odds)
