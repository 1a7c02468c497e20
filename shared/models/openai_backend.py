"""Generation through any OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp's server, OpenAI).

Every request asks for the written tokens' log-probabilities (``logprobs``), which an answer's confidence reads
(shared.reading.passage_reader), and free-text answers may stream. What the server sends back is bounded: a
token's log-probability must be finite and at most 0, and the tokens must spell the text, else the completion
carries none (an answer without a model probability is read as such, never with a made-up one). Servers that
ignore ``n`` (llama.cpp's) return fewer choices than asked; the missing samples are requested one by one, so
callers always get ``n`` texts.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable
from typing import Any

from shared.config import ModelConfig
from shared.core.errors import ModelError
from shared.core.model_api import Completion, GenerationRequest, TextSink
from shared.models.machine_lock import machine_lock
from shared.models.openai_client import openai_client
from shared.models.pending import GENERATE, model_calls

Tokens = tuple[tuple[float, ...], tuple[str, ...]]


class OpenAIGenerator:
    """A :class:`~shared.core.model_api.StreamingGenerator` calling an OpenAI-compatible chat endpoint."""

    def __init__(self, config: ModelConfig) -> None:
        self._openai, self._client = openai_client(
            config.base_url, config.api_key_env, config.timeout_s, "the openai backend", config.insecure
        )
        self._config = config
        self._name = f"openai:{config.model}@{config.base_url}"
        self._turn = machine_lock().held if config.machine_lock else contextlib.nullcontext

    @property
    def name(self) -> str:
        return self._name

    def _response_format(self, schema: dict[str, Any] | None) -> dict[str, Any] | None:
        if schema is None or self._config.json_mode == "none":
            return None
        if self._config.json_mode == "json_object":
            return {"type": "json_object", "schema": schema}
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}

    def _arguments(self, request: GenerationRequest, n: int, seed: int | None) -> dict[str, Any]:
        messages: list[dict[str, str]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        messages.append({"role": "user", "content": request.prompt})
        kwargs: dict[str, Any] = {
            "model": self._config.model,
            "messages": messages,
            "n": n,
            "temperature": request.temperature,
            "top_p": request.top_p,
            "max_tokens": request.max_tokens,
            "logprobs": True,
            "top_logprobs": 1,  # llama-cpp-python's server sends no log-probabilities without it
        }
        if self._config.extended_sampling:
            kwargs["extra_body"] = {
                "top_k": request.top_k,
                "min_p": request.min_p,
                "repeat_penalty": request.repeat_penalty,
            }
        fmt = self._response_format(request.json_schema)
        if fmt is not None:
            kwargs["response_format"] = fmt
        if seed is not None:
            kwargs["seed"] = seed
        return kwargs

    def _call(self, **kwargs: Any) -> Any:
        try:
            return self._client.chat.completions.create(**kwargs)
        except self._openai.APIConnectionError as exc:
            raise ModelError(f"cannot reach the model server at {self._config.base_url}: {exc}") from exc
        except self._openai.APIError as exc:
            raise ModelError(f"the model server at {self._config.base_url} refused the request: {exc}") from exc

    def generate(self, request: GenerationRequest) -> Completion:
        with model_calls().counted(GENERATE), self._turn():
            return self._generate(request)

    def _generate(self, request: GenerationRequest) -> Completion:
        texts: list[str] = []
        tokens: list[Tokens | None] = []
        prompt_tokens = completion_tokens = 0
        attempt = 0
        while len(texts) < request.n:
            seed = None if request.seed is None else request.seed + attempt
            response = self._call(**self._arguments(request, request.n - len(texts), seed))
            if not response.choices:
                raise ModelError(f"the model server at {self._config.base_url} returned no choices")
            for choice in response.choices:
                texts.append(choice.message.content or "")
                tokens.append(checked_tokens(texts[-1], _content(choice.logprobs)))
            if response.usage is not None:
                prompt_tokens += response.usage.prompt_tokens
                completion_tokens += response.usage.completion_tokens
            attempt += 1
        return completion_of(texts[: request.n], tokens[: request.n], prompt_tokens, completion_tokens)

    def generate_streaming(self, request: GenerationRequest, on_text: TextSink) -> Completion:
        """One answer (``request.n`` must be 1), each piece passed to ``on_text`` as the server sends it."""
        if request.n != 1:
            raise ModelError("a streamed request asks for one answer")
        import httpx

        with model_calls().counted(GENERATE), self._turn():
            kwargs = self._arguments(request, 1, request.seed)
            stream = self._call(**kwargs, stream=True, stream_options={"include_usage": True})
            pieces: list[str] = []
            written: list[Any] = []
            usage = None
            try:
                for chunk in stream:
                    usage = chunk.usage or usage
                    for choice in chunk.choices[:1]:
                        if choice.delta.content:
                            pieces.append(choice.delta.content)
                            on_text(choice.delta.content)
                        written += _content(choice.logprobs)
            except (self._openai.APIError, httpx.HTTPError):
                # the stream broke (its server stopped): asked again whole, which the client retries and a
                # balancer sends to a server that is up; the draft relayed so far is a draft, the reply replaces it
                return self._generate(request)
            text = "".join(pieces)
            prompt, completion = (usage.prompt_tokens, usage.completion_tokens) if usage else (0, len(written))
            return completion_of([text], [checked_tokens(text, written)], prompt, completion)

    def close(self) -> None:
        self._client.close()


def _content(logprobs: Any) -> list[Any]:
    """The per-token entries of a choice's ``logprobs`` (empty where the server sent none)."""
    return list(getattr(logprobs, "content", None) or [])


def checked_tokens(text: str, entries: Iterable[Any]) -> Tokens | None:
    """(log-probabilities, token texts) of the tokens written, when they can be trusted: each log-probability
    finite and at most 0, and the tokens spelling ``text`` exactly; else None. A trailing token without text is
    the end of the answer, which llama.cpp's server reports and a model in process does not count as written: it
    is left out, or an answer the model was unsure to end there would read as less sure of its own words."""
    logprobs: list[float] = []
    pieces: list[str] = []
    for entry in entries:
        value, piece = getattr(entry, "logprob", None), getattr(entry, "token", None)
        if not isinstance(value, int | float) or not isinstance(piece, str) or not -math.inf < value <= 0.0:
            return None
        logprobs.append(float(value))
        pieces.append(piece)
    while pieces and not pieces[-1]:
        pieces.pop()
        logprobs.pop()
    if not pieces or "".join(pieces) != text:
        return None
    return tuple(logprobs), tuple(pieces)


def completion_of(texts: list[str], tokens: list[Tokens | None], prompt: int, written: int) -> Completion:
    """The completion, with token log-probabilities only where every text has them."""
    if any(t is None for t in tokens):
        return Completion(tuple(texts), prompt, written)
    given = [t for t in tokens if t is not None]
    return Completion(tuple(texts), prompt, written, None, tuple(t[0] for t in given), tuple(t[1] for t in given))
