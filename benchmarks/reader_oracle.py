"""How well the answer is read when retrieval is perfect: every question answered from its gold evidence documents.

    python -m benchmarks.reader_oracle --bench simulation/bundles/multihop4 [--slm] [--limit N] [--json OUT]

Each answerable question's gold documents become numbered passages (excerpted to the question's sentences as the
edge's retrieval does) and the answer is composed as the edge composes it (shared.core.reading). Without ``--slm`` only
the model-free readers run (yes/no and choice questions then answer the first option, i.e. 'yes'); with it the
configured SLM samples ``answer.n_answers`` answers per question (on the choice schema where the shape has one)
and both compositions are scored: ``extractive`` (the model-free reader where it has an answer) and ``model``
(the samples' vote or chosen sample). Printed per question shape: accuracy, the majority-class baseline of the
same questions and the count; then the same on the two halves of the questions (by question id), so a choice
made on one half can be judged on the other.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from benchmarks.fit_gate import half_of
from shared.config import EdgeConfig
from shared.core.question_shape import shape_of
from shared.core.reading import compose, plan_reading
from shared.models.factory import build_generator
from simulation.bundle import load_questions
from simulation.metrics import is_correct, majority_baseline
from simulation.oracle import first_usable, gold_passages, load_docs, sample_answers


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", type=Path, required=True)
    p.add_argument("--slm", action="store_true", help="sample the configured SLM too (slow)")
    p.add_argument("--limit", type=int, default=0, help="the first N answerable questions (0 = all)")
    p.add_argument("--json", type=Path, help="write every row here")
    p.add_argument("--shapes", default="", help="only questions of these shapes, e.g. yes_no (default: all)")
    args = p.parse_args(argv)
    docs = load_docs(args.bench)
    questions = [q for q in load_questions(args.bench) if q.answerable]
    if args.shapes:
        wanted = set(args.shapes.split(","))
        questions = [q for q in questions if shape_of(q.question).shape.value in wanted]
    if args.limit:
        questions = questions[: args.limit]
    config = EdgeConfig()
    generator = build_generator(config.slm) if args.slm else None
    rows: list[dict[str, object]] = []
    started = time.perf_counter()
    for i, q in enumerate(questions, 1):
        reading = plan_reading(q.question, gold_passages(q, docs))
        answers = sample_answers(generator, reading, config) if generator is not None else []
        row: dict[str, object] = {
            "qid": q.qid,
            "shape": reading.shape.shape.value,
            "gold": q.answer,
            "half": half_of(q.qid),
            "samples": answers,
        }
        for name, extractive in (("extractive", True), ("model", False)):
            if generator is None and not extractive:
                continue
            shown = compose(reading, answers, first_usable(answers), extractive=extractive, no_share=0.5)
            row[name] = shown.text
            row[f"{name}_short"] = shown.short
        rows.append(row)
        print(f"\r{i}/{len(questions)} questions, {time.perf_counter() - started:.0f} s", end="", file=sys.stderr)
    print(file=sys.stderr)
    _print(rows, [m for m in ("extractive", "model") if m in rows[0]])
    if generator is not None:
        _print_no_votes(rows)
    if args.json:
        args.json.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return 0


def _halves(rows: list[dict[str, object]]) -> list[tuple[str, list[dict[str, object]]]]:
    """All the rows, then each half of the questions."""
    return [("all", rows), *((f"half {h}", [r for r in rows if r["half"] == h]) for h in (0, 1))]


def _print(rows: list[dict[str, object]], modes: list[str]) -> None:
    for label, chosen in _halves(rows):
        groups: dict[str, list[dict[str, object]]] = defaultdict(list)
        for r in chosen:
            groups[str(r["shape"])].append(r)
        groups["ALL"] = chosen
        print(f"== {label}")
        for shape, group in sorted(groups.items()):
            golds = [str(r["gold"]) for r in group]
            base, base_acc = majority_baseline(golds)
            cells = []
            for m in modes:
                full = sum(is_correct(str(r[m]), str(r["gold"])) for r in group) / len(group)
                short = sum(is_correct(str(r[f"{m}_short"]), str(r["gold"])) for r in group) / len(group)
                cells.append(f"{m} {full:6.1%} (short alone {short:6.1%})")
            print(f"  {shape:10s} n={len(group):3d}  " + "  ".join(cells) + f"  majority {base_acc:6.1%} ({base!r})")


def _print_no_votes(rows: list[dict[str, object]]) -> None:
    """Yes/no questions answered 'no' only when at least T samples say no (T = 1..4), per half: how much a bias
    towards 'yes' (the majority of both bundles' yes/no golds) would gain over the plain vote."""
    yes_no = [r for r in rows if r["shape"] == "yes_no"]
    if not yes_no:
        return
    print("== yes/no: 'no' only when at least T of the samples say no")
    for label, chosen in _halves(yes_no):
        cells = []
        for needed in (1, 2, 3, 4):
            right = 0
            for r in chosen:
                samples = [str(a).strip().casefold() for a in r["samples"]]  # type: ignore[attr-defined]
                noes = sum(a.startswith("no") for a in samples)
                right += is_correct("no" if noes >= needed else "yes", str(r["gold"]))
            cells.append(f"T={needed} {right / len(chosen):6.1%}")
        print(f"  {label:7s} n={len(chosen):3d}  " + "  ".join(cells))


if __name__ == "__main__":
    raise SystemExit(main())
