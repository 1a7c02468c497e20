"""The operators' page of a running cloud (real gRPC, scripted models) as an operator, an app and a wrong token
see it: for the unit test of its contents and the browser test that renders it."""

from __future__ import annotations

import asyncio
import base64
import urllib.error
import urllib.request
from pathlib import Path

import grpc

from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from tests.support.grpc_harness import (
    ACME,
    ADMIN_ID,
    APP_ID,
    ZEPHYR,
    connected,
    free_port,
    run,
    start_network,
    token_of,
)

QUESTION = "Who founded <b>Zephyr Medical</b> in Lisbon?"


def _get(url: str, user: str, token: str) -> tuple[int, str]:
    auth = base64.b64encode(f"{user}:{token}".encode()).decode()
    request = urllib.request.Request(url, headers={"Authorization": f"Basic {auth}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""


def operators_page(tmp_path: Path) -> dict[str, tuple[int, str]]:
    """The page as an operator, an app and a wrong token see it, after one question."""
    port = free_port()

    async def main() -> dict[str, tuple[int, str]]:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, ops_port=port)
        try:
            await connected(net, "edge-a", "edge-b")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                ask = cloud_pb2.GlobalQueryRequest(question=QUESTION, top_k=1)
                app = auth_metadata(APP_ID, token_of(APP_ID))
                await cloud_pb2_grpc.CloudStub(channel).GlobalQuery(ask, metadata=app)
            url = f"http://127.0.0.1:{port}/"
            who = {
                "ops": (ADMIN_ID, token_of(ADMIN_ID)),
                "app": (APP_ID, token_of(APP_ID)),
                "wrong": (ADMIN_ID, "not-the-token-0123456789"),
            }
            return {k: await asyncio.to_thread(_get, url, *v) for k, v in who.items()}
        finally:
            await net.close()

    return run(main())
