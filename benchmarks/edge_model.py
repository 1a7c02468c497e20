"""Which model should an edge read with? Each candidate reads the same passages of a bundle's questions.

    python -m benchmarks.edge_model --bench simulation/bundles/debsqlite3 [--models smollm2,qwen2.5-coder-0.5b-instruct]
        --rows runs/edge-model/debsqlite3.jsonl
    python -m benchmarks.edge_model --report docs/results/edge-model     # table.md from every *.jsonl there

For every question, the 4 passages a plain chunk index finds (simulation/plain_rag.py: all the bundle's documents,
the edges' embedder) are cut to the excerpts an edge reads (``retrieval.excerpt_chars`` around the question's
keywords) and read by each model through the product's one reader (shared.reading.read), greedily. Per model and
bundle: strict accuracy, the share of answers its passages back (a span or a verdict: what an edge may keep), the
accuracy of those, and the p50 seconds of a reading. The edge keeps only backed answers and escalates the rest, so
"backed" bounds what it keeps and "right when backed" is how often a kept answer is right. Passages come from one
index over every document, not from each edge's graph: this compares reading, not retrieval. An edge samples
``answer.n_answers`` answers where this reads one, so its local wait is longer. Models run one after another in
this process; nothing else should run meanwhile.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from shared.config import EmbedderConfig, ModelConfig, RetrievalConfig
from shared.core.candidates import question_terms
from shared.core.text import excerpt
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


def measure(bench: Path, names: Sequence[str], rows_file: Path) -> None:
    """Read every question of ``bench`` with each model in ``names``; one row per model and question to
    ``rows_file``, written as they come."""
    questions = [json.loads(line) for line in (bench / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    index = PlainIndex(bench, build_embedder(EmbedderConfig()))
    cut = RetrievalConfig().excerpt_chars
    found = {}
    for q in questions:
        keywords = question_terms(q["question"])[1]
        found[q["qid"]] = [
            Passage(i + 1, excerpt(c.text, keywords, cut), c.doc_id) for i, c in enumerate(index.nearest(q["question"]))
        ]
    rows_file.parent.mkdir(parents=True, exist_ok=True)
    with rows_file.open("w", encoding="utf-8") as out:
        for name in names:
            generator = build_generator(model_config(name))
            try:
                for q in tqdm(questions, desc=name, unit="q", file=sys.stderr):
                    started = time.perf_counter()
                    said = read_passages(q["question"], found[q["qid"]], generator, Sampling(1, 48, 0.0, None)).said[0]
                    seconds = round(time.perf_counter() - started, 3)
                    ok = strictly_correct(said.short or "Insufficient information.", q["answer"])
                    row = {"bench": bench.name, "model": name, "qid": q["qid"], "short": said.short}
                    out.write(json.dumps({**row, "kind": said.kind, "correct": ok, "seconds": seconds}) + "\n")
                    out.flush()
            finally:
                generator.close()


def table(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per bundle and model: questions, accuracy, backed share, right when backed, p50 seconds."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((str(r["bench"]), str(r["model"])), []).append(r)
    out = []
    for (bench, model), group in groups.items():
        backed = [r for r in group if r["kind"] in BACKED]
        n = len(group)
        out.append(
            {
                "bench": bench,
                "model": model,
                "questions": n,
                "accuracy": sum(bool(r["correct"]) for r in group) / n,
                "backed": len(backed) / n,
                "right_when_backed": sum(bool(r["correct"]) for r in backed) / len(backed) if backed else None,
                "p50_s": percentile([float(r["seconds"]) for r in group], 50),
            }
        )
    return out


def markdown(lines: Sequence[dict[str, Any]]) -> str:
    head = "| bundle | model | questions | accuracy | backed | right when backed | p50 s |\n" + "|---" * 7 + "|\n"
    body = "".join(
        f"| {r['bench']} | {r['model']} | {r['questions']} | {r['accuracy']:.1%} | {r['backed']:.1%} | "
        f"{'—' if r['right_when_backed'] is None else format(r['right_when_backed'], '.1%')} | {r['p50_s']:.2f} |\n"
        for r in lines
    )
    return head + body


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, help="a bundle to read")
    parser.add_argument("--models", default=f"{BUNDLED},qwen2.5-coder-0.5b-instruct,qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--rows", type=Path, help="with --bench: write one row per model and question here")
    parser.add_argument("--report", type=Path, help="a folder of rows files: write its table.md from them")
    args = parser.parse_args(argv)
    if args.report is not None:
        rows = [json.loads(line) for f in sorted(args.report.glob("*.jsonl")) for line in f.read_text().splitlines()]
        text = markdown(table(rows))
        (args.report / "table.md").write_text(text, encoding="utf-8")
        print(text, end="")
        return 0
    if args.bench is None or args.rows is None:
        parser.error("give --bench and --rows to measure, or --report to tabulate")
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}", file=sys.stderr)
    measure(args.bench, [m for m in args.models.split(",") if m], args.rows)
    print(markdown(table([json.loads(line) for line in args.rows.read_text().splitlines()])), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
