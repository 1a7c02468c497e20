"""Merge the knowledge several edges returned into one token-budgeted context for the cloud LLM.

"Best" fuses two rankings of every chunk received (reciprocal rank fusion): by its score (the cloud's own
similarity of it to the question, set in claim_check.rescored) and by BM25 over the received texts, so that a
chunk holding the question's rare words (an option, a path) is not dropped for one that merely sounds alike.
Chunks from all edges are taken best first, each cut to the sentences that bear most on the question where
an excerpt length is set; entity and relation descriptions fill what is left (they are all an edge may send when
its privacy policy keeps raw chunks home).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shared.core.knowledge import ContextChunk, EdgeKnowledge
from shared.core.lexical import LexicalIndex, fuse_ranks
from shared.models.tokenizer import Tokenizer


@dataclass(frozen=True)
class MergedContext:
    text: str
    chunks: list[ContextChunk]
    tokens: int
    edges: frozenset[str] = frozenset()
    """Every edge whose text (a chunk, or an entity or relation line) is in ``text``."""

    @property
    def chunk_text(self) -> str:
        """The context without its entity and relation lines: the numbered chunks alone (numbered as in ``text``)."""
        return "\n\n".join(f"[{i + 1}] {c.chunk.text}" for i, c in enumerate(self.chunks))


def merge_knowledge(
    replies: Sequence[EdgeKnowledge],
    budget_tokens: int,
    tokenizer: Tokenizer,
    question: str = "",
) -> MergedContext:
    """The context text for the cloud LLM, and which chunks (whole, as the edges sent them) went into it, ranked by
    their scores fused with their BM25 against ``question``."""
    received = [(k.edge_id, c) for k in replies for c in k.chunks]
    by_score = sorted(
        range(len(received)), key=lambda i: (-received[i][1].score, received[i][0], received[i][1].chunk_id)
    )
    lexical = LexicalIndex((i, c.text) for i, (_, c) in enumerate(received)) if question else None
    by_words = [i for i, _ in lexical.ranked(question, len(received))] if lexical else []
    fused = fuse_ranks([by_score, by_words])
    ranked = [received[i] for i in sorted(by_score, key=lambda i: -fused[i])]  # stable: ties keep the score order
    parts: list[str] = []
    used_chunks: list[ContextChunk] = []
    used = 0
    seen_text: set[str] = set()
    for edge_id, chunk in ranked:
        cost = tokenizer.count(chunk.text)  # never the edge's own count: it could lie
        if chunk.text in seen_text or (used + cost > budget_tokens and used_chunks):
            continue
        seen_text.add(chunk.text)
        used += cost
        used_chunks.append(ContextChunk(edge_id, chunk))
        parts.append(f"[{len(parts) + 1}] {chunk.text}")
    edges = {c.edge_id for c in used_chunks}
    facts: list[tuple[float, str, str]] = []
    for k in replies:
        facts += [(e.score, k.edge_id, f"{e.name} ({e.type}): {e.description}") for e in k.entities]
        facts += [(r.score, k.edge_id, f"{r.source} -- {r.target}: {r.description}") for r in k.relations]
    for _, edge_id, line in sorted(facts, key=lambda t: -t[0]):
        cost = tokenizer.count(line)
        if used + cost > budget_tokens or line in seen_text:
            continue
        seen_text.add(line)
        used += cost
        edges.add(edge_id)
        parts.append(f"- {line}")
    return MergedContext("\n\n".join(parts), used_chunks, used, frozenset(edges))
