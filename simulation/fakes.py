"""Deterministic fakes for fast unit tests and model-free benchmarks: a scripted generator, a hash-seeded embedder
and a tokenizer of words and punctuation. The product never uses them: a deployment selects real backends.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from shared.core.model_api import Completion, FloatMatrix, GenerationRequest, TextSink
from shared.models.tokenizer import Span

Script = Callable[[GenerationRequest], str]


WORD_LOGPROB = math.log(0.9)
"""The scripted model's log-probability of each word it writes (a word counts as a token)."""


@dataclass
class ScriptedGenerator:
    """Answers every request with ``script(request)``; records the requests it saw."""

    script: Script
    requests: list[GenerationRequest] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "scripted"

    def generate(self, request: GenerationRequest) -> Completion:
        self.requests.append(request)
        texts = tuple(self.script(request) for _ in range(request.n))
        pieces = tuple(tuple(re.findall(r"\s*\S+\s*$|\s*\S+", t)) for t in texts)
        logprobs = tuple(tuple(WORD_LOGPROB for _ in p) for p in pieces)
        return Completion(texts, len(request.prompt.split()), sum(len(p) for p in pieces), None, logprobs, pieces)

    def generate_streaming(self, request: GenerationRequest, on_text: TextSink) -> Completion:
        """:meth:`generate`, giving a single answer to ``on_text`` word by word (as a model decodes it)."""
        completion = self.generate(request)
        if request.n == 1:
            for piece in re.findall(r"\S+\s*|\s+", completion.texts[0]):
                on_text(piece)
        return completion

    def close(self) -> None:
        return None


_WORD = re.compile(r"\w+")


class HashEmbedder:
    """Bag-of-words vectors from hashed tokens: texts sharing words get similar vectors."""

    def __init__(self, dim: int = 64) -> None:
        self._dim = dim

    @property
    def name(self) -> str:
        return f"hash{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.casefold()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest[:4], "little") % self._dim] += 1.0 if digest[4] & 1 else -1.0
            norm = float(np.linalg.norm(out[row]))
            if norm > 0:
                out[row] /= norm
        return out


_WORDISH = re.compile(r"\w+|[^\w\s]")


class RegexTokenizer:
    """Words and punctuation marks as tokens; model-free."""

    def spans(self, text: str) -> list[Span]:
        return [(m.start(), m.end()) for m in _WORDISH.finditer(text)]

    def count(self, text: str) -> int:
        return sum(1 for _ in _WORDISH.finditer(text))
