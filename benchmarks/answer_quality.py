"""What a person reads, per mode, kind of ask and question shape, from a finished run's answers.jsonl.

    python -m benchmarks.answer_quality RUN_DIR [RUN_DIR ...] [--halves] [--png OUT.png]

For each mode and kind (within, out): accuracy of the answer shown, accuracy of its short answer alone (without
the supporting quote, which could contain the gold by chance), the majority-class baseline of the same asks,
evidence recall, the share escalated, the share shown as an extract and degenerate generations. Then the same
per question shape (yes/no, choice, entity, date, number, open). ``--halves`` repeats the overall table on the
two halves of the questions (by question id), so a choice made on one half can be judged on the other.
Rows of runs older than the ``short`` field count their short answer as absent.
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.fit_gate import half_of
from shared.core.question_shape import shape_of as question_shape
from simulation.metrics import evidence_recall, majority_baseline

Row = dict[str, Any]
KINDS = ("within", "out")


@dataclass(frozen=True)
class Cell:
    """One group of asks, summarised."""

    n: int
    accuracy: float
    short_accuracy: float
    majority: float
    majority_answer: str
    evidence_recall: float | None
    escalated: float
    extract: float
    degenerate: int

    def line(self, label: str) -> str:
        recall = "—" if self.evidence_recall is None else f"{self.evidence_recall:5.1%}"
        return (
            f"  {label:26s} n={self.n:4d}  shown {self.accuracy:6.1%}  short {self.short_accuracy:6.1%}  "
            f"majority {self.majority:6.1%} ({self.majority_answer!r:.14})  {self.accuracy - self.majority:+6.1%}  "
            f"evidence {recall}  escalated {self.escalated:5.1%}  extract {self.extract:5.1%}  "
            f"degenerate {self.degenerate}"
        )


def summarise(rows: Sequence[Row]) -> Cell:
    golds = [str(r["gold"]) for r in rows]
    answer, majority = majority_baseline(golds)
    recalls = [float(r["evidence_recall"]) for r in rows if r.get("evidence_recall") is not None]
    return Cell(
        n=len(rows),
        accuracy=_share(rows, lambda r: bool(r["correct"])),
        short_accuracy=_share(rows, lambda r: bool(r.get("correct_short"))),
        majority=majority,
        majority_answer=answer,
        evidence_recall=sum(recalls) / len(recalls) if recalls else None,
        escalated=_share(rows, lambda r: bool(r.get("escalated"))),
        extract=_share(rows, lambda r: bool(r.get("extractive"))),
        degenerate=sum(int(r.get("degenerate_generations") or 0) for r in rows),
    )


def shape_of(row: Row) -> str:
    return question_shape(str(row["question"])).shape.value


def load_rows(runs: Iterable[Path]) -> list[Row]:
    rows: list[Row] = []
    for run in runs:
        plain = run / "answers.jsonl"
        text = (
            plain.read_text(encoding="utf-8")
            if plain.is_file()
            else gzip.decompress((run / "answers.jsonl.gz").read_bytes()).decode("utf-8")
        )
        rows += [json.loads(line) for line in text.splitlines() if line.strip()]
    return rows


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
    """Bars of shown and short accuracy beside the majority baseline, per mode and kind (all shapes)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    keys = [k for k in cells if k[2] == "all"]
    figure = Figure(figsize=(max(6.0, 1.2 * len(keys)), 4.0))
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    width = 0.27
    series = {
        "shown": [cells[k].accuracy for k in keys],
        "short alone": [cells[k].short_accuracy for k in keys],
        "majority": [cells[k].majority for k in keys],
    }
    for i, (label, values) in enumerate(series.items()):
        ax.bar([x + (i - 1) * width for x in range(len(keys))], [100 * v for v in values], width, label=label)
    ax.set_xticks(range(len(keys)), [f"{m}\n{k}" for m, k, _ in keys])
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 100)
    ax.legend()
    ax.set_title("Accuracy against the majority baseline of the same asks")
    figure.tight_layout()
    figure.savefig(out, dpi=110)


def _share(rows: Sequence[Row], predicate: Any) -> float:
    return sum(1 for r in rows if predicate(r)) / len(rows) if rows else 0.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", type=Path, nargs="+", help="run directories (answers.jsonl)")
    p.add_argument("--halves", action="store_true", help="the overall table on each half of the questions")
    p.add_argument("--png", type=Path, help="write a bar chart here")
    args = p.parse_args(argv)
    rows = load_rows(args.runs)
    cells = table(rows)
    print_table(cells, "all questions")
    for mode in sorted({str(r["mode"]) for r in rows if str(r["mode"]).startswith("dgrag")}):
        print(f"== {mode}: " + asker_share([r for r in rows if r["mode"] == mode]))
    if args.halves:
        for half in (0, 1):
            print_table(table([r for r in rows if half_of(str(r["qid"])) == half], by_shape=False), f"half {half}")
    if args.png:
        plot(cells, args.png)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
