"""One model computation at a time per machine: a file lock every in-process model runtime takes per call.

On a small CPU machine two model processes computing at once share the cores badly: each runs its kernels
on all cores with a barrier per operation, and a barrier waits for threads the other process has
descheduled. Measured on 2 cores (benchmarks/slm_speed.py --concurrent): two processes decoding at once
get 0.4x of one alone in total. dgrag puts several model processes on one machine (edges, the cloud and
the simulation's servers; compose on one host), so the in-process runtimes (llama.cpp and
sentence-transformers) take this lock around each call: the machine then runs one computation at full
speed, the others wait their turn (flock, no spinning). A remote model (openai backend) takes no lock.

The lock is a file (``DGRAG_MODEL_LOCK``, default ``/tmp/dgrag-models.lock``; ``off`` disables it).
Processes in containers share it only through a shared volume (docs/deploy.md).
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_ENV = "DGRAG_MODEL_LOCK"
DEFAULT_LOCK_PATH = Path("/tmp/dgrag-models.lock")


class MachineLock:
    """A machine-wide mutex over a lock file; re-entrant within a process (threads queue on a local lock)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._local = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold the lock for the duration of the block."""
        if self.path is None:
            yield
            return
        with self._local:
            if self._depth == 0:
                self._acquire()
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._release()

    def _acquire(self) -> None:
        assert self.path is not None
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDONLY | os.O_CREAT, 0o666)
        fcntl.flock(self._fd, fcntl.LOCK_EX)

    def _release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)


_LOCKS: dict[str, MachineLock] = {}
_GUARD = threading.Lock()


def machine_lock() -> MachineLock:
    """The lock this process's model runtimes share (one object per path, so re-entry works)."""
    setting = os.environ.get(LOCK_ENV, "").strip()
    key = "off" if setting.lower() in ("off", "0", "none", "false") else (setting or str(DEFAULT_LOCK_PATH))
    with _GUARD:
        lock = _LOCKS.get(key)
        if lock is None:
            lock = MachineLock(None if key == "off" else Path(key))
            _LOCKS[key] = lock
        return lock
