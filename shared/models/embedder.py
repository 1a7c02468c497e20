"""Sentence embeddings with sentence-transformers (all-MiniLM-L6-v2 from its PyPI wheel, offline)."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from shared.config import EmbedderConfig
from shared.errors import ModelError, ModelNotInstalledError
from shared.models.base import FloatMatrix
from shared.models.cpu import resolve_threads
from shared.models.locate import bundled_embedder_path
from shared.models.machine_lock import machine_lock


class SentenceTransformerEmbedder:
    """An :class:`~shared.models.base.Embedder` over a local sentence-transformers model directory."""

    def __init__(self, config: EmbedderConfig) -> None:
        # The model is read from disk; never let the hub client try the network.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ModelNotInstalledError(
                "the embedder needs sentence-transformers; run: pip install sentence-transformers"
            ) from exc
        path = Path(config.model_path) if config.model_path else bundled_embedder_path()
        torch.set_num_threads(resolve_threads(config.n_threads))
        try:
            self._model = SentenceTransformer(str(path), device="cpu")
        except (OSError, ValueError) as exc:
            raise ModelError(f"sentence-transformers could not load {path}: {exc}") from exc
        get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        dim = get_dim()
        if dim is None:
            raise ModelError(f"{path} does not declare an embedding dimension")
        self._dim = int(dim)
        self._batch = config.batch_size
        self._name = f"st:{path.name if path.name != 'model' else path.parent.name}"
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        with self._lock, machine_lock().held():
            vectors = self._model.encode(
                list(texts), batch_size=self._batch, normalize_embeddings=True, show_progress_bar=False
            )
        return np.asarray(vectors, dtype=np.float32)
