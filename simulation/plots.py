"""PNG figures of a simulation report (the data of simulation.report.build_report).

Figures are drawn on the Agg canvas directly (no pyplot, no global backend switch), so importing this
module or calling it has no side effect beyond the files it writes. A figure whose data is absent is
skipped, and ``write_plots`` returns only the files it wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from simulation.report import DGRAG_MODE, GOALS, HIT_DEPTHS, KINDS, LEAF_PHASES, PAPER_TARGETS

SUMMARY_HIT_PNG = "summary_hit_vs_m.png"
LATENCY_PNG = "latency_breakdown.png"
ACCURACY_PNG = "accuracy_by_mode.png"
JUDGE_PNG = "judge_win_rates.png"
RELIABILITY_PNG = "reliability.png"
GOALS_HIT = float(GOALS["summary_hit@1"][2:])
KIND_LABELS = {"within": "within-domain", "out": "out-of-domain", "unanswerable": "unanswerable"}
SPLIT_LABELS = {"local": "answered locally", "escalated": "answered by the cloud"}


def available_plots(report: Mapping[str, Any]) -> list[str]:
    """File names of the figures this report has data for, in the order ``write_plots`` writes them."""
    names = []
    if _hit_curves(report):
        names.append(SUMMARY_HIT_PNG)
    if _latency_bars(report)[1]:
        names.append(LATENCY_PNG)
    if _accuracy_modes(report):
        names.append(ACCURACY_PNG)
    if _judge_pairs(report):
        names.append(JUDGE_PNG)
    if _reliability_modes(report):
        names.append(RELIABILITY_PNG)
    return names


def write_plots(report: Mapping[str, Any], out_dir: Path) -> list[Path]:
    """Write every figure the report has data for into ``out_dir``; return the paths written."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name in available_plots(report):
        fig = Figure(figsize=(7.0, 4.2), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        if name == SUMMARY_HIT_PNG:
            _draw_summary_hits(ax, report)
        elif name == LATENCY_PNG:
            _draw_latency(ax, report)
        elif name == JUDGE_PNG:
            _draw_judge(ax, report)
        elif name == RELIABILITY_PNG:
            _draw_reliability(ax, report)
        else:
            _draw_accuracy(ax, report)
        path = out_dir / name
        fig.savefig(path, dpi=120, format="png")
        written.append(path)
    return written


def _hit_curves(report: Mapping[str, Any]) -> dict[str, list[float | None]]:
    curves: dict[str, list[float | None]] = {}
    for mode, data in report.get("modes", {}).items():
        curve = data.get("summary_hit_curve") or {}
        values = [curve.get(str(m)) for m in HIT_DEPTHS]
        if mode.startswith(DGRAG_MODE) and any(v is not None for v in values):
            curves[mode] = values
    return curves


def _latency_mode(report: Mapping[str, Any]) -> str | None:
    modes = report.get("modes", {})
    if DGRAG_MODE in modes:
        return DGRAG_MODE
    return next((m for m in modes if m.startswith(DGRAG_MODE)), None)


def _latency_bars(report: Mapping[str, Any]) -> tuple[str | None, dict[str, dict[str, float]]]:
    """The mode drawn and, per split with any timed leaf phase, the p50 seconds of each leaf phase."""
    mode = _latency_mode(report)
    if mode is None:
        return None, {}
    latency = report["modes"][mode].get("latency") or {}
    bars: dict[str, dict[str, float]] = {}
    for split in SPLIT_LABELS:
        stats = latency.get(split) or {}
        phases = {p: float(stats[p]["p50"]) for p in LEAF_PHASES if p in stats}
        if phases:
            bars[split] = phases
    return mode, bars


def _accuracy_modes(report: Mapping[str, Any]) -> list[str]:
    return [
        mode
        for mode, data in report.get("modes", {}).items()
        if any(data["accuracy"].get(k) is not None for k in KINDS)
    ]


def _draw_summary_hits(ax: Any, report: Mapping[str, Any]) -> None:
    for mode, values in _hit_curves(report).items():
        points = [(m, v) for m, v in zip(HIT_DEPTHS, values, strict=True) if v is not None]
        ax.plot([m for m, _ in points], [v for _, v in points], marker="o", label=mode)
    paper = PAPER_TARGETS["summary_hit@1"]
    ax.scatter([1], [paper], marker="*", s=160, color="black", zorder=5, label=f"paper, m=1 ({paper:.1%})")
    ax.set_xticks(list(HIT_DEPTHS))
    ax.set_ylim(0.0, 1.05)
    ax.set_xlabel("top-m summaries matched by the cloud")
    ax.axhline(GOALS_HIT, color="grey", linestyle=":", label=f"goal for hit@1 (≥{GOALS_HIT:.0%})")
    ax.set_ylabel("hit rate (answerable questions)")
    ax.set_title("Summary hit rate vs top-m")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")


def _draw_latency(ax: Any, report: Mapping[str, Any]) -> None:
    mode, bars = _latency_bars(report)
    splits = list(bars)
    labels = [SPLIT_LABELS[s] for s in splits]
    bottoms = [0.0] * len(splits)
    for phase in LEAF_PHASES:
        heights = [bars[s].get(phase, 0.0) for s in splits]
        if not any(heights):
            continue
        ax.bar(labels, heights, bottom=bottoms, label=phase, width=0.5)
        bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
    latency = report["modes"][mode]["latency"]
    totals = [
        (label, latency[s]["total"]["p50"]) for label, s in zip(labels, splits, strict=True) if "total" in latency[s]
    ]
    if totals:
        ax.scatter(
            [t[0] for t in totals],
            [t[1] for t in totals],
            marker="_",
            s=900,
            color="black",
            zorder=5,
            label="p50 of total",
        )
    ax.set_ylabel("seconds (p50 per phase, stacked)")
    ax.set_title(f"Latency per phase, mode {mode}")
    ax.legend(fontsize="small", loc="upper left")


def _draw_accuracy(ax: Any, report: Mapping[str, Any]) -> None:
    modes = _accuracy_modes(report)
    width = 0.8 / len(KINDS)
    baseline_labelled = False
    for i, kind in enumerate(KINDS):
        xs = [j + (i - (len(KINDS) - 1) / 2) * width for j in range(len(modes))]
        accuracy = [report["modes"][m]["accuracy"].get(kind) for m in modes]
        drawn = [(x, a) for x, a in zip(xs, accuracy, strict=True) if a is not None]
        ax.bar([x for x, _ in drawn], [a for _, a in drawn], width=width, label=KIND_LABELS[kind])
        for x, mode in zip(xs, modes, strict=True):
            base = (report["modes"][mode].get("baseline") or {}).get(kind)
            if base is None:
                continue
            ax.hlines(
                base["accuracy"],
                x - width / 2,
                x + width / 2,
                colors="black",
                linestyles="dashed",
                label=None if baseline_labelled else "shape-aware baseline",
            )
            baseline_labelled = True
    ax.set_xticks(list(range(len(modes))), modes)
    ax.set_ylim(0.0, 1.05)
    ax.set_ylabel("accuracy")
    ax.set_title("Accuracy per mode")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))


def _judge_pairs(report: Mapping[str, Any]) -> dict[str, Any]:
    pairs: dict[str, Any] = (report.get("judge") or {}).get("pairs") or {}
    return {label: p for label, p in pairs.items() if any(c["win_rate"] is not None for c in p["criteria"].values())}


def _draw_judge(ax: Any, report: Mapping[str, Any]) -> None:
    pairs = _judge_pairs(report)
    criteria = list(next(iter(pairs.values()))["criteria"])
    width = 0.8 / len(pairs)
    for i, (label, data) in enumerate(pairs.items()):
        xs = [j + (i - (len(pairs) - 1) / 2) * width for j in range(len(criteria))]
        rates = [data["criteria"][c]["win_rate"] for c in criteria]
        drawn = [(x, r) for x, r in zip(xs, rates, strict=True) if r is not None]
        ax.bar([x for x, _ in drawn], [r for _, r in drawn], width=width, label=f"{label} ({data['asks']} asks)")
    ax.axhline(0.5, color="grey", linestyle=":", label="tie (0.5)")
    ax.set_xticks(list(range(len(criteria))), criteria)
    ax.set_ylim(0.0, 1.05)
    ax.set_ylabel("win rate of the first mode (both answer orders)")
    ax.set_title(f"LLM-judge win rates ({(report.get('judge') or {}).get('model', '?')})")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))


def _reliability_modes(report: Mapping[str, Any]) -> list[str]:
    modes: Mapping[str, Any] = report.get("modes") or {}
    out = []
    for mode, data in modes.items():  # rows that carried no confidence (older runs, baselines) are not drawn
        tenths = ((data.get("calibration") or {}).get("by_tenth") or {}).values()
        if any(b["n"] and b["confidence"] for b in tenths):
            out.append(mode)
    return out


def _draw_reliability(ax: Any, report: Mapping[str, Any]) -> None:
    """Per mode and tenth of confidence: the asks' mean confidence against their accuracy (area: asks)."""
    ax.plot([0, 1], [0, 1], color="black", linestyle="dashed", linewidth=0.8, label="calibrated")
    for mode in _reliability_modes(report):
        tenths = report["modes"][mode]["calibration"]["by_tenth"].values()
        points = [(b["confidence"], b["accuracy"], b["n"]) for b in tenths if b["n"]]
        ax.scatter([p[0] for p in points], [p[1] for p in points], s=[12 * p[2] for p in points], alpha=0.6, label=mode)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.05)
    ax.set_xlabel("confidence the answer carried")
    ax.set_ylabel("strict accuracy")
    ax.set_title("Reliability: is an answer right as often as it says?")
    ax.legend(fontsize="small", loc="upper left")
