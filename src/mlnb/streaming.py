"""Out-of-core training: ``partial_fit`` over the chunks of ARFF files or any chunk stream.

Naive Bayes statistics are additive, so a model fitted chunk by chunk equals the model
fitted on all rows at once, while memory holds one chunk and the statistics only. This
module feeds the chunks of the streaming ARFF reader (:func:`mlnb.datasets.iter_arff`),
of every ARFF file of a directory, or of any iterable of ``(X, Y)`` pairs to an
estimator's ``partial_fit``.

Examples
--------
>>> import numpy as np
>>> from mlnb import BinaryRelevance
>>> from mlnb.streaming import fit_stream
>>> rng = np.random.default_rng(0)
>>> chunks = [(rng.normal(size=(5, 2)), rng.integers(0, 2, (5, 3))) for _ in range(4)]
>>> model = fit_stream(BinaryRelevance(), chunks)
>>> model.feature_stats_.total_count
20.0
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
from sklearn.base import clone

from .base import adopt_state, check_online, takes_classes
from .datasets import iter_arff

__all__ = ["ARFF_SUFFIXES", "fit_stream", "iter_chunks"]

#: File names that :func:`iter_chunks` reads from a directory.
ARFF_SUFFIXES = (".arff", ".arff.gz", ".arff.bz2")


def _single_label(y):
    """A single-label target from a chunk: an (n, 1) label matrix becomes a vector."""
    y = y.toarray() if hasattr(y, "toarray") else np.asarray(y)
    return y.ravel() if y.ndim == 2 and y.shape[1] == 1 else y


# ---- chunk sources ------------------------------------------------------------------------
def _arff_files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.name.endswith(ARFF_SUFFIXES))
        if not files:
            raise ValueError(f"source: directory {path} holds no {'/'.join(ARFF_SUFFIXES)} file")
        return files
    if not path.is_file():
        raise ValueError(f"source: {path} is neither a file nor a directory")
    return [path]


def _is_paths(source) -> bool:
    if isinstance(source, (str, Path)):
        return True
    return isinstance(source, (list, tuple)) and all(isinstance(s, (str, Path)) for s in source)


def iter_chunks(source, *, chunk_size: int = 10_000, **reader_options) -> Iterator[tuple]:
    """Yield ``(X, Y)`` chunks of at most ``chunk_size`` rows from ARFF files.

    Parameters
    ----------
    source : str, Path, or list of them
        An ARFF file (plain, ``.gz`` or ``.bz2``), a directory (its files ending in
        :data:`ARFF_SUFFIXES`, in name order) or a list of files and directories. All files
        must have the same features and labels, in the same order.
    chunk_size : int, default=10_000
        Rows per chunk; memory is bounded by one chunk.
    **reader_options
        Passed to :func:`mlnb.datasets.iter_arff` (``labels``, ``missing``, ``sparse``,
        ``label_threshold``).

    Yields
    ------
    X : ndarray or CSR matrix of shape (n_chunk, n_features)
    Y : ndarray of shape (n_chunk, n_labels)
    """
    sources = [source] if isinstance(source, (str, Path)) else list(source)
    files = [file for s in sources for file in _arff_files(Path(s))]
    names = None
    for file in files:
        chunks = iter_arff(file, chunk_size=chunk_size, **reader_options)
        these = (list(chunks.feature_names), list(chunks.label_names))
        if names is None:
            names, first = these, file
        elif these != names:
            raise ValueError(
                f"{file}: its features or labels differ from those of {first}; every file of "
                "a stream must have the same attributes"
            )
        yield from chunks


def _chunk_source(source, chunk_size, reader_options):
    """``(restart, once)``: ``restart()`` gives a fresh iterator over the chunks, or, for a
    one-shot iterator, ``restart`` is None and ``once`` is that iterator."""
    if _is_paths(source):
        return lambda: iter_chunks(source, chunk_size=chunk_size, **reader_options), None
    if reader_options:
        raise TypeError(f"reader options {sorted(reader_options)} apply to ARFF files only")
    if not isinstance(source, Iterable):
        raise TypeError(
            "source must be an ARFF file, a directory, a list of them, or an iterable of "
            f"(X, Y) chunks; got {type(source).__name__}"
        )
    if iter(source) is source:
        return None, source
    return lambda: iter(source), None


# ---- fitting ------------------------------------------------------------------------------
def fit_stream(estimator, source, *, classes=None, chunk_size: int = 10_000, **reader_options):
    """Fit ``estimator`` from scratch by ``partial_fit`` on each chunk of a stream.

    The result equals ``estimator.fit`` on all rows at once (the statistics are additive),
    while only one chunk is in memory at a time.

    Parameters
    ----------
    estimator : estimator with ``partial_fit``
        Fitted in place (its earlier state, if any, is discarded) and returned.
    source : str, Path, list of them, or iterable of (X, Y) pairs
        ARFF file(s) or directories read with :func:`iter_chunks`, or chunks already made
        (arrays, CSR matrices or data frames), e.g. a generator.
    classes : array-like, default=None
        For single-label classifiers (whose ``partial_fit`` takes ``classes``): every class.
        None means a first pass over the stream to collect them, which needs a source that
        can be read twice (files, a list of chunks): pass ``classes`` with a generator.
        A single-label classifier takes the one label column of ARFF data as its target.
    chunk_size : int, default=10_000
        Rows per chunk read from ARFF files.
    **reader_options
        Passed to :func:`mlnb.datasets.iter_arff` for ARFF sources.

    Returns
    -------
    estimator
        The fitted estimator.

    Raises
    ------
    ValueError
        If the stream has no rows, or ``classes`` is needed from a one-shot iterator.
    """
    check_online(estimator)
    restart, once = _chunk_source(source, chunk_size, reader_options)
    kwargs = {}
    single_label = takes_classes(estimator)
    if single_label:
        if classes is None:
            if restart is None:
                raise ValueError(
                    "classes must be given when source is a one-shot iterator: finding them "
                    "needs a pass over the stream before fitting"
                )
            classes = _stream_classes(restart())
        kwargs["classes"] = np.unique(np.asarray(classes))
    model = clone(estimator)
    n_rows = 0
    for X, Y in restart() if once is None else once:
        if X.shape[0] == 0:
            continue
        model.partial_fit(X, _single_label(Y) if single_label else Y, **kwargs)
        n_rows += X.shape[0]
    if n_rows == 0:
        raise ValueError("source: the stream holds no rows to fit")
    return adopt_state(estimator, model)


def _stream_classes(chunks) -> np.ndarray:
    """Every class of a single-label stream, in one pass that keeps only the classes."""
    seen = [np.unique(_single_label(Y)) for _, Y in chunks]
    if not seen:
        raise ValueError("source: the stream holds no rows to fit")
    return np.unique(np.concatenate(seen))
