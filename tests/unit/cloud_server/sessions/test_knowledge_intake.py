"""The cloud computes provenance and sizes of an edge's reply itself."""

from __future__ import annotations

import math

from cloud_server.answering.context_merge import merge_knowledge
from cloud_server.sessions.knowledge_intake import MAX_CHUNK_CHARS, MAX_ITEMS, accept_knowledge
from shared.core.knowledge import EdgeKnowledge, KnowledgeChunk, KnowledgeEntity
from simulation.fakes import RegexTokenizer


def test_an_edge_cannot_label_its_chunks_as_another_edges_or_rank_itself_beyond_range() -> None:
    claimed = EdgeKnowledge(
        edge_id="victim",
        chunks=(KnowledgeChunk("d", 1, "text", 50.0, 1), KnowledgeChunk("d", 2, "more", math.nan, 1)),
        entities=(KnowledgeEntity("n", "t", "x", -9.0),),
        evidence=7.0,
        retrieval_seconds=-3.0,
    )
    accepted = accept_knowledge("attacker", claimed)
    assert accepted.edge_id == "attacker"
    assert [c.score for c in accepted.chunks] == [1.0, 0.0]
    assert accepted.entities[0].score == -1.0 and accepted.evidence == 1.0 and accepted.retrieval_seconds == 0.0


def test_a_huge_chunk_declared_as_one_token_is_cut_and_counted_by_the_cloud() -> None:
    chunks = tuple(KnowledgeChunk("d", i, f"part{i} " + "word " * 400_000, 0.9, 1) for i in range(MAX_ITEMS + 10))
    accepted = accept_knowledge("e", EdgeKnowledge("e", chunks=chunks))
    assert len(accepted.chunks) == MAX_ITEMS
    assert all(len(c.text) <= MAX_CHUNK_CHARS and c.tokens == 0 for c in accepted.chunks)
    tokenizer = RegexTokenizer()
    merged = merge_knowledge([accepted], 640, tokenizer)
    # each chunk costs what the cloud counts (~800 tokens), not the 1 declared: only the first fits
    assert len(merged.chunks) == 1 and merged.tokens == tokenizer.count(accepted.chunks[0].text)
