"""The cloud's model over an inference server reads as it does in process.

The packaged Qwen2.5-Coder-1.5B is served by llama-cpp-python's own server on loopback; the cloud's reading
(cloud_server.answering.cloud_reading) of the same merged evidence runs once with the model in process and once
with the openai backend against that server. A cross-edge name question and a yes/no question must get the same
short answer, the same reader (nothing falls back) and a confidence within 0.02.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cloud_server.answering.answer_guard import Readers
from cloud_server.answering.cloud_reading import CloudReading, read_context
from cloud_server.answering.context_merge import MergedContext
from shared.config import CLOUD_MODEL, CloudQueryConfig, ModelConfig
from shared.core.knowledge import ContextChunk, KnowledgeChunk
from shared.core.model_api import TextGenerator
from shared.models.factory import build_generator
from shared.models.packaged import is_fetched, packaged_path
from tests.support.llama_server import llama_server

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not is_fetched(CLOUD_MODEL), reason=f"fetch the cloud's model: dgrag models fetch {CLOUD_MODEL}"
    ),
]

CHUNKS = (
    ("edge-a", "Acme Robotics builds welding arms in its Berlin plant. The plant is run by Dana Smith since 2019."),
    ("edge-b", "Dana Smith studied in Oslo. Before Acme she led the robotics lab of Nordic Motors for six years."),
)
MERGED = MergedContext(
    "\n\n".join(f"[{i + 1}] {text}" for i, (_, text) in enumerate(CHUNKS)),
    [ContextChunk(edge, KnowledgeChunk(f"{edge}-doc", i, text, 0.9, 30)) for i, (edge, text) in enumerate(CHUNKS)],
    60,
    frozenset({"edge-a", "edge-b"}),
)
READERS = Readers("", {"edge-a": "quote", "edge-b": "quote"})
QUESTIONS = (
    "Which lab did the person who runs Acme Robotics' Berlin plant lead before Acme?",
    "Is Acme Robotics' Berlin plant run by someone who studied in Oslo?",
)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TextGenerator]:
    with llama_server(packaged_path(CLOUD_MODEL), "cloud-llm", tmp_path_factory.mktemp("served")) as (url, model):
        generator = build_generator(ModelConfig(backend="openai", base_url=url, model=model, json_mode="json_object"))
        try:
            yield generator
        finally:
            generator.close()


@pytest.fixture(scope="module")
def in_process() -> Iterator[TextGenerator]:
    generator = build_generator(ModelConfig(packaged=CLOUD_MODEL))
    try:
        yield generator
    finally:
        generator.close()


def _read(question: str, generator: TextGenerator) -> CloudReading:
    return read_context(question, MERGED, generator, CloudQueryConfig(), READERS)


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_served_model_answers_as_the_model_in_process(
    question: str, served: TextGenerator, in_process: TextGenerator
) -> None:
    here, there = _read(question, in_process).answer, _read(question, served).answer
    assert there.short == here.short and there.reader == here.reader, (here, there)
    assert there.reader in ("span", "verdict"), "a reading that fell back"
    assert abs(there.confidence.probability - here.confidence.probability) <= 0.02
    assert there.signals()["model"] > 0.0, "the server's token probabilities reached the confidence"
