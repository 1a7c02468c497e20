"""gate.read_first off (the default): a question asked in mode full goes to the cloud before the edge's model reads
it, and the edge's model reads it only when the cloud cannot be asked (then a trusted answer is shown here, anything
else as an extract, with the note saying why). Real gRPC on loopback, scripted models."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.grpc_harness import ACME, ZEPHYR, ask, connected, run, start_edge, start_network

QUESTION = "Who founded Zephyr Medical in Lisbon?"


def _read_here(reply_trace: str) -> bool:
    """Whether the edge's model read the question (its gate scored samples)."""
    return json.loads(reply_trace).get("gate") is not None


def test_the_cloud_is_asked_first_and_the_edge_reads_only_when_it_cannot_be(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-b": ZEPHYR}, extra_edges=("edge-a",))
        try:
            await start_edge(net, tmp_path, "edge-a", ACME, read_first=False)
            await connected(net, "edge-a", "edge-b")
            asked = await ask(net, "edge-a", QUESTION)
            assert asked.decision == "cloud" and asked.shown.answered_by == "cloud"
            assert not _read_here(asked.trace_json), "the edge's model did not read before the cloud answered"
            assert "generation" not in dict(asked.timings.seconds)

            net.stops["cloud"].set()
            await net.tasks["cloud"]
            down = await ask(net, "edge-a", "Who leads Acme Robotics in Berlin?")
            assert "cloud could not answer" in down.note
            assert _read_here(down.trace_json), "with no cloud, the edge's model reads the question"
            assert down.shown.answered_by != "cloud" and down.answer.strip()
        finally:
            await net.close()

    run(main())
