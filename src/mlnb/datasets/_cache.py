"""An on-disk cache of small JSON results about data files (data-set summaries).

Location: ``$MLNB_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/mlnb``, else
``~/.cache/mlnb``; one file ``summaries/<sha256 of the key>.json`` per entry. The key is
what was computed (its kind and options), the mlnb version, and the resolved path, size
and modification time (ns) of every file read, so that a changed, added or removed file
gives a new entry. The cache is an optimisation only: an unreadable, corrupt or
mismatched entry is recomputed, and a directory that cannot be written is ignored, both
silently.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["cache_dir", "cached"]

_FORMAT = 1


def cache_dir() -> Path:
    """The cache directory: ``$MLNB_CACHE_DIR``, ``$XDG_CACHE_HOME/mlnb`` or ``~/.cache/mlnb``."""
    env = os.environ.get("MLNB_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "mlnb"


def _stamps(paths: Iterable[Path]) -> list[list]:
    """(path, size, mtime_ns) of every file of ``paths``; a directory gives all its files."""
    files = set()
    for p in paths:
        p = Path(p)
        if p.is_dir():
            files.update(f for f in p.rglob("*") if f.is_file())
        elif p.exists():
            files.add(p)
    out = []
    for f in sorted(files):
        st = f.stat()
        out.append([str(f.resolve()), st.st_size, st.st_mtime_ns])
    return out


def _read(entry: Path, key: dict) -> dict | None:
    try:
        stored = json.loads(entry.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("key") != key:
        return None
    value = stored.get("value")
    return value if isinstance(value, dict) else None


def _write(entry: Path, key: dict, value: dict) -> None:
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"key": key, "value": value}, f)
            os.replace(tmp, entry)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except (OSError, TypeError, ValueError):
        pass  # read-only or full disk, or a value JSON cannot hold: no caching


def cached(kind: str, options: dict, paths: Iterable[Path], compute: Callable[[], dict]) -> dict:
    """``compute()`` (a JSON-able dict), remembered on disk for the same files and options.

    Parameters
    ----------
    kind : str
        What is computed, e.g. ``"describe_dataset"``.
    options : dict
        The arguments the result depends on (JSON-able).
    paths : iterable of Path
        The files (or folders, meaning all their files) the result is computed from.
    compute : callable
        Called without arguments when there is no valid entry.

    Returns
    -------
    dict
    """
    from .. import __version__

    try:
        key = {
            "format": _FORMAT,
            "version": __version__,
            "kind": kind,
            "options": options,
            "files": _stamps(paths),
        }
        key = json.loads(json.dumps(key))  # the form it takes once stored (tuples -> lists)
        digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode("utf-8")).hexdigest()
        entry = cache_dir() / "summaries" / f"{digest}.json"
    except (OSError, RuntimeError, TypeError, ValueError):  # no home directory, a race, ...
        return compute()
    value = _read(entry, key)
    if value is None:
        value = compute()
        _write(entry, key, value)
    return value
