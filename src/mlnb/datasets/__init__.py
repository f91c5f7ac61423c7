"""Data: ARFF and text loaders, the data-set registry, generators and label statistics.

- `load_arff` / `iter_arff`: Mulan and MEKA ARFF files (dense, sparse, gz/bz2) as a
  `Dataset` or as streamed ``(X, Y)`` chunks; malformed input raises `ArffError`.
- `load_dataset`: benchmark sets by name (``../shared/data`` beside the repository,
  ``$MLNB_DATA`` or ``data_dir``); a `TrainTest` pair when a split is provided.
- `load_text_corpus`: WebKB, R8 and the raw 20 Newsgroups archive with Cardoso-Cachopo's
  cleaning (`clean_text`).
- `make_multilabel`, `make_subset_selection`: synthetic data (NaiBX's power plants).
- `describe`: label cardinality, density, imbalance ratio, label sets;
  `describe_dataset` and `describe_text_corpus` describe a whole data set by name,
  cached on disk (``$MLNB_CACHE_DIR``, ``$XDG_CACHE_HOME/mlnb`` or ``~/.cache/mlnb``).
"""

from ._arff import ArffChunks, ArffError, iter_arff, load_arff
from ._dataset import Dataset, TrainTest
from ._describe import LabelStats, describe
from ._generators import make_multilabel, make_subset_selection
from ._registry import data_home, describe_dataset, list_datasets, load_dataset
from ._text import (
    TextCorpus,
    clean_text,
    describe_text_corpus,
    load_text_corpus,
    smart_stop_words,
)

__all__ = [
    "ArffChunks",
    "ArffError",
    "Dataset",
    "LabelStats",
    "TextCorpus",
    "TrainTest",
    "clean_text",
    "data_home",
    "describe",
    "describe_dataset",
    "describe_text_corpus",
    "iter_arff",
    "list_datasets",
    "load_arff",
    "load_dataset",
    "load_text_corpus",
    "make_multilabel",
    "make_subset_selection",
    "smart_stop_words",
]
