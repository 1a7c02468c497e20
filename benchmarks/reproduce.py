"""Benchmark: do dgrag's figures hold under another llama.cpp build of the same version on this machine?

    python -m benchmarks.reproduce --data-dir .dgrag/bench-business [--edge business] [--limit 60] \
        [--alt-build .dgrag/llama-portable]

Builds (once, into ``--alt-build``) llama-cpp-python at the version constraints.txt pins with portable flags
(GGML_NATIVE=OFF, only the features this CPU reports, no AMX: what install.sh falls back to), then asks one
edge the same fixed sample of questions (benchmarks.local_query, docs/simulation.md's 'Asked at' rule, seed 0)
under the installed build and under the portable one, one after the other, on the same index. Prints each
build's llama.cpp system info and figures, the share of gate decisions the two builds agree on, and the
deltas. Kernel-level numeric differences change sampled tokens; the gate should not flip with them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from shared.models.cpu import prepare_cpu
from shared.models.runtime_check import cpu_flags, fallback_cmake_args
from simulation.machine import machine_facts

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("within", "out", "unanswerable")


def pinned_llama() -> str:
    """The llama-cpp-python requirement constraints.txt pins."""
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        name, sep, version = line.strip().partition("==")
        if sep and re.sub(r"[-_.]+", "-", name).lower() == "llama-cpp-python":
            return f"llama-cpp-python=={version}"
    raise SystemExit("constraints.txt pins no llama-cpp-python; run from a dgrag checkout")


def build_portable(target: Path) -> None:
    """llama-cpp-python built with portable flags into ``target`` (a directory put first on PYTHONPATH)."""
    if (target / "llama_cpp" / "__init__.py").is_file():
        return
    flags = fallback_cmake_args(cpu_flags())
    print(f"building {pinned_llama()} with {flags} into {target} (about 3 minutes)", file=sys.stderr, flush=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-cache-dir",
            "--no-binary",
            "llama-cpp-python",
            "--target",
            str(target),
            pinned_llama(),
        ],
        env=os.environ | {"CMAKE_ARGS": flags},
        check=True,
    )


def build_env(alt: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if alt is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(alt.resolve()), str(ROOT), env.get("PYTHONPATH", "")]).rstrip(":")
    return env


def system_info(env: dict[str, str]) -> str:
    code = "import llama_cpp; print(llama_cpp.llama_print_system_info().decode().strip())"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout


def ask(env: dict[str, str], args: argparse.Namespace, out: Path) -> list[dict[str, Any]]:
    cmd = [
        sys.executable,
        "-m",
        "benchmarks.local_query",
        "--bench",
        str(args.bench),
        "--edge",
        args.edge,
        "--data-dir",
        str(args.data_dir),
        "--limit",
        str(args.limit),
        "--single-sample",
        "0",
        "--out",
        str(out),
    ]
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]


def figures(rows: list[dict[str, Any]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for kind in KINDS:
        sel = [r for r in rows if r["kind"] == kind]
        if sel:
            out[f"escalation_{kind}"] = sum(r["decision"] == "escalate" for r in sel) / len(sel)
            out[f"accuracy_{kind}"] = sum(bool(r["correct"]) for r in sel) / len(sel)
    return out


def compare(native: list[dict[str, Any]], portable: list[dict[str, Any]]) -> None:
    by_key = {(r["qid"], r["kind"]): r for r in portable}
    pairs = [(r, by_key[(r["qid"], r["kind"])]) for r in native if (r["qid"], r["kind"]) in by_key]
    agree = sum(a["decision"] == b["decision"] for a, b in pairs)
    same_text = sum(a["answers"] == b["answers"] for a, b in pairs)
    print(
        f"\nasks compared: {len(pairs)}; gate decisions agree: {agree}/{len(pairs)} = {agree / len(pairs):.1%}; "
        f"identical sampled answers: {same_text}/{len(pairs)}"
    )
    a, b = figures(native), figures(portable)
    print("| figure | installed build | portable build | delta (points) |")
    print("|---|---|---|---|")
    for key in a:
        print(f"| {key} | {a[key]:.1%} | {b.get(key, 0.0):.1%} | {100 * (b.get(key, 0.0) - a[key]):+.1f} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, default=ROOT / "simulation" / "bundles" / "multihop4")
    parser.add_argument("--edge", default="business")
    parser.add_argument("--data-dir", type=Path, required=True, help="the edge's index (built first when empty)")
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--alt-build", type=Path, default=ROOT / ".dgrag" / "llama-portable")
    args = parser.parse_args(argv)
    prepare_cpu()
    print(machine_facts().markdown())
    build_portable(args.alt_build)
    work = args.data_dir.parent
    runs = {}
    for name, env in (("installed", build_env(None)), ("portable", build_env(args.alt_build))):
        print(f"{name} build: {system_info(env).strip()}", flush=True)
        runs[name] = ask(env, args, work / f"reproduce-{args.edge}-{name}.jsonl")
    compare(runs["installed"], runs["portable"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
