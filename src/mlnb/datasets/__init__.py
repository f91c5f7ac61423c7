"""Data: ARFF and text loaders, the data-set registry, generators and label statistics.

- `load_arff` / `iter_arff`: Mulan and MEKA ARFF files (dense, sparse, gz/bz2) as a
  `Dataset` or as streamed ``(X, Y)`` chunks; malformed input raises `ArffError`;
  `save_arff` writes them (Mulan or MEKA layout, dense or sparse).
- `load_table` / `from_dataframe`: CSV and Parquet files and pandas DataFrames of features
  and 0/1 label columns (named, or counted as MEKA's ``-C N``).
- `load_dataset`: benchmark sets by name (``../shared/data`` beside the repository,
  ``$MLNB_DATA`` or ``data_dir``; the names come from its manifest and folders), or an
  ARFF, CSV or Parquet file; a `TrainTest` pair when a split is provided;
  ``multi_target=True`` reads a multi-target set's classes (`dataset_kind` tells which sets
  are multi-target: ``sf2``).
- `load_text_corpus`: WebKB, R8 and 20 Newsgroups by name (``webkb``, ``r8``,
  ``20ng_bydate``) with Cardoso-Cachopo's cleaning (`clean_text`), and text of one's own:
  ``label<TAB>text`` files, parallel text and label files, a folder per class (in training
  and test folders or not).
- `make_multilabel`, `make_subset_selection`: synthetic data (NaiBX's power plants);
  `make_extreme_multilabel`: sparse extreme-label data (power-law label frequencies).
- `describe`: label cardinality, density, imbalance ratio, label sets;
  `describe_dataset` and `describe_text_corpus` describe a whole data set by name,
  cached on disk (``$MLNB_CACHE_DIR``, ``$XDG_CACHE_HOME/mlnb`` or ``~/.cache/mlnb``).
"""

from ._arff import ArffChunks, ArffError, iter_arff, load_arff
from ._arff_writer import save_arff
from ._dataset import Dataset, TrainTest
from ._describe import LabelStats, describe
from ._extreme import make_extreme_multilabel
from ._generators import make_multilabel, make_subset_selection
from ._registry import data_home, dataset_kind, describe_dataset, list_datasets, load_dataset
from ._table import from_dataframe, load_table
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
    "dataset_kind",
    "describe",
    "describe_dataset",
    "describe_text_corpus",
    "from_dataframe",
    "iter_arff",
    "list_datasets",
    "load_arff",
    "load_dataset",
    "load_table",
    "load_text_corpus",
    "make_extreme_multilabel",
    "make_multilabel",
    "make_subset_selection",
    "save_arff",
    "smart_stop_words",
]
