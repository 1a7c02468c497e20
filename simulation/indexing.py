"""Index each edge of a bundle (and the all-documents 'central' store) with real `dgrag edge ingest`
processes, reusing cached indexes, then copy them into the run directory so a run never alters the cache."""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from shared.config import EdgeConfig
from shared.core.errors import DgragError
from shared.models.crash import death_message
from simulation.edge_parts import AUDIT_FILE, copy_edge, read_audit, seed_model_answers, write_audit
from simulation.index_cache import CENTRAL, index_location, is_complete, mark_complete, read_info
from simulation.processes import run_to_end


@dataclass(frozen=True)
class BuiltIndex:
    edge_id: str
    data_dir: Path
    index_seconds: float
    peak_rss_bytes: int
    cached: bool


def docs_by_edge(docs_path: Path) -> dict[str, list[dict[str, object]]]:
    out: dict[str, list[dict[str, object]]] = {}
    for number, line in enumerate(docs_path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                row = json.loads(line)
                out.setdefault(str(row["edge_id"]), []).append(row)
            except (ValueError, KeyError, TypeError) as exc:
                raise DgragError(f"{docs_path}:{number}: malformed document row ({exc})") from exc
    return out


def build_index(
    bench: Path,
    edge_id: str,
    rows: list[dict[str, object]],
    config: EdgeConfig,
    cache_root: Path,
    env: dict[str, str],
    config_file: Path | None,
    seed_from: list[Path] | None = None,
) -> BuiltIndex:
    """The cached index of ``edge_id`` (``central``: every document), built now when missing."""
    key, target = index_location(cache_root, bench, edge_id, rows, config)
    if is_complete(target):
        info = read_info(target)
        return BuiltIndex(edge_id, target, float(str(info["index_seconds"])), int(str(info["peak_rss_bytes"])), True)
    if target.exists():
        shutil.rmtree(target)  # an interrupted build: start over
    target.mkdir(parents=True)
    # The same chunk gives the same greedy prompt: any finished index (e.g. of the bundle an N-edge bundle was
    # split from) may already hold the SLM's answers for this one.
    seeds = seed_from if seed_from is not None else [p for p in sorted(cache_root.iterdir()) if is_complete(p)]
    if seeds:
        _seed_answers(target, [p for p in seeds if p != target])
    print(f"dgrag sim: indexing {edge_id} ({len(rows)} documents) into {target}", file=sys.stderr)
    docs = bench / "docs.jsonl" if edge_id != CENTRAL else central_docs(bench, rows, target)
    args = ["edge", "ingest", "--data-dir", str(target), "--edge-id", edge_id, str(docs)]
    if edge_id != CENTRAL:
        args += ["--bundle-edge", edge_id]
    else:
        args += ["--no-summaries"]  # the central store answers locally and publishes nothing: no summaries
    if config_file is not None:
        args += ["--config", str(config_file)]
    done = run_to_end(args, target.parent / f"{target.name}.ingest.log", env, echo=True)
    if done.returncode != 0:
        log = (target.parent / f"{target.name}.ingest.log").read_text(errors="replace")[-3000:]
        what = f"indexing {edge_id}"
        raise DgragError(f"the log of {what} ends:\n{log.rstrip()}\n{death_message(done.returncode, what)}")
    mark_complete(target, {"index_seconds": done.seconds, "peak_rss_bytes": done.peak_rss_bytes, "key": key})
    return BuiltIndex(edge_id, target, done.seconds, done.peak_rss_bytes, False)


def central_docs(bench: Path, rows: list[dict[str, object]], target: Path) -> Path:
    """The documents of the central store: the bundle's docs.jsonl, or (when the run takes a subset of the
    edges) a copy with only those edges' rows, in the bundle's order, beside the index."""
    source = bench / "docs.jsonl"
    wanted = {str(r["edge_id"]) for r in rows}
    lines = [x for x in source.read_text(encoding="utf-8").splitlines() if x.strip()]
    kept = [x for x in lines if str(json.loads(x)["edge_id"]) in wanted]
    if len(kept) == len(lines):
        return source
    subset = target.parent / f"{target.name}.docs.jsonl"
    subset.write_text("".join(x + "\n" for x in kept), encoding="utf-8")
    return subset


def _seed_answers(target: Path, sources: list[Path]) -> None:
    """Give the new store the SLM answers the edges already computed (same prompt, same model, same answer):
    the central store's chunks are the edges' chunks, so their extraction needs no model call."""
    seed_model_answers(target, sources)


def working_copy(index: BuiltIndex, run_dir: Path, keep_audit: bool = False) -> Path:
    """A private copy of a cached index for this run (the run's sessions and audit logs write into it).

    ``keep_audit``: a resumed run keeps what its earlier sittings sent for queries, so an edge's query bytes
    count over the whole run (the summaries are published again at every start, and count once; an ask cut
    short by the interruption is asked again, so its traffic counts twice)."""
    dest = run_dir / "edges" / index.edge_id
    audit = dest / AUDIT_FILE
    kept = dest.parent / f"{index.edge_id}.{AUDIT_FILE}.kept"  # outside the copy, so an interrupted copy loses nothing
    if not keep_audit:
        kept.unlink(missing_ok=True)
    elif audit.is_file() and not kept.exists():
        audit.replace(kept)
    if dest.exists():
        shutil.rmtree(dest)
    copy_edge(index.data_dir, dest)
    if kept.is_file():
        write_audit(dest, [e for e in read_audit(kept) if not e.is_construction])
        kept.unlink()
    return dest
