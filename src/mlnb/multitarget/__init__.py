"""Multi-target classification: every output a class variable with any number of values.

- :class:`MultiTargetRelevance`: one Naive Bayes per output (MEKA's class relevance);
- :class:`MultiTargetChain`: a chain whose outputs see the classes before them, with
  greedy, beam or exact inference;
- :class:`MultiTargetPowerset`: one Naive Bayes over the combinations of classes seen.

They take ``y`` of shape (n_samples, n_outputs) with a class per cell, keep ``classes_``
per output and give ``predict_proba`` as a list per output (scikit-learn's
``MultiOutputClassifier`` convention). Their state is additive statistics: ``partial_fit``,
``merge`` (Dask), ``forget`` and fold subtraction work as for the multi-label models. The
criteria are :func:`mlnb.metrics.multi_target_exact_match` and its neighbours.
"""

from .chain import MultiTargetChain
from .powerset import MultiTargetPowerset
from .relevance import MultiTargetRelevance

__all__ = ["MultiTargetChain", "MultiTargetPowerset", "MultiTargetRelevance"]
