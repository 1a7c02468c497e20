"""The summary index on disk: a new index on the same store holds what the old one held, embedding nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from cloud_server.routing.summary_store import SummaryStore
from shared.core.errors import ConfigError
from shared.core.knowledge import SummaryCard, SummaryTombstone
from simulation.fakes import HashEmbedder
from tests.support.settled_index import SettledSummaryIndex


def _card(edge: str, n: int, version: int, text: str) -> SummaryCard:
    return SummaryCard(f"{edge}/sg-{n}", version, text, ("Acme", "Berlin"), 3, 2)


def test_a_restarted_index_holds_what_it_held_without_embedding(tmp_path: Path) -> None:
    embedder = HashEmbedder(32)
    store = SummaryStore(tmp_path / "s.sqlite3", embedder.name, embedder.dim)
    index = SettledSummaryIndex(embedder, store)
    index.replace_edge("a", [_card("a", 1, 1, "Acme builds welding arms in Berlin."), _card("a", 2, 1, "Jane leads.")])
    index.replace_edge("b", [_card("b", 1, 1, "Zephyr makes insulin pumps in Lisbon.")])
    index.apply_delta("a", [_card("a", 2, 2, "Jane Doe leads Acme Robotics.")], [SummaryTombstone("a/sg-1", 2)])
    store.close()

    again = SettledSummaryIndex(embedder, SummaryStore(tmp_path / "s.sqlite3", embedder.name, embedder.dim))
    assert again.embedded == 0
    assert again.held_view("a") == index.held_view("a") and again.held_view("b") == index.held_view("b")
    assert again.held_view("a")[0], "the edge's whole set was received: a reconnect sends only the difference"
    vector = embedder.embed(["Who leads Acme Robotics?"])[0]
    assert again.search(vector, 3) == index.search(vector, 3)
    again.apply_delta("a", [_card("a", 1, 1, "an older version")], [])
    assert again.count("a") == 1, "the tombstone outlived the restart: an older upsert is ignored"
    assert again.replace_edge("b", index.cards("b")) == 0, "unchanged summaries are not embedded again"


def test_a_store_made_with_another_embedder_is_refused(tmp_path: Path) -> None:
    SummaryStore(tmp_path / "s.sqlite3", "st:one", 32).close()
    with pytest.raises(ConfigError, match="summary_store"):
        SummaryStore(tmp_path / "s.sqlite3", "st:other", 32)
