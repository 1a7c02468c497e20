"""The install's self-test of the product's own model paths, run in a child process (shared.models.runtime_check).

It loads the models as an edge and the cloud do (shared.models.factory) and drives them the way the product does:
in one worker thread it embeds and generates in turn, several times (an edge's ingest and its answers); it samples
four answers together after a prompt of more than 512 tokens (the gate's sampled answers); it streams an answer
(the cloud's draft, `dgrag edge ask`); it answers with a JSON schema (extraction); it answers a yes/no question
greedily with the probability of each token it wrote (what an answer's confidence reads,
shared.reading.passage_reader). It measures which OS threads did the work of each call and fails when PyTorch and
llama.cpp ran on one thread (shared.models.torch_thread).

Before each step it prints ``{"step": ...}``, so the parent names the step a crash stopped; at the end it prints
one JSON report.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

from shared.core.errors import ModelError
from shared.core.model_api import Completion, Embedder, GenerationRequest, StreamingGenerator, TextGenerator
from shared.models.thread_use import ThreadUse, busy_threads

T = TypeVar("T")
ROUNDS = 3
"""Times the worker thread embeds and then generates."""
SAMPLES = 4
"""Answers sampled together in the batched step (the gate's default)."""
LONG_PROMPT_TOKENS = 512
"""The batched step's prompt is longer than this: it is read in more than one llama.cpp batch."""
_FACT = "The Oslo lab builds welding arms for shipyards, tests each arm for a week and ships it by rail to Bergen. "
_TEXTS = [
    "Who runs the Oslo lab?",
    "Dana Smith runs the Oslo lab, which builds welding arms.",
    _FACT * 6,
    "A short note.",
] * 8
_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


@runtime_checkable
class ProductModel(StreamingGenerator, Protocol):
    """A generator as the product loads it: it streams."""


@dataclass(frozen=True)
class Models:
    """The models the product runs on this machine."""

    edge: ProductModel
    """The edge's small model."""
    embedder: Embedder
    cloud: ProductModel | None
    """The cloud's larger model, when it was fetched."""


def announce(step: str) -> None:
    """Tell the parent which step starts (a crash in it is then named)."""
    print(json.dumps({"step": step}), flush=True)


def run_steps(models: Models, rounds: int = ROUNDS) -> dict[str, object]:
    """Every step, each in the one worker thread the product's calls run on, then close the models; returns what
    was measured."""
    report: dict[str, object] = {}
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="self-test-worker") as worker:

        def on_worker(step: str, call: Callable[[], T]) -> T:
            announce(step)
            return worker.submit(call).result()

        for number in range(1, rounds + 1):
            step = f"embed and generate in turn in one worker thread, round {number} of {rounds}"
            report["threads_busy"] = on_worker(step, lambda: embed_then_generate(models.embedder, models.edge))
        batched = on_worker("4 answers sampled together after a 512+ token prompt", lambda: sample_long(models.edge))
        report["batched_prompt_tokens"] = batched.prompt_tokens
        report["batched_answers"] = len(batched.texts)
        if batched.speed is not None and batched.speed.prefill_seconds > 0:
            report["prefill_tokens_per_s"] = round(batched.speed.prefill_tokens / batched.speed.prefill_seconds)
        report["streamed"] = on_worker("a streamed answer", lambda: stream(models.edge))
        report["json_answer"] = on_worker("an answer in a JSON schema", lambda: json_answer(models.edge))
        verdict = on_worker("a verdict and its probability", lambda: verdict_probability(models.edge))
        report["verdict_probability"] = verdict
        if models.cloud is not None:
            cloud = models.cloud
            on_worker("the cloud model after the embedder", lambda: embed_then_generate(models.embedder, cloud))
            report["cloud_streamed"] = on_worker("the cloud model: a streamed answer", lambda: stream(cloud))
            report["cloud_verdict_probability"] = on_worker(
                "the cloud model: a verdict and its probability", lambda: verdict_probability(cloud)
            )
        on_worker("close the models", lambda: close_all(models))
    return report


def close_all(models: Models) -> None:
    """Release every model (an embedder stops its thread)."""
    for model in (models.edge, models.cloud, models.embedder):
        close = getattr(model, "close", None)
        if close is not None:
            close()


def embed_then_generate(embedder: Embedder, generator: StreamingGenerator) -> dict[str, int]:
    """Embed, then generate, on the calling thread; refused when one OS thread did the work of both. Returns how
    many threads did each."""
    use = ThreadUse()
    vectors = embedder.embed(_TEXTS)
    if vectors.shape[0] != len(_TEXTS):
        raise ModelError(f"the embedder returned {vectors.shape[0]} vectors for {len(_TEXTS)} texts")
    embedded = use.lap()
    request = GenerationRequest(prompt="Name one colour.", max_tokens=8, temperature=0.0, seed=0)
    _check(generator.generate(request), 1)
    generated = use.lap()
    by_embedder, by_generator = busy_threads(embedded), busy_threads(generated)
    if shared := by_embedder & by_generator:
        raise ModelError(
            f"the embedder (PyTorch) and {generator.name} ran on the same OS threads {sorted(shared)}: on a CPU with "
            "AMX that crashes with SIGILL (shared.models.torch_thread keeps them apart)"
        )
    return {"embedder": len(by_embedder), "generator": len(by_generator)}


def sample_long(generator: StreamingGenerator) -> Completion:
    """``SAMPLES`` answers sampled together after a prompt of more than ``LONG_PROMPT_TOKENS`` tokens."""
    document = " ".join(f"Day {day}: {_FACT}" for day in range(1, 31))
    request = GenerationRequest(
        prompt=f"{document}\nWhere does the Oslo lab ship its arms?",
        n=SAMPLES,
        max_tokens=12,
        temperature=0.8,
        top_p=0.95,
        seed=7,
    )
    completion = _check(generator.generate(request), SAMPLES)
    if completion.prompt_tokens <= LONG_PROMPT_TOKENS:
        raise ModelError(f"the long prompt had only {completion.prompt_tokens} tokens; the self-test needs more")
    return completion


def stream(generator: StreamingGenerator) -> str:
    """A single answer given piece by piece; the pieces must make the answer."""
    pieces: list[str] = []
    request = GenerationRequest(prompt="Say hello to the Oslo lab.", max_tokens=12, temperature=0.0, seed=0)
    completion = _check(generator.generate_streaming(request, pieces.append), 1)
    if "".join(pieces).strip() != completion.texts[0].strip():
        raise ModelError("the streamed pieces do not make the answer's text")
    return completion.texts[0]


def json_answer(generator: TextGenerator) -> str:
    """An answer constrained to a JSON schema, as extraction asks."""
    request = GenerationRequest(
        prompt="Which city is the Oslo lab in? Answer in JSON.", json_schema=_SCHEMA, max_tokens=24, seed=0
    )
    text = _check(generator.generate(request), 1).texts[0]
    try:
        json.loads(text)
    except ValueError as exc:
        raise ModelError(f"the answer in a JSON schema is not JSON: {text!r}") from exc
    return text


def verdict_probability(generator: TextGenerator) -> float:
    """The model's probability of its greedy verdict on a claim the sentence states; refused unless every written
    token comes with a probability in (0, 1]."""
    request = GenerationRequest(
        prompt=f"Passages:\n\n[1] {_FACT}\n\nQuestion: Does the Oslo lab ship its arms to Bergen?\n\nAnswer Yes or No.",
        max_tokens=2,
    )
    completion = _check(generator.generate(request), 1)
    written = completion.token_logprobs[0] if completion.token_logprobs else ()
    if not written or len(written) != completion.completion_tokens or not all(lp <= 0.0 for lp in written):
        raise ModelError(f"the answer's token log-probabilities {written} do not match the tokens it wrote")
    return round(completion.probability(0, first=1) or 0.0, 3)


def _check(completion: Completion, answers: int) -> Completion:
    if len(completion.texts) != answers:
        raise ModelError(f"asked for {answers} answer(s), the model gave {len(completion.texts)}")
    return completion
