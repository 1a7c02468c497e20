"""Ask the running edges every question by the 'Asked at' rule (docs/simulation.md) and turn the replies into rows.

One row per (question, asked-at edge, mode). ``local`` and ``dgrag`` come from the same full-pipeline
query when both are asked for: the local row is DGRAG's local path (its answer and gate decision before
any cloud), the dgrag row is the final answer. ``central`` asks the all-documents store (local path,
its answer taken whatever its gate said); it holds every document, so where a question is asked does not
change its answer and each question is put to it once (the second ask reuses the first trace, marked
``reused``). An ablation's network (simulation.ablation_settings) is asked as dgrag, its rows named for it.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

import grpc

from shared.core.errors import DgragError
from shared.core.knowledge import ProbeScores
from shared.core.shown import AnsweredBy, ShownAnswer, shown_of
from shared.core.trace import AnswerTrace, Decision, TraceError
from shared.core.vocabulary import EdgeMode
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc, edge_pb2, edge_pb2_grpc
from shared.reading.span_reader import is_extractive
from shared.transport.grpc_auth import bearer_metadata
from shared.transport.grpc_transport import auth_metadata
from simulation.bundle import Asked
from simulation.metrics import evidence_recall
from simulation.scoring import shape_of_ask, strictly_correct

QUERY_TIMEOUT_S = 900.0
LOCAL_PHASES = ("keywording", "retrieval", "generation", "gate")

EDGE_MODE_OF: dict[str, EdgeMode] = {"local": "local", "dgrag": "full", "central": "local"}
"""The edge mode each simulation mode asks in."""


@dataclass(frozen=True)
class Plan:
    """Which queries to send for each asked question (the naive baseline is the simulation's own:
    simulation.naive)."""

    local: bool
    dgrag: bool
    central: bool
    dgrag_as: str = "dgrag"
    """The mode name of the full pipeline's rows (``dgrag-<code>`` on an ablation's network)."""

    def modes(self) -> list[str]:
        """The mode names of the rows each ask gives."""
        named = [m for m, on in ((self.dgrag_as, self.dgrag), ("local", self.local)) if on]
        return [*named, *(["central"] if self.central else [])]


@dataclass(frozen=True)
class EdgeEndpoint:
    """Where an edge's API listens, and the token its local apps send."""

    address: str
    api_token: str


class Asker:
    """Holds channels to the edges, the central store and the cloud."""

    def __init__(
        self, edges: dict[str, EdgeEndpoint], central: EdgeEndpoint | None, cloud: str, user: str, token: str
    ) -> None:
        self._channels = {e: grpc.insecure_channel(a.address) for e, a in edges.items()}
        self._edge_metadata = {e: bearer_metadata(a.api_token) for e, a in edges.items()}
        self._central_metadata = bearer_metadata(central.api_token) if central else ()
        self._edges = {e: edge_pb2_grpc.EdgeStub(c) for e, c in self._channels.items()}
        self._central_channel = grpc.insecure_channel(central.address) if central else None
        self._central = edge_pb2_grpc.EdgeStub(self._central_channel) if self._central_channel else None
        self._cloud_channel = grpc.insecure_channel(cloud)
        self._cloud = cloud_pb2_grpc.CloudStub(self._cloud_channel)
        self._metadata = auth_metadata(user, token)
        self._central_traces: dict[str, AnswerTrace] = {}

    def close(self) -> None:
        for channel in [*self._channels.values(), self._central_channel, self._cloud_channel]:
            if channel is not None:
                channel.close()

    def ask(self, asked: Asked, plan: Plan) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        summaries = self._summaries(asked.question.question) if plan.dgrag else []
        if plan.local and not plan.dgrag:
            rows.append(
                row_from_trace(
                    asked, "local", self._query(asked.edge, asked.question.question, EDGE_MODE_OF["local"]), []
                )
            )
        if plan.dgrag:
            trace = self._query(asked.edge, asked.question.question, EDGE_MODE_OF["dgrag"])
            rows.append(row_from_trace(asked, plan.dgrag_as, trace, summaries))
            if plan.local:
                rows.append(row_from_trace(asked, "local", local_view(trace), []))
        if plan.central and self._central is not None:
            rows.append(self._ask_central(asked))
        return rows

    def _ask_central(self, asked: Asked) -> dict[str, Any]:
        assert self._central is not None
        qid = asked.question.qid
        reused = qid in self._central_traces
        if not reused:
            reply = self._central.Query(
                edge_pb2.QueryRequest(question=asked.question.question, mode=EDGE_MODE_OF["central"]),
                metadata=self._central_metadata,
                timeout=QUERY_TIMEOUT_S,
            )
            trace = trace_of(reply.trace_json)
            # the upper bound keeps its own answer whatever its gate says
            self._central_traces[qid] = dataclasses.replace(trace, decision=Decision.LOCAL)
        row = row_from_trace(asked, "central", self._central_traces[qid], [])
        return row | {"escalated": False, "reused": reused}

    def _query(self, edge: str, question: str, mode: str) -> AnswerTrace:
        try:
            # streamed as `dgrag edge ask` asks, so an escalated answer's trace times its first draft
            events = self._edges[edge].QueryStream(
                edge_pb2.QueryRequest(question=question, mode=mode),
                metadata=self._edge_metadata[edge],
                timeout=QUERY_TIMEOUT_S,
            )
            reply = next((e.reply for e in events if e.HasField("reply")), None)
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            raise EdgeLostError(
                f"edge {edge} cannot be reached to ask a question ({exc.details()}): its host process or node "
                "is gone. The answers so far are kept; bring the host back and run the same command again to resume."
            ) from None
        if reply is None:
            raise DgragError(f"edge {edge} ended its answer stream without an answer to {question!r}")
        return trace_of(reply.trace_json)

    def _summaries(self, question: str) -> list[dict[str, Any]]:
        reply = self._cloud.MatchSummaries(
            cloud_pb2.MatchSummariesRequest(question=question, top_m=5), metadata=self._metadata, timeout=60
        )
        return [{"summary_id": s.summary_id, "edge_id": s.edge_id, "score": round(s.score, 4)} for s in reply.summaries]


class EdgeLostError(DgragError):
    """An edge the simulation asks is unreachable: its host process, Ray actor or node died during the run."""


def trace_of(text: str) -> AnswerTrace:
    """A reply's ``trace_json`` as a trace; TraceError when it is not JSON or has another shape."""
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise TraceError(f"a trace is not JSON ({exc})") from exc
    return AnswerTrace.from_dict(raw)


def local_view(trace: AnswerTrace) -> AnswerTrace:
    """The local path's part of a full-pipeline trace (what LocalRAG would have answered)."""
    return dataclasses.replace(
        trace,
        answer=trace.local_answer if trace.local_answer is not None else trace.answer,
        decision=trace.local_decision or trace.decision,
        sources=trace.local_sources if trace.local_sources is not None else trace.sources,
        cloud=None,
        timings={k: v for k, v in trace.timings.items() if k in LOCAL_PHASES},
    )


def row_from_trace(asked: Asked, mode: str, trace: AnswerTrace, summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """One answers.jsonl row from an edge's query trace."""
    q = asked.question
    cloud = trace.cloud
    answerable = asked.kind != "unanswerable"
    question_bytes = len(q.question.encode()) if cloud is not None else 0
    shown = shown_of(trace)  # judged by its short answer alone, never the quote that could hold the gold by chance
    return {
        "qid": q.qid,
        "question": q.question,
        "gold": q.answer,
        "type": q.type,
        "kind": asked.kind,
        "asked_at": asked.edge,
        "home_edges": list(q.home_edges),
        "evidence_doc_ids": list(q.evidence_doc_ids),
        "mode": mode,
        "answer": trace.answer,
        "decision": str(trace.decision),
        "escalated": trace.escalated,
        "short": shown.short,
        "correct": strictly_correct(shown.short, q.answer, trace.answer),
        "shape": shape_of_ask(q.question, q.answer),
        "reader": reader_of(shown),
        "confidence": shown.probability,
        "confidence_signals": trace.confidence_signals,
        "gate": trace.gate.to_dict() if trace.gate else None,
        "sources": [s.to_dict() for s in trace.sources],
        "evidence_recall": (
            evidence_recall(list(q.evidence_doc_ids), [s.doc_id for s in trace.sources]) if answerable else None
        ),
        "summaries": summaries,
        "edges_asked": cloud.edges_asked if cloud else [],
        "edges_replied": cloud.edges_replied if cloud else [],
        "edges_failed": cloud.edges_failed if cloud else [],
        "timings": trace.timings,
        "probes": [_probe_row(x) for x in cloud.probes] if cloud else [],
        "bytes_left_edges": (cloud.bytes_received + cloud.probe_bytes if cloud else 0) + question_bytes,
        "probe_bytes": cloud.probe_bytes if cloud else 0,
        **generation_quality(trace),
        "model_speed": trace.model_speed or {},
    }


def reader_of(shown: ShownAnswer) -> str:
    """Which reader made the answer shown: the local reader's name (span, verdict, unsupported, declined, ...), or
    ``cloud:<reader>`` for the cloud's."""
    if shown.answered_by == AnsweredBy.CLOUD:
        return f"cloud:{shown.reader or 'unrecorded'}"
    return shown.reader


def generation_quality(trace: AnswerTrace) -> dict[str, Any]:
    """How many texts the models generated for this answer, how many were rejected as degenerate (a cloud
    answer replaced by an extract counts as one), and whether the answer shown is an extract."""
    cloud = trace.cloud
    generations = len(trace.answers) + (1 if cloud else 0)
    degenerate = sum(1 for f in trace.degenerate if f) + (1 if cloud and is_extractive(cloud.answer) else 0)
    return {"generations": generations, "degenerate_generations": degenerate, "extractive": is_extractive(trace.answer)}


def _probe_row(p: ProbeScores) -> dict[str, Any]:
    """One probe in an answer row: the edge, its evidence (with the name coverage and best chunk behind it), term
    and lexical coverage, and any error."""
    return {
        "edge_id": p.edge_id,
        "score": round(p.score, 4),
        "names": round(p.name_coverage, 4),
        "best_chunk": round(p.best_chunk, 4),
        "terms": round(p.term_coverage, 4),
        "lexical": round(p.lexical, 4),
        "error": p.error,
    }
