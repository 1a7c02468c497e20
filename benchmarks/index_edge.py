"""Benchmark: build one edge's knowledge base from a bundle with the configured (default: embedded) models.

    python -m benchmarks.index_edge --bench simulation/bundles/multihop4 --edge business

Prints time, throughput, SLM tokens, extraction yield, storage and peak RSS of this process, as a
table and (``--json``) as JSON. The data directory is fresh unless ``--data-dir`` is given.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from edge_node.api import Edge, EdgeModels, TqdmProgress
from shared.config import EdgeConfig, load_config
from shared.core.model_api import MeteredGenerator
from shared.models.cpu import resolve_threads
from shared.models.factory import build_embedder, build_generator
from shared.models.tokenizer import WordPieceTokenizer
from simulation.machine import machine_facts


def run(bench: Path, edge: str, data_dir: Path, config: EdgeConfig) -> dict[str, Any]:
    started = time.perf_counter()
    generator = MeteredGenerator(build_generator(config.slm))
    embedder = build_embedder(config.embedder)
    load_s = time.perf_counter() - started
    with Edge.open(data_dir, config, models=EdgeModels(generator, embedder, WordPieceTokenizer())) as built:
        t0 = time.perf_counter()
        report = built.ingest([bench / "docs.jsonl"], TqdmProgress(), bundle_edge=edge)
        index_s = time.perf_counter() - t0
        stats = built.stats(with_document_ids=False)
    origins = stats.origins
    usage = generator.usage
    chunks = max(report.chunks, 1)
    entity_mentions = origins.get("entity_mentions.slm", 0) + origins.get("entity_mentions.heuristic", 0)
    relation_mentions = origins.get("relation_mentions.slm", 0) + origins.get("relation_mentions.cooccurrence", 0)
    summary_s = report.summary.seconds if report.summary else 0.0
    return {
        "bench": str(bench),
        "edge": edge,
        "slm": generator.name,
        "embedder": embedder.name,
        "documents": len(report.added) + len(report.updated),
        "failed": len(report.failed),
        "chunks": report.chunks,
        "model_load_s": round(load_s, 2),
        "index_s": round(index_s, 1),
        "extraction_s": round(report.extraction_seconds, 1),
        "summaries_s": round(summary_s, 1),
        "chunks_per_s": round(report.chunks / index_s, 3) if index_s else 0.0,
        "slm_calls": usage.calls,
        "slm_prompt_tokens": usage.prompt_tokens,
        "slm_completion_tokens": usage.completion_tokens,
        "entities_per_chunk": round(entity_mentions / chunks, 2),
        "entities_per_chunk_slm_typed": round(origins.get("entity_mentions.slm", 0) / chunks, 2),
        "relations_per_chunk": round(relation_mentions / chunks, 2),
        "relations_per_chunk_slm": round(origins.get("relation_mentions.slm", 0) / chunks, 2),
        "zero_entity_chunk_share": round(report.chunks_without_entities / chunks, 3),
        "unique_entities": stats.entities,
        "unique_relations": stats.relations,
        "subgraphs": stats.subgraphs,
        "bytes_on_disk": sum(p.stat().st_size for p in data_dir.rglob("*") if p.is_file()),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "config": dataclasses.asdict(config),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, default=Path("simulation/bundles/multihop4"))
    parser.add_argument("--edge", default="business", help="edge_id whose documents to index")
    parser.add_argument("--data-dir", type=Path, help="where to build (default: a fresh temporary directory)")
    parser.add_argument("--config", type=Path, help="TOML config (e.g. a stronger SLM)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    config = dataclasses.replace(load_config(EdgeConfig, args.config), edge_id=args.edge)
    with tempfile.TemporaryDirectory(prefix="dgrag-bench-") as tmp:
        result = run(args.bench, args.edge, args.data_dir or Path(tmp) / "edge", config)
    result["machine"] = machine_facts({"slm_threads": str(resolve_threads(config.slm.n_threads))}).as_dict()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            if key not in ("config", "machine"):
                print(f"{key:32s} {value}")
        print(machine_facts({"slm_threads": str(resolve_threads(config.slm.n_threads))}).markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
