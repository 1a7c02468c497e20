"""Routing parts switched off by the cloud's and the edge's own config (how a simulation's ablation network runs
them: simulation.ablation_settings), over real gRPC; and no ablation travels in the protocol."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import grpc

from shared.config import CloudQueryConfig, GateConfig
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc, edge_pb2, edge_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from tests.support.fakes import ReversedStrategy
from tests.support.grpc_harness import (
    ACME,
    APP_ID,
    ZEPHYR,
    Network,
    connected,
    run,
    start_edge,
    start_network,
    token_of,
)

QUESTION = "Who founded Zephyr Medical in Lisbon?"


async def _global(net: Network) -> cloud_pb2.GlobalQueryReply:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
        reply: cloud_pb2.GlobalQueryReply = await cloud_pb2_grpc.CloudStub(channel).GlobalQuery(
            cloud_pb2.GlobalQueryRequest(question=QUESTION),
            metadata=auth_metadata(APP_ID, token_of(APP_ID)),
            timeout=30,
        )
    return reply


def test_no_lab_setting_travels_in_the_protocol() -> None:
    assert "ablations" not in edge_pb2.QueryRequest.DESCRIPTOR.fields_by_name
    for message in (cloud_pb2.GlobalQueryRequest, cloud_pb2.CheckEvidenceRequest):
        assert "routing_off" not in message.DESCRIPTOR.fields_by_name


def test_a_cloud_configured_without_probes_asks_the_top_k_edges_by_summaries(tmp_path: Path) -> None:
    probing = CloudQueryConfig(deadline_s=2.0, top_k=1, probe_shortlist=2)

    async def main() -> None:
        net = await start_network(tmp_path / "probes", {"edge-a": ACME, "edge-b": ZEPHYR}, query=probing)
        try:
            await connected(net, "edge-a", "edge-b")
            full = await _global(net)
            assert len(full.probes) == 2 and full.probe_bytes > 0
        finally:
            await net.close()
        off = CloudQueryConfig(deadline_s=2.0, top_k=1, probe_shortlist=0)
        net = await start_network(tmp_path / "off", {"edge-a": ACME, "edge-b": ZEPHYR}, query=off)
        try:
            await connected(net, "edge-a", "edge-b")
            no_probes = await _global(net)
            assert not no_probes.probes and no_probes.probe_bytes == 0 and "probe" not in no_probes.timings.seconds
            assert list(no_probes.edges_asked) == [no_probes.summaries[0].edge_id], "top-k 1 by summaries"
        finally:
            await net.close()

    for d in ("probes", "off"):
        (tmp_path / d).mkdir()
    run(asyncio.wait_for(main(), 90))


def test_an_edge_configured_without_the_check_keeps_its_gates_answer(tmp_path: Path) -> None:
    always_local = GateConfig(threshold=0.0, check_threshold=0.0, refusal_share=1.1, check_other_edges=False)

    async def main() -> None:
        net = await start_network(tmp_path, {"edge-b": ZEPHYR}, extra_edges=["edge-a"])
        await start_edge(net, tmp_path, "edge-a", ACME, gate=always_local)
        try:
            await connected(net, "edge-a", "edge-b")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.edge_ports['edge-a']}") as channel:
                reply = await edge_pb2_grpc.EdgeStub(channel).Query(
                    edge_pb2.QueryRequest(question=f"{QUESTION[:-1]} after Acme?", mode="full"),  # an answer read
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
            reply = await _global(net)
            assert len(reply.probes) == 2
            assert list(reply.edges_asked) == ["edge-a"], "the probe favours edge-b; this strategy asks the other"
            (tmp_path / "default").mkdir()
            default = await start_network(tmp_path / "default", {"edge-a": ACME, "edge-b": ZEPHYR}, query=usual)
            try:
                await connected(default, "edge-a", "edge-b")
                assert list((await _global(default)).edges_asked) == ["edge-b"]
            finally:
                await default.close()
        finally:
            await net.close()

    run(main())
