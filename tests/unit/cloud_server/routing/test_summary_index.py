"""The cloud's summary index: versioned upserts and tombstones, full syncs, search by question."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from cloud_server.routing.summary_index import SummaryIndex
from shared.core.knowledge import SummaryCard, SummaryTombstone
from shared.core.model_api import FloatMatrix
from simulation.fakes import HashEmbedder
from tests.support.settled_index import SettledSummaryIndex


def card(sid: str, version: int, text: str) -> SummaryCard:
    return SummaryCard(sid, version, text, ("X",))


def test_search_ranks_the_summary_sharing_words_with_the_question_first() -> None:
    emb = HashEmbedder(64)
    index = SettledSummaryIndex(emb)
    index.replace_edge("a", [card("a/sg-1", 1, "robots factory welding arms"), card("a/sg-2", 1, "football league")])
    index.replace_edge("b", [card("b/sg-1", 1, "clinic patients insulin dosage")])
    hits = index.search(emb.embed(["insulin dosage for clinic patients"])[0], 3)
    assert hits[0].summary_id == "b/sg-1"
    assert hits[0].edge_id == "b"
    assert len(hits) == 3


def test_older_upserts_and_tombstones_never_move_the_view_backwards() -> None:
    index = SettledSummaryIndex(HashEmbedder(16))
    index.apply_delta("a", [card("a/sg-1", 3, "v3 text")], [])
    index.apply_delta("a", [card("a/sg-1", 2, "v2 text")], [])  # late duplicate
    assert index.cards("a")[0].version == 3
    index.apply_delta("a", [], [SummaryTombstone("a/sg-1", 2)])  # older tombstone: ignored
    assert index.count("a") == 1
    index.apply_delta("a", [], [SummaryTombstone("a/sg-1", 4)])
    assert index.count("a") == 0
    index.apply_delta("a", [card("a/sg-1", 4, "resurrected at the deleted version")], [])
    assert index.count("a") == 0, "an upsert not newer than its tombstone stays deleted"
    index.apply_delta("a", [card("a/sg-1", 5, "new")], [])
    assert [c.version for c in index.cards("a")] == [5]


def test_full_sync_replaces_only_that_edges_view() -> None:
    index = SettledSummaryIndex(HashEmbedder(16))
    index.replace_edge("a", [card("a/sg-1", 1, "one"), card("a/sg-2", 1, "two")])
    index.replace_edge("b", [card("b/sg-1", 1, "three")])
    index.replace_edge("a", [card("a/sg-3", 1, "four")])
    assert [c.id for c in index.cards("a")] == ["a/sg-3"]
    assert index.counts_by_edge() == {"a": 1, "b": 1}
    assert len(index.search(HashEmbedder(16).embed(["four"])[0], 10)) == 2


def test_edge_pool_ranks_an_edge_matching_in_several_summaries_above_a_single_lucky_summary() -> None:
    from cloud_server.routing.edge_rank import ranked

    matches = [
        (0.90, "a/sg-1", "a", 1),  # one strong summary, the rest of edge a is unrelated
        (0.85, "b/sg-1", "b", 1),
        (0.80, "b/sg-2", "b", 1),
        (0.78, "b/sg-3", "b", 1),
        (0.20, "a/sg-2", "a", 1),
        (0.10, "a/sg-3", "a", 1),
    ]
    # pool 1: edges by their single best summary; each edge's best first, then the rest by own score
    assert [m[1] for m in ranked(matches, 1)] == [
        "a/sg-1",
        "b/sg-1",
        "b/sg-2",
        "b/sg-3",
        "a/sg-2",
        "a/sg-3",
    ]
    # pool 3: edge b (mean 0.81) beats edge a (mean 0.40)
    assert [m[1] for m in ranked(matches, 3)] == [
        "b/sg-1",
        "a/sg-1",
        "b/sg-2",
        "b/sg-3",
        "a/sg-2",
        "a/sg-3",
    ]


def test_search_with_an_edge_pool_returns_m_summaries_ordered_by_edge() -> None:
    emb = HashEmbedder(64)
    index = SettledSummaryIndex(emb)
    index.replace_edge("a", [card("a/sg-1", 1, "insulin clinic"), card("a/sg-2", 1, "football league scores")])
    index.replace_edge(
        "b", [card("b/sg-1", 1, "insulin dosage clinic"), card("b/sg-2", 1, "clinic patients insulin dosage")]
    )
    question = emb.embed(["insulin dosage for clinic patients"])[0]
    hits = index.search(question, 3, edge_pool=2)
    assert len(hits) == 3
    assert [h.edge_id for h in hits] == ["b", "a", "b"]  # the best summary of each edge, best edge first


def test_one_id_twice_in_a_sync_then_its_tombstone_leaves_no_orphan_to_break_search() -> None:
    emb = HashEmbedder(16)
    index = SettledSummaryIndex(emb)
    index.replace_edge("a", [card("a/sg-1", 1, "first"), card("a/sg-1", 1, "second"), card("a/sg-2", 1, "other")])
    assert index.count("a") == 2
    index.apply_delta("a", [], [SummaryTombstone("a/sg-1", 2)])
    hits = index.search(emb.embed(["first second"])[0], 5)
    assert [h.summary_id for h in hits] == ["a/sg-2"]


def test_a_message_naming_one_summary_twice_is_refused() -> None:
    import pytest

    from cloud_server.sessions.summary_intake import check_publication
    from shared.core.errors import InvalidRequestError

    with pytest.raises(InvalidRequestError, match="appears twice"):
        check_publication("a", [card("a/sg-1", 1, "x")], [SummaryTombstone("a/sg-1", 2)])


class _HeldEmbedder(HashEmbedder):
    """Embeds only once released: a delta of an earlier session still being embedded when its edge reconnects."""

    def __init__(self) -> None:
        super().__init__(16)
        self.started = threading.Event()
        self.release = threading.Event()

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        if texts:
            self.started.set()
            assert self.release.wait(10)
        return super().embed(texts)


def test_a_reconnecting_edge_is_shown_its_earlier_sessions_write_so_its_deletion_holds() -> None:
    """Trust round 3, finding 7: a reconnecting edge is shown the write of its earlier session even while that
    write's summaries are being embedded, and a deletion it sends then holds: the late vector of the deleted
    summary never lands in the index."""
    embedder = _HeldEmbedder()
    index = SummaryIndex(embedder)
    embedder.release.set()
    index.replace_edge("a", [card("a/sg-1", 1, "first text")])
    assert index.settle(5)
    embedder.started.clear()
    embedder.release.clear()
    index.apply_delta("a", [card("a/sg-1", 2, "edited text")], [])
    assert embedder.started.wait(5), "v2 is being embedded"
    _, held = index.held_view("a")
    assert [(h.id, h.version) for h in held] == [("a/sg-1", 2)], "held at once, before its vector"
    # the edge deleted it: its reconcile sends a tombstone at the version it was shown
    index.apply_delta("a", [], [SummaryTombstone(h.id, h.version) for h in held])
    embedder.release.set()
    assert index.settle(5)
    assert index.count("a") == 0 and index.held_view("a")[1] == []
