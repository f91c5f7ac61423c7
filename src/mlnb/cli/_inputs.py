"""Where the ``mlnb`` command gets its data: registry names, ARFF files, generated sets."""

from __future__ import annotations

from pathlib import Path

from ..datasets import Dataset, load_arff, load_dataset, make_multilabel
from ..datasets._dataset import concatenate

__all__ = ["GENERATED", "load_data"]

# Built-in generated data sets: the default of `mlnb compare` and usable anywhere.
GENERATED = {
    "synthetic-gaussian": {"features": "gaussian", "label_dependence": 0.6, "random_state": 1},
    "synthetic-counts": {"features": "counts", "label_dependence": 0.6, "random_state": 2},
    "synthetic-independent": {"features": "gaussian", "label_dependence": 0.0, "random_state": 3},
    "synthetic-dependent": {"features": "gaussian", "label_dependence": 0.9, "random_state": 4},
}


def load_data(name, *, data_dir=None, part="full"):
    """A Dataset from a generated name, a registry name or an ARFF path.

    ``part``: "full" (train and test together when the set is split), "train" or "test".
    """
    if name in GENERATED:
        X, Y = make_multilabel(600, 20, 6, cardinality=1.8, **GENERATED[name])
        names = [f"x{i}" for i in range(X.shape[1])], [f"y{j}" for j in range(Y.shape[1])]
        return Dataset(X=X, Y=Y, feature_names=names[0], label_names=names[1], name=name)
    path = Path(name)
    if path.suffix in {".arff", ".gz", ".bz2"} or path.is_file():
        return load_arff(path)
    loaded = load_dataset(name, data_dir)
    if isinstance(loaded, Dataset):
        return loaded
    if part == "full":
        return concatenate(list(loaded), name=name)
    return getattr(loaded, part)
