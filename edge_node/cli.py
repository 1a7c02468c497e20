"""``dgrag edge ...``: build, query and serve one edge (its data directory), or ask a running edge."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from edge_node.ingest.readers import read_paths
from edge_node.ingest.service import IngestReport, IngestService, ProgressSink
from edge_node.runtime import EdgeAnswer, EdgeRuntime
from edge_node.store.knowledge_base import EdgeKnowledgeBase
from edge_node.transport.api_token import API_TOKEN_FILE_ENV
from edge_node.transport.cloud_client import CloudClient
from edge_node.transport.server import edge_token
from shared.config import EdgeConfig, load_config
from shared.constants import DEFAULT_EDGE_ID
from shared.errors import ConfigError, DocumentNotFoundError
from shared.exit_codes import EXIT_OK, EXIT_PARTIAL
from shared.port_file import write_port_file


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
    p.add_argument(
        "--mode",
        choices=["naive", "local", "full"],
        default="local",
        help="naive: chunk vectors, one answer; local: DGRAG's local path; full: escalate to the configured cloud",
    )
    p.add_argument("--ablate", default="", help="comma-separated: cd, se, bq, kg (the paper's ablations)")
    p.add_argument("--json", action="store_true", help="print the whole trace and per-phase timings")
    p.set_defaults(func=cmd_query)

    p = commands.add_parser("serve", help="serve the edge's gRPC API and keep a session to the cloud")
    common(p)
    p.add_argument("--edge-id", help="this edge's id (default: config edge_id)")
    p.add_argument("--port-file", type=Path, help="write the bound port here once listening")
    p.set_defaults(func=cmd_serve)

    p = commands.add_parser("ask", help="ask a running edge (dgrag edge serve) a question over its gRPC API")
    p.add_argument("--server", default="127.0.0.1:50061", help="host:port of the edge's API")
    p.add_argument(
        "--token-file",
        type=Path,
        default=os.environ.get(API_TOKEN_FILE_ENV) or None,
        help=f"the edge's API token: api.token in its data directory (default: ${API_TOKEN_FILE_ENV})",
    )
    p.add_argument("--tls-ca", default="", help="PEM of the CA of the edge API's certificate (server.tls_cert)")
    p.add_argument("question")
    p.add_argument("--mode", choices=["naive", "local", "full"], default="full")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for the answer")
    p.add_argument("--json", action="store_true", help="print the whole trace")
    p.set_defaults(func=cmd_ask)

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


def _with_stored_edge_id(kb: EdgeKnowledgeBase, config: EdgeConfig) -> EdgeConfig:
    """An edge id left at its default takes the one the data directory was built with."""
    stored = kb.store.get_meta("edge_id")
    if stored and config.edge_id == DEFAULT_EDGE_ID:
        return dataclasses.replace(config, edge_id=stored)
    return config


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
        print(f"dgrag: skipped {one_line(path)}: {one_line(reason)}", file=sys.stderr)
    if args.json:
        print(json.dumps(_report_dict(report), indent=2))
    else:
        print(_report_text(report))
    return EXIT_PARTIAL if report.failed else EXIT_OK


def one_line(text: str) -> str:
    """``text`` with control characters escaped, so a file name holding a newline stays on its line."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


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


def _runtime(kb: EdgeKnowledgeBase, config: EdgeConfig) -> EdgeRuntime:
    from shared.models.factory import build_embedder, build_generator
    from shared.tokenizer import WordPieceTokenizer

    return EdgeRuntime(kb, build_generator(config.slm), build_embedder(config.embedder), WordPieceTokenizer(), config)


def cmd_query(args: argparse.Namespace) -> int:
    config = _config(args)
    ablations = frozenset(a.strip() for a in args.ablate.split(",") if a.strip())
    if args.mode == "full" and not config.cloud.address:
        raise ConfigError("--mode full needs a cloud: set cloud.address (and this edge's token) in the config")

    async def ask(runtime: EdgeRuntime) -> EdgeAnswer:
        client = None
        if args.mode == "full":
            token = edge_token(config.cloud)
            client = CloudClient(config.edge_id, config.cloud, token, config.server.max_message_bytes)
        try:
            return await runtime.query(args.question, args.mode, ablations, client)
        finally:
            if client is not None:
                await client.aclose()
            await runtime.aclose()

    with EdgeKnowledgeBase(args.data_dir) as kb:
        config = _with_stored_edge_id(kb, config)
        result = asyncio.run(ask(_runtime(kb, config)))
    if args.json:
        print(json.dumps(result.trace(), indent=2))
        return EXIT_OK
    _print_answer(result.answer, result.decision, result.verified, result.note, result.sources)
    gate = result.local.gate
    if gate is not None:
        print(f"gate score: {gate.score:.3f} (threshold {gate.threshold:.3f})")
    return EXIT_OK


def _print_answer(answer: str, decision: str, verified: bool, note: str, sources: list[dict[str, Any]]) -> None:
    print(answer)
    print(f"\ndecision: {decision}" + ("" if verified else " (unverified)"))
    if note:
        print(f"note: {note}")
    print(
        "sources: "
        + ", ".join(
            f"{s.get('edge_id', '') + ':' if s.get('edge_id') else ''}{s['doc_id']}#{s['chunk_id']}" for s in sources
        )
    )


def cmd_serve(args: argparse.Namespace) -> int:
    from edge_node.transport.server import serve_edge

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = _config(args)
    if config.cloud.address:
        edge_token(config.cloud)  # fail before loading models when the token is missing
    with EdgeKnowledgeBase(args.data_dir) as kb:
        config = _with_stored_edge_id(kb, config)
        runtime = _runtime(kb, config)
        asyncio.run(serve_edge(config, runtime, on_ready=lambda port: write_port_file(args.port_file, port)))
    return EXIT_OK


def cmd_ask(args: argparse.Namespace) -> int:
    from edge_node.transport.api_client import ask_edge
    from edge_node.transport.api_token import read_api_token

    if args.token_file is None:
        raise ConfigError(f"pass --token-file (api.token in the edge's data directory) or set ${API_TOKEN_FILE_ENV}")
    token = read_api_token(args.token_file)
    reply = asyncio.run(ask_edge(args.server, token, args.question, args.mode, args.timeout, args.tls_ca))
    if args.json:
        print(json.dumps(json.loads(reply.trace_json), indent=2))
        return EXIT_OK
    sources = [{"edge_id": s.edge_id, "doc_id": s.doc_id, "chunk_id": s.chunk_id} for s in reply.sources]
    _print_answer(reply.answer, reply.decision, reply.verified, reply.note, sources)
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
