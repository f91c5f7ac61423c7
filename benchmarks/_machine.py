"""What the benchmark scripts report of the machine they ran on."""

from __future__ import annotations

import platform
import re
from pathlib import Path


def cpu_name():
    """The processor's model name (Linux's /proc/cpuinfo), else what platform knows."""
    try:
        text = Path("/proc/cpuinfo").read_text()
        return re.search(r"model name\s*:\s*(.+)", text).group(1).strip()
    except (OSError, AttributeError):
        return platform.processor() or platform.machine()
