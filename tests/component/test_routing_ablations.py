"""Routing ablations: each routing part switched off for one question (``sp``, ``pr``, ``rm`` at the cloud, ``gc``
at the asking edge), over real gRPC, so a simulation can compare them with the full routing on the same questions."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import grpc
import pytest

from cloud_server.routing.memory import RoutingMemory
from shared.config import CloudQueryConfig, GateConfig
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc, edge_pb2, edge_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from tests.support.fakes import ReversedStrategy
from tests.support.grpc_harness import (
    ACME,
    APP_ID,
    DIM,
    ZEPHYR,
    Network,
    connected,
    run,
    start_edge,
    start_network,
    token_of,
)

QUESTION = "Who founded Zephyr Medical in Lisbon?"


async def _global(net: Network, routing_off: list[str]) -> cloud_pb2.GlobalQueryReply:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
        reply: cloud_pb2.GlobalQueryReply = await cloud_pb2_grpc.CloudStub(channel).GlobalQuery(
            cloud_pb2.GlobalQueryRequest(question=QUESTION, routing_off=routing_off),
            metadata=auth_metadata(APP_ID, token_of(APP_ID)),
            timeout=30,
        )
    return reply


def test_probes_and_memory_switch_off_per_question_and_an_unknown_part_is_refused(tmp_path: Path) -> None:
    memory_file = tmp_path / "memory.npz"
    query = CloudQueryConfig(
        deadline_s=2.0, top_k=1, probe_shortlist=2, memory_weight=0.2, memory_file=str(memory_file)
    )

    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, query=query)
        try:
            await connected(net, "edge-a", "edge-b")
            full = await _global(net, [])
            assert len(full.probes) == 2 and full.probe_bytes > 0
            no_probes = await _global(net, ["pr"])
            assert not no_probes.probes and no_probes.probe_bytes == 0 and "probe" not in no_probes.timings.seconds
            assert list(no_probes.edges_asked) == [no_probes.summaries[0].edge_id], "top-k 1 by summaries"
            no_memory = await _global(net, ["rm"])
            assert len(no_memory.probes) == 2
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await _global(net, ["zz"])
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "zz" in (refused.value.details() or "")
        finally:
            await net.close()

    run(asyncio.wait_for(main(), 60))
    memory = RoutingMemory(DIM, path=memory_file)
    assert memory.step == 1, "only the question with every routing part on was remembered"


def test_an_edge_skips_its_evidence_check_when_gc_is_ablated(tmp_path: Path) -> None:
    always_local = GateConfig(threshold=0.0, check_threshold=0.0, refusal_share=1.1, check_other_edges=True)

    async def main() -> None:
        net = await start_network(tmp_path, {"edge-b": ZEPHYR}, extra_edges=["edge-a"])
        await start_edge(net, tmp_path, "edge-a", ACME, gate=always_local)
        try:
            await connected(net, "edge-a", "edge-b")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.edge_ports['edge-a']}") as channel:
                reply = await edge_pb2_grpc.EdgeStub(channel).Query(
                    edge_pb2.QueryRequest(question=QUESTION, mode="full", ablations=["gc"]),
                    metadata=net.edge_metadata("edge-a"),
                    timeout=30,
                )
            assert reply.decision == "local", "without the check the gate's local answer stands"
            assert "evidence_check" not in json.loads(reply.trace_json)["timings"]
            assert not [e for e in net.runtimes["edge-a"].audit.entries() if e.what == "evidence_check"]
        finally:
            await net.close()

    run(asyncio.wait_for(main(), 60))


def test_a_strategy_handed_to_the_cloud_chooses_the_edges_it_asks(tmp_path: Path) -> None:
    """A researcher's strategy handed to the cloud in Python (the edge stage 2 likes least) routes real
    questions: Zephyr's question goes to the edge that knows nothing of it."""
    usual = CloudQueryConfig(deadline_s=2.0, top_k=1, probe_shortlist=2, probe_max_k=1)

    async def main() -> None:
        net = await start_network(
            tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, query=usual, strategy=ReversedStrategy()
        )
        try:
            await connected(net, "edge-a", "edge-b")
            reply = await _global(net, [])
            assert len(reply.probes) == 2
            assert list(reply.edges_asked) == ["edge-a"], "the probe favours edge-b; this strategy asks the other"
            (tmp_path / "default").mkdir()
            default = await start_network(tmp_path / "default", {"edge-a": ACME, "edge-b": ZEPHYR}, query=usual)
            try:
                await connected(default, "edge-a", "edge-b")
                assert list((await _global(default, [])).edges_asked) == ["edge-b"]
            finally:
                await default.close()
        finally:
            await net.close()

    run(main())
