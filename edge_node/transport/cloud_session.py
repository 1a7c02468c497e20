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

from edge_node.policy.audit import SUMMARY_DELTA, SUMMARY_SYNC
from edge_node.runtime import EdgeRuntime, steered_by
from edge_node.transport.cloud_link import CloudLink
from shared.core.constants import SOFTWARE_VERSION
from shared.core.errors import PermissionDeniedError
from shared.core.knowledge import SummaryChanges
from shared.core.query_vectors import QueryVectors, QueryVectorsError
from shared.proto.dgrag.v1 import cloud_pb2
from shared.transport import serde, serde_session
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
                self.last_error = f"{exc.code().name}: {exc.details()}"
                if exc.code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
                    log.error("the cloud refused this edge (%s); check cloud.token_env / tokens_file", self.last_error)
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
        call = self._client.stub.Session(_drain(out), metadata=self._client.metadata)
        tasks: list[asyncio.Task[None]] = []
        answering: set[asyncio.Task[None]] = set()
        stopper = asyncio.create_task(_cancel_on(stop, call))
        try:
            if await admitted(call):  # refused: reading the call below raises the cloud's status
                unnamed = self._runtime.config.privacy.level == "summaries_only"
                out.put_nowait(serde_session.hello(self._runtime.edge_id, SOFTWARE_VERSION, unnamed=unnamed))
            async for message in _messages(call, stop):
                kind = message.WhichOneof("kind")
                if kind == "welcome":
                    self.connected = True
                    self.sessions_opened += 1
                    log.info("connected to the cloud as %s", message.welcome.edge_id)
                    # the full sync goes (and is audited) only once the cloud has accepted this edge
                    sync = await self._runtime.full_sync()
                    self._send(out, sync)
                    interval = message.welcome.heartbeat_interval_s or self._link.heartbeat_interval_s
                    interval = min(max(interval, MIN_HEARTBEAT_S), MAX_HEARTBEAT_S)
                    tasks.append(asyncio.create_task(self._heartbeats(out, interval)))
                    tasks.append(asyncio.create_task(self._publisher(out, sync.up_to_seq)))
                elif kind == "ack":
                    await self._runtime.mark_published(message.ack.up_to_seq)
                elif kind in ("retrieval_request", "probe_request"):
                    request = getattr(message, kind)
                    if len(answering) >= MAX_CONCURRENT_RETRIEVALS:
                        self._reply_error(out, request, "busy: too many retrievals in flight; try later")
                        continue
                    answer = self._answer if kind == "retrieval_request" else self._probe
                    task = asyncio.create_task(self._traced(f"edge.{kind}", answer, out, request))
                    answering.add(task)
                    task.add_done_callback(answering.discard)
        finally:
            out.put_nowait(None)
            for task in (*tasks, *answering, stopper):
                task.cancel()
            for task in (*tasks, *answering, stopper):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    def _send(self, out: asyncio.Queue[cloud_pb2.EdgeMessage | None], changes: SummaryChanges) -> None:
        message = serde_session.summary_changes(changes)
        content = {"texts": [c.text for c in changes.upserts]} if self._runtime.config.privacy.audit_content else {}
        self._runtime.audit.record(
            SUMMARY_SYNC if changes.full else SUMMARY_DELTA,
            "cloud",
            message.ByteSize(),
            upserts=[c.id for c in changes.upserts],
            tombstones=[t.id for t in changes.tombstones],
            **content,
        )
        out.put_nowait(message)

    async def _publisher(self, out: asyncio.Queue[cloud_pb2.EdgeMessage | None], sent_seq: int) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self._link.publish_interval_s)
            self._wake.clear()
            delta = await self._runtime.delta_after(sent_seq)
            if delta is not None:
                self._send(out, delta)
                sent_seq = delta.up_to_seq

    async def _heartbeats(self, out: asyncio.Queue[cloud_pb2.EdgeMessage | None], interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            out.put_nowait(serde_session.heartbeat(time.time()))

    async def _traced(
        self,
        name: str,
        answer: Callable[..., Awaitable[None]],
        out: asyncio.Queue[cloud_pb2.EdgeMessage | None],
        request: cloud_pb2.RetrievalRequest | cloud_pb2.ProbeRequest,
    ) -> None:
        """``answer`` the cloud's request as part of the question's trace (when the cloud traces it)."""
        with continued(name, request.traceparent, edge=self._runtime.edge_id):
            await answer(out, request)

    async def _answer(
        self, out: asyncio.Queue[cloud_pb2.EdgeMessage | None], request: cloud_pb2.RetrievalRequest
    ) -> None:
        deadline = request.deadline_s if 0 < request.deadline_s <= MAX_RETRIEVAL_S else MAX_RETRIEVAL_S
        try:
            given = _given(request.vectors)
            knowledge = await asyncio.wait_for(self._runtime.retrieve_for(request.question, "cloud", given), deadline)
        except TimeoutError:
            self._reply_error(out, request, f"retrieval took longer than the {deadline:.1f} s deadline")
            return
        except Exception:  # the cloud must hear back; the reason stays here (it may quote a document)
            log.exception("retrieval for the cloud failed")
            self._reply_error(out, request, "retrieval failed at the edge (the reason is in the edge's log)")
            return
        out.put_nowait(serde_session.retrieval_reply(request.request_id, knowledge))

    async def _probe(self, out: asyncio.Queue[cloud_pb2.EdgeMessage | None], request: cloud_pb2.ProbeRequest) -> None:
        """Scores only; every reply is audited with its size."""
        deadline = request.deadline_s if 0 < request.deadline_s <= MAX_RETRIEVAL_S else MAX_RETRIEVAL_S
        given = _given(request.vectors)
        try:
            scores = await asyncio.wait_for(self._runtime.probe(request.question, given), deadline)
        except PermissionDeniedError as exc:
            self._reply_error(out, request, str(exc))
            return
        except TimeoutError:
            self._reply_error(out, request, f"the probe took longer than the {deadline:.1f} s deadline")
            return
        except Exception:
            log.exception("a probe for the cloud failed")
            self._reply_error(out, request, "the probe failed at the edge (the reason is in the edge's log)")
            return
        message = serde_session.probe_reply(request.request_id, scores)
        self._runtime.audit.record(
            "probe_reply",
            "cloud",
            message.ByteSize(),
            question=request.question[:200],
            score=round(scores.score, 4),
            terms=round(scores.term_coverage, 4),
            lexical=round(scores.lexical, 4),
            **steered_by(given),
        )
        out.put_nowait(message)

    def _reply_error(
        self,
        out: asyncio.Queue[cloud_pb2.EdgeMessage | None],
        request: cloud_pb2.RetrievalRequest | cloud_pb2.ProbeRequest,
        error: str,
    ) -> None:
        """A fixed, document-free error reply, audited like every outbound message."""
        probe = isinstance(request, cloud_pb2.ProbeRequest)
        message = serde_session.error_reply(request.request_id, error, probe=probe)
        kind = "probe_error" if probe else "retrieval_error"
        self._runtime.audit.record(kind, "cloud", message.ByteSize(), error=error)
        out.put_nowait(message)


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
