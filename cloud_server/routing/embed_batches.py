"""Summaries from many edges embedded together: one model call per batch instead of one per edge's message.

Edges publish a few summaries per message; at fleet size thousands of messages arrive at once, and a model call
on five texts costs nearly what one on fifty does. Writers that need vectors while a batch is being embedded
queue their texts; when that batch is done, the writer that made it embeds everything queued meanwhile, in one
call, and hands each writer its rows (a group commit). No timer: a lone writer waits for no one.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Future

import numpy as np

from shared.core.model_api import Embedder

MAX_BATCH = 256
"""Most texts in one model call (more queued wait for the next)."""


class EmbedBatches:
    """``embed`` for many threads at once, batched."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._lock = threading.Lock()
        self._queued: list[tuple[list[str], Future[np.ndarray]]] = []
        self._busy = False

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The rows of ``texts`` (blocking; embedded with whatever other writers queue meanwhile)."""
        mine: Future[np.ndarray] = Future()
        with self._lock:
            self._queued.append((list(texts), mine))
            leading = not self._busy
            self._busy = True
        while leading:
            with self._lock:
                batch: list[tuple[list[str], Future[np.ndarray]]] = []
                size = 0
                while self._queued and (not batch or size + len(self._queued[0][0]) <= MAX_BATCH):
                    batch.append(self._queued.pop(0))
                    size += len(batch[-1][0])
                if not batch:
                    self._busy = False
                    break
            self._run(batch)
        return mine.result()

    def _run(self, batch: list[tuple[list[str], Future[np.ndarray]]]) -> None:
        try:
            rows = np.asarray(self._embedder.embed([t for texts, _ in batch for t in texts]), dtype=np.float32)
        except BaseException as exc:  # every writer of the batch hears of it
            for _, future in batch:
                future.set_exception(exc)
            return
        at = 0
        for texts, future in batch:
            future.set_result(rows[at : at + len(texts)])
            at += len(texts)
