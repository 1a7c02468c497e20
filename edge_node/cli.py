"""``dgrag edge ...``: build, query and serve one edge (its data directory), or ask a running edge."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from edge_node.api import Edge, EdgeAnswer, IngestReport, TqdmProgress
from edge_node.transport.api_client import ReplySource
from edge_node.transport.api_token import API_TOKEN_FILE_ENV
from edge_node.transport.server import edge_token
from shared.cli.console import DraftPrinter, one_line, shown_text
from shared.cli.exit_codes import EXIT_OK, EXIT_PARTIAL, EXIT_USAGE
from shared.cli.port_file import write_port_file
from shared.config import EdgeConfig, load_config
from shared.core.errors import ConfigError
from shared.core.shown import AnsweredBy, ShownAnswer
from shared.core.trace import Source
from shared.core.vocabulary import EDGE_MODES
from shared.transport.tracing import traced_process


def register(roles: Any) -> None:
    edge = roles.add_parser("edge", help="run or manage an edge node")
    commands = edge.add_subparsers(dest="command", required=True)
    _register_building(commands)
    _register_answering(commands)
    _register_reading(commands)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", type=Path, required=True, help="this edge's data directory")
    p.add_argument("--config", type=Path, help="TOML config file (DGRAG__* variables override it)")


def _register_building(commands: Any) -> None:
    common = _common
    p = commands.add_parser("ingest", help="ingest files, directories or .jsonl bundles")
    common(p)
    p.add_argument("paths", type=Path, nargs="+", help=".txt/.md/.pdf files, directories, .jsonl bundles")
    p.add_argument("--edge-id", help="this edge's id (default: config edge_id)")
    p.add_argument("--bundle-edge", help="from .jsonl bundles, take only rows with this edge_id")
    p.add_argument(
        "--root",
        type=Path,
        help="document ids are paths relative to this folder (default: the folder each path lies in)",
    )
    p.add_argument("--no-summaries", action="store_true", help="skip the partition + summary refresh")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_ingest)

    p = commands.add_parser(
        "migrate-ids", help="give documents stored under absolute paths (earlier versions) ids relative to ROOT"
    )
    common(p)
    p.add_argument("root", type=Path, help="ids become paths relative to this folder (as `ingest --root` gives)")
    p.set_defaults(func=cmd_migrate_ids)

    p = commands.add_parser("delete", help="delete documents by id")
    common(p)
    p.add_argument("doc_ids", nargs="+")
    p.set_defaults(func=cmd_delete)

    p = commands.add_parser("summarize", help="re-partition and re-summarise what changed")
    common(p)
    p.set_defaults(func=cmd_summarize)


def _register_answering(commands: Any) -> None:
    common = _common
    p = commands.add_parser("query", help="answer a question from this edge's knowledge (local path + gate)")
    common(p)
    p.add_argument("question")
    p.add_argument(
        "--mode",
        choices=EDGE_MODES,
        default="local",
        help="local: this edge alone; full: escalate to the configured cloud when the gate does not trust it",
    )
    p.add_argument("--json", action="store_true", help="print the whole trace and per-phase timings")
    p.set_defaults(func=cmd_query)

    p = commands.add_parser(
        "serve",
        help="serve the edge's gRPC API and the owner's page, and keep a session to the cloud",
        description=(
            "Serve this edge: its gRPC API for local apps (127.0.0.1:50061, [server] port), the owner's page in a "
            "browser on this device at http://127.0.0.1:8765/ ([server] page_port; -1 turns it off), and a session "
            "to the cloud when one is configured. Log in to the page with the token in api.token in the data "
            "directory (the same token `dgrag edge ask` sends); the page asks, lists and adds documents, and shows "
            "what left this device. The start lines in the log name both addresses."
        ),
    )
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
    p.add_argument("--insecure", action="store_true", help="allow plaintext to an edge on another machine")
    p.add_argument("question")
    p.add_argument("--mode", choices=EDGE_MODES, default="full")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for the answer")
    p.add_argument("--json", action="store_true", help="print the whole trace")
    p.set_defaults(func=cmd_ask)


def _register_reading(commands: Any) -> None:
    common = _common
    p = commands.add_parser("stats", help="sizes of the knowledge base")
    common(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = commands.add_parser("summaries", help="list subgraph summaries")
    common(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_summaries)

    p = commands.add_parser("source", help="the document of this edge an id cited outside it stands for")
    common(p)
    p.add_argument("cited", help="a source id as an answer cites it (e.g. doc-3f2a9c1e0b7d4e55)")
    p.set_defaults(func=cmd_source)

    p = commands.add_parser("audit", help="what left this edge: the latest messages of its audit log, and totals")
    common(p)
    p.add_argument("--last", type=int, default=20, help="how many of the latest messages to list (0 = all)")
    p.add_argument("--json", action="store_true", help="one JSON object per message")
    p.set_defaults(func=cmd_audit)


def _config(args: argparse.Namespace) -> EdgeConfig:
    config = load_config(EdgeConfig, args.config)
    edge_id = getattr(args, "edge_id", None)
    return dataclasses.replace(config, edge_id=edge_id) if edge_id else config


def cmd_ingest(args: argparse.Namespace) -> int:
    with Edge.open(args.data_dir, _config(args)) as edge:
        report = edge.ingest(
            args.paths, TqdmProgress(), summarise=not args.no_summaries, bundle_edge=args.bundle_edge, root=args.root
        )
    for path, reason in report.failed:
        print(f"dgrag: skipped {one_line(path)}: {one_line(reason)}", file=sys.stderr)
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
        f" {len(report.failed)} failed" + _unread(report.unread),
        f"chunks: {report.chunks}; entities: {report.entities_slm} from the SLM"
        f" + {report.entities_heuristic} model-free;"
        f" relations: {report.relations_cooccurrence} between entities sharing a sentence",
    ]
    if report.renamed:
        lines.append(f"renamed {len(report.renamed)} document(s) from absolute paths to ids relative to their folder")
    if report.summary is not None:
        s = report.summary
        lines.append(
            f"subgraphs: {s.communities}; summaries written {len(s.upserted)}, deleted {len(s.deleted)},"
            f" unchanged {s.unchanged}"
        )
    return "\n".join(lines)


def _unread(paths: list[str], shown: int = 5) -> str:
    """The files no reader took, counted and named (the first ``shown`` of them)."""
    if not paths:
        return ""
    names = ", ".join(one_line(p) for p in paths[:shown])
    names += f" and {len(paths) - shown} more" if len(paths) > shown else ""
    return f", {len(paths)} not read (no reader for their type: {names})"


def cmd_migrate_ids(args: argparse.Namespace) -> int:
    with Edge.open(args.data_dir, _config(args), existing=True) as edge:
        result = edge.migrate_ids(args.root)
    for old, new in result.clashes:
        print(f"dgrag: kept {one_line(old)}: the id {one_line(new)} is taken; delete one of them", file=sys.stderr)
    print(
        f"renamed {len(result.renamed)} document(s); {len(result.clashes)} clash(es);"
        f" {result.outside} absolute id(s) outside {args.root} left as they were"
    )
    return EXIT_PARTIAL if result.clashes else EXIT_OK


def cmd_delete(args: argparse.Namespace) -> int:
    with Edge.open(args.data_dir, _config(args), existing=True) as edge:  # unknown ids fail before the models load
        result = edge.delete(args.doc_ids, TqdmProgress())
    if result is not None:
        print(
            f"deleted {len(args.doc_ids)} document(s); summaries written {len(result.upserted)},"
            f" deleted {len(result.deleted)}"
        )
    return EXIT_OK


def cmd_summarize(args: argparse.Namespace) -> int:
    with Edge.open(args.data_dir, _config(args), existing=True) as edge:
        result = edge.summarise(TqdmProgress())
    print(
        f"subgraphs: {result.communities}; summaries written {len(result.upserted)}, deleted {len(result.deleted)},"
        f" unchanged {result.unchanged}"
    )
    return EXIT_OK


def cmd_query(args: argparse.Namespace) -> int:
    config = _config(args)
    if args.mode == "full" and not config.cloud.address:
        raise ConfigError("--mode full needs a cloud: set cloud.address (and this edge's token) in the config")

    with Edge.open(args.data_dir, config, existing=True) as edge:
        result: EdgeAnswer = edge.query(args.question, args.mode)
    if args.json:
        print(result.trace().to_json(indent=2))
        return EXIT_OK
    _print_answer(result.shown, result.decision, result.verified, result.note, result.sources)
    gate = result.local.gate
    if gate is not None:
        print(f"gate score: {gate.score:.3f} (threshold {gate.threshold:.3f})")
    return EXIT_OK


ANSWERED_BY = {
    AnsweredBy.EDGE: "this edge's model",
    AnsweredBy.CLOUD: "the cloud's model",
    AnsweredBy.EXTRACT: "no model: an extract of the documents",
}


def _print_answer(
    shown: ShownAnswer, decision: str, verified: bool, note: str, sources: Sequence[Source | ReplySource]
) -> None:
    print(shown_text(shown.text))
    if shown.short:
        print(f"\nshort answer: {shown_text(shown.short)}")
    print(f"confidence: {shown.sureness} ({shown.probability:.0%})")
    print(f"answered by: {ANSWERED_BY[shown.answered_by]}")
    print(f"decision: {decision}" + ("" if verified else " (unverified)"))
    if note:
        print(f"note: {shown_text(note)}")
    cited = ", ".join(f"{s.edge_id + ':' if s.edge_id else ''}{s.doc_id}#{s.chunk_id}" for s in sources)
    print("sources: " + one_line(cited))


def cmd_serve(args: argparse.Namespace) -> int:
    from edge_node.api import serve_edge

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = _config(args)
    if config.cloud.address:
        edge_token(config.cloud)  # fail before loading models when the token is missing
    with Edge.open(args.data_dir, config) as edge, traced_process(config.tracing, "dgrag-edge", edge=edge.edge_id):
        ready = lambda port: write_port_file(args.port_file, port)  # noqa: E731
        asyncio.run(serve_edge(edge.config, edge.runtime, on_ready=ready))
    return EXIT_OK


def cmd_ask(args: argparse.Namespace) -> int:
    from edge_node.transport.api_client import ask_edge
    from edge_node.transport.api_token import read_api_token
    from shared.transport.grpc_transport import ClientTls

    if args.token_file is None:
        raise ConfigError(f"pass --token-file (api.token in the edge's data directory) or set ${API_TOKEN_FILE_ENV}")
    token = read_api_token(args.token_file)
    tls = ClientTls(ca=args.tls_ca, insecure=args.insecure)
    draft = None if args.json else DraftPrinter("the cloud's model is writing: ")
    try:
        reply = asyncio.run(ask_edge(args.server, token, args.question, args.mode, args.timeout, tls, draft))
    finally:
        if draft is not None:
            draft.close()
    if args.json:
        print(json.dumps(json.loads(reply.trace_json), indent=2))
        return EXIT_OK
    _print_answer(reply.shown, reply.decision, reply.verified, reply.note, reply.sources)
    return EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    with Edge.open(args.data_dir, read_only=True) as edge:
        stats = dataclasses.asdict(edge.stats(with_document_ids=args.json))
    if not args.json:
        stats.pop("document_ids")
    if args.json:
        print(json.dumps(stats, indent=2))
    else:
        for key, value in stats.items():
            if key not in ("origins", "document_ids"):
                print(f"{key}: {value}")
    return EXIT_OK


def cmd_source(args: argparse.Namespace) -> int:
    with Edge.open(args.data_dir, _config(args), read_only=True) as edge:
        found = edge.sources(args.cited)
    for doc_id in found:
        print(one_line(doc_id))
    if not found:
        print(
            f"dgrag: no document of this edge is cited as {args.cited!r} (under its privacy.doc_ids)", file=sys.stderr
        )
    return EXIT_OK if found else EXIT_USAGE


def cmd_summaries(args: argparse.Namespace) -> int:
    with Edge.open(args.data_dir, read_only=True) as edge:
        records = edge.subgraphs()
    if args.json:
        print(json.dumps([dataclasses.asdict(r) for r in records], indent=2))
    else:
        for r in records:
            print(
                f"{one_line(r.id)} v{r.version} ({r.n_entities} entities, {r.n_relations} relations)"
                f" [{one_line(', '.join(r.top_entities))}]\n  {shown_text(r.summary)}\n"
            )
    return EXIT_OK


def cmd_audit(args: argparse.Namespace) -> int:
    from edge_node.audit_table import audit_table
    from edge_node.policy.audit import read_audit
    from edge_node.store.knowledge_base import is_edge_dir

    if not is_edge_dir(args.data_dir):
        raise ConfigError(f"{args.data_dir} holds no edge; check --data-dir")
    print(audit_table(read_audit(args.data_dir), args.last, args.json))
    return EXIT_OK
