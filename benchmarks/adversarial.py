"""Benchmark: how dgrag holds up against a hostile participant, bad inputs and faults, as one table.

    python -m benchmarks.adversarial [--kills 20] [--reconnects 10000] [--workdir DIR]

1. Bad inputs: the 62 files and bundle rows of benchmarks/bad_inputs.py through the real `dgrag edge
   ingest`: how many gave a one-line error naming them, how many crashed the run, documents lost.
2. Protocol attacks: every attack of benchmarks/attacks.py against a real cloud and edge on loopback.
3. Faults: `dgrag edge ingest` SIGKILLed at random moments ``--kills`` times (the store must stay readable
   and a rerun must finish with every document), and ``--reconnects`` edge sessions opened and closed
   against the cloud (its RSS before and after; the target is flat within 10%).
Real models run throughout; nothing else should use the CPU meanwhile (the machine facts are printed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc

from benchmarks.attack_targets import EDGE, Targets, start_targets
from benchmarks.attacks import run_attacks
from benchmarks.bad_inputs import make_bad_inputs
from shared.cli.console import one_line
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc, common_pb2
from simulation.machine import machine_facts
from simulation.processes import dgrag_command

MAX_FILE_BYTES = 1 << 20
CORPUS = "simulation/bundles/multihop4/docs.jsonl"


def _ingest(data_dir: Path, paths: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*dgrag_command(), "edge", "ingest", "--data-dir", str(data_dir), *paths],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def _documents(data_dir: Path, env: dict[str, str]) -> int | None:
    done = subprocess.run(
        [*dgrag_command(), "edge", "stats", "--data-dir", str(data_dir), "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    return int(json.loads(done.stdout)["documents"]) if done.returncode == 0 else None


def bad_inputs(work: Path, env: dict[str, str]) -> dict[str, int]:
    paths, bad = make_bad_inputs(work / "bad", MAX_FILE_BYTES)
    env = {**env, "DGRAG__INGEST__MAX_FILE_BYTES": str(MAX_FILE_BYTES)}
    done = _ingest(work / "bad-edge", [str(p) for p in paths], env)
    lines = [x for x in done.stderr.splitlines() if x.startswith("dgrag: skipped ")]
    named = sum(1 for b in bad if sum(x.startswith(f"dgrag: skipped {one_line(b.where)}: ") for x in lines) == 1)
    again = _ingest(work / "bad-edge", [str(p) for p in paths], env)
    crashes = sum("Traceback" in d.stderr or d.returncode not in (0, 1) for d in (done, again))
    kept = _documents(work / "bad-edge", env)
    return {"tried": len(bad), "clear errors": named, "crashes": crashes, "documents lost": 2 - (kept or 0)}


def kills(work: Path, env: dict[str, str], times: int, seed: int = 7) -> dict[str, int]:
    """SIGKILL an ingest of 12 documents at a random moment, ``times`` times; then finish it."""
    rows = Path(CORPUS).read_text(encoding="utf-8").splitlines()[:12]
    bundle = work / "twelve.jsonl"
    bundle.write_text("\n".join(rows) + "\n", encoding="utf-8")
    data_dir = work / "killed-edge"
    rng = random.Random(seed)
    readable, counts = 0, []
    for _ in range(times):
        proc = subprocess.Popen(
            [*dgrag_command(), "edge", "ingest", "--data-dir", str(data_dir), str(bundle)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        time.sleep(rng.uniform(2.0, 25.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        count = _documents(data_dir, env)
        readable += count is not None
        counts.append(count or 0)
    final = _ingest(data_dir, [str(bundle)], env)
    done = _documents(data_dir, env)
    return {
        "injected": times,
        "store readable after": readable,
        "finished after rerun": int(final.returncode == 0 and done == len(rows)),
        "documents lost": len(rows) - (done or 0),
    }


def _rss(pid_status: Path) -> int:
    for line in pid_status.read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


async def reconnects(targets: Targets, n: int) -> dict[str, float]:
    """``n`` sessions of one edge opened (hello + a one-summary sync), acknowledged and closed, in turn."""
    status = Path(f"/proc/{targets.cloud.pid}/status")  # the cloud process's current RSS

    async def one(stub: cloud_pb2_grpc.CloudStub, i: int) -> None:
        async def requests() -> AsyncIterator[cloud_pb2.EdgeMessage]:
            yield cloud_pb2.EdgeMessage(hello=cloud_pb2.Hello(edge_id=EDGE))
            yield cloud_pb2.EdgeMessage(
                sync=cloud_pb2.SummarySync(
                    up_to_seq=i,
                    summaries=[common_pb2.Summary(id=f"{EDGE}/sg-1", version=1, text="the same summary every time")],
                )
            )
            await asyncio.sleep(30)

        call = stub.Session(requests(), metadata=targets.meta(EDGE))
        async for message in call:
            if message.WhichOneof("kind") == "ack":
                call.cancel()
                break

    async with grpc.aio.insecure_channel(targets.cloud.address) as channel:
        stub = cloud_pb2_grpc.CloudStub(channel)
        for i in range(min(n, 200)):  # warm up: the first sessions allocate what later ones reuse
            await one(stub, i)
        before = _rss(status)
        started = time.perf_counter()
        for i in range(n):
            await one(stub, i)
        seconds = time.perf_counter() - started
        after = _rss(status)
    return {
        "reconnects": n,
        "rss before MB": before / 1e6,
        "rss after MB": after / 1e6,
        "change %": 100 * (after - before) / max(before, 1),
        "per reconnect ms": 1000 * seconds / max(n, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--reconnects", type=int, default=10_000)
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "DGRAG__SUMMARY__MAX_TOKENS": "48"}
    with tempfile.TemporaryDirectory(prefix="dgrag-adversarial-") as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        print("bad inputs ...", flush=True)
        inputs = bad_inputs(work, env)
        print("protocol attacks ...", flush=True)
        (work / "targets").mkdir(exist_ok=True)
        targets = start_targets(work / "targets", env)
        try:
            outcomes = asyncio.run(run_attacks(targets))
            churn = asyncio.run(reconnects(targets, args.reconnects))
        finally:
            targets.stop()
        print(f"SIGKILL during ingest x{args.kills} ...", flush=True)
        faults = kills(work, env, args.kills)
    print("\n| part | figures |\n|---|---|")
    print(f"| bad inputs | {', '.join(f'{k}: {v}' for k, v in inputs.items())} |")
    refused = sum(o.refused for o in outcomes)
    print(f"| protocol attacks | tried: {len(outcomes)}, refused as expected: {refused} |")
    print(f"| SIGKILL during ingest | {', '.join(f'{k}: {v}' for k, v in faults.items())} |")
    print(f"| session reconnects | {', '.join(f'{k}: {v:.1f}' for k, v in churn.items())} |")
    print("\n| attack | expected | got |\n|---|---|---|")
    for o in outcomes:
        print(f"| {o.attack} | {o.expected} | {o.got}{'' if o.refused else ' (NOT REFUSED)'} |")
    print()
    print(machine_facts().markdown())
    return 0 if refused == len(outcomes) and inputs["crashes"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
