"""The edge's gRPC API for local users and apps: thin. Unpacks, calls the runtime, maps typed errors."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import grpc

from edge_node.ingest.readers import RawDocument, ReadResult, read_paths
from edge_node.runtime.edge_runtime import EdgeRuntime
from edge_node.transport import api_serde
from edge_node.transport.cloud_link import CloudLink
from edge_node.transport.cloud_session import CloudSession
from edge_node.transport.metrics import EdgeMetrics
from shared.core.errors import DgragError
from shared.core.model_api import TextSink
from shared.proto.dgrag.v1 import common_pb2, edge_pb2, edge_pb2_grpc
from shared.transport import serde
from shared.transport.draft_events import draft_events
from shared.transport.grpc_status import status_for

MAX_INLINE_DOCUMENTS = 10_000


def ingest_roots(setting: str) -> tuple[Path, ...]:
    """The directories of ``server.ingest_roots`` (``:``-separated), resolved."""
    return tuple(Path(part).expanduser().resolve() for part in setting.split(":") if part.strip())


def under_roots(path: Path, roots: tuple[Path, ...]) -> bool:
    """Whether ``path``, with every symlink resolved, lies under one of ``roots``."""
    try:
        real = path.expanduser().resolve()
    except (OSError, RuntimeError):  # a symlink loop
        return False
    return any(real == root or real.is_relative_to(root) for root in roots)


class EdgeServicer(edge_pb2_grpc.EdgeServicer):  # type: ignore[misc]
    def __init__(
        self,
        runtime: EdgeRuntime,
        client: CloudLink | None,
        session: CloudSession | None,
        metrics: EdgeMetrics | None = None,
    ) -> None:
        self._runtime = runtime
        self._metrics = metrics
        self._client = client
        self._session = session
        self._roots = ingest_roots(runtime.config.server.ingest_roots)

    async def Ingest(self, request: edge_pb2.IngestRequest, context: grpc.aio.ServicerContext) -> edge_pb2.IngestReply:
        if not request.paths and not request.documents:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "give paths or documents to ingest")
        if len(request.documents) > MAX_INLINE_DOCUMENTS:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"at most {MAX_INLINE_DOCUMENTS} documents per call")
        paths = [Path(p) for p in request.paths]
        outside = [str(p) for p in paths if not under_roots(p, self._roots)]
        if outside:
            where = ", ".join(str(r) for r in self._roots) or "none configured (server.ingest_roots)"
            await context.abort(
                grpc.StatusCode.PERMISSION_DENIED,
                f"Ingest may read only under the edge's ingest roots ({where}); refused: {', '.join(outside[:5])}",
            )
        limit = self._runtime.config.ingest.max_file_bytes
        # read off the event loop, so a slow document stalls neither the API nor the session; checked once opened
        roots = self._roots
        items: list[ReadResult] = await asyncio.to_thread(lambda: list(read_paths(paths, limit, confine=roots)))
        for d in request.documents:
            if not d.doc_id.strip() or not d.text.strip():
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "every inline document needs a doc_id and text")
            items.append(RawDocument(d.doc_id, d.title or d.doc_id, d.text, f"grpc:{d.doc_id}"))
        try:
            report = await self._runtime.ingest(items)
        except DgragError as exc:
            await context.abort(status_for(exc), str(exc))
        return api_serde.ingest_reply(report)

    async def Query(self, request: edge_pb2.QueryRequest, context: grpc.aio.ServicerContext) -> edge_pb2.QueryReply:
        return await self._query(request, context, None)

    async def QueryStream(
        self, request: edge_pb2.QueryRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[edge_pb2.QueryEvent]:
        async for event in draft_events(lambda sink: self._query(request, context, sink), edge_pb2.QueryEvent):
            yield event

    async def _query(
        self, request: edge_pb2.QueryRequest, context: grpc.aio.ServicerContext, on_text: TextSink | None
    ) -> edge_pb2.QueryReply:
        try:
            mode = request.mode or "full"
            result = await self._runtime.query(request.question, mode, self._client, on_text)
        except DgragError as exc:
            await context.abort(status_for(exc), str(exc))
        if self._metrics is not None:
            self._metrics.answered(request.mode or "full", str(result.decision), result.timings)
        return api_serde.query_reply(result, self._runtime.edge_id)

    async def Retrieve(
        self, request: edge_pb2.RetrieveRequest, context: grpc.aio.ServicerContext
    ) -> common_pb2.Knowledge:
        try:
            knowledge = await self._runtime.retrieve(request.question)
        except DgragError as exc:
            await context.abort(status_for(exc), str(exc))
        return serde.knowledge_to_proto(knowledge)

    async def Stats(self, request: edge_pb2.StatsRequest, context: grpc.aio.ServicerContext) -> edge_pb2.StatsReply:
        stats = await self._runtime.stats()
        connected = self._session is not None and self._session.connected
        return serde.edge_stats_to_proto(dataclasses.replace(stats, cloud_connected=connected))

    async def Delete(self, request: edge_pb2.DeleteRequest, context: grpc.aio.ServicerContext) -> edge_pb2.DeleteReply:
        if not request.doc_ids:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "name the documents to delete")
        try:
            result = await self._runtime.delete(list(request.doc_ids))
        except DgragError as exc:
            await context.abort(status_for(exc), str(exc))
        return api_serde.delete_reply(list(dict.fromkeys(request.doc_ids)), result)
