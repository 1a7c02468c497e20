"""Which model should an edge read with? Each candidate reads the same passages of a bundle's questions.

    python -m benchmarks.edge_model --bench simulation/bundles/debsqlite3 [--models smollm2,qwen2.5-coder-0.5b-instruct]
        [--rows F.jsonl]

For every question, the 4 passages a plain chunk index finds (simulation/plain_rag.py: all the bundle's documents,
the edges' embedder) are read by each model through the product's one reader (shared.reading.read), greedily. It
prints, per model: strict accuracy, the share of answers its passages back (a span or a verdict: what an edge may
keep), the accuracy of those, and the p50 seconds of a reading. The edge keeps only backed answers and escalates
the rest, so "backed" bounds what it keeps and "right when backed" is how often a kept answer is right. Passages
come from one index over every document, not from each edge's graph: this compares reading, not retrieval.
Models run one after another in this process; nothing else should run meanwhile.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from shared.config import EmbedderConfig, ModelConfig
from shared.models.factory import build_embedder, build_generator
from shared.reading.answer_format import Sampling
from shared.reading.read import read_passages
from shared.reading.span_reader import Passage
from simulation.metrics import percentile
from simulation.plain_rag import PlainIndex
from simulation.scoring import strictly_correct

BUNDLED = "smollm2"
"""The bundled SmolLM2-135M-Instruct (its packaged name is empty)."""
BACKED = ("span", "verdict")


def model_config(name: str) -> ModelConfig:
    return ModelConfig(packaged="" if name == BUNDLED else name)  # type: ignore[arg-type]


def measure(bench: Path, names: Sequence[str], rows_file: Path | None) -> list[dict[str, object]]:
    questions = [json.loads(line) for line in (bench / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    index = PlainIndex(bench, build_embedder(EmbedderConfig()))
    found = {q["qid"]: index.nearest(q["question"]) for q in questions}
    table, rows = [], []
    for name in names:
        generator = build_generator(model_config(name))
        seconds, right, backed, backed_right = [], 0, 0, 0
        try:
            for q in questions:
                passages = [Passage(i + 1, c.text, c.doc_id) for i, c in enumerate(found[q["qid"]])]
                started = time.perf_counter()
                said = read_passages(q["question"], passages, generator, Sampling(1, 48, 0.0, None)).said[0]
                seconds.append(time.perf_counter() - started)
                ok = strictly_correct(said.short or "Insufficient information.", q["answer"])
                right += ok
                backed += said.kind in BACKED
                backed_right += ok and said.kind in BACKED
                rows.append({"model": name, "qid": q["qid"], "short": said.short, "kind": said.kind, "correct": ok})
        finally:
            generator.close()
        n = len(questions)
        table.append(
            {
                "model": name,
                "questions": n,
                "accuracy": round(right / n, 3),
                "backed": round(backed / n, 3),
                "right_when_backed": round(backed_right / backed, 3) if backed else None,
                "p50_s": round(percentile(seconds, 50), 2),
            }
        )
    if rows_file is not None:
        rows_file.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return table


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--models", default=f"{BUNDLED},qwen2.5-coder-0.5b-instruct,qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--rows", type=Path, default=None, help="write one row per model and question here")
    args = parser.parse_args(argv)
    table = measure(args.bench, [m for m in args.models.split(",") if m], args.rows)
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}")
    print(f"{'model':32} {'n':>3} {'accuracy':>9} {'backed':>7} {'right when backed':>18} {'p50 s':>6}")
    for r in table:
        when = "—" if r["right_when_backed"] is None else f"{r['right_when_backed']:.1%}"
        print(
            f"{r['model']!s:32} {r['questions']!s:>3} {r['accuracy']:>9.1%} {r['backed']:>7.1%} {when:>18} "
            f"{r['p50_s']!s:>6}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
