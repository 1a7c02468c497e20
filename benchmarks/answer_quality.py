"""What a person reads, per mode, kind of ask and question shape, from finished runs' answers, scored strictly.

    python -m benchmarks.answer_quality RUN_DIR [RUN_DIR ...] [--png OUT.png]

Rows are judged again by simulation.scoring (the short answer alone: no credit from a quote, an extract or a cited
id), so runs of older versions are judged like new ones. For each mode and kind (within, out): strict accuracy,
the shape-aware baseline of the same asks (yes/no: the more frequent verdict; others: their most frequent gold),
evidence recall (retrieval vs reading), the share escalated, the share shown as an extract, degenerate
generations and the readers that made the answers. Then the same per question shape. Every table is printed for
the fit half, the report half (the published one) and both, by question id (simulation/halves.py).
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simulation.answer_rows import find_answers, read_rows
from simulation.halves import split
from simulation.metrics import evidence_recall
from simulation.scoring import rescored, shape_baseline

Row = dict[str, Any]
KINDS = ("within", "out")


@dataclass(frozen=True)
class Cell:
    """One group of asks, summarised."""

    n: int
    accuracy: float
    baseline: float
    evidence_recall: float | None
    escalated: float
    extract: float
    degenerate: int
    readers: str

    def line(self, label: str) -> str:
        recall = "—" if self.evidence_recall is None else f"{self.evidence_recall:5.1%}"
        return (
            f"  {label:26s} n={self.n:4d}  strict {self.accuracy:6.1%}  baseline {self.baseline:6.1%}  "
            f"{self.accuracy - self.baseline:+6.1%}  evidence {recall}  escalated {self.escalated:5.1%}  "
            f"extract {self.extract:5.1%}  degenerate {self.degenerate}  readers {self.readers}"
        )


def summarise(rows: Sequence[Row]) -> Cell:
    recalls = [float(r["evidence_recall"]) for r in rows if r.get("evidence_recall") is not None]
    readers = Counter(str(r.get("reader") or "unrecorded") for r in rows)
    return Cell(
        n=len(rows),
        accuracy=_share(rows, lambda r: bool(r["correct"])),
        baseline=shape_baseline(rows).accuracy,
        evidence_recall=sum(recalls) / len(recalls) if recalls else None,
        escalated=_share(rows, lambda r: bool(r.get("escalated"))),
        extract=_share(rows, lambda r: bool(r.get("extractive"))),
        degenerate=sum(int(r.get("degenerate_generations") or 0) for r in rows),
        readers=" ".join(f"{k}:{v}" for k, v in sorted(readers.items())),
    )


def shape_of(row: Row) -> str:
    return str(row["shape"])


def load_rows(runs: Iterable[Path]) -> list[Row]:
    """Every answer row of ``runs``, judged strictly."""
    rows: list[Row] = []
    for run in runs:
        rows += read_rows(find_answers(run))
    return rescored(rows)


def table(rows: Sequence[Row], by_shape: bool = True) -> dict[tuple[str, str, str], Cell]:
    """(mode, kind, shape or 'all') -> Cell, for the within- and out-of-domain asks."""
    groups: dict[tuple[str, str, str], list[Row]] = defaultdict(list)
    for r in rows:
        if r["kind"] not in KINDS:
            continue
        groups[(r["mode"], r["kind"], "all")].append(r)
        if by_shape:
            groups[(r["mode"], r["kind"], shape_of(r))].append(r)
    return {key: summarise(group) for key, group in sorted(groups.items())}


def print_table(cells: dict[tuple[str, str, str], Cell], title: str) -> None:
    print(f"== {title}")
    for (mode, kind, shape), cell in cells.items():
        print(cell.line(f"{mode} {kind} {shape}"))


def asker_share(rows: Sequence[Row]) -> str:
    """For within-domain asks the cloud answered: evidence recall of the context with the asking edge's own
    chunks, and of the other edges' chunks alone (what the context held before the asker joined it)."""
    answered = [r for r in rows if r["kind"] == "within" and r.get("decision") == "cloud" and r.get("sources")]
    if not answered:
        return "no within-domain ask was answered by the cloud"
    both = [evidence_recall(r["evidence_doc_ids"], [s["doc_id"] for s in r["sources"]]) for r in answered]
    others = [
        evidence_recall(r["evidence_doc_ids"], [s["doc_id"] for s in r["sources"] if s.get("edge_id") != r["asked_at"]])
        for r in answered
    ]
    right = sum(bool(r["correct"]) for r in answered) / len(answered)
    return (
        f"{len(answered)} within-domain asks answered by the cloud: evidence recall {sum(both) / len(both):.1%} "
        f"with the asker's own chunks, {sum(others) / len(others):.1%} from the other edges' alone; "
        f"accuracy {right:.1%}"
    )


def plot(cells: dict[tuple[str, str, str], Cell], out: Path) -> None:
    """Bars of strict accuracy beside the shape-aware baseline, per mode and kind (all shapes)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    keys = [k for k in cells if k[2] == "all"]
    figure = Figure(figsize=(max(6.0, 1.2 * len(keys)), 4.0))
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    width = 0.4
    series = {"strict": [cells[k].accuracy for k in keys], "shape baseline": [cells[k].baseline for k in keys]}
    for i, (label, values) in enumerate(series.items()):
        ax.bar([x + (i - 0.5) * width for x in range(len(keys))], [100 * v for v in values], width, label=label)
    ax.set_xticks(range(len(keys)), [f"{m}\n{k}" for m, k, _ in keys])
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 100)
    ax.legend()
    ax.set_title("Strict accuracy against the shape-aware baseline of the same asks")
    figure.tight_layout()
    figure.savefig(out, dpi=110)


def _share(rows: Sequence[Row], predicate: Any) -> float:
    return sum(1 for r in rows if predicate(r)) / len(rows) if rows else 0.0


def halves(rows: Sequence[Row]) -> list[tuple[str, list[Row]]]:
    """The report half (published figures), the fit half (defaults fitted there) and both."""
    fit, report = split(rows)
    return [("report half", report), ("fit half", fit), ("both halves", list(rows))]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", type=Path, nargs="+", help="run directories (answers.jsonl or answers.jsonl.gz)")
    p.add_argument("--png", type=Path, help="write a bar chart of the report half here")
    args = p.parse_args(argv)
    rows = load_rows(args.runs)
    for label, chosen in halves(rows):
        print_table(table(chosen), label)
        for mode in sorted({str(r["mode"]) for r in chosen if str(r["mode"]).startswith("dgrag")}):
            print(f"== {label}, {mode}: " + asker_share([r for r in chosen if r["mode"] == mode]))
    if args.png:
        plot(table(halves(rows)[0][1]), args.png)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
