"""A six-edge bundle (one document per edge) and a `dgrag sim run` helper for the host and Ray tests."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from simulation.processes import dgrag_command

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

Decisions = dict[tuple[str, str, str], tuple[str, str]]


def six_edge_bundle(root: Path) -> Path:
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


def sim_run(
    bench: Path, out: Path, cache: Path, per_host: int, *extra: str, env: dict[str, str] | None = None
) -> list[dict[str, object]]:
    """`dgrag sim run` in modes local and dgrag; the answer rows."""
    env = env or {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
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
            "local,dgrag",
            "--edges-per-host",
            str(per_host),
            *extra,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return [json.loads(x) for x in (out / "answers.jsonl").read_text().splitlines()]


def decisions(rows: list[dict[str, object]]) -> Decisions:
    """Each ask's decision and answer, by (question, edge asked at, mode)."""
    return {(str(r["qid"]), str(r["asked_at"]), str(r["mode"])): (str(r["decision"]), str(r["answer"])) for r in rows}
