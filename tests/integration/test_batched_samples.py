"""Generation in one llama.cpp context (shared.models.llama_batched) against the real bundled SmolLM2 GGUF: sampled
answers decoded together read the same prompt as one by one and follow the choice grammar, each token comes with
its probability and text, seeds repeat, the
prompt's prefix is read once, samples that would not all fit the context are decoded in waves, greedy decoding
matches llama-cpp-python's own, and a prompt the context cannot hold is refused with a clear error."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator

import pytest

from shared.config import ModelConfig
from shared.core.errors import ModelError
from shared.core.model_api import GenerationRequest
from shared.models.llama_cpp_backend import LlamaCppGenerator

pytestmark = pytest.mark.integration

CHOSEN = re.compile(r'\s*\{\s*"answer"\s*:\s*"(?:Apple|Google|Insufficient information)"\s*,\s*"because"\s*:\s*"')
CONTEXT = "\n".join(f"[{i}] Report {i}: the company Apple released a phone in Paris on Monday." for i in range(1, 9))


def _generator(together: bool) -> Iterator[LlamaCppGenerator]:
    generator = LlamaCppGenerator(ModelConfig(batch_samples=together))
    try:
        yield generator
    finally:
        generator.close()


@pytest.fixture(scope="module")
def batched() -> Iterator[LlamaCppGenerator]:
    yield from _generator(together=True)


@pytest.fixture(scope="module")
def one_by_one() -> Iterator[LlamaCppGenerator]:
    yield from _generator(together=False)


CHOICE = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "enum": ["Apple", "Google", "Insufficient information"]},
        "because": {"type": "string", "maxLength": 120},
    },
    "required": ["answer", "because"],
}


def _choice(n: int = 4, seed: int = 7) -> GenerationRequest:
    prompt = f"{CONTEXT}\n\nWhich company released a phone? Answer in JSON."
    system = "You answer questions using only the given context."
    return GenerationRequest(prompt, system, n=n, max_tokens=48, temperature=0.8, seed=seed, json_schema=CHOICE)


def test_batched_samples_read_the_same_prompt_and_follow_the_choice_grammar(
    batched: LlamaCppGenerator, one_by_one: LlamaCppGenerator
) -> None:
    together, apart = batched.generate(_choice()), one_by_one.generate(_choice())
    assert together.prompt_tokens == apart.prompt_tokens  # the chat template is rendered as llama-cpp-python does
    assert len(together.texts) == 4
    for text in together.texts:  # the grammar holds up to max_tokens, which may cut the reason short
        assert CHOSEN.match(text), text
    assert together.speed is not None
    assert together.speed.decode_tokens == together.completion_tokens > 0
    for text, logprobs, pieces in zip(together.texts, together.token_logprobs, together.token_pieces, strict=True):
        assert len(logprobs) == len(pieces) > 0 and all(lp <= 0.0 for lp in logprobs)
        assert "".join(pieces) == text, "each token's text, in turn, spells the answer"


def test_batched_samples_are_repeatable_and_differ_by_seed(batched: LlamaCppGenerator) -> None:
    request = GenerationRequest(prompt="Name one fruit and one colour.", n=4, temperature=1.0, max_tokens=16, seed=3)
    first, second = batched.generate(request), batched.generate(request)
    assert first.texts == second.texts
    assert len(set(first.texts)) > 1  # sequence i draws with seed + i
    other = batched.generate(dataclasses.replace(request, seed=11))
    assert other.texts != first.texts


def test_the_prompt_prefix_is_read_once(batched: LlamaCppGenerator) -> None:
    request = _choice()
    batched.generate(request)
    again = batched.generate(dataclasses.replace(request, prompt=request.prompt + " Answer briefly."))
    assert again.speed is not None
    assert again.speed.prefill_tokens < again.prompt_tokens / 4  # only the changed end is read again


def test_samples_that_would_not_all_fit_the_context_are_decoded_in_waves() -> None:
    generator = LlamaCppGenerator(ModelConfig(batch_samples=True, n_ctx=512))
    prompt = f"{CONTEXT}\n\nWrite a long story about the phone, its makers and its buyers, with many details."
    # ~200 prompt tokens + 4 samples x 150 > 512 cells: decoded together they would run out of room in the KV cache
    request = GenerationRequest(prompt=prompt, n=4, temperature=1.0, max_tokens=150, seed=5)
    try:
        completion = generator.generate(request)
    finally:
        generator.close()
    assert len(completion.texts) == 4
    assert completion.completion_tokens > 512 - completion.prompt_tokens


def test_greedy_decoding_matches_llama_cpp_pythons_chat_completion(batched: LlamaCppGenerator) -> None:
    import llama_cpp

    from shared.models.weights import model_file

    request = GenerationRequest(prompt="What is the capital of France? Answer in one sentence.", max_tokens=24)
    ours = batched.generate(request)
    reference = llama_cpp.Llama(model_path=str(model_file(ModelConfig())[0]), n_ctx=512, verbose=False)
    try:
        theirs = reference.create_chat_completion(
            messages=[{"role": "user", "content": request.prompt}], temperature=0.0, max_tokens=24
        )
    finally:
        reference.close()
    assert ours.texts[0] == theirs["choices"][0]["message"]["content"]


def test_a_prompt_the_context_cannot_hold_is_refused() -> None:
    generator = LlamaCppGenerator(ModelConfig(n_ctx=256))
    try:
        with pytest.raises(ModelError, match=r"raise slm\.n_ctx"):
            generator.generate(GenerationRequest(prompt=CONTEXT * 4, max_tokens=8))
    finally:
        generator.close()


def test_greedy_choice_under_a_grammar_matches_llama_cpp_pythons_grammar_first_decoding(
    batched: LlamaCppGenerator,
) -> None:
    """The grammar is checked on the drawn token first; for greedy picks that is the grammar's own argmax."""
    import llama_cpp

    from shared.models.weights import model_file

    request = dataclasses.replace(_choice(n=1), temperature=0.0, seed=None)
    ours = batched.generate(request)
    assert request.json_schema is not None and request.system is not None
    reference = llama_cpp.Llama(model_path=str(model_file(ModelConfig())[0]), n_ctx=1024, verbose=False)
    try:
        theirs = reference.create_chat_completion(
            messages=[{"role": "system", "content": request.system}, {"role": "user", "content": request.prompt}],
            temperature=0.0,
            max_tokens=request.max_tokens,
            grammar=llama_cpp.LlamaGrammar.from_json_schema(json.dumps(request.json_schema), verbose=False),
        )
    finally:
        reference.close()
    assert ours.texts[0] == theirs["choices"][0]["message"]["content"]
