"""Simulation report, Markdown and plots over synthetic rows whose every metric is known by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from simulation.plots import ACCURACY_PNG, LATENCY_PNG, SUMMARY_HIT_PNG, write_plots
from simulation.report import build_report, meets
from simulation.report_markdown import render_markdown
from tests.support.sim_rows import RUN_INFO, central_rows, dgrag_rows, row

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def report() -> dict[str, Any]:
    return build_report(dgrag_rows() + central_rows(), RUN_INFO)


def test_accuracy_groups_counts_and_the_shape_aware_baseline(report: dict[str, Any]) -> None:
    dgrag = report["modes"]["dgrag"]
    assert dgrag["n"] == {"within": 4, "out": 4, "unanswerable": 2, "all": 10}
    assert dgrag["accuracy"] == {"within": 0.75, "out": 0.5, "unanswerable": 0.5, "all": 0.6}
    base = dgrag["baseline"]
    # within: yes/no asks (Yes, No, Yes) guess 'yes' (2 of 3), the one entity ask its own gold (1 of 1)
    assert base["within"]["accuracy"] == 0.75
    assert base["within"]["by_shape"]["yes_no"] == {"guess": "yes", "accuracy": 0.6667, "n": 3}
    assert base["unanswerable"]["by_shape"] == {
        "unanswerable": {"guess": "insufficient information", "accuracy": 1.0, "n": 2}
    }
    assert base["all"]["accuracy"] == 0.8  # 4 of 6 yes/no, 2 of 2 open, 2 of 2 unanswerable


def test_modes_without_rows_are_null_not_zero(report: dict[str, Any]) -> None:
    naive = report["modes"]["naive"]
    assert naive["n"]["all"] == 0
    assert naive["accuracy"]["all"] is None
    assert naive["escalation_within"] is None
    assert naive["baseline"]["within"] is None
    central = report["modes"]["central"]
    assert central["accuracy"]["unanswerable"] is None
    assert central["escalation_out"] is None  # it keeps its own answer: no gate to report
    assert central["summary_hit@1"] is None  # no summary ranking in this mode
    assert central["route_recall@k"] is None
    assert list(report["modes"]) == ["naive", "dgrag", "central"]


def test_escalation_summary_hits_and_route_recall(report: dict[str, Any]) -> None:
    dgrag = report["modes"]["dgrag"]
    assert dgrag["escalation_within"] == 0.25
    assert dgrag["escalation_out"] == 0.75
    assert dgrag["escalation_unanswerable"] == 0.5
    assert dgrag["summary_hit@1"] == 0.5
    assert dgrag["summary_hit@3"] == 0.875
    assert dgrag["summary_hit@5"] == 1.0
    assert dgrag["summary_hit_curve"] == {"1": 0.5, "2": 0.75, "3": 0.875, "4": 0.875, "5": 1.0}
    # q2 out was routed to C and A, neither its home B; q5 is unanswerable and does not count.
    assert dgrag["route_recall@k"] == 0.75
    assert dgrag["fan_out"] == {"queries": 5, "edges_asked_mean": 7 / 5, "failed_requests": 0}


def test_a_failed_ranking_or_escalation_that_reached_no_edge_is_a_miss() -> None:
    rows = dgrag_rows()
    # q1 out: the cloud returned no summaries and the escalation reached no edge (e.g. the cloud was down).
    rows[4] = rows[4] | {"summaries": [], "edges_asked": [], "edges_replied": [], "decision": "escalate"}
    dgrag = build_report(rows, RUN_INFO)["modes"]["dgrag"]
    assert dgrag["summary_hit@1"] == 3 / 8  # was 4/8: the empty ranking counts, as a miss
    assert dgrag["route_recall@k"] == 2 / 4  # was 3/4


def test_a_run_whose_cloud_never_answered_misses_every_route_rather_than_having_none() -> None:
    down = [r | {"summaries": [], "edges_asked": [], "edges_replied": []} for r in dgrag_rows()]
    dgrag = build_report(down, RUN_INFO)["modes"]["dgrag"]
    assert dgrag["summary_hit@1"] == 0.0 and dgrag["route_recall@k"] == 0.0
    ablated = build_report([r | {"mode": "dgrag-cd"} for r in down], RUN_INFO)["modes"]["dgrag-cd"]
    assert ablated["summary_hit@5"] == 0.0  # ablations route too
    local = build_report([r | {"mode": "local"} for r in dgrag_rows()], RUN_INFO)["modes"]["local"]
    assert local["summary_hit@1"] is None and local["route_recall@k"] is None  # local never routes


def test_evidence_recall_uses_rows_and_falls_back_to_sources() -> None:
    rows = dgrag_rows()
    rows[2]["evidence_recall"] = None
    rows[2]["sources"] = [{"edge_id": "A", "doc_id": "d4", "chunk_id": 0, "score": 0.9}]
    recall = build_report(rows, RUN_INFO)["modes"]["dgrag"]["evidence_recall"]
    assert recall == {"within": 0.875, "out": 0.5, "all": 0.6875}
    report = build_report(dgrag_rows(), RUN_INFO)
    assert report["modes"]["dgrag"]["evidence_recall"] == {"within": 0.625, "out": 0.5, "all": 0.5625}


def test_reading_by_shape_and_halves(report: dict[str, Any]) -> None:
    reading = report["modes"]["dgrag"]["reading"]
    # q4 ('Paris', an open-shaped question) is right within (answer 'Paris'), wrong out of domain
    assert reading["within"]["by_shape"]["open"] == {"n": 1, "accuracy": 1.0, "baseline": 1.0, "evidence_recall": 1.0}
    assert reading["out"]["by_shape"]["open"]["accuracy"] == 0.0
    halves = report["halves"]
    assert set(halves) == {"fit", "report"}
    n = sum(halves[h]["dgrag"]["all"]["n"] for h in halves if halves[h]["dgrag"]["all"])
    assert n == 10, "each ask sits in exactly one half"
    text = render_markdown(report)
    assert "### By question shape" in text and "### Fit half and report half" in text


def test_latency_splits_and_bytes(report: dict[str, Any]) -> None:
    latency = report["modes"]["dgrag"]["latency"]
    assert latency["local"]["total"] == {"p50": 3.0, "p95": pytest.approx(4.8), "n": 5}
    assert latency["escalated"]["total"] == {"p50": 30.0, "p95": pytest.approx(48.0), "n": 5}
    assert latency["all"]["total"]["n"] == 10
    assert "escalation" not in latency["local"]
    assert latency["escalated"]["escalation"]["p50"] == 15.0
    assert list(latency["escalated"])[:3] == ["keywording", "retrieval", "generation"]
    assert report["modes"]["dgrag"]["bytes_per_query"] == {
        "mean": 150.0,
        "p95": pytest.approx(455.0),
        "escalated_mean": 300.0,
    }


def test_escalations_without_cloud_answer_count_only_in_all() -> None:
    rows = [row("q1", "within", "A", "local", correct=False, decision="escalate", seconds=9)]
    latency = build_report(rows, RUN_INFO)["modes"]["local"]["latency"]
    assert latency["all"]["total"]["n"] == 1
    assert latency["local"] == {} and latency["escalated"] == {}


def test_central_ratio_goals_and_standing(report: dict[str, Any]) -> None:
    assert report["dgrag_out_accuracy_vs_central"] == pytest.approx(0.5 / 0.75)
    assert report["paper_targets"] == {"summary_hit@1": 0.958, "escalation_within": 0.264, "escalation_out": 0.879}
    assert report["goals"]["escalation_within"] == "<=0.15"
    standing = report["standing"]
    assert standing["summary_hit@1"] == {"value": 0.5, "goal": ">=0.97", "paper": 0.958, "met": False}
    assert standing["escalation_out"]["met"] is False
    assert standing["dgrag_out_accuracy_vs_central"]["met"] is False
    assert meets(0.15, "<=0.15") and meets(0.97, ">=0.97") and meets(None, ">=0.9") is None
    assert build_report(dgrag_rows(), RUN_INFO)["dgrag_out_accuracy_vs_central"] is None


def test_run_facts_edges_and_json(report: dict[str, Any]) -> None:
    assert report["run"]["bench"] == "synthetic" and report["run"]["top_k"] == 2
    assert report["edges"]["A"]["summaries"] == 6 and report["edges"]["C"]["construction_bytes"] == 2048
    assert report["central"] is None
    assert report["edges"]["B"]["index_cached"] is True and report["edges"]["A"]["query_bytes"] is None
    assert report["config"] == {"gate": {"threshold": 0.5}}
    assert json.loads(json.dumps(report, allow_nan=False)) == json.loads(json.dumps(report))


def test_markdown_has_every_table(report: dict[str, Any]) -> None:
    md = render_markdown(report)
    for heading in ("## Accuracy", "## Routing", "## Evidence recall", "## Latency", "## Bytes", "## Construction"):
        assert heading in md
    assert "| dgrag | 75.0% (n=4) | 75.0% | 50.0% (n=4) | 75.0% | 50.0% (n=2) | 100.0% |" in md
    assert "| naive | — (n=0) | — |" in md
    assert "modes naive, dgrag, central; 18 answer rows; limit 6" in md
    assert "| paper | 26.4% | 87.9% | 95.8% |" in md
    assert "| goal | ≤ 15.0% | ≥ 95.0% | ≥ 97.0% |" in md
    assert "| dgrag_out_accuracy_vs_central | 0.67x | — | ≥ 0.90x | no |" in md
    assert "| A | 10 | 40 | 90 | 120 | 6 | 12.500 | 3.0 MiB | 2.0 KiB | — | 300.0 MiB |" in md
    assert "| dgrag | 150 B | 455 B | 300 B |" in md
    assert (
        "| B | 10 | 40 | 90 | 120 | 6 | 12.500 (cached) | 3.0 MiB | 2.0 KiB | 1.5 KiB | 300.0 MiB | 400.0 MiB |" in md
    )
    assert "| 2.0 KiB | — | 300.0 MiB | — |" in md  # A: no query bytes, no indexing RSS measured
    assert f"]({SUMMARY_HIT_PNG})" in md and f"]({LATENCY_PNG})" in md and f"]({ACCURACY_PNG})" in md
    assert "## Figures" not in render_markdown(report, plots=[])


def test_plots_are_pngs(report: dict[str, Any], tmp_path: Path) -> None:
    written = write_plots(report, tmp_path / "plots")
    assert [p.name for p in written] == [SUMMARY_HIT_PNG, LATENCY_PNG, ACCURACY_PNG]
    for path in written:
        assert path.read_bytes()[:8] == PNG_SIGNATURE
        assert path.stat().st_size > 5000


def test_no_dgrag_rows_means_no_summary_or_latency_plot(tmp_path: Path) -> None:
    report = build_report(central_rows(), {**RUN_INFO, "modes": ["central"]})
    written = write_plots(report, tmp_path)
    assert [p.name for p in written] == [ACCURACY_PNG]
    assert sorted(p.name for p in tmp_path.iterdir()) == [ACCURACY_PNG]
    md = render_markdown(report)
    assert SUMMARY_HIT_PNG not in md and ACCURACY_PNG in md
    assert write_plots(build_report([], {"modes": []}), tmp_path / "empty") == []


def test_end_to_end_time_is_the_measured_total_or_the_sum_of_top_level_phases() -> None:
    from simulation.report import end_to_end

    measured = {"retrieval": 0.5, "generation": 2.0, "total": 2.7}
    assert end_to_end(measured)["total"] == 2.7
    # cloud.* phases lie inside 'escalation' and must not be added again
    summed = end_to_end({"retrieval": 0.5, "generation": 2.0, "escalation": 3.0, "cloud.total": 2.9})
    assert summed["total"] == 5.5
    assert end_to_end({}) == {}


def test_generations_and_machine_are_reported() -> None:
    rows = [
        row("q1", "within", "A", correct=True)
        | {
            "generations": 4,
            "degenerate_generations": 1,
            "extractive": False,
            "model_speed": {"prefill_tokens": 500, "prefill_seconds": 2.0, "decode_tokens": 100, "decode_seconds": 1.0},
        },
        row("q2", "within", "B", correct=False)
        | {
            "generations": 5,
            "degenerate_generations": 1,
            "extractive": True,
            "model_speed": {"prefill_tokens": 300, "prefill_seconds": 2.0, "decode_tokens": 100, "decode_seconds": 1.0},
        },
    ]
    machine = {
        "cpu_model": "Test CPU",
        "cores": 2,
        "cpu_features": ["avx2"],
        "python": "3.11",
        "libraries": {"llama-cpp-python": "0.3.16"},
        "llama_system_info": "AVX2 = 1",
        "threads": {"GOMP_SPINCOUNT": "1000"},
    }
    report = build_report(rows, {"modes": ["dgrag"], "machine": machine})
    dgrag = report["modes"]["dgrag"]
    assert dgrag["degeneracy"] == {
        "generations": 9,
        "degenerate_generations": 2,
        "degenerate_share": 2 / 9,
        "extractive_answers": 0.5,
    }
    assert dgrag["model_speed"]["prefill_tok_s"] == 200.0 and dgrag["model_speed"]["decode_tok_s"] == 100.0
    text = render_markdown(report, plots=[])
    assert "| dgrag | 9 | 22.2% | 50.0% | 200 | 100 |" in text
    assert "- CPU: Test CPU, 2 cores; features: avx2" in text and "GOMP_SPINCOUNT=1000" in text


def test_two_stage_routing_is_reported_over_probed_escalations() -> None:
    rows = dgrag_rows()
    escalated = [i for i, r in enumerate(rows) if r["decision"] == "cloud" and r["kind"] != "unanswerable"]
    assert len(escalated) >= 2
    first, second = escalated[:2]
    home_first = rows[first]["home_edges"][0]
    # the first: its home edge was probed and asked first; the second: the shortlist missed its home edge
    rows[first] = rows[first] | {
        "probes": [{"edge_id": home_first, "score": 0.9, "error": ""}],
        "probe_bytes": 30,
        "edges_asked": [home_first],
    }
    rows[second] = rows[second] | {
        "probes": [{"edge_id": "Z", "score": 0.2, "error": ""}],
        "probe_bytes": 34,
        "edges_asked": ["Z"],
    }
    dgrag = build_report(rows, RUN_INFO)["modes"]["dgrag"]
    assert dgrag["probing"] == {"queries": 2, "stage1_hit": 0.5, "stage2_hit@1": 0.5, "probe_bytes_mean": 32.0}
    markdown = render_markdown(build_report(rows, RUN_INFO))
    assert "| dgrag | 2 | 50.0% | 50.0% |" in markdown
    unprobed = build_report(dgrag_rows(), RUN_INFO)
    assert unprobed["modes"]["dgrag"]["probing"]["queries"] == 0
    assert "Two-stage routing" not in render_markdown(unprobed)


def test_a_question_the_evidence_check_sent_to_the_cloud_counts_as_escalated() -> None:
    rows = dgrag_rows()
    # q3 within: the gate kept it, the evidence check sent it on (decision cloud, the row's flag from before the
    # check counted); escalation within goes from 1/4 to 2/4
    rows[2] = rows[2] | {"decision": "cloud", "escalated": False, "edges_asked": ["B"], "edges_replied": ["B"]}
    dgrag = build_report(rows, RUN_INFO)["modes"]["dgrag"]
    assert dgrag["escalation_within"] == 0.5
