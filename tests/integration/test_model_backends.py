"""The model backends against real models: the bundled SmolLM2-135M GGUF and all-MiniLM-L6-v2.

Covers llama.cpp in process, the OpenAI-compatible client against llama-cpp-python's own server on
loopback, and the sentence-transformers embedder. No mocks.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from shared.config import EmbedderConfig, JsonMode, ModelConfig
from shared.core.errors import ModelError
from shared.core.model_api import Completion, Embedder, GenerationRequest, StreamingGenerator, TextGenerator
from shared.models.factory import build_embedder, build_generator
from shared.models.locate import bundled_slm_path
from tests.support.llama_server import free_port
from tests.support.llama_server import llama_server as start_llama_server

pytestmark = pytest.mark.integration

# Short values only (enum, boolean): a free-text or unbounded integer field can run past max_tokens
# under a grammar and leave the JSON unterminated.
SCHEMA = {
    "type": "object",
    "properties": {
        "label": {"type": "string", "enum": ["yes", "no"]},
        "sunny": {"type": "boolean"},
    },
    "required": ["label", "sunny"],
}
JSON_PROMPT = "Is the sky blue on a clear day? Answer label yes or no, and say whether it is sunny."
SERVER_ALIAS = "smollm2"


def _assert_matches_schema(text: str) -> None:
    value = json.loads(text)
    assert isinstance(value, dict), text
    assert set(SCHEMA["required"]) <= value.keys(), text
    assert value["label"] in ("yes", "no"), text
    assert isinstance(value["sunny"], bool), text


# --- llama.cpp in process -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def llama() -> Iterator[TextGenerator]:
    generator = build_generator(ModelConfig())  # default: llama_cpp over the bundled SmolLM2 GGUF
    try:
        yield generator
    finally:
        generator.close()


def test_llama_cpp_greedy_returns_one_text_with_token_counts(llama: TextGenerator) -> None:
    completion = llama.generate(GenerationRequest(prompt="What is the capital of France?", max_tokens=24))
    assert len(completion.texts) == 1
    assert completion.texts[0].strip()
    assert completion.prompt_tokens > 0
    assert completion.completion_tokens > 0


def test_llama_cpp_streams_a_greedy_answer_piece_by_piece_as_generate_writes_it(llama: TextGenerator) -> None:
    request = GenerationRequest(prompt="Describe Paris in one sentence.", max_tokens=32)
    assert isinstance(llama, StreamingGenerator)
    pieces: list[str] = []
    streamed = llama.generate_streaming(request, pieces.append)
    assert len(pieces) > 3, "the answer came in pieces, not at the end"
    assert "".join(pieces) == streamed.texts[0] == llama.generate(request).texts[0]


def test_llama_cpp_samples_n_texts_repeatably(llama: TextGenerator) -> None:
    request = GenerationRequest(prompt="Name one fruit.", n=3, temperature=0.9, max_tokens=16, seed=7)
    first = llama.generate(request)
    second = llama.generate(request)
    assert len(first.texts) == 3
    assert all(isinstance(text, str) for text in first.texts)
    # Each sample gets its own seed (seed + i); the same seed would give three identical texts.
    assert len(set(first.texts)) > 1
    assert second.texts == first.texts
    assert first.completion_tokens > 0


def test_llama_cpp_json_schema_is_grammar_constrained(llama: TextGenerator) -> None:
    completion = llama.generate(GenerationRequest(prompt=JSON_PROMPT, json_schema=SCHEMA, max_tokens=48))
    assert len(completion.texts) == 1
    _assert_matches_schema(completion.texts[0])


def test_llama_cpp_runs_the_bundled_model_converted_to_q8_0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from shared.config import ModelConfig
    from shared.models.llama_cpp_backend import LlamaCppGenerator
    from shared.models.weights import CACHE_ENV

    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    generator = LlamaCppGenerator(ModelConfig(weights="q8_0"))
    try:
        completion = generator.generate(GenerationRequest(prompt="Name one fruit.", max_tokens=8, seed=1))
    finally:
        generator.close()
    assert generator.name.startswith("llama_cpp:") and ".q8_0." in generator.name
    assert completion.texts[0].strip() and len(list(tmp_path.glob("*.q8_0.*.gguf"))) == 1


# --- OpenAI-compatible client against llama-cpp-python's server -----------------------------------


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """``python -m llama_cpp.server`` over the bundled SmolLM2 on a free loopback port; (base_url, model name)."""
    with start_llama_server(bundled_slm_path(), SERVER_ALIAS, tmp_path_factory.mktemp("llama_server")) as served:
        yield served


def _openai(base_url: str, model: str, json_mode: JsonMode = "json_object") -> TextGenerator:
    return build_generator(
        ModelConfig(backend="openai", base_url=base_url, model=model, json_mode=json_mode, timeout_s=60)
    )


def test_server_serves_the_alias(llama_server: tuple[str, str]) -> None:
    assert llama_server[1] == SERVER_ALIAS


def test_openai_n3_returns_three_texts_though_server_ignores_n(llama_server: tuple[str, str]) -> None:
    base_url, model = llama_server
    # The server itself answers one choice for n=3, so the backend's top-up loop is what is tested.
    body = json.dumps(
        {"model": model, "messages": [{"role": "user", "content": "Hi"}], "n": 3, "max_tokens": 4}
    ).encode()
    raw = urllib.request.Request(
        f"{base_url}/chat/completions", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(raw, timeout=60) as response:
        assert len(json.load(response)["choices"]) < 3, "the server now honours n; the top-up loop goes untested"

    generator = _openai(base_url, model)
    try:
        completion: Completion = generator.generate(
            GenerationRequest(prompt="Name one fruit.", n=3, temperature=0.9, max_tokens=16, seed=5)
        )
    finally:
        generator.close()
    assert len(completion.texts) == 3
    assert all(isinstance(text, str) for text in completion.texts)
    assert len(set(completion.texts)) > 1  # each top-up request carries a new seed
    assert completion.prompt_tokens > 0
    assert completion.completion_tokens > 0


def test_openai_json_object_mode_with_schema_parses(llama_server: tuple[str, str]) -> None:
    # llama-cpp-python's server turns {"type": "json_object", "schema": ...} into a grammar.
    generator = _openai(*llama_server, json_mode="json_object")
    try:
        completion = generator.generate(GenerationRequest(prompt=JSON_PROMPT, json_schema=SCHEMA, max_tokens=48))
    finally:
        generator.close()
    assert len(completion.texts) == 1
    _assert_matches_schema(completion.texts[0])


def test_openai_json_schema_mode_is_served_or_a_clear_model_error(llama_server: tuple[str, str]) -> None:
    # llama-cpp-python 0.3.x accepts only response_format type "text" or "json_object" and answers 500 to
    # "json_schema"; that must reach the caller as a ModelError naming the server, not as an openai exception.
    base_url, model = llama_server
    generator = _openai(base_url, model, json_mode="json_schema")
    try:
        completion = generator.generate(GenerationRequest(prompt=JSON_PROMPT, json_schema=SCHEMA, max_tokens=48))
    except ModelError as exc:
        assert base_url in str(exc)
        return
    finally:
        generator.close()
    _assert_matches_schema(completion.texts[0])  # a server that does support json_schema


VERDICT_PROMPT = (
    "Context:\nThe Oslo lab ships its welding arms to Bergen by rail.\n\n"
    "Question: Does the Oslo lab ship its arms to Bergen?\nAnswer with the short answer only."
)


def test_openai_gives_the_same_answer_and_token_probabilities_as_the_model_in_process(
    llama_server: tuple[str, str], llama: TextGenerator
) -> None:
    """Over the server, a greedy answer comes with each written token's probability and text, as in process. The
    server formats the chat with the GGUF's own template, which for SmolLM2 adds a default system message, so the
    probabilities are near, not equal (the cloud's model is held to 0.02: test_served_cloud_reading)."""
    request = GenerationRequest(prompt=VERDICT_PROMPT, max_tokens=4)
    generator = _openai(*llama_server)
    try:
        served = generator.generate(request)
    finally:
        generator.close()
    local = llama.generate(request)
    assert served.texts == local.texts
    assert "".join(served.token_pieces[0]) == served.texts[0]
    assert all(lp <= 0.0 for lp in served.token_logprobs[0])
    assert abs((served.probability_at(0, 0) or 0.0) - (local.probability_at(0, 0) or 0.0)) < 0.15


def test_openai_streams_an_answer_piece_by_piece_with_its_probabilities(llama_server: tuple[str, str]) -> None:
    generator = _openai(*llama_server)
    request = GenerationRequest(prompt="Describe Paris in one sentence.", max_tokens=24)
    try:
        assert isinstance(generator, StreamingGenerator)
        pieces: list[str] = []
        streamed = generator.generate_streaming(request, pieces.append)
        whole = generator.generate(request)
    finally:
        generator.close()
    assert len(pieces) > 3, "the answer came in pieces, not at the end"
    assert "".join(pieces) == streamed.texts[0] == whole.texts[0]
    assert streamed.token_logprobs and len(streamed.token_logprobs[0]) == len(streamed.token_pieces[0])


def test_openai_unreachable_server_raises_model_error_quickly() -> None:
    base_url = f"http://127.0.0.1:{free_port()}/v1"  # closed: nothing listens there
    generator = build_generator(ModelConfig(backend="openai", base_url=base_url, model="none", timeout_s=2))
    start = time.monotonic()
    try:
        with pytest.raises(ModelError, match="cannot reach"):
            generator.generate(GenerationRequest(prompt="Hi", max_tokens=4))
    finally:
        generator.close()
    assert time.monotonic() - start < 15


# --- sentence-transformers embedder ---------------------------------------------------------------


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return build_embedder(EmbedderConfig())


def test_embedder_dim_and_normalised_rows(embedder: Embedder) -> None:
    assert embedder.dim == 384
    vectors = embedder.embed(["A man is playing a guitar.", "The stock market fell today.", "x"])
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_embedder_paraphrase_is_closer_than_unrelated(embedder: Embedder) -> None:
    a, paraphrase, unrelated = embedder.embed(
        ["A man is playing a guitar.", "Someone plays the guitar.", "The stock market fell sharply today."]
    )
    assert float(a @ paraphrase) > float(a @ unrelated) + 0.2


def test_embedder_rows_keep_their_order_and_values_across_length_batches(embedder: Embedder) -> None:
    texts = ["Acme", "Which company announced a warehouse robot in 2023, according to TechCrunch?", "Omar Haddad"]
    together = embedder.embed(texts)
    alone = np.vstack([embedder.embed([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-4)


def test_embedder_empty_input(embedder: Embedder) -> None:
    vectors = embedder.embed([])
    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32


def test_embedder_bfloat16_rows_match_float32_rows() -> None:
    texts = ["A man is playing a guitar.", "Which company announced a warehouse robot in 2023?", "Omar Haddad"]
    wide = build_embedder(EmbedderConfig(precision="float32"))
    narrow = build_embedder(EmbedderConfig(precision="bfloat16"))
    assert (wide.precision, narrow.precision) == ("float32", "bfloat16")  # type: ignore[attr-defined]
    cosines = np.sum(wide.embed(texts) * narrow.embed(texts), axis=1)
    assert cosines.min() > 0.999
