"""Protocol attacks against a real cloud and a real edge process on loopback (the adversarial suite).

``run_attacks(targets)`` tries every attack in :data:`ATTACKS` against the servers of
:func:`tests.support.attack_targets.start_targets` and returns what each got. An attack is refused when it gets
its expected status (or, for the corrections and floods, the documented outcome) and both servers still
answer afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc, common_pb2, edge_pb2
from shared.transport.grpc_auth import bearer_metadata
from shared.transport.grpc_transport import auth_metadata
from tests.support.attack_targets import (
    ADMIN,
    APP,
    EDGE,
    FACT,
    MAX_MESSAGE_BYTES,
    OTHER,
    STREAM_WAIT_S,
    Targets,
    cloud_channel,
    edge_call,
    global_query,
    hello,
    lockstep_status,
    session_status,
    status_of,
    summary,
    sync,
)


@dataclass(frozen=True)
class Outcome:
    attack: str
    expected: str
    got: str

    @property
    def refused(self) -> bool:
        return self.got == self.expected


Attack = Callable[[Targets], Awaitable[str]]
ATTACKS: dict[str, tuple[str, Attack]] = {}


def attack(expected: str) -> Callable[[Attack], Attack]:
    def register(fn: Attack) -> Attack:
        ATTACKS[fn.__name__] = (expected, fn)
        return fn

    return register


async def run_attacks(targets: Targets, names: Sequence[str] = ()) -> list[Outcome]:
    out = []
    for name in names or list(ATTACKS):
        expected, fn = ATTACKS[name]
        out.append(Outcome(name, expected, await fn(targets)))
    return out


@attack("UNAUTHENTICATED")
async def no_credentials(t: Targets) -> str:
    return await global_query(t, ())


@attack("UNAUTHENTICATED")
async def wrong_token(t: Targets) -> str:
    return await global_query(t, auth_metadata(EDGE, "not-the-token-" + "x" * 20))


@attack("UNAUTHENTICATED")
async def another_edges_token(t: Targets) -> str:
    return await global_query(t, t.meta(EDGE, token_of=OTHER))


@attack("PERMISSION_DENIED")
async def edge_lists_edges(t: Targets) -> str:
    async with cloud_channel(t) as channel:
        return await status_of(
            cloud_pb2_grpc.CloudStub(channel).ListEdges(cloud_pb2.ListEdgesRequest(), metadata=t.meta(EDGE))
        )


@attack("PERMISSION_DENIED")
async def edge_matches_summaries(t: Targets) -> str:
    async with cloud_channel(t) as channel:
        request = cloud_pb2.MatchSummariesRequest(question="Kestrel", top_m=5)
        return await status_of(cloud_pb2_grpc.CloudStub(channel).MatchSummaries(request, metadata=t.meta(EDGE)))


@attack("PERMISSION_DENIED")
async def app_opens_an_edge_session(t: Targets) -> str:
    return await session_status(t, t.meta(APP), [hello(APP)])


@attack("PERMISSION_DENIED")
async def hello_names_another_edge(t: Targets) -> str:
    return await session_status(t, t.meta(EDGE), [hello(OTHER)])


# --- the session protocol ------------------------------------------------------------------------------------


@attack("INVALID_ARGUMENT")
async def no_hello_first(t: Targets) -> str:
    return await session_status(t, t.meta(EDGE), [sync(summary())])


@attack("INVALID_ARGUMENT")
async def replayed_hello(t: Targets) -> str:
    return await session_status(t, t.meta(EDGE), [hello(), hello()])


@attack("DEADLINE_EXCEEDED")
async def silent_session(t: Targets) -> str:
    return await session_status(t, t.meta(EDGE), [])


@attack("PERMISSION_DENIED")
async def foreign_summary_id(t: Targets) -> str:
    return await session_status(t, t.meta(EDGE), [hello(), sync(summary(f"{OTHER}/sg-planted"))])


@attack("INVALID_ARGUMENT")
async def duplicate_summary_ids(t: Targets) -> str:
    return await session_status(t, t.meta(EDGE), [hello(), sync(summary(), summary())])


@attack("INVALID_ARGUMENT")
async def oversized_summary_text(t: Targets) -> str:
    return await session_status(t, t.meta(EDGE), [hello(), sync(summary(text="word " * 5000))])


@attack("INVALID_ARGUMENT")
async def summary_version_zero(t: Targets) -> str:
    return await session_status(t, t.meta(EDGE), [hello(), sync(summary(version=0))])


@attack("RESOURCE_EXHAUSTED")
async def oversized_message(t: Targets) -> str:
    async with cloud_channel(t) as channel:
        request = cloud_pb2.GlobalQueryRequest(question="x" * (MAX_MESSAGE_BYTES + 1024))
        return await status_of(cloud_pb2_grpc.CloudStub(channel).GlobalQuery(request, metadata=t.meta(APP)))


@attack("INVALID_ARGUMENT")
async def malformed_bytes(t: Targets) -> str:
    async with cloud_channel(t) as channel:
        call = channel.unary_unary("/dgrag.v1.Cloud/GlobalQuery")
        return await status_of(call(b"\xff\xff\xff\xff\x0f", metadata=t.meta(APP), timeout=10))


@attack("INVALID_ARGUMENT")
async def fan_out_beyond_the_cap(t: Targets) -> str:
    return await global_query(t, t.meta(APP), top_k=1000)


@attack("INVALID_ARGUMENT")
async def summaries_beyond_the_cap(t: Targets) -> str:
    return await global_query(t, t.meta(APP), top_m=100_000)


@attack("INVALID_ARGUMENT")
async def deadline_beyond_the_cap(t: Targets) -> str:
    return await global_query(t, t.meta(APP), deadline_s=3600)


@attack("CORRECTED")
async def spoofed_provenance_score_and_size(t: Targets) -> str:
    """An edge answers a retrieval request claiming to be another edge, with score 99, a 200 KB chunk declared
    as 1 token: the cloud must attribute it to the session's edge, clamp the score and cut the chunk."""
    outbox: asyncio.Queue[cloud_pb2.EdgeMessage | None] = asyncio.Queue()
    outbox.put_nowait(hello())
    outbox.put_nowait(sync(summary()))
    synced = asyncio.Event()

    async def requests() -> AsyncIterator[cloud_pb2.EdgeMessage]:
        while (message := await outbox.get()) is not None:
            yield message

    async with cloud_channel(t) as channel:
        stub = cloud_pb2_grpc.CloudStub(channel)
        session = stub.Session(requests(), metadata=t.meta(EDGE))

        async def serve() -> None:
            async for message in session:
                kind = message.WhichOneof("kind")
                if kind == "ack":
                    synced.set()
                elif kind == "retrieval_request":
                    chunk = common_pb2.KnowledgeChunk(
                        doc_id="d", chunk_id=1, text=FACT + " pad" * 50_000, score=99.0, tokens=1
                    )
                    knowledge = common_pb2.Knowledge(edge_id=OTHER, chunks=[chunk], evidence=5.0)
                    reply = cloud_pb2.RetrievalReply(
                        request_id=message.retrieval_request.request_id, knowledge=knowledge
                    )
                    outbox.put_nowait(cloud_pb2.EdgeMessage(retrieval_reply=reply))

        server = asyncio.create_task(serve())
        try:
            await asyncio.wait_for(synced.wait(), STREAM_WAIT_S)
            reply = await stub.GlobalQuery(
                cloud_pb2.GlobalQueryRequest(question="Who directs the Kestrel Observatory?", top_m=1, top_k=1),
                metadata=t.meta(APP),
                timeout=120,
            )
        finally:
            outbox.put_nowait(None)
            server.cancel()
            with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                await server
    wrong = []
    if list(reply.context_edges) != [EDGE]:
        wrong.append(f"attributed to {list(reply.context_edges)}")
    if any(c.score > 1.0 for c in reply.context_chunks):
        wrong.append("score kept")
    if any(len(c.text) > 4000 for c in reply.context_chunks):
        wrong.append("oversized chunk kept")
    return "; ".join(wrong) or "CORRECTED"


# --- floods -------------------------------------------------------------------------------------------------


@attack("SURVIVED")
async def session_flood(t: Targets) -> str:
    """100 sessions of one edge at once: each replaces the last; the cloud keeps answering."""
    results = await asyncio.gather(*(_session_briefly(t) for _ in range(100)), return_exceptions=True)
    async with cloud_channel(t) as channel:
        edges = await cloud_pb2_grpc.CloudStub(channel).ListEdges(
            cloud_pb2.ListEdgesRequest(), metadata=t.meta(ADMIN), timeout=10
        )
    crashed = [r for r in results if isinstance(r, BaseException)]
    return "SURVIVED" if t.cloud.alive() and edges and not crashed else f"crashed: {crashed[:1]}"


async def _session_briefly(t: Targets) -> None:
    async def requests() -> AsyncIterator[cloud_pb2.EdgeMessage]:
        yield hello(OTHER)
        await asyncio.sleep(0.5)

    async with cloud_channel(t) as channel:
        call = cloud_pb2_grpc.CloudStub(channel).Session(requests(), metadata=t.meta(OTHER))
        with contextlib.suppress(grpc.aio.AioRpcError):
            async for _ in call:
                pass


@attack("RESOURCE_EXHAUSTED")
async def summary_delta_flood(t: Targets) -> str:
    """100 summary deltas in one session, each a new version to embed: past the edge's budget of summary messages
    (session_publishes_per_minute) the cloud closes the session."""
    deltas = [
        cloud_pb2.EdgeMessage(delta=cloud_pb2.SummaryDelta(upserts=[summary(f"{OTHER}/sg-1", version=n)], up_to_seq=n))
        for n in range(1, 101)
    ]
    return await lockstep_status(t, t.meta(OTHER), [hello(OTHER), *deltas])


@attack("RESOURCE_EXHAUSTED")
async def query_flood(t: Targets) -> str:
    """12 questions at once at a cloud that answers 2 at a time: the rest are refused at once, not queued."""
    codes = await asyncio.gather(*(global_query(t, t.meta(APP)) for _ in range(12)))
    return "RESOURCE_EXHAUSTED" if "RESOURCE_EXHAUSTED" in codes and "OK" in codes else f"got {sorted(set(codes))}"


@attack("SURVIVED")
async def unauthenticated_watch_flood(t: Targets) -> str:
    """300 health Watch streams without credentials, held open: past the per-address cap they are refused, and
    an edge's reconnect and an app's question still get through."""
    async with cloud_channel(t) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        watches = [health.Watch(health_pb2.HealthCheckRequest()) for _ in range(300)]
        opened = await asyncio.gather(*(_first_status(w) for w in watches))
        reconnect = await session_status(t, t.meta(OTHER), [hello(OTHER)])
        query = await status_of(
            cloud_pb2_grpc.CloudStub(channel).MatchSummaries(
                cloud_pb2.MatchSummariesRequest(question="Who directs the Kestrel Observatory?", top_m=1),
                metadata=t.meta(APP),
                timeout=30,
            )
        )
        for w in watches:
            w.cancel()
    held = opened.count("OK")
    # a session the cloud admits stays open: that is the reconnect succeeding
    if held > 4 or not reconnect.startswith("still open") or query != "OK":
        return f"held {held} watches; reconnect {reconnect}; query {query}"
    return "SURVIVED"


async def _first_status(watch: grpc.aio.UnaryStreamCall) -> str:
    try:
        await asyncio.wait_for(watch.read(), 10)
    except grpc.aio.AioRpcError as exc:
        return str(exc.code().name)
    return "OK"


# --- the edge's own API --------------------------------------------------------------------------------------


@attack("UNAUTHENTICATED")
async def edge_api_without_token(t: Targets) -> str:
    return await edge_call(t, (), edge_pb2.IngestRequest(paths=[str(t.workdir / "inbox")]))


@attack("UNAUTHENTICATED")
async def edge_api_with_the_cloud_token(t: Targets) -> str:
    return await edge_call(t, t.meta(EDGE), edge_pb2.IngestRequest(paths=[str(t.workdir / "inbox")]))


@attack("PERMISSION_DENIED")
async def ingest_outside_the_roots(t: Targets) -> str:
    return await edge_call(t, bearer_metadata(t.edge_api_token), edge_pb2.IngestRequest(paths=["/etc/passwd"]))


@attack("PERMISSION_DENIED")
async def ingest_a_symlink_out_of_the_roots(t: Targets) -> str:
    link = t.workdir / "inbox" / "innocent.txt"
    if not link.is_symlink():
        os.symlink("/etc/passwd", link)
    return await edge_call(t, bearer_metadata(t.edge_api_token), edge_pb2.IngestRequest(paths=[str(link)]))


@attack("INVALID_ARGUMENT")
async def malformed_bytes_at_the_edge(t: Targets) -> str:
    async with grpc.aio.insecure_channel(t.edge.address) as channel:
        call = channel.unary_unary("/dgrag.v1.Edge/Query")
        return await status_of(call(b"\x0a\xff\xff\xff", metadata=bearer_metadata(t.edge_api_token), timeout=10))


# --- last: it leaves this address refused for a few seconds --------------------------------------------------


@attack("RESOURCE_EXHAUSTED")
async def guessing_tokens(t: Targets) -> str:
    """15 guessed operator tokens from one address, then the right one: past the failed-authentication budget
    (failed_auth_per_minute) every call from the address is refused, so no guess is ever judged."""
    for i in range(15):
        await global_query(t, auth_metadata(ADMIN, f"guess-{i:02d}-of-the-operators-token"))
    return await global_query(t, t.meta(ADMIN))
