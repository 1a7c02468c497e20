"""The edge-model benchmark reads every question with each model through the product's reader and scores it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import edge_model
from simulation.fakes import HashEmbedder, ScriptedGenerator


def _bundle(tmp: Path) -> Path:
    (tmp / "docs.jsonl").write_text(
        json.dumps({"doc_id": "d1", "edge_id": "e", "title": "t", "text": "By default xxd writes 16 octets a line."})
        + "\n"
    )
    questions = [
        {"qid": "q1", "question": "How many octets does xxd write a line?", "answer": "16"},
        {"qid": "q2", "question": "Does xxd write 16 octets a line?", "answer": "Yes"},
    ]
    (tmp / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return tmp


def test_each_model_is_scored_on_the_same_passages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(edge_model, "build_embedder", lambda config: HashEmbedder(64))
    answers = {"smollm2": "octets", "qwen2.5-coder-0.5b-instruct": "16"}
    monkeypatch.setattr(
        edge_model,
        "build_generator",
        lambda config: ScriptedGenerator(
            lambda r: "Yes" if "Question: Does" in r.prompt else answers[config.packaged or "smollm2"]
        ),
    )
    rows = tmp_path / "rows.jsonl"
    edge_model.measure(_bundle(tmp_path), ["smollm2", "qwen2.5-coder-0.5b-instruct"], rows)
    written = [json.loads(line) for line in rows.read_text().splitlines()]
    assert len(written) == 4 and all(r["seconds"] >= 0 for r in written)
    table = edge_model.table(written)
    assert [(r["model"], r["accuracy"], r["backed"]) for r in table] == [
        ("smollm2", 0.5, 1.0),
        ("qwen2.5-coder-0.5b-instruct", 1.0, 1.0),
    ]
    assert "| " + tmp_path.name + " | smollm2 | 2 | 50.0% | 100.0% | 50.0% |" in edge_model.markdown(table)
