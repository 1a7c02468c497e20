"""The trace of an answer, typed once: built by the edge, sent as ``QueryReply.trace_json``, read by the CLI,
the simulation and the benchmarks. One serde (:meth:`AnswerTrace.to_dict` / :meth:`AnswerTrace.from_dict`):
unknown or missing fields are errors, so a renamed field fails where it is read, not as a silent default.

The JSON keeps the shape it has always had (stored answers.jsonl rows and reports stay comparable).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from shared.core.errors import DgragError
from shared.core.knowledge import CloudAnswer, ContextChunk, KnowledgeChunk, ProbeScores, SummaryMatch
from shared.core.sureness import SIGNALS, unit_interval


class Decision(StrEnum):
    """What became of a question: answered at the edge, escalated by the gate, answered by the cloud."""

    LOCAL = "local"
    ESCALATE = "escalate"
    CLOUD = "cloud"


class TraceError(DgragError):
    """A trace that does not have the shape of this version's traces."""


def decision_of(text: object) -> Decision:
    """``text`` (from a trace or a reply of another process) as a Decision; TraceError naming the known ones."""
    try:
        return Decision(str(text))
    except ValueError:
        known = ", ".join(d.value for d in Decision)
        raise TraceError(f"a decision {text!r} is not one of {known}") from None


@dataclass(frozen=True)
class Source:
    """A chunk an answer was made from; ``edge_id`` is None for the asking edge's own chunks."""

    doc_id: str
    chunk_id: int
    score: float
    edge_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        own = {"doc_id": self.doc_id, "chunk_id": self.chunk_id, "score": self.score}
        return own if self.edge_id is None else {"edge_id": self.edge_id, **own}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Source:
        _check_keys(raw, {"doc_id", "chunk_id", "score"}, {"edge_id"}, "source")
        return cls(str(raw["doc_id"]), int(raw["chunk_id"]), float(raw["score"]), raw.get("edge_id"))


@dataclass(frozen=True)
class GateTrace:
    """Every signal and weight of the gate, and why its signals do not let the answer stand alone (the decision
    is edge_node.query.escalation's)."""

    score: float
    threshold: float
    best_index: int
    refusals: int
    refusal_share: float
    cosine: float | None
    jaccard: float | None
    claims: float | None
    evidence: float
    weights: dict[str, float] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    degenerate: int = 0
    unsupported: int = 0
    """Sampled answers whose content words or numbers the evidence they cite does not hold (counted as refusals)."""

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "reasons": list(self.reasons)}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> GateTrace:
        names = {f.name for f in dataclasses.fields(cls)}
        optional = {"weights", "reasons", "degenerate", "unsupported"}
        _check_keys(raw, names - optional, optional, "gate")
        return cls(**{**raw, "reasons": tuple(raw.get("reasons", ()))})


@dataclass(frozen=True)
class AnswerTrace:
    """Everything about one answer: the local path (retrieval, sampled answers, gate) and, when the question
    was escalated, the cloud's answer and provenance."""

    question: str
    answer: str
    decision: Decision
    verified: bool
    mode: str
    note: str
    answers: list[str]
    degenerate: list[str | None]
    best_generated: str
    sampling: dict[str, float | int | None]
    model_speed: dict[str, float]
    gate: GateTrace | None
    evidence: dict[str, float]
    keywords: list[str]
    names: list[str]
    entities: list[dict[str, Any]]
    relations: list[dict[str, Any]]
    sources: list[Source]
    context_tokens: int
    timings: dict[str, float]
    reading: dict[str, str] = field(default_factory=dict)
    """How the answer was read: the question's shape, the reader (vote, extractive, generated, declined, unsettled),
    the short answer, and its confidence (a probability) and sureness (sure, likely, can't tell)."""
    local_answer: str | None = None
    """The full pipeline only (these four): what the local path answered before any escalation."""
    local_decision: Decision | None = None
    """What the local path alone decided, with no cloud to ask: local (its answer) or escalate (an extract)."""
    local_sources: list[Source] | None = None
    cloud: CloudAnswer | None = None

    @property
    def escalated(self) -> bool:
        """The question was sent on to the cloud: the gate escalated it, or it was answered there (the evidence
        check, gate.check_other_edges, escalates questions the gate alone would have kept)."""
        return self.decision in (Decision.CLOUD, Decision.ESCALATE)

    @property
    def confidence_signals(self) -> dict[str, float]:
        """What the shown answer's confidence was computed from (empty for an extract or no verdict)."""
        if self.cloud is not None and self.decision == Decision.CLOUD:
            return dict(self.cloud.confidence_signals)
        if self.decision != Decision.LOCAL:
            return {}
        out = {}
        for key in SIGNALS:
            try:
                out[key] = unit_interval(float(self.reading[key]))
            except (KeyError, ValueError):
                continue
        return out

    @property
    def confidence(self) -> float:
        """How likely the answer shown is right (0 for an extract, a decline or "can't tell"), bounded to [0, 1]."""
        if self.cloud is not None and self.decision == Decision.CLOUD:
            return unit_interval(self.cloud.confidence)
        if self.decision != Decision.LOCAL:
            return 0.0
        try:
            return unit_interval(float(self.reading.get("confidence", 0.0)))
        except ValueError:
            return 0.0

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["gate"] = self.gate.to_dict() if self.gate else None
        out["sources"] = [s.to_dict() for s in self.sources]
        if self.local_answer is None and self.local_sources is None and self.cloud is None:
            for key in ("local_answer", "local_decision", "local_sources", "cloud"):
                del out[key]  # a local-path trace has no such part
            return out
        out["local_sources"] = [s.to_dict() for s in self.local_sources or []]
        out["cloud"] = dataclasses.asdict(self.cloud) if self.cloud is not None else None
        return out

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> AnswerTrace:
        optional = {"local_answer", "local_decision", "local_sources", "cloud", "reading"}
        _check_keys(raw, {f.name for f in dataclasses.fields(cls)} - optional, optional, "trace")
        local_sources = raw.get("local_sources")
        return cls(
            **{
                **raw,
                "decision": decision_of(raw["decision"]),
                "local_decision": decision_of(raw["local_decision"]) if raw.get("local_decision") else None,
                "gate": GateTrace.from_dict(raw["gate"]) if raw["gate"] else None,
                "sources": [Source.from_dict(s) for s in raw["sources"]],
                "local_sources": None if local_sources is None else [Source.from_dict(s) for s in local_sources],
                "cloud": _cloud_from_dict(raw["cloud"]) if raw.get("cloud") else None,
            }
        )


def _cloud_from_dict(raw: dict[str, Any]) -> CloudAnswer:
    return CloudAnswer(
        answer=raw["answer"],
        summaries=[SummaryMatch(**s) for s in raw.get("summaries", [])],
        edges_asked=list(raw.get("edges_asked", [])),
        edges_replied=list(raw.get("edges_replied", [])),
        edges_failed=list(raw.get("edges_failed", [])),
        context=[ContextChunk(c["edge_id"], KnowledgeChunk(**c["chunk"])) for c in raw.get("context", [])],
        timings=dict(raw.get("timings", {})),
        bytes_received=int(raw.get("bytes_received", 0)),
        probes=[ProbeScores(**p) for p in raw.get("probes", [])],
        probe_bytes=int(raw.get("probe_bytes", 0)),
        short=str(raw.get("short", "")),
        withheld_words=int(raw.get("withheld_words", 0)),
        reader=str(raw.get("reader", "")),
        matched_offline=bool(raw.get("matched_offline", False)),
        confidence=float(raw.get("confidence", 0.0)),
        confidence_signals={str(k): float(v) for k, v in dict(raw.get("confidence_signals", {})).items()},
    )


def _check_keys(raw: dict[str, Any], required: set[str], optional: set[str], what: str) -> None:
    if not isinstance(raw, dict):
        raise TraceError(f"a {what} must be a JSON object, not {type(raw).__name__}")
    if missing := sorted(required - raw.keys()):
        raise TraceError(f"a {what} lacks {missing}: the edge runs another dgrag version")
    if unknown := sorted(raw.keys() - required - optional):
        raise TraceError(f"a {what} has unknown fields {unknown}: the edge runs another dgrag version")
