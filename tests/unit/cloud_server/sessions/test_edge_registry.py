"""Edge sessions at the cloud: requests go down the current session, replies resolve them, dead sessions fail fast."""

from __future__ import annotations

import asyncio

import pytest

from cloud_server.routing.choice import choose_edges
from cloud_server.sessions.edge_registry import EdgeRegistry, EdgeUnavailableError
from shared.core.knowledge import EdgeKnowledge, SummaryMatch


def test_a_reply_resolves_the_request() -> None:
    async def main() -> None:
        registry = EdgeRegistry(10.0)
        session = registry.attach("a")
        task = asyncio.create_task(registry.retrieve("a", "q?", 1.0))
        call = await session.outbox.get()
        assert call is not None and call.question == "q?"
        registry.resolve(session, call.request_id, EdgeKnowledge("a", evidence=0.5), "")
        assert (await task).evidence == 0.5

    asyncio.run(main())


def test_unknown_edge_timeout_and_replaced_session_fail() -> None:
    async def main() -> None:
        registry = EdgeRegistry(10.0)
        with pytest.raises(EdgeUnavailableError):
            await registry.retrieve("nobody", "q", 1.0)
        registry.attach("a")
        with pytest.raises(TimeoutError):
            await registry.retrieve("a", "q", 0.05)
        old = registry.attach("b")
        pending = asyncio.create_task(registry.retrieve("b", "q", 5.0))
        await asyncio.sleep(0)
        registry.attach("b")  # a reconnect replaces the old session
        with pytest.raises(EdgeUnavailableError):
            await pending
        assert old.closed and registry.connected("b")

    asyncio.run(main())


def test_choose_edges_takes_distinct_edges_in_rank_order() -> None:
    matches = [SummaryMatch("b/1", "b", 0.9), SummaryMatch("b/2", "b", 0.8), SummaryMatch("a/1", "a", 0.7)]
    assert choose_edges(matches, 1) == ["b"]
    assert choose_edges(matches, 2) == ["b", "a"]
    assert choose_edges(matches, 5) == ["b", "a"]


def test_a_silent_edge_is_not_live_for_routing(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import time as real_time

    from cloud_server.sessions import edge_registry
    from cloud_server.sessions.edge_registry import EdgeRegistry

    registry = EdgeRegistry(heartbeat_interval_s=1.0)
    session = registry.attach("a")
    assert registry.live("a")
    now = real_time.time()
    monkeypatch.setattr(edge_registry.time, "time", lambda: now + 3.5)
    assert registry.connected("a") and not registry.live("a")
    registry.heartbeat(session)
    assert registry.live("a")
    assert not registry.live("never-seen")
