"""Sentence embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint (llama.cpp's server, vLLM,
text-embeddings-inference, OpenAI): a cloud that runs no model in process needs neither torch nor llama.cpp.

The endpoint's vectors are L2-normalised here (not every server does) and their dimension is learnt from the first
reply; a reply with the wrong count or shape is an error, never a silently misaligned index."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from shared.config import EmbedderConfig
from shared.core.errors import ModelError
from shared.core.model_api import FloatMatrix
from shared.models.openai_client import openai_client

MAX_BATCH = 64
"""Texts per request (the config's batch_size, capped here)."""


class OpenAIEmbedder:
    """A :class:`~shared.core.model_api.Embedder` calling an OpenAI-compatible embeddings endpoint."""

    def __init__(self, config: EmbedderConfig) -> None:
        self._openai, self._client = openai_client(
            config.base_url, config.api_key_env, config.timeout_s, "the openai embedder", config.insecure
        )
        self._config = config
        self._name = f"openai:{config.model}"
        self._dim = 0

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        if not self._dim:
            self.embed(["dimension"])
        return self._dim

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        batch = max(1, min(self._config.batch_size, MAX_BATCH))
        parts = [self._call(list(texts[i : i + batch])) for i in range(0, len(texts), batch)]
        if not parts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        matrix = np.vstack(parts).astype(np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        normalised: FloatMatrix = (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)
        return normalised

    def _call(self, texts: list[str]) -> FloatMatrix:
        where = f"the embeddings endpoint {self._config.base_url} (model {self._config.model})"
        try:
            reply: Any = self._client.embeddings.create(model=self._config.model, input=texts)
        except self._openai.OpenAIError as exc:
            raise ModelError(f"{where} failed: {exc}") from exc
        rows = sorted(reply.data, key=lambda d: d.index)
        if len(rows) != len(texts):
            raise ModelError(f"{where} returned {len(rows)} vectors for {len(texts)} texts")
        matrix = np.asarray([r.embedding for r in rows], dtype=np.float32)
        if matrix.ndim != 2 or (self._dim and matrix.shape[1] != self._dim) or not np.isfinite(matrix).all():
            raise ModelError(
                f"{where} returned vectors of shape {matrix.shape}: not one finite row per text, all alike"
            )
        self._dim = int(matrix.shape[1])
        return matrix
