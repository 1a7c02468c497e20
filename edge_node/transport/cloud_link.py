"""The link from this edge to the cloud: a channel with this edge's credentials and the escalation call."""

from __future__ import annotations

import grpc

from shared import serde
from shared.config import CloudLinkConfig
from shared.errors import CloudUnavailableError
from shared.grpc_transport import auth_metadata, open_channel
from shared.knowledge import CloudAnswer
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.query_vectors import QueryVectors


class CloudLink:
    """Talks to the cloud as one edge."""

    def __init__(self, edge_id: str, link: CloudLinkConfig, token: str, max_message_bytes: int) -> None:
        self.link = link
        self.metadata = auth_metadata(edge_id, token)
        self._channel = open_channel(link.address, max_message_bytes, link.tls_ca, link.tls_server_name)
        self.stub = cloud_pb2_grpc.CloudStub(self._channel)

    async def global_query(
        self,
        question: str,
        asked_at: str,
        routing_off: frozenset[str] = frozenset(),
        vectors: QueryVectors | None = None,
    ) -> CloudAnswer:
        """The cloud's answer; raises CloudUnavailableError when the cloud is down, slow or refuses.
        ``routing_off``: parts of the cloud's routing off for this question (ablations); ``vectors``: this edge's
        embeddings of the question."""
        request = cloud_pb2.GlobalQueryRequest(
            question=question, asked_at=asked_at, routing_off=sorted(routing_off),
            vectors=serde.vectors_to_proto(vectors),
        )  # fmt: skip
        try:
            reply = await self.stub.GlobalQuery(request, metadata=self.metadata, timeout=self.link.query_deadline_s)
        except grpc.aio.AioRpcError as exc:
            raise CloudUnavailableError(f"{exc.code().name}: {exc.details()}") from exc
        return serde.cloud_answer_from_proto(reply)

    async def stronger_elsewhere(
        self,
        question: str,
        local_evidence: float,
        local_terms: float = 0.0,
        vectors: QueryVectors | None = None,
        local_lexical: float = 0.0,
        margin: float | None = None,
    ) -> bool:
        """The cloud's evidence check (one bit); raises CloudUnavailableError like global_query."""
        request = cloud_pb2.CheckEvidenceRequest(
            question=question,
            local_evidence=local_evidence,
            local_terms=local_terms,
            vectors=serde.vectors_to_proto(vectors),
            local_lexical=local_lexical,
            margin=margin,
        )
        try:
            reply = await self.stub.CheckEvidence(request, metadata=self.metadata, timeout=self.link.query_deadline_s)
        except grpc.aio.AioRpcError as exc:
            raise CloudUnavailableError(f"{exc.code().name}: {exc.details()}") from exc
        return bool(reply.stronger_elsewhere)

    async def aclose(self) -> None:
        await self._channel.close()
