"""Give documents that earlier versions stored under absolute paths the ids files get now: their path
relative to a root folder (see :func:`edge_node.ingest.readers.read_paths`).

An ingest renames each file it reads on its own; this migrates a whole store at once, for files that are
not ingested again (moved, or gone from this device). Ids that are not absolute paths are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePath

from edge_node.ingest.readers import relative_doc_id
from edge_node.store.sqlite_store import SqliteStore
from shared.core.errors import InputDocumentError


@dataclass
class IdMigration:
    """What :func:`migrate_ids` did."""

    renamed: list[tuple[str, str]] = field(default_factory=list)
    clashes: list[tuple[str, str]] = field(default_factory=list)
    """(old id, new id) left as they were because a document already has the new id."""
    outside: int = 0
    """Absolute-path ids that do not lie under the root (left as they were)."""


def migrate_ids(store: SqliteStore, root: Path) -> IdMigration:
    """Rename every document whose id is an absolute path under ``root`` to its path relative to ``root``,
    in one transaction (all or nothing)."""
    if not root.expanduser().is_dir():
        raise InputDocumentError(str(root), "is not a directory; give the folder your documents were ingested from")
    out = IdMigration()
    with store.transaction():
        for doc_id in store.document_ids():
            if not PurePath(doc_id).is_absolute():
                continue
            new = relative_doc_id(Path(doc_id), root)
            if new is None:
                out.outside += 1
            elif store.rename_document(doc_id, new):
                out.renamed.append((doc_id, new))
            else:
                out.clashes.append((doc_id, new))
    return out
