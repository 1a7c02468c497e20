"""Benchmark: did any outbound message of a simulation quote a document? Reads every edge's audit log.

    python -m benchmarks.leak_audit --bench simulation/bundles/multihop4 --run runs/X [--words 8]

Run the simulation with an edge config that forbids raw text and records outbound content, e.g.

    printf '[privacy]\\nshare_chunks = false\\naudit_content = true\\n' > noraw.toml
    dgrag sim run --bench simulation/bundles/multihop4 --out runs/noraw --config noraw.toml

then this prints, per edge, the outbound messages and texts checked and how many texts share a run of
``--words`` words with one of that edge's documents (the target is 0 under such a policy).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from simulation.edge_parts import AuditEntry, LeakGuard, read_audit


def edge_documents(bench: Path) -> dict[str, list[str]]:
    docs: dict[str, list[str]] = {}
    for line in (bench / "docs.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            docs.setdefault(str(row.get("edge_id", "")), []).append(str(row.get("text", "")))
    return docs


def _sent_question(entry: AuditEntry) -> str:
    return str(entry.detail.get("question", "")) if entry.what == "global_query" else ""


def _texts_of(texts: list[str]) -> Callable[[], list[str]]:
    return lambda: texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--run", type=Path, required=True)
    parser.add_argument("--words", type=int, default=8)
    args = parser.parse_args(argv)
    docs = edge_documents(args.bench)
    print("| edge | outbound messages | with content recorded | texts checked | texts quoting a document |")
    print("|---|---|---|---|---|")
    total_leaks, total_recorded = 0, 0
    for data_dir in sorted(p for p in (args.run / "edges").iterdir() if p.is_dir()):
        edge = data_dir.name
        guard = LeakGuard(_texts_of(docs.get(edge, [])), lambda: 0, args.words)
        entries = read_audit(data_dir)
        if not entries:
            continue
        recorded = [e for e in entries if "texts" in e.detail or e.what == "global_query"]
        # a global_query's question left this edge; a retrieval_reply's question came in from the cloud
        checked = [t for e in recorded for t in [*e.detail.get("texts", []), _sent_question(e)] if t]
        leaks = [t for t in checked if guard.shared_run(t) is not None]
        total_leaks += len(leaks)
        total_recorded += len(recorded)
        print(f"| {edge} | {len(entries)} | {len(recorded)} | {len(checked)} | {len(leaks)} |")
    if not total_recorded:
        print("\nno outbound content was recorded: run the simulation with privacy.audit_content = true")
        return 1
    return 0 if total_leaks == 0 else 2


if __name__ == "__main__":
    raise SystemExit(main())
