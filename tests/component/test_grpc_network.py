"""Cloud and edges over real gRPC on loopback with scripted models: routing, auth, faults, deltas, privacy."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import grpc
import pytest

from cloud_server.sessions.tokens import TokenBook
from cloud_server.transport.server import serve_cloud
from edge_node.ingest.readers import RawDocument
from shared.cli.health_cli import check
from shared.config import CloudConfig, CloudQueryConfig
from shared.core.constants import SESSION_ADMITTED
from shared.core.knowledge import CloudQuery
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc, common_pb2, edge_pb2, edge_pb2_grpc
from shared.transport.grpc_transport import admitted, auth_metadata
from shared.transport.secret_file import write_secret
from tests.support.grpc_harness import (
    ACME,
    APP_ID,
    ZEPHYR,
    Network,
    ask,
    connected,
    run,
    start_edge,
    start_network,
    token_of,
)


def test_a_question_about_b_asked_at_a_is_escalated_routed_to_b_and_answered_from_b(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR})
        try:
            await connected(net, "edge-a", "edge-b")
            reply = await ask(net, "edge-a", "Who founded Zephyr Medical in Lisbon?")
            trace = json.loads(reply.trace_json)
            assert reply.decision == "cloud" and reply.verified
            assert trace["local_decision"] == "escalate" or "evidence_check" in trace["timings"]
            assert trace["cloud"]["edges_asked"] == ["edge-b"], "routed to edge-b alone"
            assert trace["cloud"]["edges_replied"] == ["edge-b", "edge-a"], "the asker's own evidence joins edge-b's"
            assert "Omar Haddad" in reply.answer
            assert "edge-b" in {s.edge_id for s in reply.sources}
            assert {s.doc_id for s in reply.sources if s.edge_id == "edge-b"} <= {"zeph-1", "zeph-2"}
            own = [e for e in net.runtimes["edge-a"].audit.entries() if e.what == "retrieval_reply"]
            assert len(own) == 1 and own[0].to == "cloud", "edge-a's evidence left under its policy, audited"
            local = await ask(net, "edge-a", "Who leads Acme Robotics in Berlin?")
            assert local.decision == "local" and "Jane Doe" in local.answer
            audit = [e.to_dict() for e in net.runtimes["edge-b"].audit.entries()]
            assert any(e["what"] == "retrieval_reply" and e["bytes"] > 0 for e in audit)
            assert any(e["what"] == "summary_sync" for e in audit)
        finally:
            await net.close()

    run(main())


def _one_edge_hangs(tmp_path: Path, method: str, query: CloudQueryConfig) -> None:
    """edge-b's ``method`` (the retrieval or the probe the cloud asks for) hangs for 5 s: the cloud answers from
    edge-a within its deadline and lists edge-b as failed."""

    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, query=query)
        try:
            await connected(net, "edge-a", "edge-b")
            real = getattr(net.runtimes["edge-b"], method)
            called: list[bool] = []

            async def hangs(*args: Any) -> Any:  # whatever the call carries (question, requester, vectors)
                called.append(True)
                await asyncio.sleep(5)
                return await real(*args)

            setattr(net.runtimes["edge-b"], method, hangs)
            started = time.perf_counter()
            answer = await net.cloud.queries.answer(
                CloudQuery("Omar Haddad Zephyr Medical Acme Robotics", top_m=5, top_k=2)
            )
            assert time.perf_counter() - started < 2.0
            assert called  # edge-b failed because it hung, not because the call could not be made
            assert answer.edges_failed == ["edge-b"] and answer.edges_replied == ["edge-a"]
        finally:
            await net.close()

    run(main())


def test_a_slow_edge_yields_a_partial_answer_within_the_deadline(tmp_path: Path) -> None:
    # probes off: both edges asked, the paper's fan-out
    _one_edge_hangs(tmp_path, "outbound_for", CloudQueryConfig(deadline_s=0.5, probe_shortlist=0))


def test_an_edge_stuck_on_its_probe_is_reported_failed_and_the_others_answer(tmp_path: Path) -> None:
    probes = CloudQueryConfig(deadline_s=0.5, probe_shortlist=2, probe_deadline_s=0.3)
    _one_edge_hangs(tmp_path, "probe", probes)


def test_wrong_token_is_refused_and_an_edge_cannot_write_another_edges_summaries(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME})
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                stub = cloud_pb2_grpc.CloudStub(channel)
                for metadata in [auth_metadata("edge-a", "wrong-token-0123456789"), ()]:
                    with pytest.raises(grpc.aio.AioRpcError) as err:
                        await stub.GlobalQuery(cloud_pb2.GlobalQueryRequest(question="q"), metadata=metadata)
                    assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
                bad = auth_metadata("edge-b", token_of("edge-a"))
                call = stub.Session(iter([]), metadata=bad)
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await call.read()
                assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED

                own = auth_metadata("edge-a", token_of("edge-a"))
                foreign = common_pb2.Summary(id="edge-b/sg-evil", version=9, text="planted")
                messages = [
                    cloud_pb2.EdgeMessage(hello=cloud_pb2.Hello(edge_id="edge-a")),
                    cloud_pb2.EdgeMessage(delta=cloud_pb2.SummaryDelta(upserts=[foreign], up_to_seq=1)),
                ]
                call = stub.Session(iter(messages), metadata=own)
                assert SESSION_ADMITTED in tuple(await call.initial_metadata()) and await admitted(call)
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    async for _ in call:
                        pass
                assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
                assert net.cloud.index.count("edge-b") == 0

                for request in [
                    cloud_pb2.GlobalQueryRequest(question="   "),
                    cloud_pb2.GlobalQueryRequest(question="q", top_k=1000),
                    cloud_pb2.GlobalQueryRequest(question="q", top_m=5000),
                    cloud_pb2.GlobalQueryRequest(question="q", deadline_s=600),
                ]:
                    with pytest.raises(grpc.aio.AioRpcError) as err:
                        await stub.GlobalQuery(request, metadata=own)
                    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                assert await check(f"127.0.0.1:{net.cloud_port}", "", 2.0, "") == "SERVING"
                assert await check(f"127.0.0.1:{net.edge_ports['edge-a']}", "dgrag.v1.Edge", 2.0, "") == "SERVING"
        finally:
            await net.close()

    run(main())


def test_an_oversized_message_gets_resource_exhausted(tmp_path: Path) -> None:
    async def main() -> None:
        tokens = tmp_path / "tokens"
        write_secret(tokens, f"edge edge-a {token_of('edge-a')}\n")
        from cloud_server.api import build_cloud
        from simulation.fakes import HashEmbedder, RegexTokenizer, ScriptedGenerator

        config = CloudConfig(port=0, max_message_bytes=64 * 1024)
        parts = build_cloud(config, HashEmbedder(16), ScriptedGenerator(lambda r: "x"), RegexTokenizer())
        ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        stop = asyncio.Event()
        task = asyncio.create_task(serve_cloud(config, parts, TokenBook.load(tokens), ready.set_result, stop))
        port = await ready
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await cloud_pb2_grpc.CloudStub(channel).GlobalQuery(
                        cloud_pb2.GlobalQueryRequest(question="x" * 100_000),
                        metadata=auth_metadata("edge-a", token_of("edge-a")),
                    )
                assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        finally:
            stop.set()
            await task

    run(main())


def test_a_changed_document_reaches_the_cloud_as_a_delta(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR})
        try:
            await connected(net, "edge-a", "edge-b")
            before = {c.id: c.version for c in net.cloud.index.cards("edge-b")}
            changed = RawDocument(
                "zeph-2",
                "Zephyr clinic",
                "Lena Fischer now runs the Zephyr Medical clinic in Faro for Nordic Care.",
                "z",
            )
            await net.runtimes["edge-b"].ingest([changed])

            def moved() -> bool:
                after = {c.id: c.version for c in net.cloud.index.cards("edge-b")}
                return after != before

            await net.wait_for(moved)
            audit = [e.to_dict() for e in net.runtimes["edge-b"].audit.entries()]
            assert any(e["what"] == "summary_delta" for e in audit)
            texts = " ".join(c.text for c in net.cloud.index.cards("edge-b"))
            assert "Nordic Care" in texts or "Faro" in texts
        finally:
            await net.close()

    run(main())


def test_cloud_down_means_a_local_answer_with_a_note_and_a_restarted_cloud_converges(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR})
        try:
            await connected(net, "edge-a", "edge-b")
            net.stops["cloud"].set()
            await net.tasks["cloud"]
            reply = await ask(net, "edge-a", "Who founded Zephyr Medical in Lisbon?")
            assert reply.decision == "escalate" and not reply.verified
            assert "cloud could not answer" in reply.note
            await net.runtimes["edge-b"].delete(["zeph-2"])
            expected = {c.id: c.version for c in await _edge_cards(net, "edge-b")}

            from cloud_server.api import build_cloud
            from simulation.fakes import HashEmbedder, RegexTokenizer, ScriptedGenerator
            from tests.support.grpc_harness import answer_from_context

            config = CloudConfig(port=net.cloud_port, heartbeat_interval_s=0.5, query=CloudQueryConfig(deadline_s=2))
            parts = build_cloud(config, HashEmbedder(64), ScriptedGenerator(answer_from_context), RegexTokenizer())
            net.cloud = parts
            net.stops["cloud"] = asyncio.Event()
            net.tasks["cloud"] = asyncio.create_task(
                serve_cloud(config, parts, TokenBook.load(tmp_path / "tokens"), stop=net.stops["cloud"])
            )
            await net.wait_for(lambda: {c.id: c.version for c in parts.index.cards("edge-b")} == expected, 15)
            await connected(net, "edge-a")
        finally:
            await net.close()

    run(main())


async def _edge_cards(net: Network, edge_id: str):  # type: ignore[no-untyped-def]
    return (await net.runtimes[edge_id].full_sync()).upserts


def test_privacy_policy_keeps_raw_chunks_home(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME}, extra_edges=["edge-b"])
        try:
            await start_edge(net, tmp_path, "edge-b", ZEPHYR, share_chunks=False)
            await connected(net, "edge-a", "edge-b")
            answer = await net.cloud.queries.answer(CloudQuery("Who founded Zephyr Medical?"))
            assert answer.edges_replied == ["edge-b"]
            assert answer.context == []
            replies = [e.to_dict() for e in net.runtimes["edge-b"].audit.entries() if e.what == "retrieval_reply"]
            assert replies and replies[-1]["chunks"] == []
        finally:
            await net.close()

    run(main())


def test_edge_api_stats_ingest_and_delete(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME})
        try:
            await connected(net, "edge-a")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.edge_ports['edge-a']}") as channel:
                stub = edge_pb2_grpc.EdgeStub(channel)
                meta = net.edge_metadata("edge-a")
                stats = await stub.Stats(edge_pb2.StatsRequest(), metadata=meta)
                assert stats.documents == 2 and stats.cloud_connected
                doc = edge_pb2.InlineDocument(doc_id="new", title="New", text="Initech hired Peter Gibbons in Austin.")
                reply = await stub.Ingest(edge_pb2.IngestRequest(documents=[doc]), metadata=meta)
                assert list(reply.added) == ["new"]
                with pytest.raises(grpc.aio.AioRpcError) as err:  # no ingest roots configured: no paths
                    await stub.Ingest(edge_pb2.IngestRequest(paths=[str(tmp_path / "missing")]), metadata=meta)
                assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED and "ingest roots" in err.value.details()
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await stub.Delete(edge_pb2.DeleteRequest(doc_ids=["nope"]), metadata=meta)
                assert err.value.code() == grpc.StatusCode.NOT_FOUND
                deleted = await stub.Delete(edge_pb2.DeleteRequest(doc_ids=["new"]), metadata=meta)
                assert list(deleted.deleted) == ["new"]
                knowledge = await stub.Retrieve(
                    edge_pb2.RetrieveRequest(question="Who leads Acme Robotics?"), metadata=meta
                )
                assert knowledge.chunks and knowledge.chunks[0].doc_id.startswith("acme")
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await stub.Query(edge_pb2.QueryRequest(question="q", mode="psychic"), metadata=meta)
                assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        finally:
            await net.close()

    run(main())


def test_only_an_edge_asking_has_its_own_evidence_joined_and_an_app_naming_an_edge_does_not(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, query=CloudQueryConfig(top_k=1))
        try:
            await connected(net, "edge-a", "edge-b")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                reply = await cloud_pb2_grpc.CloudStub(channel).GlobalQuery(
                    cloud_pb2.GlobalQueryRequest(question="Who founded Zephyr Medical in Lisbon?", asked_at="edge-a"),
                    metadata=auth_metadata(APP_ID, token_of(APP_ID)),
                    timeout=30,
                )
            assert list(reply.edges_asked) == ["edge-b"] and list(reply.edges_replied) == ["edge-b"]
            assert not [e for e in net.runtimes["edge-a"].audit.entries() if e.what == "retrieval_reply"]
        finally:
            await net.close()

    run(main())
