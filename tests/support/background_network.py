"""A loopback network kept running on an event loop in a thread of its own, for tests that drive it from
blocking code (a browser through its driver)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from tests.support.grpc_harness import Network

T = TypeVar("T")
WAIT_S = 60.0


@contextmanager
def serving(start: Callable[[], Awaitable[tuple[T, Network]]]) -> Iterator[T]:
    """Run ``start`` (which builds a network and returns what the test needs with it) on a loop of its own;
    yield what it returned; close the network when the block ends."""
    result: list[T] = []
    failure: list[BaseException] = []
    started, stop = threading.Event(), threading.Event()

    async def main() -> None:
        value, net = await start()
        try:
            result.append(value)
            started.set()
            while not stop.is_set():
                await asyncio.sleep(0.1)
        finally:
            await net.close()

    def run() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:  # handed to the test
            failure.append(exc)
        finally:
            started.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    if not started.wait(WAIT_S) or failure or not result:
        stop.set()
        raise RuntimeError(f"the network did not start: {failure}")
    try:
        yield result[0]
    finally:
        stop.set()
        thread.join(WAIT_S)
