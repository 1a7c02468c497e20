"""Writers embedding at once share model calls and each gets its own rows; a failure reaches every writer."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest

from cloud_server.routing.embed_batches import EmbedBatches
from shared.models.fakes import HashEmbedder


class _Slow(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(16)
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(len(texts))
        threading.Event().wait(0.05)  # a model call takes a while: writers queue meanwhile
        return super().embed(texts)


def test_concurrent_writers_share_calls_and_get_their_own_rows() -> None:
    model = _Slow()
    batches = EmbedBatches(model)
    got: dict[int, np.ndarray] = {}

    def write(i: int) -> None:
        got[i] = batches.embed([f"summary {i} a", f"summary {i} b"])

    threads = [threading.Thread(target=write, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(12):
        assert np.allclose(got[i], HashEmbedder(16).embed([f"summary {i} a", f"summary {i} b"]))
    assert len(model.calls) < 12 and sum(model.calls) == 24


def test_a_failed_call_reaches_its_writer() -> None:
    class Broken(HashEmbedder):
        def embed(self, texts: Sequence[str]) -> np.ndarray:
            raise RuntimeError("model gone")

    with pytest.raises(RuntimeError, match="model gone"):
        EmbedBatches(Broken(8)).embed(["x"])
