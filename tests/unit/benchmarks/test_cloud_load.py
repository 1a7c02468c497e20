"""benchmarks.cloud_load's model-free parts: every question asked where its evidence is not, and a level's figures
(throughput, percentiles, refusals by reason, answers mixed up)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.cloud_load import escalated_questions, summary


def test_each_answerable_question_is_asked_at_an_edge_without_its_evidence(tmp_path: Path) -> None:
    (tmp_path / "edges.json").write_text(json.dumps([{"edge_id": e} for e in ("a", "b", "c")]), "utf-8")
    questions = [
        {"qid": "1", "question": "Q1?", "home_edges": ["a"], "evidence_doc_ids": ["d1"]},
        {"qid": "2", "question": "Q2?", "home_edges": ["b", "c"], "evidence_doc_ids": ["d2"]},
        {"qid": "3", "question": "Nobody knows?", "home_edges": [], "evidence_doc_ids": []},
    ]
    (tmp_path / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions), "utf-8")
    asked = dict((q, e) for e, q in escalated_questions(tmp_path, seed=1))
    assert set(asked) == {"Q1?", "Q2?"}, "an unanswerable question has no evidence to fetch"
    assert asked["Q1?"] in ("b", "c") and asked["Q2?"] == "a"


def test_a_levels_figures_count_refusals_by_reason_and_answers_mixed_up() -> None:
    rows = [
        {"level": 4, "seconds": 10.0, "first_word": 2.0, "decision": "cloud", "mixed_up": False},
        {"level": 4, "seconds": 20.0, "first_word": 3.0, "decision": "cloud", "mixed_up": True},
        {"level": 4, "seconds": 30.0, "refused": "RESOURCE_EXHAUSTED: too many questions"},
        {"level": 4, "seconds": 4.0, "decision": "escalate", "cloud_refused": "RESOURCE_EXHAUSTED", "mixed_up": False},
    ]
    got = summary(rows, wall=60.0, cores=2)
    assert got["escalated"] == 2 and got["per_minute"] == 2.0 and got["per_minute_per_core"] == 1.0
    assert got["p50"] == 15.0 and got["mixed_up"] == 1, "the waits are the cloud's answers' alone"
    assert got["refusals"] == {"RESOURCE_EXHAUSTED: too many questions": 1, "RESOURCE_EXHAUSTED": 1}
    assert got["refused_p95"] is not None and got["refused_p95"] > 4.0


def test_the_cloud_refusal_is_read_from_the_note_of_the_extract_shown_instead() -> None:
    from benchmarks.cloud_load import CLOUD_SAID
    from edge_node.query.edge_answer import CLOUD_DOWN_NOTE

    note = CLOUD_DOWN_NOTE.format(why="RESOURCE_EXHAUSTED: the cloud's model has 5 questions to read")
    found = CLOUD_SAID.search(note)
    assert found is not None and found.group(1) == "RESOURCE_EXHAUSTED"
