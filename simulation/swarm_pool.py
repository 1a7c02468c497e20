"""The summaries swarm edges publish: the real summaries of the simulation's cached indexes, varied per edge.

Every summary the bundled SLM wrote for the cached bundles (``.dgrag/sim-cache/*/edge.sqlite3``, made by
``dgrag sim run``) forms the pool; without a cache, each document's first sentences of the bundled benchmarks
stand in. Swarm edge ``i``'s ``j``-th summary is one pool summary followed by the key entities of another, chosen
by ``i`` and ``j``, so no two edges publish the same texts while every text reads like a real summary.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".dgrag" / "sim-cache"
BUNDLES = ROOT / "simulation" / "bundles"


def summary_pool(cache: Path = CACHE) -> list[str]:
    """Every cached summary's text, in a fixed order; the bundles' first sentences without a cache."""
    texts: list[str] = []
    for store in sorted(cache.glob("*/edge.sqlite3")):
        db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        try:
            texts += [str(t) for (t,) in db.execute("SELECT text FROM summaries ORDER BY subgraph_id")]
        finally:
            db.close()
    if texts:
        return texts
    for bundle in sorted(BUNDLES.glob("*/docs.jsonl")):
        for line in bundle.read_text(encoding="utf-8").splitlines():
            text = str(json.loads(line).get("text", ""))
            texts.append(" ".join(text.split()[:60]))
    return [t for t in texts if t]


def varied(pool: list[str], edge: int, count: int) -> list[str]:
    """Edge ``edge``'s ``count`` summaries, drawn from ``pool``."""
    out = []
    for j in range(count):
        base = pool[(edge * count + j) % len(pool)]
        other = pool[(edge * 7919 + j * 104729 + 1) % len(pool)]
        out.append(f"{base} Related: {_key_entities(other)} (site {edge}, part {j}).")
    return out


def _key_entities(text: str) -> str:
    marker = "Key entities:"
    if marker in text:
        return text.split(marker, 1)[1].strip().split(".")[0][:160]
    return " ".join(w for w in text.split() if w[:1].isupper())[:160]
