"""Install-time self-test of the model runtimes, run in a child process so a crash cannot take us down.

    python -m shared.models.runtime_check                  # exit 0 ok, 3 the runtime crashed, 1 it failed
    python -m shared.models.runtime_check --fallback-cmake-args   # CMAKE_ARGS for a portable llama.cpp build

The child (shared.models.self_test) loads the models as the product does and drives every model path it uses:
embedding and generating in turn in one worker thread, sampled answers decoded together after a long prompt, a
streamed answer, an answer in a JSON schema, and the cloud's larger model where it was fetched. It prints
llama.cpp's system info (the CPU features its build uses). Any signal that ends the child is a crash: some
llama.cpp builds die with SIGILL or SIGSEGV on some CPUs (a build made with another machine's native flags; the
AMX kernels beside PyTorch's on one thread, which shared.models.torch_thread prevents). scripts/repair_runtime.sh
then rebuilds llama.cpp with the portable flags below and tests again.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from shared.models.cpu import wait_environment
from shared.models.crash import signal_of, signal_words

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CRASHED = 3
CHILD_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class CheckResult:
    """What the child reported, or how it died."""

    ok: bool
    crashed: bool
    message: str
    report: dict[str, object]


def child_main() -> int:
    """The check itself (in the child): load the product's models, run every step, print one JSON report."""
    from shared.config import CloudModelConfig, EmbedderConfig, ModelConfig
    from shared.config.models import CLOUD_MODEL
    from shared.models.factory import build_embedder, build_generator
    from shared.models.packaged import is_fetched
    from shared.models.self_test import Models, ProductModel, announce, run_steps

    started = time.perf_counter()
    announce("load the edge's model and the embedder")
    edge, embedder = build_generator(ModelConfig()), build_embedder(EmbedderConfig())
    cloud = None
    if is_fetched(CLOUD_MODEL):
        announce("load the cloud's model")
        cloud = build_generator(CloudModelConfig())
    if not isinstance(edge, ProductModel) or not (cloud is None or isinstance(cloud, ProductModel)):
        raise SystemExit("the self-test needs the llama_cpp backend, which streams and scores options")
    loaded = time.perf_counter()
    report = run_steps(Models(edge, embedder, cloud))
    import llama_cpp

    report |= {
        "models": ", ".join(m.name for m in (edge, cloud) if m is not None) + f", {embedder.name}",
        "load_s": round(loaded - started, 2),
        "steps_s": round(time.perf_counter() - loaded, 2),
        "llama_cpp_python": llama_cpp.__version__,
        "llama_system_info": llama_cpp.llama_print_system_info().decode(errors="replace").strip(),
    }
    print(json.dumps(report))
    return EXIT_OK


def run_check(command: list[str], timeout_s: float = CHILD_TIMEOUT_S) -> CheckResult:
    """Run the check ``command`` as a child and explain the outcome in one sentence."""
    env = {**os.environ, **wait_environment("short")}  # idle OpenMP threads sleep: the thread check needs it
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, check=False, env=env)
    except subprocess.TimeoutExpired:
        why = f"the model self-test did not finish within {timeout_s:.0f} s; the machine may be overloaded: "
        return CheckResult(False, False, why + "run scripts/repair_runtime.sh when it is idle", {})
    step, report = _read_lines(done.stdout)
    if (number := signal_of(done.returncode)) is not None:
        return CheckResult(
            False,
            True,
            f"the model runtime crashed with {signal_words(number)} in the step '{step or 'start'}': this "
            "llama.cpp build does not work on this CPU; rebuild it with portable flags (scripts/repair_runtime.sh "
            "does this) or report the CPU model and llama.cpp system info printed above",
            {"stderr": done.stderr[-2000:], "step": step},
        )
    if done.returncode != 0 or not report:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        where = f" in the step '{step}'" if step else ""
        return CheckResult(
            False,
            False,
            f"the model self-test failed{where} (exit {done.returncode}): {last}",
            {"stderr": done.stderr[-2000:], "step": step},
        )
    return CheckResult(True, False, "every model path of the product ran in a child process", report)


def _read_lines(stdout: str) -> tuple[str, dict[str, object]]:
    """The last step the child announced and its final report (empty when it printed none)."""
    step, report = "", {}
    for line in stdout.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and set(value) == {"step"}:
            step = str(value["step"])
        elif isinstance(value, dict):
            report = value
    return step, report


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
    print("self-test: running the product's model paths in a child process (about a minute)", flush=True)
    result = run_check([sys.executable, "-m", "shared.models.runtime_check", "--child"])
    if result.ok:
        for key, value in result.report.items():
            print(f"self-test {key}: {value}")
        return EXIT_OK
    print(f"self-test: {result.message}", file=sys.stderr)
    return EXIT_CRASHED if result.crashed else EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
