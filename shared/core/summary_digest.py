"""What a reconnecting edge and the cloud compare to send only what changed: each held summary's id, version and
a digest of its fields.

An edge whose session broke while the cloud kept running finds its summaries still held there. The cloud's
welcome lists them (id, version, digest); the edge compares them with its current set, as its policy lets it
leave now, and sends the difference as a delta: new or newer summaries, tombstones for those it no longer has.
Where the two cannot be reconciled by versions alone (the same version saying something else, e.g. after the
owner tightened the policy, or a held version newer than the edge's, e.g. after its data was rebuilt) the edge
sends its whole set, which replaces the cloud's view.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

from shared.core.knowledge import SummaryCard, SummaryChanges, SummaryTombstone

DIGEST_BYTES = 8


@dataclass(frozen=True)
class HeldSummary:
    """A summary the cloud holds for an edge, as its welcome lists it."""

    id: str
    version: int
    digest: bytes


def summary_digest(card: SummaryCard) -> bytes:
    """The first bytes of sha256 over every field of ``card``."""
    fields = [card.id, card.version, card.text, list(card.top_entities), card.n_entities, card.n_relations]
    return hashlib.sha256(json.dumps(fields, ensure_ascii=False).encode()).digest()[:DIGEST_BYTES]


def held_summary(card: SummaryCard) -> HeldSummary:
    return HeldSummary(card.id, card.version, summary_digest(card))


def reconcile(current: SummaryChanges, held: Sequence[HeldSummary]) -> SummaryChanges | None:
    """The delta that turns the cloud's ``held`` view into ``current`` (a full set), or None when only a full
    sync can (a held summary of the same version that differs, or one newer than the edge's)."""
    mine = {c.id: c for c in current.upserts}
    by_id = {h.id: h for h in held}
    changed: list[SummaryCard] = []
    for card in current.upserts:
        h = by_id.get(card.id)
        if h is None or h.version < card.version:
            changed.append(card)
        elif h.version > card.version or h.digest != summary_digest(card):
            return None
    gone = tuple(SummaryTombstone(h.id, h.version) for h in held if h.id not in mine)
    return SummaryChanges(tuple(changed), gone, current.up_to_seq, full=False, chunk_root=current.chunk_root)
