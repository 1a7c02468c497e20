"""Derive an N-edge bundle from any bundle: ``dgrag sim split --bench B --edges N --by KEY --out DIR``.

Documents are ordered by the chosen key and cut into N contiguous runs of near-equal size, so each edge holds
as few sources / periods / topics as the sizes allow (a big source spans several edges, small ones share one):

- ``source``: the publisher (a row's ``source`` field, else a ``Source: X`` line in its text, else the folder
  of its title, else its original edge);
- ``time``: a row's ``time``/``date`` field, else the first date in its text (``2023-11-27``, ``20260415``),
  else its id — edges become consecutive periods;
- ``topic``: the original edge (the bundle's domain), then the title;
- ``random``: a seeded shuffle.

Within one key, documents are ordered by a seeded hash of their id, so the split is deterministic by seed.
``home_edges`` is recomputed from each question's evidence documents; a question whose evidence is on no edge
keeps an empty ``home_edges`` (asked as unanswerable).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shared.core.errors import DgragError

SPLIT_KEYS = ("source", "time", "topic", "random")
_SOURCE_LINE = re.compile(r"^Source:\s*([^,\n]+)", re.MULTILINE)
_DATE = re.compile(r"(?<!\d)(\d{4})-?(\d{2})-?(\d{2})(?!\d)")


@dataclass(frozen=True)
class SplitReport:
    out: Path
    edges: int
    documents: int
    questions: int
    answerable: int
    cross_edge: int
    """Answerable questions whose evidence now lies on more than one edge."""
    became_unanswerable: int


def _row_key(by: str) -> Callable[[dict[str, Any]], str]:
    def source(row: dict[str, Any]) -> str:
        if isinstance(row.get("source"), str) and row["source"].strip():
            return str(row["source"]).strip()
        if match := _SOURCE_LINE.search(str(row.get("text", ""))):
            return match.group(1).strip()
        title = str(row.get("title", ""))
        return title.split("/", 1)[0] if "/" in title else str(row.get("edge_id", ""))

    def time(row: dict[str, Any]) -> str:
        for field in ("time", "date", "published"):
            if isinstance(row.get(field), str) and row[field].strip():
                return str(row[field]).strip()
        match = _DATE.search(str(row.get("text", ""))) or _DATE.search(str(row.get("doc_id", "")))
        return "".join(match.groups()) if match else str(row.get("doc_id", ""))

    def topic(row: dict[str, Any]) -> str:
        return f"{row.get('edge_id', '')}\x00{row.get('title', '')}"

    keys: dict[str, Callable[[dict[str, Any]], str]] = {
        "source": source,
        "time": time,
        "topic": topic,
        "random": lambda row: "",
    }
    if by not in keys:
        raise DgragError(f"--by {by!r} is not a split key; use one of {', '.join(SPLIT_KEYS)}")
    return keys[by]


def _seeded(doc_id: str, seed: int) -> str:
    return hashlib.sha256(f"{seed}\x00{doc_id}".encode()).hexdigest()


def deal(rows: list[dict[str, Any]], n_edges: int, by: str, seed: int) -> list[list[dict[str, Any]]]:
    """``rows`` ordered by ``by`` (ties by a seeded hash) and cut into ``n_edges`` runs of near-equal size."""
    if n_edges < 1:
        raise DgragError(f"--edges {n_edges}: an N-edge bundle needs at least one edge")
    if n_edges > len(rows):
        raise DgragError(f"--edges {n_edges} is more than the bundle's {len(rows)} documents: every edge needs one")
    key = _row_key(by)
    ordered = sorted(rows, key=lambda r: (key(r), _seeded(str(r["doc_id"]), seed)))
    size, extra = divmod(len(ordered), n_edges)
    runs, start = [], 0
    for i in range(n_edges):
        end = start + size + (1 if i < extra else 0)
        runs.append(ordered[start:end])
        start = end
    return runs


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, ValueError) as exc:
        raise DgragError(f"cannot read {path}: {exc}; see the bundle format in docs/simulation.md") from exc


def _describe(run: list[dict[str, Any]], by: str) -> str:
    if by == "random":
        return f"{len(run)} documents dealt at random"
    key = _row_key(by)
    first, last = key(run[0]).replace("\x00", " / "), key(run[-1]).replace("\x00", " / ")
    span = first if first == last else f"{first} .. {last}"
    return f"{len(run)} documents by {by}: {span}"


def split_bundle(bench: Path, n_edges: int, by: str, out: Path, seed: int = 0) -> SplitReport:
    """Write the N-edge bundle derived from ``bench`` into ``out`` (which must be new or empty)."""
    if out.exists() and any(out.iterdir()):
        raise DgragError(f"--out {out} is not empty: choose a new directory (nothing was written)")
    rows = _read_jsonl(bench / "docs.jsonl")
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict) or "doc_id" not in row or "text" not in row:
            raise DgragError(f"{bench / 'docs.jsonl'}:{number}: a document row needs doc_id and text")
    questions = _read_jsonl(bench / "questions.jsonl")
    runs = deal(rows, n_edges, by, seed)
    width = len(str(n_edges - 1))
    edge_ids = [f"e{i:0{width}d}" for i in range(n_edges)]
    where = {str(r["doc_id"]): e for e, run in zip(edge_ids, runs, strict=True) for r in run}
    out.mkdir(parents=True, exist_ok=True)
    edges = [{"edge_id": e, "description": _describe(run, by)} for e, run in zip(edge_ids, runs, strict=True)]
    (out / "edges.json").write_text(json.dumps(edges, indent=2) + "\n", encoding="utf-8")
    with (out / "docs.jsonl").open("w", encoding="utf-8") as f:
        for e, run in zip(edge_ids, runs, strict=True):
            f.writelines(json.dumps({**r, "edge_id": e}, ensure_ascii=False) + "\n" for r in run)
    answerable = cross = lost = 0
    with (out / "questions.jsonl").open("w", encoding="utf-8") as f:
        for q in questions:
            homes = sorted({where[d] for d in q.get("evidence_doc_ids", []) if d in where})
            answerable += bool(homes)
            cross += len(homes) > 1
            lost += bool(q.get("home_edges")) and not homes
            f.write(json.dumps({**q, "home_edges": homes}, ensure_ascii=False) + "\n")
    _write_source(bench, out, n_edges, by, seed)
    return SplitReport(out, n_edges, len(rows), len(questions), answerable, cross, lost)


def _write_source(bench: Path, out: Path, n_edges: int, by: str, seed: int) -> None:
    original = bench / "SOURCE.md"
    attribution = original.read_text(encoding="utf-8") if original.is_file() else "(the source bundle has no SOURCE.md)"
    (out / "SOURCE.md").write_text(
        f"# {out.name}\n\nDerived by `dgrag sim split --bench {bench} --edges {n_edges} --by {by} --seed {seed}`:"
        f" the same documents and questions, dealt to {n_edges} edges by {by}; home_edges recomputed from the"
        f" evidence documents.\n\n## Source of {bench.name}\n\n{attribution}",
        encoding="utf-8",
    )
