"""The figures quoted in the prose of docs/security.md and docs/architecture.md are what their committed rows
give: each is recomputed here with today's code and looked for in the text together with the words around it, so
a changed digit fails (a bare "2.5%" does not pass for "72.5%")."""

from __future__ import annotations

import gzip
import json
import re
from typing import Any

import pytest

from benchmarks import fit_gate
from benchmarks.lying_edge import figures, rows_of, same_questions
from simulation.answer_rows import read_rows
from tests.support.paths import REPO

ROOT = REPO
RESULTS = ROOT / "docs" / "results"
LIAR = "sports"


def _doc(name: str) -> str:
    """The doc as one line: markdown emphasis dropped and every run of white space one space."""
    text = (ROOT / "docs" / name).read_text(encoding="utf-8").replace("**", "")
    return re.sub(r"\s+", " ", text)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _capture(folder: str, kind: str) -> tuple[str, str, dict[str, Any]]:
    """(honest share, lying share) of the routed asks sent to the liar, and the liar's trust entry."""
    lying = rows_of(RESULTS / folder / kind)
    honest = figures(same_questions(read_rows(RESULTS / folder / "honest.jsonl.gz"), lying), LIAR)
    trust = json.loads((RESULTS / folder / kind / "report.json").read_text())["edge_trust"][LIAR]
    return _pct(honest["captured"]), _pct(figures(lying, LIAR)["captured"]), trust


def _security_phrases() -> list[str]:
    smart_honest, smart, smart_trust = _capture("lying-edge-smart", "smart")
    _, stuffer, _ = _capture("lying-edge-smart", "stuffer")
    _, echo, _ = _capture("lying-edge-kinds", "echo")
    kinds_honest, refuser, _ = _capture("lying-edge-kinds", "refuser")
    return [
        f"got {smart} of the routed asks against its honest {smart_honest}, at trust {smart_trust['trust']:.2f}",
        f"the same edge honest got {smart_honest}",
        f"the same edge honest got {kinds_honest}",
        f"over-claiming only what one reply cannot re-measure: {smart} at trust {smart_trust['trust']:.2f}.",
        f"An echoing liar: {echo}. A probe refuser: {refuser}.",
        f"the 60 names the other edges mention most: {stuffer}.",
        *_extraction_phrases(),
    ]


def _extraction() -> tuple[int, int, int, int, tuple[int, int]]:
    """The injection figures (answers under paraphrase, those with a run, the longest run where chunks are read,
    the longest under quote, the shares of quote answers with a run): the default level's rows from the run
    after the handle fix, the rest from the first."""
    folder = RESULTS / "extraction"
    first = json.loads(gzip.decompress((folder / "extraction-first-run.json.gz").read_bytes()))["results"]
    second = json.loads((folder / "extraction-chunks-paraphrase.json").read_text())["results"]
    cells = {**first, **second}
    paraphrase = [row for name, rows in cells.items() if name.endswith("/ paraphrase") for row in rows]
    chunks = cells["chunks / paraphrase"]
    quote = cells["chunks / quote"]
    low, high = sorted(round(100 * sum(r["leak"] for r in quote if r["caller"] == c) / 50) for c in ("app", "edge"))
    shares = (low, high)
    longest = max(r["longest_run"] for r in chunks)
    return len(paraphrase), sum(r["leak"] for r in paraphrase), longest, max(r["longest_run"] for r in quote), shares


def _extraction_phrases() -> list[str]:
    answers, leaks, longest, quoted, (low, high) = _extraction()
    return [
        f"{leaks} of {answers} answers under `paraphrase` carried an 8-word run",
        f"(longest run {longest} words where chunks are read)",
        f"runs of up to {quoted} words from {low}–{high}% of the answers",
    ]


def _architecture_phrases(capsys: pytest.CaptureFixture[str]) -> list[str]:
    fit_gate.main([str(RESULTS / "multihop4-limit80" / "answers.jsonl.gz")])
    report = re.search(r"report half.*?escalation_within ([\d.]+), escalation_out ([\d.]+)", capsys.readouterr().out)
    assert report, "benchmarks.fit_gate printed no report-half escalation"
    within, out = (float(x) for x in report.groups())
    answers, leaks, _, _, (low, high) = _extraction()
    return [
        f"{leaks} of {answers} injection answers carried an 8-word run of a non-consenting edge's documents, "
        f"{low}–{high}% when the edges allow quoting",
        f"the gate alone escalates {_pct(within)} of within-domain and {_pct(out)} of out-of-domain questions",
    ]


@pytest.mark.parametrize("phrase", _security_phrases())
def test_security_prose_figures_are_recomputed_from_their_rows(phrase: str) -> None:
    assert phrase in _doc("security.md")


def test_architecture_prose_figures_are_recomputed_from_their_rows(capsys: pytest.CaptureFixture[str]) -> None:
    text = _doc("architecture.md")
    for phrase in _architecture_phrases(capsys):
        assert phrase in text
