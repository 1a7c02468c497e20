"""Whether a model's own odds of "yes" over "no" tell yes/no questions apart, read from their gold evidence.

    python -m benchmarks.verdict_odds --model GGUF --out ROWS [--bench DIR] [--half fit]

For each yes/no question of the bundle's chosen half, the gold evidence documents become numbered passages (as
benchmarks.reader_oracle builds them) and the model, asked for a one-word verdict, is read once: the
probabilities of its first token being "yes" and "no" (summed over the spellings among its 20 likeliest tokens).
One row per question (``qid``, ``gold``, ``yes``, ``no``, ``dated``: whether the model-free date reader answers it,
``s``: seconds). Printed: the AUC of P(yes) - P(no) against the golds, the majority verdict's accuracy, the
accuracy of the bare argmax, and of the best threshold on these same rows (in-sample: a threshold to fit, not a
figure to publish). A measurement for choosing readers (issue 34), not part of the pipeline: it reads the model
with llama.cpp directly, because the project's generator interface returns texts, not token probabilities.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

from benchmarks.ranking import auc
from shared.reading.span_reader import numbered_context
from shared.reading.temporal import read_times
from simulation.bundle import load_questions
from simulation.halves import half_of, parse_half
from simulation.oracle import gold_passages, load_docs

SYSTEM = "Answer the question from the passages with one word: yes or no."


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.verdict_odds", description=__doc__.split("\n")[0])
    p.add_argument("--model", type=Path, required=True, help="a GGUF file (the model cache's, for instance)")
    p.add_argument("--out", type=Path, required=True, help="the rows (JSON lines) to write")
    p.add_argument("--bench", type=Path, default=Path("simulation/bundles/multihop4"))
    p.add_argument("--half", default="fit", help="fit, report or all (default: fit)")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    from llama_cpp import Llama  # heavy: only when measuring

    half = parse_half(args.half)
    docs = load_docs(args.bench)
    asked = [q for q in load_questions(args.bench) if q.answer.strip().lower() in ("yes", "no")]
    asked = [q for q in asked if half is None or half_of(q.qid) == half]
    llm = Llama(model_path=str(args.model), n_ctx=4096, n_threads=args.threads, logits_all=True, verbose=False)
    rows = []
    with args.out.open("w", encoding="utf-8") as out:
        for i, q in enumerate(asked, 1):
            passages = gold_passages(q, docs)
            context = numbered_context(passages)
            started = time.perf_counter()
            reply: Any = llm.create_chat_completion(
                [
                    {"role": "system", "content": SYSTEM},
                    {"role": "user", "content": f"Passages:\n{context}\n\nQuestion: {q.question}\nAnswer yes or no."},
                ],
                max_tokens=1,
                temperature=0,
                logprobs=True,
                top_logprobs=20,
            )
            top = reply["choices"][0]["logprobs"]["content"][0]["top_logprobs"]
            row = {
                "qid": q.qid,
                "gold": q.answer.strip().lower(),
                "yes": _probability(top, "yes"),
                "no": _probability(top, "no"),
                "dated": read_times(q.question, passages) is not None,
                "s": round(time.perf_counter() - started, 3),
            }
            rows.append(row)
            out.write(json.dumps(row) + "\n")
            print(f"\r{i}/{len(asked)} questions", end="", flush=True)
    print()
    _summary(rows)
    return 0


def _probability(top: list[dict[str, Any]], word: str) -> float:
    return sum(math.exp(t["logprob"]) for t in top if t["token"].strip().lower() == word)


def _summary(rows: list[dict[str, Any]]) -> None:
    odds = [(r["yes"] - r["no"], r["gold"] == "yes") for r in rows]
    pos = [o for o, y in odds if y]
    neg = [o for o, y in odds if not y]
    ranked = auc(pos, neg)
    majority = max(len(pos), len(neg)) / max(len(odds), 1)
    argmax = sum((o > 0) == y for o, y in odds) / max(len(odds), 1)
    best = max((sum((o > t) == y for o, y in odds) / len(odds), t) for t in [-2.0, *sorted({o for o, _ in odds})])
    print(f"n={len(rows)}  AUC {ranked:.3f}  majority {majority:.1%}  argmax {argmax:.1%}  ", end="")
    print(f"best threshold (in-sample) {best[0]:.1%} at P(yes) - P(no) > {best[1]:.3f}")


if __name__ == "__main__":
    raise SystemExit(main())
