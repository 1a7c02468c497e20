"""One loaded SLM and one embedder shared by the many edges of one process (an edge host).

Each edge gets its own :class:`PooledGenerator` / :class:`PooledEmbedder` (the same small model interfaces),
and every call goes through one worker thread per model: the model runs one call at a time (llama.cpp and
torch are not re-entrant, and two calls at once on two cores only slow each other down). Waiting calls are
served round-robin across edges, so an edge with a long ingest queued does not starve another edge's
question; each edge may have at most ``max_waiting`` calls queued, past which a call fails at once with
:class:`ModelBusyError` rather than queueing without bound.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

from shared.core.errors import ModelError
from shared.core.model_api import Completion, Embedder, FloatMatrix, GenerationRequest, TextGenerator

T = TypeVar("T")
DEFAULT_MAX_WAITING = 64


class ModelBusyError(ModelError):
    """An edge has too many model calls waiting; it should retry later (the host is overloaded)."""


@dataclass
class QueueStats:
    """What one shared model has served: calls per edge and the longest any call waited."""

    calls: dict[str, int]
    max_wait_s: float
    waiting: int


class FairQueue:
    """Runs submitted calls on one worker thread, one at a time, taking edges in turn (round-robin)."""

    def __init__(self, name: str, max_waiting: int = DEFAULT_MAX_WAITING) -> None:
        self._max_waiting = max_waiting
        self._queues: OrderedDict[str, deque[tuple[Callable[[], Any], Future[Any], float]]] = OrderedDict()
        self._ready = threading.Condition()
        self._closed = False
        self._calls: dict[str, int] = {}
        self._max_wait_s = 0.0
        self._thread = threading.Thread(target=self._serve, name=f"model-{name}", daemon=True)
        self._thread.start()

    def submit(self, edge_id: str, call: Callable[[], T]) -> T:
        """Run ``call`` in ``edge_id``'s turn and return its result (its exception is raised here)."""
        future: Future[T] = Future()
        with self._ready:
            if self._closed:
                raise ModelError("the shared model is closed")
            queue = self._queues.get(edge_id)
            if queue is None:  # an edge not served yet goes to the front of the line
                queue = self._queues[edge_id] = deque()
                self._queues.move_to_end(edge_id, last=False)
            if len(queue) >= self._max_waiting:
                raise ModelBusyError(
                    f"edge {edge_id!r} already has {len(queue)} model calls waiting (limit {self._max_waiting}); "
                    "the host is overloaded: give it fewer edges or retry later"
                )
            queue.append((call, future, time.monotonic()))
            self._ready.notify()
        return future.result()

    def _next(self) -> tuple[str, Callable[[], Any], Future[Any], float] | None:
        with self._ready:
            while not self._closed and not any(self._queues.values()):
                self._ready.wait()
            if self._closed and not any(self._queues.values()):
                return None
            for edge_id in list(self._queues):
                queue = self._queues[edge_id]
                self._queues.move_to_end(edge_id)  # whoever is served goes to the back of the line
                if queue:
                    call, future, queued_at = queue.popleft()
                    return edge_id, call, future, queued_at
        return None  # pragma: no cover - the loop above always finds a queued call

    def _serve(self) -> None:
        while (item := self._next()) is not None:
            edge_id, call, future, queued_at = item
            self._max_wait_s = max(self._max_wait_s, time.monotonic() - queued_at)
            self._calls[edge_id] = self._calls.get(edge_id, 0) + 1
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(call())
            except BaseException as exc:  # the caller gets it, the worker goes on
                future.set_exception(exc)

    def stats(self) -> QueueStats:
        with self._ready:
            waiting = sum(len(q) for q in self._queues.values())
        return QueueStats(dict(self._calls), self._max_wait_s, waiting)

    def close(self) -> None:
        with self._ready:
            self._closed = True
            self._ready.notify_all()
        self._thread.join(timeout=60)


class ModelPool:
    """The host's models; :meth:`for_edge` gives an edge its handles."""

    def __init__(self, generator: TextGenerator, embedder: Embedder, max_waiting: int = DEFAULT_MAX_WAITING) -> None:
        self.generator = generator
        self.embedder = embedder
        self.slm_queue = FairQueue("slm", max_waiting)
        self.embed_queue = FairQueue("embedder", max_waiting)

    def for_edge(self, edge_id: str) -> tuple[PooledGenerator, PooledEmbedder]:
        return PooledGenerator(self, edge_id), PooledEmbedder(self, edge_id)

    def close(self) -> None:
        self.slm_queue.close()
        self.embed_queue.close()
        self.generator.close()


class PooledGenerator:
    """The pool's SLM as one edge sees it."""

    def __init__(self, pool: ModelPool, edge_id: str) -> None:
        self._pool = pool
        self._edge_id = edge_id

    @property
    def name(self) -> str:
        return self._pool.generator.name

    def generate(self, request: GenerationRequest) -> Completion:
        return self._pool.slm_queue.submit(self._edge_id, lambda: self._pool.generator.generate(request))

    def close(self) -> None:
        """The pool owns the model: one edge closing does not unload it."""


class PooledEmbedder:
    """The pool's embedder as one edge sees it."""

    def __init__(self, pool: ModelPool, edge_id: str) -> None:
        self._pool = pool
        self._edge_id = edge_id

    @property
    def name(self) -> str:
        return self._pool.embedder.name

    @property
    def dim(self) -> int:
        return self._pool.embedder.dim

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        return self._pool.embed_queue.submit(self._edge_id, lambda: self._pool.embedder.embed(texts))
