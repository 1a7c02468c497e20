"""The messages of an edge's session stream (``dgrag.v1.Cloud/Session``) built from dgrag's values: the cloud's
requests down the stream and the edge's replies up it. The one place these protos are made."""

from __future__ import annotations

from shared import serde
from shared.knowledge import EdgeKnowledge, ProbeScores
from shared.proto.dgrag.v1 import cloud_pb2
from shared.query_vectors import QueryVectors


def cloud_request(
    request_id: str,
    question: str,
    deadline_s: float,
    vectors: QueryVectors | None,
    traceparent: str,
    *,
    probe: bool,
) -> cloud_pb2.CloudMessage:
    """A retrieval request, or with ``probe`` a probe (scores only), for one edge."""
    sent = serde.vectors_to_proto(vectors)
    if probe:
        asked = cloud_pb2.ProbeRequest(
            request_id=request_id, question=question, deadline_s=deadline_s, vectors=sent, traceparent=traceparent
        )
        return cloud_pb2.CloudMessage(probe_request=asked)
    wanted = cloud_pb2.RetrievalRequest(
        request_id=request_id, question=question, deadline_s=deadline_s, vectors=sent, traceparent=traceparent
    )
    return cloud_pb2.CloudMessage(retrieval_request=wanted)


def probe_reply(request_id: str, scores: ProbeScores) -> cloud_pb2.EdgeMessage:
    """An edge's scores for a probe: numbers only, never text."""
    reply = cloud_pb2.ProbeReply(
        request_id=request_id,
        score=scores.score,
        name_coverage=scores.name_coverage,
        best_entity=scores.best_entity,
        best_chunk=scores.best_chunk,
        term_coverage=scores.term_coverage,
        lexical=scores.lexical,
    )
    return cloud_pb2.EdgeMessage(probe_reply=reply)


def retrieval_reply(request_id: str, knowledge: EdgeKnowledge) -> cloud_pb2.EdgeMessage:
    """An edge's knowledge for a retrieval request, as its policy let it leave."""
    reply = cloud_pb2.RetrievalReply(request_id=request_id)
    reply.knowledge.CopyFrom(serde.knowledge_to_proto(knowledge))
    return cloud_pb2.EdgeMessage(retrieval_reply=reply)


def error_reply(request_id: str, error: str, *, probe: bool) -> cloud_pb2.EdgeMessage:
    """An edge's fixed, document-free answer to a request it could not serve."""
    if probe:
        return cloud_pb2.EdgeMessage(probe_reply=cloud_pb2.ProbeReply(request_id=request_id, error=error))
    return cloud_pb2.EdgeMessage(retrieval_reply=cloud_pb2.RetrievalReply(request_id=request_id, error=error))
