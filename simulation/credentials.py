"""Credentials of a simulated deployment: one API token per edge process (what its local apps would hold)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def api_token_file(work: Path, edge_id: str) -> Path:
    return work / f"{edge_id}.api-token"


def write_api_tokens(work: Path, edge_ids: list[str]) -> dict[str, str]:
    """A fresh token per edge, each in its own owner-only file the edge process is pointed at."""
    tokens = {e: secrets.token_urlsafe(24) for e in edge_ids}
    for edge_id, token in tokens.items():
        path = api_token_file(work, edge_id)
        path.unlink(missing_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(token + "\n")
    return tokens
