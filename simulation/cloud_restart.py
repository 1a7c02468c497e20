"""``dgrag sim run --restart-cloud``: the cloud stopped and started again on its port once every edge has synced,
timed until it holds every edge's summaries again.

What it measures is what a deployment sees after a cloud restart: the summary index is not kept on disk, so every
edge notices its session is gone, reconnects with its backoff (``cloud.backoff_initial_s`` .. ``backoff_max_s``,
jittered) and sends its whole set again, which the new cloud embeds. The questions then run against the new cloud.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from shared.core.errors import DgragError
from simulation.processes import Server
from simulation.servers import held_counts

WHOLE_TIMEOUT_S = 600.0


def restart_cloud(servers: dict[str, Any], start: Callable[[int], Server], metadata: Any) -> dict[str, float]:
    """Stop the cloud, start it again on the same port (``start(port)``) and wait until it holds as many summaries
    of every edge as before; the seconds of each step, the edges and the summaries."""
    old: Server = servers["cloud"]
    before = held_counts(old.address, metadata)
    began = time.perf_counter()
    old.stop()
    stopped = time.perf_counter()
    new = start(old.port)
    new.wait_ready()
    servers["cloud"] = new
    ready = time.perf_counter()
    deadline = ready + WHOLE_TIMEOUT_S
    while (now := held_counts(new.address, metadata)) != before:
        if time.perf_counter() > deadline:
            missing = sorted(e for e, n in before.items() if now.get(e) != n)
            raise DgragError(f"after the cloud restart, edges {missing} did not sync again in {WHOLE_TIMEOUT_S:.0f} s")
        time.sleep(0.2)
    whole = time.perf_counter()
    return {
        "edges": len(before),
        "summaries": sum(before.values()),
        "stop_seconds": stopped - began,
        "start_seconds": ready - stopped,
        "resync_seconds": whole - ready,
        "total_seconds": whole - began,
    }
