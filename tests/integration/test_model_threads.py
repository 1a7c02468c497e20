"""PyTorch and llama.cpp never share an OS thread, on the real models (the cause of the SIGILL on AMX CPUs).

A worker thread that embeds and then generates, as an edge's ingest does, must leave the embedder's work on
threads llama.cpp never runs on, OpenMP workers included. The control runs the embedder on the calling thread, as
the product did before shared.models.torch_thread, and the self-test's check must catch it."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from shared.config import EmbedderConfig, ModelConfig
from shared.core.errors import ModelError
from shared.core.model_api import Embedder, StreamingGenerator
from shared.models import torch_thread
from shared.models.factory import build_embedder, build_generator
from shared.models.self_test import embed_then_generate

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def models() -> Iterator[tuple[Embedder, StreamingGenerator]]:
    generator = build_generator(ModelConfig())
    assert isinstance(generator, StreamingGenerator)
    yield build_embedder(EmbedderConfig()), generator
    generator.close()


def test_embedding_and_generating_in_one_worker_thread_use_separate_os_threads(
    models: tuple[Embedder, StreamingGenerator],
) -> None:
    embedder, generator = models
    with ThreadPoolExecutor(max_workers=1) as worker:
        for _ in range(3):
            busy = worker.submit(embed_then_generate, embedder, generator).result()
            assert busy["embedder"] >= 1 and busy["generator"] >= 1


def test_the_check_catches_the_embedder_on_the_generating_thread(
    models: tuple[Embedder, StreamingGenerator], monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder, generator = models
    monkeypatch.setattr(torch_thread.TorchThread, "run", lambda self, call: call())
    with ThreadPoolExecutor(max_workers=1) as worker, pytest.raises(ModelError, match="same OS threads"):
        worker.submit(embed_then_generate, embedder, generator).result()
