"""A streamed answer on the wire: draft pieces, then the reply, as the streaming calls of the cloud
(``GlobalQueryStream``) and of the edge (``QueryStream``) carry them. Both event messages have the fields ``draft``
and ``reply``; these two functions are the serving and the receiving side of either."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from typing import Any

from shared.core.model_api import TextSink
from shared.core.text_stream import streamed


async def draft_events(run: Callable[[TextSink], Awaitable[Any]], event: Callable[..., Any]) -> AsyncIterator[Any]:
    """``event(draft=piece)`` for each piece ``run`` gives its sink, then ``event(reply=result)``."""
    async for item in streamed(run):
        yield event(draft=item) if isinstance(item, str) else event(reply=item)


async def reply_after_drafts(events: AsyncIterable[Any], on_text: TextSink, limit: int | None = None) -> Any | None:
    """Each draft piece of ``events`` to ``on_text`` (at most ``limit`` characters in all), then the reply; None
    when the stream ends without one."""
    relayed = 0
    async for event in events:
        if event.HasField("reply"):
            return event.reply
        piece = event.draft if limit is None else event.draft[: max(limit - relayed, 0)]
        relayed += len(piece)
        if piece:
            on_text(piece)
    return None
