"""Opening an edge store by where it lives: the one place that chooses an implementation of the contract
(:class:`~edge_node.store.protocol.EdgeStore`)."""

from __future__ import annotations

from pathlib import Path

from edge_node.store.protocol import EdgeStore
from edge_node.store.sqlite_store import SqliteStore

MEMORY = ":memory:"
"""The location of a store kept in memory (SQLite's own; nothing survives the process): fast tests, throwaway
edges."""


def open_store(location: str | Path, read_only: bool = False) -> EdgeStore:
    """The store at ``location``: :data:`MEMORY`, or the path of an SQLite database (made when missing; with
    ``read_only``, opened to read beside its writer)."""
    return SqliteStore(Path(location), read_only and str(location) != MEMORY)
