"""How well the answer is read when retrieval is perfect: every question answered from its gold evidence documents.

    python -m benchmarks.reader_oracle --bench DIR [--bench DIR ...] [--slm] [--half fit] [--profile] [--json OUT]

Each answerable question's gold documents become numbered passages (excerpted to the question's sentences as the
edge's retrieval does) and the answer is composed as the edge composes it (shared.reading.compose). Without
``--slm`` only the model-free readers run (yes/no and choice questions then answer the first option, i.e. 'yes');
with it the configured SLM samples ``answer.n_answers`` answers per question (on the choice schema where the shape
has one) and both compositions are scored: ``extractive`` (the model-free reader where it has an answer) and ``model``
(the samples' vote or chosen sample). The settings come from ``--config`` and ``DGRAG__...`` variables as for
``dgrag edge``. Scored strictly (simulation.scoring: the short answer alone). Printed per question shape: strict
accuracy, the shape-aware baseline of the same questions and the count, on the fit half (where a reader may be
chosen), the report half and both (simulation/halves.py). ``--profile`` prints the reader profile (TOML for
``[answer.readers]``, or the cloud's ``[query.readers]``) that the fit half's rows choose: per shape the reader with
the higher strict accuracy, the shapes where neither beat the shape's baseline listed as unreliable, and whether a
speaker's own line should answer before the model (``speakers``: the model's reading with and without it).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from shared.config import EdgeConfig, load_config
from shared.models.factory import build_generator
from shared.reading.compose import compose
from shared.reading.plan import Reading, plan_reading, shape_of
from shared.reading.reader_profile import SHAPES, ReaderProfile
from shared.reading.span_reader import Passage
from simulation.bundle import Question, load_questions
from simulation.halves import Half, half_of, parse_half, split
from simulation.oracle import first_usable, gold_passages, load_docs, sample_answers
from simulation.retrieved import cached_chunks, load_rows, retrieved_passages
from simulation.scoring import shape_baseline, strictly_correct

ALL_MODEL = ReaderProfile(entity="model", date="model", number="model", open="model")
"""The model's samples for every shape, every verdict shown (to measure the readers, not to answer)."""
ALL_EXTRACTIVE = ReaderProfile(entity="extractive", date="extractive", number="extractive", open="extractive")
"""The model-free reader wherever it has an answer (yes/no and choice questions are always voted), every verdict
shown."""
Row = Mapping[str, Any]
READERS = ("model", "extractive")
NO_SPEAKERS = "model_no_speakers"
MODEL_NO_SPEAKERS = dataclasses.replace(ALL_MODEL, speakers=False)
"""The model's reading without the speaker reader answering first (the rows' ``model_no_speakers``)."""


def accuracy(rows: Sequence[Row], reader: str) -> float:
    right = sum(strictly_correct(str(r[f"{reader}_short"]), str(r["gold"]), str(r[reader])) for r in rows)
    return right / len(rows) if rows else 0.0


def choose(rows: Sequence[Row]) -> tuple[dict[str, str], list[str], dict[str, tuple[float, float, float, int]]]:
    """(shape -> reader, shapes no reader reads above their baseline, shape -> (model, extractive, baseline, n))
    from the fit half's rows."""
    by_shape: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        if row["half"] == Half.FIT and "model" in row:
            by_shape[str(row["shape"])].append(row)
    chosen, unreliable, measured = {}, [], {}
    for shape in SHAPES:
        group = by_shape.get(shape, [])
        if not group:
            continue
        model, extractive = accuracy(group, "model"), accuracy(group, "extractive")
        base = shape_baseline(group).accuracy
        chosen[shape] = "model" if model >= extractive else "extractive"
        if max(model, extractive) <= base:
            unreliable.append(shape)
        measured[shape] = (model, extractive, base, len(group))
    return chosen, unreliable, measured


def profile_toml(rows: Sequence[Row]) -> str:
    """The ``[answer.readers]`` table the fit half chooses, with what it measured as comments."""
    chosen, unreliable, measured = choose(rows)
    lines = ["# measured on the fit half: strict accuracy of the model / extractive reader vs the shape baseline"]
    lines.append("[answer.readers]")
    for shape, reader in chosen.items():
        model, extractive, base, n = measured[shape]
        lines.append(f'{shape} = "{reader}"  # {model:.1%} / {extractive:.1%} vs {base:.1%}, n={n}')
    lines.append(f"# no reader above the shape's baseline: {', '.join(unreliable) or 'none'}")
    with_speakers, without = speaker_accuracy(rows)
    keep = str(with_speakers >= without).lower()
    lines.append(f"speakers = {keep}  # {with_speakers:.1%} with / {without:.1%} without, where they differ")
    return "\n".join(lines)


def speaker_accuracy(rows: Sequence[Row]) -> tuple[float, float]:
    """The model's strict accuracy on the fit half's rows with the speaker reader first and without it, over the
    rows where the two differ in the shown answer (0, 0 where none do)."""
    differ = [
        r for r in rows if r["half"] == Half.FIT and NO_SPEAKERS in r and r["model_short"] != r[f"{NO_SPEAKERS}_short"]
    ]
    return accuracy(differ, "model"), accuracy(differ, NO_SPEAKERS)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", type=Path, action="append", required=True, help="a bundle (repeat for several)")
    p.add_argument("--slm", action="store_true", help="sample the configured SLM too (slow)")
    p.add_argument("--limit", type=int, default=0, help="the first N answerable questions of each bundle (0 = all)")
    p.add_argument("--json", type=Path, help="write every row here (with the samples, for --samples)")
    p.add_argument("--samples", type=Path, help="reuse the samples of an earlier --json instead of the SLM")
    p.add_argument("--config", type=Path, help="an edge.toml (the SLM, answer settings); DGRAG__ variables apply too")
    p.add_argument("--shapes", default="", help="only questions of these shapes, e.g. yes_no (default: all)")
    p.add_argument("--half", default="all", help="only the fit or the report half of the questions (default: all)")
    p.add_argument("--profile", action="store_true", help="print the reader profile the fit half chooses (TOML)")
    p.add_argument(
        "--context",
        type=Path,
        action="append",
        help="read each ask of these answer rows (jsonl[.gz]) from the chunks its answer saw instead of the gold"
        " documents (repeat for several; the bundles' caches under --cache-dir)",
    )
    p.add_argument("--modes", default="local,dgrag", help="with --context: the rows' modes to read")
    p.add_argument("--cache-dir", type=Path, default=Path(".dgrag/sim-cache"), help="the simulation's index cache")
    args = p.parse_args(argv)
    config = load_config(EdgeConfig, args.config)
    generator = build_generator(config.slm) if args.slm and args.samples is None else None
    earlier = _earlier_samples(args.samples)
    rows: list[dict[str, object]] = []
    for q, passages in _cases(args):
        reading = plan_reading(q.question, passages)
        if earlier is not None:
            answers = earlier.get(q.qid, [])
        else:
            answers = sample_answers(generator, reading, config) if generator is not None else []
        rows.append(_row(q, reading, answers, modelled=generator is not None or earlier is not None))
        print(f"\r{len(rows)} questions", end="", file=sys.stderr)
    print(file=sys.stderr)
    if args.json:
        args.json.write_text("".join(json.dumps(r) + "\n" for r in rows))
    _print(rows, [m for m in ("extractive", "model") if m in rows[0]])
    if args.profile:
        print(profile_toml(rows))
    return 0


def _cases(args: argparse.Namespace) -> Iterator[tuple[Question, list[Passage]]]:
    """Each question with the passages it is read from: its gold documents, or (``--context``) the chunks each
    recorded ask's answer saw."""
    if not args.context:
        for bench in args.bench:
            docs = load_docs(bench)
            yield from ((q, gold_passages(q, docs)) for q in _questions(bench, args))
        return
    wanted = {q.qid: q for bench in args.bench for q in _questions(bench, args)}
    chunks = {name: cached_chunks(args.cache_dir, name) for name in {b.name for b in args.bench}}
    for row in load_rows(args.context, args.modes.split(",")):
        q = wanted.get(str(row["qid"]))
        found = [p for c in chunks.values() if (p := retrieved_passages(row, c)) is not None]
        if q is not None and found:
            yield q, found[0]


def _questions(bench: Path, args: argparse.Namespace) -> list[Question]:
    questions = [q for q in load_questions(bench) if q.answerable]
    if args.shapes:
        wanted = set(args.shapes.split(","))
        questions = [q for q in questions if shape_of(q.question).shape.value in wanted]
    if (half := parse_half(args.half)) is not None:
        questions = [q for q in questions if half_of(q.qid) == half]
    return questions[: args.limit] if args.limit else questions


def _earlier_samples(path: Path | None) -> dict[str, list[str]] | None:
    if path is None:
        return None
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {str(r["qid"]): list(r["samples"]) for r in rows}


def _row(q: Question, reading: Reading, answers: list[str], modelled: bool) -> dict[str, object]:
    row: dict[str, object] = {
        "qid": q.qid,
        "question": q.question,
        "shape": reading.shape.shape.value,
        "gold": q.answer,
        "half": half_of(q.qid),
        "samples": answers,
    }
    for name, profile in (("extractive", ALL_EXTRACTIVE), ("model", ALL_MODEL), (NO_SPEAKERS, MODEL_NO_SPEAKERS)):
        if not modelled and profile is not ALL_EXTRACTIVE:
            continue
        shown = compose(reading, answers, first_usable(answers), profile, withhold_below=0.0)
        row[name] = shown.text
        row[f"{name}_short"] = shown.short
    return row


def _halves(rows: list[dict[str, object]]) -> list[tuple[str, list[dict[str, object]]]]:
    """The fit half (where a reader may be chosen), the report half, and all the rows."""
    fit, report = split(rows)
    return [("fit half", fit), ("report half", report), ("both halves", rows)]


def _print(rows: list[dict[str, object]], modes: list[str]) -> None:
    for label, chosen in _halves(rows):
        if not chosen:
            continue
        groups: dict[str, list[dict[str, object]]] = defaultdict(list)
        for r in chosen:
            groups[str(r["shape"])].append(r)
        groups["ALL"] = chosen
        print(f"== {label}")
        for shape, group in sorted(groups.items()):
            base = shape_baseline(group).accuracy
            cells = [f"{m} {accuracy(group, m):6.1%}" for m in modes]
            print(f"  {shape:10s} n={len(group):3d}  " + "  ".join(cells) + f"  shape baseline {base:6.1%}")


if __name__ == "__main__":
    raise SystemExit(main())
