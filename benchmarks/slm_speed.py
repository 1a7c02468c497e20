"""Benchmark: how fast the embedded SLM reads a prompt and writes tokens here, per weight format, and how
the machine's throughput holds when several model processes share it.

    python -m benchmarks.slm_speed [--formats q4_1,q4_0,q8_0,f16] [--prompt-tokens 560] [--threads 0]
    python -m benchmarks.slm_speed --concurrent 1,2,4 [--wait-policy passive|active] [--seconds 8]

``--concurrent``: N processes each load the bundled model and, from one agreed instant, read prompts for
``--seconds`` and then write tokens for ``--seconds``; the table gives the machine's total prefill and
decode tokens/s for each N and its ratio to N = 1 (what dgrag's co-located edges, cloud and simulation
servers get). ``--wait-policy`` sets the OpenMP wait policy of the workers (dgrag's default: short spins, then sleep);
``--no-lock`` lets them compute at once instead of taking turns on dgrag's machine-wide model lock.

Prompt reading (prefill) is what most of a dgrag answer costs on a CPU: a local answer reads ~450 prompt
tokens and writes a few dozen. The bundled GGUF is Q4_1; this converts it into the other formats with
llama.cpp's own quantizer (into a temporary directory, nothing is downloaded), times prefill and decode
for each (best of 3), and prints one table. A format that is faster here can be used with
``slm.model_path`` after converting it the same way; its answer quality is not measured by this script.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shared.models.cpu import (
    DEFAULT_WAIT_POLICY,
    WAIT_ENV,
    WAIT_POLICIES,
    prepare_cpu,
    resolve_threads,
    wait_environment,
)
from shared.models.locate import bundled_slm_path
from shared.models.machine_lock import LOCK_ENV, machine_lock
from shared.models.weights import FTYPES, converted
from simulation.machine import machine_facts

SENTENCE = "The quarterly report said revenue grew in the north region while costs fell. "
DECODE_TOKENS = 64


def convert(source: Path, fmt: str, out_dir: Path) -> Path:
    """``source`` re-quantized to ``fmt`` with llama.cpp's quantizer (the bundled file itself for q4_1)."""
    if fmt == "q4_1" and source.name.lower().endswith("q4_1.gguf"):
        return source
    return converted(source, fmt, out_dir)


def measure(path: Path, prompt_tokens: int, threads: int) -> tuple[float, float]:
    """(prefill tokens/s, decode tokens/s), best of 3."""
    import llama_cpp

    threads = resolve_threads(threads)  # as the llama_cpp backend runs it
    llm = llama_cpp.Llama(model_path=str(path), n_ctx=2048, n_threads=threads, seed=0, verbose=False)
    try:
        tokens = llm.tokenize((SENTENCE * (prompt_tokens // 12 + 1)).encode())[:prompt_tokens]
        prefill = 0.0
        for _ in range(3):
            llm.reset()  # type: ignore[no-untyped-call]
            started = time.perf_counter()
            llm.eval(tokens)
            prefill = max(prefill, len(tokens) / (time.perf_counter() - started))
        decode = 0.0
        for _ in range(3):
            started, n = time.perf_counter(), 0
            for _token in llm.generate(tokens[:8], temp=0.0, reset=True):
                n += 1
                if n >= DECODE_TOKENS:
                    break
            decode = max(decode, n / (time.perf_counter() - started))
    finally:
        llm.close()
    return prefill, decode


def worker(phase: str, start_at: float, seconds: float, prompt_tokens: int, threads: int) -> list[list[float]]:
    """One co-located model user: from ``start_at`` for ``seconds``, read prompts (``phase`` prefill) or write
    tokens (decode), one model call at a time as dgrag makes them; returns each call's (end time, tokens)."""
    import llama_cpp

    llm = llama_cpp.Llama(
        model_path=str(bundled_slm_path()), n_ctx=2048, n_threads=resolve_threads(threads), seed=0, verbose=False
    )
    tokens = llm.tokenize((SENTENCE * (prompt_tokens // 12 + 1)).encode())[:prompt_tokens]
    lock = machine_lock()
    done: list[list[float]] = []
    time.sleep(max(0.0, start_at - time.time()))
    while time.time() < start_at + seconds:
        with lock.held():
            if phase == "prefill":
                llm.reset()  # type: ignore[no-untyped-call]
                llm.eval(tokens)
                count = len(tokens)
            else:
                count = 0
                for _token in llm.generate(tokens[:8], temp=0.0, reset=True):
                    count += 1
                    if count >= DECODE_TOKENS:
                        break
        done.append([time.time(), count])
    llm.close()
    return done


def _rate(operations: list[list[float]], begin: float, seconds: float) -> float:
    """Tokens per second of the operations that finished inside [begin, begin + seconds]."""
    return sum(n for at, n in operations if begin <= at <= begin + seconds) / seconds


def concurrent(counts: list[int], seconds: float, prompt_tokens: int, threads: int, policy: str, lock: bool) -> None:
    """Print the machine's total prefill/decode throughput with N co-located model processes."""
    env = {k: v for k, v in os.environ.items() if k not in WAIT_ENV} | wait_environment(policy)
    env[LOCK_ENV] = env.get(LOCK_ENV, "") if lock else "off"
    print(
        f"machine-wide model lock: {'on' if lock else 'off'}; wait policy {policy} ({wait_environment(policy)}); "
        f"{threads or 'all'} threads per process; prompt {prompt_tokens} tokens; tokens finished by all "
        f"processes at once within {seconds:.0f} s of prefill, and (in a second run) of decode"
    )
    print("| processes | prefill tok/s (total) | per process | vs 1 alone | decode tok/s (total) | vs 1 alone |")
    print("|---|---|---|---|---|---|")
    solo: tuple[float, float] | None = None
    for n in counts:
        rates: dict[str, list[float]] = {}
        for phase in ("prefill", "decode"):
            start_at = time.time() + 6.0 + 2 * n  # every worker has loaded its model by then
            cmd = [
                sys.executable,
                "-m",
                "benchmarks.slm_speed",
                "--worker",
                str(start_at),
                "--phase",
                phase,
                "--seconds",
                str(seconds),
                "--prompt-tokens",
                str(prompt_tokens),
                "--threads",
                str(threads),
            ]
            procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env, text=True) for _ in range(n)]
            results = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in procs]
            rates[phase] = [_rate(r, start_at, seconds) for r in results]
        prefill, decode = sum(rates["prefill"]), sum(rates["decode"])
        solo = solo or (prefill, decode)
        each = ", ".join(f"{e:.0f}" for e in rates["prefill"])
        print(
            f"| {n} | {prefill:.0f} | {each} | {prefill / solo[0]:.2f}x | {decode:.0f} | {decode / solo[1]:.2f}x |",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--formats", default="q4_1,q4_0,q8_0,f16", help=f"comma-separated, of {sorted(FTYPES)}")
    parser.add_argument("--prompt-tokens", type=int, default=560)
    parser.add_argument("--threads", type=int, default=0, help="0 = all cores, as slm.n_threads = 0")
    parser.add_argument("--concurrent", default="", help="e.g. 1,2,4: co-located model processes to measure")
    parser.add_argument("--wait-policy", choices=WAIT_POLICIES, default=DEFAULT_WAIT_POLICY)
    parser.add_argument("--seconds", type=float, default=8.0, help="--concurrent: seconds per phase")
    parser.add_argument("--no-lock", action="store_true", help="--concurrent: workers skip the machine-wide lock")
    parser.add_argument("--phase", choices=("prefill", "decode"), default="prefill", help=argparse.SUPPRESS)
    parser.add_argument("--worker", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.phase, args.worker, args.seconds, args.prompt_tokens, args.threads)))
        return 0
    settings = prepare_cpu(args.threads)
    print(machine_facts({"slm_threads": str(settings.threads)}).markdown())
    if args.concurrent:
        counts = [int(c) for c in args.concurrent.split(",") if c.strip()]
        if not counts or min(counts) < 1:
            print(f"--concurrent {args.concurrent!r}: give process counts >= 1, e.g. 1,2,4", file=sys.stderr)
            return 2
        concurrent(counts, args.seconds, args.prompt_tokens, args.threads, args.wait_policy, not args.no_lock)
        return 0
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    if unknown := sorted(set(formats) - set(FTYPES)):
        print(f"unknown format(s) {unknown}; use some of {sorted(FTYPES)}", file=sys.stderr)
        return 2
    source = bundled_slm_path()
    print(f"model {source.name}; prompt {args.prompt_tokens} tokens, decode {DECODE_TOKENS} tokens, best of 3")
    print("| format | file MB | prefill tok/s | decode tok/s | prefill of 450 tokens, s |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="dgrag-slm-") as tmp:
        for fmt in formats:
            path = convert(source, fmt, Path(tmp))
            prefill, decode = measure(path, args.prompt_tokens, args.threads)
            size = path.stat().st_size / 1e6
            print(f"| {fmt} | {size:.0f} | {prefill:.0f} | {decode:.0f} | {450 / prefill:.1f} |", flush=True)
            if path != source:
                path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
