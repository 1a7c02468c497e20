"""report.md: the tables a researcher reads first, rendered from simulation.report.build_report's data.

Missing values print as an em dash. Percentages are shares of rows (one row per question asked at one
edge in one mode), seconds are p50/p95 over the rows where a phase was timed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from simulation.bundle import ANSWERABLE_KINDS
from simulation.markdown_table import DASH, pct, table
from simulation.plots import ACCURACY_PNG, JUDGE_PNG, LATENCY_PNG, RELIABILITY_PNG, SUMMARY_HIT_PNG, available_plots
from simulation.provenance import provenance_markdown
from simulation.report import DGRAG_MODE, GROUPS, PAPER_TARGETS, RATIO_KEY, REPORTED_HITS
from simulation.report_markdown_reading import calibration_section, halves_section, shapes_section

ROUTING = ("escalation_within", "escalation_out", *(f"summary_hit@{m}" for m in REPORTED_HITS), "route_recall@k")
FIGURE_CAPTIONS = {
    SUMMARY_HIT_PNG: "Summary hit rate vs top-m (star: the paper's 95.8% at m=1)",
    LATENCY_PNG: "Latency per phase, p50 stacked, local vs cloud answers",
    ACCURACY_PNG: "Strict accuracy per mode (dashes: the shape-aware baseline of the same rows)",
    JUDGE_PNG: "LLM-judge win rate of the first mode of each pair, per criterion",
    RELIABILITY_PNG: "Reliability: accuracy against the confidence answers carried, per tenth (area: asks)",
}
EDGE_COLUMNS = ("documents", "chunks", "entities", "relations", "summaries")
_MET = {True: "yes", False: "no", None: DASH}


def render_markdown(report: Mapping[str, Any], plots: Sequence[str] | None = None) -> str:
    """The report as Markdown; ``plots`` names the PNGs to link (default: those the report has data for)."""
    modes: Mapping[str, Mapping[str, Any]] = report.get("modes", {})
    parts = [
        _header(report),
        _accuracy(modes),
        shapes_section(modes),
        calibration_section(modes),
        halves_section(report.get("halves")),
        _routing(report),
        _evidence(modes),
        _latency(modes),
        _bytes(modes),
        _generation(modes),
        _edges(report),
        _machine(report),
        _judge(report),
        _figures(available_plots(report) if plots is None else plots),
    ]
    return "\n\n".join(p for p in parts if p).rstrip() + "\n"


def secs(value: float | None) -> str:
    return DASH if value is None else f"{value:.3f}"


def size(value: float | None) -> str:
    if value is None:
        return DASH
    for unit in ("B", "KiB", "MiB"):
        if abs(value) < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.2f} GiB"


def _header(report: Mapping[str, Any]) -> str:
    run = report.get("run", {})
    modes = report.get("modes", {})
    facts = [f"modes {', '.join(modes) or DASH}", f"{sum(m['n']['all'] for m in modes.values())} answer rows"]
    facts += [f"{key} {run[key]}" for key in ("limit", "half", "seed", "top_m", "top_k") if run.get(key) is not None]
    if hosts := report.get("hosts"):
        backend = report.get("backend") or {}
        nodes = f" on {backend['nodes']} Ray node(s)" if backend.get("backend") == "ray" else ""
        facts.append(f"{len(hosts)} host process(es), {run.get('edges_per_host') or 1} edge(s) per host{nodes}")
    if run.get("wall_seconds") is not None:
        facts.append(f"wall time {run['wall_seconds'] / 60:.1f} min")
    if restart := report.get("cloud_restart"):
        facts.append(
            f"cloud restarted after the edges synced: all {restart['summaries']} summaries of {restart['edges']} edges"
            f" held again {restart['resync_seconds']:.1f} s after it was up ({restart['total_seconds']:.1f} s from"
            " the stop)"
        )
    if run.get("resumed_asks"):
        facts.append(f"{run['resumed_asks']} asks taken from an interrupted earlier sitting (not in the wall time)")
    made = provenance_markdown(report.get("provenance"))
    head = f"# Simulation report: {run.get('bench') or 'unnamed bench'}\n\n" + "; ".join(facts) + "."
    return head + (f"\n\n{made}" if made else "")


def _accuracy(modes: Mapping[str, Mapping[str, Any]]) -> str:
    rows = []
    for mode, data in modes.items():
        cells = [mode]
        for group in GROUPS:
            base = (data.get("baseline") or {}).get(group)
            cells += [f"{pct(data['accuracy'][group])} (n={data['n'][group]})", pct(base and base["accuracy"])]
        rows.append(cells)
    head = ["mode"] + [name for g in GROUPS for name in (g, "baseline")]
    return (
        "## Accuracy\n\n"
        + table(head, rows)
        + "\n\nStrict: the short answer alone is judged (no credit from a quote, an extract or a cited id); yes/no "
        "by its first word, with the other verdict absent; names and short golds whole, not in a list of "
        "candidates; open golds by two thirds of their content words within a short answer; unanswerable ones "
        "must decline (simulation/scoring.py). 'baseline' knows each question's shape: yes/no asks the more "
        "frequent verdict, the others their most frequent gold, over the same rows."
    )


def _routing(report: Mapping[str, Any]) -> str:
    modes: Mapping[str, Mapping[str, Any]] = report.get("modes", {})
    goals: Mapping[str, str] = report.get("goals", {})
    head = ["mode", *ROUTING]
    rows = [[mode, *(pct(data.get(metric)) for metric in ROUTING)] for mode, data in modes.items()]
    rows.append(["paper", *(pct(PAPER_TARGETS.get(metric)) for metric in ROUTING)])
    rows.append(["goal", *(_goal(metric, goals.get(metric)) for metric in ROUTING)])
    standing_rows = [
        [name, _value(name, s["value"]), pct(s["paper"]), _goal(name, s["goal"]), _MET[s["met"]]]
        for name, s in report.get("standing", {}).items()
    ]
    return (
        "## Routing\n\n"
        + table(head, rows)
        + "\n\nescalation: share of within-/out-of-domain questions sent to the cloud (by the gate, or by the evidence "
        "check when gate.check_other_edges is on). summary_hit@m: share "
        "of answerable questions whose top-m cloud summaries include one from a home edge (each answerable "
        "question is asked twice, within and out, and counts twice; '—': the mode has no gate or no routing). "
        f"route_recall@k (k = {report.get('run', {}).get('top_k') or DASH}, or the adaptive k of two-stage routing): "
        "share of escalated answerable questions whose chosen edges include a home edge.\n\n"
        + _probing(modes)
        + f"### Standing of mode {DGRAG_MODE} against the goals\n\n"
        + table(["target", DGRAG_MODE, "paper", "goal", "met"], standing_rows)
    )


def _probing(modes: Mapping[str, Mapping[str, Any]]) -> str:
    """The two-stage routing table, when some mode probed."""
    rows = []
    for mode, data in modes.items():
        probing, fan_out = data.get("probing") or {}, data.get("fan_out") or {}
        if probing.get("queries"):
            asked = f"{fan_out.get('edges_asked_mean') or 0:.2f}"
            rows.append(
                [
                    mode,
                    str(probing["queries"]),
                    pct(probing["stage1_hit"]),
                    pct(probing["stage2_hit@1"]),
                    asked,
                    f"{probing['probe_bytes_mean']:.0f}",
                ]
            )
    if not rows:
        return ""
    head = ["mode", "probed queries", "stage 1 hit", "stage 2 hit@1", "edges asked (mean)", "probe bytes"]
    return (
        "Two-stage routing (escalated answerable questions that were probed): stage 1 hit = a home edge was on "
        "the summary shortlist; stage 2 hit@1 = the first edge asked is a home edge.\n\n" + table(head, rows) + "\n\n"
    )


def _evidence(modes: Mapping[str, Mapping[str, Any]]) -> str:
    rows = [
        [mode, *(pct(data["evidence_recall"][g]) for g in (*ANSWERABLE_KINDS, "all"))] for mode, data in modes.items()
    ]
    return (
        "## Evidence recall\n\n"
        + table(["mode", "within", "out", "all answerable"], rows)
        + "\n\nMean share of gold evidence documents present in the context the final answer was made from."
    )


def _generation(modes: Mapping[str, Mapping[str, Any]]) -> str:
    rows = []
    for mode, data in modes.items():
        deg, speed = data.get("degeneracy") or {}, data.get("model_speed") or {}
        if not deg and not speed:
            continue
        tok_s = [DASH if speed.get(k) is None else f"{speed[k]:.0f}" for k in ("prefill_tok_s", "decode_tok_s")]
        rows.append(
            [
                mode,
                str(deg.get("generations", DASH)),
                pct(deg.get("degenerate_share")),
                pct(deg.get("extractive_answers")),
                *tok_s,
            ]
        )
    if not rows:
        return ""
    head = [
        "mode",
        "texts generated",
        "degenerate (caught)",
        "answers shown as extracts",
        "prefill tok/s",
        "decode tok/s",
    ]
    return (
        "## Generations\n\n"
        + table(head, rows)
        + "\n\nA degenerate text (a repetition loop, a list explosion, an echo of the prompt, or words the context "
        "never mentions) counts as a refusal for the gate and is never shown; where no trusted answer remains the "
        "answer is an extract of the context. Tokens/s are llama.cpp's own timings of the edge's answer calls."
    )


def _machine(report: Mapping[str, Any]) -> str:
    machine = report.get("machine")
    if not machine:
        return ""
    libs = ", ".join(f"{k} {v}" for k, v in (machine.get("libraries") or {}).items())
    threads = ", ".join(f"{k}={v}" for k, v in (machine.get("threads") or {}).items())
    features = " ".join(machine.get("cpu_features") or []) or DASH
    return (
        "## Machine\n\n"
        f"- CPU: {machine.get('cpu_model')}, {machine.get('cores')} cores; features: {features}\n"
        f"- llama.cpp: {machine.get('llama_system_info') or DASH}\n"
        f"- threads: {threads or DASH}\n"
        f"- Python {machine.get('python')}; {libs}"
    )


def _latency(modes: Mapping[str, Mapping[str, Any]]) -> str:
    def cell(stats: Mapping[str, Any], phase: str) -> list[str]:
        s = stats.get(phase)
        return [secs(s["p50"]), secs(s["p95"])] if s else [DASH, DASH]

    splits = ("local", "escalated", "all")
    head = ["mode"] + [f"{split} {q}" for split in splits for q in ("p50", "p95")]
    totals = [
        [mode] + [c for split in splits for c in cell(data["latency"][split], "total")] for mode, data in modes.items()
    ]
    out = [
        "## Latency (seconds)\n\nEnd-to-end ('total') per mode; 'local' = answered at the asking edge, 'escalated' = "
        "answered by the cloud; 'all' also counts escalations that got no cloud answer.\n\n" + table(head, totals)
    ]
    detail = DGRAG_MODE if DGRAG_MODE in modes else next(iter(modes), None)
    if detail is not None:
        latency = modes[detail]["latency"]
        phases = list(latency["all"])
        rows = [[phase] + [c for split in splits for c in cell(latency[split], phase)] for phase in phases]
        out.append(
            f"### Per phase, mode {detail}\n\n"
            + table(["phase", *head[1:]], rows)
            + "\n\n'escalation' contains 'cloud.total', which contains the other cloud phases; percentiles of "
            "phases do not add up to the percentile of the total. 'first_shown' is when the asker sees words: the "
            "first piece of the cloud's draft where it streams one (free text), else the whole answer."
        )
    return "\n\n".join(out)


def _bytes(modes: Mapping[str, Mapping[str, Any]]) -> str:
    rows = [
        [mode, size(b["mean"]), size(b["p95"]), size(b["escalated_mean"])]
        for mode, data in modes.items()
        for b in [data["bytes_per_query"]]
    ]
    return (
        "## Bytes that left the edges per query\n\n"
        + table(["mode", "mean", "p95", "mean when answered by the cloud"], rows)
        + "\n\nSummed over edges: the question sent to the cloud plus the retrieval replies of the edges asked."
    )


def _edges(report: Mapping[str, Any]) -> str:
    edges: dict[str, Mapping[str, Any]] = dict(report.get("edges", {}))
    if report.get("central"):
        edges["central (all docs)"] = report["central"]
    if not edges:
        return ""
    with_queries = any(e.get("query_bytes") is not None for e in edges.values())
    head = ["edge", *EDGE_COLUMNS, "index s", "storage", "bytes left (construction)"]
    head += ["bytes left (queries)"] * with_queries + ["peak RSS (serving)", "peak RSS (indexing)"]
    rows = []
    for name, e in edges.items():
        index = secs(e.get("index_seconds")) + (" (cached)" if e.get("index_cached") else "")
        cells = [name, *(DASH if e.get(c) is None else str(e[c]) for c in EDGE_COLUMNS), index]
        cells += [size(e.get("storage_bytes")), size(e.get("construction_bytes"))]
        cells += [size(e.get("query_bytes"))] * with_queries
        cells += [size(e.get("peak_rss_bytes")), size(e.get("index_peak_rss_bytes"))]
        rows.append(cells)
    cloud_rss = (report.get("cloud") or {}).get("peak_rss_bytes")
    return (
        "## Construction per edge\n\n"
        + table(head, rows)
        + "\n\n'bytes left (construction)' is what the edge sent while building (summaries published); raw chunks "
        "never leave in this phase. 'bytes left (queries)', where measured, is what it sent over the whole run "
        "(questions escalated, retrieval replies). '(cached)': the index came from the on-disk cache; its seconds and "
        f"indexing RSS are those of the run that built it. Cloud peak RSS: {size(cloud_rss)}."
    )


def _judge(report: Mapping[str, Any]) -> str:
    judge = report.get("judge") or {}
    pairs: Mapping[str, Mapping[str, Any]] = judge.get("pairs") or {}
    if not pairs:
        return ""
    criteria = list(next(iter(pairs.values()))["criteria"])
    counts = ("asks", "identical", "blank", "invalid")
    rows = [
        [label, *(str(p[c]) for c in counts), pct(p["consistency"])]
        + [pct(p["criteria"][c]["win_rate"]) for c in criteria]
        + [pct(p["overall_by_kind"].get(k)) for k in ANSWERABLE_KINDS]
        for label, p in pairs.items()
    ]
    head = ["pair", "asks judged", "identical", "blank", "invalid verdicts", "order-consistent", *criteria]
    return (
        f"## LLM-judge win rates (judge: {judge.get('model', DASH)})\n\n"
        + table([*head, "overall within", "overall out"], rows)
        + "\n\nWin rate of the first mode of the pair over the asks (an answerable question asked at one edge), "
        "each judged in both answer orders. Not judged: identical answers (e.g. dgrag and local when dgrag "
        "answered locally) and blank ones. 'order-consistent': both orders named the same overall winner."
    )


def _figures(names: Sequence[str]) -> str:
    if not names:
        return ""
    links = [f"![{FIGURE_CAPTIONS.get(n, n)}]({n})" for n in names]
    return "## Figures\n\n" + "\n\n".join(links)


def _value(name: str, value: float | None) -> str:
    """Shares as percentages; the accuracy ratio as a multiple."""
    if name != RATIO_KEY:
        return pct(value)
    return DASH if value is None else f"{value:.2f}x"


def _goal(name: str, goal: str | None) -> str:
    if not goal:
        return DASH
    symbol = {">=": "≥", "<=": "≤"}.get(goal[:2], goal[:2])
    return f"{symbol} {_value(name, float(goal[2:]))}"
