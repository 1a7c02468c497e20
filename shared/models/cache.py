"""A generator wrapper that remembers deterministic answers (temperature 0) in a persistent cache.

Re-running an interrupted ingest then skips the SLM calls already answered before the crash.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from typing import Protocol

from shared.core.model_api import Completion, GenerationRequest, TextGenerator


class ResponseCache(Protocol):
    """Key-value storage for model answers."""

    def cache_get(self, key: str) -> str | None: ...

    def cache_put(self, key: str, value: str) -> None: ...


class CachingGenerator:
    """Serves repeated greedy requests from ``cache``; sampled requests always reach the model."""

    def __init__(self, inner: TextGenerator, cache: ResponseCache) -> None:
        self._inner = inner
        self._cache = cache
        self.hits = 0

    @property
    def name(self) -> str:
        return self._inner.name

    def _key(self, request: GenerationRequest) -> str:
        payload = json.dumps({"model": self._inner.name, **asdict(request)}, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()

    def generate(self, request: GenerationRequest) -> Completion:
        if request.temperature > 0:
            return self._inner.generate(request)
        key = self._key(request)
        cached = self._cache.cache_get(key)
        if cached is not None:
            self.hits += 1
            return Completion(tuple(json.loads(cached)), 0, 0)
        completion = self._inner.generate(request)
        self._cache.cache_put(key, json.dumps(list(completion.texts)))
        return completion

    def close(self) -> None:
        self._inner.close()
