"""Sentence embeddings with sentence-transformers (all-MiniLM-L6-v2 from its PyPI wheel, offline)."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

import numpy as np

from shared.config import EmbedderConfig, EmbedderPrecision
from shared.core.errors import ModelError, ModelNotInstalledError
from shared.core.model_api import FloatMatrix
from shared.models.cpu import resolve_threads
from shared.models.locate import bundled_embedder_path
from shared.models.machine_lock import machine_lock
from shared.models.pending import EMBED, model_calls
from shared.models.torch_thread import TorchThread

LENGTH_SPREAD = 2.0
"""A batch holds texts up to this many times as long as its shortest (see length_batches)."""
MIN_LENGTH = 24
"""Texts shorter than this many characters count as this long when batches are cut."""


class SentenceTransformerEmbedder:
    """An :class:`~shared.core.model_api.Embedder` over a local sentence-transformers model directory. Every forward
    pass runs on a thread of the embedder's own, never on one that runs llama.cpp (shared.models.torch_thread)."""

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
        self._thread = TorchThread("embedder")
        self._thread.run(lambda: torch.set_num_threads(resolve_threads(config.n_threads)))
        try:
            self._model = self._thread.run(lambda: SentenceTransformer(str(path), device="cpu"))
        except (OSError, ValueError) as exc:
            self._thread.close()
            raise ModelError(f"sentence-transformers could not load {path}: {exc}") from exc
        get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        dim = get_dim()
        if dim is None:
            raise ModelError(f"{path} does not declare an embedding dimension")
        self._dim = int(dim)
        self._batch = config.batch_size
        native = torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported()
        self.precision = resolve_precision(config.precision, native)
        """The arithmetic of the forward pass: float32 or bfloat16 (config.precision with auto resolved)."""
        self._arithmetic: Callable[[], AbstractContextManager[object]] = (
            (lambda: torch.autocast("cpu", dtype=torch.bfloat16))
            if self.precision == "bfloat16"
            else contextlib.nullcontext
        )
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
        with model_calls().counted(EMBED), self._lock, machine_lock().held():
            return self._thread.run(lambda: self._forward(texts))

    def _forward(self, texts: Sequence[str]) -> FloatMatrix:
        """The vectors of ``texts`` (on the embedder's thread: autocast is a per-thread setting too)."""
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        with self._arithmetic():
            for batch in length_batches([len(t) for t in texts], self._batch):
                vectors = self._model.encode(
                    [texts[i] for i in batch], batch_size=len(batch), normalize_embeddings=True, show_progress_bar=False
                )
                out[batch] = np.asarray(vectors, dtype=np.float32)
        return out

    def close(self) -> None:
        """Stop the embedder's thread (a call after this raises RuntimeError)."""
        self._thread.close()


def resolve_precision(precision: EmbedderPrecision, native_bfloat16: bool) -> str:
    """The forward pass's arithmetic for ``precision``: auto is bfloat16 on a CPU that has it natively."""
    if precision == "auto":
        return "bfloat16" if native_bfloat16 else "float32"
    return precision


def length_batches(lengths: Sequence[int], size: int, spread: float = LENGTH_SPREAD) -> list[list[int]]:
    """Indices of texts grouped for encoding, shortest first: at most ``size`` per batch, and a batch closes when
    the next text is more than ``spread`` times as long as its first (by characters, floored at a few words).
    A batch is padded to its longest text, so a question embedded with its short names in one batch cost
    p50/p95 51/117 ms against 29/38 ms apart (MiniLM, 2 cores, multihop4's questions)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    for i in order:
        if batches and len(batches[-1]) < size and lengths[i] <= spread * max(lengths[batches[-1][0]], MIN_LENGTH):
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches
