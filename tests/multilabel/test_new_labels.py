"""Labels first seen in a later batch of a stream: every online multi-label estimator.

A label column that appears in batch k was 0 in every earlier row: the model after the
stream equals the model of the whole stream with those zeros (its label-pair statistics
included), with the new labels at the end of every chain's order.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from mlnb import (
    IMLNB,
    BinaryRelevance,
    ClassifierChain,
    EnsembleClassifierChains,
    LabelPowerset,
    NaiBX,
    RAkEL,
)

# rows of each batch and the labels it has (the first ones)
BATCHES = [(slice(0, 60), 3), (slice(60, 120), 4), (slice(120, 180), 6)]


def stream(seed=5, sparse_labels=False):
    rng = np.random.default_rng(seed)
    Y = (rng.random((180, 6)) < 0.35).astype(int)
    Y[:, 4] |= Y[:, 1] & (rng.random(180) < 0.7)  # a new label that depends on an old one
    X = rng.poisson(1 + 3 * Y @ rng.random((6, 8)))
    padded = Y.copy()
    batches = []
    for rows, n_labels in BATCHES:
        padded[rows, n_labels:] = 0
        batch = Y[rows, :n_labels]
        batches.append((X[rows], sp.csr_matrix(batch) if sparse_labels else batch))
    return X, padded, batches


def streamed(model, batches):
    for X, Y in batches:
        model.partial_fit(X, Y)
    return model


def assert_same_model(streamed_model, whole, X):
    np.testing.assert_allclose(
        streamed_model.decision_function(X), whole.decision_function(X), rtol=1e-10, atol=1e-10
    )
    np.testing.assert_array_equal(streamed_model.predict(X), whole.predict(X))


# The additive estimators predict with their own rule: a tuned rule is chosen on the first
# batch and dropped when new labels come (until retune), the whole stream's fit chooses anew.
@pytest.mark.parametrize(
    "make",
    [
        lambda: BinaryRelevance(events="multinomial", rule="predict"),
        lambda: ClassifierChain(events="multinomial", rule="predict"),
        lambda: ClassifierChain(
            events="bernoulli", rule="predict", label_prior="marginal", label_alpha=3.0
        ),
        lambda: IMLNB(events="multinomial", rule="predict", threshold=0.05),
        lambda: NaiBX(events="multinomial", rule="predict"),
        lambda: LabelPowerset(events="multinomial"),
    ],
    ids=["br", "cc", "cc-marginal", "imlnb", "naibx", "lp"],
)
@pytest.mark.parametrize("sparse_labels", [False, True])
def test_new_labels_equal_the_zero_padded_whole_stream(make, sparse_labels):
    X, padded, batches = stream(sparse_labels=sparse_labels)
    model = streamed(make(), batches)
    whole = make().fit(X, padded)
    assert model.n_labels_ == 6
    assert_same_model(model, whole, X)
    if isinstance(model, LabelPowerset):  # the same label sets (classes), in any order
        assert set(map(tuple, model.label_sets_[0])) == set(map(tuple, whole.label_sets_[0]))
        return
    if model.label_stats_ is not None:  # the label pairs, new labels included
        np.testing.assert_allclose(model.label_stats_.sums, whole.label_stats_.sums)
        np.testing.assert_allclose(model.label_stats_.total_sums, whole.label_stats_.total_sums)
    if isinstance(model, NaiBX):
        np.testing.assert_allclose(model.size_stats_.sums, whole.size_stats_.sums)
    if isinstance(model, IMLNB):
        np.testing.assert_array_equal(model.selected_, whole.selected_)
        assert model.selected_[4, 1]  # the new label's dependence on an old one is found


def test_new_labels_join_the_end_of_a_random_chain_order():
    X, padded, batches = stream()
    make = lambda **kw: ClassifierChain(events="multinomial", rule="predict", **kw)  # noqa: E731
    model = streamed(make(order="random", random_state=3), batches)
    assert sorted(model.order_[:3]) == [0, 1, 2] and list(model.order_[3:]) == [3, 4, 5]
    whole = make(order=model.order_).fit(X, padded)
    assert_same_model(model, whole, X)


def test_new_labels_in_every_chain_of_an_ensemble():
    X, padded, batches = stream()
    # sample_fraction=1: every chain's sample is every row, whatever the draws
    make = lambda: EnsembleClassifierChains(  # noqa: E731
        events="multinomial", n_chains=4, sample_fraction=1.0, random_state=0
    )
    model = streamed(make(), batches)
    for order in model.orders_:
        assert sorted(order[:3]) == [0, 1, 2] and list(order[3:]) == [3, 4, 5]
    whole = make()
    for rows, _ in BATCHES:  # the same online memberships, all labels from the start
        whole.partial_fit(X[rows], padded[rows])
    whole.orders_ = model.orders_
    np.testing.assert_allclose(model.feature_stats_.sums, whole.feature_stats_.sums)
    np.testing.assert_allclose(model.label_stats_.sums, whole.label_stats_.sums)
    assert_same_model(model, whole, X)


def test_new_labels_with_sampled_chains_keep_each_chain_its_rows():
    X, _, batches = stream()
    model = streamed(
        EnsembleClassifierChains(
            events="multinomial", n_chains=3, rule="predict", random_state=1
        ),  # the vote (a rule chosen on the first batch is dropped as labels grow)
        batches,
    )
    L, K = model.n_labels_, 3
    samples = model.feature_stats_.count[K * L :]  # each chain's own rows
    assert np.all((samples > 0) & (samples < 180))
    for k in range(K):  # a chain's label counts never exceed its sample
        assert np.all(model.feature_stats_.count[k * L : (k + 1) * L] <= samples[k])
    assert model.predict(X).shape == (180, 6)


@pytest.mark.parametrize(
    "model",
    [
        BinaryRelevance(events="multinomial"),
        ClassifierChain(events="multinomial"),
        NaiBX(events="multinomial"),
        EnsembleClassifierChains(events="multinomial", n_chains=2, random_state=0),
    ],
    ids=type,
)
def test_fewer_labels_than_fitted_is_refused_and_changes_nothing(model):
    X, padded, _ = stream()
    model.fit(X[:100], padded[:100, :5])
    before = model.decision_function(X)
    with pytest.raises(ValueError, match="Y has 4 labels; this model was fitted with 5"):
        model.partial_fit(X[100:], padded[100:, :4])
    assert model.n_labels_ == 5
    np.testing.assert_array_equal(model.decision_function(X), before)


def test_one_row_with_a_new_label_takes_the_general_path_of_naibx():
    X, padded, _ = stream()
    model = NaiBX(events="multinomial", rule="predict").fit(X[:100], padded[:100, :5])
    for i in range(100, 103):  # one-row updates: the fast path, then a new label
        model.partial_fit(X[i : i + 1], padded[i : i + 1, : 5 + (i == 102)])
    whole_y = padded[:103].copy()
    whole_y[:102, 5] = 0
    whole = NaiBX(events="multinomial", rule="predict").fit(X[:103], whole_y)
    assert_same_model(model, whole, X)


def test_rakel_refuses_new_labels_and_says_who_takes_them():
    _, _, batches = stream()
    model = RAkEL(events="multinomial", random_state=0).partial_fit(*batches[0])
    with pytest.raises(ValueError, match=r"RAkEL draws its label subsets.*LabelPowerset"):
        model.partial_fit(*batches[1])
    assert model.n_labels_ == 3
