"""Process lifecycle helpers for the servers."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


def stop_on_signals() -> asyncio.Event:
    """An event set by SIGTERM or SIGINT (a graceful stop), for the running event loop."""
    event = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, event.set)
    return event


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block SIGTERM acts as Ctrl-C (KeyboardInterrupt), so a long command stopped by ``kill``,
    systemd or a batch scheduler still runs its cleanup: child processes stopped, partial results kept."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
