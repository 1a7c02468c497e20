"""The servers the protocol attacks aim at, and the calls they make (tests/support/attacks.py holds the attacks).

``start_targets(workdir)`` starts ``dgrag cloud serve`` and ``dgrag edge serve`` (real models) with a tokens
file of two edges, an app and an operator. Each helper returns the status a call ended with, by name.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Awaitable, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc

from edge_node.api import read_api_token
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc, common_pb2, edge_pb2, edge_pb2_grpc
from shared.transport.grpc_transport import admitted, auth_metadata
from shared.transport.secret_file import write_secret
from simulation.processes import Server, stop_all

EDGE, OTHER, APP, ADMIN = "e1", "e2", "app", "ops"
STREAM_WAIT_S = 15.0
MAX_MESSAGE_BYTES = 4 * 1024 * 1024
FACT = "The Kestrel Observatory in Armenia is directed by Mara Vance, who took over in 2019."


@dataclass
class Targets:
    """The running servers and the credentials the attacks use (real ones, so each attack is the only fault)."""

    workdir: Path
    cloud: Server
    edge: Server
    tokens: dict[str, str]
    edge_api_token: str

    def meta(self, caller: str, token_of: str | None = None) -> tuple[tuple[str, str], ...]:
        return auth_metadata(caller, self.tokens[token_of or caller])

    def stop(self) -> None:
        stop_all([self.edge, self.cloud])


def start_targets(workdir: Path, env: dict[str, str]) -> Targets:
    """A cloud (2 queries at once, 1 s hello timeout, 4 MiB messages) and an edge whose API may ingest only
    under ``workdir/inbox``."""
    tokens = {name: secrets.token_urlsafe(24) for name in (EDGE, OTHER, APP, ADMIN)}
    roles = {EDGE: "edge", OTHER: "edge", APP: "app", ADMIN: "admin"}
    write_secret((workdir / "tokens"), "".join(f"{roles[n]} {n} {t}\n" for n, t in tokens.items()))
    (workdir / "cloud.toml").write_text(
        f'tokens_file = "{workdir / "tokens"}"\nport = 0\nhello_timeout_s = 1.0\n'
        f"max_message_bytes = {MAX_MESSAGE_BYTES}\n[llm]\nn_ctx = 2048\n"
        "[query]\nmax_concurrent_queries = 2\ndeadline_s = 3.0\nmax_tokens = 32\n"
    )
    (workdir / "inbox").mkdir(exist_ok=True)
    (workdir / "edge.toml").write_text(
        f'edge_id = "{EDGE}"\n[server]\nport = 0\ningest_roots = "{workdir / "inbox"}"\n'
    )
    clean = {k: v for k, v in env.items() if not k.startswith("DGRAG__")}
    cloud = Server("cloud", ["cloud", "serve", "--config", str(workdir / "cloud.toml")], workdir, clean)
    edge_args = ["edge", "serve", "--data-dir", str(workdir / "edge"), "--config", str(workdir / "edge.toml")]
    edge = Server("edge", edge_args, workdir, clean)
    try:
        cloud.wait_ready()
        edge.wait_ready()
    except BaseException:
        stop_all([edge, cloud])
        raise
    return Targets(workdir, cloud, edge, tokens, read_api_token(workdir / "edge" / "api.token"))


async def status_of(call: Awaitable[object]) -> str:
    try:
        await call
    except grpc.aio.AioRpcError as exc:
        return str(exc.code().name)
    return "OK"


def cloud_channel(targets: Targets) -> grpc.aio.Channel:
    return grpc.aio.insecure_channel(targets.cloud.address, options=[("grpc.max_send_message_length", 64 << 20)])


async def global_query(
    targets: Targets, metadata: object, top_m: int = 0, top_k: int = 0, deadline_s: float = 0.0
) -> str:
    async with cloud_channel(targets) as channel:
        request = cloud_pb2.GlobalQueryRequest(
            question="Who directs the Kestrel Observatory?", top_m=top_m, top_k=top_k, deadline_s=deadline_s
        )
        return await status_of(cloud_pb2_grpc.CloudStub(channel).GlobalQuery(request, metadata=metadata, timeout=60))


async def session_status(targets: Targets, metadata: object, messages: Sequence[cloud_pb2.EdgeMessage]) -> str:
    """Send ``messages`` on a session and keep it open: the status the cloud closes it with.

    The messages go only once the cloud admitted the session, so a refusal of the credentials is read as the
    cloud's status (a write racing it would turn it into INTERNAL on the client, grpc/grpc#36066)."""
    go = asyncio.Event()

    async def requests() -> AsyncIterator[cloud_pb2.EdgeMessage]:
        await go.wait()
        for message in messages:
            yield message
        await asyncio.sleep(STREAM_WAIT_S * 2)

    async with cloud_channel(targets) as channel:
        call = cloud_pb2_grpc.CloudStub(channel).Session(requests(), metadata=metadata)
        try:
            async with asyncio.timeout(STREAM_WAIT_S):
                if await admitted(call):
                    go.set()
                async for _ in call:
                    pass
        except grpc.aio.AioRpcError as exc:
            return str(exc.code().name)
        except TimeoutError:
            call.cancel()
            return f"still open after {STREAM_WAIT_S:.0f} s"
    return "OK"


async def lockstep_status(targets: Targets, metadata: object, messages: Sequence[cloud_pb2.EdgeMessage]) -> str:
    """Like :func:`session_status`, but each message after the first goes once the cloud answered the one before
    (its welcome or an ack): the client is never writing when the cloud closes the session, which would turn the
    cloud's status into INTERNAL on the client (grpc/grpc#36066)."""
    answered = asyncio.Semaphore(0)

    async def requests() -> AsyncIterator[cloud_pb2.EdgeMessage]:
        for message in messages:
            yield message
            await answered.acquire()
        await asyncio.sleep(STREAM_WAIT_S * 2)

    async with cloud_channel(targets) as channel:
        call = cloud_pb2_grpc.CloudStub(channel).Session(requests(), metadata=metadata)
        try:
            async with asyncio.timeout(STREAM_WAIT_S):
                async for _ in call:
                    answered.release()
        except grpc.aio.AioRpcError as exc:
            return str(exc.code().name)
        except TimeoutError:
            call.cancel()
            return f"still open after {STREAM_WAIT_S:.0f} s"
    return "OK"


def hello(edge_id: str = EDGE) -> cloud_pb2.EdgeMessage:
    return cloud_pb2.EdgeMessage(hello=cloud_pb2.Hello(edge_id=edge_id))


def sync(*summaries: common_pb2.Summary) -> cloud_pb2.EdgeMessage:
    return cloud_pb2.EdgeMessage(sync=cloud_pb2.SummarySync(summaries=list(summaries), up_to_seq=1))


def summary(sid: str = f"{EDGE}/sg-1", text: str = FACT, version: int = 1) -> common_pb2.Summary:
    return common_pb2.Summary(id=sid, version=version, text=text, top_entities=["Kestrel Observatory"])


async def edge_call(targets: Targets, metadata: object, request: edge_pb2.IngestRequest) -> str:
    async with grpc.aio.insecure_channel(targets.edge.address) as channel:
        return await status_of(edge_pb2_grpc.EdgeStub(channel).Ingest(request, metadata=metadata, timeout=30))


# --- credentials and roles ---------------------------------------------------------------------------------
