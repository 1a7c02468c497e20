"""The SQLite connection of an edge store, its key-value meta table and its all-or-nothing transactions: the base
that every part of :class:`~edge_node.store.sqlite_store.SqliteStore` extends."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from shared.core.errors import StoreError


class SqliteCore:
    """One open edge database: WAL, synchronous=FULL, foreign keys on, the schema applied."""

    def __init__(self, path: Path, read_only: bool = False) -> None:
        """``read_only``: a reader beside the database's one writer (WAL lets it read the last commit while the
        writer goes on); it changes nothing, not even the schema."""
        self.path = path
        self.read_only = read_only
        try:
            if read_only:
                self._db = sqlite3.connect(
                    f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
                )
                self._db.execute("PRAGMA query_only=ON")
                self._db.execute("SELECT value FROM meta LIMIT 1").fetchall()  # fails on a database without our schema
            else:
                self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
                self._db.execute("PRAGMA foreign_keys=ON")
                self._db.executescript(resources.files("edge_node.store").joinpath("schema.sql").read_text())
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path} is not a usable dgrag edge database: {exc}") from exc
        self.in_transaction = False

    def close(self) -> None:
        self._db.close()

    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    @property
    def generation(self) -> int:
        """Counter bumped by every committed write; the faiss files record the generation they reflect."""
        return int(self.get_meta("generation") or 0)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """An immediate (write-locking) transaction that bumps :attr:`generation`; nested use joins it."""
        if self.in_transaction:
            yield
            return
        self._db.execute("BEGIN IMMEDIATE")
        self.in_transaction = True
        try:
            yield
            self.set_meta("generation", str(self.generation + 1))
            self._db.execute("COMMIT")
        except BaseException as exc:
            if self._db.in_transaction:  # SQLite may have rolled back itself (a full disk does)
                self._db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc):
                raise StoreError(
                    f"the disk holding {self.path} is full ({exc}); free space and run again "
                    "(everything written before this document is kept)"
                ) from exc
            raise
        finally:
            self.in_transaction = False
