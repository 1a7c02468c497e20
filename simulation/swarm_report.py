"""The swarm runs of several fleet sizes as one table and one figure against the number of edges.

    python -m simulation.swarm_report RUN [RUN ...] --out DIR     # each RUN holds a swarm.json

Writes ``DIR/swarm.md`` (the table, from the runs' swarm.json, which are copied beside it as rows) and
``DIR/swarm.png`` (each figure of the plaintext runs on worker processes against N, log scale).
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

COLUMNS: tuple[tuple[str, str], ...] = (
    ("edges", "edges"),
    ("transport", "transport"),
    ("workers", "workers"),
    ("summaries", "summaries"),
    ("cold start: held s", "cold_start_s"),
    ("cold start: embedded s", "cold_embedded_s"),
    ("embedded", "embedded_cold"),
    ("cloud RSS MB", "cloud_peak_rss_mb"),
    ("cloud CPU s", "cloud_cpu_s"),
    ("stage 1 p50 / p95 ms, swarm running", "stage_one"),
    ("stage 1 p50 / p95 ms, idle", "stage_one_idle"),
    ("CheckEvidence p50 / p95 ms", "check_evidence"),
    ("question at a real edge p50 / p95 s", "end_to_end"),
    ("idle bytes / edge / h", "idle_bytes"),
    ("restart s", "restart_s"),
    ("re-embedded", "embedded_after_restart"),
    ("summary msgs / bytes re-sent", "resent"),
    ("sessions lost", "sessions_lost"),
)


def row(run: dict[str, Any]) -> dict[str, Any]:
    """One run's figures by column key."""
    opts = run["options"]
    edges, per = int(opts["edges"]), int(opts["summaries_per_edge"])
    stage, check = run["routing_stage_one"], run["routing_check_evidence"]
    return {
        "edges": edges,
        "transport": "mutual TLS" if opts.get("tls") == "True" else "plaintext",
        "workers": f"{opts['workers']} {'Ray actors' if opts.get('ray') == 'True' else 'processes'}",
        "summaries": edges * per,
        "cold_start_s": run["cold_start_s"],
        "cold_embedded_s": run.get("cold_embedded_s", run["cold_start_s"]),
        "embedded_cold": run["embedded_cold"],
        "cloud_peak_rss_mb": run["cloud_peak_rss_mb"],
        "cloud_cpu_s": run.get("cloud_cpu_s", "-") if "restarted_cloud_cpu_s" in run else "-",
        "stage_one": f"{stage['p50_ms']} / {stage['p95_ms']}",
        "stage_one_idle": f"{idle['p50_ms']} / {idle['p95_ms']}"
        if (idle := run.get("routing_stage_one_idle"))
        else "-",
        "check_evidence": f"{check['p50_ms']} / {check['p95_ms']}",
        "end_to_end": f"{real['p50_s']} / {real['p95_s']} (n={real['n']})" if (real := run.get("real_edges")) else "-",
        "idle_bytes": run["idle"]["bytes_per_edge_hour"],
        "restart_s": run["restart_s"],
        "embedded_after_restart": run["embedded_after_restart"],
        "resent": f"{run['summary_messages_resent']} / {run['summary_bytes_resent']}",
        "sessions_lost": run["sessions_lost"],
    }


def table(runs: Sequence[dict[str, Any]]) -> str:
    rows = sorted((row(r) for r in runs), key=lambda r: (r["edges"], r["transport"], r["workers"]))
    lines = ["| " + " | ".join(name for name, _ in COLUMNS) + " |", "|" + "---:|" * len(COLUMNS)]
    lines += ["| " + " | ".join(str(r[key]) for _, key in COLUMNS) + " |" for r in rows]
    return "\n".join(lines)


def plot(runs: Sequence[dict[str, Any]], path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    plain = [r for r in runs if r["options"].get("tls") != "True" and r["options"].get("ray") != "True"]
    ordered = sorted(plain, key=lambda r: int(r["options"]["edges"]))
    n = [int(r["options"]["edges"]) for r in ordered]
    panels = (
        (
            "cold start (s)",
            {
                "every summary held": [r["cold_start_s"] for r in ordered],
                "every summary embedded": [r.get("cold_embedded_s", r["cold_start_s"]) for r in ordered],
            },
        ),
        ("cloud RSS (MB)", [r["cloud_peak_rss_mb"] for r in ordered]),
        ("stage 1 p95 (ms)", [r["routing_stage_one"]["p95_ms"] for r in ordered]),
        ("restart back to every summary (s)", [r["restart_s"] for r in ordered]),
        ("idle bytes per edge per hour", [r["idle"]["bytes_per_edge_hour"] for r in ordered]),
        ("CheckEvidence p95 (ms)", [r["routing_check_evidence"]["p95_ms"] for r in ordered]),
    )
    fig = Figure(figsize=(10.0, 6.0), layout="constrained")
    FigureCanvasAgg(fig)
    for i, (title, values) in enumerate(panels, 1):
        ax = fig.add_subplot(2, 3, i)
        series: dict[str, list[float]] = values if isinstance(values, dict) else {"": list(values)}
        for label, ys in series.items():
            ax.plot(n, ys, marker="o", label=label or None)
        if len(series) > 1:
            ax.legend(fontsize=7)
        ax.set_xscale("log")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("edges", fontsize=8)
    fig.savefig(path, dpi=110, format="png")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m simulation.swarm_report", description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", type=Path, help="swarm run directories, each holding swarm.json")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    runs = []
    for run in args.runs:
        data = json.loads((run / "swarm.json").read_text(encoding="utf-8"))
        runs.append(data)
        kind = "-tls" if data["options"].get("tls") == "True" else ""
        kind += "-ray" if data["options"].get("ray") == "True" else ""
        shutil.copyfile(run / "swarm.json", args.out / f"swarm-{data['options']['edges']}{kind}.json")
    (args.out / "swarm.md").write_text(table(runs) + "\n", encoding="utf-8")
    plot(runs, args.out / "swarm.png")
    print(table(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
