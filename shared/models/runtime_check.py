"""Install-time self-test of the model runtimes, run in a child process so a crash cannot take us down.

    python -m shared.models.runtime_check                  # exit 0 ok, 3 the runtime crashed, 1 it failed
    python -m shared.models.runtime_check --fallback-cmake-args   # CMAKE_ARGS for a portable llama.cpp build

The child loads the bundled SLM with llama-cpp-python, generates a few tokens, embeds a sentence with the
bundled MiniLM and prints llama.cpp's system info (the CPU features its build uses). Some llama.cpp builds
die with SIGSEGV or SIGILL on some CPUs (the AMX matmul path on AMX CPUs; a build made with another
machine's native flags): scripts/install.sh then rebuilds llama.cpp with the portable flags below and tests
again, or stops with the one sentence this prints.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CRASHED = 3
CHILD_TIMEOUT_S = 300.0


@dataclass(frozen=True)
class CheckResult:
    """What the child reported, or how it died."""

    ok: bool
    crashed: bool
    message: str
    report: dict[str, object]


def child_main() -> int:
    """The check itself (in the child): load, generate, embed; print one JSON line."""
    from shared.config import EmbedderConfig, ModelConfig
    from shared.core.model_api import GenerationRequest
    from shared.models.factory import build_embedder, build_generator

    started = time.perf_counter()
    generator = build_generator(ModelConfig())
    loaded = time.perf_counter()
    completion = generator.generate(GenerationRequest(prompt="Name one colour.", max_tokens=8, temperature=0.0, seed=0))
    generated = time.perf_counter()
    vector = build_embedder(EmbedderConfig()).embed(["A sentence to embed."])
    import llama_cpp

    report = {
        "generated": completion.texts[0],
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "embedding_dim": int(vector.shape[1]),
        "load_s": round(loaded - started, 3),
        "generate_s": round(generated - loaded, 3),
        "llama_cpp_python": llama_cpp.__version__,
        "llama_system_info": llama_cpp.llama_print_system_info().decode(errors="replace").strip(),
    }
    generator.close()
    print(json.dumps(report))
    return EXIT_OK


def run_check(command: list[str], timeout_s: float = CHILD_TIMEOUT_S) -> CheckResult:
    """Run the check ``command`` as a child and explain the outcome in one sentence."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        why = f"the model self-test did not finish within {timeout_s:.0f} s; the machine may be overloaded: "
        return CheckResult(False, False, why + "run scripts/install.sh again when it is idle", {})
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name
        return CheckResult(
            False,
            True,
            f"the model runtime crashed with {name} while loading or running the SLM: this llama.cpp build does "
            "not work on this CPU; rebuild it with portable flags (scripts/install.sh does this) or report the "
            "CPU model and llama.cpp system info printed above",
            {"stderr": done.stderr[-2000:]},
        )
    report: dict[str, object] = {}
    for line in reversed(done.stdout.splitlines()):
        try:
            report = json.loads(line)
            break
        except ValueError:
            continue
    if done.returncode != 0 or not report:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return CheckResult(
            False,
            False,
            f"the model self-test failed (exit {done.returncode}): {last}",
            {"stderr": done.stderr[-2000:]},
        )
    return CheckResult(True, False, "the SLM generated and the embedder embedded in a child process", report)


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    """The CPU feature flags of this machine (empty when unknown)."""
    try:
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def fallback_cmake_args(flags: set[str]) -> str:
    """CMAKE_ARGS for a llama.cpp build that uses only features this CPU reports, never AMX."""
    args = ["-DGGML_NATIVE=OFF", "-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"]
    wanted = {
        "GGML_AVX": "avx",
        "GGML_AVX2": "avx2",
        "GGML_FMA": "fma",
        "GGML_F16C": "f16c",
        "GGML_AVX512": "avx512f",
        "GGML_AVX512_VNNI": "avx512_vnni",
        "GGML_AVX512_BF16": "avx512_bf16",
    }
    args += [f"-D{option}={'ON' if flag in flags else 'OFF'}" for option, flag in wanted.items()]
    return " ".join(args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--fallback-cmake-args", action="store_true", help="print CMAKE_ARGS for a portable build")
    args = parser.parse_args(argv)
    if args.child:
        return child_main()
    if args.fallback_cmake_args:
        print(fallback_cmake_args(cpu_flags()))
        return EXIT_OK
    result = run_check([sys.executable, "-m", "shared.models.runtime_check", "--child"])
    if result.ok:
        for key, value in result.report.items():
            print(f"self-test {key}: {value}")
        return EXIT_OK
    print(f"self-test: {result.message}", file=sys.stderr)
    return EXIT_CRASHED if result.crashed else EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
