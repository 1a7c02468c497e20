"""What an edge publishes to the cloud: a full set of summaries on connect, then deltas.

Transport-free. Deltas come from the store's publication log: for every summary changed after a log
position, its newest state (the current summary, or a tombstone when it no longer exists).
"""

from __future__ import annotations

from edge_node.store.records import SubgraphRecord
from edge_node.store.sqlite_store import SqliteStore
from shared.core.knowledge import SummaryCard, SummaryChanges, SummaryTombstone


def summary_card(record: SubgraphRecord) -> SummaryCard:
    return SummaryCard(
        record.id, record.version, record.summary, record.top_entities, record.n_entities, record.n_relations
    )


def full_sync(store: SqliteStore) -> SummaryChanges:
    """Every current summary, as of the newest log position."""
    seq = store.last_publication_seq()
    cards = tuple(summary_card(r) for r in store.subgraphs())
    return SummaryChanges(cards, (), seq, full=True)


def delta_after(store: SqliteStore, seq: int) -> SummaryChanges | None:
    """The changes logged after ``seq`` (None when there are none)."""
    entries = store.publications_after(seq)
    if not entries:
        return None
    current = {r.id: r for r in store.subgraphs()}
    last_version: dict[str, int] = {}
    for entry in entries:
        last_version[entry.summary_id] = max(entry.version, last_version.get(entry.summary_id, 0))
    upserts: list[SummaryCard] = []
    tombstones: list[SummaryTombstone] = []
    for sid, version in sorted(last_version.items()):
        record = current.get(sid)
        if record is not None:
            upserts.append(summary_card(record))
        else:
            tombstones.append(SummaryTombstone(sid, version))
    return SummaryChanges(tuple(upserts), tuple(tombstones), entries[-1].seq)
