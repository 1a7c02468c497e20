"""Token-based chunking with overlap. A chunk is a slice of the original text, so offsets stay exact."""

from __future__ import annotations

from dataclasses import dataclass

from shared.core.text import sentence_spans
from shared.models.tokenizer import Tokenizer


@dataclass(frozen=True)
class TextChunk:
    """One chunk of a document."""

    index: int
    start: int
    end: int
    text: str
    tokens: int


def chunk_text(text: str, tokenizer: Tokenizer, chunk_tokens: int, overlap_tokens: int) -> list[TextChunk]:
    """Windows of at most ``chunk_tokens`` tokens sharing ``overlap_tokens`` with the previous one.

    A window that would cut a sentence ends at the last sentence boundary in its second half instead.
    """
    if chunk_tokens <= 0 or not 0 <= overlap_tokens < chunk_tokens:
        raise ValueError("need chunk_tokens > 0 and 0 <= overlap_tokens < chunk_tokens")
    spans = tokenizer.spans(text)
    if not spans:
        return []
    boundaries = {e for _, e in sentence_spans(text)}
    chunks: list[TextChunk] = []
    first = 0
    prev_last = 0
    while first < len(spans):
        last = min(first + chunk_tokens, len(spans))  # exclusive
        if last < len(spans):
            # Never cut back so far that this chunk ends inside the previous one.
            for cut in range(last, max(first + chunk_tokens // 2, prev_last), -1):
                if spans[cut - 1][1] in boundaries:
                    last = cut
                    break
        start, end = spans[first][0], spans[last - 1][1]
        chunks.append(TextChunk(len(chunks), start, end, text[start:end], last - first))
        if last >= len(spans):
            break
        prev_last = last
        first = max(last - overlap_tokens, first + 1)
    return chunks
