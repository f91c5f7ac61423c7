"""Class relevance: one Naive Bayes per class-valued output, all from one statistics pass."""

from __future__ import annotations

import numpy as np

from ._base import MultiTargetNB

__all__ = ["MultiTargetRelevance"]


class MultiTargetRelevance(MultiTargetNB):
    """Independent Naive Bayes per output over class-valued targets (multi-target binary
    relevance; MEKA's class relevance, CR).

    Output j's class is ``argmax_c log P(y_j = c) + log p(x | y_j = c)``. With the
    categorical event model it is scikit-learn's ``MultiOutputClassifier(CategoricalNB())``,
    fitted in one pass over X for all outputs.

    Parameters
    ----------
    events : str, EventModel or Auto, default="auto"
        The event model (a name such as ``"categorical"``, ``"gaussian"``, an object, or a
        rule that chooses per column from the training rows).
    prior_alpha : float, default=0.0
        Pseudo-count of the class priors (0: maximum likelihood).

    Attributes
    ----------
    classes_ : list of ndarray
        Every output's sorted classes.
    n_outputs_ : int
    class_count_ : ndarray of shape (sum of the outputs' class counts,)
        Weighted rows of each (output, class), outputs one after the other.
    events_ : EventModel
        The event model in use.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnb import MultiTargetRelevance
    >>> X = np.array([[0, 1], [0, 2], [1, 0], [2, 0]])
    >>> Y = np.array([["low", 0], ["low", 1], ["high", 2], ["high", 2]])
    >>> model = MultiTargetRelevance(events="categorical").fit(X, Y)
    >>> model.predict([[0, 1], [2, 0]]).tolist()
    [['low', '0'], ['high', '2']]
    >>> [p.shape for p in model.predict_proba([[0, 1]])]
    [(1, 2), (1, 3)]
    """

    def __init__(self, *, events="auto", prior_alpha=0.0):
        self.events = events
        self.prior_alpha = prior_alpha

    def _codes(self, joint):
        return np.column_stack([block.argmax(axis=1) for block in self._split(joint)])
