"""The summary index embedding in the background: a write holds its summaries at once, routable by their words,
and they join the dense search and the store once embedded."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from cloud_server.routing.summary_index import SummaryIndex
from cloud_server.routing.summary_store import SummaryStore
from shared.core.knowledge import SummaryCard, SummaryTombstone
from shared.core.model_api import FloatMatrix
from simulation.fakes import HashEmbedder

DIM = 16


class _Gate(HashEmbedder):
    """Embeds once released; can be told to fail."""

    def __init__(self) -> None:
        super().__init__(DIM)
        self.release = threading.Event()
        self.fail = False
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        if texts:
            assert self.release.wait(10)
            self.calls.append(list(texts))
            if self.fail:
                raise RuntimeError("the embedder is broken")
        return super().embed(texts)


def card(sid: str, version: int, text: str) -> SummaryCard:
    return SummaryCard(sid, version, text, ("Kestrel",))


def _search(index: SummaryIndex, question: str, sparse: float) -> list[str]:
    vector = HashEmbedder(DIM).embed([question])[0]  # the gate's vectors, without its gate
    return [m.summary_id for m in index.search(vector, 4, 1, question, sparse)]


def test_a_write_returns_at_once_and_its_summaries_are_found_by_their_words_until_embedded() -> None:
    gate = _Gate()
    index = SummaryIndex(gate)
    index.replace_edge("a", [card("a/sg-1", 1, "insulin dosage for clinic patients")])  # returns unreleased
    assert (index.waiting(), index.count("a"), index.embedded) == (1, 0, 0)
    assert [h.id for h in index.held_view("a")[1]] == ["a/sg-1"], "held (a reconnecting edge is shown it)"
    assert _search(index, "insulin dosage", 0.5) == ["a/sg-1"]
    assert _search(index, "insulin dosage", 0.0) == [], "no vector yet: the dense search cannot find it"
    gate.release.set()
    assert index.settle(5)
    assert (index.waiting(), index.count("a"), index.embedded) == (1 - 1, 1, 1)
    assert _search(index, "insulin dosage", 0.0) == ["a/sg-1"]


def test_a_newer_version_or_a_tombstone_wins_over_a_summary_still_waiting(tmp_path: Path) -> None:
    gate = _Gate()
    store = SummaryStore(tmp_path / "s.sqlite3", gate.name, gate.dim)
    index = SummaryIndex(gate, store)
    index.apply_delta("a", [card("a/sg-1", 1, "first text"), card("a/sg-2", 1, "doomed text")], [])
    index.apply_delta("a", [card("a/sg-1", 2, "edited text")], [SummaryTombstone("a/sg-2", 1)])
    gate.release.set()
    assert index.settle(5)
    assert [(c.id, c.version) for c in index.cards("a")] == [("a/sg-1", 2)]
    assert index.count() == 1 and index.waiting() == 0
    stored = store.load()
    assert [(e, c.id, c.version) for e, c, _ in stored.summaries] == [("a", "a/sg-1", 2)]
    assert stored.tombstones == {"a/sg-2": 1}


def test_only_embedded_summaries_reach_the_store_and_a_restart_embeds_none_again(tmp_path: Path) -> None:
    gate = _Gate()
    path = tmp_path / "s.sqlite3"
    index = SummaryIndex(gate, SummaryStore(path, gate.name, gate.dim))
    index.replace_edge("a", [card("a/sg-1", 1, "one"), card("a/sg-2", 1, "two")])
    before = SummaryIndex(HashEmbedder(DIM), SummaryStore(path, gate.name, gate.dim))
    synced, held = before.held_view("a")
    assert synced and held == [], "the sync is recorded, the summaries are not: a reconnect sends them again"
    gate.release.set()
    assert index.settle(5)
    again = SummaryIndex(HashEmbedder(DIM), SummaryStore(path, gate.name, gate.dim))
    assert again.count("a") == 2 and again.embedded == 0 and again.waiting() == 0


def test_summaries_whose_embedding_fails_stay_routable_by_words_and_the_next_write_retries() -> None:
    gate = _Gate()
    gate.release.set()
    gate.fail = True
    index = SummaryIndex(gate)
    index.replace_edge("a", [card("a/sg-1", 1, "welding robots in the factory")])
    assert not index.settle(0.5)
    assert index.waiting() == 1
    assert _search(index, "welding robots", 0.5) == ["a/sg-1"]
    gate.fail = False
    index.replace_edge("b", [card("b/sg-1", 1, "football league")])
    assert index.settle(5)
    assert index.count() == 2 and sorted(t for call in gate.calls[-1:] for t in call) == sorted(
        ["welding robots in the factory", "football league"]
    )


def test_batches_take_the_oldest_waiting_first() -> None:
    gate = _Gate()
    index = SummaryIndex(gate)
    for i in range(300):
        index.apply_delta(f"e{i}", [card(f"e{i}/sg-1", 1, f"text {i}")], [])
    gate.release.set()
    assert index.settle(10)
    assert all(len(c) <= 256 for c in gate.calls)
    assert [t for c in gate.calls for t in c] == [f"text {i}" for i in range(300)]
    assert index.count() == 300
