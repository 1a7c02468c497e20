"""`dgrag sim run` end to end on a tiny bundle: real cloud and edge processes, the embedded models,
the index cache, the report files, and the same decisions on a re-run."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from simulation.processes import dgrag_command

pytestmark = pytest.mark.integration

EDGES = [{"edge_id": "bakery", "description": "a bakery"}, {"edge_id": "observatory", "description": "astronomy"}]
DOCS = [
    ("bakery", "b1", "Harbor Bakery", "The Harbor Bakery in Bristol is owned by Alice Morgan. She bakes sourdough."),
    ("bakery", "b2", "Rye loaves", "Alice Morgan sells rye loaves from the Harbor Bakery to cafes in Bristol."),
    ("observatory", "o1", "Kestrel", "The Kestrel Observatory stands on Mount Aragats. Tigran Petrosyan directs it."),
    ("observatory", "o2", "Comet", "In 2021 Tigran Petrosyan found the comet Petrosyan-3 at the Kestrel Observatory."),
]
QUESTIONS = [
    ("q1", "Who owns the Harbor Bakery in Bristol?", "Alice Morgan", ["bakery"], ["b1"]),
    ("q2", "Who directs the Kestrel Observatory on Mount Aragats?", "Tigran Petrosyan", ["observatory"], ["o1"]),
    ("q3", "What is the capital of the Zorblax Empire?", "Insufficient information.", [], []),
]


def _bundle(root: Path) -> Path:
    bench = root / "tiny"
    bench.mkdir()
    (bench / "edges.json").write_text(json.dumps(EDGES))
    (bench / "docs.jsonl").write_text(
        "".join(json.dumps({"doc_id": d, "edge_id": e, "title": t, "text": x}) + "\n" for e, d, t, x in DOCS)
    )
    (bench / "questions.jsonl").write_text(
        "".join(
            json.dumps({"qid": q, "question": s, "answer": a, "type": "t", "home_edges": h, "evidence_doc_ids": ev})
            + "\n"
            for q, s, a, h, ev in QUESTIONS
        )
    )
    return bench


def _sim(bench: Path, out: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [
            *dgrag_command(),
            "sim",
            "run",
            "--bench",
            str(bench),
            "--out",
            str(out),
            "--cache-dir",
            str(cache),
            "--modes",
            "naive,local,dgrag",
            *extra,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
        check=False,
    )


def test_sim_run_writes_the_report_and_a_rerun_reuses_the_index_and_repeats_the_decisions(tmp_path: Path) -> None:
    bench = _bundle(tmp_path)
    first = _sim(bench, tmp_path / "run1", tmp_path / "cache")
    assert first.returncode == 0, first.stderr[-4000:]
    rows = [json.loads(x) for x in (tmp_path / "run1" / "answers.jsonl").read_text().splitlines()]
    # 2 answerable questions asked within and out of domain + 1 unanswerable = 5 asks, in 3 modes.
    assert len(rows) == 15
    assert {r["mode"] for r in rows} == {"naive", "local", "dgrag"}
    assert {(r["qid"], r["kind"]) for r in rows} >= {("q1", "within"), ("q1", "out"), ("q3", "unanswerable")}
    dgrag = [r for r in rows if r["mode"] == "dgrag"]
    assert all(len(r["summaries"]) >= 1 for r in dgrag)
    for r in dgrag:
        if r["decision"] == "cloud":
            assert r["edges_asked"], r
    report = json.loads((tmp_path / "run1" / "report.json").read_text())
    assert set(report["modes"]) >= {"naive", "local", "dgrag"}
    assert (tmp_path / "run1" / "report.md").read_text().strip()
    assert list((tmp_path / "run1").glob("*.png"))
    assert "indexing bakery" in first.stderr
    _check_measured_costs(tmp_path / "run1", report, dgrag)
    _judge_with_the_embedded_slm(tmp_path / "run1")

    # The second run finds the first ask of run 1 in a partial file, as if it had been interrupted there:
    # it resumes (keeps that ask) and asks the other four again, after restarting its cloud once the edges synced
    # (the edges reconnect and sync again; the answers are the same).
    run2 = tmp_path / "run2"
    (run2 / "run").mkdir(parents=True)
    (run2 / "run" / "setup.json").write_text((tmp_path / "run1" / "run" / "setup.json").read_text())
    # the naive rows are the simulation's own, made again after the network by every run: not resumed
    first_ask = [
        r for r in rows if (r["qid"], r["asked_at"]) == (rows[0]["qid"], rows[0]["asked_at"]) and r["mode"] != "naive"
    ]
    (run2 / "answers.partial.jsonl").write_text("".join(json.dumps(r) + "\n" for r in first_ask))
    second = _sim(bench, run2, tmp_path / "cache", "--restart-cloud")
    assert second.returncode == 0, second.stderr[-4000:]
    assert "indexing" not in second.stderr, "the cached indexes should have been reused"
    assert "resuming" in second.stderr and "1 of 5 asks" in second.stderr
    rows2 = [json.loads(x) for x in (run2 / "answers.jsonl").read_text().splitlines()]
    assert [r for r in rows2 if r in first_ask] == first_ask
    report2 = json.loads((run2 / "report.json").read_text())
    assert report2["run"]["resumed_asks"] == 1
    restart = report2["cloud_restart"]
    assert restart["edges"] == 2 and restart["summaries"] >= 2 and restart["resync_seconds"] > 0, restart
    assert "cloud restarted after the edges synced" in (run2 / "report.md").read_text()
    decisions = {(r["qid"], r["asked_at"], r["mode"]): r["decision"] for r in rows}
    assert decisions == {(r["qid"], r["asked_at"], r["mode"]): r["decision"] for r in rows2}


def _check_measured_costs(run: Path, report: dict[str, Any], dgrag: list[dict[str, Any]]) -> None:
    """What only the live run measures: per-edge build, storage, traffic and memory, and the cloud's memory."""
    for edge in ("bakery", "observatory"):
        costs = report["edges"][edge]
        assert costs["documents"] == 2 and costs["chunks"] >= 1 and costs["summaries"] >= 1, costs
        assert costs["index_seconds"] > 0 and costs["storage_bytes"] > 0, costs
        assert costs["construction_bytes"] > 0, costs  # its summaries went to the cloud
        assert costs["peak_rss_bytes"] > 50 * 2**20 and costs["index_peak_rss_bytes"] > 50 * 2**20, costs
    assert report["cloud"]["peak_rss_bytes"] > 50 * 2**20
    if any(r["decision"] == "cloud" for r in dgrag):
        assert sum(report["edges"][e]["query_bytes"] for e in ("bakery", "observatory")) > 0
    assert (run / "run" / "info.json").is_file() and not (run / "answers.partial.jsonl").exists()


def _judge_with_the_embedded_slm(run: Path) -> None:
    """`dgrag sim judge` with the bundled SmolLM2 as the judge: a weak judge, but a real model whose
    grammar-constrained verdicts must parse, in both answer orders."""
    config = run.parent / "judge.toml"
    config.write_text('[llm]\nbackend = "llama_cpp"\n')
    done = subprocess.run(
        [
            *dgrag_command(),
            "sim",
            "judge",
            "--run",
            str(run),
            "--judge-config",
            str(config),
            "--pairs",
            "dgrag:naive",
            "--limit",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    judgments = [json.loads(x) for x in (run / "judgments.jsonl").read_text().splitlines()]
    judged = [j for j in judgments if not j["identical"]]
    assert judged and [j["first"] for j in judged[:2]] == ["dgrag", "naive"]
    assert all(j["winners"] is not None for j in judged), judged
    report = json.loads((run / "report.json").read_text())
    assert report["judge"]["pairs"]["dgrag vs naive"]["asks"] == len(judged) // 2
    assert "LLM-judge win rates" in (run / "report.md").read_text()
    assert "dgrag vs naive:" in done.stdout
