"""A reconnecting edge sends only what changed: the cloud's welcome lists what it still holds (id, version,
digest) and the edge answers with a delta; where versions cannot reconcile the two, its whole set."""

from __future__ import annotations

import asyncio
from pathlib import Path

from edge_node.policy.audit import SUMMARY_DELTA, SUMMARY_SYNC
from shared.core.knowledge import SummaryCard, SummaryChanges, SummaryTombstone
from shared.core.summary_digest import held_summary, reconcile
from tests.support.grpc_harness import ACME, ZEPHYR, connected, start_edge, start_network

A1, B1, C1 = (SummaryCard(f"e/sg-{x}", 1, f"Summary {x}.", (x.upper(),)) for x in "abc")


def _full(*cards: SummaryCard) -> SummaryChanges:
    return SummaryChanges(cards, (), 9, full=True)


def test_the_delta_holds_only_the_new_the_newer_and_the_gone() -> None:
    held = [held_summary(c) for c in (A1, B1)]
    b2 = SummaryCard(B1.id, 2, "Summary b, revised.", ("B",))
    delta = reconcile(_full(A1, b2, C1), held)
    assert delta is not None and not delta.full and delta.up_to_seq == 9
    assert delta.upserts == (b2, C1) and delta.tombstones == ()
    gone = reconcile(_full(A1), held)
    assert gone is not None and gone.upserts == () and gone.tombstones == (SummaryTombstone(B1.id, 1),)
    same = reconcile(_full(A1, B1), held)
    assert same is not None and same.upserts == () and same.tombstones == ()


def test_what_versions_cannot_reconcile_needs_the_whole_set() -> None:
    reworded = SummaryCard(A1.id, 1, "Summary a, with the names taken out.", ("A",))  # the policy changed
    assert reconcile(_full(reworded), [held_summary(A1)]) is None
    older = SummaryCard(A1.id, 0, A1.text, A1.top_entities)  # the edge's data was rebuilt
    assert reconcile(_full(older), [held_summary(A1)]) is None


def _sent(net, edge_id: str) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    entries = [e.to_dict() for e in net.runtimes[edge_id].audit.entries()]
    return [e for e in entries if e["what"] in (SUMMARY_SYNC, SUMMARY_DELTA)]


def test_an_edge_back_after_a_break_sends_only_what_changed(tmp_path: Path) -> None:
    later = ZEPHYR[0]  # a document of its own topic: the summaries already held stay as they are

    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME})
        try:
            await connected(net, "edge-a")
            first = _sent(net, "edge-a")
            assert [e["what"] for e in first] == [SUMMARY_SYNC]
            await net.stop_edge("edge-a")
            await start_edge(net, tmp_path, "edge-a", [])  # back, nothing changed
            await connected(net, "edge-a")
            await net.wait_for(lambda: len(_sent(net, "edge-a")) >= 2)
            again = _sent(net, "edge-a")[-1]
            assert again["what"] == SUMMARY_DELTA and again["upserts"] == [] and again["tombstones"] == []
            await net.stop_edge("edge-a")
            await start_edge(net, tmp_path, "edge-a", [later])  # back with a new document
            await connected(net, "edge-a")
            await net.wait_for(lambda: len(_sent(net, "edge-a")) >= 3)
            changed = _sent(net, "edge-a")[-1]
            mine = sorted((await net.runtimes["edge-a"].full_sync()).upserts, key=lambda c: c.id)
            assert changed["what"] == SUMMARY_DELTA and 0 < len(changed["upserts"]) < len(mine)  # type: ignore[arg-type]
            held = [held_summary(c) for c in mine]
            await net.wait_for(lambda: net.cloud.index.held_view("edge-a") == (True, held))
        finally:
            await net.close()

    asyncio.run(asyncio.wait_for(main(), 60))
