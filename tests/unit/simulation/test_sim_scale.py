"""``dgrag sim scale`` without processes: split each N, run (a stand-in runner), collect, report, plot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from simulation.bundle import load_edges
from simulation.report_files import REPORT_FILE
from simulation.runner import SimOptions
from simulation.scale import SCALE_JSON, SCALE_MD, SCALE_PNG, scale
from tests.support.paths import REPO

BUNDLE = REPO / "simulation" / "bundles" / "multihop4"


def fake_run(options: SimOptions) -> dict[str, Any]:
    n = len(load_edges(options.bench))
    report = {
        "modes": {
            "dgrag": {
                "summary_hit@1": 1.0 / n,
                "summary_hit@3": 0.9,
                "route_recall@k": 0.8,
                "escalation_within": 0.2,
                "escalation_out": 0.9,
                "evidence_recall": {"all": 0.5},
                "bytes_per_query": {"mean": 1000.0 * n},
                "latency": {
                    "all": {
                        "cloud.summary_match": {"p50": 0.01, "p95": 0.02},
                        "cloud.fan_out": {"p50": 0.05, "p95": 0.08},
                    }
                },
            }
        },
        "edges": {f"e{i}": {"peak_rss_bytes": 2**28, "index_seconds": 2.0} for i in range(n)},
        "hosts": {"host-0": {"peak_rss_bytes": 2**30}},
        "cloud": {"peak_rss_bytes": 2**29},
    }
    options.out.mkdir(parents=True)
    (options.out / REPORT_FILE).write_text(json.dumps(report))
    return report


def test_each_count_is_split_run_and_reported(tmp_path: Path) -> None:
    calls: list[Path] = []

    def runner(options: SimOptions) -> dict[str, Any]:
        calls.append(options.bench)
        return fake_run(options)

    out = tmp_path / "scale"
    options = SimOptions(bench=BUNDLE, out=out, modes=("dgrag",), limit=10)
    points = scale(BUNDLE, [4, 8], "source", out, options, runner=runner)
    assert [p["edges"] for p in points] == [4, 8] and [c.name for c in calls] == ["4", "8"]
    assert len(load_edges(out / "bundles" / "8")) == 8
    assert points[1]["summary_hit@1"] == 1 / 8 and points[1]["total_rss_gb"] == 1.5
    assert points[1]["index_seconds"] == 16.0 and points[0]["bytes_per_query"] == 4000.0
    assert json.loads((out / SCALE_JSON).read_text())["points"] == points
    markdown = (out / SCALE_MD).read_text()
    assert "| summary_hit@1 |" in markdown and (out / SCALE_PNG).stat().st_size > 1000
    assert "| bytes_per_query | 4000.0 | 8000.0 |" in markdown, "large figures are rounded"
    assert "Backend local, 1 edges per host, modes dgrag, 10 questions sampled with seed 0." in markdown
    scale(BUNDLE, [4, 8], "source", out, options, runner=runner)
    assert len(calls) == 2, "a finished N is not run again"
