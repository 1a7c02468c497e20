"""Generation in one llama.cpp context, a question's sampled answers decoded together, one sequence per sample.

The prompt is read once (its longest prefix shared with the previous prompt is kept in the KV cache, so a
fixed system prompt is read once per process), its cache is copied to every sequence, and each decoding step
evaluates the next token of all unfinished samples in one batch. A step of four sequences costs less than four
steps of one (about 1.6x one on a 2-core EPYC, where a 135M model's step is compute-bound; measured in
docs/results/batched-samples, commit 11b9d3d). Samples that would not all fit the context at once are decoded
in waves that do; ``together`` False decodes them one after another. Each sequence picks its tokens with its own
sampler (shared.models.llama_sampling).

Only llama.cpp's public C functions are called (llama_cpp's ctypes bindings), never llama-cpp-python's private
helpers.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from shared.core.errors import ModelError
from shared.models.llama_sampling import SampleSettings, SequenceSampler


@dataclass(frozen=True)
class BatchedRun:
    """The samples' tokens and what reading and writing them cost."""

    tokens: list[list[int]]
    logprobs: list[list[float]]
    """Per sample, each chosen token's natural-log probability under the model (before any sampling cut)."""
    prompt_tokens: int
    """Prompt tokens evaluated (those after the prefix kept from the previous prompt)."""
    prompt_seconds: float
    decode_seconds: float


class BatchedSampler:
    """Samples up to ``n_seq`` answers of one prompt in parallel sequences of its own llama.cpp context."""

    def __init__(self, llama_cpp: Any, model: Any, n_ctx: int, n_seq: int, threads: int, n_batch: int = 512) -> None:
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = n_ctx
        params.n_batch = params.n_ubatch = n_batch
        params.n_seq_max = n_seq
        params.kv_unified = True  # the sequences share every cell: a copied prompt costs no room
        params.n_threads = params.n_threads_batch = threads
        self._l = llama_cpp
        self._ctx = llama_cpp.llama_init_from_model(model, params)
        if not self._ctx:
            raise ModelError(f"llama.cpp could not make a context for {n_seq} parallel samples")
        self._vocab = llama_cpp.llama_model_get_vocab(model)
        self._batch = llama_cpp.llama_batch_init(n_batch, 0, n_seq)
        self._n_batch = n_batch
        self.n_ctx = n_ctx
        self.n_seq = n_seq
        self._cached: list[int] = []

    def wave(self, prompt_tokens: int, n: int, max_tokens: int) -> int:
        """How many of ``n`` samples of up to ``max_tokens`` after a prompt of ``prompt_tokens`` are decoded at once:
        as many as fit the context's cells and its sequences (at least one)."""
        room = (self.n_ctx - prompt_tokens) // max(max_tokens, 1)
        return max(1, min(n, self.n_seq, room))

    def sample(
        self,
        prompt: Sequence[int],
        n: int,
        settings: SampleSettings,
        together: bool = True,
        on_token: Callable[[int], None] | None = None,
    ) -> BatchedRun:
        """``n`` samples after ``prompt``, decoded together in waves that fit the context (``together`` False:
        one after another). A prompt that leaves no room for an answer is refused; an answer is cut where the
        context ends. ``on_token`` is given each token of a single sample as it is decoded."""
        if not prompt:
            raise ModelError("the prompt is empty")
        if len(prompt) >= self.n_ctx:
            raise ModelError(
                f"the prompt has {len(prompt)} tokens, the context {self.n_ctx}: raise slm.n_ctx or shorten the"
                " retrieved context"
            )
        settings = dataclasses.replace(settings, max_tokens=min(settings.max_tokens, self.n_ctx - len(prompt)))
        size = self.wave(len(prompt), n, settings.max_tokens) if together else 1
        start = time.perf_counter()
        evaluated, last = self._read_prompt(list(prompt))
        read = time.perf_counter()
        tokens: list[list[int]] = []
        logprobs: list[list[float]] = []
        for first in range(0, n, size):
            if first:  # the previous wave's decoding replaced the prompt's logits: read its last token again
                self._l.llama_memory_seq_rm(self._l.llama_get_memory(self._ctx), 0, len(prompt) - 1, -1)
                self._decode_batch([(prompt[-1], len(prompt) - 1, 0, True)])
                last = 0
            wave = self._wave(range(first, min(n, first + size)), settings, last, len(prompt), on_token)
            tokens += [t for t, _ in wave]
            logprobs += [p for _, p in wave]
        return BatchedRun(tokens, logprobs, evaluated, read - start, time.perf_counter() - read)

    def _wave(
        self,
        indexes: range,
        settings: SampleSettings,
        last: int,
        length: int,
        on_token: Callable[[int], None] | None,
    ) -> list[tuple[list[int], list[float]]]:
        """Samples ``indexes`` (their seeds' offsets) decoded together from the prompt cached on sequence 0."""
        memory = self._l.llama_get_memory(self._ctx)
        for seq in range(1, len(indexes)):
            self._l.llama_memory_seq_cp(memory, 0, seq, -1, -1)
        samplers: list[SequenceSampler] = []
        try:
            samplers += [SequenceSampler(self._l, self._vocab, settings, i) for i in indexes]
            tap = on_token if len(samplers) == 1 else None
            return self._decode(samplers, last, length, settings.max_tokens, tap)
        finally:
            for sampler in samplers:
                sampler.close()
            for seq in range(1, self.n_seq):
                self._l.llama_memory_seq_rm(memory, seq, -1, -1)
            self._l.llama_memory_seq_rm(memory, 0, length, -1)

    def _read_prompt(self, prompt: list[int]) -> tuple[int, int]:
        """Evaluate the part of ``prompt`` not already cached on sequence 0; returns the tokens evaluated and the
        batch index of the last one's logits."""
        keep = 0
        for cached, token in zip(self._cached, prompt, strict=False):
            if cached != token:
                break
            keep += 1
        keep = min(keep, len(prompt) - 1)  # the last token is always evaluated: its logits start every sample
        memory = self._l.llama_get_memory(self._ctx)
        self._cached = []
        if not self._l.llama_memory_seq_rm(memory, 0, keep, -1):
            self._l.llama_memory_clear(memory, True)
            keep = 0
        rest = prompt[keep:]
        last = 0
        for begin in range(0, len(rest), self._n_batch):
            part = rest[begin : begin + self._n_batch]
            ends = begin + len(part) == len(rest)
            self._decode_batch([(t, keep + begin + k, 0, ends and k == len(part) - 1) for k, t in enumerate(part)])
            last = len(part) - 1
        self._cached = prompt
        return len(rest), last

    def _decode(
        self,
        samplers: list[SequenceSampler],
        last: int,
        position: int,
        max_tokens: int,
        on_token: Callable[[int], None] | None = None,
    ) -> list[tuple[list[int], list[float]]]:
        """Sample every sequence's next token from its logits until each ends (end of generation or max_tokens);
        with each token, its log-probability under the model's raw logits."""
        out: list[list[int]] = [[] for _ in samplers]
        logprobs: list[list[float]] = [[] for _ in samplers]
        logits_at = [last] * len(samplers)
        active = list(range(len(samplers)))
        while active:
            batch: list[tuple[int, int, int, bool]] = []
            for seq in list(active):
                token = samplers[seq].pick(self._ctx, logits_at[seq])
                if self._l.llama_vocab_is_eog(self._vocab, token):
                    active.remove(seq)
                    continue
                out[seq].append(token)
                logprobs[seq].append(self._logprob(logits_at[seq], token))
                if on_token is not None:
                    on_token(token)
                if len(out[seq]) >= max_tokens:
                    active.remove(seq)
                    continue
                logits_at[seq] = len(batch)
                batch.append((token, position + len(out[seq]) - 1, seq, True))
            if batch:
                self._decode_batch(batch)
        return list(zip(out, logprobs, strict=True))

    def _logprob(self, logits_at: int, token: int) -> float:
        """``token``'s log-probability under the logits of batch output ``logits_at`` (a log-softmax)."""
        import numpy as np

        n_vocab = self._l.llama_vocab_n_tokens(self._vocab)
        logits = np.ctypeslib.as_array(self._l.llama_get_logits_ith(self._ctx, logits_at), shape=(n_vocab,))
        top = float(logits.max())
        return float(logits[token]) - top - float(np.log(np.exp(logits - top, dtype=np.float64).sum()))

    def _decode_batch(self, items: Sequence[tuple[int, int, int, bool]]) -> None:
        """One llama_decode of (token, position, sequence, wants logits) items."""
        batch = self._batch
        batch.n_tokens = len(items)
        for j, (token, position, seq, logits) in enumerate(items):
            batch.token[j] = token
            batch.pos[j] = position
            batch.n_seq_id[j] = 1
            batch.seq_id[j][0] = seq
            batch.logits[j] = logits
        status = self._l.llama_decode(self._ctx, batch)
        if status != 0:
            self._cached = []
            raise ModelError(f"llama.cpp could not decode a batch of {len(items)} tokens (status {status})")

    def close(self) -> None:
        if self._batch is not None:
            self._l.llama_batch_free(self._batch)
            self._batch = None
        if self._ctx:
            self._l.llama_free(self._ctx)
            self._ctx = None
