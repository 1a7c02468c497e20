"""The figures quoted in the prose of docs/security.md, docs/deploy.md and docs/architecture.md are what their
committed rows give: each is recomputed here with today's code and looked for in the text together with the words
around it, so a changed digit fails (a bare "2.5%" does not pass for "72.5%")."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from benchmarks import fit_gate
from benchmarks.answer_quality import asker_share
from benchmarks.lying_edge import figures, rows_of, same_questions
from simulation.answer_rows import find_answers, read_rows
from simulation.report import latency
from simulation.scoring import rescored, shape_baseline
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
    _, before, _ = _capture("lying-edge-kinds", "smart")
    blunt_rows = rows_of(RESULTS / "lying-edge")
    blunt_honest = figures(same_questions(read_rows(RESULTS / "lying-edge" / "honest.jsonl.gz"), blunt_rows), LIAR)
    blunt = figures(blunt_rows, LIAR)
    blunt_trust = json.loads((RESULTS / "lying-edge" / "report.json").read_text())["edge_trust"][LIAR]["trust"]
    fall = 100 * (blunt_honest["out: accuracy"] - blunt["out: accuracy"])
    return [
        f"got {smart} of the routed asks against its honest {smart_honest}, at trust {smart_trust['trust']:.2f}",
        f"lexical coverage got {before} (`docs/results/lying-edge-kinds`)",
        f"distrusted (trust {blunt_trust:.2f}, flagged), routed {_pct(blunt['captured'])} of the asks against "
        f"{_pct(blunt_honest['captured'])} when honest",
        f"out-of-domain accuracy fell {fall:.1f} points",
        f"yes: {stuffer} of routed asks against its honest {smart_honest}",
        f"yes: {smart} of routed asks against its honest {smart_honest} (goal: +5 points at most; {before} before",
        f"yes: {echo} / {refuser} of routed asks against an honest {kinds_honest}",
        *_extraction_phrases(),
    ]


def _extraction() -> tuple[int, int, int, int, tuple[int, int]]:
    """The injection figures (answers under paraphrase, those with a run, the longest run where chunks are read,
    the longest under quote, the shares of quote answers with a run): the default level's rows from the run
    after the handle fix, the rest from the first."""
    folder = RESULTS / "extraction"
    first = json.loads((folder / "extraction-before-handle-fix.json").read_text())["results"]
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


def _cloud_runs(bundle: str) -> list[list[dict[str, Any]]]:
    runs = (f"{bundle}-smol", f"{bundle}-qwen05", f"{bundle}-qwen15")
    return [
        [r for r in rescored(read_rows(find_answers(RESULTS / "cloud-models" / run))) if r["mode"] == "dgrag"]
        for run in runs
    ]


def _out(rows: list[dict[str, Any]], shape: str = "") -> list[dict[str, Any]]:
    return [r for r in rows if r["kind"] == "out" and (not shape or r["shape"] == shape)]


def _right(asks: list[dict[str, Any]]) -> str:
    return _pct(sum(r["correct"] is True for r in asks) / len(asks))


def _generation(rows: list[dict[str, Any]]) -> str:
    return f"{latency(rows)['escalated']['cloud.cloud_generation']['p50']:.2f}"


def _cloud_models_phrases() -> list[str]:
    lihua, multihop = _cloud_runs("lihua4"), _cloud_runs("multihop4")
    out, gen = [_right(_out(r)) for r in lihua], [_generation(r) for r in lihua]
    mh_out, mh_yn = [_right(_out(r)) for r in multihop], [_right(_out(r, "yes_no")) for r in multihop]
    mh_gen = [_generation(r) for r in multihop]
    base = _pct(shape_baseline(_out(multihop[0])).accuracy)
    yes = _pct(shape_baseline(_out(multihop[0], "yes_no")).accuracy)
    return [
        f"out-of-domain strict accuracy {out[0]} (SmolLM2), {out[1]} (Qwen2.5-Coder-0.5B), {out[2]} "
        f"(Qwen2.5-Coder-1.5B), at a cloud generation p50 of {gen[0]}, {gen[1]} and {gen[2]} s",
        f"out-of-domain strict accuracy {mh_out[0]}, {mh_out[1]} and {mh_out[2]} against a shape-aware baseline of "
        f'{base}, its yes/no comparisons {mh_yn[0]}, {mh_yn[1]} and {mh_yn[2]} against always "yes" {yes}, at '
        f"{mh_gen[0]}, {mh_gen[1]} and {mh_gen[2]} s",
    ]


def _architecture_phrases(capsys: pytest.CaptureFixture[str]) -> list[str]:
    fit_gate.main([str(RESULTS / "multihop4-limit80" / "answers.jsonl.gz")])
    report = re.search(r"report half.*?escalation_within ([\d.]+), escalation_out ([\d.]+)", capsys.readouterr().out)
    assert report, "benchmarks.fit_gate printed no report-half escalation"
    within, out = (float(x) for x in report.groups())
    recalls = []
    for path in ("answers-multihop4-limit80", "scale-asker-evidence/16", "scale-asker-evidence/64"):
        text = asker_share([r for r in read_rows(find_answers(RESULTS / path)) if r["mode"] == "dgrag"])
        found = re.search(r"recall ([\d.]+%) with the asker's own chunks, ([\d.]+%) from", text)
        assert found, text
        recalls.append(f"{found.group(1)} / {found.group(2)}")
    answers, leaks, _, _, (low, high) = _extraction()
    return [
        f"{leaks} of {answers} injection answers carried an 8-word run of a non-consenting edge's documents, "
        f"{low}–{high}% when the edges allow quoting",
        f"the gate alone escalates {_pct(within)} of within-domain and {_pct(out)} of out-of-domain questions",
        f"from the other edges' alone: {recalls[0]} at 4 edges (10 asks), {recalls[1]} at 16, {recalls[2]} at 64",
    ]


@pytest.mark.parametrize("phrase", _security_phrases())
def test_security_prose_figures_are_recomputed_from_their_rows(phrase: str) -> None:
    assert phrase in _doc("security.md")


@pytest.mark.parametrize("phrase", _cloud_models_phrases())
def test_deploy_prose_figures_are_recomputed_from_their_rows(phrase: str) -> None:
    assert phrase in _doc("deploy.md")


def test_architecture_prose_figures_are_recomputed_from_their_rows(capsys: pytest.CaptureFixture[str]) -> None:
    text = _doc("architecture.md")
    for phrase in _architecture_phrases(capsys):
        assert phrase in text
