"""More people asking at once than the cloud's model can read before their deadline, over real gRPC on loopback:
the cloud answers those it can in time and refuses the others before their deadline, saying why; none is lost
or given another question's answer."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from shared.core.model_api import GenerationRequest
from simulation.fakes import ScriptedGenerator
from tests.support.grpc_harness import ACME, ZEPHYR, answer_from_context, ask, connected, run, start_network

ASKS = 7
"""Asks at once from one edge (below query.max_queries_per_caller, so none is refused for that)."""
DEADLINE_S = 10.0
"""The edge's query_deadline_s in the harness."""


def _slow(request: GenerationRequest) -> str:
    time.sleep(2.0)  # a model that reads for 2 s: 7 asks would take 14 s
    return answer_from_context(request)


def test_asks_past_what_the_model_reads_in_time_are_refused_before_their_deadline(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, cloud_llm=ScriptedGenerator(_slow))
        try:
            await connected(net, "edge-a", "edge-b")

            async def timed() -> tuple[float, str, str, str]:
                started = time.perf_counter()
                reply = await ask(net, "edge-a", "Who founded Zephyr Medical in Lisbon?")
                return time.perf_counter() - started, reply.decision, reply.answer, reply.note

            replies = await asyncio.gather(*(timed() for _ in range(ASKS)))
        finally:
            await net.close()
        answered = [r for r in replies if r[1] == "cloud"]
        refused = [r for r in replies if "questions to read before this one" in r[3]]
        assert answered and refused, replies
        assert len(answered) + len(refused) == ASKS, ("every ask was answered or refused with the reason", replies)
        assert all("Omar Haddad" in answer for _, _, answer, _ in answered), "each got its own question's answer"
        assert all(seconds < DEADLINE_S for seconds, *_ in replies), "refused before the deadline, not at it"

    run(main())
