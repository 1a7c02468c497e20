"""benchmarks.reader_oracle without a model: the questions chosen, earlier samples reused, the printed table."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from benchmarks.reader_oracle import _earlier_samples, _print, _questions
from simulation.halves import Half, half_of


def _bench(root: Path) -> Path:
    bench = root / "bench"
    bench.mkdir()
    rows = [
        {"qid": f"q{i}", "question": f"Who leads team {i}?", "answer": "Ann", "type": "t", "home_edges": ["a"]}
        for i in range(8)
    ]
    rows.append({"qid": "none", "question": "Who?", "answer": "Insufficient information.", "type": "t"})
    (bench / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return bench


def _args(**overrides: object) -> argparse.Namespace:
    return argparse.Namespace(**({"shapes": "", "half": "all", "limit": 0} | overrides))


def test_answerable_questions_of_the_half_asked_for(tmp_path: Path) -> None:
    bench = _bench(tmp_path)
    assert [q.qid for q in _questions(bench, _args())] == [f"q{i}" for i in range(8)]
    fit = _questions(bench, _args(half="fit"))
    assert fit and all(half_of(q.qid) == Half.FIT for q in fit)
    assert len(_questions(bench, _args(limit=3))) == 3
    assert _questions(bench, _args(shapes="yes_no")) == []


def test_earlier_samples_are_read_by_question(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"qid": "q1", "samples": ["Ann", "Bo"]}) + "\n\n")
    assert _earlier_samples(path) == {"q1": ["Ann", "Bo"]}
    assert _earlier_samples(None) is None


def test_accuracy_per_shape_beside_its_baseline(capsys: pytest.CaptureFixture[str]) -> None:
    asked = {"question": "Who leads the team?", "shape": "entity", "extractive": "Ann", "extractive_short": "Ann"}
    rows: list[dict[str, object]] = [{**asked, "qid": "q1", "gold": "Ann"}, {**asked, "qid": "q2", "gold": "Bo"}]
    _print(rows, ["extractive"])
    out = capsys.readouterr().out
    assert "== both halves" in out
    assert "entity     n=  2  extractive  50.0%" in out
