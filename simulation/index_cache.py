"""Where a simulation keeps each edge's index, keyed by what the index depends on.

Key = the edge's documents (their content), the models (names and file sizes) and the construction
settings (chunking, extraction, partition, summaries) and CONSTRUCTION_VERSION (the code). Same key, same
index: a re-run skips indexing.
An index counts only once its ingest finished (a marker file), so an interrupted build is redone.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

from shared.config import EdgeConfig
from shared.models.locate import bundled_embedder_path, bundled_slm_path

COMPLETE_MARKER = ".indexed.json"
CENTRAL = "central"
"""The id of the store that holds every chosen edge's documents (the `central` mode's upper bound)."""

CONSTRUCTION_VERSION = 2
"""Version of what indexing computes from the same documents and settings (chunking, extraction, partition,
summary code); bump it when that code changes its output, so cached simulation indexes are rebuilt."""


def _model_identity(config: EdgeConfig) -> dict[str, object]:
    slm = Path(config.slm.model_path) if config.slm.model_path else bundled_slm_path()  # the source, not a copy
    embedder = Path(config.embedder.model_path) if config.embedder.model_path else bundled_embedder_path()
    identity: dict[str, object] = {
        # a model server's lock and the calibration named for it change when it runs and how sure it says it is,
        # not what it answers
        "slm": {k: v for k, v in dataclasses.asdict(config.slm).items() if k not in ("machine_lock", "serves")},
        # The forward pass's arithmetic moves a vector by cosine 3e-5 (bfloat16 against float32): an index
        # built under either serves both, so precision is not part of the key.
        "embedder": {k: v for k, v in dataclasses.asdict(config.embedder).items() if k != "precision"},
    }
    if config.slm.backend != "openai" and slm.is_file():
        identity["slm_file"] = [slm.name, slm.stat().st_size]
    identity["embedder_dir"] = embedder.name
    return identity


def index_key(docs_rows: list[dict[str, object]], edge_id: str, config: EdgeConfig) -> str:
    """A stable digest of everything the edge's index depends on."""
    payload = {
        "construction": CONSTRUCTION_VERSION,
        "edge_id": edge_id,
        "docs": sorted(hashlib.sha256(json.dumps(r, sort_keys=True).encode()).hexdigest() for r in docs_rows),
        "models": _model_identity(config),
        "chunking": dataclasses.asdict(config.chunking),
        # The retired extraction.mode and max_relations keep their last values here, so cached indexes stay valid.
        "extraction": {"mode": "classify", "max_relations": 6, **dataclasses.asdict(config.extraction)},
        "partition": dataclasses.asdict(config.partition),
        "summary": dataclasses.asdict(config.summary),
    }
    if edge_id == CENTRAL:
        # Since 900e1ae the central store of an --edges subset holds only those edges' documents; before, it
        # held the whole bundle under the same key. The tag keeps such indexes from being reused.
        payload["central_documents"] = "chosen edges only"
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def cached_index(root: Path, bench_name: str, edge_id: str, key: str) -> Path:
    return root / f"{bench_name}-{edge_id}-{key}"


def index_location(
    root: Path, bench: Path, edge_id: str, docs_rows: list[dict[str, object]], config: EdgeConfig
) -> tuple[str, Path]:
    """The cache key of an edge's index and the directory it lives (or will live) in."""
    key = index_key(docs_rows, edge_id, config)
    return key, cached_index(root, bench.name, edge_id, key)


def is_complete(index_dir: Path) -> bool:
    return (index_dir / COMPLETE_MARKER).is_file()


def mark_complete(index_dir: Path, info: dict[str, object]) -> None:
    (index_dir / COMPLETE_MARKER).write_text(json.dumps(info, indent=2), encoding="utf-8")


def read_info(index_dir: Path) -> dict[str, object]:
    info: dict[str, object] = json.loads((index_dir / COMPLETE_MARKER).read_text(encoding="utf-8"))
    return info
