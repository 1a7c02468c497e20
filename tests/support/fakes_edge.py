"""Shared fakes for edge unit tests: a scripted SLM that answers each prompt kind sensibly."""

from __future__ import annotations

import json
import re
from pathlib import Path

from edge_node.ingest.readers import RawDocument
from edge_node.ingest.service import IngestService
from edge_node.store.knowledge_base import EdgeKnowledgeBase
from edge_node.store.opening import MEMORY
from shared.config import ChunkingConfig, EdgeConfig, PartitionConfig
from shared.core.model_api import GenerationRequest
from simulation.fakes import HashEmbedder, RegexTokenizer, ScriptedGenerator

EMBED_DIM = 32
"""The width of the hash embeddings the edges' fakes use."""


def scripted_slm(request: GenerationRequest) -> str:
    """Classify every candidate as an organization; summarise by echoing the first entity lines."""
    schema = request.json_schema
    if schema is not None and "types" in schema.get("properties", {}):
        n = schema["properties"]["types"]["minItems"]
        return json.dumps({"types": ["organization"] * n})
    if schema is not None:
        return "{}"
    names = re.findall(r"^- ([^(]+) \(", request.prompt, flags=re.MULTILINE)
    return "This knowledge is about " + ", ".join(n.strip() for n in names[:4]) + " and how they relate."


def answering_slm(request: GenerationRequest) -> str:
    """:func:`scripted_slm`, and an answer to a question about Acme Robotics where its passages name Jane Doe."""
    if "Question:" in request.prompt and "Context:" in request.prompt:
        return "Jane Doe leads Acme Robotics." if "Jane Doe" in request.prompt else "Insufficient information."
    return scripted_slm(request)


def make_service(
    data_dir: Path, edge_id: str = "edge-a", store: str | None = MEMORY, **partition: int
) -> tuple[IngestService, ScriptedGenerator]:
    """An ingest service over the scripted SLM and hash embeddings; its store in memory unless ``store`` is None
    (the SQLite database in ``data_dir``, for tests of what survives a process)."""
    config = EdgeConfig(
        edge_id=edge_id,
        chunking=ChunkingConfig(chunk_tokens=60, overlap_tokens=8),
        partition=PartitionConfig(min_size=partition.get("min_size", 2), max_size=partition.get("max_size", 12)),
    )
    generator = ScriptedGenerator(scripted_slm)
    kb = EdgeKnowledgeBase(data_dir, store)
    return IngestService(kb, generator, HashEmbedder(EMBED_DIM), RegexTokenizer(), config), generator


DOCS = [  # three small documents, one organisation each
    RawDocument("acme", "Acme", "Acme Corp hired Jane Doe in Berlin. Jane Doe leads Acme Robotics there.", "a.txt"),
    RawDocument("globex", "Globex", "Globex Inc sued Initech over Project Titan. Initech denied the claims.", "g.txt"),
    RawDocument("umbrella", "Umbrella", "Umbrella Health opened a clinic in Lisbon with Maria Silva.", "u.txt"),
]
