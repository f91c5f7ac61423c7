"""Train/test splits: k folds or one holdout, plain or stratified.

Iterative stratification (Sechidis, Tsoumakas and Vlahavas, "On the stratification of
multi-label data", ECML PKDD 2011) is taken from the package ``iterative-stratification``
(import name ``iterstrat``; extra ``mlnb[stats]``) rather than written here, after these
checks of version 0.1.9 (last release 2024-10, BSD-3):

- correct: ``IterativeStratification`` is the paper's Algorithm 1: the label with the
  fewest remaining examples first; each of its examples goes to the subset that most
  wants that label, ties broken by the subset's overall desired size, then at random;
  examples without labels are spread over the subsets with most room.  Our tests check
  that per-fold label frequencies stay closer to the whole-data frequencies than with
  plain shuffled k-fold;
- deterministic: every random choice draws from ``check_random_state(random_state)``, so
  an integer seed gives the same folds (tested);
- fast enough: 10 folds of a delicious-sized label matrix (16105 x 983, density 0.019)
  take about 3 s;
- caveats: it subclasses private scikit-learn classes (``_BaseKFold``,
  ``_validate_shuffle_split``), which broke it once (scikit-learn 1.0, fixed in 0.1.7),
  and it needs dense labels, so a boolean n x L copy is made (n L bytes).  The tests run
  it against the installed scikit-learn, so such a break shows up at once.

A single-label target (1-D ``y``), or a one-column label matrix, is stratified with
scikit-learn's ``StratifiedKFold`` / ``StratifiedShuffleSplit``: iterative stratification
with one label is ordinary stratification.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import KFold, ShuffleSplit, StratifiedKFold, StratifiedShuffleSplit

from ._optional import require

__all__ = ["split_indices"]

_STRATIFY = (None, "iterative")


def _splitter(cv, *, stratify, multilabel, random_state, n_samples):
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        if cv < 2:
            raise ValueError(f"cv must be at least 2 folds, got {cv}.")
        if stratify is None:
            return KFold(n_splits=int(cv), shuffle=True, random_state=random_state)
        if not multilabel:
            return StratifiedKFold(n_splits=int(cv), shuffle=True, random_state=random_state)
        mod = require("iterstrat.ml_stratifiers", "stratify='iterative'")
        return mod.MultilabelStratifiedKFold(
            n_splits=int(cv), shuffle=True, random_state=random_state
        )
    if isinstance(cv, numbers.Real) and not isinstance(cv, bool):
        if not 0.0 < cv < 1.0:
            raise ValueError(
                f"cv as a float is the train fraction and must be in (0, 1), got {cv}."
            )
        # whole rows: round(cv * n) to train (1.0 - 0.7 is 0.30000000000000004, which
        # scikit-learn rounds up, taking a row from the training part)
        n_train = round(float(cv) * n_samples)
        if not 0 < n_train < n_samples:
            raise ValueError(
                f"cv={cv} of {n_samples} rows leaves {n_train} to train and "
                f"{n_samples - n_train} to test; both need at least one"
            )
        kwargs = {"n_splits": 1, "train_size": n_train, "test_size": n_samples - n_train}
        if stratify is None:
            return ShuffleSplit(random_state=random_state, **kwargs)
        if not multilabel:
            return StratifiedShuffleSplit(random_state=random_state, **kwargs)
        mod = require("iterstrat.ml_stratifiers", "stratify='iterative'")
        return mod.MultilabelStratifiedShuffleSplit(random_state=random_state, **kwargs)
    if hasattr(cv, "split") and not isinstance(cv, str):
        return cv
    raise ValueError(
        "cv must be an int (number of folds), a float in (0, 1) (train fraction of one "
        f"holdout split) or a splitter with a split method, got {cv!r}."
    )


def split_indices(cv, n_samples, Y, *, stratify=None, random_state=None):
    """List the ``(train, test)`` index arrays of ``cv``.

    Parameters
    ----------
    cv : int, float or splitter
        Number of folds (shuffled k-fold), a train fraction in (0, 1) (one shuffled
        holdout split), or a scikit-learn splitter used as is.
    n_samples : int
        Number of rows.
    Y : array-like or sparse matrix
        Targets: 1-D class labels or an n x L indicator matrix.
    stratify : {None, "iterative"}, default=None
        Stratify the splits on the targets (see the module docstring).
    random_state : int, RandomState or None, default=None
        Seed of the shuffling and of the stratification's tie breaks.

    Returns
    -------
    list of (ndarray, ndarray)
    """
    if stratify not in _STRATIFY:
        raise ValueError(f"stratify must be None or 'iterative', got {stratify!r}.")
    Y_strat = Y  # a user's splitter gets the targets as given
    multilabel = False
    if stratify is not None:
        Y_strat = (Y != 0).toarray() if sp.issparse(Y) else np.asarray(Y)
        if Y_strat.ndim == 2:
            Y_strat = Y_strat != 0
            if Y_strat.shape[1] == 1:
                Y_strat = Y_strat[:, 0]
            else:
                multilabel = True
    splitter = _splitter(
        cv,
        stratify=stratify,
        multilabel=multilabel,
        random_state=random_state,
        n_samples=n_samples,
    )
    placeholder = np.zeros((n_samples, 1))
    return [
        (np.asarray(train), np.asarray(test))
        for train, test in splitter.split(placeholder, Y_strat)
    ]
