"""How the cloud holds up when several people ask at once: escalated questions from several edges, concurrently.

    python -m benchmarks.cloud_load --bench simulation/bundles/debgnu3 --askers 1,2,4,8,16 \
        [--served http://127.0.0.1:18080/v1 --label served-2-slots] [--rows F.jsonl]
    python -m benchmarks.cloud_load --report runs/cloud-load    # the table and cloud_load.png of every run there

A real network on loopback (simulation.bench_network: the cloud and one edge per bundle edge, on the simulation's
cached indexes). Each question of the bundle is asked at an edge that does not hold its evidence, so the edge
sends it on to the cloud, in full mode with the cloud's draft streamed back. At each level, that many askers ask
at once, each taking the next question until ``max(2 x askers, 8)`` are asked. Every ask gets a row: its level,
seconds to the answer and to the first word, the decision, and, for a refusal, its reason (the cloud's comes in
the note of the edge's extract shown instead). An answer is checked against its question: the shown short answer
must come from the reply to that question (the reply echoes it).

``--served URL`` points the cloud at an OpenAI-compatible model server already running (for example llama.cpp's
``llama-server --parallel N``, with ``--parallel-readings N``; ``--machine-lock``: its requests take this machine's
model lock, as the edges' models do); without it the cloud runs its model in process.
It prints, per level: the cloud's answers a minute (and per core), their p50 and p95 seconds and p50 first word,
refusals by reason, and the p95 seconds a refused asker waited to hear it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from edge_node.api import EdgeClient
from simulation.bench_network import Network, network, same_level
from simulation.bundle import load_edges
from simulation.credentials import api_token_file
from simulation.metrics import percentile

Row = dict[str, Any]
CLOUD_SAID = re.compile(r"the cloud could not answer \((\w+)")
"""The status the cloud's refusal or failure had, in the note of the edge's extract shown instead."""
MIN_ASKS = 8
"""Asks per level at least: a level of 1 asker still measures more than one answer."""


def escalated_questions(bench: Path, seed: int) -> list[tuple[str, str]]:
    """(edge to ask at, question) for every answerable question, asked at an edge that holds none of its
    evidence, shuffled."""
    edges = load_edges(bench)
    out: list[tuple[str, str]] = []
    for line in (bench / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        elsewhere = [e for e in edges if e not in q.get("home_edges", [])]
        if q.get("evidence_doc_ids") and elsewhere:
            out.append((elsewhere[len(out) % len(elsewhere)], str(q["question"])))
    random.Random(seed).shuffle(out)
    return out


async def ask(net: Network, work: Path, edge: str, question: str, level: int, deadline_s: float) -> Row:
    """One ask through the edge's API, its draft streamed; a refusal or a failure becomes a row with its reason."""
    token = api_token_file(work, edge).read_text(encoding="utf-8").strip()
    started = time.perf_counter()
    first: list[float] = []
    row: Row = {"level": level, "edge": edge, "question": question}

    def on_text(piece: str) -> None:
        if piece and not first:
            first.append(time.perf_counter() - started)

    try:
        async with EdgeClient(net.edges[edge].address, token, timeout_s=deadline_s) as client:
            reply = await client.query(question, "full", on_text=on_text)
    except Exception as exc:  # a refusal or a lost answer: its reason is the figure
        return row | {"seconds": round(time.perf_counter() - started, 2), "refused": str(exc)[:300]}
    seconds = time.perf_counter() - started
    trace = reply.trace
    row |= {
        "seconds": round(seconds, 2),
        "first_word": round(first[0] if first else seconds, 2),
        "decision": reply.decision.value,
        "short": reply.shown.short,
        "mixed_up": trace.get("question", question) != question,
    }
    if reply.decision.value != "cloud" and (why := CLOUD_SAID.search(reply.note)):  # the edge's extract instead
        row["cloud_refused"] = why.group(1)
    return row


async def level_rows(
    net: Network, work: Path, asks: list[tuple[str, str]], askers: int, deadline_s: float
) -> tuple[list[Row], float]:
    """``askers`` at once, each taking the next of ``asks``; the rows and the level's wall seconds."""
    queue = list(asks)
    rows: list[Row] = []

    async def asker() -> None:
        while queue:
            edge, question = queue.pop(0)
            rows.append(await ask(net, work, edge, question, askers, deadline_s))

    started = time.perf_counter()
    await asyncio.gather(*(asker() for _ in range(askers)))
    return rows, time.perf_counter() - started


def summary(rows: Sequence[Row], wall: float, cores: int) -> Row:
    """One level's figures: the cloud's answers a minute and their waits; refusals by reason, with how long a
    refused asker waited to hear it."""
    cloud = [r for r in rows if r.get("decision") == "cloud"]
    refused = [r for r in rows if "refused" in r or "cloud_refused" in r]
    reasons: dict[str, int] = {}
    for r in refused:
        why = str(r.get("refused") or r.get("cloud_refused"))[:80]
        reasons[why] = reasons.get(why, 0) + 1
    per_minute = len(cloud) / wall * 60 if wall else 0.0
    seconds = [float(r["seconds"]) for r in cloud]
    return {
        "level": rows[0]["level"] if rows else 0,
        "asks": len(rows),
        "escalated": len(cloud),  # the rest: refused, or the edge's extract
        "per_minute": round(per_minute, 2),
        "per_minute_per_core": round(per_minute / cores, 2),
        "p50": round(percentile(seconds, 50), 2) if seconds else None,
        "p95": round(percentile(seconds, 95), 2) if seconds else None,
        "first_word_p50": round(percentile([float(r["first_word"]) for r in cloud], 50), 2) if cloud else None,
        "refused_p95": round(percentile([float(r["seconds"]) for r in refused], 95), 2) if refused else None,
        "mixed_up": sum(1 for r in rows if r.get("mixed_up")),
        "refusals": reasons,
        "wall_seconds": round(wall, 1),
    }


def run(args: argparse.Namespace) -> list[Row]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DGRAG__")} | {"HF_HUB_OFFLINE": "1"}
    cloud_env = {}
    if args.served:
        cloud_env = {
            "DGRAG__LLM__BACKEND": "openai",
            "DGRAG__LLM__BASE_URL": args.served,
            "DGRAG__LLM__MODEL": args.served_model,
            "DGRAG__LLM__JSON_MODE": "json_object",
            "DGRAG__LLM__SERVES": "qwen2.5-coder-1.5b-instruct",
        }
        if args.machine_lock:  # the server shares this machine with the edges' models: they take turns
            cloud_env["DGRAG__LLM__MACHINE_LOCK"] = "true"
    cloud_env["DGRAG__QUERY__PARALLEL_READINGS"] = str(args.parallel_readings)
    work = args.out / "work" / args.label
    work.mkdir(parents=True, exist_ok=True)
    questions = escalated_questions(args.bench, args.seed)
    levels = [int(n) for n in args.askers.split(",")]
    summaries = []
    with network(work, args.bench, same_level("chunks"), "quote", env, cloud_env) as net:
        at = 0
        for askers in levels:
            count = max(2 * askers, MIN_ASKS)
            asks = [questions[(at + i) % len(questions)] for i in range(count)]
            at += count
            rows, wall = asyncio.run(level_rows(net, work, asks, askers, args.deadline))
            summaries.append(summary(rows, wall, os.cpu_count() or 1) | {"label": args.label})
            print(json.dumps(summaries[-1]), flush=True)
            if args.rows:
                with args.rows.open("a", encoding="utf-8") as out:
                    out.writelines(json.dumps(r | {"label": args.label}) + "\n" for r in rows)
    return summaries


def table(summaries: Sequence[Row]) -> str:
    """The figures of every configuration and level, as a Markdown table."""
    lines = [
        "| configuration | askers at once | cloud answers / asked | answers a minute (per core) | p50 s | p95 s | "
        "first word p50 s | refused (why) | refusal p95 s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        refused = "; ".join(f"{n}: {why}" for why, n in dict(s["refusals"]).items()) or "none"
        lines.append(
            f"| {s['label']} | {s['level']} | {s['escalated']} / {s['asks']} | {s['per_minute']} "
            f"({s['per_minute_per_core']}) | {s['p50']} | {s['p95']} | {s['first_word_p50']} | {refused} | "
            f"{s.get('refused_p95') or ''} |"
        )
    return "\n".join(lines)


def plot(summaries: Sequence[Row], png: Path) -> None:
    """Throughput and p95 against askers at once, one line per configuration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for label in dict.fromkeys(str(s["label"]) for s in summaries):
        mine = [s for s in summaries if s["label"] == label]
        levels = [int(s["level"]) for s in mine]
        left.plot(levels, [float(s["per_minute"]) for s in mine], marker="o", label=label)
        right.plot(levels, [float(s["p95"] or 0.0) for s in mine], marker="o", label=label)
    left.set(xlabel="people asking at once", ylabel="answers a minute", title="Cloud answers a minute (2 cores)")
    right.set(xlabel="people asking at once", ylabel="seconds", title="p95 wait for a cloud answer")
    left.legend()
    figure.tight_layout()
    figure.savefig(png, dpi=110)
    plt.close(figure)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, help="a bundle with cached indexes (needed unless --report)")
    parser.add_argument("--askers", default="1,2,4,8,16", help="comma-separated numbers of askers at once")
    parser.add_argument("--served", default="", help="an OpenAI-compatible model server's /v1 URL for the cloud")
    parser.add_argument("--served-model", default="cloud-llm", help="the model name the server answers to")
    parser.add_argument("--machine-lock", action="store_true", help="the served model takes the machine's lock")
    parser.add_argument("--parallel-readings", type=int, default=1, help="the cloud's query.parallel_readings")
    parser.add_argument("--label", default="in-process", help="names this configuration in the rows")
    parser.add_argument("--deadline", type=float, default=180.0, help="seconds an ask may take before it fails")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/cloud-load"))
    parser.add_argument("--rows", type=Path, help="append every ask's row here (JSON lines)")
    parser.add_argument("--report", type=Path, help="only tabulate and plot the *.summary.jsonl files of this folder")
    args = parser.parse_args(argv)
    if args.report is not None:
        done = [json.loads(line) for f in sorted(args.report.glob("*.summary.jsonl")) for line in f.open()]
        print(table(done))
        plot(done, args.report / "cloud_load.png")
        return 0
    if args.bench is None:
        parser.error("--bench names the bundle whose network is asked")
    summaries = run(args)
    (args.out / f"{args.label}.summary.jsonl").write_text("".join(json.dumps(s) + "\n" for s in summaries), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
