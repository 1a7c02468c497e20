"""The audit log: what left this edge (or was withheld), one JSON line per message, owner-only, rotated.

Readers use :func:`read_audit` and :class:`AuditEntry`; the file format stays private to this module.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

AUDIT_FILE = "audit.jsonl"
AUDIT_MAX_BYTES = 64 * 1024 * 1024
AUDIT_QUESTION_CHARS = 200
"""How much of a question an audit entry keeps, unless the owner asks for whole texts (privacy.audit_content)."""
KEPT_ROTATIONS = 5
SUMMARY_SYNC = "summary_sync"
SUMMARY_DELTA = "summary_delta"
CONSTRUCTION_KINDS = frozenset({SUMMARY_SYNC, SUMMARY_DELTA})  # summary publication, not answers to queries


def audited_question(question: str, whole: bool = False) -> str:
    """``question`` as an audit entry records it: its first AUDIT_QUESTION_CHARS characters, or all of it."""
    return question if whole else question[:AUDIT_QUESTION_CHARS]


@dataclass(frozen=True)
class AuditEntry:
    """One message: what it was, to whom, its size on the wire and what it carried (ids, or texts when the
    policy's ``audit_content`` is on)."""

    ts: float
    what: str
    to: str
    bytes: int
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def is_construction(self) -> bool:
        """Summary publication (the construction phase) rather than traffic caused by a query."""
        return self.what in CONSTRUCTION_KINDS

    def to_dict(self) -> dict[str, Any]:
        """The entry as its JSON line holds it."""
        return {"ts": self.ts, "what": self.what, "to": self.to, "bytes": self.bytes, **self.detail}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> AuditEntry:
        detail = {k: v for k, v in raw.items() if k not in ("ts", "what", "to", "bytes")}
        return cls(
            float(raw.get("ts", 0.0)),
            str(raw.get("what", "")),
            str(raw.get("to", "")),
            int(raw.get("bytes", 0)),
            detail,
        )


class AuditLog:
    """Append-only record of what left this edge (owner-only file, rotated at ``max_bytes``: the last
    ``KEPT_ROTATIONS`` files are kept as audit.jsonl.1, .2, ...)."""

    def __init__(self, data_dir: Path, max_bytes: int = AUDIT_MAX_BYTES) -> None:
        self.path = data_dir / AUDIT_FILE
        self._max_bytes = max_bytes
        self._lock = threading.Lock()
        self.observers: list[Callable[[AuditEntry], None]] = []
        """Called with every entry once it is written (the metrics count what left)."""

    def record(self, what: str, to: str, n_bytes: int, **detail: Any) -> None:
        self._append([AuditEntry(round(time.time(), 3), what, to, n_bytes, detail)])

    def _append(self, entries: Iterable[AuditEntry]) -> None:
        entries = list(entries)
        with self._lock:
            self._rotate_if_full()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(fd, "a", encoding="utf-8") as f:
                f.writelines(e.to_json() + "\n" for e in entries)
                f.flush()
                os.fsync(f.fileno())
        for observe in self.observers:
            for entry in entries:
                observe(entry)

    def _rotate_if_full(self) -> None:
        try:
            if self.path.stat().st_size < self._max_bytes:
                return
        except FileNotFoundError:
            return
        for n in range(KEPT_ROTATIONS - 1, 0, -1):
            older = self.path.with_name(f"{AUDIT_FILE}.{n}")
            if older.exists():
                os.replace(older, self.path.with_name(f"{AUDIT_FILE}.{n + 1}"))
        os.replace(self.path, self.path.with_name(f"{AUDIT_FILE}.1"))

    def entries(self) -> list[AuditEntry]:
        return read_audit(self.path)


def read_audit(where: Path) -> list[AuditEntry]:
    """The entries of an audit log (``where``: an edge's data directory or the log file itself), oldest first;
    a line an interruption cut short is skipped."""
    path = where / AUDIT_FILE if where.is_dir() else where
    if not path.is_file():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            raw = json.loads(line)
        except ValueError:
            continue
        if isinstance(raw, dict):
            entries.append(AuditEntry.from_dict(raw))
    return entries


def write_audit(data_dir: Path, entries: Iterable[AuditEntry]) -> None:
    """Append ``entries`` (e.g. those an earlier sitting of a simulation recorded) to ``data_dir``'s log."""
    AuditLog(data_dir)._append(list(entries))
