"""Checks on summaries an edge publishes, before they touch the index (transport-free).

An edge may write only summaries whose id carries its own edge id; sizes are bounded so one edge
cannot crowd the index or the cloud's memory.
"""

from __future__ import annotations

from collections.abc import Sequence

from shared.core.errors import InvalidRequestError, PermissionDeniedError, ResourceExhaustedError
from shared.core.knowledge import SummaryCard, SummaryTombstone

MAX_SUMMARY_CHARS = 8000
MAX_TOP_ENTITIES = 64
MAX_SUMMARIES_PER_EDGE = 20_000
"""Most summaries the cloud holds for one edge (a 1,000-document edge has a few hundred)."""
MAX_SUMMARY_CHARS_PER_EDGE = 20_000_000
"""Most summary text the cloud holds for one edge."""


def check_capacity(edge_id: str, held: dict[str, int], cards: Sequence[SummaryCard], full: bool) -> None:
    """Raise ResourceExhaustedError if applying ``cards`` would take ``edge_id`` past its caps.

    ``held`` maps the ids the cloud holds for the edge to their text lengths; a full sync replaces them."""
    after = {} if full else dict(held)
    after.update({c.id: len(c.text) for c in cards})
    if len(after) > MAX_SUMMARIES_PER_EDGE:
        raise ResourceExhaustedError(
            f"edge {edge_id!r} would hold {len(after)} summaries; the cloud keeps at most {MAX_SUMMARIES_PER_EDGE} "
            "per edge (coarser partitions: raise partition.min_size)"
        )
    chars = sum(after.values())
    if chars > MAX_SUMMARY_CHARS_PER_EDGE:
        raise ResourceExhaustedError(
            f"edge {edge_id!r} would hold {chars} characters of summaries; at most {MAX_SUMMARY_CHARS_PER_EDGE}"
        )


def check_publication(edge_id: str, cards: Sequence[SummaryCard], tombstones: Sequence[SummaryTombstone]) -> None:
    """Raise unless every change belongs to ``edge_id`` and is well-formed."""
    if len(cards) + len(tombstones) > MAX_SUMMARIES_PER_EDGE:
        raise InvalidRequestError(
            f"{len(cards) + len(tombstones)} summary changes in one message; at most {MAX_SUMMARIES_PER_EDGE}"
        )
    prefix = f"{edge_id}/"
    items: list[SummaryCard | SummaryTombstone] = [*cards, *tombstones]
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise InvalidRequestError(f"summary {item.id!r} appears twice in one message; send each id once")
        seen.add(item.id)
    for item in items:
        if not item.id.startswith(prefix) or len(item.id) > 256:
            raise PermissionDeniedError(
                f"edge {edge_id!r} may only publish summaries with ids {prefix}..., not {item.id!r}"
            )
        if item.version < 1:
            raise InvalidRequestError(f"summary {item.id!r} has version {item.version}; versions start at 1")
    for card in cards:
        if not card.text.strip():
            raise InvalidRequestError(f"summary {card.id!r} has no text")
        if len(card.text) > MAX_SUMMARY_CHARS:
            raise InvalidRequestError(f"summary {card.id!r} is {len(card.text)} chars; at most {MAX_SUMMARY_CHARS}")
        if len(card.top_entities) > MAX_TOP_ENTITIES:
            raise InvalidRequestError(f"summary {card.id!r} names {len(card.top_entities)} entities; at most 64")


def checked_root(edge_id: str, root: bytes) -> bytes:
    """An edge's chunk commitment root as published: 32 bytes, or empty (no commitment)."""
    if root and len(root) != 32:
        raise InvalidRequestError(
            f"edge {edge_id!r} published a chunk commitment root of {len(root)} bytes; a root is 32 bytes or empty"
        )
    return bytes(root)
