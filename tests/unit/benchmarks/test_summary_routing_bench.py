"""benchmarks.summary_routing without models: the hit table from given rankings, and a missing index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.summary_routing import main, report
from shared.core.knowledge import SummaryMatch
from simulation.bundle import Question


def _question(qid: str, kind: str, home: tuple[str, ...]) -> Question:
    return Question(qid, f"What about {qid}?", "gold", kind, home, ())


def _ranking(*edges: str) -> list[SummaryMatch]:
    return [SummaryMatch(f"s{i}", e, 1.0 - i / 10) for i, e in enumerate(edges)]


def test_hits_per_depth_and_type_and_the_misses(capsys: pytest.CaptureFixture[str]) -> None:
    questions = [_question("q1", "Single", ("a",)), _question("q2", "Multi", ("c",))]
    report(questions, [_ranking("a", "b", "c"), _ranking("b", "a", "c")], pool=3)
    out = capsys.readouterr().out
    assert "edge_pool = 3" in out
    assert "| all | 2 | 50.0% | 100.0% | 100.0% |" in out
    assert "| Multi | 1 | 0.0% | 100.0% | 100.0% |" in out
    assert "missed at m=1 (1):" in out and "q2 home=['c'] top=['b']" in out


def test_an_edge_without_a_finished_index_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "edges.json").write_text(json.dumps([{"edge_id": "a", "description": "A"}]), encoding="utf-8")
    (bench / "docs.jsonl").write_text(json.dumps({"doc_id": "d1", "edge_id": "a", "text": "t"}) + "\n")
    (bench / "questions.jsonl").write_text("")
    assert main(["--bench", str(bench), "--cache-dir", str(tmp_path / "cache")]) == 2
    assert "no finished index for edge 'a'" in capsys.readouterr().err
