"""Lazy imports of the optional dependencies, with a message naming the extra to install."""

from __future__ import annotations

import importlib

__all__ = ["require"]

_EXTRA = {
    "pandas": "stats",
    "statsmodels": "stats",
    "scikit_posthocs": "stats",
    "iterstrat": "stats",
    "matplotlib": "plot",
}
_DIST = {"scikit_posthocs": "scikit-posthocs", "iterstrat": "iterative-stratification"}


def require(module, purpose):
    """Import and return ``module``, or raise an ImportError that names the extra.

    Parameters
    ----------
    module : str
        Import name, e.g. ``"statsmodels.stats.multitest"``.
    purpose : str
        What needs it, for the message.
    """
    top = module.split(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        extra = _EXTRA.get(top, "stats")
        dist = _DIST.get(top, top)
        raise ImportError(
            f"{purpose} needs the optional package {dist!r}, which is not installed; "
            f'install it with: pip install "mlnb[{extra}]"'
        ) from exc
