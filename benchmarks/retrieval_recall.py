"""Does an edge's retrieval find the passage that answers? Model-free: the chunks each ranking puts in the context.

    python -m benchmarks.retrieval_recall --bench simulation/bundles/debgnu3 [--bench ...] [--rows F.jsonl]

For every question and each of its home edges, over that edge's cached index (built by ``dgrag sim run`` with the
shipped settings, .dgrag/sim-cache), it ranks the edge's chunks three ways: by vector similarity alone, by BM25
alone (shared.core.lexical) and by the product's hybrid retrieval (edge_node.query.retrieval: their reciprocal rank
fusion), and takes the top ``retrieval.top_chunks`` whole chunks. It prints, per bundle and ranking, the share of
asks whose chunks include a gold evidence document ("doc") and the share whose chunks hold the gold answer's words
("answer": yes/no golds never can). Nothing runs a language model; the embedder runs in this process.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from shared.config import EdgeConfig
from shared.core.model_api import Embedder
from shared.core.text import occurs_in
from shared.models.factory import build_embedder
from simulation.edge_parts import EdgeKnowledgeBase, Retriever
from simulation.index_cache import index_location
from simulation.indexing import docs_by_edge

RANKINGS = ("vector", "bm25", "hybrid")


def measure(bench: Path, config: EdgeConfig, cache: Path) -> list[dict[str, object]]:
    """One row per (question, home edge, ranking): whether the top chunks hold a gold document and the answer."""
    questions = [json.loads(line) for line in (bench / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    embedder = build_embedder(config.embedder)
    rows: list[dict[str, object]] = []
    for edge, docs in docs_by_edge(bench / "docs.jsonl").items():
        _, where = index_location(cache, bench, edge, docs, config)
        if not where.is_dir():
            raise SystemExit(f"no cached index for {bench.name}/{edge} at {where}: run `dgrag sim run --bench {bench}`")
        asked = [q for q in questions if edge in q["home_edges"] and q.get("evidence_doc_ids")]
        with EdgeKnowledgeBase(where, read_only=True) as kb:
            rows += _edge_rows(bench.name, edge, kb, embedder, config, asked)
    return rows


def _edge_rows(
    bench: str, edge: str, kb: EdgeKnowledgeBase, embedder: Embedder, config: EdgeConfig, asked: list[dict[str, Any]]
) -> list[dict[str, object]]:
    k = config.retrieval.top_chunks
    texts = dict(kb.store.chunk_texts())
    doc_of = {cid: doc for cid, doc, _ in kb.store.chunk_rows()}
    retriever = Retriever(kb, embedder, config.retrieval)
    lexical = retriever.lexical()  # the index hybrid retrieval ranks with, built once
    rankings: dict[str, Callable[[str], list[int]]] = {
        "vector": lambda q: [h.id for h in kb.vectors.chunks.search(embedder.embed([q])[0], k)],
        "bm25": lambda q: [key for key, _ in lexical.ranked(q, k)],
        "hybrid": lambda q: [c.id for c in retriever.retrieve(q).chunks],
    }
    rows: list[dict[str, object]] = []
    for q in asked:
        for name, rank in rankings.items():
            top = rank(q["question"])
            doc = any(doc_of[c] in q["evidence_doc_ids"] for c in top)
            answer = any(occurs_in(str(q["answer"]), texts[c]) for c in top)
            rows.append({"bench": bench, "qid": q["qid"], "edge": edge, "ranking": name, "doc": doc, "answer": answer})
    return rows


def table(rows: Sequence[dict[str, object]]) -> str:
    lines = ["| bundle | asks | " + " | ".join(f"{r} doc / answer" for r in RANKINGS) + " |"]
    lines.append("|---|---|" + "---|" * len(RANKINGS))
    for bench in dict.fromkeys(str(r["bench"]) for r in rows):
        cells = []
        for name in RANKINGS:
            chosen = [r for r in rows if r["bench"] == bench and r["ranking"] == name]
            doc, answer = (sum(1 for r in chosen if r[key]) / len(chosen) for key in ("doc", "answer"))
            cells.append(f"{doc:.1%} / {answer:.1%}")
        asks = sum(1 for r in rows if r["bench"] == bench and r["ranking"] == RANKINGS[0])
        lines.append(f"| {bench} | {asks} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, action="append", required=True, help="a bundle directory (repeat)")
    parser.add_argument("--cache-dir", type=Path, default=Path(".dgrag/sim-cache"), help="where indexes are cached")
    parser.add_argument("--rows", type=Path, help="also write every row here (JSON lines)")
    args = parser.parse_args(argv)
    rows = [row for bench in args.bench for row in measure(bench, EdgeConfig(), args.cache_dir)]
    if args.rows:
        args.rows.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(table(rows), file=sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
