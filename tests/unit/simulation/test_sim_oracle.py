"""The oracle mode reads a question from its gold evidence documents with the edge's readers."""

from __future__ import annotations

from shared.config import EdgeConfig
from shared.core.model_api import GenerationRequest
from simulation.asking import row_from_trace
from simulation.bundle import Asked, Question
from simulation.fakes import ScriptedGenerator
from simulation.oracle import gold_passages, read_gold

DOCS = {
    "d1": "Weather was mild. Dana Smith runs the Oslo lab. The lab opened in 2019.",
    "d2": "Unrelated text about football scores.",
}
WHO = Question("q1", "Who runs the Oslo lab?", "Dana Smith", "inference_query", ("a",), ("d1",))


def test_only_the_gold_documents_become_passages_cut_to_the_question() -> None:
    passages = gold_passages(WHO, DOCS)
    assert [(p.number, p.source) for p in passages] == [(1, "d1")]
    assert "Dana Smith runs the Oslo lab." in passages[0].text


def test_the_oracle_answer_is_read_and_scored_like_an_edge_answer() -> None:
    seen: list[GenerationRequest] = []

    def script(request: GenerationRequest) -> str:
        seen.append(request)
        return "Dana Smith [1]"

    trace = read_gold(WHO, DOCS, ScriptedGenerator(script), EdgeConfig())
    assert seen and "Dana Smith runs the Oslo lab." in seen[0].prompt and "football" not in seen[0].prompt
    assert trace.reading["short"] == "Dana Smith" and trace.answer.startswith("Dana Smith")
    row = row_from_trace(Asked(WHO, "a", "within"), "oracle", trace, [])
    assert row["correct"] and row["short"] == "Dana Smith" and row["evidence_recall"] == 1.0 and not row["escalated"]


def test_a_question_without_gold_evidence_asks_no_model() -> None:
    unanswerable = Question("q2", "Who runs the Paris lab?", "", "null_query", (), ())
    calls: list[GenerationRequest] = []
    trace = read_gold(unanswerable, DOCS, ScriptedGenerator(lambda r: calls.append(r) or "x"), EdgeConfig())
    assert calls == [] and trace.sources == []
