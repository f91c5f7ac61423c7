"""prequential: test-then-train over batches equals the hand-written loop."""

import numpy as np
import pytest
from sklearn.base import clone

from mlnb import BinaryRelevance, MultinomialNB, NaiBX
from mlnb.evaluation import plot_prequential, prequential
from mlnb.metrics import METRICS


def stream(n=360, batch=40, seed=0):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, 4)) < 0.3).astype(int)
    X = rng.poisson(1 + 4 * Y @ rng.random((4, 12)))
    return X, Y, [(X[i : i + batch], Y[i : i + batch]) for i in range(0, n, batch)]


@pytest.mark.parametrize(
    "model", [BinaryRelevance(events="multinomial"), NaiBX(events="multinomial")]
)
def test_equals_the_hand_written_loop(model):
    _, _, batches = stream()
    names = ["hamming", "micro_f1", "example_f1_loss"]
    result = prequential(clone(model), iter(batches), metrics=names, window=3)
    manual = clone(model).partial_fit(*batches[0])
    expected = {name: [] for name in names}
    for X_batch, Y_batch in batches[1:]:
        predicted = manual.predict(X_batch)
        for name in names:
            expected[name].append(METRICS[name](Y_batch, predicted))
        manual.partial_fit(X_batch, Y_batch)
    for name in names:
        np.testing.assert_allclose(result.scores[name], expected[name])
    assert result.n_rows.tolist() == [40] * 8 and result.first_rows == 40
    assert result.rows_seen.tolist() == list(range(80, 361, 40))
    # running: row-weighted means so far; windowed: over the last 3 batches
    hamming = np.array(expected["hamming"])
    np.testing.assert_allclose(result.running()["hamming"], np.cumsum(hamming) / np.arange(1, 9))
    last3 = [hamming[max(0, i - 2) : i + 1].mean() for i in range(8)]
    np.testing.assert_allclose(result.windowed()["hamming"], last3)
    assert result.final()["hamming"] == pytest.approx(hamming.mean())
    assert result.throughput > 0


def test_the_estimator_ends_trained_on_the_whole_stream():
    X, Y, batches = stream()
    model = BinaryRelevance(events="multinomial")
    prequential(model, batches)
    np.testing.assert_allclose(
        model.predict_log_odds(X),
        BinaryRelevance(events="multinomial").fit(X, Y).predict_log_odds(X),
    )


def test_row_by_row_and_single_label_with_classes():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 60)
    X = rng.poisson(1 + 3 * np.eye(3)[y] @ rng.random((3, 6)))
    rows = [(X[i : i + 1], y[i : i + 1]) for i in range(60)]
    with pytest.raises(ValueError, match="classes"):
        prequential(MultinomialNB(), rows)
    result = prequential(MultinomialNB(), rows, classes=[0, 1, 2], metrics="sl_accuracy")
    assert len(result.n_rows) == 59 and set(np.unique(result.scores["sl_accuracy"])) <= {0.0, 1.0}


def test_refusals_name_the_problem():
    _, _, batches = stream()
    with pytest.raises(ValueError, match="label scores"):
        prequential(BinaryRelevance(), batches, metrics="label_ranking_loss")
    with pytest.raises(ValueError, match="window"):
        prequential(BinaryRelevance(), batches, window=0)
    with pytest.raises(ValueError, match="no rows"):
        prequential(BinaryRelevance(), [])
    with pytest.raises(TypeError, match="partial_fit"):
        from mlnb import KNNChain

        prequential(KNNChain(), batches)


def test_plot_writes_the_files(tmp_path):
    pytest.importorskip("matplotlib")
    _, _, batches = stream()
    result = prequential(BinaryRelevance(events="multinomial"), batches, window=2)
    written = plot_prequential(result, tmp_path / "stream", criteria=["hamming", "micro_f1_loss"])
    assert sorted(p.suffix for p in written) == [".png", ".svg"]
    assert all(p.stat().st_size > 0 for p in written)
    with pytest.raises(ValueError, match="not in the result"):
        plot_prequential(result, tmp_path / "x", criteria=["bogus"])
