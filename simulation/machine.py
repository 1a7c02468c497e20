"""The facts of the machine a figure was measured on: CPU, cores, llama.cpp build, library versions, threads.

Speeds on one kind of machine differ by 4x with the CPU's features and the llama.cpp build, and by 10x
with what else runs; every benchmark and simulation report records these beside its numbers.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from shared.models.cpu import WAIT_ENV, available_cores

LIBRARIES = (
    "llama-cpp-python",
    "torch",
    "transformers",
    "sentence-transformers",
    "faiss-cpu",
    "grpcio",
    "protobuf",
    "igraph",
    "leidenalg",
    "numpy",
)
FEATURES = ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile", "amx_int8", "amx_bf16")


@dataclass(frozen=True)
class MachineFacts:
    cpu_model: str
    cores: int
    cpu_features: tuple[str, ...]
    python: str
    libraries: dict[str, str] = field(default_factory=dict)
    llama_system_info: str = ""
    threads: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def markdown(self) -> str:
        """A few lines for a report."""
        libs = ", ".join(f"{k} {v}" for k, v in self.libraries.items())
        threads = ", ".join(f"{k}={v}" for k, v in self.threads.items()) or "library defaults"
        return (
            f"- CPU: {self.cpu_model}, {self.cores} cores; features: {' '.join(self.cpu_features) or 'unknown'}\n"
            f"- llama.cpp: {self.llama_system_info or 'not loaded'}\n"
            f"- threads: {threads}\n"
            f"- Python {self.python}; {libs}\n"
        )


def _cpuinfo() -> tuple[str, set[str]]:
    model, flags = platform.processor() or platform.machine(), set[str]()
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.startswith("model name") and ":" in line:
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags") and ":" in line:
                flags = set(line.split(":", 1)[1].split())
                break
    except OSError:
        pass
    return model, flags


def llama_system_info() -> str:
    """llama.cpp's own line on the CPU features its build uses ('' when llama-cpp-python is missing)."""
    try:
        import llama_cpp
    except ImportError:
        return ""
    info: bytes = llama_cpp.llama_print_system_info()
    return info.decode(errors="replace").strip()


def machine_facts(extra_threads: dict[str, str] | None = None) -> MachineFacts:
    """Facts of this machine and environment (loads llama.cpp's library to ask it; call prepare_cpu first)."""
    model, flags = _cpuinfo()
    versions: dict[str, str] = {}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return MachineFacts(
        cpu_model=model,
        cores=available_cores(),
        cpu_features=tuple(f for f in FEATURES if f in flags),
        python=platform.python_version(),
        libraries=versions,
        llama_system_info=llama_system_info(),
        threads=thread_environment() | (extra_threads or {}),
    )


def thread_environment() -> dict[str, str]:
    """The thread-related environment of this process, as recorded with figures."""
    keys = (*WAIT_ENV, "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
    return {k: os.environ[k] for k in keys if k in os.environ}
