"""The line a benchmark prints about the machine it ran on."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def machine_line() -> str:
    """The system, its release and architecture, the CPU's model name and the core count."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"machine: {platform.system()} {platform.release()} {platform.machine()}, {cpu}, {os.cpu_count()} cores"
