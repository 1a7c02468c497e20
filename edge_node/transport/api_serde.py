"""The edge API's replies (``dgrag.v1.Edge``) built from the edge's own values: what an ingest, a question and
a deletion did. The one place these protos are made (the shared records' protos are in shared.transport.serde)."""

from __future__ import annotations

from collections.abc import Sequence

from edge_node.ingest.service import IngestReport, SummaryRefresh
from edge_node.query.edge_answer import EdgeAnswer
from shared.core.shown import shown_of
from shared.proto.dgrag.v1 import edge_pb2
from shared.transport import serde


def ingest_reply(report: IngestReport) -> edge_pb2.IngestReply:
    summary = report.summary
    return edge_pb2.IngestReply(
        added=report.added,
        updated=report.updated,
        unchanged=report.unchanged,
        failed=[edge_pb2.IngestFailure(path=p, reason=r) for p, r in report.failed],
        summaries_upserted=len(summary.upserted) if summary else 0,
        summaries_deleted=len(summary.deleted) if summary else 0,
    )


def query_reply(result: EdgeAnswer, edge_id: str) -> edge_pb2.QueryReply:
    """An answer with its sources (a source without an edge is this edge's own) and its trace."""
    return edge_pb2.QueryReply(
        answer=result.answer,
        decision=result.decision,
        verified=result.verified,
        note=result.note,
        sources=[
            edge_pb2.Source(edge_id=s.edge_id or edge_id, doc_id=s.doc_id, chunk_id=s.chunk_id, score=s.score)
            for s in result.sources
        ],
        trace_json=(trace := result.trace()).to_json(),
        timings=serde.timings_to_proto(result.timings),
        shown=serde.shown_to_proto(shown_of(trace)),
    )


def delete_reply(deleted: Sequence[str], result: SummaryRefresh | None) -> edge_pb2.DeleteReply:
    return edge_pb2.DeleteReply(
        deleted=list(deleted),
        summaries_upserted=len(result.upserted) if result else 0,
        summaries_deleted=len(result.deleted) if result else 0,
    )


def query_request(question: str, mode: str) -> edge_pb2.QueryRequest:
    return edge_pb2.QueryRequest(question=question, mode=mode)


def delete_request(doc_ids: Sequence[str]) -> edge_pb2.DeleteRequest:
    return edge_pb2.DeleteRequest(doc_ids=list(doc_ids))
