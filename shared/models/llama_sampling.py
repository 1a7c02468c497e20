"""How one llama.cpp sequence picks its next token: a sampler chain, and a grammar checked on the drawn token first.

The chain is llama-cpp-python's order: repeat penalty, then greedy, or top-k, typical, top-p, min-p, temperature and
a seeded draw. A grammar (a JSON schema's GBNF) is not applied to every token of the vocabulary before each draw,
which costs several milliseconds a token on a 49k vocabulary: the token is drawn without it and kept when the
grammar accepts it; only when it does not is the draw made again from the tokens the grammar allows (what
llama.cpp's own tools do). Greedy picks are the same either way; a sampled pick differs only in where the
truncation (top-k, top-p, min-p) is cut, before the grammar instead of after it.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from shared.core.errors import ModelError

PENALTY_LAST_N = 64
"""Tokens the repeat penalty looks back over (llama-cpp-python's default ``last_n_tokens_size``)."""
RANDOM_SEED = 0xFFFFFFFF
"""llama.cpp's LLAMA_DEFAULT_SEED: a random seed."""
_TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)])
"""llama_token_data's layout."""


@dataclass(frozen=True)
class SampleSettings:
    """How each sequence samples its tokens."""

    temperature: float
    top_p: float
    top_k: int
    min_p: float
    repeat_penalty: float
    max_tokens: int
    seed: int | None
    """Sequence i draws with seed + i (None: random)."""
    grammar: str | None = None
    """A GBNF grammar every sample must follow (root rule ``root``)."""


class SequenceSampler:
    """The sampler of the ``index``-th sample of a request."""

    def __init__(self, lib: Any, vocab: Any, settings: SampleSettings, index: int) -> None:
        self._l = lib
        self._n_vocab = int(lib.llama_vocab_n_tokens(vocab))
        self._grammar: Any = None
        if settings.grammar is not None:
            self._grammar = lib.llama_sampler_init_grammar(vocab, settings.grammar.encode("utf-8"), b"root")
            if not self._grammar:
                raise ModelError("llama.cpp could not parse the answer's grammar")
        self._chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
        for part in self._parts(settings, index):
            lib.llama_sampler_chain_add(self._chain, part)
        self._one = np.zeros(1, dtype=_TOKEN_DATA)
        self._all = np.zeros(self._n_vocab, dtype=_TOKEN_DATA)
        self._ids = np.arange(self._n_vocab, dtype=np.int32)
        """Every token's id, copied into the candidates before each draw (a draw sorts and cuts them in place)."""

    def _parts(self, s: SampleSettings, index: int) -> list[Any]:
        lib = self._l
        parts = [lib.llama_sampler_init_penalties(PENALTY_LAST_N, s.repeat_penalty, 0.0, 0.0)]
        if s.temperature <= 0:
            return [*parts, lib.llama_sampler_init_greedy()]
        return [
            *parts,
            lib.llama_sampler_init_top_k(s.top_k),
            lib.llama_sampler_init_typical(1.0, 1),
            lib.llama_sampler_init_top_p(s.top_p, 1),
            lib.llama_sampler_init_min_p(s.min_p, 1),
            lib.llama_sampler_init_temp(s.temperature),
            lib.llama_sampler_init_dist(RANDOM_SEED if s.seed is None else s.seed + index),
        ]

    def pick(self, ctx: Any, logits_at: int) -> int:
        """The next token from the logits of batch output ``logits_at``, accepted by the chain (and grammar)."""
        if self._grammar is None:
            return int(self._l.llama_sampler_sample(self._chain, ctx, logits_at))
        logits = np.ctypeslib.as_array(self._l.llama_get_logits_ith(ctx, logits_at), shape=(self._n_vocab,))
        token = self._draw(logits, constrained=False)
        if not self._allowed(token):
            token = self._draw(logits, constrained=True)
        self._l.llama_sampler_accept(self._grammar, token)
        self._l.llama_sampler_accept(self._chain, token)
        return token

    def _draw(self, logits: np.ndarray, constrained: bool) -> int:
        self._all["id"] = self._ids
        self._all["logit"] = logits
        self._all["p"] = 0.0
        array = self._array(self._all)
        if constrained:
            self._l.llama_sampler_apply(self._grammar, ctypes.byref(array))
        self._l.llama_sampler_apply(self._chain, ctypes.byref(array))
        if not 0 <= array.selected < array.size:
            raise ModelError("llama.cpp's sampler selected no token (the grammar allows none here)")
        return int(array.data[array.selected].id)

    def _allowed(self, token: int) -> bool:
        self._one[0] = (token, 0.0, 0.0)
        array = self._array(self._one)
        self._l.llama_sampler_apply(self._grammar, ctypes.byref(array))
        return not math.isinf(float(self._one["logit"][0]))

    def _array(self, data: np.ndarray) -> Any:
        pointer = data.ctypes.data_as(ctypes.POINTER(self._l.llama_token_data))
        return self._l.llama_token_data_array(data=pointer, size=len(data), selected=-1, sorted=False)

    def close(self) -> None:
        self._l.llama_sampler_free(self._chain)
        if self._grammar is not None:
            self._l.llama_sampler_free(self._grammar)
