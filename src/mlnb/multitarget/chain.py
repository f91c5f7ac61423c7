"""A classifier chain over class-valued outputs, with greedy, beam and exact inference.

Output j, at its place in the chain, is a Naive Bayes whose features are X and the classes
of the outputs before it: ``P(y_j = c | x, parents) ~ P(y_j = c) p(x | y_j = c)
prod_i P(y_i = a_i | y_j = c)``, the parents' terms categorical with Lidstone smoothing,
``(N(y_j = c, y_i = a) + alpha) / (N(y_j = c) + K_i alpha)`` (Read, Pfahringer, Holmes and
Frank 2011, for binary labels; scikit-learn's ``ClassifierChain(CategoricalNB())`` for class
outputs coded 0..K-1). The counts ``N`` are the outputs' class co-occurrences: additive,
so the chain learns online, merges and takes fold subtraction as the other models do.

Inference searches the product of the outputs' classes for the assignment of largest
``sum_j log P(y_j | x, parents)`` (Kumar, Vembu, Menon and Elkan 2013, beam search for
chains). ``"greedy"`` takes each output's best class in turn (a beam of 1), ``"beam"``
keeps the ``beam_width`` best partial assignments, ``"exact"`` keeps all of them (every
combination: refused above ``MAX_EXACT``). One vectorised search runs over all rows; equal
scores go to the lower code (scores that rounding leaves 1e-15 apart are not equal: the
order in which a class's terms are added decides them, which may differ from another
library's).
"""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ..base.validation import COUNT
from ..events.categorical import check_pseudo_count, log_categorical
from ._base import MultiTargetNB

__all__ = ["MAX_EXACT", "MultiTargetChain"]

#: The most class combinations exact inference enumerates.
MAX_EXACT = 1 << 16
# Most (row, partial assignment, class) cells a search holds at once (32 MB of floats).
_CELL_BUDGET = 1 << 22


def _conditional(block, tables, parents, assigned):
    """``log P(y_j | x, parents)`` of every row and partial assignment: ``block`` the
    output's joint (n, K), ``tables[i]`` its (K, K_i) parent terms, ``assigned`` (n, b, m)
    the assignments' codes; shape (n, b, K)."""
    scores = np.repeat(block[:, None, :], assigned.shape[1], axis=1)
    for i in parents:
        scores += tables[i].T[assigned[:, :, i]]
    largest = scores.max(axis=2, keepdims=True)
    largest = np.where(np.isfinite(largest), largest, 0.0)
    with np.errstate(divide="ignore"):
        total = largest + np.log(np.exp(scores - largest).sum(axis=2, keepdims=True))
        conditional = scores - total
    return np.where(np.isnan(conditional), -np.inf, conditional)


class MultiTargetChain(MultiTargetNB):
    """A Naive Bayes classifier chain over class-valued outputs.

    Parameters
    ----------
    events : str, EventModel or Auto, default="auto"
        The event model of X (a name such as ``"categorical"``, an object, or a rule).
    prior_alpha : float, default=0.0
        Pseudo-count of the class priors (0: maximum likelihood).
    parent_alpha : float, default=1.0
        Pseudo-count of the parents' categorical terms (1: Laplace, as ``CategoricalNB``).
    order : array-like of int or None, default=None
        The outputs in chain order (a permutation); None: column order.
    inference : {"greedy", "beam", "exact"}, default="greedy"
        How the classes are searched (see the module docstring).
    beam_width : int, default=5
        Partial assignments kept by ``"beam"``.

    Attributes
    ----------
    classes_ : list of ndarray
        Every output's sorted classes.
    order_ : ndarray of int
        The chain order in use.
    parent_log_prob_ : ndarray of shape (n_groups, n_groups)
        ``log P(y_i = a | y_j = c)``: row (j, c), column (i, a), groups output after output.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import MultiTargetChain
    >>> X = np.array([[0, 1], [0, 2], [1, 0], [2, 0], [1, 1]])
    >>> Y = np.array([[0, 1], [0, 1], [1, 2], [2, 2], [1, 0]])
    >>> model = MultiTargetChain(events="categorical", inference="exact").fit(X, Y)
    >>> model.predict([[0, 1], [2, 0]])
    array([[0, 1],
           [2, 2]])
    """

    _parameter_constraints: ClassVar[dict] = {
        **MultiTargetNB._parameter_constraints,
        "parent_alpha": [Interval(Real, 0, None, closed="left")],
        "order": ["array-like", None],
        "inference": [StrOptions({"greedy", "beam", "exact"})],
        "beam_width": [COUNT],
    }
    _uses_pairs = True

    def __init__(
        self,
        *,
        events="auto",
        prior_alpha=0.0,
        parent_alpha=1.0,
        order=None,
        inference="greedy",
        beam_width=5,
    ):
        self.events = events
        self.prior_alpha = prior_alpha
        self.parent_alpha = parent_alpha
        self.order = order
        self.inference = inference
        self.beam_width = beam_width

    @classmethod
    def _unit_test_params(cls):
        return [{}, {"inference": "beam", "beam_width": 3}, {"inference": "exact"}]

    def _check_hyper_parameters(self, n_outputs):
        order = np.arange(n_outputs) if self.order is None else np.asarray(self.order)
        if (
            order.ndim != 1
            or order.dtype.kind not in "iu"
            or not np.array_equal(np.sort(order), np.arange(n_outputs))
        ):
            raise ValueError(
                f"order must be a permutation of the {n_outputs} outputs' indices; got "
                f"{self.order!r}"
            )

    def _install_pairs(self, pairs, sizes):
        alpha = check_pseudo_count(self.parent_alpha, "parent_alpha")
        self.parent_log_prob_ = log_categorical(
            pairs.sums, pairs.count[:, None], np.repeat(sizes, sizes)[None, :], alpha
        )
        n_outputs = len(sizes)
        self.order_ = np.arange(n_outputs) if self.order is None else np.asarray(self.order)

    def _tables(self, j):
        """Output j's parent terms: ``{i: (K_j, K_i) table}`` for every other output i."""
        rows = slice(self.offsets_[j], self.offsets_[j + 1])
        return {
            i: self.parent_log_prob_[rows, self.offsets_[i] : self.offsets_[i + 1]]
            for i in range(self.n_outputs_)
            if i != j
        }

    def _width(self):
        sizes = np.diff(self.offsets_)
        if self.inference == "greedy":
            return 1
        if self.inference == "beam":
            return int(self.beam_width)
        combinations = int(np.prod(sizes, dtype=float))
        if combinations > MAX_EXACT:
            raise ValueError(
                f"inference='exact' would enumerate the {combinations:,} combinations of the "
                f"outputs' classes, more than {MAX_EXACT:,}: use inference='beam'"
            )
        return combinations

    def _codes(self, joint):
        width = self._width()
        most = max(1, _CELL_BUDGET // (width * int(np.diff(self.offsets_).max())))
        return np.concatenate(
            [self._search(joint[a : a + most], width) for a in range(0, joint.shape[0], most)]
        )

    def _search(self, joint, width):
        """The best assignments of a block of rows, keeping ``width`` partial ones."""
        n, m = joint.shape[0], self.n_outputs_
        assigned = np.zeros((n, 1, m), dtype=np.intp)
        total = np.zeros((n, 1))
        blocks = self._split(joint)
        for place, j in enumerate(self.order_):
            conditional = _conditional(blocks[j], self._tables(j), self.order_[:place], assigned)
            k = conditional.shape[2]
            candidates = (total[:, :, None] + conditional).reshape(n, -1)
            if place == m - 1 or width == 1:  # only the best assignment is wanted
                kept = np.argmax(candidates, axis=1)[:, None]  # the first of equal ones
            elif candidates.shape[1] <= width:  # every assignment is kept (exact)
                kept = np.broadcast_to(np.arange(candidates.shape[1]), candidates.shape)
            else:
                kept = np.argsort(-candidates, axis=1, kind="stable")[:, :width]
            assigned = np.take_along_axis(assigned, (kept // k)[:, :, None], axis=1)
            assigned[:, :, j] = kept % k
            total = np.take_along_axis(candidates, kept, axis=1)
        return assigned[:, 0, :]

    def _log_posteriors(self, joint):
        """``log P(y_j | x, parents)`` with the parents at their predicted classes (as
        scikit-learn's ``ClassifierChain.predict_proba``)."""
        codes = self._codes(joint)
        blocks = self._split(joint)
        out = np.empty_like(joint)
        place = np.argsort(self.order_)  # each output's place in the chain
        for j in range(self.n_outputs_):  # outputs are few; each step is vectorised
            parents = self.order_[: place[j]]
            conditional = _conditional(blocks[j], self._tables(j), parents, codes[:, None, :])
            out[:, self.offsets_[j] : self.offsets_[j + 1]] = conditional[:, 0, :]
        return out
