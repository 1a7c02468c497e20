"""Opening an edge store (:class:`~edge_node.store.sqlite_store.SqliteStore`) by where it lives: on disk or in
SQLite's memory."""

from __future__ import annotations

from pathlib import Path

from edge_node.store.sqlite_store import SqliteStore

MEMORY = ":memory:"
"""The location of a store kept in memory (SQLite's own; nothing survives the process): fast tests, throwaway
edges."""


def open_store(location: str | Path, read_only: bool = False) -> SqliteStore:
    """The store at ``location``: :data:`MEMORY`, or the path of an SQLite database (made when missing; with
    ``read_only``, opened to read beside its writer)."""
    return SqliteStore(Path(location), read_only and str(location) != MEMORY)
