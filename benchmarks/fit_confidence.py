"""Fit each model's confidence calibration on the fit half of a simulation's answers.

    python -m benchmarks.fit_confidence RUN_DIR [RUN_DIR ...] [--write]

Reads every answer row of the runs (``dgrag sim run --half fit``), keeps the answerable asks that got a verdict
(not a decline, an extract or "can't tell"), splits them by the model that read them (the edge's answers: the
bundled SmolLM2; the cloud's: its packaged model), and fits a logistic regression (scikit-learn) of strict
correctness on the question's shape, the reader and the evidence's signals (named, agreement, parts, model;
rows of runs that did not record them count 0). Prints each (shape, reader) cell's asks, accuracy and fitted
probability; ``--write`` stores the fits in the confidence section of shared/reading/profiles/<model>.json,
which answers then use (shared.reading.confidence). Rows of the report half are refused: published figures come
from them.

It then replays ``gate.min_local_confidence``: a within-domain ask the edge answered with a verdict below the threshold
would go to the cloud, whose answer to the same question is known from its out-of-domain ask. It prints, per
threshold, the within-domain escalation and strict accuracy, and the threshold that gains most with within-domain
escalation at most :data:`MAX_WITHIN`, where it gains at least :data:`MIN_GAIN` over the smallest (else the
smallest). A run made with min_local_confidence = t already sent the answers below t to the cloud: its replay of a
smaller threshold equals t's, and the edge's fit sees none of its answers below t: such runs are refused (set
``[gate] min_local_confidence = 0`` in the run's edge config).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from shared.config import CLOUD_MODEL
from shared.core.errors import DgragError
from shared.models.calibration_files import BUNDLED_KEY
from shared.reading.confidence import Calibration, Evidence, HasFeatures
from shared.reading.model_data import model_file
from shared.reading.plan import shape_of
from simulation.answer_rows import find_answers, read_rows
from simulation.halves import Half, half_of
from simulation.metrics import declines

NO_VERDICT = ("", "declined", "unsettled", "fallback", "unrecorded")
MAX_WITHIN = 0.30
"""The most within-domain escalation a threshold may cost."""
MIN_GAIN = 0.02
"""The least gain in within-domain strict accuracy (a share of the asks) worth more escalation."""
THRESHOLDS = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6)
MIN_SUPPORT = 10
"""A feature nonzero in fewer fit asks than this gets no weight: four right answers of a rare reader would
otherwise teach the model that reader is good."""
REGULARISATION = 1.0
"""scikit-learn's C: the inverse strength of the L2 penalty (small cells are pulled towards the mean)."""


def verdicts(rows: Sequence[dict[str, Any]]) -> dict[str, list[tuple[Evidence, bool]]]:
    """model key -> (evidence, right) of each answerable fit-half ask that got a verdict."""
    out: dict[str, list[tuple[Evidence, bool]]] = defaultdict(list)
    for row in rows:
        if half_of(str(row["qid"])) != Half.FIT:
            raise DgragError(f"{row['qid']} is a report-half question: fit on `dgrag sim run --half fit` runs only")
        if row.get("kind") == "unanswerable" or row.get("mode") != "dgrag":
            continue
        side, _, reader = str(row.get("reader") or "").rpartition(":")
        short = str(row.get("short") or "")
        if reader in NO_VERDICT or not short.strip() or declines(short):
            continue
        evidence = Evidence.of(shape_of(str(row["question"])).shape.value, reader, row.get("confidence_signals") or {})
        out[CLOUD_MODEL if side == "cloud" else BUNDLED_KEY].append((evidence, bool(row["correct"])))
    return out


def unfiltered(run: Path) -> None:
    """Refuse ``run`` when its edges sent local verdicts below ``gate.min_local_confidence`` to the cloud: the
    edge's fit would never see the answers it must learn to doubt (a run without report.json is taken as it is)."""
    report = run / "report.json"
    if not report.is_file():
        return
    gate = json.loads(report.read_text(encoding="utf-8")).get("config", {}).get("edge", {}).get("gate", {})
    if not gate.get("read_first", True):  # runs from before the setting always read first
        raise DgragError(
            f"{run} was run with gate.read_first = false: its edges' model read nothing the cloud answered, so the "
            "edge's fit would see none of its answers; run it again with [gate] read_first = true"
        )
    threshold = float(gate.get("min_local_confidence", 0.0))
    if threshold > 0:
        raise DgragError(
            f"{run} was run with gate.min_local_confidence = {threshold}: its edges sent their least sure verdicts to "
            "the cloud, so the edge's fit would not see them; run it again with min_local_confidence = 0"
        )


def fit(
    samples: Sequence[tuple[HasFeatures, bool]],
    fitted_on: str,
    all_alike: str = "every ask is right (or every one wrong)",
) -> Calibration:
    """A logistic regression of the samples' outcome (correctness here) on their features; ``all_alike`` says what
    it means when every outcome is the same."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    vectorizer = DictVectorizer(sparse=False)
    support: dict[str, int] = {}
    for e, _ in samples:
        for name, value in e.features().items():
            support[name] = support.get(name, 0) + int(value != 0.0)
    features = [{k: v for k, v in e.features().items() if support[k] >= MIN_SUPPORT} for e, _ in samples]
    x = vectorizer.fit_transform(features)
    y = [right for _, right in samples]
    if len(set(y)) < 2:
        raise DgragError(f"{all_alike}: nothing to fit; run more questions")
    model = LogisticRegression(C=REGULARISATION, max_iter=1000).fit(x, y)
    weights = {name: round(float(w), 4) for name, w in zip(vectorizer.feature_names_, model.coef_[0], strict=True)}
    return Calibration(round(float(model.intercept_[0]), 4), weights, fitted_on)


def escalation_choice(rows: Sequence[dict[str, Any]], edge: Calibration) -> tuple[float, list[str]]:
    """The min_local_confidence that gains most within-domain accuracy (escalation within at most MAX_WITHIN), and the
    replay of each threshold."""
    cloud_right = {
        str(r["qid"]): bool(r["correct"]) for r in rows if r.get("kind") == "out" and r.get("mode") == "dgrag"
    }
    within = [r for r in rows if r.get("kind") == "within" and r.get("mode") == "dgrag" and r["qid"] in cloud_right]
    lines = [f"{'min_local_confidence':>14} {'escalated':>10} {'accuracy':>9}   ({len(within)} within-domain asks)"]
    best, best_right, floor = 0.0, -1, -1
    for threshold in THRESHOLDS:
        escalated = right = 0
        for row in within:
            reader = str(row.get("reader") or "")
            local = not reader.startswith("cloud:") and row.get("decision") == "local"
            guessed = local and reader not in NO_VERDICT and _probability(row, edge) < threshold
            if not local or guessed:
                escalated += 1
            right += cloud_right[str(row["qid"])] if guessed else bool(row["correct"])
        share = escalated / len(within) if within else 0.0
        lines.append(f"{threshold:14.1f} {share:10.1%} {right / max(len(within), 1):9.1%}")
        floor = right if floor < 0 else floor
        if share <= MAX_WITHIN and right > best_right and right - floor >= MIN_GAIN * len(within):
            best, best_right = threshold, right
    return best, lines


def _probability(row: dict[str, Any], calibration: Calibration) -> float:
    reader = str(row.get("reader") or "").rpartition(":")[2]
    shape = shape_of(str(row["question"])).shape.value
    return calibration.probability(Evidence.of(shape, reader, row.get("confidence_signals") or {}))


def cells(samples: Sequence[tuple[Evidence, bool]], calibration: Calibration) -> list[str]:
    grouped: dict[tuple[str, str], list[tuple[Evidence, bool]]] = defaultdict(list)
    for evidence, right in samples:
        grouped[(evidence.shape, evidence.reader)].append((evidence, right))
    lines = [f"{'shape':8} {'reader':12} {'asks':>5} {'accuracy':>9} {'fitted':>7}"]
    for (shape, reader), group in sorted(grouped.items()):
        accuracy = sum(r for _, r in group) / len(group)
        fitted = calibration.probability(group[0][0])
        lines.append(f"{shape:8} {reader:12} {len(group):5d} {accuracy:9.1%} {fitted:7.1%}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path, help="--out directories of `dgrag sim run --half fit`")
    parser.add_argument("--write", action="store_true", help="store the fits beside the models")
    args = parser.parse_args(argv)
    for run in args.runs:
        unfiltered(run)
    rows = [row for run in args.runs for row in read_rows(find_answers(run))]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    runs = " ".join(p.name for p in args.runs)
    fitted: dict[str, Calibration] = {}
    for key, samples in sorted(verdicts(rows).items()):
        fitted_on = (
            f"python -m benchmarks.fit_confidence {runs} (commit {commit.stdout.strip() or '?'}, {date.today()}): "
            f"{len(samples)} fit-half asks answered by {key}"
        )
        calibration = fitted[key] = fit(samples, fitted_on)
        print(f"== {key}: {len(samples)} asks with a verdict")
        print("\n".join(cells(samples, calibration)))
        if args.write:
            print(f"wrote {write_confidence(key, calibration.as_dict())}")
    if BUNDLED_KEY in fitted:
        choice, replay = escalation_choice(rows, fitted[BUNDLED_KEY])
        chosen = f"chosen: min_local_confidence = {choice}"
        print("\n".join(["== gate.min_local_confidence, replayed", *replay, chosen]))
    return 0


def write_confidence(model: str, body: Mapping[str, Any]) -> Path:
    """Store ``body`` as the ``confidence`` section of ``model``'s data file (shared.reading.model_data), keeping
    the file's other keys; returns the file."""
    path = model_file(model)
    if path is None:
        raise DgragError(f"{model!r} is not a model name a data file can be kept under")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"model": model}
    data["confidence"] = dict(body)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    sys.exit(main())
