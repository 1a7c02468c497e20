"""Simulation plumbing without processes: rows from traces, the local view of a full trace, index keys,
the deterministic question sample."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace
from typing import Any

import pytest

from shared.config import EdgeConfig
from shared.core.trace import AnswerTrace, TraceError
from simulation.asking import Asker, EdgeEndpoint, Plan, local_view, row_from_trace, trace_of
from simulation.bundle import Asked, Question
from simulation.index_cache import index_key
from simulation.report import latency
from simulation.runner import sample_questions
from tests.support.paths import REPO

Q = Question("q1", "Does Acme build robots?", "Yes", "comparison", ("a",), ("d1", "d2"))
GATE = {
    "score": 0.2,
    "threshold": 0.5,
    "best_index": 0,
    "refusals": 1,
    "refusal_share": 0.25,
    "cosine": 0.5,
    "jaccard": 0.4,
    "claims": 0.3,
    "evidence": 0.2,
}
LOCAL_TRACE = {
    "question": Q.question,
    "answer": "Yes.",
    "decision": "escalate",
    "verified": False,
    "mode": "local",
    "note": "",
    "answers": ["Yes."],
    "degenerate": [None],
    "best_generated": "Yes.",
    "sampling": {},
    "model_speed": {},
    "gate": GATE,
    "evidence": {},
    "keywords": [],
    "names": [],
    "entities": [],
    "relations": [],
    "sources": [],
    "context_tokens": 10,
    "timings": {"generation": 1.0},
}
FULL_TRACE = AnswerTrace.from_dict(
    {
        **LOCAL_TRACE,
        "answer": "Yes. The cloud says so.",
        "decision": "cloud",
        "local_answer": "Insufficient information.",
        "local_decision": "escalate",
        "sources": [{"edge_id": "a", "doc_id": "d1", "chunk_id": 3, "score": 0.9}],
        "local_sources": [{"doc_id": "x9", "chunk_id": 1, "score": 0.1}],
        "cloud": {
            "answer": "Yes. The cloud says so.",
            "short": "Yes",
            "edges_asked": ["a"],
            "edges_replied": ["a"],
            "edges_failed": [],
            "bytes_received": 1000,
        },
        "timings": {"retrieval": 0.1, "generation": 2.0, "escalation": 3.0, "cloud.fan_out": 0.2},
    }
)


def test_a_trace_round_trips_and_keeps_its_json_shape() -> None:
    again = trace_of(FULL_TRACE.to_json())
    assert again == FULL_TRACE
    assert list(FULL_TRACE.to_dict())[-4:] == ["local_answer", "local_decision", "local_sources", "cloud"]
    assert "cloud" not in AnswerTrace.from_dict(LOCAL_TRACE).to_dict(), "a local trace has no cloud part"
    assert FULL_TRACE.to_dict()["local_sources"] == [{"doc_id": "x9", "chunk_id": 1, "score": 0.1}]


def test_a_trace_of_another_shape_is_refused_by_name() -> None:
    with pytest.raises(TraceError, match="unknown fields \\['colour'\\]"):
        AnswerTrace.from_dict({**LOCAL_TRACE, "colour": "red"})
    with pytest.raises(TraceError, match="lacks \\['answer'\\]"):
        AnswerTrace.from_dict({k: v for k, v in LOCAL_TRACE.items() if k != "answer"})
    with pytest.raises(TraceError, match="not JSON"):
        trace_of("{")
    with pytest.raises(TraceError, match="must be a JSON object"):
        trace_of("[]")


def test_a_cloud_answered_row_is_judged_on_the_final_answer_and_counts_the_bytes() -> None:
    row = row_from_trace(Asked(Q, "b", "out"), "dgrag", FULL_TRACE, [{"summary_id": "a/sg-1", "edge_id": "a"}])
    assert row["correct"] and row["escalated"] and row["decision"] == "cloud"
    assert row["evidence_recall"] == 0.5
    assert row["edges_asked"] == ["a"]
    assert row["bytes_left_edges"] == 1000 + len(Q.question.encode())


def test_the_local_view_is_the_answer_before_the_cloud() -> None:
    row = row_from_trace(Asked(Q, "b", "out"), "local", local_view(FULL_TRACE), [])
    assert row["answer"] == "Insufficient information." and not row["correct"]
    assert row["decision"] == "escalate" and row["escalated"]
    assert row["evidence_recall"] == 0.0 and row["edges_asked"] == [] and row["bytes_left_edges"] == 0
    assert set(row["timings"]) == {"retrieval", "generation"}


def test_index_key_follows_documents_and_construction_settings_only() -> None:
    docs = [{"doc_id": "d1", "edge_id": "a", "text": "t"}]
    config = EdgeConfig()
    key = index_key(docs, "a", config)
    assert key == index_key(list(docs), "a", config)
    assert key != index_key([{**docs[0], "text": "changed"}], "a", config)
    assert key != index_key(
        docs, "a", dataclasses.replace(config, chunking=dataclasses.replace(config.chunking, chunk_tokens=100))
    )
    gate = dataclasses.replace(config.gate, threshold=0.9)
    assert key == index_key(docs, "a", dataclasses.replace(config, gate=gate)), "the gate does not change the index"


def test_the_question_sample_is_deterministic() -> None:
    bench = REPO / "simulation" / "bundles" / "multihop4"
    first = [q.qid for q in sample_questions(bench, 25, 0)]
    assert len(first) == 25 and first == [q.qid for q in sample_questions(bench, 25, 0)]
    assert first != [q.qid for q in sample_questions(bench, 25, 1)]


class _CentralStub:
    """Stands in for the central edge's gRPC stub: counts the questions put to it."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def Query(self, request: Any, metadata: Any, timeout: float) -> Any:
        assert dict(metadata)["authorization"] == "Bearer api-token"
        self.asked.append(request.question)
        return SimpleNamespace(trace_json=json.dumps(LOCAL_TRACE))


def test_the_central_store_answers_each_question_once_and_keeps_its_answer() -> None:
    asker = Asker({}, EdgeEndpoint("127.0.0.1:9", "api-token"), "127.0.0.1:9", "u", "t")
    stub = _CentralStub()
    asker._central = stub  # type: ignore[assignment]
    plan = Plan(local=False, dgrag=False, central=True)
    try:
        within = asker.ask(Asked(Q, "a", "within"), plan)
        out = asker.ask(Asked(Q, "b", "out"), plan)
    finally:
        asker.close()
    assert stub.asked == [Q.question]
    assert [r["reused"] for r in within + out] == [False, True]
    assert within[0]["decision"] == out[0]["decision"] == "local"  # the upper bound keeps its answer
    assert out[0]["asked_at"] == "b" and out[0]["kind"] == "out"
    report_rows = latency(within + out)
    assert report_rows["all"]["generation"]["n"] == 1  # the reused answer is not timed twice


class _EdgeStub:
    """Stands in for an edge's gRPC stub: records each query's mode in the order they come."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def QueryStream(self, request: Any, metadata: Any, timeout: float) -> Any:
        self.asked.append(request.mode)
        reply = SimpleNamespace(trace_json=json.dumps(LOCAL_TRACE))
        return iter([SimpleNamespace(HasField=lambda name: name == "reply", reply=reply)])


def test_one_full_query_gives_the_dgrag_and_local_rows_named_as_the_plan_says() -> None:
    asker = Asker({"a": EdgeEndpoint("127.0.0.1:9", "api-token")}, None, "127.0.0.1:9", "u", "t")
    stub = _EdgeStub()
    asker._edges["a"] = stub  # type: ignore[assignment]
    asker._summaries = lambda question: []  # type: ignore[method-assign]
    try:
        both = asker.ask(Asked(Q, "a", "within"), Plan(local=True, dgrag=True, central=False))
        ablated = asker.ask(Asked(Q, "a", "within"), Plan(False, True, False, dgrag_as="dgrag-pr"))
    finally:
        asker.close()
    assert stub.asked == ["full", "full"], "the local row is the full query's local part, not a second ask"
    assert sorted(r["mode"] for r in both) == ["dgrag", "local"]
    assert [r["mode"] for r in ablated] == ["dgrag-pr"]
