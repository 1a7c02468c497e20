"""The figures quoted in the prose of docs/security.md, docs/deploy.md and docs/architecture.md are what their
committed rows give: each is recomputed here with today's code and looked for in the text together with the words
around it, so a changed digit fails (a bare "2.5%" does not pass for "72.5%")."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

import pytest

from benchmarks import fit_gate, published
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


def _numbers(text: str) -> list[str]:
    return re.findall(r"\d+(?:\.\d+)?%?", text)


def _flips(now: list[dict[str, Any]], before: list[dict[str, Any]], shape: str) -> tuple[int, int]:
    """dgrag asks of ``shape`` that went from wrong to right and from right to wrong between two runs."""
    was = {(r["qid"], r["kind"]): r["correct"] for r in before if r["mode"] == "dgrag"}
    pairs = [(was[(r["qid"], r["kind"])], r["correct"]) for r in now if r["mode"] == "dgrag" and r["shape"] == shape]
    return sum(1 for a, b in pairs if b and not a), sum(1 for a, b in pairs if a and not b)


def _dated(rows: list[dict[str, Any]], mode: str) -> tuple[int, int, int]:
    """(yes/no asks, those the date-order reader answered, those of them right) in ``mode``."""
    asks = [r for r in rows if r["mode"] == mode and r["shape"] == "yes_no"]
    dated = [r for r in asks if r["reader"].removeprefix("cloud:") == "dates"]
    return len(asks), len(dated), sum(1 for r in dated if r["correct"] is True)


def _local_p50(path: Path) -> str:
    rows = [r for r in read_rows(path) if r["mode"] == "local"]
    return f"{statistics.median(r['timings']['total'] for r in rows):.2f}"


def _readme_phrases() -> list[str]:
    """README.md's prose below its results table, from the same functions as the table."""
    within, out, base, _ = _numbers(published.accuracy_within_out(ROOT / published.MULTIHOP))[:4]
    entity, entity_base, _, yes_no, yes_no_base, _ = _numbers(published.by_shape(ROOT / published.MULTIHOP))
    before = ROOT / published.MULTIHOP / "run-b15e5d9"
    old_within, old_out = _numbers(published.accuracy_within_out(before))[:2]
    old_entity = _numbers(published.by_shape(before))[0]
    lihua = _numbers(published.accuracy_within_out(ROOT / published.LIHUA))[:2]
    old_lihua = _numbers(published.accuracy_within_out(ROOT / published.LIHUA / "run-b15e5d9"))[:2]
    right, wrong = _flips(
        rescored(read_rows(find_answers(ROOT / published.MULTIHOP))),
        rescored(read_rows(find_answers(before))),
        "yes_no",
    )
    lihua_rows = rescored(read_rows(find_answers(ROOT / published.LIHUA)))
    asks, dated, dated_right = _dated(lihua_rows, "dgrag")
    _, gold_dated, gold_right = _dated(lihua_rows, "oracle")
    open_rows = [r for r in published.report_half(ROOT / published.LIHUA) if r["kind"] in ("within", "out")]
    open_share, _, open_n = _numbers(published.by_shape(ROOT / published.LIHUA, ("open",)))
    smart_honest, smart, _ = _capture("lying-edge-smart", "smart")
    _, before_fix, _ = _capture("lying-edge-kinds", "smart")
    smol, _, qwen = _cloud_runs("multihop4")
    cloud_base = _pct(shape_baseline(_out(smol)).accuracy)
    always_yes = _pct(shape_baseline(_out(smol, "yes_no")).accuracy)
    assert dated == dated_right and gold_dated == gold_right, "the prose says every dated verdict was right"
    amx_off, amx_on = (_local_p50(RESULTS / f"answer-reason/amx/{x}.jsonl.gz") for x in ("off", "on"))
    epyc = _local_p50(RESULTS / "omp-teams/local-fit40.jsonl.gz")
    epyc_before = _local_p50(RESULTS / "answer-reason/on.jsonl.gz")
    return [
        f"multihop4's out-of-domain asks reach {_right(_out(qwen))} against the baseline's {cloud_base} (SmolLM2: "
        f'{_right(_out(smol))}), its yes/no comparisons {_right(_out(qwen, "yes_no"))} against always "yes" '
        f"{always_yes}",
        f"above the baseline within multihop4's domains ({within} against {base}) and out of them ({out})",
        f"(multihop4 {entity} against {entity_base}, within and out of domain alike",
        f"yes/no questions are not ({yes_no} against {yes_no_base}:",
        f"on lihua4 that reader answered {dated} of {asks} asks, all right, and from the gold evidence {gold_dated} of "
        f"{asks}, all right",
        f"lihua4's open questions ({open_n} of {len(open_rows)} asks) are rarely answered ({open_share})",
        f"multihop4 {old_within} / {old_out} -> {within} / {out} (entity {old_entity} -> {entity}; the yes/no votes "
        f"drawn anew without reasons on another machine, {right} from wrong to right and {wrong} back), lihua4 "
        f"{old_lihua[0]} / {old_lihua[1]} -> {lihua[0]} / {lihua[1]}",
        f"A local answer takes {amx_off} s at p50 on 40 fit-half multihop4 questions on the AMX machine ({amx_on} s "
        f"with the model's reasons, the default until now); on the AMD EPYC {epyc} s, from {epyc_before} s",
        f"got {smart} of the routed asks against its honest {smart_honest} (`docs/results/lying-edge-smart`; "
        f"{before_fix} before",
    ]


@pytest.mark.parametrize("phrase", _readme_phrases())
def test_readme_prose_figures_are_recomputed_from_their_rows(phrase: str) -> None:
    text = re.sub(r"\s+", " ", (ROOT / "README.md").read_text(encoding="utf-8").replace("**", ""))
    assert phrase in text
