"""Memory of the benchmark's process (Linux): resident size, its peak, and resetting both.

The peak is the kernel's high-water mark ``VmHWM``; ``/proc/self/clear_refs`` resets it, and
``malloc_trim(0)`` first returns freed heap pages, so that a case's peak is its own.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import re
import sys
from pathlib import Path


def rss_kib():
    """Current resident set size of this process, KiB (Linux)."""
    with open("/proc/self/status") as status:
        return int(re.search(r"VmRSS:\s+(\d+)", status.read()).group(1))


def peak_rss_kib():
    """Peak resident set size of this process since the last reset (or since exec), KiB.

    Linux: ``VmHWM`` of /proc/self/status, this process's own high-water mark.
    ``getrusage(RUSAGE_SELF).ru_maxrss`` is not used there: Linux carries it across ``exec``
    from the forked copy of the parent, so a child would report at least the parent's size.
    Elsewhere, ru_maxrss (bytes on macOS, KiB on the other systems).
    """
    status = Path("/proc/self/status")
    if status.is_file():
        return int(re.search(r"VmHWM:\s+(\d+)", status.read_text()).group(1))
    import resource

    scale = 1024 if sys.platform == "darwin" else 1
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // scale


def release_free_memory():
    """Collect garbage and hand the heap's free pages back to the OS (glibc ``malloc_trim``).

    Otherwise the memory that loading the data freed stays resident, later allocations reuse
    it without raising the resident size, and a peak measured from there is too low.
    """
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def reset_peak_rss():
    """Reset the peak resident set size (Linux >= 4.0); False when not permitted."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        return False
    return True
