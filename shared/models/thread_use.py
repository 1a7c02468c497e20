"""Which OS threads of this process did the work between two moments, from the kernel's per-thread CPU time.

The self-test (shared.models.self_test) uses it to show that PyTorch and llama.cpp ran on different threads,
OpenMP workers included, which Python alone cannot see.
"""

from __future__ import annotations

import os
from pathlib import Path

BUSY_SHARE = 0.2
"""A thread did a call's work when it ran at least this share of the busiest thread's CPU time in the call."""
BUSY_FLOOR_NS = 500_000
"""... and at least this long (0.5 ms): an idle OpenMP worker spins for microseconds, not this long."""
_TASKS = Path("/proc/self/task")


def cpu_ns_by_thread() -> dict[int, int]:
    """Each thread's CPU time so far in nanoseconds (schedstat; clock ticks from stat where it is missing)."""
    out: dict[int, int] = {}
    tick_ns = 1_000_000_000 // os.sysconf("SC_CLK_TCK")
    try:
        tasks = list(_TASKS.iterdir())
    except OSError:
        return out
    for task in tasks:
        try:
            out[int(task.name)] = int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            try:
                fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
                out[int(task.name)] = (int(fields[11]) + int(fields[12])) * tick_ns  # utime, stime
            except (OSError, ValueError, IndexError):
                continue
    return out


class ThreadUse:
    """CPU time each thread spent between laps."""

    def __init__(self) -> None:
        self._last = cpu_ns_by_thread()

    def lap(self) -> dict[int, int]:
        """Nanoseconds of CPU each thread ran since the last lap (or since this object was made)."""
        now = cpu_ns_by_thread()
        spent = {tid: ns - self._last.get(tid, 0) for tid, ns in now.items()}
        self._last = now
        return {tid: ns for tid, ns in spent.items() if ns > 0}


def busy_threads(spent: dict[int, int]) -> set[int]:
    """The threads that did the work of a lap: at least ``BUSY_SHARE`` of the busiest one, and ``BUSY_FLOOR_NS``."""
    if not spent:
        return set()
    floor = max(BUSY_FLOOR_NS, BUSY_SHARE * max(spent.values()))
    return {tid for tid, ns in spent.items() if ns >= floor}
