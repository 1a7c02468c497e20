"""docs/results/cloud-models/README.md's tables (lihua4, multihop4) are what their committed rows give: strict
accuracy within and out of domain, out-of-domain accuracy by shape, the cloud model's generation time and the
escalated answer's time, recomputed from each run's answers.jsonl.gz with today's scoring and report code; a
changed digit fails."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from simulation.report import latency
from simulation.report_files import find_answers, read_rows
from simulation.scoring import rescored
from tests.support.paths import REPO

RESULTS = REPO / "docs" / "results" / "cloud-models"
MODELS = {
    "SmolLM2-135M-Instruct Q8_0 (default)": "smol",
    "Qwen2.5-Coder-0.5B-Instruct Q4_K_M": "qwen05",
    "Qwen2.5-Coder-1.5B-Instruct Q4_K_M": "qwen15",
}
SHAPES = {"lihua4": ("open", "entity", "yes_no", "date"), "multihop4": ("entity", "yes_no", "open")}
"""The shapes each bundle's table shows out of domain, in its order."""
ROWS = [(bundle, label) for bundle in SHAPES for label in MODELS]
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _accuracy(rows: Sequence[dict[str, Any]]) -> str:
    return f"{100 * sum(1 for r in rows if r['correct'] is True) / len(rows):.1f}"


def _figures(bundle: str, run: str, with_counts: bool) -> list[str]:
    return _figures_of(rescored(read_rows(find_answers(RESULTS / run))), bundle, with_counts)


def _figures_of(rows: Sequence[dict[str, Any]], bundle: str, with_counts: bool) -> list[str]:
    rows = [r for r in rows if r["mode"] == "dgrag"]
    out = [_accuracy([r for r in rows if r["kind"] == kind]) for kind in ("within", "out")]
    for shape in SHAPES[bundle]:
        asks = [r for r in rows if r["kind"] == "out" and r["shape"] == shape]
        out += [_accuracy(asks)] + ([str(len(asks))] if with_counts else [])
    escalated = latency(rows)["escalated"]
    generation = escalated["cloud.cloud_generation"]
    return [*out, f"{generation['p50']:.2f}", f"{generation['p95']:.2f}", f"{escalated['total']['p50']:.2f}"]


def _shown(bundle: str, label: str) -> list[str]:
    """The numbers of ``label``'s row in the table under the heading that names ``bundle``."""
    text = (RESULTS / "README.md").read_text(encoding="utf-8")
    return _row(text.split(f"## {bundle}", 1)[1].split("\n## ", 1)[0], label, f"the {bundle} table")


def _row(section: str, label: str, where: str) -> list[str]:
    """The numbers of ``label``'s table row in ``section``."""
    for line in section.splitlines():
        if line.startswith(f"| {label} |"):
            return _NUMBER.findall(line[len(label) + 3 :])
    raise AssertionError(f"no row {label!r} in {where}")


@pytest.mark.parametrize(("bundle", "label"), ROWS)
def test_each_cloud_models_row_is_recomputed_from_its_rows(bundle: str, label: str) -> None:
    run = f"{bundle}-{MODELS[label]}"
    assert _shown(bundle, label) == _figures(bundle, run, with_counts=label.startswith("SmolLM2"))


AFTER = {
    "SmolLM2-135M-Instruct Q8_0 (default)": None,
    "Qwen2.5-Coder-0.5B-Instruct Q4_K_M": "qwen05",
    "Qwen2.5-Coder-1.5B-Instruct Q4_K_M": "qwen15",
}
"""The rerun at commit b15e5d9: the Qwen runs in cloud-models/b15e5d9/, SmolLM2's rows the published report run's."""


def _rows_beside(run: str, model: str | None, report: Path) -> list[dict[str, Any]]:
    """The rows of the Qwen run ``run`` (a folder under cloud-models/), or (``model`` None) ``report``'s rows of
    the same questions (SmolLM2's)."""
    rows = rescored(read_rows(find_answers(RESULTS / run)))
    if model is not None:
        return rows
    asked = {r["qid"] for r in rows}
    return [r for r in rescored(read_rows(find_answers(report))) if r["qid"] in asked]


def _section_row(heading: str, table: str, label: str) -> list[str]:
    """The numbers of ``label``'s row in the table under ``### table`` of the README's section ``## heading``."""
    text = (RESULTS / "README.md").read_text(encoding="utf-8").split(f"## {heading}", 1)[1]
    section = text.split(f"### {table}", 1)[1].split("\n### ", 1)[0]
    return _row(section, label, f"the {table} table of '{heading}'")


@pytest.mark.parametrize(("bundle", "label"), [(bundle, label) for bundle in SHAPES for label in AFTER])
def test_each_row_after_the_openmp_fix_is_recomputed_from_its_rows(bundle: str, label: str) -> None:
    model = AFTER[label]
    report = REPO / "docs" / "results" / f"report-{bundle}" / "run-b15e5d9"
    rows = _rows_beside(f"b15e5d9/{bundle}-{model or 'qwen05'}", model, report)
    figures = _figures_of(rows, bundle, with_counts=model is None)
    assert _section_row("After the OpenMP fix", bundle, label) == figures


OWN_PROFILE = {
    "SmolLM2-135M-Instruct Q8_0 (default)": None,
    "Qwen2.5-Coder-1.5B-Instruct Q4_K_M, its own profile": "qwen15",
}
"""The rerun at commit a91aeb5 with Qwen 1.5B's own reader profile: its rows in cloud-models/a91aeb5/, SmolLM2's the
published report run's rows of the same questions."""


@pytest.mark.parametrize(("bundle", "label"), [(bundle, label) for bundle in SHAPES for label in OWN_PROFILE])
def test_each_row_with_qwens_own_profile_is_recomputed_from_its_rows(bundle: str, label: str) -> None:
    model = OWN_PROFILE[label]
    rows = _rows_beside(f"a91aeb5/{bundle}-qwen15", model, REPO / "docs" / "results" / f"report-{bundle}")
    figures = _figures_of(rows, bundle, with_counts=model is None)
    assert _section_row("Qwen 1.5B with its own reader profile", f"{bundle}, its own profile", label) == figures
