"""Fit a model's yes/no verdict (shared.reading.claims) on the fit half of simulation runs.

    python -m benchmarks.fit_yes_no RUN_DIR [RUN_DIR ...] [--rows FILE] [--write]
    python -m benchmarks.fit_yes_no --from-rows FILE [--write]

For every fit-half ask of a yes/no question in the runs (mode dgrag), the passages the answer was read from (its
sources, taken from the run's edge stores) are read again claim by claim with the cloud's model (or ``[llm]`` of
``--cloud-config``): one forward pass per claim. A logistic regression (scikit-learn) of "the gold is yes" on the
claims' support and held key words is fitted, and its 5-fold cross-validated accuracy, coverage at even odds and
AUC are printed beside the vote the run showed and always "yes". ``--write`` stores the fit in the ``yes_no``
section of the model's data file; ``--rows`` keeps each ask's scores, and ``--from-rows`` fits again from such a
file without the model. Report-half rows are refused.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks.fit_confidence import fit as logistic_fit
from shared.config import CloudConfig, load_config
from shared.core.errors import DgragError
from shared.core.sureness import CLOUD_WITHHOLD_BELOW
from shared.models.calibration_files import model_key
from shared.reading.claims import ClaimScore, VerdictEvidence, score_claims, verdict_evidence
from shared.reading.confidence import Calibration
from shared.reading.model_data import write_section
from shared.reading.plan import Shape, shape_of
from shared.reading.span_reader import Passage
from simulation.answer_rows import find_answers, read_rows
from simulation.halves import Half, half_of

FOLDS = 5


def yes_no_asks(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fit-half dgrag asks of yes/no questions whose gold is yes or no, with sources to read."""
    out = []
    for row in rows:
        if half_of(str(row["qid"])) != Half.FIT:
            raise DgragError(f"{row['qid']} is a report-half question: fit on `dgrag sim run --half fit` runs only")
        gold = str(row.get("gold", "")).strip().casefold()
        if row.get("mode") != "dgrag" or gold not in ("yes", "no") or not row.get("sources"):
            continue
        if shape_of(str(row["question"])).shape == Shape.YES_NO:
            out.append(row)
    return out


class RunChunks:
    """Chunk texts of a run's edge stores (their SQLite files, opened read-only), by document and chunk id."""

    def __init__(self, run: Path) -> None:
        files = sorted((run / "edges").glob("*/edge.sqlite3"))
        if not files:
            raise DgragError(f"{run}/edges holds no edge stores: pass the --out directory of a `dgrag sim run`")
        self._stores = [sqlite3.connect(f"file:{f}?mode=ro", uri=True) for f in files]

    def passages(self, sources: Sequence[dict[str, Any]]) -> list[Passage]:
        out: list[Passage] = []
        for source in sources:
            text = self._text(str(source["doc_id"]), int(source["chunk_id"]))
            if text is not None:
                where = f"{source['edge_id']}:{source['doc_id']}" if source.get("edge_id") else str(source["doc_id"])
                out.append(Passage(len(out) + 1, text, where))
        return out

    def _text(self, doc_id: str, chunk_id: int) -> str | None:
        for store in self._stores:
            row = store.execute("SELECT text FROM chunks WHERE id = ? AND doc_id = ?", (chunk_id, doc_id)).fetchone()
            if row is not None:
                return str(row[0])
        return None

    def close(self) -> None:
        for store in self._stores:
            store.close()


def fit(samples: Sequence[tuple[VerdictEvidence, bool]], fitted_on: str) -> Calibration:
    """A logistic regression of "the gold is yes" on the verdict evidence's features."""
    return logistic_fit(samples, fitted_on, "every gold is yes (or every one no)")


def cross_validated(samples: Sequence[tuple[VerdictEvidence, bool]]) -> list[float]:
    """Each sample's P(yes) from a fit on the folds that leave it out (samples dealt to folds in turn)."""
    out = [0.0] * len(samples)
    for fold in range(FOLDS):
        train = [s for i, s in enumerate(samples) if i % FOLDS != fold]
        model = fit(train, "cross-validation")
        for i, (evidence, _) in enumerate(samples):
            if i % FOLDS == fold:
                out[i] = model.probability(evidence)
    return out


def auc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def summary(samples: Sequence[tuple[VerdictEvidence, bool]], votes: Sequence[str], withhold: float) -> list[str]:
    """Accuracy and coverage of the cross-validated verdicts beside the run's vote and always "yes"."""
    labels = [yes for _, yes in samples]
    p_yes = cross_validated(samples)
    right = [(p >= 0.5) == y for p, y in zip(p_yes, labels, strict=True)]
    conf = [max(p, 1 - p) for p in p_yes]
    vote_right = sum(v.casefold() == ("yes" if y else "no") for v, y in zip(votes, labels, strict=True))
    n = len(samples)
    return [
        f"asks {n}; gold yes {sum(labels)} ({sum(labels) / n:.1%})",
        f"always yes: {sum(labels) / n:.1%} right; the run's vote: {vote_right / n:.1%} right",
        f"claims (5-fold cross-validated): {sum(right) / n:.1%} right, AUC {auc(p_yes, labels):.2f}",
        *(
            f"  shown at {t:.2f} or above: a verdict on {sum(c >= t for c in conf) / n:.1%} of asks,"
            f" {_kept_accuracy(right, conf, t):.1%} of those right"
            for t in sorted({0.5, 0.6, withhold, 0.8})
        ),
        f"  the weakest claim's support alone: AUC {auc([e.weakest for e, _ in samples], labels):.2f}",
    ]


def _kept_accuracy(right: Sequence[bool], conf: Sequence[float], threshold: float) -> float:
    kept = [r for r, c in zip(right, conf, strict=True) if c >= threshold]
    return sum(kept) / len(kept) if kept else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", type=Path, help="--out directories of `dgrag sim run --half fit`")
    parser.add_argument("--from-rows", type=Path, default=None, help="fit from the rows an earlier --rows wrote")
    parser.add_argument("--cloud-config", type=Path, default=None, help="the cloud config whose [llm] is fitted")
    parser.add_argument("--rows", type=Path, default=None, help="write each ask's claims and scores here (JSONL)")
    parser.add_argument(
        "--withhold", type=float, default=CLOUD_WITHHOLD_BELOW, help="also show the verdicts at this confidence"
    )
    parser.add_argument("--write", action="store_true", help="store the fit in the model's data file")
    args = parser.parse_args(argv)
    config = load_config(CloudConfig, args.cloud_config, environ={})
    key = model_key(config.llm)
    if args.from_rows is not None:
        kept = read_rows(args.from_rows)
        samples = [(VerdictEvidence(**r["features"]), str(r["gold"]).casefold() == "yes") for r in kept]
        votes = [str(r.get("vote") or "") for r in kept]
    elif args.runs:
        samples, votes, kept = _read_runs(args.runs, config)
    else:
        parser.error("pass run directories, or --from-rows FILE")
    if args.rows and args.from_rows is None:
        args.rows.write_text("".join(json.dumps(r) + "\n" for r in kept), encoding="utf-8")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    runs = " ".join(p.name for p in args.runs) or str(args.from_rows)
    fitted_on = (
        f"python -m benchmarks.fit_yes_no {runs} (commit {commit.stdout.strip() or '?'}, {date.today()}): "
        f"{len(samples)} fit-half yes/no asks read by {key}"
    )
    calibration = fit(samples, fitted_on)
    print(f"== {key}")
    print("\n".join(summary(samples, votes, args.withhold)))
    print(json.dumps(calibration.as_dict(), indent=2))
    if args.write:
        print(f"wrote {write_section(key, 'yes_no', calibration.as_dict())}")
    return 0


def _read_runs(
    runs: Sequence[Path], config: CloudConfig
) -> tuple[list[tuple[VerdictEvidence, bool]], list[str], list[dict[str, Any]]]:
    """Each yes/no ask of ``runs`` read again claim by claim with ``config``'s model: (evidence, gold is yes), the
    run's votes and the rows to keep."""
    from shared.models.llama_cpp_backend import LlamaCppGenerator

    scorer = LlamaCppGenerator(config.llm)
    samples: list[tuple[VerdictEvidence, bool]] = []
    votes: list[str] = []
    kept: list[dict[str, Any]] = []
    try:
        for run in runs:
            asks = yes_no_asks(read_rows(find_answers(run)))
            chunks = RunChunks(run)
            try:
                for i, row in enumerate(asks, 1):
                    scores = score_claims(str(row["question"]), chunks.passages(row["sources"]), scorer)
                    yes = str(row["gold"]).strip().casefold() == "yes"
                    samples.append((verdict_evidence(scores), yes))
                    votes.append(str(row.get("short") or ""))
                    kept.append(_record(row, scores))
                    print(f"\r{run.name}: {i}/{len(asks)} asks read", end="", file=sys.stderr, flush=True)
            finally:
                chunks.close()
                print(file=sys.stderr)
    finally:
        scorer.close()
    return samples, votes, kept


def _record(row: dict[str, Any], scores: Sequence[ClaimScore]) -> dict[str, Any]:
    """One ask's row: the question, its gold, the run's vote, the fit's inputs and each claim's score."""
    return {
        "qid": row["qid"],
        "asked_at": row["asked_at"],
        "question": row["question"],
        "gold": row["gold"],
        "vote": row.get("short"),
        "evidence_recall": row.get("evidence_recall"),
        "features": {k: round(v, 6) for k, v in dataclasses.asdict(verdict_evidence(scores)).items()},
        "claims": [
            {"claim": s.claim, "support": round(s.support, 4), "held": s.held, "terms": s.terms, "sourced": s.sourced}
            for s in scores
        ],
    }


if __name__ == "__main__":
    sys.exit(main())
