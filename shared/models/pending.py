"""How many model calls of this process are unfinished (waiting for the model, or running), by kind: the
model queue depth the cloud's and the edges' metrics report.

Every backend counts its calls here (:func:`model_calls`), in-process runtimes and remote servers alike, from
the moment a call arrives (before it waits for its model's lock or the machine's) until it returns.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

GENERATE = "generate"
EMBED = "embed"


class PendingCalls:
    """Counts of unfinished model calls by kind (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending = {GENERATE: 0, EMBED: 0}

    @contextmanager
    def counted(self, kind: str) -> Iterator[None]:
        """Count one call of ``kind`` for the duration of the block."""
        with self._lock:
            self._pending[kind] = self._pending.get(kind, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                self._pending[kind] -= 1

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self._pending)


_CALLS: list[PendingCalls] = []
_GUARD = threading.Lock()


def model_calls() -> PendingCalls:
    """This process's counts (made on first use)."""
    with _GUARD:
        if not _CALLS:
            _CALLS.append(PendingCalls())
        return _CALLS[0]
