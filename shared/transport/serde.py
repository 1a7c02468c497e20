"""Protobuf <-> plain records (``x_to_proto`` / ``x_from_proto``). The only domain-facing use of the stubs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from shared.core.chunk_commitment import MAX_DEPTH, ChunkProof
from shared.core.edge_stats import EdgeStats
from shared.core.knowledge import (
    CloudAnswer,
    CloudQuery,
    ContextChunk,
    EdgeKnowledge,
    EvidenceClaim,
    EvidenceVerdict,
    KnowledgeChunk,
    KnowledgeEntity,
    KnowledgeRelation,
    ProbeScores,
    SummaryCard,
    SummaryMatch,
    SummaryTombstone,
)
from shared.core.query_vectors import MAX_DIM, MAX_TEXTS, QueryVectors, QueryVectorsError
from shared.core.shown import AnsweredBy, ShownAnswer, shown_of_cloud
from shared.core.sureness import SIGNALS, unit_interval
from shared.core.vocabulary import ANSWER_USES, DEFAULT_ANSWER_USE, AnswerUse
from shared.proto.dgrag.v1 import cloud_pb2, common_pb2, edge_pb2


def summary_to_proto(card: SummaryCard) -> common_pb2.Summary:
    return common_pb2.Summary(
        id=card.id,
        version=card.version,
        text=card.text,
        top_entities=list(card.top_entities),
        n_entities=card.n_entities,
        n_relations=card.n_relations,
    )


def summary_from_proto(msg: common_pb2.Summary) -> SummaryCard:
    return SummaryCard(msg.id, msg.version, msg.text, tuple(msg.top_entities), msg.n_entities, msg.n_relations)


def tombstone_to_proto(stone: SummaryTombstone) -> common_pb2.Tombstone:
    return common_pb2.Tombstone(id=stone.id, version=stone.version)


def tombstone_from_proto(msg: common_pb2.Tombstone) -> SummaryTombstone:
    return SummaryTombstone(msg.id, msg.version)


def chunk_to_proto(chunk: KnowledgeChunk) -> common_pb2.KnowledgeChunk:
    msg = common_pb2.KnowledgeChunk(
        doc_id=chunk.doc_id, chunk_id=chunk.chunk_id, text=chunk.text, score=chunk.score, tokens=chunk.tokens
    )
    if chunk.proof is not None:
        msg.proof_salt, msg.proof_index = chunk.proof.salt, chunk.proof.index
        msg.proof_path.extend(chunk.proof.path)
    return msg


def chunk_from_proto(msg: common_pb2.KnowledgeChunk) -> KnowledgeChunk:
    """A chunk as the message has it; a proof deeper than chunk_commitment.MAX_DEPTH is dropped unread."""
    proof = None
    if msg.proof_salt and len(msg.proof_path) <= MAX_DEPTH:
        proof = ChunkProof(bytes(msg.proof_salt), msg.proof_index, tuple(bytes(h) for h in msg.proof_path))
    return KnowledgeChunk(msg.doc_id, msg.chunk_id, msg.text, msg.score, msg.tokens, proof)


def knowledge_to_proto(k: EdgeKnowledge) -> common_pb2.Knowledge:
    return common_pb2.Knowledge(
        edge_id=k.edge_id,
        entities=[
            common_pb2.KnowledgeEntity(name=e.name, type=e.type, description=e.description, score=e.score)
            for e in k.entities
        ],
        relations=[
            common_pb2.KnowledgeRelation(source=r.source, target=r.target, description=r.description, score=r.score)
            for r in k.relations
        ],
        chunks=[chunk_to_proto(c) for c in k.chunks],
        evidence=k.evidence,
        retrieval_seconds=k.retrieval_seconds,
        answers=k.answers,
    )


def knowledge_from_proto(msg: common_pb2.Knowledge) -> EdgeKnowledge:
    return EdgeKnowledge(
        edge_id=msg.edge_id,
        entities=tuple(KnowledgeEntity(e.name, e.type, e.description, e.score) for e in msg.entities),
        relations=tuple(KnowledgeRelation(r.source, r.target, r.description, r.score) for r in msg.relations),
        chunks=tuple(chunk_from_proto(c) for c in msg.chunks),
        evidence=msg.evidence,
        retrieval_seconds=msg.retrieval_seconds,
        answers=_answer_use(msg.answers),
    )


def _answer_use(value: str) -> AnswerUse:
    """An edge's privacy.answers as sent; a value this version does not know is read as the default."""
    for use in ANSWER_USES:
        if value == use:
            return use
    return DEFAULT_ANSWER_USE


def knowledge_size(k: EdgeKnowledge) -> int:
    """Bytes ``k`` takes on the wire."""
    return int(knowledge_to_proto(k).ByteSize())


def timings_to_proto(timings: Mapping[str, float]) -> common_pb2.Timings:
    return common_pb2.Timings(seconds=dict(timings))


def summary_match_to_proto(m: SummaryMatch) -> cloud_pb2.SummaryMatch:
    return cloud_pb2.SummaryMatch(summary_id=m.summary_id, edge_id=m.edge_id, score=m.score, version=m.version)


def summary_match_from_proto(m: cloud_pb2.SummaryMatch) -> SummaryMatch:
    return SummaryMatch(m.summary_id, m.edge_id, m.score, m.version)


def cloud_answer_to_proto(a: CloudAnswer) -> cloud_pb2.GlobalQueryReply:
    return cloud_pb2.GlobalQueryReply(
        answer=a.answer,
        summaries=[summary_match_to_proto(s) for s in a.summaries],
        edges_asked=a.edges_asked,
        edges_replied=a.edges_replied,
        edges_failed=a.edges_failed,
        context_chunks=[chunk_to_proto(c.chunk) for c in a.context],
        context_edges=[c.edge_id for c in a.context],
        timings=timings_to_proto(a.timings),
        bytes_received=a.bytes_received,
        probes=[probe_to_proto(p) for p in a.probes],
        probe_bytes=a.probe_bytes,
        short_answer=a.short,
        withheld_words=a.withheld_words,
        reader=a.reader,
        matched_offline=a.matched_offline,
        confidence=a.confidence,
        confidence_signals=a.confidence_signals,
        shown=shown_to_proto(shown_of_cloud(a)),
    )


def shown_to_proto(shown: ShownAnswer) -> common_pb2.ShownAnswer:
    return common_pb2.ShownAnswer(
        text=shown.text,
        short_answer=shown.short,
        probability=shown.probability,
        sureness=shown.sureness,
        answered_by=shown.answered_by.value,
        sources=list(shown.sources),
        reader=shown.reader,
    )


def shown_from_proto(msg: common_pb2.ShownAnswer) -> ShownAnswer:
    """A peer's shown answer, checked: the probability bounded to [0, 1] and its word made here from it; an
    unknown answerer counts as an extract."""
    by = msg.answered_by if msg.answered_by in {a.value for a in AnsweredBy} else AnsweredBy.EXTRACT.value
    return ShownAnswer.made(msg.text, msg.short_answer, msg.probability, AnsweredBy(by), tuple(msg.sources), msg.reader)


def probe_fields(p: ProbeScores) -> dict[str, Any]:
    """The scores an edge's ProbeReply and the cloud's ProbeResult both carry, under the same field names."""
    return {
        "score": p.score,
        "name_coverage": p.name_coverage,
        "best_entity": p.best_entity,
        "best_chunk": p.best_chunk,
        "error": p.error,
        "term_coverage": p.term_coverage,
        "lexical": p.lexical,
        "signals": dict(p.signals),
    }


def probe_to_proto(p: ProbeScores) -> cloud_pb2.ProbeResult:
    return cloud_pb2.ProbeResult(edge_id=p.edge_id, seconds=p.seconds, **probe_fields(p))


def probe_reply_from_proto(p: cloud_pb2.ProbeReply, edge_id: str = "") -> ProbeScores:
    """An edge's probe reply (its id comes from the session, not the message)."""
    return _probe_scores(p, edge_id, 0.0)


def probe_from_proto(p: cloud_pb2.ProbeResult) -> ProbeScores:
    return _probe_scores(p, p.edge_id, p.seconds)


def _probe_scores(p: cloud_pb2.ProbeReply | cloud_pb2.ProbeResult, edge_id: str, seconds: float) -> ProbeScores:
    return ProbeScores(
        edge_id,
        p.score,
        p.name_coverage,
        p.best_entity,
        p.best_chunk,
        seconds,
        p.error,
        term_coverage=p.term_coverage,
        lexical=p.lexical,
        signals=dict(p.signals),
    )


def cloud_answer_from_proto(msg: cloud_pb2.GlobalQueryReply) -> CloudAnswer:
    return CloudAnswer(
        answer=msg.answer,
        summaries=[summary_match_from_proto(s) for s in msg.summaries],
        edges_asked=list(msg.edges_asked),
        edges_replied=list(msg.edges_replied),
        edges_failed=list(msg.edges_failed),
        context=[
            ContextChunk(edge, chunk_from_proto(c))
            for edge, c in zip(msg.context_edges, msg.context_chunks, strict=False)
        ],
        timings=dict(msg.timings.seconds),
        bytes_received=msg.bytes_received,
        probes=[probe_from_proto(p) for p in msg.probes],
        probe_bytes=msg.probe_bytes,
        short=msg.short_answer,
        withheld_words=msg.withheld_words,
        reader=msg.reader,
        matched_offline=msg.matched_offline,
        confidence=unit_interval(msg.confidence),
        confidence_signals={k: unit_interval(v) for k, v in msg.confidence_signals.items() if k in SIGNALS},
    )


def evidence_check_to_proto(
    question: str, claim: EvidenceClaim, vectors: QueryVectors | None
) -> cloud_pb2.CheckEvidenceRequest:
    """An evidence check that asks for the cloud's answer when another edge is stronger."""
    return cloud_pb2.CheckEvidenceRequest(
        question=question,
        local_evidence=claim.evidence,
        local_terms=claim.terms,
        vectors=vectors_to_proto(vectors),
        local_lexical=claim.lexical,
        margin=claim.margin,
        answer_if_stronger=True,
    )


def evidence_claim_from_proto(msg: cloud_pb2.CheckEvidenceRequest) -> EvidenceClaim:
    """The asking edge's claim as sent (the cloud bounds it before use)."""
    return EvidenceClaim(
        msg.local_evidence,
        msg.local_terms,
        msg.local_lexical if msg.HasField("local_lexical") else None,
        msg.margin if msg.HasField("margin") else None,
    )


def verdict_to_proto(v: EvidenceVerdict) -> cloud_pb2.CheckEvidenceReply:
    answer = cloud_answer_to_proto(v.answer) if v.answer is not None else None
    return cloud_pb2.CheckEvidenceReply(stronger_elsewhere=v.stronger, answer=answer, matched_offline=v.matched_offline)


def verdict_from_proto(msg: cloud_pb2.CheckEvidenceReply) -> EvidenceVerdict:
    answer = cloud_answer_from_proto(msg.answer) if msg.HasField("answer") else None
    stronger = bool(msg.stronger_elsewhere)
    return EvidenceVerdict(stronger, answer if stronger else None, bool(msg.matched_offline))


def vectors_to_proto(v: QueryVectors | None) -> cloud_pb2.QueryVectors | None:
    if v is None:
        return None
    matrix = np.ascontiguousarray(v.matrix, dtype="<f4")
    return cloud_pb2.QueryVectors(embedder=v.embedder, dim=v.dim, texts=list(v.texts), vectors=matrix.tobytes())


def vectors_from_proto(msg: cloud_pb2.QueryVectors) -> QueryVectors | None:
    """None when the message carries no vectors; QueryVectorsError (saying what is wrong) when they are malformed."""
    if not msg.texts and not msg.vectors:
        return None
    n, dim = len(msg.texts), msg.dim
    if dim < 1 or len(msg.vectors) != 4 * n * dim:  # counts and sizes beyond that: QueryVectors checks them
        raise QueryVectorsError(
            f"query vectors: {len(msg.vectors)} bytes for {n} texts of dim {dim}; send 4 × texts × dim bytes "
            f"(float32), at most {MAX_TEXTS} texts of dim {MAX_DIM}"
        )
    matrix = np.frombuffer(msg.vectors, dtype="<f4").reshape(n, dim).astype(np.float32)
    return QueryVectors(msg.embedder, tuple(msg.texts), matrix)


def edge_stats_to_proto(stats: EdgeStats) -> edge_pb2.StatsReply:
    return edge_pb2.StatsReply(
        edge_id=stats.edge_id or "",
        documents=stats.documents,
        chunks=stats.chunks,
        entities=stats.entities,
        relations=stats.relations,
        subgraphs=stats.subgraphs,
        summaries=stats.summaries,
        bytes_on_disk=stats.bytes_on_disk,
        cloud_connected=stats.cloud_connected,
        pending_publications=stats.pending_publications,
    )


def edge_stats_from_proto(reply: edge_pb2.StatsReply) -> EdgeStats:
    return EdgeStats(
        edge_id=reply.edge_id,
        documents=reply.documents,
        chunks=reply.chunks,
        entities=reply.entities,
        relations=reply.relations,
        subgraphs=reply.subgraphs,
        summaries=reply.summaries,
        pending_publications=reply.pending_publications,
        bytes_on_disk=reply.bytes_on_disk,
        cloud_connected=reply.cloud_connected,
    )


def cloud_query_to_proto(query: CloudQuery) -> cloud_pb2.GlobalQueryRequest:
    """A question for the cloud (who asks, and so ``share_context``, is the caller's credential, not sent)."""
    return cloud_pb2.GlobalQueryRequest(
        question=query.question,
        asked_at=query.asked_at,
        top_m=query.top_m,
        top_k=query.top_k,
        deadline_s=query.deadline_s,
        vectors=vectors_to_proto(query.vectors),
    )


def cloud_query_from_proto(request: cloud_pb2.GlobalQueryRequest) -> CloudQuery:
    """The question as its sender put it; raises InvalidRequestError for malformed vectors."""
    return CloudQuery(
        question=request.question,
        asked_at=request.asked_at,
        top_m=request.top_m,
        top_k=request.top_k,
        deadline_s=request.deadline_s,
        vectors=vectors_from_proto(request.vectors),
    )


def match_request(question: str, top_m: int) -> cloud_pb2.MatchSummariesRequest:
    return cloud_pb2.MatchSummariesRequest(question=question, top_m=top_m)


def match_reply(matches: Sequence[SummaryMatch]) -> cloud_pb2.MatchSummariesReply:
    return cloud_pb2.MatchSummariesReply(summaries=[summary_match_to_proto(m) for m in matches])
