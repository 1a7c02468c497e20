"""``dgrag edge ...``: ingest, delete, stats and summaries of one edge's data directory."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from edge_node.ingest_service import IngestReport, IngestService, ProgressSink
from edge_node.knowledge_base import EdgeKnowledgeBase
from edge_node.readers import read_paths
from shared.config import EdgeConfig, load_config
from shared.errors import DocumentNotFoundError

EXIT_OK, EXIT_PARTIAL = 0, 1


def register(roles: Any) -> None:
    edge = roles.add_parser("edge", help="run or manage an edge node")
    commands = edge.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--data-dir", type=Path, required=True, help="this edge's data directory")
        p.add_argument("--config", type=Path, help="TOML config file (DGRAG__* variables override it)")

    p = commands.add_parser("ingest", help="ingest files, directories or .jsonl bundles")
    common(p)
    p.add_argument("paths", type=Path, nargs="+", help=".txt/.md/.pdf files, directories, .jsonl bundles")
    p.add_argument("--edge-id", help="this edge's id (default: config edge_id)")
    p.add_argument("--bundle-edge", help="from .jsonl bundles, take only rows with this edge_id")
    p.add_argument("--no-summaries", action="store_true", help="skip the partition + summary refresh")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_ingest)

    p = commands.add_parser("delete", help="delete documents by id")
    common(p)
    p.add_argument("doc_ids", nargs="+")
    p.set_defaults(func=cmd_delete)

    p = commands.add_parser("summarize", help="re-partition and re-summarise what changed")
    common(p)
    p.set_defaults(func=cmd_summarize)

    p = commands.add_parser("query", help="answer a question from this edge's knowledge (local path + gate)")
    common(p)
    p.add_argument("question")
    p.add_argument("--mode", choices=["naive", "local"], default="local", help="naive: chunk vectors, one answer")
    p.add_argument("--ablate", default="", help="comma-separated: cd, se, bq, kg (the paper's ablations)")
    p.add_argument("--json", action="store_true", help="print the whole trace and per-phase timings")
    p.set_defaults(func=cmd_query)

    p = commands.add_parser("stats", help="sizes of the knowledge base")
    common(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = commands.add_parser("summaries", help="list subgraph summaries")
    common(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_summaries)


def _config(args: argparse.Namespace) -> EdgeConfig:
    config = load_config(EdgeConfig, args.config)
    edge_id = getattr(args, "edge_id", None)
    return dataclasses.replace(config, edge_id=edge_id) if edge_id else config


class TqdmProgress(ProgressSink):
    """Progress bars on stderr."""

    def __init__(self) -> None:
        self._bars: dict[str, Any] = {}

    def start(self, stage: str, total: int) -> None:
        from tqdm import tqdm

        self._bars[stage] = tqdm(
            total=total, desc=stage, unit="doc" if stage == "documents" else "sg", file=sys.stderr, dynamic_ncols=True
        )

    def advance(self, stage: str, note: str = "") -> None:
        bar = self._bars[stage]
        bar.set_postfix_str(note[-50:], refresh=False)
        bar.update(1)

    def done(self, stage: str) -> None:
        self._bars.pop(stage).close()


def _service(kb: EdgeKnowledgeBase, config: EdgeConfig) -> IngestService:
    from shared.models.factory import build_embedder, build_generator
    from shared.tokenizer import WordPieceTokenizer

    return IngestService(kb, build_generator(config.slm), build_embedder(config.embedder), WordPieceTokenizer(), config)


def cmd_ingest(args: argparse.Namespace) -> int:
    config = _config(args)
    with EdgeKnowledgeBase(args.data_dir) as kb:
        service = _service(kb, config)
        items = read_paths(list(args.paths), config.ingest.max_file_bytes, args.bundle_edge)
        report = service.ingest(items, TqdmProgress(), summarise_after=not args.no_summaries)
    for path, reason in report.failed:
        print(f"dgrag: skipped {path}: {reason}", file=sys.stderr)
    if args.json:
        print(json.dumps(_report_dict(report), indent=2))
    else:
        print(_report_text(report))
    return EXIT_PARTIAL if report.failed else EXIT_OK


def _report_dict(report: IngestReport) -> dict[str, Any]:
    out = dataclasses.asdict(report)
    out["failed"] = [{"path": p, "reason": r} for p, r in report.failed]
    return out


def _report_text(report: IngestReport) -> str:
    lines = [
        f"documents: {len(report.added)} added, {len(report.updated)} updated, {len(report.unchanged)} unchanged,"
        f" {len(report.failed)} failed",
        f"chunks: {report.chunks}; entities: {report.entities_slm} from the SLM"
        f" + {report.entities_heuristic} model-free;"
        f" relations: {report.relations_slm} from the SLM + {report.relations_cooccurrence} co-occurrence",
    ]
    if report.summary is not None:
        s = report.summary
        lines.append(
            f"subgraphs: {s.communities}; summaries written {len(s.upserted)}, deleted {len(s.deleted)},"
            f" unchanged {s.unchanged}"
        )
    return "\n".join(lines)


def cmd_delete(args: argparse.Namespace) -> int:
    config = _config(args)
    with EdgeKnowledgeBase(args.data_dir) as kb:
        known = set(kb.store.document_ids())
        missing = [d for d in args.doc_ids if d not in known]
        if missing:  # say so before spending seconds loading models
            raise DocumentNotFoundError(
                f"no document(s) {', '.join(map(repr, missing))} in this edge; `dgrag edge stats --json` lists ids"
            )
        result = _service(kb, config).delete(args.doc_ids, TqdmProgress())
    if result is not None:
        print(
            f"deleted {len(args.doc_ids)} document(s); summaries written {len(result.upserted)},"
            f" deleted {len(result.deleted)}"
        )
    return EXIT_OK


def cmd_summarize(args: argparse.Namespace) -> int:
    config = _config(args)
    with EdgeKnowledgeBase(args.data_dir) as kb:
        result = _service(kb, config).refresh_summaries(TqdmProgress())
    print(
        f"subgraphs: {result.communities}; summaries written {len(result.upserted)}, deleted {len(result.deleted)},"
        f" unchanged {result.unchanged}"
    )
    return EXIT_OK


def cmd_query(args: argparse.Namespace) -> int:
    from edge_node.query_service import QueryService
    from shared.models.factory import build_embedder, build_generator
    from shared.tokenizer import WordPieceTokenizer

    config = _config(args)
    ablations = frozenset(a.strip() for a in args.ablate.split(",") if a.strip())
    with EdgeKnowledgeBase(args.data_dir) as kb:
        service = QueryService(
            kb, build_generator(config.slm), build_embedder(config.embedder), WordPieceTokenizer(), config
        )
        result = service.query(args.question, mode=args.mode, ablations=ablations)
    if args.json:
        print(json.dumps(result.trace(), indent=2))
        return EXIT_OK
    print(result.answer)
    print(f"\ndecision: {result.decision}" + ("" if result.verified else " (unverified)"))
    if result.note:
        print(f"note: {result.note}")
    if result.gate is not None:
        print(f"gate score: {result.gate.score:.3f} (threshold {result.gate.threshold:.3f})")
    print("sources: " + ", ".join(f"{s['doc_id']}#{s['chunk_id']}" for s in result.retrieval.sources))
    return EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    with EdgeKnowledgeBase(args.data_dir) as kb:
        counts = dataclasses.asdict(kb.store.counts())
        stats: dict[str, Any] = {
            "edge_id": kb.store.get_meta("edge_id"),
            **counts,
            "bytes_on_disk": kb.bytes_on_disk(),
            "graph_dirty": kb.store.graph_dirty(),
            "origins": kb.store.mention_stats(),
            "document_ids": kb.store.document_ids() if args.json else None,
        }
    if args.json:
        print(json.dumps(stats, indent=2))
    else:
        for key, value in stats.items():
            if key not in ("origins", "document_ids"):
                print(f"{key}: {value}")
    return EXIT_OK


def cmd_summaries(args: argparse.Namespace) -> int:
    with EdgeKnowledgeBase(args.data_dir) as kb:
        records = kb.store.subgraphs()
    if args.json:
        print(json.dumps([dataclasses.asdict(r) for r in records], indent=2))
    else:
        for r in records:
            print(
                f"{r.id} v{r.version} ({r.n_entities} entities, {r.n_relations} relations)"
                f" [{', '.join(r.top_entities)}]\n  {r.summary}\n"
            )
    return EXIT_OK
