"""An answer's pieces cross from a worker thread to the event loop in order, then the result; errors and early
stops behave."""

from __future__ import annotations

import asyncio
import threading

import pytest

from shared.core.model_api import GenerationRequest, Tapped, TextSink
from shared.core.text_stream import streamed
from simulation.fakes import ScriptedGenerator


def _collect(run) -> list[object]:  # type: ignore[no-untyped-def]
    async def main() -> list[object]:
        return [item async for item in streamed(run)]

    return asyncio.run(main())


def test_pieces_from_a_worker_thread_arrive_in_order_before_the_result() -> None:
    def work(sink: TextSink) -> str:
        assert threading.current_thread() is not threading.main_thread()
        for i in range(50):
            sink(f"{i} ")
        return "done"

    async def run(sink: TextSink) -> str:
        return await asyncio.to_thread(work, sink)

    items = _collect(run)
    assert items == [f"{i} " for i in range(50)] + ["done"]


def test_an_error_is_raised_after_the_pieces_before_it() -> None:
    seen: list[object] = []

    async def run(sink: TextSink) -> str:
        sink("partial ")
        await asyncio.sleep(0)
        raise ValueError("the model failed")

    async def main() -> None:
        async for item in streamed(run):
            seen.append(item)

    with pytest.raises(ValueError, match="the model failed"):
        asyncio.run(main())
    assert seen == ["partial "]


def test_a_consumer_that_stops_early_cancels_the_run() -> None:
    cancelled = asyncio.Event()

    async def run(sink: TextSink) -> str:
        sink("first ")
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    async def main() -> None:
        stream = streamed(run)
        assert await anext(stream) == "first "
        await stream.aclose()
        await asyncio.wait_for(cancelled.wait(), 5)

    asyncio.run(main())


def test_a_tap_streams_single_free_text_answers_only() -> None:
    generator = ScriptedGenerator(lambda r: "Lisbon is the capital")
    pieces: list[str] = []
    tapped = Tapped(generator, pieces.append)
    assert tapped.generate(GenerationRequest("q")).texts == ("Lisbon is the capital",)
    assert "".join(pieces) == "Lisbon is the capital" and len(pieces) == 4
    pieces.clear()
    tapped.generate(GenerationRequest("q", n=3, temperature=0.7))
    tapped.generate(GenerationRequest("q", json_schema={"type": "object"}))
    assert pieces == [], "a vote or a JSON choice is not a draft worth showing"
