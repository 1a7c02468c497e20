"""The model interface every backend implements, and a meter that counts what the models were asked."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

JsonSchema = dict[str, Any]
FloatMatrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class GenerationRequest:
    """One prompt to complete ``n`` times."""

    prompt: str
    """The user message."""
    system: str | None = None
    """Optional system message."""
    n: int = 1
    """Number of sampled completions wanted."""
    max_tokens: int = 256
    """Upper bound on completion tokens per sample."""
    temperature: float = 0.0
    """0 means greedy decoding."""
    json_schema: JsonSchema | None = None
    """When set, each completion must be JSON matching this schema (grammar-constrained where the backend can)."""
    seed: int | None = None
    """Sampling seed; backends that support it make runs repeatable."""
    top_p: float = 1.0
    """Nucleus sampling mass (1.0 = off). Every backend passes all sampling values: never a library default."""
    top_k: int = 0
    """Sample among the k likeliest tokens (0 = off)."""
    min_p: float = 0.0
    """Drop tokens below this share of the likeliest token's probability (0.0 = off)."""
    repeat_penalty: float = 1.0
    """Penalty on tokens already generated (1.0 = off)."""

    def sampling(self) -> dict[str, float | int | None]:
        """The sampling values, as recorded in traces."""
        return {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "top_k": self.top_k,
            "min_p": self.min_p,
            "repeat_penalty": self.repeat_penalty,
            "seed": self.seed,
        }


@dataclass(frozen=True)
class Completion:
    """The ``n`` texts a request produced, with token counts over all of them."""

    texts: tuple[str, ...]
    prompt_tokens: int
    completion_tokens: int
    speed: ModelSpeed | None = None
    """Where the runtime measures it (llama_cpp): prompt reading and writing, tokens and seconds."""
    token_logprobs: tuple[tuple[float, ...], ...] = ()
    """Per text, each generated token's natural-log probability under the model (empty: the backend gives none)."""
    token_pieces: tuple[tuple[str, ...], ...] = ()
    """Per text, each generated token's text (what locates a word's tokens in the text; empty: not given)."""

    def probability_at(self, index: int, offset: int) -> float | None:
        """The model's probability of the token of text ``index`` that holds character ``offset`` (None: not
        given)."""
        if index >= min(len(self.token_pieces), len(self.token_logprobs)):
            return None
        at = 0
        for piece, logprob in zip(self.token_pieces[index], self.token_logprobs[index], strict=False):
            at += len(piece)
            if offset < at:
                return math.exp(logprob)
        return None

    def probability(self, index: int = 0, first: int = 0) -> float | None:
        """The model's probability of text ``index`` (the product of its tokens'; of its ``first`` tokens alone
        where that is set; None: the backend gave none)."""
        if index >= len(self.token_logprobs) or not self.token_logprobs[index]:
            return None
        tokens = self.token_logprobs[index]
        return float(math.exp(sum(tokens[:first] if first else tokens)))


@dataclass(frozen=True)
class ModelSpeed:
    """Tokens a runtime read (prefill) and wrote (decode) in one call, and the seconds each took."""

    prefill_tokens: int
    prefill_seconds: float
    decode_tokens: int
    decode_seconds: float

    def as_dict(self) -> dict[str, float]:
        return {
            "prefill_tokens": self.prefill_tokens,
            "prefill_seconds": round(self.prefill_seconds, 4),
            "decode_tokens": self.decode_tokens,
            "decode_seconds": round(self.decode_seconds, 4),
        }


@runtime_checkable
class TextGenerator(Protocol):
    """A language model that completes chat prompts."""

    @property
    def name(self) -> str:
        """A short identifier of the model (used in cache keys and reports)."""
        ...

    def generate(self, request: GenerationRequest) -> Completion:
        """Return ``request.n`` completions. MUST honour ``json_schema`` when it is set."""
        ...

    def close(self) -> None:
        """Release the model's resources."""
        ...


TextSink = Callable[[str], None]
"""Receives the pieces of an answer's text as they are decoded."""


@runtime_checkable
class StreamingGenerator(TextGenerator, Protocol):
    """A generator that can give a single answer's text piece by piece as it is decoded."""

    def generate_streaming(self, request: GenerationRequest, on_text: TextSink) -> Completion:
        """:meth:`generate`, giving ``on_text`` each decoded piece when ``request.n`` is 1."""
        ...


class Tapped:
    """``inner`` whose single free-text answers reach ``on_text`` as they are decoded, where ``inner`` streams.
    A choice (JSON) or several samples are generated as usual: only their final reading is worth showing. A
    second draft (a reader asking again) begins on a new line."""

    def __init__(self, inner: TextGenerator, on_text: TextSink) -> None:
        self._inner = inner
        self._on_text = on_text
        self._drafts = 0

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def inner(self) -> TextGenerator:
        """The model tapped."""
        return self._inner

    def generate(self, request: GenerationRequest) -> Completion:
        single = request.n == 1 and request.json_schema is None
        if single and isinstance(self._inner, StreamingGenerator):
            if self._drafts:
                self._on_text("\n")
            self._drafts += 1
            return self._inner.generate_streaming(request, self._on_text)
        return self._inner.generate(request)

    def close(self) -> None:
        """The tap does not own the model."""


@runtime_checkable
class Embedder(Protocol):
    """A sentence embedder returning L2-normalised float32 vectors."""

    @property
    def name(self) -> str:
        """A short identifier of the model."""
        ...

    @property
    def dim(self) -> int:
        """Vector dimension."""
        ...

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """Embed ``texts``; returns an array of shape (len(texts), dim), rows L2-normalised."""
        ...
