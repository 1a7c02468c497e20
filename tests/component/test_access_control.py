"""Who may do what, over real gRPC on loopback: roles at the cloud, the edge API's token and ingest roots."""

from __future__ import annotations

import os
from pathlib import Path

import grpc
import pytest

from shared.cli.health_cli import check
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc, edge_pb2, edge_pb2_grpc
from shared.transport.grpc_auth import bearer_metadata
from shared.transport.grpc_transport import admitted, auth_metadata
from tests.support.grpc_harness import (
    ACME,
    ADMIN_ID,
    APP_ID,
    ZEPHYR,
    connected,
    run,
    start_network,
    status_of,
    token_of,
)

QUESTION = "Who founded Zephyr Medical in Lisbon?"


def _as(caller: str) -> tuple[tuple[str, str], ...]:
    return auth_metadata(caller, token_of(caller))


def test_each_role_calls_only_its_methods(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR})
        try:
            await connected(net, "edge-a", "edge-b")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                stub = cloud_pb2_grpc.CloudStub(channel)
                match = cloud_pb2.MatchSummariesRequest(question=QUESTION, top_m=2)
                denied = grpc.StatusCode.PERMISSION_DENIED
                assert await status_of(stub.MatchSummaries(match, metadata=_as("edge-a"))) == denied
                assert await status_of(stub.ListEdges(cloud_pb2.ListEdgesRequest(), metadata=_as("edge-a"))) == (
                    grpc.StatusCode.PERMISSION_DENIED
                )
                assert await status_of(stub.ListEdges(cloud_pb2.ListEdgesRequest(), metadata=_as(APP_ID))) == (
                    grpc.StatusCode.PERMISSION_DENIED
                )
                assert await status_of(stub.MatchSummaries(match, metadata=_as(APP_ID))) == grpc.StatusCode.OK
                assert await status_of(stub.ListEdges(cloud_pb2.ListEdgesRequest(), metadata=_as(ADMIN_ID))) == (
                    grpc.StatusCode.OK
                )
                session = stub.Session(iter([]), metadata=_as(APP_ID))  # refused before any message is read
                assert not await admitted(session)
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await session.read()
                assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
                assert "app credential" in (err.value.details() or "")
        finally:
            await net.close()

    run(main())


def test_an_edge_asking_the_cloud_gets_source_ids_never_other_edges_text(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR})
        try:
            await connected(net, "edge-a", "edge-b")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                stub = cloud_pb2_grpc.CloudStub(channel)
                request = cloud_pb2.GlobalQueryRequest(question=QUESTION, top_m=4, top_k=2, asked_at="edge-b")
                as_edge = await stub.GlobalQuery(request, metadata=_as("edge-a"))
                assert as_edge.context_chunks and all(not c.text for c in as_edge.context_chunks)
                assert {c.doc_id for c in as_edge.context_chunks} & {"zeph-1", "zeph-2"}
                assert "Omar Haddad" in as_edge.answer  # the cloud's answer itself is what an edge asks for
                as_app = await stub.GlobalQuery(request, metadata=_as(APP_ID))
                assert as_app.context_chunks and all(not c.text for c in as_app.context_chunks), (
                    "by default (privacy.answers = paraphrase) an app too gets sources by id only"
                )
        finally:
            await net.close()

    run(main())


def test_the_edge_api_wants_its_token_and_reads_only_under_its_ingest_roots(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME})
        try:
            token_file = net.data_dirs["edge-a"] / "api.token"
            assert os.stat(token_file).st_mode & 0o777 == 0o600
            address = f"127.0.0.1:{net.edge_ports['edge-a']}"
            async with grpc.aio.insecure_channel(address) as channel:
                stub = edge_pb2_grpc.EdgeStub(channel)
                for metadata in [(), bearer_metadata("not-the-token-0123456789"), _as("edge-a")]:
                    code = await status_of(stub.Delete(edge_pb2.DeleteRequest(doc_ids=["acme-1"]), metadata=metadata))
                    assert code == grpc.StatusCode.UNAUTHENTICATED
                assert (await stub.Stats(edge_pb2.StatsRequest(), metadata=net.edge_metadata("edge-a"))).documents == 2
            assert await check(address, "dgrag.v1.Edge", 2.0, "") == "SERVING"  # health stays open
        finally:
            await net.close()

    run(main())


def test_ingest_roots_refuse_paths_and_symlinks_leading_out(tmp_path: Path) -> None:
    from edge_node.transport.servicer import ingest_roots, under_roots

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "ok.txt").write_text("fine")
    (tmp_path / "secret.txt").write_text("private")
    (inbox / "escape.txt").symlink_to(tmp_path / "secret.txt")
    roots = ingest_roots(f"{inbox}:")
    assert under_roots(inbox / "ok.txt", roots) and under_roots(inbox, roots)
    assert not under_roots(inbox / "escape.txt", roots)
    assert not under_roots(inbox / ".." / "secret.txt", roots)
    assert not under_roots(Path("/etc/passwd"), roots)
    assert not under_roots(inbox / "ok.txt", ingest_roots(""))
