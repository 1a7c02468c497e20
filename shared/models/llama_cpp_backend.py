"""In-process GGUF generation with llama-cpp-python (the embedded default SLM).

``n`` > 1 sampled answers are decoded together, one sequence each in one batch per step
(shared.models.llama_batched; ``slm.batch_samples``); otherwise, and where they would not fit the context, they are
drawn one after another from the same prompt, llama.cpp keeping the prompt's KV cache between them so that only the
first sample pays for the prompt. A greedy answer is always drawn alone. JSON schemas become llama.cpp grammars.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from shared.config import ModelConfig
from shared.core.errors import ModelError, ModelNotInstalledError
from shared.core.model_api import Completion, GenerationRequest, ModelSpeed
from shared.models.cpu import resolve_threads
from shared.models.llama_batched import BatchedSampler, SampleSettings
from shared.models.machine_lock import machine_lock
from shared.models.pending import GENERATE, model_calls
from shared.models.weights import slm_path

MIN_SEQUENCES = 4
"""Parallel sequences the batched context is made for at least (more when a request asks for more samples)."""


class LlamaCppGenerator:
    """A :class:`~shared.core.model_api.TextGenerator` running a GGUF model in this process."""

    def __init__(self, config: ModelConfig) -> None:
        try:
            import llama_cpp
        except ImportError as exc:
            raise ModelNotInstalledError(
                "the llama_cpp backend needs llama-cpp-python; run: pip install llama-cpp-python"
            ) from exc
        path = slm_path(config)
        if not path.is_file():
            raise ModelNotInstalledError(f"GGUF model {path} does not exist; set slm.model_path to a .gguf file")
        threads = resolve_threads(config.n_threads)
        try:
            self._llm = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=config.n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                seed=0,
                verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"llama.cpp could not load {path}: {exc}") from exc
        self._llama_cpp = llama_cpp
        self._name = f"llama_cpp:{path.name}"
        self._lock = threading.Lock()
        self._grammars: dict[str, Any] = {}
        self._threads = threads
        self._n_ctx = config.n_ctx
        self._batch_samples = config.batch_samples
        self._batched: BatchedSampler | None = None
        self._formatter: Any = None

    @property
    def name(self) -> str:
        return self._name

    def count_tokens(self, text: str) -> int:
        """Number of model tokens in ``text``."""
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False))

    def _grammar(self, schema: dict[str, Any]) -> Any:
        key = json.dumps(schema, sort_keys=True)
        grammar = self._grammars.get(key)
        if grammar is None:
            grammar = self._llama_cpp.LlamaGrammar.from_json_schema(key, verbose=False)  # type: ignore[attr-defined]
            self._grammars[key] = grammar
        return grammar

    def generate(self, request: GenerationRequest) -> Completion:
        messages: list[dict[str, str]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        messages.append({"role": "user", "content": request.prompt})
        if self._batch_samples and request.n > 1 and request.temperature > 0:
            with model_calls().counted(GENERATE), self._lock:
                batched = self._generate_batched(request, messages)
            if batched is not None:
                return batched
        texts: list[str] = []
        prompt_tokens = completion_tokens = 0
        with model_calls().counted(GENERATE), self._lock:
            grammar = self._grammar(request.json_schema) if request.json_schema is not None else None
            self._llama_cpp.llama_perf_context_reset(self._llm.ctx)
            for i in range(request.n):
                seed = None if request.seed is None else request.seed + i
                try:
                    with machine_lock().held():
                        out: Any = self._llm.create_chat_completion(
                            messages=messages,  # type: ignore[arg-type]
                            temperature=request.temperature,
                            top_p=request.top_p,
                            top_k=request.top_k,
                            min_p=request.min_p,
                            typical_p=1.0,
                            repeat_penalty=request.repeat_penalty,
                            frequency_penalty=0.0,
                            presence_penalty=0.0,
                            max_tokens=request.max_tokens,
                            grammar=grammar,
                            seed=seed,
                        )
                except (ValueError, RuntimeError) as exc:
                    raise ModelError(f"llama.cpp generation failed: {exc}") from exc
                texts.append(out["choices"][0]["message"]["content"] or "")
                usage = out.get("usage") or {}
                # Later samples reuse the cached prompt; count the prompt once, as it was evaluated once.
                if i == 0:
                    prompt_tokens += int(usage.get("prompt_tokens", 0))
                completion_tokens += int(usage.get("completion_tokens", 0))
            perf = self._llama_cpp.llama_perf_context(self._llm.ctx)
        speed = ModelSpeed(int(perf.n_p_eval), perf.t_p_eval_ms / 1000, int(perf.n_eval), perf.t_eval_ms / 1000)
        return Completion(tuple(texts), prompt_tokens, completion_tokens, speed)

    def _generate_batched(self, request: GenerationRequest, messages: list[dict[str, str]]) -> Completion | None:
        """The request's samples decoded together, or None where they would not fit one context (the caller then
        draws them one after another)."""
        prompt = self._chat_tokens(messages)
        if self._batched is None or self._batched.n_seq < request.n:
            if self._batched is not None:
                self._batched.close()
            self._batched = BatchedSampler(
                self._llama_cpp, self._llm.model, self._n_ctx, max(request.n, 4), self._threads
            )
        if not self._batched.fits(prompt, request.n, request.max_tokens):
            return None
        grammar = self._grammar(request.json_schema)._grammar if request.json_schema is not None else None
        settings = SampleSettings(
            request.temperature,
            request.top_p,
            request.top_k,
            request.min_p,
            request.repeat_penalty,
            request.max_tokens,
            request.seed,
            grammar,
        )
        with machine_lock().held():
            run = self._batched.sample(prompt, request.n, settings)
        texts = tuple(self._llm.detokenize(t).decode("utf-8", errors="ignore") for t in run.tokens)
        written = sum(len(t) for t in run.tokens)
        speed = ModelSpeed(run.prompt_tokens, run.prompt_seconds, written, run.decode_seconds)
        return Completion(texts, len(prompt), written, speed)

    def _chat_tokens(self, messages: list[dict[str, str]]) -> list[int]:
        """The prompt tokens create_chat_completion would read for ``messages`` with the model's own chat template
        (as llama-cpp-python renders it: its Jinja template with the model's end and start tokens)."""
        if self._formatter is None:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            template = self._llm.metadata.get("tokenizer.chat_template")
            if not template:
                raise ModelError(f"{self._name} has no chat template; set slm.batch_samples = false")
            vocab = self._llama_cpp.llama_model_get_vocab(self._llm.model)
            eos, bos = self._llm.token_eos(), self._llm.token_bos()
            self._formatter = Jinja2ChatFormatter(
                template=template,
                eos_token=self._token_text(vocab, eos),
                bos_token=self._token_text(vocab, bos),
                stop_token_ids=[eos],
            )
        formatted = self._formatter(messages=messages)
        text = formatted.prompt.encode("utf-8")
        return list(self._llm.tokenize(text, add_bos=not formatted.added_special, special=True))

    def _token_text(self, vocab: Any, token: int) -> str:
        if token == -1:
            return ""
        return bytes(self._llama_cpp.llama_vocab_get_text(vocab, token)).decode("utf-8", errors="ignore")

    def close(self) -> None:
        if self._batched is not None:
            self._batched.close()
        self._llm.close()
