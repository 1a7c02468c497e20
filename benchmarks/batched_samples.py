"""Benchmark: a question's sampled answers decoded together (``slm.batch_samples = true``) against one after
another, on the edge's real prompts.

    python -m benchmarks.batched_samples --bench simulation/bundles/multihop4 [--limit 30] [--half fit] [--rounds 2]

Each question's gold evidence becomes its context (as benchmarks.reader_oracle builds it) and the edge's answer
request (its shape's choice schema, ``answer.n_answers`` samples, the answer settings of ``--config``) is generated
by two generators over the same GGUF, one per setting, alternating question by question so that both meet the
same machine state. Printed: per setting the p50 / p95 seconds of a question's generation, of prompt reading and
of decoding, decoded tokens and decode steps, and the machine. Run it with nothing else on the machine: every
figure is a clock.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

from shared.config import EdgeConfig, load_config
from shared.core.model_api import Completion, GenerationRequest
from shared.models.llama_cpp_backend import LlamaCppGenerator
from shared.reading.answer_format import answer_request
from shared.reading.compose import plan_reading
from shared.reading.span_reader import numbered_context
from simulation.bundle import load_questions
from simulation.halves import half_of, parse_half
from simulation.machine import machine_facts
from simulation.oracle import gold_passages, load_docs

SETTINGS = ("together", "one by one")


def requests(bench: Path, config: EdgeConfig, limit: int, half: str) -> list[GenerationRequest]:
    """The edge's answer request for the first ``limit`` answerable questions of ``half``."""
    docs = load_docs(bench)
    wanted = parse_half(half)
    out: list[GenerationRequest] = []
    for question in load_questions(bench):
        if not question.evidence_doc_ids or (wanted is not None and half_of(question.qid) != wanted):
            continue
        reading = plan_reading(question.question, gold_passages(question, docs))
        context = numbered_context(reading.passages)
        how = config.answer.sampling(config.answer.n_answers)
        out.append(answer_request(question.question, context, how, reading.options))
        if len(out) == limit:
            break
    return out


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _line(name: str, runs: list[tuple[float, Completion]]) -> str:
    wall = [w for w, _ in runs]
    prefill = [c.speed.prefill_seconds for _, c in runs if c.speed]
    decode = [c.speed.decode_seconds for _, c in runs if c.speed]
    tokens = [c.completion_tokens for _, c in runs]
    return (
        f"| {name} | {len(runs)} | {statistics.median(wall):.2f} / {_p(wall, 0.95):.2f} | "
        f"{statistics.median(prefill):.2f} | {statistics.median(decode):.2f} / {_p(decode, 0.95):.2f} | "
        f"{statistics.median(tokens):.0f} |"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", type=Path, required=True, help="a bundle directory")
    p.add_argument("--config", type=Path, help="an edge.toml (the SLM and answer settings)")
    p.add_argument("--limit", type=int, default=30, help="questions (default 30)")
    p.add_argument("--half", default="fit", help="fit, report or all (default fit)")
    p.add_argument("--rounds", type=int, default=2, help="times each question is generated per setting")
    args = p.parse_args(argv)
    config = load_config(EdgeConfig, args.config)
    asked = requests(args.bench, config, args.limit, args.half)
    generators = {
        name: LlamaCppGenerator(dataclasses.replace(config.slm, batch_samples=name == "together")) for name in SETTINGS
    }
    runs: dict[str, list[tuple[float, Completion]]] = {name: [] for name in SETTINGS}
    try:
        for round_ in range(args.rounds):
            for i, request in enumerate(asked):
                order = SETTINGS if (i + round_) % 2 == 0 else SETTINGS[::-1]
                for name in order:
                    start = time.perf_counter()
                    completion = generators[name].generate(request)
                    runs[name].append((time.perf_counter() - start, completion))
                print(f"\rquestions: {i + 1}/{len(asked)} (round {round_ + 1}/{args.rounds})", end="", file=sys.stderr)
    finally:
        for generator in generators.values():
            generator.close()
    print(file=sys.stderr)
    n = config.answer.n_answers
    print(f"{len(asked)} questions of {args.bench.name} ({args.half} half), {n} samples each, {args.rounds} rounds")
    print(
        "\n| samples decoded | generations | seconds p50 / p95 | prompt reading p50 | decoding p50 / p95 | tokens p50 |"
    )
    print("|---|---:|---|---:|---|---:|")
    for name in SETTINGS:
        print(_line(name, runs[name]))
    print("\n" + machine_facts().markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
