"""The edge's one long-lived stream to the cloud, and its escalation calls (the gRPC side of the edge).

The edge dials out; it never accepts a connection from the cloud, so edges behind NAT work. Over the
stream: hello, a full summary sync, then deltas as documents change and heartbeats; from the cloud,
retrieval requests, answered with this edge's retrieval under its privacy policy. When the stream
breaks the session reconnects with exponential backoff and jitter, and starts again with a full sync,
so the cloud's view of this edge converges to the edge's summaries.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc

from edge_node.runtime.edge_runtime import EdgeRuntime
from edge_node.transport.cloud_link import CloudLink
from edge_node.transport.session_outbox import SessionOutbox
from shared.core.constants import SOFTWARE_VERSION
from shared.core.errors import PermissionDeniedError
from shared.core.query_vectors import QueryVectors, QueryVectorsError
from shared.proto.dgrag.v1 import cloud_pb2
from shared.transport import serde, serde_session
from shared.transport.connection_hints import explained
from shared.transport.grpc_transport import admitted
from shared.transport.tracing import continued

log = logging.getLogger(__name__)
MAX_CONCURRENT_RETRIEVALS = 8
"""Retrieval requests answered at once; more get a "busy" error reply at once instead of queueing forever."""
MAX_RETRIEVAL_S = 60.0
"""Longest a retrieval may run, whatever deadline the request names."""
MIN_HEARTBEAT_S, MAX_HEARTBEAT_S = 0.2, 300.0
"""Bounds on the heartbeat interval the cloud asks for."""


class CloudSession:
    """Keeps this edge connected to the cloud and asks it questions."""

    def __init__(self, runtime: EdgeRuntime, client: CloudLink) -> None:
        self._runtime = runtime
        self._client = client
        self._link = client.link
        self._wake = asyncio.Event()
        self.connected = False
        self.sessions_opened = 0
        self.last_error = ""
        runtime.on_summaries_changed(self._wake.set)

    async def run(self, stop: asyncio.Event) -> None:
        """Stay connected until ``stop`` is set, reconnecting with backoff."""
        delay = self._link.backoff_initial_s
        while not stop.is_set():
            started = time.monotonic()
            try:
                await self._session(stop)
            except grpc.aio.AioRpcError as exc:
                self.last_error = explained(exc.code().name, exc.details() or "", self._client.tls, "the cloud")
                if exc.code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
                    log.error("the cloud refused this edge: %s", self.last_error)
                else:
                    log.warning("cloud session ended: %s", self.last_error)
            finally:
                self.connected = False
            if time.monotonic() - started > 30:
                delay = self._link.backoff_initial_s  # the session was healthy for a while: retry fast
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=delay * random.uniform(0.5, 1.5))
            delay = min(delay * 2, self._link.backoff_max_s)

    async def _session(self, stop: asyncio.Event) -> None:
        out: asyncio.Queue[cloud_pb2.EdgeMessage | None] = asyncio.Queue()
        outbox = SessionOutbox(self._runtime.audit, self._runtime.outbound, out)
        call = self._client.stub.Session(_drain(out), metadata=self._client.metadata)
        tasks: list[asyncio.Task[None]] = []
        answering: set[asyncio.Task[None]] = set()
        stopper = asyncio.create_task(_cancel_on(stop, call))
        try:
            if await admitted(call):  # refused: reading the call below raises the cloud's status
                outbox.hello(self._runtime.edge_id, SOFTWARE_VERSION)
            async for message in _messages(call, stop):
                kind = message.WhichOneof("kind")
                if kind == "welcome":
                    self.connected = True
                    self.sessions_opened += 1
                    log.info("connected to the cloud as %s", message.welcome.edge_id)
                    # the summaries go (and are audited) only once the cloud has accepted this edge: all of them, or
                    # only what differs from what the cloud still holds of an earlier session
                    sync = await self._runtime.resync(serde_session.held_from_welcome(message.welcome))
                    outbox.summaries(sync)
                    interval = message.welcome.heartbeat_interval_s or self._link.heartbeat_interval_s
                    interval = min(max(interval, MIN_HEARTBEAT_S), MAX_HEARTBEAT_S)
                    tasks.append(asyncio.create_task(self._heartbeats(outbox, interval)))
                    tasks.append(asyncio.create_task(self._publisher(outbox, sync.up_to_seq, sync.chunk_root)))
                elif kind == "ack":
                    await self._runtime.mark_published(message.ack.up_to_seq)
                elif kind in ("retrieval_request", "probe_request"):
                    request = getattr(message, kind)
                    if len(answering) >= MAX_CONCURRENT_RETRIEVALS:
                        outbox.error(request, "busy: too many retrievals in flight; try later")
                        continue
                    answer = self._answer if kind == "retrieval_request" else self._probe
                    task = asyncio.create_task(self._traced(f"edge.{kind}", answer, outbox, request))
                    answering.add(task)
                    task.add_done_callback(answering.discard)
        finally:
            out.put_nowait(None)
            for task in (*tasks, *answering, stopper):
                task.cancel()
            for task in (*tasks, *answering, stopper):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def _publisher(self, outbox: SessionOutbox, sent_seq: int, sent_root: bytes) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self._link.publish_interval_s)
            self._wake.clear()
            delta = await self._runtime.delta_after(sent_seq, sent_root)
            if delta is not None:
                outbox.summaries(delta)
                sent_seq, sent_root = delta.up_to_seq, delta.chunk_root

    async def _heartbeats(self, outbox: SessionOutbox, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            outbox.heartbeat()

    async def _traced(
        self,
        name: str,
        answer: Callable[..., Awaitable[None]],
        outbox: SessionOutbox,
        request: cloud_pb2.RetrievalRequest | cloud_pb2.ProbeRequest,
    ) -> None:
        """``answer`` the cloud's request as part of the question's trace (when the cloud traces it)."""
        with continued(name, request.traceparent, edge=self._runtime.edge_id):
            await answer(outbox, request)

    async def _answer(self, outbox: SessionOutbox, request: cloud_pb2.RetrievalRequest) -> None:
        deadline = request.deadline_s if 0 < request.deadline_s <= MAX_RETRIEVAL_S else MAX_RETRIEVAL_S
        try:
            given = _given(request.vectors)
            outbound = await asyncio.wait_for(self._runtime.outbound_for(request.question, given), deadline)
        except TimeoutError:
            outbox.error(request, f"retrieval took longer than the {deadline:.1f} s deadline")
            return
        except Exception:  # the cloud must hear back; the reason stays here (it may quote a document)
            log.exception("retrieval for the cloud failed")
            outbox.error(request, "retrieval failed at the edge (the reason is in the edge's log)")
            return
        outbox.retrieval_reply(request, outbound, given)

    async def _probe(self, outbox: SessionOutbox, request: cloud_pb2.ProbeRequest) -> None:
        """Scores only."""
        deadline = request.deadline_s if 0 < request.deadline_s <= MAX_RETRIEVAL_S else MAX_RETRIEVAL_S
        given = _given(request.vectors)
        try:
            scores = await asyncio.wait_for(self._runtime.probe(request.question, given), deadline)
        except PermissionDeniedError as exc:
            outbox.error(request, str(exc))
            return
        except TimeoutError:
            outbox.error(request, f"the probe took longer than the {deadline:.1f} s deadline")
            return
        except Exception:
            log.exception("a probe for the cloud failed")
            outbox.error(request, "the probe failed at the edge (the reason is in the edge's log)")
            return
        outbox.probe_reply(request, scores, given)


async def _drain(out: asyncio.Queue[cloud_pb2.EdgeMessage | None]) -> AsyncIterator[cloud_pb2.EdgeMessage]:
    while (message := await out.get()) is not None:
        yield message


async def _messages(call: grpc.aio.StreamStreamCall, stop: asyncio.Event) -> AsyncIterator[cloud_pb2.CloudMessage]:
    """The cloud's messages until the stream ends, or until ``stop`` cancelled it."""
    try:
        async for message in call:
            yield message
    except asyncio.CancelledError:
        if not stop.is_set():
            raise


async def _cancel_on(stop: asyncio.Event, call: grpc.aio.StreamStreamCall) -> None:
    await stop.wait()
    call.cancel()


def _given(msg: cloud_pb2.QueryVectors) -> QueryVectors | None:
    """The cloud's vectors for a question; malformed ones are ignored (the edge embeds the question itself)."""
    try:
        return serde.vectors_from_proto(msg)
    except QueryVectorsError as exc:
        log.warning("ignoring the cloud's query vectors: %s", exc)
        return None
