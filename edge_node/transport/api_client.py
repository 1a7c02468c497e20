"""A client of a running edge's gRPC API (``dgrag edge ask``, the simulation and applications use it).

    async with EdgeClient("127.0.0.1:50061", token) as edge:
        reply = await edge.query("Who runs the Oslo lab?")

Every call carries the edge's API token and a deadline; a refusal or failure raises DgragError with the
server's reason.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import grpc

from edge_node.transport import api_serde
from shared.core.constants import DEFAULT_MAX_MESSAGE_BYTES
from shared.core.edge_stats import EdgeStats
from shared.core.errors import DgragError
from shared.core.model_api import TextSink
from shared.core.shown import ShownAnswer
from shared.core.trace import Decision, decision_of
from shared.proto.dgrag.v1 import edge_pb2, edge_pb2_grpc
from shared.transport import serde
from shared.transport.draft_events import reply_after_drafts
from shared.transport.grpc_auth import bearer_metadata
from shared.transport.grpc_transport import ClientTls, open_channel


@dataclass(frozen=True)
class ReplySource:
    """A chunk an answer was made from: which edge, which document, which chunk."""

    edge_id: str
    doc_id: str
    chunk_id: int
    score: float


@dataclass(frozen=True)
class EdgeReply:
    """An edge's answer as its API returns it; ``trace`` is the whole trace (gate signals, provenance)."""

    answer: str
    decision: Decision
    verified: bool
    note: str
    sources: tuple[ReplySource, ...]
    trace_json: str
    shown: ShownAnswer
    """What a person reads: the short answer, its confidence, who answered, the sources (made once, by the edge)."""

    @property
    def trace(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.trace_json) if self.trace_json else {}
        return parsed

    @classmethod
    def from_proto(cls, reply: edge_pb2.QueryReply) -> EdgeReply:
        sources = tuple(ReplySource(s.edge_id, s.doc_id, s.chunk_id, s.score) for s in reply.sources)
        shown = serde.shown_from_proto(reply.shown)
        return cls(
            reply.answer, decision_of(reply.decision), reply.verified, reply.note, sources, reply.trace_json, shown
        )


class EdgeClient:
    """Talks to one running edge with its API token (TLS when ``tls.ca`` names the CA of its certificate;
    plaintext to another machine only when ``tls.insecure``)."""

    def __init__(
        self,
        address: str,
        token: str,
        tls: ClientTls | None = None,
        timeout_s: float = 300.0,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ) -> None:
        self.address = address
        self.timeout_s = timeout_s
        self._metadata = bearer_metadata(token)
        self._channel = open_channel(address, max_message_bytes, tls)
        self._stub = edge_pb2_grpc.EdgeStub(self._channel)

    async def query(
        self,
        question: str,
        mode: str = "full",
        timeout_s: float | None = None,
        on_text: TextSink | None = None,
    ) -> EdgeReply:
        """The edge's answer; ``on_text`` receives the cloud model's draft as it comes (QueryStream), when the
        question is escalated."""
        request = api_serde.query_request(question, mode)
        if on_text is not None:
            return EdgeReply.from_proto(await self._streamed(request, timeout_s, on_text))
        reply: edge_pb2.QueryReply = await self._call(self._stub.Query, request, timeout_s)
        return EdgeReply.from_proto(reply)

    async def _streamed(
        self, request: edge_pb2.QueryRequest, timeout_s: float | None, on_text: TextSink
    ) -> edge_pb2.QueryReply:
        try:
            call = self._stub.QueryStream(request, metadata=self._metadata, timeout=timeout_s or self.timeout_s)
            reply: edge_pb2.QueryReply | None = await reply_after_drafts(call, on_text)
        except grpc.aio.AioRpcError as exc:
            raise DgragError(f"the edge at {self.address} answered {exc.code().name}: {exc.details()}") from exc
        if reply is None:
            raise DgragError(f"the edge at {self.address} ended its answer stream without an answer")
        return reply

    async def stats(self, timeout_s: float | None = None) -> EdgeStats:
        reply: edge_pb2.StatsReply = await self._call(self._stub.Stats, edge_pb2.StatsRequest(), timeout_s)
        return serde.edge_stats_from_proto(reply)

    async def delete(self, doc_ids: Sequence[str], timeout_s: float | None = None) -> list[str]:
        reply: edge_pb2.DeleteReply = await self._call(self._stub.Delete, api_serde.delete_request(doc_ids), timeout_s)
        return list(reply.deleted)

    async def _call(self, method: Any, request: Any, timeout_s: float | None) -> Any:
        try:
            return await method(request, metadata=self._metadata, timeout=timeout_s or self.timeout_s)
        except grpc.aio.AioRpcError as exc:
            raise DgragError(f"the edge at {self.address} answered {exc.code().name}: {exc.details()}") from exc

    async def aclose(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> EdgeClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


async def ask_edge(
    address: str,
    token: str,
    question: str,
    mode: str = "full",
    timeout_s: float = 300.0,
    tls: ClientTls | None = None,
    on_text: TextSink | None = None,
) -> EdgeReply:
    """Ask the edge at ``address`` once (``on_text``: see :meth:`EdgeClient.query`)."""
    async with EdgeClient(address, token, tls, timeout_s) as client:
        return await client.query(question, mode, on_text=on_text)
