"""Deprecated import path: :class:`FoldSubtractionSearchCV` now lives in
:mod:`mlnb.selection` (``from mlnb.selection import FoldSubtractionSearchCV``); this module
re-exports it for one release."""

from .selection.search import FoldSubtractionSearchCV

__all__ = ["FoldSubtractionSearchCV"]
