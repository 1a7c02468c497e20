"""The cloud's gRPC servicer: thin. Unpacks messages, calls the services, maps typed errors to status codes.

Authentication happened in the interceptor; here the edge id from the metadata binds the session, so an
edge can only write its own summaries.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import math
from collections.abc import AsyncIterator, Callable

import grpc

from cloud_server.answering.answer_guard import as_asker_sees
from cloud_server.answering.global_query import GlobalQueryService
from cloud_server.parts import edge_statuses
from cloud_server.routing.summary_index import SummaryIndex
from cloud_server.sessions.edge_registry import EdgeRegistry, EdgeSession
from cloud_server.sessions.knowledge_intake import accept_knowledge, accept_probe
from cloud_server.sessions.summary_intake import check_capacity, check_publication, checked_root
from cloud_server.sessions.tokens import Role
from cloud_server.transport import api_serde
from cloud_server.transport.auth import caller_identity
from cloud_server.transport.metrics import CloudMetrics
from cloud_server.transport.ops_page import RecentQuestions
from cloud_server.transport.publish_budget import PublishBudget
from shared.core.constants import SESSION_ADMITTED
from shared.core.errors import DgragError, InvalidRequestError, ResourceExhaustedError
from shared.core.knowledge import CloudAnswer, EvidenceClaim
from shared.core.model_api import TextSink
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport import serde, serde_session
from shared.transport.draft_events import draft_events
from shared.transport.grpc_status import status_for
from shared.transport.tracing import linked, traceparent_of

log = logging.getLogger(__name__)

_CLOSE = None


MAX_WAITING_PUBLISHES = 16
"""Summary messages of one session waiting to be applied; more close the session (RESOURCE_EXHAUSTED)."""


class CloudServicer(cloud_pb2_grpc.CloudServicer):  # type: ignore[misc]
    def __init__(
        self,
        registry: EdgeRegistry,
        index: SummaryIndex,
        queries: GlobalQueryService,
        heartbeat_interval_s: float,
        role_of: Callable[[str], Role | None],
        hello_timeout_s: float = 10.0,
        metrics: CloudMetrics | None = None,
        recent: RecentQuestions | None = None,
        budget: PublishBudget | None = None,
    ) -> None:
        self._role_of = role_of
        self._budget = budget
        self._metrics = metrics
        self._recent = recent
        self._hello_timeout_s = hello_timeout_s
        self._registry = registry
        self._index = index
        self._queries = queries
        self._heartbeat_interval_s = heartbeat_interval_s

    async def Session(
        self, requests: AsyncIterator[cloud_pb2.EdgeMessage], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[cloud_pb2.CloudMessage]:
        edge_id, _ = caller_identity(context.invocation_metadata())
        await context.send_initial_metadata((SESSION_ADMITTED,))  # the edge sends its hello after these
        try:
            first = await asyncio.wait_for(anext(aiter(requests), None), self._hello_timeout_s)
        except TimeoutError:
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED, f"no hello within {self._hello_timeout_s:g} s of opening the session"
            )
            return
        if first is None or first.WhichOneof("kind") != "hello":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "a session must start with a hello message")
            return
        if first.hello.edge_id != edge_id:
            await context.abort(
                grpc.StatusCode.PERMISSION_DENIED,
                f"hello names edge {first.hello.edge_id!r} but the token authenticates {edge_id!r}",
            )
        hello = first.hello
        session = self._registry.attach(edge_id, unnamed=hello.unnamed, quotable=hello.answers == "quote")
        log.info("edge %s connected (session %d)", edge_id, session.serial)
        out: asyncio.Queue[cloud_pb2.CloudMessage | None] = asyncio.Queue()
        failure: list[DgragError] = []
        reader = asyncio.create_task(self._read(session, requests, out, failure))
        pump = asyncio.create_task(_pump(session, out))
        try:
            # after any write of this edge's earlier session still being embedded (it may remove what we list)
            holds_view, held = await asyncio.to_thread(self._index.held_view, edge_id)
            yield serde_session.welcome(edge_id, self._heartbeat_interval_s, holds_view, held)
            while (message := await out.get()) is not _CLOSE:
                yield message
            if failure:
                await context.abort(status_for(failure[0]), str(failure[0]))
        finally:
            reader.cancel()
            pump.cancel()
            for task in (reader, pump):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            self._registry.detach(session)
            log.info("edge %s disconnected (session %d)", edge_id, session.serial)

    async def _read(
        self,
        session: EdgeSession,
        requests: AsyncIterator[cloud_pb2.EdgeMessage],
        out: asyncio.Queue[cloud_pb2.CloudMessage | None],
        failure: list[DgragError],
    ) -> None:
        """Every message of the session, in order; summaries are applied in order by a task of their own, so a
        heartbeat is heard while a sync waits for its embedding."""
        publishes: asyncio.Queue[cloud_pb2.EdgeMessage | None] = asyncio.Queue()
        publisher = asyncio.create_task(self._publisher(session, publishes, out, failure))
        try:
            async for message in requests:
                kind = message.WhichOneof("kind")
                if kind == "heartbeat":
                    self._registry.heartbeat(session)
                elif kind == "retrieval_reply":
                    reply = message.retrieval_reply
                    knowledge = (
                        accept_knowledge(session.edge_id, serde.knowledge_from_proto(reply.knowledge))
                        if not reply.error
                        else None
                    )
                    self._registry.resolve(session, reply.request_id, knowledge, reply.error[:500])
                elif kind == "probe_reply":
                    probe = message.probe_reply
                    # a refusal or failure is an answer too (the error says which): routing treats them differently
                    scores = accept_probe(session.edge_id, serde.probe_reply_from_proto(probe))
                    scores = dataclasses.replace(scores, bytes=message.ByteSize())
                    self._registry.resolve(session, probe.request_id, scores, "")
                elif kind in ("sync", "delta"):
                    if publishes.qsize() >= MAX_WAITING_PUBLISHES:
                        raise ResourceExhaustedError(
                            f"{MAX_WAITING_PUBLISHES} summary messages of this session wait already; send fewer"
                        )
                    publishes.put_nowait(message)
                else:
                    raise InvalidRequestError(f"unexpected {kind or 'empty'} message on an open session")
            publishes.put_nowait(None)  # the edge sends no more: what it sent is applied before the session ends
            await publisher
        except DgragError as exc:
            failure.append(exc)
        finally:
            publisher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await publisher
            out.put_nowait(_CLOSE)

    async def _publisher(
        self,
        session: EdgeSession,
        publishes: asyncio.Queue[cloud_pb2.EdgeMessage | None],
        out: asyncio.Queue[cloud_pb2.CloudMessage | None],
        failure: list[DgragError],
    ) -> None:
        try:
            while (message := await publishes.get()) is not None:
                out.put_nowait(await self._publish(session, message))
        except DgragError as exc:
            failure.append(exc)
            out.put_nowait(_CLOSE)

    def _spend(self, edge_id: str, embeddings: int) -> None:
        if self._budget is not None:
            self._budget.spend(edge_id, embeddings)

    async def _publish(self, session: EdgeSession, message: cloud_pb2.EdgeMessage) -> cloud_pb2.CloudMessage:
        edge_id = session.edge_id
        self._registry.heartbeat(session)
        sync = message.WhichOneof("kind") == "sync"
        root = checked_root(edge_id, message.sync.chunk_root if sync else message.delta.chunk_root)
        if sync:
            cards = [serde.summary_from_proto(s) for s in message.sync.summaries]
            check_publication(edge_id, cards, [])
            check_capacity(edge_id, {}, cards, full=True)
            self._spend(edge_id, self._index.embeddings_needed(edge_id, cards, full=True))
            await asyncio.to_thread(self._index.replace_edge, edge_id, cards)
            seq = message.sync.up_to_seq
        else:
            cards = [serde.summary_from_proto(s) for s in message.delta.upserts]
            stones = [serde.tombstone_from_proto(t) for t in message.delta.tombstones]
            check_publication(edge_id, cards, stones)
            check_capacity(edge_id, self._index.held_sizes(edge_id), cards, full=False)
            self._spend(edge_id, self._index.embeddings_needed(edge_id, cards, full=False))
            await asyncio.to_thread(self._index.apply_delta, edge_id, cards, stones)
            seq = message.delta.up_to_seq
        session.chunk_root = root
        held = self._index.count(edge_id)
        log.info("edge %s: summaries applied up to seq %d, %d held", edge_id, seq, held)
        return serde_session.ack(seq, held)

    async def GlobalQuery(
        self, request: cloud_pb2.GlobalQueryRequest, context: grpc.aio.ServicerContext
    ) -> cloud_pb2.GlobalQueryReply:
        return await self._global_query(request, context, None)

    async def GlobalQueryStream(
        self, request: cloud_pb2.GlobalQueryRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[cloud_pb2.GlobalQueryEvent]:
        async for event in draft_events(
            lambda sink: self._global_query(request, context, sink), cloud_pb2.GlobalQueryEvent
        ):
            yield event

    async def _global_query(
        self, request: cloud_pb2.GlobalQueryRequest, context: grpc.aio.ServicerContext, on_text: TextSink | None
    ) -> cloud_pb2.GlobalQueryReply:
        metadata = context.invocation_metadata()
        caller, _ = caller_identity(metadata)
        role = self._role_of(caller)
        as_edge = role == "edge"
        # an edge asks for itself (it cannot claim another edge's question) and gets the answer and the ids of
        # its sources, never the other edges' raw text; apps and operators get the merged context
        try:
            query = serde.cloud_query_from_proto(request)
            query = dataclasses.replace(query, caller=caller, within_s=_time_left(context))
            if as_edge:  # an edge asks for itself: it cannot claim another edge's question, nor read their texts
                query = dataclasses.replace(query, asked_at=caller, share_context=False)
            with linked("cloud.global_query", traceparent_of(metadata), asker=role or "", caller=caller) as traced:
                answer = await self._queries.answer(query, on_text)
                traced.set_attribute("edges_asked", answer.edges_asked)
        except DgragError as exc:
            await context.abort(status_for(exc), str(exc))
        if self._metrics is not None:
            self._metrics.answered("global_query", role or "", answer)
        if self._recent is not None:
            self._recent.add("global_query", caller, request.question, answer)
        shown = answer if role == "admin" else self._as_asker_sees(answer)
        return serde.cloud_answer_to_proto(shown)

    async def CheckEvidence(
        self, request: cloud_pb2.CheckEvidenceRequest, context: grpc.aio.ServicerContext
    ) -> cloud_pb2.CheckEvidenceReply:
        metadata = context.invocation_metadata()
        caller, _ = caller_identity(metadata)  # an edge (the interceptor admits no other role)
        sent = serde.evidence_claim_from_proto(request)
        lexical = None if sent.lexical is None else _claimed(sent.lexical)
        claim = EvidenceClaim(_claimed(sent.evidence), _claimed(sent.terms), lexical, sent.margin)
        try:
            with linked("cloud.check_evidence", traceparent_of(metadata), caller=caller) as traced:
                verdict = await self._queries.check_evidence(
                    request.question,
                    caller,
                    claim,
                    serde.vectors_from_proto(request.vectors),
                    answer_if_stronger=request.answer_if_stronger,
                    within_s=_time_left(context),
                )
                traced.set_attribute("stronger", verdict.stronger)
        except DgragError as exc:
            await context.abort(status_for(exc), str(exc))
        if self._recent is not None:
            self._recent.add("check_evidence", caller, request.question, verdict.answer)
        if self._metrics is not None:
            self._metrics.answered("check_evidence", "edge", verdict.answer)
            if verdict.stronger:
                self._metrics.stronger.inc()
        if verdict.answer is not None:
            verdict = dataclasses.replace(verdict, answer=self._as_asker_sees(verdict.answer))
        return serde.verdict_to_proto(verdict)

    async def MatchSummaries(
        self, request: cloud_pb2.MatchSummariesRequest, context: grpc.aio.ServicerContext
    ) -> cloud_pb2.MatchSummariesReply:
        caller, _ = caller_identity(context.invocation_metadata())
        hidden = None if self._role_of(caller) == "admin" else self._hidden_from_askers
        try:
            matches = await self._queries.match(request.question, request.top_m, hidden)
        except DgragError as exc:
            await context.abort(status_for(exc), str(exc))
        return serde.match_reply(matches)

    def _as_asker_sees(self, answer: CloudAnswer) -> CloudAnswer:
        return as_asker_sees(answer, self._registry.unnamed, self._queries.askers_see_routing)

    def _hidden_from_askers(self, edge_id: str) -> bool:
        """Whether an asker other than an operator may not see ``edge_id``'s summary matches: it is unnamed, or its
        policy does not let answers quote it (unless askers see the routing, a lab setting)."""
        registry = self._registry
        if edge_id in registry.unnamed:
            return True
        return not self._queries.askers_see_routing and not registry.quotable(edge_id)

    async def ListEdges(
        self, request: cloud_pb2.ListEdgesRequest, context: grpc.aio.ServicerContext
    ) -> cloud_pb2.ListEdgesReply:
        statuses = edge_statuses(self._registry, self._index, self._queries.claims)
        return api_serde.list_edges_reply(statuses)


def _claimed(value: float) -> float:
    """An edge's claim about its own evidence: a value that is not a number counts as the strongest (1.0), so a
    malformed claim never makes another edge look stronger."""
    return value if math.isfinite(value) else 1.0


def _time_left(context: grpc.aio.ServicerContext) -> float:
    """Seconds left of the call's deadline (0: the caller set none)."""
    left = context.time_remaining()
    return max(float(left), 1e-3) if left is not None else 0.0


async def _pump(session: EdgeSession, out: asyncio.Queue[cloud_pb2.CloudMessage | None]) -> None:
    """Forward the registry's retrieval calls for this session onto the stream."""
    while (call := await session.outbox.get()) is not None:
        message = serde_session.cloud_request(
            call.request_id, call.question, call.deadline_s, call.vectors, call.traceparent, probe=call.probe
        )
        out.put_nowait(message)
    out.put_nowait(_CLOSE)  # a newer session replaced this one
