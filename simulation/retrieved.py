"""The passages an answer was read from, rebuilt from a simulation's answer rows and its index cache.

Each answer row lists the chunks its reader saw (``sources``: edge, document and chunk id, in context order); the
simulation's cache holds every edge's chunks. Rebuilding them lets a reader be tried on the contexts retrieval
really gave (distracting articles included) without running the network or a model again
(benchmarks.reader_oracle ``--context``). Chunks are excerpted to the question's terms as the edge's retrieval
excerpts them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from shared.config.pipeline import RetrievalConfig
from shared.core.candidates import question_terms
from shared.core.text import excerpt
from shared.reading.span_reader import Passage
from simulation.answer_rows import read_rows

ChunkKey = tuple[str, str, int]
"""(edge id, document id, chunk id)."""


def cached_chunks(cache_dir: Path, bundle: str) -> dict[ChunkKey, str]:
    """Every chunk of every cached index of ``bundle`` under ``cache_dir`` (``<bundle>-<edge>-<hash>/edge.sqlite3``),
    by edge, document and chunk id. Indexes built with other settings may share a chunk id; the document id keeps
    them apart, and where two caches disagree on the same key the newer one is kept."""
    out: dict[ChunkKey, str] = {}
    stores = sorted(cache_dir.glob(f"{bundle}-*/edge.sqlite3"), key=lambda p: p.stat().st_mtime)
    if not stores:
        raise FileNotFoundError(f"no cached index of {bundle!r} under {cache_dir}: run `dgrag sim run` on it first")
    for store in stores:
        edge = store.parent.name[len(bundle) + 1 :].rsplit("-", 1)[0]
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
            for doc_id, chunk_id, text in db.execute("SELECT doc_id, id, text FROM chunks"):
                out[(edge, doc_id, int(chunk_id))] = text
    return out


def retrieved_passages(row: Mapping[str, Any], chunks: Mapping[ChunkKey, str]) -> list[Passage] | None:
    """The numbered passages of ``row``'s answer, or None when a chunk it cites is not in ``chunks``."""
    _, keywords = question_terms(str(row["question"]))
    limit = RetrievalConfig().excerpt_chars
    out: list[Passage] = []
    for source in row.get("sources") or []:
        edge = str(source.get("edge_id") or row["asked_at"])
        key = (edge, str(source["doc_id"]), int(source["chunk_id"]))
        if key not in chunks:
            return None
        label = f"{edge}:{key[1]}" if source.get("edge_id") else key[1]
        out.append(Passage(len(out) + 1, excerpt(chunks[key], keywords, limit), label))
    return out


def load_rows(paths: Iterable[Path], modes: Iterable[str]) -> list[dict[str, Any]]:
    """The answer rows of ``paths`` (``.jsonl`` or ``.jsonl.gz``, simulation.answer_rows) asked in one of ``modes``."""
    wanted = set(modes)
    return [r for path in paths for r in read_rows(path) if r.get("mode") in wanted]
