"""The receiving side of a streamed answer: drafts relayed within their bound, then the reply, or None."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from types import SimpleNamespace

from shared.transport.draft_events import reply_after_drafts


async def _events(*items: str) -> AsyncIterator[SimpleNamespace]:
    for item in items:
        is_reply = item.startswith("REPLY:")
        yield SimpleNamespace(
            HasField=lambda name, r=is_reply: name == "reply" and r, draft=item, reply=item.removeprefix("REPLY:")
        )


def test_drafts_are_relayed_within_the_limit_and_the_reply_returned() -> None:
    got: list[str] = []
    reply = asyncio.run(reply_after_drafts(_events("abcd", "efgh", "ijkl", "REPLY:done"), got.append, limit=6))
    assert reply == "done" and got == ["abcd", "ef"]


def test_a_stream_without_a_reply_gives_none() -> None:
    got: list[str] = []
    assert asyncio.run(reply_after_drafts(_events("abcd"), got.append)) is None and got == ["abcd"]
