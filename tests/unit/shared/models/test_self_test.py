"""The install's self-test drives every model entry point of the product, on fakes here (tests/integration runs
it on the real models)."""

from __future__ import annotations

import inspect
import time
from typing import Any

import pytest

from shared.core.errors import ModelError
from shared.core.model_api import GenerationRequest
from shared.models.embedder import SentenceTransformerEmbedder
from shared.models.llama_cpp_backend import LlamaCppGenerator
from shared.models.self_test import Models, embed_then_generate, run_steps
from shared.models.torch_thread import TorchThread
from simulation.fakes import HashEmbedder, ScriptedGenerator


def entry_points(cls: type) -> set[str]:
    """The public methods of a model class: what the product can call on a loaded model."""
    return {name for name, _ in inspect.getmembers(cls, inspect.isfunction) if not name.startswith("_")}


class Spy:
    """``inner`` that records which of its methods were called."""

    def __init__(self, inner: Any, called: set[str]) -> None:
        self._inner = inner
        self._called = called

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if not callable(value):
            return value

        def recorded(*args: Any, **kwargs: Any) -> Any:
            self._called.add(name)
            return value(*args, **kwargs)

        return recorded


class ThreadedEmbedder(HashEmbedder):
    """Hash vectors computed on a thread of the embedder's own, as the product's embedder does, with some CPU
    work, so the self-test's thread check sees it well above what other threads of the test process do."""

    def __init__(self) -> None:
        super().__init__(32)
        self._thread = TorchThread("fake")

    def embed(self, texts: Any) -> Any:
        return self._thread.run(lambda: (spin(0.02), HashEmbedder.embed(self, texts))[1])

    def close(self) -> None:
        self._thread.close()


def script(request: GenerationRequest) -> str:
    spin(0.02)  # as a model works on the calling thread
    return '{"city": "Oslo"}' if request.json_schema else "Bergen, by rail."


def test_every_model_entry_point_of_the_product_is_driven() -> None:
    generator_calls: set[str] = set()
    embedder_calls: set[str] = set()
    models = Models(
        Spy(ScriptedGenerator(script), generator_calls),  # type: ignore[arg-type]
        Spy(ThreadedEmbedder(), embedder_calls),  # type: ignore[arg-type]
        None,
    )
    report = run_steps(models)
    assert entry_points(LlamaCppGenerator) <= generator_calls, "a llama.cpp entry point the self-test never runs"
    assert entry_points(SentenceTransformerEmbedder) <= embedder_calls, "an embedder entry point it never runs"
    assert report["batched_answers"] == 4 and report["json_answer"] == '{"city": "Oslo"}'


def test_the_cloud_model_is_driven_when_it_was_fetched() -> None:
    cloud_calls: set[str] = set()
    edge = ScriptedGenerator(script)
    cloud = Spy(ScriptedGenerator(script), cloud_calls)
    report = run_steps(Models(edge, ThreadedEmbedder(), cloud))  # type: ignore[arg-type]
    assert {"generate", "generate_streaming", "close"} <= cloud_calls
    assert report["cloud_streamed"] == "Bergen, by rail."


def test_steps_are_announced_before_they_run(capsys: pytest.CaptureFixture[str]) -> None:
    run_steps(Models(ScriptedGenerator(script), ThreadedEmbedder(), None), rounds=2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == '{"step": "embed and generate in turn in one worker thread, round 1 of 2"}'
    assert lines[-1] == '{"step": "close the models"}'


def test_a_model_that_gives_too_few_answers_fails_its_step() -> None:
    class OneAnswer(ScriptedGenerator):
        def generate(self, request: GenerationRequest) -> Any:
            return super().generate(GenerationRequest(prompt=request.prompt, json_schema=request.json_schema))

    with pytest.raises(ModelError, match="asked for 4 answer"):
        run_steps(Models(OneAnswer(script), ThreadedEmbedder(), None), rounds=1)


def test_embedding_on_the_generating_thread_is_refused() -> None:
    """The check that keeps PyTorch off llama.cpp's threads sees a thread that does both."""

    class Busy(ScriptedGenerator):
        def generate(self, request: GenerationRequest) -> Any:
            spin(0.02)
            return super().generate(request)

    class BusyEmbedder(HashEmbedder):  # embeds on the calling thread, as before the fix
        def embed(self, texts: Any) -> Any:
            spin(0.02)
            return super().embed(texts)

    with pytest.raises(ModelError, match="same OS threads"):
        embed_then_generate(BusyEmbedder(), Busy(script))
    assert embed_then_generate(ThreadedEmbedder(), Busy(script)) == {"embedder": 1, "generator": 1}


def spin(seconds: float) -> None:
    """Burn CPU on the calling thread for ``seconds`` of its own CPU time."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass
