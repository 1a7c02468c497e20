"""The swarm's summaries are distinct per edge, and its table is computed from the runs' swarm.json."""

from __future__ import annotations

import json
from pathlib import Path

from simulation.swarm_pool import summary_pool, varied
from simulation.swarm_report import main as report_main
from simulation.swarm_report import table

POOL = [f"Summary {i}. Key entities: Name{i}, Place{i}." for i in range(7)]


def test_no_two_edges_publish_the_same_summary() -> None:
    texts = [t for edge in range(500) for t in varied(POOL, edge, 5)]
    assert len(set(texts)) == len(texts)
    assert summary_pool(Path("/nonexistent")), "without a cache the bundles' documents stand in"


def _run(edges: int) -> dict[str, object]:
    return {
        "options": {"edges": str(edges), "summaries_per_edge": "5", "workers": "4"},
        "cold_start_s": 1.5,
        "embedded_cold": edges * 5,
        "cloud_peak_rss_mb": 100.0,
        "routing_stage_one": {"p50_ms": 1.0, "p95_ms": 2.0},
        "routing_check_evidence": {"p50_ms": 30.0, "p95_ms": 50.0},
        "idle": {"bytes_per_edge_hour": 40000},
        "restart_s": 20.0,
        "embedded_after_restart": 0,
        "summary_messages_resent": edges,
        "summary_bytes_resent": 4 * edges,
        "sessions_lost": 0,
    }


def test_the_table_has_one_row_per_fleet_size_in_order(tmp_path: Path) -> None:
    for n in (1000, 10):
        (tmp_path / str(n)).mkdir()
        (tmp_path / str(n) / "swarm.json").write_text(json.dumps(_run(n)))
    rows = table([_run(1000), _run(10)]).splitlines()
    assert "| - |" in rows[2]
    assert rows[2].startswith("| 10 | plaintext | 4 processes | 50 |")
    assert rows[3].startswith("| 1000 | plaintext | 4 processes | 5000 |")
    assert report_main([str(tmp_path / "1000"), str(tmp_path / "10"), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "swarm.png").stat().st_size > 1000
