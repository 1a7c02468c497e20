"""Real edges among the swarm (``dgrag sim swarm --real-bench B``): a bundle's edges as ``dgrag edge serve``
processes on the simulation's cached indexes, with their models, connected to the swarm's cloud; questions asked
at them end to end, as a person would (``dgrag edge ask``), while the swarm's sessions stay open."""

from __future__ import annotations

import json
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from shared.config import EdgeConfig
from simulation.bundle import load_edges, load_questions
from simulation.credentials import api_token_file
from simulation.indexing import build_index, docs_by_edge, working_copy
from simulation.processes import Server, dgrag_command
from simulation.servers import edge_launch

CACHE = Path(".dgrag/sim-cache")


def start_real_edges(work: Path, bench: Path, cloud: str, tokens: dict[str, str], env: dict[str, str]) -> list[Server]:
    """Every edge of ``bench``, serving its cached index and connected to ``cloud``."""
    rows = docs_by_edge(bench / "docs.jsonl")
    servers = []
    for edge_id in load_edges(bench):
        built = build_index(bench, edge_id, rows.get(edge_id, []), EdgeConfig(), CACHE, env, None)
        data_dir = working_copy(built, work / "real-edges")
        launch = edge_launch(work, edge_id, data_dir, cloud, tokens[edge_id])
        edge_env = {k: v for k, v in env.items() if not k.startswith("DGRAG__")} | launch.settings
        servers.append(Server(edge_id, ["edge", "serve", "--data-dir", str(data_dir)], work, edge_env))
    for server in servers:
        server.wait_ready()
    return servers


def end_to_end(work: Path, bench: Path, servers: list[Server], count: int) -> dict[str, Any]:
    """``count`` of the bundle's questions, each asked at an edge that does not hold its evidence (so that it
    goes to the cloud): seconds from asking to the answer, p50 and p95, and how each was answered."""
    by_id = {s.name: s for s in servers}
    asked = [q for q in load_questions(bench) if q.home_edges and any(e not in q.home_edges for e in by_id)]
    seconds, decisions = [], []
    for question in asked[:count]:
        edge = next(e for e in by_id if e not in question.home_edges)
        cmd = [*dgrag_command(), "edge", "ask", "--server", by_id[edge].address, "--json"]
        cmd += ["--token-file", str(api_token_file(work, edge)), question.question]
        began = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        seconds.append(time.perf_counter() - began)
        decisions.append(
            json.loads(done.stdout)["decision"] if done.returncode == 0 else f"failed: {done.stderr[-200:]}"
        )
    cuts = statistics.quantiles(seconds, n=20) if len(seconds) > 1 else seconds * 19
    return {
        "p50_s": round(statistics.median(seconds), 2),
        "p95_s": round(cuts[18], 2),
        "n": len(seconds),
        "decisions": decisions,
    }
