"""Benchmark: what the edge's lexical index (shared.core.lexical) costs as a store grows, no models.

    python -m benchmarks.lexical_index [--chunks 1000,10000,100000] [--words 120] [--queries 200]

Chunks are drawn from a Zipf-like vocabulary (a few words everywhere, most words rare, as in text); questions
take a few common and a few rare words. Printed per size: the time to build the index (the edge rebuilds it on
the first retrieval after its store changed), the memory it adds (tracemalloc) and coverage p50/p95 per question.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import tracemalloc

from shared.core.lexical import LexicalIndex
from simulation.machine import machine_facts

VOCABULARY = 50_000


def _word(rng: random.Random) -> str:
    rank = min(int(rng.paretovariate(1.1)), VOCABULARY)
    return f"w{rank:05d}x"


def _texts(rng: random.Random, chunks: int, words: int) -> list[str]:
    return [" ".join(_word(rng) for _ in range(words)) for _ in range(chunks)]


def _questions(rng: random.Random, n: int) -> list[str]:
    return [
        " ".join([_word(rng) for _ in range(4)] + [f"w{rng.randrange(VOCABULARY):05d}x" for _ in range(3)])
        for _ in range(n)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", default="1000,10000,100000")
    parser.add_argument("--words", type=int, default=120, help="words per chunk")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    print(machine_facts().markdown())
    print("\n| chunks | build (s) | index memory (MB) | coverage p50 (ms) | p95 (ms) |\n|---|---|---|---|---|")
    for size in (int(x) for x in args.chunks.split(",")):
        rng = random.Random(args.seed)
        texts = _texts(rng, size, args.words)
        tracemalloc.start()
        started = time.perf_counter()
        index = LexicalIndex(texts)
        build = time.perf_counter() - started
        memory = tracemalloc.get_traced_memory()[0] / 1e6
        tracemalloc.stop()
        times = []
        for question in _questions(rng, args.queries):
            started = time.perf_counter()
            index.coverage(question)
            times.append((time.perf_counter() - started) * 1000)
        p95 = statistics.quantiles(times, n=20)[-1]
        print(f"| {size} | {build:.2f} | {memory:.0f} | {statistics.median(times):.2f} | {p95:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
