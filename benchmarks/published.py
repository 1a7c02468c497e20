"""Every figure README.md's results table publishes, recomputed from the committed rows under docs/results.

    python -m benchmarks.published           # prints the table as README.md must show it
    python -m benchmarks.published --write   # rewrites README.md's results table from the rows
    python -m benchmarks.published --check   # exit 1 when README.md's table is not what the rows give (CI)

tests/unit/docs/test_published_figures.py compares README.md's table with these rows cell by cell, so a figure that
does not follow from its committed rows (a changed digit, a figure without rows) fails the tests. Answer figures
come from the report half of the dev questions only (simulation/halves.py), scored strictly
(simulation/scoring.py) beside the shape-aware baseline of the same asks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import edge_model
from benchmarks.lying_edge import figures, same_questions
from benchmarks.membership import aucs
from benchmarks.membership import read_rows as membership_rows
from simulation.answer_rows import find_answers, read_rows
from simulation.halves import Half, half_of
from simulation.metrics import percentile
from simulation.report_calibration import confidence, coverage_cell, reliability
from simulation.scoring import rescored, shape_baseline

ROOT = Path(__file__).resolve().parents[1]
HELD_OUT_PREFIX = "held-out-"
"""A results folder named so holds a run of a held-out bundle: every question counts (it has no fit half)."""
Row = dict[str, Any]
DGRAG = "dgrag"
PLAIN = "plain"
CONFIDENT = 0.65
"""A stated probability from which a wrong answer counts as a confident one."""


@dataclass(frozen=True)
class Figure:
    """One row of the results table: what it shows, the committed report it comes from, and how."""

    what: str
    report: str
    compute: Callable[[Path], str]

    def row(self) -> str:
        return f"| {self.what} | {self.compute(ROOT / self.report)} | `{self.report}` |"


def report_half(run: Path, mode: str = DGRAG) -> list[Row]:
    """The run's rows (a run directory, or a rows file) of ``mode`` for questions of the report half, judged
    strictly; every question of a held-out bundle (its report.json says so), which has no fit half."""
    rows = rescored(read_rows(run if run.is_file() else find_answers(run)))
    whole = run.is_dir() and run.name.startswith(HELD_OUT_PREFIX)
    return [r for r in rows if r["mode"] == mode and (whole or half_of(str(r["qid"])) == Half.REPORT)]


def coverage_confidence(run: Path) -> str:
    """Answerable asks: coverage and accuracy on the answered ones; the share marked sure and their accuracy; ECE."""
    rows = [r for r in report_half(run) if r["kind"] in ("within", "out")]
    cell, table = coverage_cell(rows), reliability(rows)
    sure = table["by_word"]["sure"]
    said = f"sure {_pct(table['sure_share'])} of asks, right {_pct(sure['accuracy'])}" if sure["n"] else "none sure"
    bold = [r for r in rows if confidence(r) >= CONFIDENT]
    wrong = sum(1 for r in bold if not r["correct"])
    return (
        f"coverage {_pct(cell['coverage'] or 0.0)}, right when answered {_pct(cell['answered_accuracy'] or 0.0)}; "
        f"{said}; wrong at {CONFIDENT:.0%} or more: {wrong} of {len(rows)}; ECE {table['ece'] or 0.0:.3f} "
        f"(n={len(rows)} asks)"
    )


def _pct(value: float) -> str:
    return f"{value:.1%}"


def _accuracy(rows: Sequence[Row]) -> float:
    return sum(1 for r in rows if r["correct"]) / len(rows) if rows else 0.0


def accuracy_within_out(run: Path) -> str:
    """``within / out (baseline b_within / b_out; plain NaiveRAG p; n=N)``: strict accuracy beside the shape-aware
    baseline and, where the run has it, the plain NaiveRAG of the same asks (simulation/plain_rag.py)."""
    rows = report_half(run)
    kinds = [[r for r in rows if r["kind"] == k] for k in ("within", "out")]
    accuracy = " / ".join(_pct(_accuracy(k)) for k in kinds)
    baseline = " / ".join(_pct(shape_baseline(k).accuracy) for k in kinds)
    plain = [r for r in report_half(run, PLAIN) if r["kind"] == "within"]
    beside = f"; plain NaiveRAG {_pct(_accuracy(plain))}" if plain else ""
    return f"{accuracy} (baseline {baseline}{beside}; n={len(kinds[0])} questions)"


def escalation_within_out(run: Path) -> str:
    rows = report_half(run)
    shares = []
    for kind in ("within", "out"):
        chosen = [r for r in rows if r["kind"] == kind]
        shares.append(_pct(sum(1 for r in chosen if r["escalated"]) / len(chosen) if chosen else 0.0))
    return " / ".join(shares)


def by_shape(run: Path, shapes: Sequence[str] = ("entity", "yes_no")) -> str:
    """``shape a% vs b%`` per shape over both kinds of answerable asks."""
    rows = [r for r in report_half(run) if r["kind"] in ("within", "out")]
    cells = []
    for shape in shapes:
        chosen = [r for r in rows if r["shape"] == shape]
        if chosen:
            base = shape_baseline(chosen).accuracy
            cells.append(f"{shape.replace('_', '/')} {_pct(_accuracy(chosen))} vs {_pct(base)} (n={len(chosen)})")
    return "; ".join(cells)


def by_type(run: Path) -> str:
    """``type right/asks`` per question type of the bundle (both kinds of answerable asks, and unanswerable)."""
    rows = report_half(run)
    types = sorted({str(r["type"]) for r in rows})
    cells = []
    for kind in types:
        chosen = [r for r in rows if r["type"] == kind]
        cells.append(f"{kind} {sum(1 for r in chosen if r['correct'])}/{len(chosen)}")
    return "; ".join(cells)


def evidence_recall_within_out(run: Path) -> str:
    rows = report_half(run)
    cells = []
    for kind in ("within", "out"):
        values = [float(r["evidence_recall"]) for r in rows if r["kind"] == kind and r["evidence_recall"] is not None]
        cells.append(_pct(sum(values) / len(values) if values else 0.0))
    return " / ".join(cells)


def waits(run: Path) -> str:
    """What a person waits for, p50 seconds: an answer made at the asking edge, one made by the cloud, and the first
    words of a cloud answer (its draft's first piece where the cloud streams one, else the whole answer). Only each
    question's first ask counts (within its domain): its repeat out of domain comes next, and the cloud's model
    may reuse the prompt it has just read (llama.cpp keeps it), which a person asking once would not see."""
    rows = [r for r in report_half(run) if r["kind"] == "within"]
    local = [float(r["timings"]["total"]) for r in rows if r["decision"] == "local" and "total" in r["timings"]]
    cloud = [r["timings"] for r in rows if r["decision"] == "cloud" and "total" in r["timings"]]
    first = [float(t.get("first_draft", t["total"])) for t in cloud]
    escalated = [float(t["total"]) for t in cloud]
    return (
        f"local {_p50(local)} (n={len(local)}); escalated {_p50(escalated)}, first words {_p50(first)} (n={len(cloud)})"
    )


def _p50(values: Sequence[float]) -> str:
    return f"{percentile(values, 50):.2f} s" if values else "—"


def extraction_leaks(report: Path) -> str:
    """Answers to extraction prompts carrying a run of a non-consenting edge's words, from the committed rows."""
    data = json.loads((report / "extraction-chunks-paraphrase.json").read_text(encoding="utf-8"))
    rows = [row for table in data["results"].values() for row in table]
    leaks = sum(1 for row in rows if row["leak"])
    return f"{leaks} of {len(rows)} ({data['leak_words']}-word runs)"


LIAR = "sports"
"""The edge run as a liar in docs/results/lying-edge-kinds and lying-edge-smart (simulation/liar_host.py)."""
HONEST_ROWS = "honest.jsonl.gz"
"""Beside each liar run's rows: the honest run's rows at the same commit, on the same questions and seed."""


def _paired(honest_rows: list[Row], run: Path) -> tuple[dict[str, float], dict[str, float]]:
    """The liar figures of the honest run (on the questions the liar run asked) and of the liar run ``run``."""
    lying_rows = report_half(run)
    return figures(same_questions(honest_rows, lying_rows), LIAR), figures(lying_rows, LIAR)


LIAR_KINDS = ("echo", "refuser")
"""The kinds of docs/results/lying-edge-kinds, each in its own folder beside the honest run's honest.jsonl.gz."""


def liar_kinds(report: Path, kinds: tuple[str, ...] = LIAR_KINDS) -> str:
    """``kind h% -> l%`` per liar kind: the share of routed asks sent to the liar, honest run -> with it."""
    honest_rows = report_half(report / HONEST_ROWS)
    cells = []
    for kind in kinds:
        honest, lying = _paired(honest_rows, report / kind)
        cells.append(f"{kind} {_pct(honest['captured'])} -> {_pct(lying['captured'])}")
    return "; ".join(cells)


def membership(report: Path) -> str:
    """The highest AUC any field an asker sees reaches at telling member names from non-members, per level (a
    field that ranks members lower tells as much: its AUC counts as 1 - AUC)."""
    rows = membership_rows(report / "rows.jsonl")
    results = aucs(rows)
    names = sum(1 for r in rows if r["level"] == next(iter(results)))
    cells = [
        f"target {level}: {max(max(v, 1.0 - v) for v in by.values()):.3f} over {len(by)} fields"
        for level, by in results.items()
    ]
    return "; ".join(cells) + f" ({names} names)"


def edge_models(report: Path) -> str:
    """Per candidate edge model, over every bundle's rows: accuracy, right when backed, p50 seconds."""
    rows = [json.loads(line) for f in sorted(report.glob("*.jsonl")) for line in f.read_text().splitlines()]
    cells = []
    for line in edge_model.table([{**r, "bench": "all"} for r in rows]):
        backed = line["right_when_backed"]
        right = "—" if backed is None else _pct(float(backed))
        cells.append(
            f"{line['model']} {_pct(float(line['accuracy']))} right, {right} of its backed answers "
            f"({_pct(float(line['backed']))} backed), p50 {float(line['p50_s']):.2f} s"
        )
    return "; ".join(cells) + f" (n={len(rows) // max(len(cells), 1)} questions)"


def served_beside(report: Path, in_process: str = "docs/results/held-out-debgnu3") -> str:
    """The served run's strict accuracy beside the same model's in process, and how far their asks agree."""
    served, local = report_half(report), {(r["qid"], r["asked_at"]): r for r in report_half(ROOT / in_process)}
    pairs = [(r, local[(r["qid"], r["asked_at"])]) for r in served if (r["qid"], r["asked_at"]) in local]
    same = sum(1 for a, b in pairs if a["short"] == b["short"])
    gaps = sorted(abs(float(a["confidence"]) - float(b["confidence"])) for a, b in pairs)
    gap = gaps[len(gaps) // 2] if gaps else 0.0
    beside = accuracy_within_out(ROOT / in_process).split(" (")[0]
    return (
        f"{accuracy_within_out(report).split(' (')[0]} served, {beside} in process; same short answer on {same} of "
        f"{len(pairs)} asks; confidence within 0.02 on {sum(1 for g in gaps if g <= 0.02)}, median gap {gap:.2f}"
    )


def cloud_load(report: Path, levels: Sequence[int] = (1, 8, 16)) -> str:
    """Per configuration: the cloud's answers a minute, p95 seconds and refusals at some numbers of askers."""
    summaries = [json.loads(line) for f in sorted(report.glob("*.summary.jsonl")) for line in f.open()]
    cells = []
    for label in dict.fromkeys(str(s["label"]) for s in summaries):
        at = {int(s["level"]): s for s in summaries if s["label"] == label}
        figures = [
            f"{n}: {at[n]['per_minute']}/min, p95 {at[n]['p95'] or '—'} s, {sum(at[n]['refusals'].values())} refused"
            for n in levels
            if n in at
        ]
        cells.append(f"{label} " + ", ".join(figures))
    return "; ".join(cells)


CORPORA = (
    ("GNU Coding Standards (gnu-standards)", "docs/results/held-out-debgnu3", True),
    ("SQLite documentation (sqlite3-doc)", "docs/results/held-out-debsqlite3", False),
    ("Debian Administrator's Handbook (debian-handbook)", "docs/results/held-out-debhandbook3", False),
    ("News (MultiHop-RAG sample, 30 report-half questions)", "docs/results/multihop4-report30", False),
)
"""The corpora whose figures are published: three held-out corpora of real documentation, reported whole (nothing
was fitted on them), and the news bundle's report half; and whether their run had the machine to itself (only
then are its waits published)."""


def corpus_figures(name: str, report: str, timed: bool) -> tuple[Figure, ...]:
    waited = (Figure(f"{name}: what a person waits for (p50 of first asks, 2 cores, no AMX)", report, waits),)
    return (
        Figure(f"{name}: strict accuracy within / out", report, accuracy_within_out),
        Figure(f"{name}: right / asks by question type", report, by_type),
        Figure(f"{name}: yes/no beside its baseline", report, lambda r: by_shape(r, ("yes_no",))),
        Figure(f"{name}: coverage and confidence", report, coverage_confidence),
        Figure(f"{name}: escalation within / out", report, escalation_within_out),
        Figure(f"{name}: evidence recall within / out", report, evidence_recall_within_out),
        *(waited if timed else ()),
    )


FIGURES = (
    *(figure for name, report, timed in CORPORA for figure in corpus_figures(name, report, timed)),
    Figure(
        "liars of two kinds among multihop4's 4: asks routed to the liar, honest run -> with it",
        "docs/results/lying-edge-kinds",
        liar_kinds,
    ),
    Figure(
        "the smart liar once the cloud bounds and checks every claim routing uses (commit 9bb2dfc)",
        "docs/results/lying-edge-smart",
        lambda r: liar_kinds(r, ("smart",)),
    ),
    Figure(
        "a probe refuser whose summaries also list the 60 names the other edges mention most (commit b4fa139)",
        "docs/results/lying-edge-smart",
        lambda r: liar_kinds(r, ("stuffer",)),
    ),
    Figure(
        "membership inference: best AUC of what an asker sees at telling an edge's names from others' (0.5 = a coin)",
        "docs/results/membership",
        membership,
    ),
    Figure(
        "the edge's model, reading the same 4 excerpts of the three documentation corpora (2 cores, no AMX)",
        "docs/results/edge-model",
        edge_models,
    ),
    Figure(
        "GNU Coding Standards read by the cloud's model on llama.cpp's server and in process: strict accuracy within "
        "/ out",
        "docs/results/held-out-debgnu3-served",
        served_beside,
    ),
    Figure(
        "the cloud under load, people asking at once (2 cores, no AMX): answers a minute, p95, refused",
        "docs/results/cloud-load",
        cloud_load,
    ),
    Figure(
        "extraction prompts whose answer carries a run of a paraphrase-only edge's words",
        "docs/results/extraction",
        extraction_leaks,
    ),
)


HEADER = "| what | figure | report |\n|---|---|---|"


def table() -> str:
    return "\n".join([HEADER, *(figure.row() for figure in FIGURES)])


def with_table(readme: str, new: str) -> str:
    """``readme`` with the table of its "## Results" section replaced by ``new``."""
    head, rest = readme.split("## Results", 1)
    section, *tail = rest.split("\n## ", 1)
    lines = section.split("\n")
    rows = [i for i, line in enumerate(lines) if line.startswith("|")]
    if not rows:
        raise SystemExit("README.md's Results section has no table to replace")
    section = "\n".join([*lines[: rows[0]], new, *lines[rows[-1] + 1 :]])
    return head + "## Results" + section + "".join("\n## " + t for t in tail)


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help="rewrite README.md's results table")
    action.add_argument("--check", action="store_true", help="exit 1 when README.md's table differs from the rows")
    args = parser.parse_args(argv)
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    updated = with_table(text, table())
    if args.write:
        readme.write_text(updated, encoding="utf-8")
    elif args.check and updated != text:
        print("README.md's results table differs from the committed rows: run python -m benchmarks.published --write")
        return 1
    elif not args.check:
        print(table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
