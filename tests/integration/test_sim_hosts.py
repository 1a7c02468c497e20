"""`dgrag sim run --edges-per-host 3`: six edges served by two host processes (one shared SLM each) give the
same decisions as one process per edge."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from simulation.processes import dgrag_command

pytestmark = pytest.mark.integration

DOCS = [
    ("bakery", "The Harbor Bakery in Bristol is owned by Alice Morgan. She bakes sourdough for cafes."),
    ("observatory", "The Kestrel Observatory stands on Mount Aragats. Tigran Petrosyan directs it."),
    ("shipyard", "The Nordvik Shipyard in Bergen builds ferries. Ingrid Olsen manages the Nordvik Shipyard."),
    ("vineyard", "Chateau Lune grows merlot near Bordeaux. Paul Girard owns Chateau Lune."),
    ("library", "The Alder Library in Leeds holds old maps. Priya Shah curates the Alder Library."),
    ("clinic", "The Rowan Clinic in Cork treats sports injuries. Dr Sean Byrne leads the Rowan Clinic."),
]
QUESTIONS = [
    ("q1", "Who owns the Harbor Bakery in Bristol?", "Alice Morgan", ["bakery"], ["bakery-1"]),
    ("q2", "Who manages the Nordvik Shipyard?", "Ingrid Olsen", ["shipyard"], ["shipyard-1"]),
    ("q3", "Who leads the Rowan Clinic in Cork?", "Sean Byrne", ["clinic"], ["clinic-1"]),
]


def _bundle(root: Path) -> Path:
    bench = root / "six"
    bench.mkdir()
    (bench / "edges.json").write_text(json.dumps([{"edge_id": e, "description": e} for e, _ in DOCS]))
    (bench / "docs.jsonl").write_text(
        "".join(json.dumps({"doc_id": f"{e}-1", "edge_id": e, "title": e, "text": t}) + "\n" for e, t in DOCS)
    )
    (bench / "questions.jsonl").write_text(
        "".join(
            json.dumps({"qid": q, "question": s, "answer": a, "type": "t", "home_edges": h, "evidence_doc_ids": ev})
            + "\n"
            for q, s, a, h, ev in QUESTIONS
        )
    )
    return bench


def _sim(bench: Path, out: Path, cache: Path, per_host: int) -> list[dict[str, object]]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [*dgrag_command(), "sim", "run", "--bench", str(bench), "--out", str(out), "--cache-dir", str(cache),
         "--modes", "local,dgrag", "--edges-per-host", str(per_host)],
        capture_output=True, text=True, env=env, timeout=1200, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    return [json.loads(x) for x in (out / "answers.jsonl").read_text().splitlines()]


def test_two_hosts_of_three_edges_decide_as_six_processes(tmp_path: Path) -> None:
    bench = _bundle(tmp_path)
    hosted = _sim(bench, tmp_path / "hosted", tmp_path / "cache", per_host=3)
    report = json.loads((tmp_path / "hosted" / "report.json").read_text())
    hosts = report["hosts"]
    assert len(hosts) == 2, hosts
    assert all(h["peak_rss_bytes"] > 50 * 2**20 for h in hosts.values())
    assert len(hosted) == 2 * 6, "3 questions within and out of domain, in 2 modes"
    single = _sim(bench, tmp_path / "single", tmp_path / "cache", per_host=1)
    decisions = {(r["qid"], r["asked_at"], r["mode"]): (r["decision"], r["answer"]) for r in hosted}
    assert decisions == {(r["qid"], r["asked_at"], r["mode"]): (r["decision"], r["answer"]) for r in single}
