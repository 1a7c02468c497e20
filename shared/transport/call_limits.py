"""Limits no caller can talk its way past: health watches per address and in all, and calls per credential.

- Health ``Watch`` streams are open to anyone (as health checks must be), so they are capped per peer address
  and in total, well inside the server's ``max_concurrent_rpcs``: a flood of them cannot use up the places the
  authenticated calls need. Only the services the server serves may be watched.
- Every authenticated call spends a token of its credential's bucket (``per_minute`` refilled evenly, ``burst``
  at most); an empty bucket is RESOURCE_EXHAUSTED with the wait in the message and in the
  ``grpc-retry-pushback-ms`` trailer (gRPC's retry-pushback convention).
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import grpc
from grpc_health.v1 import health

RETRY_PUSHBACK = "grpc-retry-pushback-ms"


def peer_host(peer: str) -> str:
    """The address part of a gRPC peer string (``ipv4:10.0.0.3:51234`` -> ``ipv4:10.0.0.3``)."""
    if peer.startswith("ipv6:"):
        return peer.rsplit(":", 1)[0] if "]:" in peer else peer
    return peer.rsplit(":", 1)[0] if peer.count(":") >= 2 else peer


class BoundedHealth(health.aio.HealthServicer):  # type: ignore[misc]
    """The standard health service with ``Watch`` streams capped per peer address and in total."""

    def __init__(self, services: Sequence[str], per_peer: int, total: int) -> None:
        super().__init__()
        self._services = frozenset(["", *services])
        self._per_peer = per_peer
        self._total = total
        self._open: Counter[str] = Counter()

    async def Watch(self, request: Any, context: grpc.aio.ServicerContext) -> None:
        if request.service not in self._services:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no service {request.service!r} here to watch")
        host = peer_host(context.peer())
        if self._open.total() >= self._total or self._open[host] >= self._per_peer:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"too many health watches ({self._per_peer} per address, {self._total} in all); use Health/Check",
            )
        self._open[host] += 1
        try:
            await super().Watch(request, context)
        finally:
            self._open[host] -= 1
            if not self._open[host]:
                del self._open[host]


MAX_KEYS = 65_536
"""Keys a CallBuckets remembers. Past it, the buckets that have refilled are forgotten (they mean nothing), then
the least recently used: memory stays bounded whatever the keys a caller makes up."""


class CallBuckets:
    """A token bucket per key (a credential, an address block): ``per_minute`` calls, at most ``burst`` at once;
    0 = no limit. At most ``max_keys`` keys are remembered."""

    def __init__(
        self, per_minute: float, burst: int, clock: Callable[[], float] = time.monotonic, max_keys: int = MAX_KEYS
    ) -> None:
        self._rate = per_minute / 60.0
        self._burst = max(burst, 1)
        self._clock = clock
        self._max_keys = max(max_keys, 1)
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._buckets)

    def _forget(self, now: float) -> None:
        """Called with the lock held when the table is full: drop refilled buckets, then the oldest half."""
        full = [k for k, (tokens, at) in self._buckets.items() if tokens + (now - at) * self._rate >= self._burst]
        for key in full:
            del self._buckets[key]
        if len(self._buckets) >= self._max_keys:
            for key in list(self._buckets)[: len(self._buckets) // 2]:  # dicts keep insertion order: oldest first
                del self._buckets[key]

    def take(self, key: str, cost: float = 1.0) -> float:
        """0 when ``key`` may spend ``cost`` now (and it is counted), else the seconds until it may (a cost above
        the burst never fits: infinity)."""
        if self._rate <= 0:
            return 0.0
        if cost > self._burst:
            return math.inf
        now = self._clock()
        with self._lock:
            if key not in self._buckets and len(self._buckets) >= self._max_keys:
                self._forget(now)
            tokens, at = self._buckets.pop(key, (float(self._burst), now))  # re-inserted last: least recent first
            tokens = min(self._burst, tokens + (now - at) * self._rate)
            if tokens >= cost:
                self._buckets[key] = (tokens - cost, now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (cost - tokens) / self._rate

    def waiting(self, key: str) -> float:
        """Seconds until ``key`` may spend one token (0: it may now); nothing is counted."""
        if self._rate <= 0:
            return 0.0
        with self._lock:
            tokens, at = self._buckets.get(key, (float(self._burst), self._clock()))
        tokens = min(self._burst, tokens + (self._clock() - at) * self._rate)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self._rate

    def refusal_message(self, key: str, wait_s: float) -> str:
        per_minute = self._rate * 60
        return (
            f"{key!r} made more than {per_minute:.0f} calls a minute (a burst of {self._burst} at most); "
            f"retry in {math.ceil(wait_s * 10) / 10:.1f} s"
        )
