"""Weka's CfsSubsetEval per label (``_weka_cfs``): MDL cuts, SU, search, ensemble use.

Every expected value is computed here without the module: by hand (the arithmetic is in the
comments) or by a slow reference written with plain loops and ``math.log2`` that follows
Weka's code (``Discretize.cutPointsForSubset`` / ``FayyadAndIranisMDL``,
``CfsSubsetEval.symmUncertCorr`` / ``addLocallyPredictive``, BestFirst's 1e-5 test).
"""

import itertools
import math
import re

import numpy as np
import pytest
import scipy.sparse as sp

from mlnb import DynamicChainEnsemble
from mlnb.multilabel import _weka_cfs as weka_cfs_module
from mlnb.multilabel._weka_cfs import (
    _interval_indicators,
    _mdl_accepts,
    _mdl_cuts,
    _symmetrical_uncertainty,
    weka_cfs_masks,
)
from mlnb.multilabel.dynamic_ensemble import undersampling_mask


# ---- slow reference -----------------------------------------------------------------------
def _entropy(counts):
    total = sum(counts)
    return -sum(c / total * math.log2(c / total) for c in counts if c > 0) if total > 0 else 0.0


def _reference_cuts(values, labels, weights, better_encoding=True):
    """Weka's ``cutPointsForSubset`` on sorted ``values``: first best cut, MDL, recursion."""
    n = len(values)
    if n < 2:
        return []
    prior = [0.0, 0.0]
    for label, weight in zip(labels, weights, strict=True):
        prior[label] += weight
    total = sum(prior)
    prior_entropy = best_entropy = _entropy(prior)
    best, best_left, n_cuts, left = -1, None, 0, [0.0, 0.0]
    for i in range(n - 1):
        left[labels[i]] += weights[i]
        if values[i] < values[i + 1]:
            right = [prior[0] - left[0], prior[1] - left[1]]
            entropy = (sum(left) * _entropy(left) + sum(right) * _entropy(right)) / total
            if entropy < best_entropy:
                best, best_entropy, best_left = i, entropy, list(left)
            n_cuts += 1
    if not better_encoding:
        n_cuts = n - 1
    gain = prior_entropy - best_entropy
    if gain <= 0:
        return []
    right = [prior[0] - best_left[0], prior[1] - best_left[1]]
    k, k_left, k_right = (sum(c > 0 for c in side) for side in (prior, best_left, right))
    delta = math.log2(3**k - 2) - (
        k * prior_entropy - k_left * _entropy(best_left) - k_right * _entropy(right)
    )
    if not gain > (math.log2(n_cuts) + delta) / total:
        return []
    s = best + 1
    return [
        *_reference_cuts(values[:s], labels[:s], weights[:s], better_encoding),
        (values[best] + values[best + 1]) / 2,
        *_reference_cuts(values[s:], labels[s:], weights[s:], better_encoding),
    ]


def _reference_su(a, b, weights):
    """SU of two categorical sequences from their weighted joint contingency table."""
    joint, count_a, count_b = {}, {}, {}
    for x, y, w in zip(a, b, weights, strict=True):
        joint[x, y] = joint.get((x, y), 0.0) + w
        count_a[x] = count_a.get(x, 0.0) + w
        count_b[y] = count_b.get(y, 0.0) + w
    h_a, h_b = _entropy(list(count_a.values())), _entropy(list(count_b.values()))
    if h_a == 0 or h_b == 0:
        return 0.0
    return 2 * (h_a + h_b - _entropy(list(joint.values()))) / (h_a + h_b)


def _weka_correlation(a, b, weights, with_class):
    """``symmUncertCorr``: SU within 1e-6 of 0 is 0 with the class, 1 between features;
    kept as a Java float."""
    su = _reference_su(a, b, weights)
    if abs(su) < 1e-6:
        su = 0.0 if with_class else 1.0
    return float(np.float32(su))


def _reference_cfs(X, y, weights, nominal=False, max_stale=5, max_features=None):
    """CfsSubsetEval on one label's rows (weight > 0), before the random cut to max_features.

    Every feature takes part (a feature left with one interval too, as in Weka); the search
    is greedy forward with BestFirst's "better by more than 1e-5", ``max_stale`` steps
    without a better subset and the best subset kept, then ``addLocallyPredictive``.
    """
    rows = [i for i in range(len(y)) if weights[i] > 0]
    X = [[float(X[i][j]) for j in range(len(X[0]))] for i in rows]
    y, weights = [int(y[i]) for i in rows], [float(weights[i]) for i in rows]
    if len(set(y)) < 2:
        return set()  # the module's documented choice for a constant label
    n_features = len(X[0])
    codes = []
    for j in range(n_features):
        x = [row[j] for row in X]
        if nominal:
            distinct = sorted(set(x))
            cuts = [(u + v) / 2 for u, v in itertools.pairwise(distinct)]
        else:
            order = sorted(range(len(x)), key=lambda i: x[i])
            cuts = _reference_cuts(
                [x[i] for i in order], [y[i] for i in order], [weights[i] for i in order]
            )
        codes.append([sum(v > c for c in cuts) for v in x])  # Weka: v <= cut -> lower bin
    with_class = [_weka_correlation(codes[j], y, weights, True) for j in range(n_features)]
    pairs = {}

    def pair(i, j):
        key = (min(i, j), max(i, j))
        if key not in pairs:
            pairs[key] = _weka_correlation(codes[key[0]], codes[key[1]], weights, False)
        return pairs[key]

    limit = n_features if max_features is None else min(n_features, 2 * max_features)
    chosen, best_merit, best_size, stale = [], 0.0, 0, 0
    while stale < max_stale and len(chosen) < limit:
        best_feature, best_step = None, -math.inf
        for f in range(n_features):
            if f in chosen:
                continue
            subset = [*chosen, f]
            numerator = sum(with_class[g] for g in subset)
            redundancy = sum(pair(g, h) for g, h in itertools.combinations(subset, 2))
            merit = numerator / math.sqrt(len(subset) + 2 * redundancy)
            if merit > best_step:  # the first of equal merits, as BestFirst's sorted list
                best_feature, best_step = f, merit
        chosen.append(best_feature)
        if best_step - best_merit > 1e-5:
            best_merit, best_size, stale = best_step, len(chosen), 0
        else:
            stale += 1
    selected = chosen[:best_size]
    considered = set(selected)
    while len(considered) < n_features:  # addLocallyPredictive
        j = max((f for f in range(n_features) if f not in considered), key=with_class.__getitem__)
        considered.add(j)
        if all(pair(i, j) <= with_class[j] for i in selected):  # Weka rejects on ">"
            selected.append(j)
    return set(selected)


def _mixed_data(seed, n=120, few_values=False):
    """Gaussian, 0/1, count and noise features for three labels; a twin and a constant.

    ``few_values``: continuous features rounded to integers (categories for nominal=True,
    which refuses features of more than 64 values)."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 3)) < [0.3, 0.5, 0.2]).astype(float)
    columns = []
    for j in range(12):
        y = Y[:, j % 3]
        kind = j % 4
        if kind == 0:
            columns.append(np.round(rng.normal(size=n) + 1.5 * y, 1))
        elif kind == 1:
            columns.append((rng.random(n) < 0.2 + 0.5 * y).astype(float))
        elif kind == 2:
            columns.append(rng.poisson(1 + 2 * y).astype(float))
        else:
            columns.append(rng.normal(size=n))
    X = np.column_stack(columns)
    X[:, 7] = X[:, 2] + (rng.random(n) < 0.1)  # a near twin of a count feature
    X[:, 11] = 0.0  # constant
    return (np.round(X) if few_values else X), Y


# ---- MDL discretisation ---------------------------------------------------------------------
def test_mdl_accepts_a_clean_cut():
    # values 1..8, classes 0 0 0 0 1 1 1 1: the cut 4.5 leaves two pure halves.
    # N = 8, H(S) = 1, H(S1) = H(S2) = 0, gain = 1; k = 2, k1 = k2 = 1;
    # delta = log2(3^2 - 2) - (2 * 1 - 0 - 0) = log2(7) - 2 = 0.807355
    # threshold = (log2(7 candidate cuts) + delta) / 8 = (2.807355 + 0.807355) / 8 = 0.451839
    threshold = (math.log2(7) + math.log2(7) - 2) / 8
    assert threshold == pytest.approx(0.451839, abs=1e-6)
    assert 1.0 > threshold
    assert _mdl_accepts(np.array([4.0, 4.0]), np.array([4.0, 0.0]), 7)
    values = np.arange(1.0, 9.0)
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1], dtype=float)
    # the pure halves have 3 candidate cuts each and no gain: nothing more
    assert _mdl_cuts(values, y, np.ones(8)) == [4.5]


def test_mdl_rejects_a_weak_cut():
    # values 1..6, classes 0 0 0 1 0 1: prior (4, 2), H(S) = H(1/3) = 0.918296.
    # conditional entropy of each cut (left | right counts of class 0, 1):
    #   1.5: (1,0)|(3,2) 5/6 H(.4)  = 0.809125     gain 0.109170
    #   2.5: (2,0)|(2,2) 4/6 * 1     = 0.666667     gain 0.251629
    #   3.5: (3,0)|(1,2) 3/6 H(1/3) = 0.459148     gain 0.459148  <- best
    #   4.5: (3,1)|(1,1) 4/6 H(.25) + 2/6 = 0.874185  gain 0.044110
    #   5.5: (4,1)|(0,1) 5/6 H(.2)  = 0.601607     gain 0.316689
    # k = 2, k1 = 1, k2 = 2: delta = log2(7) - (2 H(S) - 0 - 2 H(S)) = log2(7) = 2.807355
    # threshold = (log2(5) + log2(7)) / 6 = (2.321928 + 2.807355) / 6 = 0.854881 > 0.459148
    gain = _entropy([4, 2]) - 3 / 6 * _entropy([1, 2])
    threshold = (math.log2(5) + math.log2(7)) / 6
    assert gain == pytest.approx(0.459148, abs=1e-6)
    assert threshold == pytest.approx(0.854881, abs=1e-6)
    assert not _mdl_accepts(np.array([4.0, 2.0]), np.array([3.0, 0.0]), 5)
    values = np.arange(1.0, 7.0)
    assert _mdl_cuts(values, np.array([0, 0, 0, 1, 0, 1.0]), np.ones(6)) == []


def test_mdl_recursion_cuts_twice_and_never_splits_a_pure_part():
    # values 1 (x6, class 0), 2 (x6, class 1), 3 (x5, class 0), 4 (x6, class 0): N = 23,
    # prior (17, 6), H(S) = H(6/23) = 0.828056; 3 candidate cuts.
    #   1.5: (6,0)|(11,6)  17/23 H(6/17) = 0.692319
    #   2.5: (6,6)|(11,0)  12/23 * 1     = 0.521739  <- best, gain 0.306317
    #   3.5: (11,6)|(6,0)  17/23 H(6/17) = 0.692319
    # k = 2, k1 = 2, k2 = 1: delta = log2(7) - (2 * 0.828056 - 2 * 1 - 0) = 3.151243
    # threshold = (log2(3) + 3.151243) / 23 = 0.205922 < 0.306317: cut 2.5.
    # Left {1, 2}: (6, 6), one candidate, gain 1 > (log2(1) + log2(7) - 2) / 12 = 0.067280:
    # cut 1.5. Right {3, 4}: one class, no gain: no cut (rounding must not make one).
    prior_entropy = _entropy([17, 6])
    gain = prior_entropy - 12 / 23
    threshold = (math.log2(3) + math.log2(7) - (2 * prior_entropy - 2)) / 23
    assert gain == pytest.approx(0.306317, abs=1e-6)
    assert threshold == pytest.approx(0.205922, abs=1e-6)
    assert (math.log2(7) - 2) / 12 == pytest.approx(0.067280, abs=1e-6)
    values = np.repeat([1.0, 2.0, 3.0, 4.0], [6, 6, 5, 6])
    y = np.repeat([0.0, 1.0, 0.0, 0.0], [6, 6, 5, 6])
    assert _mdl_cuts(values, y, np.ones(23)) == [1.5, 2.5]
    # a part of one class has no gain, whatever its size and number of candidate cuts
    for n, n_left in itertools.product(range(2, 40), range(1, 8)):
        if n_left < n:
            assert not _mdl_accepts(np.array([float(n), 0.0]), np.array([float(n_left), 0]), 1)


def test_mdl_threshold_counts_distinct_boundaries_not_rows():
    # ten rows of value 0 (classes 8 x 0, 2 x 1) and ten of value 1 (2 x 0, 8 x 1): N = 20,
    # one boundary. H(S) = 1, H(S1) = H(S2) = H(.2) = 0.721928, gain = 0.278072;
    # k = k1 = k2 = 2: delta = log2(7) - (2 - 4 * 0.721928) = 3.695067.
    # better encoding: (log2(1) + 3.695067) / 20 = 0.184753 < gain: accepted;
    # N - 1 cuts:      (log2(19) + 3.695067) / 20 = 0.397150 > gain: rejected.
    h = _entropy([8, 2])
    gain = 1 - h
    delta = math.log2(7) - (2 - 4 * h)
    assert gain == pytest.approx(0.278072, abs=1e-6)
    assert delta / 20 == pytest.approx(0.184753, abs=1e-6) and delta / 20 < gain
    assert (math.log2(19) + delta) / 20 == pytest.approx(0.397150, abs=1e-6)
    assert (math.log2(19) + delta) / 20 > gain
    prior, left = np.array([10.0, 10.0]), np.array([8.0, 2.0])
    assert _mdl_accepts(prior, left, 1)
    assert not _mdl_accepts(prior, left, 19)
    values = np.repeat([0.0, 1.0], 10)
    y = np.array([0.0] * 8 + [1.0] * 2 + [0.0] * 2 + [1.0] * 8)
    assert _mdl_cuts(values, y, np.ones(20)) == [0.5]
    # the reference with Weka's "worse" encoding (N - 1 cuts) would not cut
    assert _reference_cuts(list(values), [int(v) for v in y], [1.0] * 20, False) == []
    # rows of weight 0 (undersampled away) add no boundaries: with their six values the
    # count would be 7 and log2(7) + 3.695067 = 6.502422 > 20 * 0.278072 = 5.561438
    extra = np.array([0.2, 0.4, 0.6, 0.8, 2.0, 3.0])
    X = np.concatenate([values, extra])[:, None]
    Y = np.concatenate([y, [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]])[:, None]
    weights = np.concatenate([np.ones(20), np.zeros(6)])[:, None]
    assert (math.log2(7) + delta) / 20 > gain
    assert weka_cfs_masks(X, Y, weights).tolist() == [[True]]
    assert weka_cfs_masks(X, Y, np.ones_like(weights)).tolist() == [[False]]


def test_mdl_takes_the_first_of_equally_good_cuts():
    # values 1..6, three rows each, classes 0 0 1 0 1 1: prior (9, 9), H(S) = 1, N = 18.
    # The cuts 2.5, (6,0)|(3,9), and 4.5, (9,3)|(0,6), both leave 12/18 H(1/4) = 0.540852:
    # gain 0.459148. k = 2, k1 = 1, k2 = 2: delta = log2(7) - (2 - 2 H(1/4)) = 2.429911;
    # threshold = (log2(5) + 2.429911) / 18 = 0.263991: accepted, and Weka keeps the first
    # (it replaces the best cut only on a strictly smaller entropy). No part is cut again.
    h = _entropy([1, 3])
    assert 1 - 12 / 18 * h == pytest.approx(0.459148, abs=1e-6)
    assert (math.log2(5) + math.log2(7) - (2 - 2 * h)) / 18 == pytest.approx(0.263991, abs=1e-6)
    values = np.repeat(np.arange(1.0, 7.0), 3)
    y = np.repeat([0.0, 0.0, 1.0, 0.0, 1.0, 1.0], 3)
    assert _mdl_cuts(values, y, np.ones(18)) == [2.5]


def test_interval_indicators_code_weka_bins_without_the_bin_of_zero():
    # Weka's bin of v is the first j with v <= cuts[j] (the last bin if none): the bin
    # holding 0 is the reference, coded by no column; the others get a column each, in order.
    values = np.array(
        [[-2.0, 0.0, 7.0], [-0.5, 1.0, 9.0], [0.0, 1.5, 10.0], [0.7, 3.0, 12.0], [4.0, 0.2, 8.5]]
    )
    cuts = [[-1.0, 0.5, 2.0], [1.0], [8.0, 9.5]]
    E, sizes = _interval_indicators(values, cuts)
    assert sizes.tolist() == [3, 1, 2]
    # bins: column 0 -> 0 1 1 2 3 (reference 1); column 1 -> 0 0 1 1 0 (reference 0);
    # column 2 -> 0 1 2 2 1 (0 lies below 8: reference 0)
    expected = [
        # bins 0, 2, 3 | bin 1 | bins 1, 2
        [1, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 1, 0],
        [0, 0, 0, 1, 0, 1],
        [0, 1, 0, 1, 0, 1],
        [0, 0, 1, 0, 1, 0],
    ]
    assert sp.issparse(E) and E.toarray().tolist() == expected


@pytest.mark.parametrize("seed", range(6))
def test_mdl_cuts_equal_the_plain_recursion(seed):
    rng = np.random.default_rng(seed)
    n = 150
    y = (rng.random(n) < 0.4).astype(int)
    weights = rng.choice([0.5, 1.0, 2.0], size=n)
    for x in (
        np.round(rng.normal(size=n) + 2.0 * y, 1),
        rng.poisson(1 + 3 * y).astype(float),
        np.where(rng.random(n) < 0.5, 0.0, rng.normal(size=n) + 3 * y),
    ):
        order = np.argsort(x, kind="stable")
        values, labels, w = x[order], y[order], weights[order]
        expected = _reference_cuts(list(values), list(labels), list(w))
        got = _mdl_cuts(values, (labels * w).astype(float), w)
        np.testing.assert_allclose(got, expected, rtol=0, atol=0)


# ---- symmetrical uncertainty ------------------------------------------------------------------
def _coded(*features):
    """Indicator columns of every category but the first of each feature, and block starts."""
    columns, starts = [], []
    for codes in features:
        starts.append(len(columns))
        columns.extend((codes == c).astype(float) for c in np.unique(codes)[1:])
    return np.column_stack(columns), np.array(starts)


@pytest.mark.parametrize("sparse", [False, True])
def test_su_equals_the_weighted_contingency_table(sparse):
    rng = np.random.default_rng(0)
    n = 200
    binary = (rng.random(n) < 0.3).astype(int)
    three = np.where(binary == 1, rng.integers(0, 2, n), rng.integers(0, 3, n))
    five = (three + rng.integers(0, 3, n)) % 5
    other = (rng.random(n) < 0.4 + 0.3 * binary).astype(int)
    four = rng.integers(0, 4, n)
    weights = rng.choice([0.0, 0.5, 1.0, 3.0], size=n)  # zero-weight rows drop out
    rows_features, column_features = (binary, three, five), (other, four, binary)
    E, e_starts = _coded(*rows_features)
    T, t_starts = _coded(*column_features)
    if sparse:
        E, T = sp.csc_matrix(E), sp.csc_matrix(T)
    su = _symmetrical_uncertainty(E, e_starts, T, t_starts, weights)
    expected = [[_reference_su(a, b, weights) for b in column_features] for a in rows_features]
    assert np.min(expected) > 1e-3  # no pair is (nearly) independent
    np.testing.assert_allclose(su, expected, rtol=1e-9, atol=1e-12)


def test_su_with_itself_is_one_and_of_independent_features_zero():
    # a, b: every combination of a in {0, 1, 2} and b in {0, 1} equally often (independent)
    a = np.repeat([0, 1, 2], 4 * 2)
    b = np.tile(np.repeat([0, 1], 4), 3)
    E, starts = _coded(a, b)
    su = _symmetrical_uncertainty(E, starts, E, starts, np.ones(len(a)))
    np.testing.assert_allclose(su, [[1.0, 0.0], [0.0, 1.0]], atol=1e-12)
    assert _reference_su(a, b, np.ones(len(a))) == pytest.approx(0.0, abs=1e-12)


# ---- weka_cfs_masks against the reference ---------------------------------------------------
@pytest.mark.parametrize("nominal", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_masks_equal_the_slow_reference(seed, sparse, nominal):
    X, Y = _mixed_data(seed, few_values=nominal)
    keep = undersampling_mask(Y, 1.5, np.random.RandomState(seed))  # zero-weight rows
    assert (keep == 0).any(axis=0).sum() >= 2, "some labels must be undersampled"
    mask = weka_cfs_masks(sp.csr_matrix(X) if sparse else X, Y, keep, nominal=nominal)
    for label in range(Y.shape[1]):
        expected = _reference_cfs(X, Y[:, label], keep[:, label], nominal=nominal)
        assert set(np.flatnonzero(mask[label])) == expected
    assert not mask[:, 11].any()


@pytest.mark.parametrize("max_stale", [1, 5])
def test_max_stale_steps_without_improvement_end_the_search(max_stale, monkeypatch):
    # every value of the continuous features a category: a case where a search improves
    # again after a stale step (the refusal of many-valued nominal features is lifted)
    monkeypatch.setattr(weka_cfs_module, "_MAX_NOMINAL_VALUES", 10**6)
    X, Y = _mixed_data(3)
    weights = np.ones(Y.shape)
    mask = weka_cfs_masks(X, Y, weights, nominal=True, max_stale=max_stale)
    expected = [
        _reference_cfs(X, Y[:, label], weights[:, label], nominal=True, max_stale=max_stale)
        for label in range(3)
    ]
    assert [set(np.flatnonzero(row)) for row in mask] == expected
    # label 0 improves again after a stale step: {3} with max_stale 1, {0, 3, 6, 9} with 5
    assert expected[0] == ({3} if max_stale == 1 else {0, 3, 6, 9})


def test_a_perfect_predictor_is_selected_and_features_tying_with_it_are_added():
    # f0 = y; f1 = y with 10 % flips; f2 = f1 with 25 % flips. The search keeps {f0}
    # (merit 1; adding g gives (1 + s_g) / sqrt(2 + 2 s_g) < 1). Locally predictive, in
    # decreasing SU with y: SU(f0, f1) = SU(y, f1), not larger: f1 joins (Weka rejects only
    # on ">"); f2 ties with f0 too but SU(f1, f2) > SU(y, f2): f2 stays out.
    rng = np.random.default_rng(3)
    n = 200
    y = (rng.random(n) < 0.4).astype(float)
    f1 = np.abs(y - (rng.random(n) < 0.1))
    f2 = np.abs(f1 - (rng.random(n) < 0.25))
    X = np.column_stack([y, f1, f2])
    ones = np.ones(n)
    s1, s2 = _reference_su(f1, y, ones), _reference_su(f2, y, ones)
    assert 0 < s2 < s1 < 1 and _reference_su(f1, f2, ones) > s2
    for nominal in (False, True):
        mask = weka_cfs_masks(X, y[:, None], ones[:, None], nominal=nominal)
        assert np.flatnonzero(mask[0]).tolist() == [0, 1]
        assert _reference_cfs(X, y, ones, nominal=nominal) == {0, 1}


def test_independent_features_count_as_fully_redundant():
    # a, b independent (each combination 10 times), y = a and b. SU(a, y) = SU(b, y) =
    # 2 (1 + H(.25) - 1.5) / (1 + H(.25)) = 2 * 0.311278 / 1.811278 = 0.343711; SU(a, b) = 0,
    # which Weka's symmUncertCorr turns into 1 between features: merit({a, b}) =
    # 2 * 0.343711 / sqrt(2 + 2 * 1) = 0.343711, no better than {a}; b is not locally
    # predictive either (1 > 0.343711). With SU(a, b) = 0 the pair would have merit 0.486.
    a = np.repeat([0.0, 0.0, 1.0, 1.0], 10)
    b = np.repeat([0.0, 1.0, 0.0, 1.0], 10)
    y = a * b
    ones = np.ones(40)
    assert _reference_su(a, y, ones) == pytest.approx(0.343711, abs=1e-6)
    assert _reference_su(a, b, ones) == pytest.approx(0.0, abs=1e-12)
    for nominal in (False, True):
        mask = weka_cfs_masks(np.column_stack([a, b]), y[:, None], ones[:, None], nominal=nominal)
        assert mask.tolist() == [[True, False]]


def test_a_merit_gain_of_at_most_1e5_is_not_an_improvement():
    # one row per (y, a, b) with weight = its count; the weight t of (y=1, a=0, b=1) is set
    # so that merit({a, b}) - merit({a}) = 5e-6 (by bisection on the reference). BestFirst
    # needs a gain above 1e-5, and SU(a, b) > SU(b, y) keeps b out of the locally
    # predictive step: the selection is {a}. A gain of 5e-5 takes {a, b}.
    cells = list(itertools.product((0, 1), repeat=3))  # (y, a, b)
    counts = dict(zip(cells, [30, 6, 5, 4, 4, 5, 6, 30], strict=True))
    y, a, b = ([c[i] for c in cells] for i in range(3))

    def weights_and_gain(t):
        w = [float(t if c == (1, 0, 1) else counts[c]) for c in cells]
        s_a, s_b = _weka_correlation(a, y, w, True), _weka_correlation(b, y, w, True)
        r = _weka_correlation(a, b, w, False)
        return w, (s_a + s_b) / math.sqrt(2 + 2 * r) - max(s_a, s_b), r > s_b

    def selection(target):
        low, high = 0.0, 1.0  # the gain grows with t here: < 0 at 0, > 0 at 1
        for _ in range(60):
            middle = (low + high) / 2
            low, high = (middle, high) if weights_and_gain(middle)[1] < target else (low, middle)
        w, gain, b_redundant = weights_and_gain(high)
        assert 0 < gain < 1e-4 and b_redundant
        X, Y = np.column_stack([a, b]).astype(float), np.array(y, float)[:, None]
        mask = weka_cfs_masks(X, Y, np.array(w)[:, None], nominal=True)
        return gain, np.flatnonzero(mask[0]).tolist()

    gain, selected = selection(5e-6)
    assert gain <= 1e-5 and selected == [0]
    gain, selected = selection(5e-5)
    assert gain > 1e-5 and selected == [0, 1]


# ---- edge cases ---------------------------------------------------------------------------
@pytest.mark.parametrize("sparse", [False, True])
def test_a_label_constant_under_its_weights_selects_nothing(sparse):
    X, Y = _mixed_data(4, few_values=True)
    Y[:, 0] = 0.0  # constant
    weights = np.ones(Y.shape)
    weights[Y[:, 1] == 1, 1] = 0.0  # only negatives left
    for nominal in (False, True):
        mask = weka_cfs_masks(sp.csr_matrix(X) if sparse else X, Y, weights, nominal=nominal)
        assert not mask[:2].any() and mask[2].any()


@pytest.mark.parametrize("sparse", [False, True])
def test_a_feature_constant_on_the_kept_rows_is_never_selected(sparse):
    X, Y = _mixed_data(5)
    rng = np.random.default_rng(50)  # not the data's seed: its labels come from the same draws
    weights = (rng.random(Y.shape) < 0.7).astype(float)
    dropped = weights[:, 0] == 0  # label 0's dropped rows
    X[:, 3] = np.where(dropped, Y[:, 0], 0.0)  # = y on the dropped rows, 0 on the kept ones
    X[:, 6] = np.where(dropped, 1.0 + 3.0 * Y[:, 0] + rng.integers(0, 2, len(X)), 5.0)
    for nominal in (False, True):
        mask = weka_cfs_masks(sp.csr_matrix(X) if sparse else X, Y, weights, nominal=nominal)
        assert not mask[0, [3, 6]].any()
        expected = _reference_cfs(X, Y[:, 0], weights[:, 0], nominal=nominal)
        assert set(np.flatnonzero(mask[0])) == expected
        # on the dropped rows feature 3 is the label itself: leaked rows would select it
        inverse = weka_cfs_masks(X, Y[:, :1], 1.0 - weights[:, :1], nominal=nominal)
        assert inverse[0, 3]


def test_max_features_keeps_a_random_subset_of_the_selection():
    X, Y = _mixed_data(6, n=160)
    weights = np.ones(Y.shape)
    k = 2
    capped = weka_cfs_masks(X, Y, weights, max_features=k, rng=np.random.RandomState(7))
    rng = np.random.RandomState(7)
    cut = 0
    for label in range(Y.shape[1]):
        # the search stops at 2 k features; the random cut then draws k of the selection
        selected = sorted(_reference_cfs(X, Y[:, label], weights[:, label], max_features=k))
        if len(selected) > k:
            selected = sorted(rng.choice(selected, k, replace=False))
            cut += 1
        assert np.flatnonzero(capped[label]).tolist() == selected
    assert cut >= 2


def test_sparse_input_of_any_format_is_left_unchanged():
    X, Y = _mixed_data(7)
    weights = np.ones(Y.shape)
    expected = weka_cfs_masks(X, Y, weights)
    csc = sp.csc_matrix(X)
    csc.data[::5] = 0.0  # explicit zeros, which the module eliminates on its own copy
    dense = csc.toarray()
    before = (csc.data.copy(), csc.indices.copy(), csc.indptr.copy())
    np.testing.assert_array_equal(
        weka_cfs_masks(csc, Y, weights), weka_cfs_masks(dense, Y, weights)
    )
    for array, copy in zip((csc.data, csc.indices, csc.indptr), before, strict=True):
        np.testing.assert_array_equal(array, copy)
    np.testing.assert_array_equal(weka_cfs_masks(sp.coo_matrix(X), Y, weights), expected)


# ---- in the dynamic chain ensemble -------------------------------------------------------------
@pytest.mark.parametrize("selection", ["cfs-weka", "cfs-weka-nominal"])
def test_ensemble_member_masks_are_weka_cfs_of_its_kept_rows(shared_dataset, selection):
    train = shared_dataset("medical", "train")
    X, Y = train.X, np.asarray(train.Y)
    model = DynamicChainEnsemble(
        n_chains=1,
        sample_fraction=1.0,
        order="random",
        events="bernoulli",
        feature_selection=selection,
        random_state=0,
    ).fit(X, Y)
    # the member's first draw is its undersampling (no sample, no validation split here)
    keep = undersampling_mask(Y, 20.0, np.random.RandomState(0))
    assert (keep.sum(axis=0) < len(Y)).any(), "medical has labels to undersample"
    expected = weka_cfs_masks(
        model.events_.prepare(X), Y, keep, nominal=selection.endswith("nominal")
    )
    np.testing.assert_array_equal(model.feature_masks_[0], expected)
    assert 0 < expected.sum() < expected.size


def test_ensemble_with_weka_cfs_fits_and_predicts_medical(shared_dataset):
    train, test = shared_dataset("medical", "train"), shared_dataset("medical", "test")
    model = DynamicChainEnsemble(
        n_chains=2,
        events="bernoulli",
        feature_selection="cfs-weka",
        beta=1.0,
        rule="predict",
        random_state=0,
    ).fit(train.X, train.Y)
    proba = model.predict_proba(test.X)
    assert proba.shape == test.Y.shape and set(np.unique(proba)) <= {0.0, 0.5, 1.0}
    np.testing.assert_array_equal(model.predict(test.X), (proba > 0.5).astype(int))
    assert all(mask.shape == (train.Y.shape[1], train.X.shape[1]) for mask in model.feature_masks_)


def test_unknown_feature_selection_lists_the_choices():
    X, Y = _mixed_data(0, n=40)
    with pytest.raises(ValueError, match=re.escape("['cfs', 'cfs-weka', 'cfs-weka-nominal']")):
        DynamicChainEnsemble(feature_selection="cfs-java").fit(X, Y)


def test_nominal_refuses_a_numeric_feature():
    rng = np.random.RandomState(0)
    X = np.column_stack([rng.randint(0, 3, 200), rng.randn(200)])  # 3 categories; numeric
    Y = rng.randint(0, 2, (200, 1))
    weights = np.ones((200, 1))
    weka_cfs_masks(X[:, :1], Y, weights, nominal=True)  # a few categories: fine
    with pytest.raises(ValueError, match=r"feature 1 has 200 distinct values.*cfs-weka"):
        weka_cfs_masks(X, Y, weights, nominal=True)
    assert weka_cfs_masks(X, Y, weights, nominal=False).shape == (1, 2)
