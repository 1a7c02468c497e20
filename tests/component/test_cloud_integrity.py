"""The cloud's state stays bounded and truthful whatever one edge sends: caps, cheap re-syncs, bounded
tombstones, no routing to a disconnected edge, no session without a hello."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest

from cloud_server.routing import summary_index
from cloud_server.sessions.summary_intake import MAX_SUMMARIES_PER_EDGE, check_capacity
from shared.core.errors import ResourceExhaustedError
from shared.core.knowledge import CloudQuery, SummaryCard, SummaryTombstone
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from simulation.fakes import HashEmbedder
from tests.support.fakes import CountingEmbedder
from tests.support.grpc_harness import ACME, ZEPHYR, connected, run, start_network, token_of
from tests.support.settled_index import SettledSummaryIndex


def _card(i: int, text: str = "", version: int = 1) -> SummaryCard:
    return SummaryCard(f"a/sg-{i}", version, text or f"summary {i}", ("X",))


def test_a_reconnecting_edges_full_sync_embeds_only_what_changed() -> None:
    emb = CountingEmbedder()
    index = SettledSummaryIndex(emb)
    cards = [_card(i) for i in range(50)]
    assert index.replace_edge("a", cards) == 50
    emb.asked.clear()
    assert index.replace_edge("a", cards) == 0 and emb.texts == 0
    changed = [*cards[:49], _card(49, "new text", 2), _card(50)]
    assert index.replace_edge("a", changed) == 2 and emb.texts == 2
    assert index.count("a") == 51
    assert index.replace_edge("a", cards[:10]) == 0 and index.count("a") == 10


def test_tombstones_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(summary_index, "MAX_TOMBSTONES", 100)
    index = SettledSummaryIndex(HashEmbedder(16))
    for i in range(1000):
        index.apply_delta("a", [], [SummaryTombstone(f"a/sg-{i}", 1)])
    assert index.tombstone_count() == 100


def test_per_edge_caps_refuse_with_resource_exhausted() -> None:
    held = {f"a/sg-{i}": 10 for i in range(MAX_SUMMARIES_PER_EDGE)}
    check_capacity("a", held, [_card(1, version=2)], full=False)  # an update of a held one fits
    with pytest.raises(ResourceExhaustedError, match="at most"):
        check_capacity("a", held, [_card(MAX_SUMMARIES_PER_EDGE + 1)], full=False)
    with pytest.raises(ResourceExhaustedError, match="characters"):
        check_capacity("a", {}, [_card(i, "x" * 8000) for i in range(3000)], full=True)


def test_a_disconnected_edge_is_not_asked_and_a_silent_session_is_closed(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, hello_timeout_s=0.3)
        try:
            await connected(net, "edge-a", "edge-b")
            await net.stop_edge("edge-b")
            await net.wait_for(lambda: not net.cloud.registry.connected("edge-b"))
            answer = await net.cloud.queries.answer(
                CloudQuery("Who founded Zephyr Medical in Lisbon?", top_m=4, top_k=1)
            )
            assert answer.summaries[0].edge_id == "edge-b"  # still the best match: its summaries are kept
            assert answer.edges_asked == ["edge-a"] and not answer.edges_failed
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                never: asyncio.Queue[cloud_pb2.EdgeMessage] = asyncio.Queue()

                async def silence():  # type: ignore[no-untyped-def]
                    yield await never.get()

                call = cloud_pb2_grpc.CloudStub(channel).Session(
                    silence(), metadata=auth_metadata("edge-a", token_of("edge-a"))
                )
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await call.read()
                assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        finally:
            await net.close()

    run(main())


def test_a_flapping_edge_leaves_one_consistent_view_at_the_cloud(tmp_path: Path) -> None:
    from tests.support.grpc_harness import start_edge

    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR})
        try:
            await connected(net, "edge-a", "edge-b")
            held = {c.id: c.version for c in net.cloud.index.cards("edge-b")}
            for _ in range(5):  # down and up again, quickly
                await net.stop_edge("edge-b")
                await start_edge(net, tmp_path, "edge-b", [])
            await connected(net, "edge-b")
            await net.wait_for(lambda: {c.id: c.version for c in net.cloud.index.cards("edge-b")} == held)
            assert net.cloud.index.count() == len(held) + net.cloud.index.count("edge-a")
            answer = await net.cloud.queries.answer(
                CloudQuery("Who founded Zephyr Medical in Lisbon?", top_m=4, top_k=1)
            )
            assert answer.edges_replied == ["edge-b"]
        finally:
            await net.close()

    run(main())
