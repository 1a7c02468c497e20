"""The numbers of a simulation run: per-question rows + run info -> report.json data (docs/simulation.md, "Metrics").

Pure functions over plain data (the rows of OUT/answers.jsonl and the runner's run info); no processes,
no models. Every share is over the rows of one mode; a metric with no rows to judge is ``None`` (null in
JSON), never 0, so "not measured" cannot be read as "always wrong".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from simulation.bundle import ANSWERABLE_KINDS, ASK_KINDS
from simulation.metrics import evidence_recall, percentile
from simulation.report_calibration import coverage_by_shape, coverage_cell, reliability
from simulation.report_reading import halves_report, reading_report
from simulation.scoring import shape_baseline

Row = Mapping[str, Any]

KINDS = ASK_KINDS
GROUPS = (*KINDS, "all")
ANSWERABLE = ANSWERABLE_KINDS
HIT_DEPTHS = (1, 2, 3, 4, 5)
REPORTED_HITS = (1, 3, 5)
DGRAG_MODE = "dgrag"
CENTRAL_MODE = "central"
NAIVE_MODE = "naive"
ORACLE_MODE = "oracle"
PLAIN_MODE = "plain"
GATELESS_MODES = (NAIVE_MODE, CENTRAL_MODE, ORACLE_MODE, PLAIN_MODE)
"""Modes that never escalate (no gate; the all-documents store keeps its own answer; the oracle reads the gold
evidence): no escalation rates."""
RATIO_KEY = "dgrag_out_accuracy_vs_central"
DECISION_LOCAL = "local"
DECISION_CLOUD = "cloud"

PHASES = (
    "keywording",
    "retrieval",
    "generation",
    "gate",
    "escalation",
    "cloud.summary_match",
    "cloud.fan_out",
    "cloud.edge_retrieval",
    "cloud.transfers",
    "cloud.merge",
    "cloud.cloud_generation",
    "cloud.total",
    "total",
)
"""Known phases in reading order; ``escalation`` contains ``cloud.total``, which contains the other
``cloud.*`` phases (``cloud.fan_out`` = ``cloud.edge_retrieval`` + ``cloud.transfers``)."""

LEAF_PHASES = (
    "keywording",
    "retrieval",
    "generation",
    "gate",
    "cloud.summary_match",
    "cloud.edge_retrieval",
    "cloud.transfers",
    "cloud.merge",
    "cloud.cloud_generation",
)
"""Phases that do not contain one another, so they can be stacked."""

PAPER_TARGETS: dict[str, float] = {"summary_hit@1": 0.958, "escalation_within": 0.264, "escalation_out": 0.879}
GOALS: dict[str, str] = {
    "summary_hit@1": ">=0.97",
    "escalation_within": "<=0.15",
    "escalation_out": ">=0.95",
    RATIO_KEY: ">=0.9",
}
EDGE_KEYS = (
    "documents",
    "chunks",
    "entities",
    "relations",
    "summaries",
    "index_seconds",
    "storage_bytes",
    "construction_bytes",
    "query_bytes",
    "peak_rss_bytes",
    "index_peak_rss_bytes",
)


def routes(mode: str) -> bool:
    """Whether a mode's questions go through the cloud's routing: dgrag and its ablations (``dgrag-<x>``)."""
    return mode == DGRAG_MODE or mode.startswith(f"{DGRAG_MODE}-")


def build_report(rows: Iterable[Row], run_info: Mapping[str, Any]) -> dict[str, Any]:
    """The whole report.json: run facts, per-mode metrics, per-edge costs, paper targets, goals and standing."""
    by_mode: dict[str, list[Row]] = {str(m): [] for m in run_info.get("modes", [])}
    for row in rows:
        by_mode.setdefault(str(row["mode"]), []).append(row)
    modes = {mode: mode_report(mode_rows, mode) for mode, mode_rows in by_mode.items()}
    ratio = out_accuracy_ratio(modes)
    central = run_info.get("central")
    return {
        "run": {
            key: run_info.get(key)
            for key in (
                "bench",
                "modes",
                "limit",
                "half",
                "seed",
                "top_m",
                "top_k",
                "wall_seconds",
                "resumed_asks",
                "edges_per_host",
            )
        },
        "machine": run_info.get("machine"),
        "provenance": run_info.get("provenance"),
        "modes": modes,
        "halves": halves_report(by_mode),
        "edges": {str(e): _edge_costs(info) for e, info in sorted(run_info.get("edges", {}).items())},
        "central": _edge_costs(central) if central else None,
        "cloud": dict(run_info.get("cloud") or {}),
        "hosts": dict(run_info.get("hosts") or {}),
        "backend": dict(run_info.get("backend") or {"backend": "local"}),
        "edge_trust": run_info.get("edge_trust"),
        "cloud_restart": run_info.get("cloud_restart"),
        "config": run_info.get("config"),
        "paper_targets": dict(PAPER_TARGETS),
        "goals": dict(GOALS),
        RATIO_KEY: ratio,
        "standing": standing(modes.get(DGRAG_MODE), ratio),
    }


def mode_report(rows: Sequence[Row], mode: str) -> dict[str, Any]:
    """Every per-mode metric of docs/simulation.md "Metrics" over the rows of one mode."""
    groups = {kind: [r for r in rows if r["kind"] == kind] for kind in KINDS}
    groups["all"] = list(rows)
    answerable = [r for r in rows if r["kind"] in ANSWERABLE]
    curve = summary_hit_curve(answerable) if routes(mode) else {str(m): None for m in HIT_DEPTHS}
    gated = mode not in GATELESS_MODES
    out: dict[str, Any] = {
        "n": {g: len(groups[g]) for g in GROUPS},
        "accuracy": {g: _share(groups[g], lambda r: bool(r["correct"])) for g in GROUPS},
        "baseline": {g: _baseline(groups[g]) for g in GROUPS},
        "reading": reading_report(rows),
        "coverage": {g: coverage_cell(groups[g]) for g in GROUPS},
        "coverage_by_shape": {k: coverage_by_shape(groups[k]) for k in ANSWERABLE},
        "calibration": reliability(answerable),
        **{f"escalation_{k}": _share(groups[k], _escalated) if gated else None for k in KINDS},
    }
    for m in REPORTED_HITS:
        out[f"summary_hit@{m}"] = curve[str(m)]
    out["summary_hit_curve"] = curve
    out["route_recall@k"] = route_recall(answerable) if routes(mode) else None
    out["evidence_recall"] = {
        "within": _mean(_recalls(groups["within"])),
        "out": _mean(_recalls(groups["out"])),
        "all": _mean(_recalls(answerable)),
    }
    out["latency"] = latency(rows)
    out["bytes_per_query"] = _bytes(rows)
    out["fan_out"] = _fan_out(rows)
    out["probing"] = _probing([r for r in answerable if _escalated(r)])
    out["degeneracy"] = degeneracy_stats(rows)
    out["model_speed"] = model_speed(rows)
    return out


def degeneracy_stats(rows: Sequence[Row]) -> dict[str, float | int | None]:
    """Generated texts rejected as degenerate (shared.reading.answer_format), and answers shown as extracts instead."""
    generations = sum(int(r.get("generations") or 0) for r in rows)
    degenerate = sum(int(r.get("degenerate_generations") or 0) for r in rows)
    return {
        "generations": generations,
        "degenerate_generations": degenerate,
        "degenerate_share": degenerate / generations if generations else None,
        "extractive_answers": _share(rows, lambda r: bool(r.get("extractive"))),
    }


def model_speed(rows: Sequence[Row]) -> dict[str, float | None]:
    """Prefill and decode tokens/s over the edge's answer calls of these rows (as llama.cpp timed them)."""
    fresh = [r.get("model_speed") or {} for r in rows if not r.get("reused")]
    totals = {
        k: sum(float(s.get(k, 0.0)) for s in fresh)
        for k in ("prefill_tokens", "prefill_seconds", "decode_tokens", "decode_seconds")
    }
    return {
        "prefill_tok_s": totals["prefill_tokens"] / totals["prefill_seconds"] if totals["prefill_seconds"] else None,
        "decode_tok_s": totals["decode_tokens"] / totals["decode_seconds"] if totals["decode_seconds"] else None,
        "prefill_tokens": totals["prefill_tokens"],
    }


def summary_hit_curve(answerable: Sequence[Row]) -> dict[str, float | None]:
    """summary_hit@m for m = 1..5 over the answerable rows (keys are str(m)); a row whose ranking came back
    empty is a miss."""
    if not answerable:
        return {str(m): None for m in HIT_DEPTHS}
    return {str(m): sum(1 for r in answerable if _hit(r, m)) / len(answerable) for m in HIT_DEPTHS}


def route_recall(answerable: Sequence[Row]) -> float | None:
    """Share of escalated answerable rows whose chosen edges include a home edge; an escalation that reached no
    edge (cloud unreachable, nothing chosen) is a miss."""
    escalated = [r for r in answerable if _escalated(r)]
    return _share(escalated, lambda r: bool(set(r.get("edges_asked") or []) & set(r["home_edges"])))


def latency(rows: Sequence[Row]) -> dict[str, dict[str, dict[str, float]]]:
    """p50/p95 seconds per phase for all rows, local answers and cloud answers; a phase appears only where timed.

    Rows whose gate escalated without a cloud answer (decision 'escalate') count in 'all' only; rows that
    reuse an earlier answer (``reused``: the central store asked the same question twice) are not timed again.
    """
    rows = [r for r in rows if not r.get("reused")]
    splits = {
        "all": list(rows),
        "local": [r for r in rows if r.get("decision") == DECISION_LOCAL],
        "escalated": [r for r in rows if r.get("decision") == DECISION_CLOUD],
    }
    return {name: _phase_stats(split) for name, split in splits.items()}


def out_accuracy_ratio(modes: Mapping[str, Mapping[str, Any]]) -> float | None:
    """DGRAG's out-of-domain accuracy over Centralised's, when both were measured and Centralised's is not 0."""
    if DGRAG_MODE not in modes or CENTRAL_MODE not in modes:
        return None
    dgrag = modes[DGRAG_MODE]["accuracy"]["out"]
    central = modes[CENTRAL_MODE]["accuracy"]["out"]
    if dgrag is None or not central:
        return None
    return float(dgrag) / float(central)


def standing(dgrag: Mapping[str, Any] | None, ratio: float | None) -> dict[str, dict[str, Any]]:
    """Where the dgrag mode stands against each goal (and the paper's number where it has one)."""
    values: dict[str, float | None] = {
        "summary_hit@1": dgrag.get("summary_hit@1") if dgrag else None,
        "escalation_within": dgrag.get("escalation_within") if dgrag else None,
        "escalation_out": dgrag.get("escalation_out") if dgrag else None,
        RATIO_KEY: ratio,
    }
    return {
        name: {"value": values[name], "goal": goal, "paper": PAPER_TARGETS.get(name), "met": meets(values[name], goal)}
        for name, goal in GOALS.items()
    }


def meets(value: float | None, goal: str) -> bool | None:
    """Whether ``value`` satisfies a goal written as '>=x' or '<=x'; None when there is no value."""
    if value is None:
        return None
    op, threshold = goal[:2], float(goal[2:])
    if op == ">=":
        return value >= threshold
    if op == "<=":
        return value <= threshold
    raise ValueError(f"goal {goal!r} must start with >= or <=")


def _escalated(row: Row) -> bool:
    """Sent on to the cloud: by the gate, or by the evidence check (rows written before the row's flag counted
    the check have decision 'cloud' with a local gate)."""
    return bool(row.get("escalated")) or row.get("decision") == DECISION_CLOUD


def _hit(row: Row, m: int) -> bool:
    homes = set(row["home_edges"])
    return any(s["edge_id"] in homes for s in (row.get("summaries") or [])[:m])


def _share(rows: Sequence[Row], predicate: Callable[[Row], bool]) -> float | None:
    if not rows:
        return None
    return sum(1 for r in rows if predicate(r)) / len(rows)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _baseline(rows: Sequence[Row]) -> dict[str, Any] | None:
    """The shape-aware baseline of the same rows (simulation.scoring)."""
    return shape_baseline(rows).to_dict() if rows else None


def _recalls(rows: Sequence[Row]) -> list[float]:
    """The row's evidence recall, or one computed from its sources when the runner left it out."""
    out: list[float] = []
    for r in rows:
        value = r.get("evidence_recall")
        if value is None and r.get("evidence_doc_ids"):
            value = evidence_recall(r["evidence_doc_ids"], [s["doc_id"] for s in r.get("sources") or []])
        if value is not None:
            out.append(float(value))
    return out


def end_to_end(timings: Mapping[str, float]) -> dict[str, float]:
    """``timings`` with a ``total``: the measured one, else the sum of the top-level phases (the local view of
    a full query keeps only the local phases, and rows written before edges reported a total have none)."""
    out = dict(timings)
    if out and "total" not in out:
        out["total"] = sum(float(v) for k, v in out.items() if "." not in k)
    return out


FIRST_SHOWN = "first_shown"
"""Seconds until the asker sees words: the cloud draft's first piece where the cloud streamed one (free text), else
the whole answer (a verdict, a choice, a local answer)."""


def _phase_stats(rows: Sequence[Row]) -> dict[str, dict[str, float]]:
    samples: dict[str, list[float]] = {}
    for r in rows:
        timings = end_to_end(r.get("timings") or {})
        for phase, seconds in timings.items():
            samples.setdefault(str(phase), []).append(float(seconds))
        if "total" in timings:  # what a person waits for before words appear: the draft's start, else the answer
            samples.setdefault(FIRST_SHOWN, []).append(float(timings.get("first_draft", timings["total"])))
    order = [p for p in PHASES if p in samples] + sorted(p for p in samples if p not in PHASES)
    return {
        p: {"p50": percentile(samples[p], 50), "p95": percentile(samples[p], 95), "n": len(samples[p])} for p in order
    }


def _bytes(rows: Sequence[Row]) -> dict[str, float | None]:
    # rows written before bytes were measured have none: they are left out, not counted as 0 bytes
    measured = [r for r in rows if r.get("bytes_left_edges") is not None]
    values = [float(r["bytes_left_edges"]) for r in measured]
    escalated = [float(r["bytes_left_edges"]) for r in measured if r.get("decision") == DECISION_CLOUD]
    return {
        "mean": _mean(values),
        "p95": percentile(values, 95) if values else None,
        "escalated_mean": _mean(escalated),
    }


def _fan_out(rows: Sequence[Row]) -> dict[str, Any]:
    asked = [r for r in rows if r.get("edges_asked")]
    return {
        "queries": len(asked),
        "edges_asked_mean": _mean([float(len(r["edges_asked"])) for r in asked]),
        "failed_requests": sum(len(r.get("edges_failed") or []) for r in asked),
    }


def _probing(escalated: Sequence[Row]) -> dict[str, Any]:
    """Two-stage routing over the escalated answerable rows that were probed: stage 1 hit (a home edge was on the
    shortlist), stage 2 hit@1 (the first edge asked is a home edge), probe bytes per query."""
    probed = [r for r in escalated if r.get("probes")]

    def stage1(r: Row) -> bool:
        return bool({p["edge_id"] for p in r["probes"]} & set(r["home_edges"]))

    def stage2(r: Row) -> bool:
        return bool(r["edges_asked"]) and r["edges_asked"][0] in r["home_edges"]

    return {
        "queries": len(probed),
        "stage1_hit": _share(probed, stage1),
        "stage2_hit@1": _share(probed, stage2),
        "probe_bytes_mean": _mean([float(r.get("probe_bytes") or 0) for r in probed]),
    }


def _edge_costs(info: Mapping[str, Any]) -> dict[str, Any]:
    """The known per-edge keys (None when the runner did not measure one) plus whatever else it recorded."""
    return {**{key: None for key in EDGE_KEYS}, **info}
