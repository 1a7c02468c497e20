"""Generation through any OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp's server, OpenAI).

Servers that ignore ``n`` (llama.cpp's) return fewer choices than asked; the missing samples are
requested one by one, so callers always get ``n`` texts.
"""

from __future__ import annotations

from typing import Any

from shared.config import ModelConfig
from shared.core.errors import ModelError
from shared.core.model_api import Completion, GenerationRequest
from shared.models.openai_client import openai_client
from shared.models.pending import GENERATE, model_calls


class OpenAIGenerator:
    """A :class:`~shared.core.model_api.TextGenerator` calling an OpenAI-compatible chat endpoint."""

    def __init__(self, config: ModelConfig) -> None:
        self._openai, self._client = openai_client(
            config.base_url, config.api_key_env, config.timeout_s, "the openai backend", config.insecure
        )
        self._config = config
        self._name = f"openai:{config.model}@{config.base_url}"

    @property
    def name(self) -> str:
        return self._name

    def _response_format(self, schema: dict[str, Any] | None) -> dict[str, Any] | None:
        if schema is None or self._config.json_mode == "none":
            return None
        if self._config.json_mode == "json_object":
            return {"type": "json_object", "schema": schema}
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}

    def _call(self, request: GenerationRequest, n: int, seed: int | None) -> Any:
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
        try:
            return self._client.chat.completions.create(**kwargs)
        except self._openai.APIConnectionError as exc:
            raise ModelError(f"cannot reach the model server at {self._config.base_url}: {exc}") from exc
        except self._openai.APIError as exc:
            raise ModelError(f"the model server at {self._config.base_url} refused the request: {exc}") from exc

    def generate(self, request: GenerationRequest) -> Completion:
        with model_calls().counted(GENERATE):
            return self._generate(request)

    def _generate(self, request: GenerationRequest) -> Completion:
        texts: list[str] = []
        prompt_tokens = completion_tokens = 0
        attempt = 0
        while len(texts) < request.n:
            seed = None if request.seed is None else request.seed + attempt
            response = self._call(request, request.n - len(texts), seed)
            if not response.choices:
                raise ModelError(f"the model server at {self._config.base_url} returned no choices")
            texts.extend((choice.message.content or "") for choice in response.choices)
            if response.usage is not None:
                prompt_tokens += response.usage.prompt_tokens
                completion_tokens += response.usage.completion_tokens
            attempt += 1
        return Completion(tuple(texts[: request.n]), prompt_tokens, completion_tokens)

    def close(self) -> None:
        self._client.close()
