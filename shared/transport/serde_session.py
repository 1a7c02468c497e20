"""The messages of an edge's session stream (``dgrag.v1.Cloud/Session``) built from dgrag's values: the cloud's
requests down the stream and the edge's replies up it. The one place these protos are made."""

from __future__ import annotations

from collections.abc import Sequence

from shared.core.knowledge import EdgeKnowledge, ProbeScores, SummaryChanges
from shared.core.query_vectors import QueryVectors
from shared.core.summary_digest import HeldSummary
from shared.proto.dgrag.v1 import cloud_pb2
from shared.transport import serde


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
    reply = cloud_pb2.ProbeReply(request_id=request_id, **serde.probe_fields(scores))
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


def hello(edge_id: str, software_version: str, *, unnamed: bool, answers: str = "") -> cloud_pb2.EdgeMessage:
    """An edge's first message on its session (``unnamed``: its policy lets its summaries alone leave it;
    ``answers``: what answers may carry of it, its privacy.answers)."""
    return cloud_pb2.EdgeMessage(
        hello=cloud_pb2.Hello(edge_id=edge_id, software_version=software_version, unnamed=unnamed, answers=answers)
    )


def summary_changes(changes: SummaryChanges) -> cloud_pb2.EdgeMessage:
    """An edge's summaries for the cloud: all of them (a full sync) or what changed (a delta)."""
    upserts = [serde.summary_to_proto(c) for c in changes.upserts]
    if changes.full:
        sync = cloud_pb2.SummarySync(summaries=upserts, up_to_seq=changes.up_to_seq, chunk_root=changes.chunk_root)
        return cloud_pb2.EdgeMessage(sync=sync)
    stones = [serde.tombstone_to_proto(t) for t in changes.tombstones]
    delta = cloud_pb2.SummaryDelta(
        upserts=upserts, tombstones=stones, up_to_seq=changes.up_to_seq, chunk_root=changes.chunk_root
    )
    return cloud_pb2.EdgeMessage(delta=delta)


def heartbeat(sent_at: float) -> cloud_pb2.EdgeMessage:
    return cloud_pb2.EdgeMessage(heartbeat=cloud_pb2.Heartbeat(sent_at=sent_at))


def welcome(
    edge_id: str, heartbeat_interval_s: float, holds_view: bool = False, held: Sequence[HeldSummary] = ()
) -> cloud_pb2.CloudMessage:
    """The cloud's first message on an edge's session: admitted, how often to beat, and what it still holds of the
    edge's summaries from an earlier session."""
    return cloud_pb2.CloudMessage(
        welcome=cloud_pb2.Welcome(
            edge_id=edge_id,
            heartbeat_interval_s=heartbeat_interval_s,
            holds_view=holds_view,
            held=[cloud_pb2.HeldSummary(id=h.id, version=h.version, digest=h.digest) for h in held],
        )
    )


def held_from_welcome(msg: cloud_pb2.Welcome) -> list[HeldSummary] | None:
    """The summaries the cloud still holds of this edge, or None when it holds no view of it (a full sync then)."""
    if not msg.holds_view:
        return None
    return [HeldSummary(h.id, h.version, bytes(h.digest)) for h in msg.held]


def ack(up_to_seq: int, summaries_held: int) -> cloud_pb2.CloudMessage:
    """The cloud applied the edge's summaries up to ``up_to_seq`` of its publication log."""
    return cloud_pb2.CloudMessage(ack=cloud_pb2.Ack(up_to_seq=up_to_seq, summaries_held=summaries_held))
