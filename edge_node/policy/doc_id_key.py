"""The secret that keys an edge's opaque document ids (``privacy.doc_ids = "opaque"``).

An opaque id was a plain hash of the edge id and the document's path: anyone who guesses a path
(``clinic/patients/maria-lopez.txt``) could compute its id and see whether the edge cites it. Keyed with 32 random
bytes kept in the edge's data directory (``doc_ids.key``, mode 0600, made on first use), an id says nothing to
anyone without the key; the owner maps an id back to its file with ``dgrag edge source ID``.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from shared.transport.secret_file import read_secret

KEY_FILE = "doc_ids.key"
ID_HEX = 16
"""Hex digits of an opaque id (64 bits)."""


def doc_id_key(data_dir: Path) -> bytes:
    """This edge's key, made on first use (the data directory is locked by its one process, so no two make it)."""
    path = data_dir / KEY_FILE
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(secrets.token_hex(32) + "\n")
    return bytes.fromhex(read_secret(path, "the document id key").strip())


def opaque_id(key: bytes, edge_id: str, doc_id: str) -> str:
    """The id ``doc_id`` of ``edge_id`` is known by outside the edge under the opaque policy."""
    digest = hmac.new(key, f"{edge_id}\0{doc_id}".encode(), hashlib.sha256).hexdigest()
    return "doc-" + digest[:ID_HEX]
