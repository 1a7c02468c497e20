"""The cloud model's reading queue: turns in arrival order, a waiter that leaves the line, and a question refused at
once when its turn would come after its deadline."""

from __future__ import annotations

import asyncio

import pytest

from cloud_server.answering.reading_queue import ReadingQueue
from shared.core.errors import ResourceExhaustedError


async def _read(queue: ReadingQueue, seconds: float, done: list[str], name: str, within_s: float = 0.0) -> None:
    async with queue.turn(within_s):
        await asyncio.sleep(seconds)
        done.append(name)


def test_turns_come_in_arrival_order_one_at_a_time() -> None:
    async def scenario() -> list[str]:
        queue, done = ReadingQueue(1), []
        tasks = [asyncio.create_task(_read(queue, 0.02, done, name)) for name in "abc"]
        await asyncio.sleep(0.005)
        assert queue.ahead == 3
        await asyncio.gather(*tasks)
        assert queue.ahead == 0
        return done

    assert asyncio.run(scenario()) == ["a", "b", "c"]


def test_a_question_read_too_late_is_refused_at_once_saying_why() -> None:
    async def scenario() -> None:
        queue, done = ReadingQueue(1), []
        await _read(queue, 0.1, done, "first")  # the estimate: about 0.1 s a reading
        assert queue.expected_s() == pytest.approx(0.1, abs=0.05)
        reading = asyncio.create_task(_read(queue, 0.1, done, "second"))
        await asyncio.sleep(0.01)
        with pytest.raises(ResourceExhaustedError, match=r"has 1 questions to read before this one.*leaves 0 s"):
            async with queue.turn(within_s=0.15):
                pass
        assert queue.ahead == 1, "the refused question never joined the line"
        await _read(queue, 0.0, done, "patient", within_s=5.0)
        await _read(queue, 0.0, done, "no deadline")
        await reading
        assert done == ["first", "second", "patient", "no deadline"]

    asyncio.run(scenario())


def test_parallel_readings_share_the_rounds() -> None:
    async def scenario() -> None:
        queue, done = ReadingQueue(2), []
        await _read(queue, 0.1, done, "first")
        tasks = [asyncio.create_task(_read(queue, 0.1, done, n)) for n in "ab"]
        await asyncio.sleep(0.01)
        assert queue.ahead == 2
        assert queue.expected_s() == pytest.approx(0.2, abs=0.06), "two reading: a third waits one round"
        await asyncio.gather(*tasks)

    asyncio.run(scenario())


def test_an_asker_who_leaves_the_line_frees_its_place() -> None:
    async def scenario() -> list[str]:
        queue, done = ReadingQueue(1), []
        first = asyncio.create_task(_read(queue, 0.05, done, "first"))
        gone = asyncio.create_task(_read(queue, 0.05, done, "gone"))
        await asyncio.sleep(0.01)
        gone.cancel()  # its deadline passed while it waited: it never reads
        await asyncio.sleep(0)
        assert queue.ahead == 1
        await _read(queue, 0.0, done, "next")
        await first
        return done

    assert asyncio.run(scenario()) == ["first", "next"]


def test_a_waiter_is_refused_once_the_readings_ahead_show_it_cannot_be_read_in_time() -> None:
    async def scenario() -> None:
        queue, done = ReadingQueue(1), []
        first = asyncio.create_task(_read(queue, 0.2, done, "first"))
        second = asyncio.create_task(_read(queue, 0.2, done, "second"))
        late = asyncio.create_task(_read(queue, 0.2, done, "late", within_s=0.5))
        await asyncio.sleep(0.01)
        assert queue.ahead == 3, "nothing is refused before a reading has ended: there is no estimate yet"
        with pytest.raises(ResourceExhaustedError, match="1 questions to read before this one"):
            await late  # after the first reading (0.2 s), its turn would end near 0.6 s, past its 0.5 s
        await asyncio.gather(first, second)
        assert done == ["first", "second"] and queue.ahead == 0

    asyncio.run(scenario())


def test_an_idle_cloud_reads_whatever_its_estimate_says() -> None:
    async def scenario() -> list[str]:
        queue, done = ReadingQueue(1), []
        await _read(queue, 0.2, done, "slow")
        queue.arrived(0.5)
        queue.check(within_s=0.1)  # nothing ahead: not refused, so the estimate is measured again
        await _read(queue, 0.0, done, "quick", within_s=0.1)
        assert queue.expected_s(place=0) < 0.2, "the quick reading moved the estimate down"
        return done

    assert asyncio.run(scenario()) == ["slow", "quick"]


def test_a_question_arriving_counts_the_wait_for_its_routing_and_the_edges_before_its_place() -> None:
    async def scenario() -> None:
        queue, done = ReadingQueue(1), []
        await _read(queue, 0.1, done, "first")
        queue.arrived(0.2)  # questions have been taking 0.2 s to reach the line
        reading = asyncio.create_task(_read(queue, 0.1, done, "second"))
        await asyncio.sleep(0.01)
        # the routing's 0.2 s goes on while the reading ahead ends (in about 0.09 s), then its own 0.1 s
        assert queue.expected_s() == pytest.approx(0.3, abs=0.03)
        assert queue.expected_s(place=0) == pytest.approx(0.19, abs=0.03), "a question in line is past that wait"
        with pytest.raises(ResourceExhaustedError):
            queue.check(within_s=0.3)
        await reading

    asyncio.run(scenario())
