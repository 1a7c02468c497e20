"""The cloud model's readings, first come first served, ``query.parallel_readings`` at a time.

A question waits for its turn here, in the event loop, where the asker's deadline can take it out of the line;
a thread already blocked on the model's lock could not leave, and would read for nobody after the asker gave up.
A question whose turn would end after its deadline is refused as soon as that is known: on arrival, and again
whenever a reading ends and the estimate moves (RESOURCE_EXHAUSTED, saying how many are ahead and how long they
take). So under load the cloud answers the questions it can in time and tells the others why, before their
deadline instead of after it.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from shared.core.errors import ResourceExhaustedError

WEIGHT = 0.3
"""Weight of the latest reading in the running estimate of a reading's seconds."""
MARGIN = 1.2
"""Readings vary: a question is kept only while its estimated turn, times this, ends before its deadline."""


class ReadingQueue:
    """Turns at the cloud's model, and the estimate of when a question's turn would end."""

    def __init__(self, parallel: int) -> None:
        self._parallel = parallel
        self._line: list[object] = []
        """Questions waiting for a turn, in arrival order."""
        self._started: list[float] = []
        """When each reading now in progress started (monotonic seconds)."""
        self._seconds = 0.0
        """Running estimate of one reading's seconds (0 until one has ended: nothing is refused before)."""
        self._before = 0.0
        """Running estimate of a question's seconds from its arrival to its place in line (routing, the edges)."""
        self._moved = asyncio.Event()

    @property
    def ahead(self) -> int:
        """Questions reading or waiting to read now."""
        return len(self._line) + len(self._started)

    def expected_s(self, place: int | None = None) -> float:
        """Seconds until the question at ``place`` in the line would have been read: the rounds of readings ahead
        of it, less what the first of them has read already, then its own. None: a question arriving now, whose
        routing and the edges' replies (about ``arrived``'s seconds) go on while the line moves."""
        waiting = len(self._line) if place is None else place
        rounds = (len(self._started) + waiting) // self._parallel
        done = time.monotonic() - min(self._started) if self._started else 0.0
        ahead = max(rounds * self._seconds - done, 0.0)
        return max(ahead, self._before if place is None else 0.0) + self._seconds

    def arrived(self, seconds_ago: float) -> None:
        """A question that arrived ``seconds_ago`` is about to join the line (the estimate of that wait moves)."""
        self._before = seconds_ago if not self._before else (1 - WEIGHT) * self._before + WEIGHT * seconds_ago

    def check(self, within_s: float, place: int | None = None) -> None:
        """Refuse (ResourceExhaustedError) the question at ``place`` whose asker waits ``within_s`` more seconds
        when it would have to wait for a turn and be read later than that; ``within_s`` 0: no deadline, never
        refused."""
        ahead = len(self._started) + (len(self._line) if place is None else place)
        if ahead < self._parallel:  # nothing to wait for: read it (an idle cloud always reads, and so re-measures)
            return
        if within_s > 0 and (expected := self.expected_s(place)) * MARGIN > within_s:
            raise ResourceExhaustedError(
                f"the cloud's model has {ahead} questions to read before this one, about {expected:.0f} s "
                f"with it, and this question's deadline leaves {within_s:.0f} s; ask again later"
            )

    @asynccontextmanager
    async def turn(self, within_s: float = 0.0) -> AsyncIterator[None]:
        """Wait for a turn and hold it for the block; refused (see :meth:`check`) while waiting as on arrival."""
        ends = time.monotonic() + within_s if within_s > 0 else math.inf
        if not self.ahead:  # an event serves one event loop (a test may run several)
            self._moved = asyncio.Event()
        ticket = object()
        self._line.append(ticket)
        try:
            while True:
                place = self._line.index(ticket)
                self.check(max(ends - time.monotonic(), 1e-3) if within_s > 0 else 0.0, place)
                if place < self._parallel - len(self._started):
                    break
                await self._moved.wait()
        finally:
            self._line.remove(ticket)
            self._move()  # those behind moved up, or may read now
        started = time.monotonic()
        self._started.append(started)
        try:
            yield
        finally:
            self._started.remove(started)
            seconds = time.monotonic() - started
            self._seconds = seconds if not self._seconds else (1 - WEIGHT) * self._seconds + WEIGHT * seconds
            self._move()

    def _move(self) -> None:
        """Wake every waiter to look at its place again."""
        self._moved.set()
        self._moved = asyncio.Event()
