"""`dgrag sim run --edges-per-host 3`: six edges served by two host processes (one shared SLM each) give the
same decisions as one process per edge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.conftest import SixEdgeRun
from tests.integration.six_edges import decisions, sim_run

pytestmark = pytest.mark.integration


def test_two_hosts_of_three_edges_decide_as_six_processes(six_edge_run: SixEdgeRun, tmp_path: Path) -> None:
    report = json.loads((six_edge_run.out / "report.json").read_text())
    hosts = report["hosts"]
    assert len(hosts) == 2, hosts
    assert all(h["peak_rss_bytes"] > 50 * 2**20 for h in hosts.values())
    assert report["backend"] == {"backend": "local"}
    assert len(six_edge_run.rows) == 2 * 6, "3 questions within and out of domain, in 2 modes"
    single = sim_run(six_edge_run.bench, tmp_path / "single", six_edge_run.cache, 1)
    assert decisions(six_edge_run.rows) == decisions(single)
