"""Rebuilding the passages an answer was read from (simulation.retrieved), from answer rows and a real cache file."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

import pytest

from simulation.retrieved import cached_chunks, load_rows, retrieved_passages


def _cache(root: Path, name: str, chunks: list[tuple[int, str, str]]) -> None:
    (root / name).mkdir(parents=True)
    with sqlite3.connect(root / name / "edge.sqlite3") as db:
        db.execute("CREATE TABLE chunks (id INTEGER PRIMARY KEY, doc_id TEXT, text TEXT)")
        db.executemany("INSERT INTO chunks VALUES (?, ?, ?)", chunks)


def test_a_cloud_answer_s_chunks_come_back_in_context_order_with_their_edges(tmp_path: Path) -> None:
    _cache(tmp_path, "bench-tech-0a1b", [(7, "d1", "Apple makes the iPhone."), (8, "d2", "Other text.")])
    _cache(tmp_path, "bench-biz-2c3d", [(7, "d9", "Amazon sells the Kindle.")])
    chunks = cached_chunks(tmp_path, "bench")
    row = {
        "question": "Which company makes the iPhone?",
        "asked_at": "biz",
        "sources": [
            {"edge_id": "biz", "doc_id": "d9", "chunk_id": 7},
            {"edge_id": "tech", "doc_id": "d1", "chunk_id": 7},
        ],
    }
    passages = retrieved_passages(row, chunks)
    assert passages is not None
    assert [(p.number, p.source, p.text) for p in passages] == [
        (1, "biz:d9", "Amazon sells the Kindle."),
        (2, "tech:d1", "Apple makes the iPhone."),
    ]
    local = {"question": "q?", "asked_at": "tech", "sources": [{"doc_id": "d2", "chunk_id": 8}]}
    assert [p.source for p in retrieved_passages(local, chunks) or []] == ["d2"]
    missing = {"question": "q?", "asked_at": "tech", "sources": [{"doc_id": "d1", "chunk_id": 8}]}
    assert retrieved_passages(missing, chunks) is None  # the chunk id belongs to another document


def test_no_cache_of_the_bundle_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="dgrag sim run"):
        cached_chunks(tmp_path, "bench")


def test_rows_are_read_gzipped_or_plain_and_filtered_by_mode(tmp_path: Path) -> None:
    rows = [{"qid": "a", "mode": "dgrag"}, {"qid": "b", "mode": "oracle"}]
    text = "".join(json.dumps(r) + "\n" for r in rows)
    (tmp_path / "a.jsonl").write_text(text)
    with gzip.open(tmp_path / "b.jsonl.gz", "wt") as f:
        f.write(text)
    got = load_rows([tmp_path / "a.jsonl", tmp_path / "b.jsonl.gz"], ["dgrag"])
    assert [r["qid"] for r in got] == ["a", "a"]
