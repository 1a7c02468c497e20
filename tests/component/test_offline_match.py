"""When the edge whose summaries match a question best is offline, the answer says so (without naming it)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import grpc

from edge_node.query.edge_answer import OFFLINE_NOTE
from shared.core.knowledge import ProbeScores
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc, edge_pb2, edge_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from tests.support.grpc_harness import ACME, APP_ID, ZEPHYR, connected, run, start_network, token_of

QUESTION = "Who founded Zephyr Medical in Lisbon?"


def test_an_offline_best_match_is_reported_to_the_app_and_to_an_asking_edge(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR})
        try:
            await connected(net, "edge-a", "edge-b")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                stub = cloud_pb2_grpc.CloudStub(channel)
                app = auth_metadata(APP_ID, token_of(APP_ID))
                ask = cloud_pb2.GlobalQueryRequest(question=QUESTION, top_k=1)
                assert not (await stub.GlobalQuery(ask, metadata=app)).matched_offline
                await net.stop_edge("edge-b")
                await net.wait_for(lambda: not net.cloud.registry.live("edge-b"))
                reply = await stub.GlobalQuery(ask, metadata=app)
                assert reply.matched_offline and "edge-b" not in reply.edges_asked
                as_edge = auth_metadata("edge-a", token_of("edge-a"))
                check = cloud_pb2.CheckEvidenceRequest(question=QUESTION, local_evidence=0.1)
                verdict = await stub.CheckEvidence(check, metadata=as_edge)
                assert not verdict.stronger_elsewhere and verdict.matched_offline
        finally:
            await net.close()

    run(main())


def test_an_edge_still_connected_whose_probe_never_answers_counts_as_offline_for_an_asking_edge(
    tmp_path: Path,
) -> None:
    """A network cut leaves the cut edge's session open until its heartbeats are missed: meanwhile its probe times
    out, and the asking edge's local answer must still say that an edge which may know more did not answer."""

    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR})

        async def hung(question: str, given: object = None) -> ProbeScores:
            await asyncio.sleep(30)
            raise AssertionError("the probe deadline should have passed")

        try:
            await connected(net, "edge-a", "edge-b")
            net.runtimes["edge-b"].probe = hung  # type: ignore[method-assign]
            assert net.cloud.registry.live("edge-b")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                stub = cloud_pb2_grpc.CloudStub(channel)
                as_edge = auth_metadata("edge-a", token_of("edge-a"))
                check = cloud_pb2.CheckEvidenceRequest(question=QUESTION, local_evidence=0.1)
                verdict = await stub.CheckEvidence(check, metadata=as_edge)
            assert not verdict.stronger_elsewhere and verdict.matched_offline
            # and the asking edge's own answer, kept local after the check, says so
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.edge_ports['edge-a']}") as channel:
                ask = edge_pb2.QueryRequest(question="Who leads Acme Robotics?", mode="full")
                reply = await edge_pb2_grpc.EdgeStub(channel).Query(ask, metadata=net.edge_metadata("edge-a"))
            trace = json.loads(reply.trace_json)
            assert trace["timings"].get("evidence_check"), "the edge's gate asked the cloud to check"
            assert trace["decision"] == "local" and trace["note"] == OFFLINE_NOTE
        finally:
            await net.close()

    run(main())
