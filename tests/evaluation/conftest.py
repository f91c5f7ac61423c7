"""Fixtures shared by the evaluation tests."""

import pytest
from sklearn.datasets import make_multilabel_classification


@pytest.fixture(scope="module")
def multilabel():
    """150 rows, 8 features, 6 labels (about 2 per row)."""
    X, Y = make_multilabel_classification(
        n_samples=150, n_features=8, n_classes=6, n_labels=2, random_state=0
    )
    return X, Y
