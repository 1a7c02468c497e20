"""The link from this edge to the cloud: a channel with this edge's credentials and the escalation calls, each
recorded in the edge's audit log (what it carried, its size on the wire) before it is sent."""

from __future__ import annotations

from typing import Any

import grpc

from edge_node.policy.audit import AuditLog, audited_question
from edge_node.policy.outbound import OutboundPolicy
from shared.config import CloudLinkConfig
from shared.core.errors import CloudUnavailableError
from shared.core.knowledge import CloudAnswer, CloudQuery, EvidenceClaim, EvidenceVerdict
from shared.core.model_api import TextSink
from shared.core.query_vectors import QueryVectors
from shared.proto.dgrag.v1 import cloud_pb2_grpc
from shared.transport import serde
from shared.transport.draft_events import reply_after_drafts
from shared.transport.grpc_transport import ClientTls, auth_metadata, open_channel, retry_unavailable
from shared.transport.tracing import client_span, with_traceparent

MAX_DRAFT_CHARS = 8_000
"""Characters of the cloud's draft relayed per question (its model writes at most a few hundred)."""


class CloudLink:
    """Talks to the cloud as one edge."""

    def __init__(
        self,
        edge_id: str,
        link: CloudLinkConfig,
        token: str,
        max_message_bytes: int,
        audit: AuditLog | None = None,
        policy: OutboundPolicy | None = None,
    ) -> None:
        """``audit``: where what leaves is recorded, as this edge's outbound ``policy`` says (without one: a
        question's first characters, edge_node.policy.audit)."""
        self.link = link
        self._audit = audit
        self._shown = policy.audited_question if policy is not None else audited_question
        self.metadata = auth_metadata(edge_id, token)
        self.tls = ClientTls(link.tls_ca, link.tls_server_name, link.tls_cert, link.tls_key, link.insecure)
        retried = retry_unavailable("dgrag.v1.Cloud", ("GlobalQuery", "GlobalQueryStream", "CheckEvidence"))
        self._channel = open_channel(link.address, max_message_bytes, self.tls, extra=[retried])
        self.stub = cloud_pb2_grpc.CloudStub(self._channel)

    async def global_query(
        self,
        question: str,
        asked_at: str,
        vectors: QueryVectors | None = None,
        on_text: TextSink | None = None,
    ) -> CloudAnswer:
        """The cloud's answer; raises CloudUnavailableError when the cloud is down, slow or refuses.
        ``vectors``: this edge's
        embeddings of the question; ``on_text``: given the cloud model's draft as it comes (GlobalQueryStream)."""
        query = CloudQuery(question, asked_at, vectors=vectors)
        request = serde.cloud_query_to_proto(query)
        self._record("global_query", request, question)
        if on_text is None:
            return serde.cloud_answer_from_proto(await self._call(self.stub.GlobalQuery, request))
        return serde.cloud_answer_from_proto(await self._streamed(request, on_text))

    async def check_evidence(
        self,
        question: str,
        claim: EvidenceClaim,
        vectors: QueryVectors | None = None,
    ) -> EvidenceVerdict:
        """The cloud's evidence check, with its answer when another edge is stronger (one round trip); raises
        CloudUnavailableError like global_query."""
        request = serde.evidence_check_to_proto(question, claim, vectors)
        shown = {"evidence": claim.evidence, "terms": claim.terms, "lexical": claim.lexical, "margin": claim.margin}
        self._record("evidence_check", request, question, **shown)
        return serde.verdict_from_proto(await self._call(self.stub.CheckEvidence, request))

    def _record(self, what: str, request: Any, question: str, **details: Any) -> None:
        if self._audit is not None:
            shown = self._shown(question)
            self._audit.record(what, "cloud", request.ByteSize(), question=shown, **details)

    async def _call(self, method: Any, request: Any) -> Any:
        """One unary call with this edge's credentials and the link's deadline; any RPC failure is the cloud
        being unavailable to this edge (CloudUnavailableError, with the status and its details)."""
        try:
            with client_span("edge.ask_cloud"):
                metadata = with_traceparent(self.metadata)
                return await method(request, metadata=metadata, timeout=self.link.query_deadline_s)
        except grpc.aio.AioRpcError as exc:
            raise CloudUnavailableError(f"{exc.code().name}: {exc.details()}") from exc

    async def _streamed(self, request: Any, on_text: TextSink) -> Any:
        """GlobalQueryStream: each draft piece to ``on_text``, the last message's reply returned; failures as
        :meth:`_call`'s. A stream that ends without a reply is the cloud failing."""
        try:
            with client_span("edge.ask_cloud"):
                metadata = with_traceparent(self.metadata)
                call = self.stub.GlobalQueryStream(request, metadata=metadata, timeout=self.link.query_deadline_s)
                # a cloud's draft is bounded like any claim from another process
                reply = await reply_after_drafts(call, on_text, MAX_DRAFT_CHARS)
        except grpc.aio.AioRpcError as exc:
            raise CloudUnavailableError(f"{exc.code().name}: {exc.details()}") from exc
        if reply is None:
            raise CloudUnavailableError("UNKNOWN: the cloud's answer stream ended without an answer")
        return reply

    async def aclose(self) -> None:
        await self._channel.close()
