"""Constants used on both sides: limits, defaults, names."""

from __future__ import annotations

SCHEMA_VERSION = 1
"""Version of the edge SQLite schema; a data directory with another version is refused."""

MAX_DOCUMENT_BYTES = 20 * 1024 * 1024
"""Default largest file accepted for ingestion (bytes)."""


DEFAULT_EDGE_ID = "edge-0"
"""Edge id used when neither the config nor the command line names one."""

SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown", ".pdf", ".docx", ".odt", ".html", ".htm", ".eml", ".csv", ".jsonl")
"""File suffixes the ingest reader accepts."""


DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024
"""Default largest gRPC message (a retrieval reply or a full summary sync stays far below it)."""

EDGE_ID_HEADER = "x-dgrag-edge-id"
"""gRPC metadata key naming the calling edge."""

AUTHORIZATION_HEADER = "authorization"
"""gRPC metadata key carrying ``Bearer <token>``."""

SESSION_ADMITTED = ("x-dgrag-session", "admitted")
"""Response header the cloud sends as soon as its credential check admits an edge session (a refusal of the
credentials comes without it; a bad hello is refused later, after it)."""
ADMISSION_WAIT_S = 5.0
"""How long a session's opener waits for the cloud's headers before writing anyway (an older cloud sends none)."""

SOFTWARE_VERSION = "0.1.0"
"""Sent in the session hello, for the cloud's registry."""
