"""In-process GGUF generation with llama-cpp-python (the embedded default SLM).

Generation runs in one llama.cpp context of ``n_ctx`` cells (shared.models.llama_batched): ``n`` > 1 sampled
answers are decoded together, one sequence each in one batch per step (``slm.batch_samples``; one after another
when it is off), in waves where they would not all fit the context; a greedy answer is one sequence. The prompt is
the model's own chat template as llama-cpp-python renders it, and the prompt's prefix shared with the previous call
is not read again. JSON schemas become llama.cpp grammars. llama-cpp-python's ``Llama`` object serves only as the
loaded model, its tokenizer and its metadata (with a context of a few cells, so it costs next to no memory).
"""

from __future__ import annotations

import codecs
import json
import threading
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

from shared.config import ModelConfig
from shared.core.errors import ModelError, ModelNotInstalledError
from shared.core.model_api import Completion, GenerationRequest, ModelSpeed, TextSink
from shared.models.cpu import resolve_threads
from shared.models.llama_batched import BatchedSampler
from shared.models.llama_sampling import SampleSettings
from shared.models.machine_lock import machine_lock
from shared.models.pending import GENERATE, model_calls
from shared.models.verified_file import OpenedModel, open_verified
from shared.models.weights import model_file

SEQUENCES = 4
"""Parallel sequences of the context (a request for more samples decodes them in waves)."""
LOADER_CTX = 16
"""Cells of the ``Llama`` object's own context, which never generates."""


class LlamaCppGenerator:
    """A :class:`~shared.core.model_api.TextGenerator` running a GGUF model in this process."""

    def __init__(self, config: ModelConfig) -> None:
        try:
            import llama_cpp
        except ImportError as exc:
            raise ModelNotInstalledError(
                "the llama_cpp backend needs llama-cpp-python; run: pip install llama-cpp-python"
            ) from exc
        path, expected = model_file(config)
        if not path.is_file():
            raise ModelNotInstalledError(f"GGUF model {path} does not exist; set slm.model_path to a .gguf file")
        threads = resolve_threads(config.n_threads)
        # a cached or packaged file is hashed every time it is loaded, and llama.cpp reads the descriptor hashed
        opened = open_verified(path, expected) if expected else nullcontext(OpenedModel(path, str(path)))
        try:
            with opened as model:
                self._llm = llama_cpp.Llama(
                    model_path=model.load_path, n_ctx=LOADER_CTX, n_batch=LOADER_CTX, n_threads=1, verbose=False
                )
            self._sampler = BatchedSampler(llama_cpp, self._llm.model, config.n_ctx, SEQUENCES, threads)
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"llama.cpp could not load {path}: {exc}") from exc
        self._llama_cpp = llama_cpp
        self._name = f"llama_cpp:{path.name}"
        self._lock = threading.Lock()
        self._grammars: dict[str, str] = {}
        self._together = config.batch_samples
        self._formatter = self._chat_formatter()

    @property
    def name(self) -> str:
        return self._name

    def _grammar(self, schema: dict[str, Any]) -> str:
        from llama_cpp.llama_grammar import json_schema_to_gbnf

        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            self._grammars[key] = json_schema_to_gbnf(key)
        return self._grammars[key]

    def generate(self, request: GenerationRequest) -> Completion:
        return self._generate(request, None)

    def generate_streaming(self, request: GenerationRequest, on_text: TextSink) -> Completion:
        """:meth:`generate`, giving ``on_text`` each piece of a single answer's text as it is decoded (a request
        for several samples is generated as usual, its texts given at the end only)."""
        if request.n != 1:
            return self._generate(request, None)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="ignore")
        written: list[int] = []

        def on_token(token: int) -> None:
            piece = decoder.decode(self._llm.detokenize([token], prev_tokens=written))
            written.append(token)
            if piece:
                on_text(piece)

        return self._generate(request, on_token)

    def _generate(self, request: GenerationRequest, on_token: Callable[[int], None] | None) -> Completion:
        with model_calls().counted(GENERATE), self._lock:
            prompt = self._chat_tokens(request)
            settings = SampleSettings(
                request.temperature,
                request.top_p,
                request.top_k,
                request.min_p,
                request.repeat_penalty,
                request.max_tokens,
                request.seed,
                self._grammar(request.json_schema) if request.json_schema is not None else None,
            )
            with machine_lock().held():
                run = self._sampler.sample(prompt, request.n, settings, together=self._together, on_token=on_token)
            texts = tuple(self._llm.detokenize(t).decode("utf-8", errors="ignore") for t in run.tokens)
        written = sum(len(t) for t in run.tokens)
        speed = ModelSpeed(run.prompt_tokens, run.prompt_seconds, written, run.decode_seconds)
        logprobs = tuple(tuple(p) for p in run.logprobs)
        return Completion(texts, len(prompt), written, speed, logprobs, self._pieces(run.tokens))

    def _pieces(self, samples: list[list[int]]) -> tuple[tuple[str, ...], ...]:
        """Each sample's tokens as text, decoded in turn so that a character split over tokens is whole once."""
        out = []
        for tokens in samples:
            decoder = codecs.getincrementaldecoder("utf-8")(errors="ignore")
            out.append(tuple(decoder.decode(self._llm.detokenize([t])) for t in tokens))
        return tuple(out)

    def _chat_formatter(self) -> Any:
        """The model's chat template as llama-cpp-python renders it (a Jinja template given the model's end and
        start tokens)."""
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        template = self._llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelNotInstalledError(f"{self._name} has no chat template in its metadata; use an instruct GGUF")
        vocab = self._llama_cpp.llama_model_get_vocab(self._llm.model)
        eos, bos = self._llm.token_eos(), self._llm.token_bos()
        return Jinja2ChatFormatter(
            template=template,
            eos_token=self._token_text(vocab, eos),
            bos_token=self._token_text(vocab, bos),
            stop_token_ids=[eos],
        )

    def _chat_tokens(self, request: GenerationRequest) -> list[int]:
        """The prompt tokens create_chat_completion would read for ``request``'s system and user messages."""
        messages = [{"role": "system", "content": request.system}] if request.system else []
        messages.append({"role": "user", "content": request.prompt})
        formatted = self._formatter(messages=messages)
        text = formatted.prompt.encode("utf-8")
        return list(self._llm.tokenize(text, add_bos=not formatted.added_special, special=True))

    def _token_text(self, vocab: Any, token: int) -> str:
        if token == -1:
            return ""
        text: bytes = self._llama_cpp.llama_vocab_get_text(vocab, token)
        return text.decode("utf-8", errors="ignore")

    def close(self) -> None:
        self._sampler.close()
        self._llm.close()
