"""The cloud's Prometheus metrics, scraped over HTTP from a running cloud after real gRPC calls."""

from __future__ import annotations

import asyncio
import contextlib
import urllib.request
from pathlib import Path

import grpc

from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from tests.support.grpc_harness import (
    ACME,
    APP_ID,
    ZEPHYR,
    connected,
    free_port,
    run,
    start_edge,
    start_network,
    token_of,
)


def test_questions_phases_refusals_and_edges_are_counted(tmp_path: Path) -> None:
    port = free_port()

    async def main() -> str:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, metrics_port=port)
        try:
            await connected(net, "edge-a", "edge-b")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                stub = cloud_pb2_grpc.CloudStub(channel)
                ask = cloud_pb2.GlobalQueryRequest(question="Who founded Zephyr Medical in Lisbon?", top_k=1)
                await stub.GlobalQuery(ask, metadata=auth_metadata(APP_ID, token_of(APP_ID)))
                with contextlib.suppress(grpc.aio.AioRpcError):
                    await stub.GlobalQuery(ask, metadata=auth_metadata(APP_ID, "wrong-token-0123456789"))
            url = f"http://127.0.0.1:{port}/metrics"
            return await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=10).read().decode())
        finally:
            await net.close()

    text = run(main())
    assert 'dgrag_cloud_questions_total{asker="app",call="global_query"} 1.0' in text
    assert 'dgrag_cloud_refusals_total{code="UNAUTHENTICATED"} 1.0' in text
    assert "dgrag_cloud_edges_connected 2.0" in text
    assert 'dgrag_cloud_phase_seconds_count{phase="total"} 1.0' in text
    assert 'dgrag_cloud_edge_trust{edge="edge-b"}' in text and "dgrag_cloud_knowledge_bytes_total" in text
    assert 'dgrag_cloud_model_calls_pending{kind="generate"} 0.0' in text, "nothing waits after the answer"


def test_an_edge_counts_its_questions_and_the_bytes_that_left_it(tmp_path: Path) -> None:
    from tests.support.grpc_harness import ask, start_edge

    port = free_port()

    async def main() -> str:
        net = await start_network(tmp_path, {"edge-a": ACME}, extra_edges=["edge-b"])
        await start_edge(net, tmp_path, "edge-b", ZEPHYR, metrics_port=port)
        try:
            await connected(net, "edge-a", "edge-b")
            await ask(net, "edge-b", "Who founded Zephyr Medical in Lisbon?", mode="local")
            url = f"http://127.0.0.1:{port}/metrics"
            return await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=10).read().decode())
        finally:
            await net.close()

    text = run(main())
    assert "dgrag_edge_questions_total{decision=" in text and 'mode="local"' in text
    assert 'dgrag_edge_bytes_out_total{to="cloud",what="summary_sync"}' in text
    assert 'dgrag_edge_model_calls_pending{kind="embed"} 0.0' in text


def test_the_model_queue_counts_calls_waiting_behind_a_running_one() -> None:
    import threading

    from shared.models.pending import EMBED, GENERATE, PendingCalls

    calls, model, started = PendingCalls(), threading.Lock(), threading.Barrier(4)

    def call() -> None:
        with calls.counted(GENERATE):
            started.wait()
            with model:
                pass

    with model:  # the model is busy: three calls queue behind it
        threads = [threading.Thread(target=call) for _ in range(3)]
        for t in threads:
            t.start()
        started.wait()
        assert calls.snapshot() == {GENERATE: 3, EMBED: 0}
    for t in threads:
        t.join()
    assert calls.snapshot() == {GENERATE: 0, EMBED: 0}


def test_an_unnamed_edge_is_counted_but_never_named_on_the_open_metrics_page(tmp_path: Path) -> None:
    port = free_port()

    async def main() -> str:
        net = await start_network(tmp_path, {"edge-a": ACME}, extra_edges=["edge-b"], metrics_port=port)
        await start_edge(net, tmp_path, "edge-b", ZEPHYR, level="summaries_only")
        try:
            await connected(net, "edge-a", "edge-b")
            url = f"http://127.0.0.1:{port}/metrics"
            return await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=10).read().decode())
        finally:
            await net.close()

    text = run(main())
    assert 'dgrag_cloud_edge_trust{edge="edge-a"}' in text and "edge-b" not in text
    assert "dgrag_cloud_edges_unnamed 1.0" in text and "dgrag_cloud_edges_connected 2.0" in text


def test_metrics_with_a_token_file_want_the_token(tmp_path: Path) -> None:
    import urllib.error

    from shared.transport.secret_file import write_secret

    port = free_port()
    token_file = tmp_path / "metrics.token"
    write_secret(token_file, "a-metrics-token-of-24-chars\n")

    def scrape(token: str) -> tuple[int, str]:
        request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                return reply.status, reply.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, ""

    async def main() -> list[tuple[int, str]]:
        net = await start_network(tmp_path, {"edge-a": ACME}, metrics_port=port, metrics_token_file=str(token_file))
        try:
            return [await asyncio.to_thread(scrape, t) for t in ("", "wrong-token", "a-metrics-token-of-24-chars")]
        finally:
            await net.close()

    none, wrong, right = run(main())
    assert none[0] == 401 and wrong[0] == 401
    assert right[0] == 200 and "dgrag_cloud_edges_connected" in right[1]
