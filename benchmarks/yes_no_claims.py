"""Whether checking each claim of a yes/no question against its own source tells "yes" from "no" (issue 34).

    python -m benchmarks.yes_no_claims [--bench DIR] [--half fit]

Model-free. Each yes/no question of the bundle's chosen half is cut into claims at its joints ("while", "whereas",
"and does / did / is / was", "but", ", and the"); a claim that names a source of the question's gold evidence
(its "Source:" line: "TechCrunch", "The Verge") is checked against that source's documents, any other against all
of them. A claim's support is the share of its content words (first five letters) that its documents hold. Printed
per feature (the weakest claim's support, the mean support, the whole question's support, the number of claims):
the AUC against the golds ("yes" positive; 0.5 = no signal), and the accuracy of a threshold fitted on one half of
the questions and scored on the other (2-fold, by a hash of the id) beside always giving the more frequent verdict
of the scored fold. A measurement for choosing a reader, not part of the pipeline.
"""

from __future__ import annotations

import argparse
import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks import ranking
from shared.core.errors import DgragError
from shared.reading.question_shape import Shape, shape_of
from shared.reading.span_reader import stems
from simulation.bundle import Question, load_edges, load_questions
from simulation.halves import half_of, parse_half
from simulation.oracle import load_docs

_JOINT = re.compile(r",?\s+(?:while|whereas|but|and\s+(?:does|did|is|was|has|do))\s+|,\s+and\s+the\s+", re.I)
_SOURCE = re.compile(r"^Source:\s*(?P<name>[^,\n]+)", re.M)
MIN_CLAIM_WORDS = 3


@dataclass(frozen=True)
class Checked:
    qid: str
    yes: bool
    supports: tuple[float, ...]
    overall: float


FEATURES: dict[str, Callable[[Checked], float]] = {
    "weakest claim": lambda c: min(c.supports),
    "mean claim": lambda c: sum(c.supports) / len(c.supports),
    "whole question": lambda c: c.overall,
    "fewer claims": lambda c: -len(c.supports),
}


def check(question: Question, docs: dict[str, str]) -> Checked:
    """The question's claims, each checked against its own source's documents."""
    texts = [docs[d] for d in question.evidence_doc_ids if d in docs]
    by_source: dict[str, list[str]] = {}
    for text in texts:
        if m := _SOURCE.search(text):
            by_source.setdefault(m.group("name").strip(), []).append(text)
    everything = stems(" ".join(texts))
    supports = []
    for claim in _JOINT.split(question.question):
        words = stems(claim)
        if len(words) < MIN_CLAIM_WORDS:
            continue
        own = [t for name, ts in by_source.items() if name.casefold() in claim.casefold() for t in ts]
        held = stems(" ".join(own)) if own else everything
        supports.append(len(words & held) / len(words))
    asked = stems(question.question)
    overall = len(asked & everything) / len(asked) if asked else 0.0
    return Checked(question.qid, question.answer.strip().casefold() == "yes", tuple(supports or [overall]), overall)


def auc(scores: Sequence[float], positive: Sequence[bool]) -> float:
    """The AUC of ``scores`` against the ``positive`` labels (0.5 when one label is absent: nothing to rank)."""
    pos = [s for s, y in zip(scores, positive, strict=True) if y]
    neg = [s for s, y in zip(scores, positive, strict=True) if not y]
    return ranking.auc(pos, neg) if pos and neg else 0.5


def two_fold(rows: Sequence[Checked], feature: Callable[[Checked], float]) -> tuple[float, float]:
    """(accuracy of a threshold fitted on the other fold, accuracy of the scored fold's majority verdict), summed
    over both folds."""
    folds = [[r for r in rows if zlib.crc32(r.qid.encode()) % 2 == k] for k in (0, 1)]
    right = majority = 0
    for fit, scored in ((folds[0], folds[1]), (folds[1], folds[0])):
        threshold = _best_threshold(fit, feature)
        right += sum((feature(r) >= threshold) == r.yes for r in scored)
        yes = sum(r.yes for r in scored)
        majority += max(yes, len(scored) - yes)
    return right / len(rows), majority / len(rows)


def _best_threshold(rows: Sequence[Checked], feature: Callable[[Checked], float]) -> float:
    candidates = [*sorted({feature(r) for r in rows}), float("inf")]
    return max(candidates, key=lambda t: sum((feature(r) >= t) == r.yes for r in rows))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.yes_no_claims", description=__doc__.split("\n")[0])
    p.add_argument("--bench", type=Path, default=Path("simulation/bundles/multihop4"))
    p.add_argument("--half", default="fit", help="fit, report or all (default: fit)")
    args = p.parse_args(argv)
    half = parse_half(args.half)
    try:
        load_edges(args.bench)  # a clear message for a directory that is no bundle
        docs = load_docs(args.bench)
    except (DgragError, OSError) as exc:
        raise SystemExit(f"{args.bench}: {exc}") from exc
    asked = [
        q
        for q in load_questions(args.bench)
        if q.answerable and shape_of(q.question).shape == Shape.YES_NO and (half is None or half_of(q.qid) == half)
    ]
    if not asked:
        raise SystemExit(f"no yes/no questions in {args.bench} ({args.half} half)")
    rows = [check(q, docs) for q in asked]
    yes = sum(r.yes for r in rows)
    print(f"{args.bench.name}, {args.half} half: {len(rows)} yes/no questions, {yes} 'yes'")
    print("| feature | AUC | 2-fold threshold accuracy | majority of the scored folds |")
    print("|---|---|---|---|")
    for name, feature in FEATURES.items():
        fitted, majority = two_fold(rows, feature)
        print(
            f"| {name} | {auc([feature(r) for r in rows], [r.yes for r in rows]):.3f} | {fitted:.1%} | {majority:.1%} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
