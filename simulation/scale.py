"""``dgrag sim scale``: one bundle at several edge counts, one report with curves against N.

    dgrag sim scale --bench simulation/bundles/multihop4 --edges 4,16,64 --by source --out runs/scale \
        [--limit 30] [--modes dgrag] [--edges-per-host 16]

For each N it derives the N-edge bundle (``OUT/bundles/N``, as ``dgrag sim split``), runs the simulation on
it (``OUT/runs/N``, resumable like any run; a finished N is not run again) and collects from its report:
summary hit@1/@3, route recall, escalation within/out, evidence recall, bytes per query, the cloud's summary
match and fan-out p50/p95, total and per-edge RSS and indexing time. Writes ``OUT/scale.json``,
``OUT/scale.md`` and ``OUT/scale.png``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simulation.report_files import REPORT_FILE
from simulation.runner import SimOptions, run
from simulation.split import split_bundle

SCALE_JSON = "scale.json"
SCALE_MD = "scale.md"
SCALE_PNG = "scale.png"
MODE = "dgrag"


def _get(report: dict[str, Any], *path: str) -> Any:
    node: Any = report
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def point(n_edges: int, report: dict[str, Any]) -> dict[str, Any]:
    """The figures of one run that the scaling report plots."""
    mode = _get(report, "modes", MODE) or {}
    latency = _get(mode, "latency", "all") or {}
    edges = report.get("edges") or {}
    hosts = report.get("hosts") or {}
    edge_rss = [e.get("peak_rss_bytes", 0) for e in edges.values()]
    total_rss = sum(h.get("peak_rss_bytes", 0) for h in hosts.values()) if hosts else sum(edge_rss)
    total_rss += int(_get(report, "cloud", "peak_rss_bytes") or 0)
    return {
        "edges": n_edges,
        "summary_hit@1": mode.get("summary_hit@1"),
        "summary_hit@3": mode.get("summary_hit@3"),
        "route_recall@k": mode.get("route_recall@k"),
        "escalation_within": mode.get("escalation_within"),
        "escalation_out": mode.get("escalation_out"),
        "evidence_recall": _get(mode, "evidence_recall", "all"),
        "bytes_per_query": _get(mode, "bytes_per_query", "mean"),
        "summary_match_p50_s": _get(latency, "cloud.summary_match", "p50"),
        "summary_match_p95_s": _get(latency, "cloud.summary_match", "p95"),
        "fan_out_p50_s": _get(latency, "cloud.fan_out", "p50"),
        "fan_out_p95_s": _get(latency, "cloud.fan_out", "p95"),
        "hosts": len(hosts),
        "total_rss_gb": round(total_rss / 2**30, 2),
        "rss_per_edge_mb": round(total_rss / 2**20 / max(n_edges, 1), 1),
        "index_seconds": round(sum(e.get("index_seconds", 0.0) for e in edges.values()), 1),
    }


def scale(
    bench: Path,
    counts: list[int],
    by: str,
    out: Path,
    options: SimOptions,
    seed: int = 0,
    runner: Callable[[SimOptions], dict[str, Any]] = run,
) -> list[dict[str, Any]]:
    """Split, run and collect each N; returns the points (also written to ``out``)."""
    points = []
    for n in counts:
        bundle = out / "bundles" / str(n)
        if not (bundle / "questions.jsonl").is_file():
            split_bundle(bench, n, by, bundle, seed)
        run_dir = out / "runs" / str(n)
        report_file = run_dir / REPORT_FILE
        if not report_file.is_file():
            runner(dataclasses.replace(options, bench=bundle, out=run_dir))
        points.append(point(n, json.loads(report_file.read_text(encoding="utf-8"))))
    setup = {
        "bench": str(bench),
        "by": by,
        "backend": options.backend,
        "edges_per_host": options.edges_per_host,
        "limit": options.limit,
        "seed": seed,
        "modes": list(options.modes),
    }
    (out / SCALE_JSON).write_text(json.dumps({**setup, "points": points}, indent=2) + "\n")
    (out / SCALE_MD).write_text(render(setup, points), encoding="utf-8")
    plot(points, out / SCALE_PNG)
    return points


def render(setup: dict[str, Any], points: list[dict[str, Any]]) -> str:
    keys = [k for k in points[0] if k != "edges"] if points else []
    lines = [
        f"# Scaling: {setup['bench']} split by {setup['by']}",
        "",
        f"Backend {setup['backend']}, {setup['edges_per_host']} edges per host, modes {', '.join(setup['modes'])}, "
        f"{setup['limit'] or 'all'} questions sampled with seed {setup['seed']}.",
        "",
        "| figure | " + " | ".join(f"N={p['edges']}" for p in points) + " |",
    ]
    lines.append("|---|" + "---|" * len(points))
    for key in keys:
        cells = [_cell(p.get(key)) for p in points]
        lines.append(f"| {key} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}" if value < 10 else f"{value:.1f}"
    return str(value)


def plot(points: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = [p["edges"] for p in points]
    panels = [
        ("routing", ["summary_hit@1", "summary_hit@3", "route_recall@k", "evidence_recall"]),
        ("escalation", ["escalation_within", "escalation_out"]),
        ("cloud latency (s)", ["summary_match_p95_s", "fan_out_p95_s"]),
        ("memory", ["total_rss_gb"]),
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4))
    for ax, (title, keys) in zip(axes, panels, strict=True):
        for key in keys:
            ax.plot(n, [p.get(key) if p.get(key) is not None else float("nan") for p in points], marker="o", label=key)
        ax.set_xscale("log", base=2)
        ax.set_xticks(n, [str(x) for x in n])
        ax.set_xlabel("edges")
        ax.set_title(title)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
