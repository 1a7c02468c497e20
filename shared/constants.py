"""Constants used on both sides: limits, defaults, names."""

from __future__ import annotations

SCHEMA_VERSION = 1
"""Version of the edge SQLite schema; a data directory with another version is refused."""

MAX_DOCUMENT_BYTES = 20 * 1024 * 1024
"""Default largest file accepted for ingestion (bytes)."""

EMBEDDING_DIM_MINILM = 384
"""Dimension of all-MiniLM-L6-v2 embeddings."""

DEFAULT_EDGE_ID = "edge-0"
"""Edge id used when neither the config nor the command line names one."""

SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown", ".pdf", ".jsonl")
"""File suffixes the ingest reader accepts."""
