"""Base learners of ``dynamic_chains_table2.py`` closer to the paper's Weka ones.

Trajdos and Kurzynski (section 3) use Weka's J48 and an RBF SVM (LibSVM) "tuned using grid
search and 3-fold cross validation" over C in {0.001, 1, 2, ..., 10} and gamma in {0.001,
1, 2, ..., 5}. scikit-learn has neither C4.5's pruning nor a cheap way to tune an SVM per
label of a 20-member ensemble, so this module gives:

- :class:`J48`: ``DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2)`` grown
  as usual, then pruned as Weka's J48 does by default (``-C 0.25 -M 2``): the tree is first
  collapsed (a subtree that makes no fewer training errors than its root as a leaf becomes
  a leaf), then C4.5's error-based pruning, bottom-up, with subtree raising: a node's
  estimated errors as a leaf (``e + addErrs(N, e, 0.25)``, the upper confidence bound of the
  binomial error rate, Weka's ``Stats.addErrs``) against the sum of its leaves' estimates
  and against its largest branch's estimate on all the node's rows; the leaf wins if it is
  not worse by more than 0.1, else the largest branch is raised if it is not worse than the
  subtree by more than 0.1 (the node's rows re-routed through it and pruned again).
  Ported from Weka 3.8's ``C45PruneableClassifierTree`` (``collapse``, ``prune``,
  ``getEstimatedErrors*``) and ``Stats.addErrs``. What stays sklearn's is the growing:
  information gain (not gain ratio, no MDL correction of numeric splits), binary splits at
  midpoints (J48: at a training value), and no minimum of 2 rows in two branches.
- :func:`choose_svm_params` and :class:`TunedSVMEnsemble`: per label, (C, gamma) chosen on
  the training fold by stratified 3-fold CV accuracy over the paper's 66-point grid (the
  first best in ``GridSearchCV``'s order, smallest C then smallest gamma, on ties), then a
  bagged BR or an ECC of RBF ``SVC`` s with that label's pair. All the SVMs of a fold use
  precomputed kernels from one matrix of squared distances (a chain's appended 0/1 labels
  add their squared differences), which gives ``SVC(kernel="rbf")`` 's models at a
  fraction of the cost on sparse text.

Run ``python experiments/_dynamic_chains_table2_bases.py`` for the doctests and the
self-checks (:func:`self_check`).
"""

from __future__ import annotations

import time
import warnings
from collections import Counter
from functools import cache

import numpy as np
import scipy.sparse as sp
from scipy.stats import norm
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC, _libsvm  # _libsvm: see PrecomputedSVC
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_random_state

from mlnb import BaggedBinaryRelevance

#: The paper's grid (section 3).
C_GRID = (0.001, *map(float, range(1, 11)))
GAMMA_GRID = (0.001, *map(float, range(1, 6)))
CONFIDENCE = 0.25  # J48's -C
TOLERANCE = 0.1  # Weka's C45PruneableClassifierTree.prune(): "errorsLeaf <= errorsTree + 0.1"
SMALL = 1e-6  # weka.core.Utils.SMALL (smOrEq)


# ---- C4.5 pruning ---------------------------------------------------------------------------
@cache
def _z(confidence):
    return float(norm.ppf(1 - confidence))


def add_errs(n, e, confidence=CONFIDENCE):
    """Weka's ``Stats.addErrs``: the extra errors the upper ``confidence`` bound of the
    binomial error rate adds to ``e`` errors in ``n`` rows (C4.5's U_CF(e, n) * n - e).

    Quinlan's (1993) table, p. 41: U_25%(0, 6) = 0.206, U_25%(0, 9) = 0.143, U_25%(0, 1) =
    0.750 (e = 0 is exact), and 16 rows with one error: U_25%(1, 16) = 0.157, so 2.512
    errors (Weka's normal approximation gives 2.476):

    >>> round(add_errs(6, 0) / 6, 3), round(add_errs(9, 0) / 9, 3), add_errs(1, 0)
    (0.206, 0.143, 0.75)
    >>> round(1 + add_errs(16, 1), 3)
    2.476
    """
    if n <= 0:
        return 0.0
    if e < 1:  # exact for e = 0, interpolated up to e = 1 (as C4.5)
        base = n * (1 - confidence ** (1 / n))
        return base if e == 0 else base + e * (add_errs(n, 1, confidence) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    z = _z(confidence)
    f = (e + 0.5) / n
    r = (f + z * z / (2 * n) + z * np.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (
        1 + z * z / n
    )
    return float(r * n - e)


def _leaf_estimate(counts, confidence):
    """Estimated errors of a leaf with these class counts (Weka's
    ``getEstimatedErrorsForDistribution``)."""
    total = counts.sum()
    if total <= 0:
        return 0.0
    e = total - counts.max()
    return e + add_errs(total, e, confidence)


class _Pruner:
    """C4.5's collapse and pruning of a fitted sklearn tree, on its training rows.

    The structure is edited in copies of ``children_left/right``, ``feature`` and
    ``threshold``; ``goes_left[:, column[node]]`` is node's test for every training row (a
    raised node takes its branch's column). :meth:`write` puts the result into the tree.
    """

    def __init__(self, tree, X, y, sample_weight, confidence, raising):
        t = tree.tree_
        self.tree, self.confidence, self.raising = tree, confidence, raising
        self.left = t.children_left.copy()
        self.right = t.children_right.copy()
        self.feature = t.feature.copy()
        self.threshold = t.threshold.copy()
        internal = np.flatnonzero(self.left >= 0)
        self.column = np.full(t.node_count, -1)
        self.column[internal] = np.arange(len(internal))
        # sklearn compares float32 features with float64 thresholds
        features = self.feature[internal]
        if sp.issparse(X):
            values = sp.csc_matrix(X)[:, features].toarray().astype(np.float32)
        else:
            values = np.asarray(X)[:, features].astype(np.float32)
        self.goes_left = values <= self.threshold[internal]
        self.y = np.searchsorted(tree.classes_, y)
        self.w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
        self.n_classes = len(tree.classes_)

    def counts(self, rows):
        return np.bincount(self.y[rows], weights=self.w[rows], minlength=self.n_classes)

    def route(self, node, rows):
        to_left = self.goes_left[rows, self.column[node]]
        return rows[to_left], rows[~to_left]

    def is_leaf(self, node):
        return self.left[node] < 0

    def make_leaf(self, node):
        self.left[node] = self.right[node] = -1  # sklearn's TREE_LEAF
        self.feature[node], self.threshold[node] = -2, -2.0  # TREE_UNDEFINED

    def estimated_errors(self, node, rows):
        """The subtree's estimated errors for ``rows`` routed through it (Weka's
        ``getEstimatedErrorsForBranch``)."""
        if self.is_leaf(node):
            return _leaf_estimate(self.counts(rows), self.confidence)
        a, b = self.route(node, rows)
        return self.estimated_errors(self.left[node], a) + self.estimated_errors(
            self.right[node], b
        )

    def collapse(self, counts):
        """Weka's ``collapse``, top-down: a node whose subtree makes no fewer training
        errors than the node as a leaf becomes a leaf (``counts``: the grown tree's class
        counts per node)."""
        errors = counts.sum(axis=1) - counts.max(axis=1)  # each node as a leaf
        subtree = errors.copy()
        for node in range(len(errors) - 1, -1, -1):  # children come after their parent
            if not self.is_leaf(node):
                subtree[node] = subtree[self.left[node]] + subtree[self.right[node]]
        stack = [0]
        while stack:
            node = stack.pop()
            if self.is_leaf(node):
                continue
            if subtree[node] >= errors[node] - 1e-3:
                self.make_leaf(node)
            else:
                stack += [self.left[node], self.right[node]]

    def prune(self, node, rows):
        """Weka's ``prune`` of the subtree at ``node`` holding ``rows``; returns the pruned
        subtree's estimated errors (``getEstimatedErrors``)."""
        if self.is_leaf(node):
            return _leaf_estimate(self.counts(rows), self.confidence)
        a, b = self.route(node, rows)
        subtree = self.prune(self.left[node], a) + self.prune(self.right[node], b)
        # the branch with most weight (Weka's maxBag: the first on ties)
        largest = self.left[node] if self.w[a].sum() >= self.w[b].sum() else self.right[node]
        branch = self.estimated_errors(largest, rows) if self.raising else np.inf
        leaf = _leaf_estimate(self.counts(rows), self.confidence)
        if leaf - (subtree + TOLERANCE) < SMALL and leaf - (branch + TOLERANCE) < SMALL:
            self.make_leaf(node)
            return leaf
        if branch - (subtree + TOLERANCE) < SMALL:  # subtree raising: prune again
            for attribute in ("left", "right", "feature", "threshold", "column"):
                array = getattr(self, attribute)
                array[node] = array[largest]
            return self.prune(node, rows)
        return subtree

    def write(self, rows):
        """The pruned structure into the tree; each node's value the class shares of the
        training rows reaching it (a node with none: its parent's, as Weka's
        ``Distribution.prob``)."""
        t = self.tree.tree_
        value = t.value  # views of the tree's arrays
        reached = np.zeros(t.node_count, bool)
        stack = [(0, rows, None)]
        while stack:
            node, part, parent = stack.pop()
            reached[node] = True
            c = self.counts(part)
            value[node, 0, :] = c / c.sum() if c.sum() > 0 else value[parent, 0, :]
            if not self.is_leaf(node):
                a, b = self.route(node, part)
                stack += [(self.left[node], a, node), (self.right[node], b, node)]
        t.children_left[:] = self.left
        t.children_right[:] = self.right
        t.feature[:] = self.feature
        t.threshold[:] = self.threshold
        return int(np.sum(reached & (self.left < 0)))


def c45_prune(tree, X, y, sample_weight=None, *, confidence=CONFIDENCE, raising=True):
    """Collapse and prune a fitted ``DecisionTreeClassifier`` in place as Weka's J48
    (see the module's docstring); returns its number of leaves."""
    pruner = _Pruner(tree, X, y, sample_weight, confidence, raising)
    rows = np.arange(len(pruner.y))
    path = tree.decision_path(X)  # rows x nodes of the grown tree
    pruner.collapse(np.asarray(path.T @ _one_hot(pruner.y, pruner.w, pruner.n_classes)))
    pruner.prune(0, rows)
    return pruner.write(rows)


def _one_hot(codes, weights, n_classes):
    out = np.zeros((len(codes), n_classes))
    out[np.arange(len(codes)), codes] = weights
    return out


class J48(ClassifierMixin, BaseEstimator):
    """Weka's J48 (C4.5, ``-C 0.25 -M 2``) as far as sklearn's trees allow: an entropy tree
    with 2 rows per leaf at least, collapsed and pruned by :func:`c45_prune`.

    ``n_leaves_grown_`` and ``n_leaves_``: the leaves before and after pruning.
    """

    def __init__(
        self, confidence=CONFIDENCE, min_leaf=2, raising=True, prune=True, random_state=None
    ):
        self.confidence = confidence
        self.min_leaf = min_leaf
        self.raising = raising
        self.prune = prune
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        tree = DecisionTreeClassifier(
            criterion="entropy", min_samples_leaf=self.min_leaf, random_state=self.random_state
        ).fit(X, y, sample_weight=sample_weight)
        self.n_leaves_grown_ = self.n_leaves_ = int(tree.get_n_leaves())
        if self.prune:
            self.n_leaves_ = c45_prune(
                tree, X, y, sample_weight, confidence=self.confidence, raising=self.raising
            )
        self.tree_, self.classes_ = tree, tree.classes_
        self.n_features_in_ = tree.n_features_in_
        return self

    def predict(self, X):
        return self.tree_.predict(X)

    def predict_proba(self, X):
        return self.tree_.predict_proba(X)


# ---- the tuned SVM --------------------------------------------------------------------------
def squared_distances(A, B=None):
    """Dense squared Euclidean distances (libsvm's RBF kernel's ``|x|^2 + |y|^2 - 2 x.y``)."""
    D = euclidean_distances(A, A if B is None else B, squared=True)
    np.maximum(D, 0, out=D)
    if B is None:
        np.fill_diagonal(D, 0)
    return D


class PrecomputedSVC:
    """``SVC(kernel="precomputed", C=C)`` for a 0/1 target, calling sklearn's libsvm
    binding directly: the same solver and defaults (tol 1e-3, shrinking, cache 200 MB)
    without sklearn's input checks, which cost more than the solver on the small
    problems of the grid search (:func:`_check_svm` compares it with ``SVC``)."""

    def __init__(self, C=1.0):
        self.C = C

    def fit(self, K, y):
        K = np.ascontiguousarray(K, dtype=np.float64)
        _libsvm.set_verbosity_wrap(0)
        fitted = _libsvm.fit(
            K,
            np.asarray(y, dtype=np.float64),
            svm_type=0,
            kernel="precomputed",
            C=float(self.C),
            tol=1e-3,
            cache_size=200.0,
            shrinking=1,
            probability=0,
            class_weight=np.empty(0),
            sample_weight=np.empty(0),
            random_seed=0,
        )
        self.support_, self._sv, self._n_support, self._dual_coef, self._intercept = fitted[:5]
        self._a, self._b = fitted[5:7]
        return self

    def predict(self, K):
        """0/1 labels from the kernel rows ``K`` (n_test x n_train)."""
        out = _libsvm.predict(
            np.ascontiguousarray(K, dtype=np.float64),
            self.support_,
            self._sv,
            self._n_support,
            self._dual_coef,
            self._intercept,
            self._a,
            self._b,
            svm_type=0,
            kernel="precomputed",
            cache_size=200.0,
        )
        return out.astype(int)


def choose_svm_params(D, y, seed, C_grid=C_GRID, gamma_grid=GAMMA_GRID, cv=3):
    """``(C, gamma)`` of the best mean accuracy of ``SVC(kernel="rbf")`` by stratified
    ``cv``-fold CV (shuffled with ``seed``) on the rows of ``D`` (their squared distances),
    what ``GridSearchCV(SVC(), {"C": C_grid, "gamma": gamma_grid}, cv=StratifiedKFold(cv,
    shuffle=True, random_state=seed))`` chooses (the smallest C, then gamma, on ties);
    None if ``y`` is constant. A CV training part with one class predicts it."""
    y = np.asarray(y)
    if np.all(y == y[0]):
        return None
    if list(C_grid) != sorted(C_grid):
        raise ValueError("C_grid must be increasing")
    scores = np.zeros((len(C_grid), len(gamma_grid)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a class with fewer than cv rows
        splits = list(StratifiedKFold(cv, shuffle=True, random_state=seed).split(D, y))
    for train, test in splits:
        if np.all(y[train] == y[train][0]):
            scores += np.mean(y[test] == y[train][0])
            continue
        D_train, D_test = D[np.ix_(train, train)], D[np.ix_(test, train)]
        for g, gamma in enumerate(gamma_grid):
            K_train, K_test = np.exp(-gamma * D_train), np.exp(-gamma * D_test)
            same = None  # the accuracy of a fit with no multiplier at its bound C
            for c, C in enumerate(C_grid):  # increasing
                if same is None:
                    model = PrecomputedSVC(C).fit(K_train, y[train])
                    accuracy = np.mean(model.predict(K_test) == y[test])
                    # every multiplier below C: the bound is inactive, and the solution
                    # is that of every larger C too (common where gamma >= 1 makes K ~ I)
                    if np.abs(model._dual_coef).max() < C:
                        same = accuracy
                scores[c, g] += accuracy if same is None else same
    scores = np.round(scores / len(splits), 12)
    c, g = np.unravel_index(np.argmax(scores), scores.shape)
    return float(C_grid[c]), float(gamma_grid[g])


class TunedSVMEnsemble(BaseEstimator):
    """K RBF-SVM binary-relevance models (``chain=False``) or classifier chains
    (``chain=True``) on ``sample_fraction`` samples without replacement, voting at 0.5;
    label j's SVMs all use the (C, gamma) :func:`choose_svm_params` picks for it on the
    training rows (BR problem: the features only), or ``params[j]`` if given (None: a
    label constant on the training rows). ``tuning_seconds_``: the time of that choice.

    The samples and chain orders are those of ``mlnb.BaggedBinaryRelevance`` /
    ``EnsembleClassifierChains`` with the same ``random_state`` (member k sees the same
    rows in both). A chain's member for the label at position p sees the features and the
    p labels before it (0/1, the true ones in training, the decided ones in prediction), as
    mlnb's generic chains; with precomputed kernels: ``exp(-gamma * (|x - x'|^2 + sum of
    squared label differences))``.
    """

    def __init__(
        self,
        chain=False,
        n_models=20,
        sample_fraction=0.66,
        C_grid=C_GRID,
        gamma_grid=GAMMA_GRID,
        cv=3,
        params=None,
        random_state=None,
    ):
        self.chain = chain
        self.n_models = n_models
        self.sample_fraction = sample_fraction
        self.C_grid = C_grid
        self.gamma_grid = gamma_grid
        self.cv = cv
        self.params = params
        self.random_state = random_state

    def _draws(self, n, n_labels):
        rng = check_random_state(self.random_state)
        orders = [rng.permutation(n_labels) for _ in range(self.n_models)]
        memberships = BaggedBinaryRelevance(
            n_estimators=self.n_models,
            sample_fraction=self.sample_fraction,
            random_state=self.random_state,
        ).memberships(n, n_labels)
        return orders, memberships

    def fit(self, X, Y):
        Y = np.asarray(Y, dtype=int)
        n, n_labels = Y.shape
        seed = self.random_state if isinstance(self.random_state, int) else 0
        D = squared_distances(X)
        start = time.perf_counter()
        if self.params is None:
            self.params_ = [
                choose_svm_params(D, Y[:, j], seed, self.C_grid, self.gamma_grid, self.cv)
                for j in range(n_labels)
            ]
        else:  # chosen before on the same rows (e.g. by the paired BR or CC ensemble)
            self.params_ = list(self.params)
        self.tuning_seconds_ = time.perf_counter() - start
        orders, memberships = self._draws(n, n_labels)
        if memberships.max() > 1:
            raise ValueError("samples drawn with replacement: not supported")
        self.X_, self.Y_, self.members_ = X, Y, []
        for k in range(self.n_models):
            rows = np.flatnonzero(memberships[:, k])
            order = orders[k] if self.chain else np.arange(n_labels)
            D_rows = D[np.ix_(rows, rows)]
            kernels = {}  # BR: one kernel per gamma
            H = np.zeros_like(D_rows) if self.chain else None
            models = {}
            for label in order:
                y = Y[rows, label]
                if np.all(y == y[0]):
                    models[label] = int(y[0])
                else:
                    C, gamma = self.params_[label] or (1.0, self.gamma_grid[0])
                    if self.chain:
                        K_rows = np.exp(-gamma * (D_rows + H))
                    else:
                        if gamma not in kernels:
                            kernels[gamma] = np.exp(-gamma * D_rows)
                        K_rows = kernels[gamma]
                    models[label] = (PrecomputedSVC(C).fit(K_rows, y), gamma)
                if self.chain:
                    H += y[:, None] != y[None, :]
            self.members_.append((rows, order, models))
        return self

    def predict(self, X):
        D_all = squared_distances(X, self.X_)
        votes = np.zeros((X.shape[0], self.Y_.shape[1]))
        for rows, order, models in self.members_:
            D = D_all[:, rows]
            H = np.zeros_like(D) if self.chain else None
            for label in order:
                model = models[label]
                if isinstance(model, int):
                    decided = np.full(X.shape[0], model)
                else:
                    svc, gamma = model
                    decided = svc.predict(np.exp(-gamma * (D if H is None else D + H)))
                votes[:, label] += decided
                if self.chain:
                    H += decided[:, None] != self.Y_[rows, label][None, :]
        return (votes / len(self.members_) > 0.5).astype(int)

    def summary(self):
        """The chosen pairs, e.g. ``"C 1:3 10:2; gamma 0.001:5; constant 1"``."""
        chosen = [p for p in self.params_ if p is not None]
        parts = [
            name + " " + " ".join(f"{v:g}:{n}" for v, n in sorted(Counter(values).items()))
            for name, values in (("C", [c for c, _ in chosen]), ("gamma", [g for _, g in chosen]))
        ]
        constant = len(self.params_) - len(chosen)
        return "; ".join(parts + ([f"constant {constant}"] if constant else []))


# ---- self-checks ----------------------------------------------------------------------------
def _check_pruning():
    """Hand cases of :func:`c45_prune` on rows x = 0, 1, ..., n - 1 (one feature); the
    estimates are ``e + addErrs(N, e)`` of (negatives, positives) counts, CF = 0.25."""
    x = lambda n: np.arange(n, dtype=float)[:, None]  # noqa: E731
    est = lambda neg, pos: _leaf_estimate(np.array([neg, pos], float), CONFIDENCE)  # noqa: E731
    # (a) collapse: positives at 0 and 3 of 8 rows; sklearn splits at 3.5, then 1.5 into
    # (1, 1) and (1, 1), which predict 0 (ties go to the first class): 2 training errors,
    # as many as the root's as a leaf, so the whole tree collapses to 1 leaf
    tree = J48().fit(x(8), np.array([1, 0, 0, 1, 0, 0, 0, 0]))
    assert tree.n_leaves_grown_ == 3 and tree.n_leaves_ == 1, tree.n_leaves_grown_
    # (b) a clean split is kept: 2 positives then 18 negatives; as a leaf (18, 2): 3.667,
    # split: (0, 2) 1.000 + (18, 0) 1.334 = 2.334
    assert abs(est(18, 2) - 3.667) < 1e-3 and abs(est(0, 2) - 1.0) < 1e-9
    assert abs(est(18, 0) - 1.334) < 1e-3
    y = np.r_[1, 1, np.zeros(18, int)]
    tree = J48().fit(x(20), y)
    assert tree.n_leaves_ == 2 and (tree.predict(x(20)) == y).all()
    # (c) y = 0 0 1 0 0 1 1 0: sklearn grows x <= 1.5 -> (2, 0); else x <= 4.5 -> (2, 1),
    # (1, 2). Inner node (3, 3): leaf 4.251 > subtree 2.044 + 2.044 + 0.1, kept. Root
    # (5, 3): leaf 4.448, subtree 1.000 + 4.089 = 5.089, largest branch (the inner node)
    # on all 8 rows: x <= 4.5 -> (4, 1) 2.250, (1, 2) 2.044 = 4.294.
    assert abs(est(3, 3) - 4.251) < 1e-3 and abs(est(2, 1) - 2.044) < 1e-3
    assert abs(est(5, 3) - 4.448) < 1e-3 and abs(est(4, 1) - 2.250) < 1e-3
    y = np.array([0, 0, 1, 0, 0, 1, 1, 0])
    assert J48(prune=False).fit(x(8), y).n_leaves_ == 3
    # with subtree raising: 4.448 > 4.294 + 0.1 (no leaf), 4.294 <= 5.089 + 0.1: the inner
    # split is raised to the root, which then keeps it (4.448 > 4.294 + 0.1)
    tree = J48().fit(x(8), y)
    assert tree.n_leaves_ == 2 and (tree.predict(x(8)) == (np.arange(8) > 4.5)).all()
    # without: 4.448 <= 5.089 + 0.1, the root becomes a leaf (error-based pruning proper)
    assert J48(raising=False).fit(x(8), y).n_leaves_ == 1


def _check_svm():
    """The precomputed-kernel ensemble equals SVC(kernel="rbf"), and the choice equals
    GridSearchCV's, on a small random problem."""
    from sklearn.model_selection import GridSearchCV

    rng = np.random.RandomState(0)
    X = rng.randn(90, 5)
    y = (X[:, 0] + 0.5 * rng.randn(90) > 0.3).astype(int)
    grid = {"C": [0.001, 1.0, 4.0], "gamma": [0.001, 0.1, 1.0]}
    search = GridSearchCV(
        SVC(kernel="rbf"), grid, cv=StratifiedKFold(3, shuffle=True, random_state=3)
    ).fit(X, y)
    ours = choose_svm_params(squared_distances(X), y, 3, grid["C"], grid["gamma"])
    best = (search.best_params_["C"], search.best_params_["gamma"])
    assert ours == best, (ours, best)
    D = squared_distances(X[:60])
    for gamma in grid["gamma"]:
        a = SVC(kernel="rbf", C=4.0, gamma=gamma).fit(X[:60], y[:60])
        b = PrecomputedSVC(4.0).fit(np.exp(-gamma * D), y[:60])
        K = np.exp(-gamma * squared_distances(X[60:], X[:60]))
        assert (a.predict(X[60:]) == b.predict(K)).all()
        assert (np.sort(a.support_) == np.sort(b.support_)).all()
    # chains: a member's kernel with appended labels equals the RBF on [X, labels]
    Y = np.c_[y, (X[:, 1] > 0).astype(int), (X[:, 2] + X[:, 0] > 0).astype(int)]
    model = TunedSVMEnsemble(chain=True, n_models=3, C_grid=(1.0,), gamma_grid=(0.1,))
    model.fit(X[:60], Y[:60])
    rows, order, models = model.members_[0]
    last = order[-1]
    inputs = np.c_[X[:60][rows], Y[:60][rows][:, order[:-1]]]
    direct = SVC(kernel="rbf", C=1.0, gamma=0.1).fit(inputs, Y[:60][rows, last])
    svc, _ = models[last]
    assert np.allclose(np.sort(direct.support_), np.sort(svc.support_))


def self_check():
    """The doctests and the hand cases; raises AssertionError on a failure."""
    import doctest
    import sys

    failed, _ = doctest.testmod(sys.modules[__name__])
    assert failed == 0, f"{failed} doctest(s) failed"
    _check_pruning()
    _check_svm()


if __name__ == "__main__":
    self_check()
    print("ok")
