"""An answer's text as it is decoded, then the answer: one async stream for a streaming gRPC call to relay.

A blocking model call runs in a worker thread and hands each decoded piece to a sink; the pieces cross to the
event loop in order, and the finished result comes last.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from shared.core.model_api import TextSink

T = TypeVar("T")


async def streamed(run: Callable[[TextSink], Awaitable[T]]) -> AsyncIterator[str | T]:
    """Runs ``run(sink)`` and yields each text piece given to ``sink`` (from any thread), then ``run``'s result.
    An error of ``run`` is raised after the pieces before it; a consumer that stops early cancels ``run``."""
    loop = asyncio.get_running_loop()
    pieces: asyncio.Queue[str | None] = asyncio.Queue()

    def sink(piece: str) -> None:
        loop.call_soon_threadsafe(pieces.put_nowait, piece)

    task = asyncio.ensure_future(run(sink))
    # scheduled after every piece handed over before the run ended, so nothing is lost
    task.add_done_callback(lambda _: loop.call_soon(pieces.put_nowait, None))
    try:
        while (piece := await pieces.get()) is not None:
            yield piece
        yield await task
    finally:
        if not task.done():
            task.cancel()
