"""The local-answer speed tables (docs/results/answer-reason, batched-samples, omp-teams) are what their committed
rows give: local answer p50 / p95, generation p50, decoded tokens p50, the gate's escalation within and out of
domain and the strict accuracy of the answers kept within; and each benchmark table is the one its committed output
printed. A changed digit fails."""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from simulation.report_files import read_rows
from tests.support.paths import REPO

RESULTS = REPO / "docs" / "results"
TABLES = [
    ("answer-reason", "| true (the default then) |", "answer-reason/on.jsonl.gz"),
    ("answer-reason", "| false |", "answer-reason/off.jsonl.gz"),
    ("answer-reason", "| true (AMX machine) |", "answer-reason/amx/on.jsonl.gz"),
    ("answer-reason", "| false (AMX machine, the default) |", "answer-reason/amx/off.jsonl.gz"),
    ("batched-samples", "| before (`b754520`, one by one, grammar first) |", "answer-reason/on.jsonl.gz"),
    ("batched-samples", "| after (`0db317f`, together, grammar checked) |", "batched-samples/local-fit40.jsonl.gz"),
    ("omp-teams", "| before (`0db317f`, spin count alone) |", "batched-samples/local-fit40.jsonl.gz"),
    ("omp-teams", "| after (`b15e5d9`, ACTIVE with the spin count) |", "omp-teams/local-fit40.jsonl.gz"),
]
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.95 * len(ordered))]


def _share(rows: Sequence[dict[str, Any]], key: str) -> str:
    return f"{100 * sum(1 for r in rows if r[key]) / len(rows):.1f}"


def _figures(path: Path) -> list[str]:
    rows = [r for r in read_rows(path) if r["mode"] == "local"]
    total = [r["timings"]["total"] for r in rows]
    generation = [r["timings"]["generation"] for r in rows]
    tokens = [r["model_speed"]["decode_tokens"] for r in rows]
    within = [r for r in rows if r["kind"] == "within"]
    kept = [r for r in within if not r["escalated"]]
    return [
        f"{statistics.median(total):.2f}",
        f"{_p95(total):.2f}",
        f"{statistics.median(generation):.2f}",
        f"{statistics.median(tokens):.0f}",
        _share(within, "escalated"),
        _share([r for r in rows if r["kind"] == "out"], "escalated"),
        _share(kept, "correct"),
        str(len(kept)),
    ]


def _shown(result: str, label: str) -> list[str]:
    for line in (RESULTS / result / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith(label):
            return _NUMBER.findall(line[len(label) :])
    raise AssertionError(f"no row {label!r} in {result}/README.md")


@pytest.mark.parametrize(("result", "label", "rows"), TABLES)
def test_each_local_speed_row_is_recomputed_from_its_rows(result: str, label: str, rows: str) -> None:
    assert _shown(result, label) == _figures(RESULTS / rows)


def _table(result: str, heading: str) -> dict[str, list[str]]:
    """The numbers of each row of the table whose header line starts with ``heading``."""
    lines = (RESULTS / result / "README.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    rows: dict[str, list[str]] = {}
    for line in lines[start + 2 :]:
        if not line.startswith("| "):
            break
        name = line.split(" | ")[0][2:]
        rows[name] = _NUMBER.findall(line[len(name) + 3 :])
    return rows


BENCHMARK_TABLES = [
    ("batched-samples", "benchmark.txt", "| samples decoded | generations", {"together", "one by one"}),
    ("batched-samples", "benchmark-0db317f.txt", "| samples decoded, grammar checked |", {"together", "one by one"}),
    (
        "omp-teams",
        "benchmark.txt",
        "| OpenMP setting |",
        {"short (dgrag's default)", "spin count alone", "passive"},
    ),
]
"""(result, the benchmark's committed output, the README table's header, the settings it shows)."""


@pytest.mark.parametrize(("result", "output", "heading", "settings"), BENCHMARK_TABLES)
def test_each_benchmark_table_is_its_committed_output(
    result: str, output: str, heading: str, settings: set[str]
) -> None:
    printed = (RESULTS / result / output).read_text(encoding="utf-8").splitlines()
    shown = _table(result, heading)
    assert set(shown) == settings
    for setting, numbers in shown.items():
        line = next(x for x in printed if x.startswith(f"| {setting} |"))
        assert numbers == _NUMBER.findall(line[len(setting) + 3 :])


def test_docs_benchmarks_quotes_the_same_figures() -> None:
    text = " ".join((REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8").split())
    table = _table("batched-samples", "| samples decoded | generations")
    together, apart = table["together"], table["one by one"]
    saved = float(apart[4]) - float(together[4])  # decoding p50
    before = _figures(RESULTS / "answer-reason/on.jsonl.gz")[0]
    after = _figures(RESULTS / "batched-samples/local-fit40.jsonl.gz")[0]
    assert f"decoding together saved {saved:.2f} s of {apart[4]} s at p50" in text
    assert f"local answer went from {before} s to {after} s p50" in text
    teams = _table("omp-teams", "| OpenMP setting |")
    fixed = _figures(RESULTS / "omp-teams/local-fit40.jsonl.gz")[0]
    spun, short = teams["spin count alone"][1], teams["short (dgrag's default)"][1]  # after the spin count
    assert f"{spun} s against {short} s for twelve questions" in text
    assert f"local answer of a 4-edge simulation went from {after} s to {fixed} s p50" in text


def test_the_no_reason_fit_half_figures_are_their_rows_and_replay() -> None:
    text = (RESULTS / "answer-reason" / "README.md").read_text(encoding="utf-8")
    replay = (RESULTS / "answer-reason" / "fit-half-noreason" / "fit_gate_check.md").read_text(encoding="utf-8")
    defaults = [line for line in replay.splitlines() if line.startswith("| 0.1 | 0.05 | -0.1 | 0 |")]
    shown = [_NUMBER.findall(line)[-4:-2] for line in defaults]  # escalation within, out per bundle
    (mh_in, mh_out), (lh_in, lh_out) = shown
    row = f"| without reasons (`fit-half-noreason/`, commit 9b64c8d) | {mh_in}% / {mh_out}% | {lh_in}% / {lh_out}% |"
    assert row in text
    asked = {(r["qid"], r["kind"]) for r in read_rows(RESULTS / "omp-teams/local-fit40.jsonl.gz")}
    rows = read_rows(RESULTS / "answer-reason/fit-half-noreason/multihop4-local.jsonl.gz")
    total = [r["timings"]["total"] for r in rows if (r["qid"], r["kind"]) in asked]
    assert len(total) == len(asked)
    with_reasons = _figures(RESULTS / "omp-teams/local-fit40.jsonl.gz")
    assert (
        f"the local answer takes {statistics.median(total):.2f} s at p50 and {_p95(total):.2f} s at p95 without "
        f"reasons against {with_reasons[0]} s and {with_reasons[1]} s with them" in " ".join(text.split())
    )
