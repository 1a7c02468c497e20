"""The plain NaiveRAG beside every run: every document in one index, the 4 nearest chunks, the model's first line
as the short answer, no gate and no confidence."""

from __future__ import annotations

import json
from pathlib import Path

from simulation.fakes import HashEmbedder, ScriptedGenerator
from simulation.plain_rag import CHUNK_WORDS, STEP_WORDS, PlainIndex, plain_answer, word_chunks


def test_chunks_are_windows_that_reach_the_end() -> None:
    words = [f"w{i}" for i in range(450)]
    chunks = word_chunks(" ".join(words))
    assert [len(c.split()) for c in chunks] == [CHUNK_WORDS, CHUNK_WORDS, 450 - 2 * STEP_WORDS]
    assert chunks[-1].split()[-1] == "w449"


def test_every_documents_chunks_are_searched_and_the_first_line_is_the_short_answer(tmp_path: Path) -> None:
    docs = [
        {"doc_id": "xxd", "edge_id": "a", "title": "xxd", "text": "By default xxd writes 16 octets per line."},
        {"doc_id": "tmux", "edge_id": "b", "title": "tmux", "text": "The tmux README is under the ISC licence."},
    ]
    (tmp_path / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    index = PlainIndex(tmp_path, HashEmbedder(64))
    model = ScriptedGenerator(lambda r: "ISC\nbecause the README says so")
    trace = plain_answer("Which licence covers the tmux README?", index, model)
    assert trace.reading["short"] == "ISC" and trace.gate is None and trace.confidence == 0.0
    assert {s.doc_id for s in trace.sources} == {"xxd", "tmux"}, "both edges' documents are in the one index"
    assert "16 octets" in model.requests[0].prompt and model.requests[0].temperature == 0.0
