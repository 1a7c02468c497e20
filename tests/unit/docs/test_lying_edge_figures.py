"""docs/results/lying-edge-smart/README.md's tables are what the committed rows and trust tables give: the share of
routed asks sent to the liar, the honest edges' escalation and strict accuracy (benchmarks.lying_edge, on the rows
as recorded) and the liar's trust at the end; a changed digit fails."""

from __future__ import annotations

import json
from typing import Any

import pytest

from benchmarks.lying_edge import figures, rows_of, same_questions
from simulation.answer_rows import read_rows
from tests.support.paths import REPO

RESULTS = REPO / "docs" / "results" / "lying-edge-smart"
LIAR = "sports"


def _pct(x: float) -> str:
    return "100%" if x == 1 else f"{100 * x:.1f}%"


def _trust(table: dict[str, Any]) -> str:
    t = table[LIAR]
    return f"{t['trust']:.2f} ({t['over_claim']:.3f}, {t['checked']})"


def _rows(header: str) -> dict[str, list[str]]:
    lines = (RESULTS / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index(header)
    out = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        out[cells[0]] = cells[1:]
    return out


@pytest.mark.parametrize(("kind", "trust"), [("smart", "smart-trust.json"), ("stuffer", None)])
def test_the_liar_tables_are_recomputed_from_their_rows(kind: str, trust: str | None) -> None:
    lying_rows = rows_of(RESULTS / kind)
    honest = figures(same_questions(read_rows(RESULTS / "honest.jsonl.gz"), lying_rows), LIAR)
    lying = figures(lying_rows, LIAR)
    shown = _rows(f"| | honest run | with the {'smart liar' if kind == 'smart' else kind} |")
    routed = shown["asks routed to the liar's edge (sports)"]
    assert routed[0] == _pct(honest["captured"])
    assert routed[1].startswith(f"**{_pct(lying['captured'])}** ({100 * (lying['captured'] - honest['captured']):+.1f}")
    for label, key in (("escalation", "escalated"), ("strict accuracy", "accuracy")):
        cells = shown[f"honest edges' {label} within / out"]
        assert cells == [f"{_pct(f[f'within: {key}'])} / {_pct(f[f'out: {key}'])}" for f in (honest, lying)]
    table = (
        json.loads((RESULTS / trust).read_text())
        if trust
        else json.loads((RESULTS / kind / "report.json").read_text())["edge_trust"]
    )
    assert shown["its trust at the end (average over-claim, replies checked)"][1] == _trust(table)
