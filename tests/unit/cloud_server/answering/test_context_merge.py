"""The cloud's merged context: chunks whole, best first within the token budget."""

from __future__ import annotations

from cloud_server.answering.context_merge import merge_knowledge
from shared.core.knowledge import EdgeKnowledge, KnowledgeChunk
from simulation.fakes import RegexTokenizer

LONG = (
    "The Oslo lab opened in 2019. It builds welding arms for shipyards. Dana Smith runs the Oslo lab today. "
    "The cafeteria serves fish on Fridays. Parking is free for visitors."
)


def _reply(edge: str, *texts: str) -> EdgeKnowledge:
    chunks = [KnowledgeChunk(f"{edge}-doc", i, t, 0.9 - i / 10, 0) for i, t in enumerate(texts)]
    return EdgeKnowledge(edge_id=edge, chunks=chunks, entities=[], relations=[])


def test_chunks_are_read_whole() -> None:
    merged = merge_knowledge([_reply("a", LONG)], 640, RegexTokenizer(), "Who runs the Oslo lab?")
    assert merged.chunks[0].chunk.text == LONG and f"[1] {LONG}" in merged.text


def test_the_budget_keeps_the_best_chunks_and_at_least_one() -> None:
    merged = merge_knowledge([_reply("a", LONG, "Second chunk about Bergen.")], 5, RegexTokenizer())
    assert len(merged.chunks) == 1 and merged.chunks[0].chunk.chunk_id == 0


def test_a_chunk_holding_the_questions_rare_words_is_kept_before_one_that_only_scores_alike() -> None:
    alike = "Keys and key pairs are discussed at length in many places, with examples of keys."
    holding = "Run ssh-keygen -t rsa to create the key pair."
    filler = ["Unrelated text about printers.", "More unrelated text about fonts."]
    replies = [_reply("a", alike, *filler), _reply("b", holding)]  # by score: a0 0.9, a1 0.8, a2 0.7, then b0 0.6
    replies[1] = EdgeKnowledge(
        edge_id="b", chunks=[KnowledgeChunk("b-doc", 0, holding, 0.6, 0)], entities=[], relations=[]
    )
    merged = merge_knowledge(replies, 10_000, RegexTokenizer(), "Which command creates an ssh-keygen key pair?")
    order = [c.chunk.text for c in merged.chunks]
    assert order.index(holding) < order.index(filler[0]), "the words lift it over a chunk scored higher"
    assert order[0] in (alike, holding)
