"""How a model process uses the machine's cores, settled before any model runtime loads.

llama.cpp and PyTorch run their matrix kernels on OpenMP threads. With OpenMP's default (ACTIVE) wait
policy an idle worker thread keeps spinning on its core for a while after each parallel region, so two
model processes on one small machine steal each other's cores: measured on 2 cores, two co-located
SmolLM2 processes read prompts at 0.63x the speed of one alone, and a third busy process slowed the others
5-40x. With PASSIVE waits idle threads sleep and the same pair reaches 1.07x. Every model process of dgrag
(edges, the cloud, the simulation's servers, the benchmarks) shares its machine with others, so the default
here (``short``) lets a waiting thread spin about a thousand times (a few microseconds) and then sleep.

``short`` is written as ``OMP_WAIT_POLICY=ACTIVE`` with ``GOMP_SPINCOUNT=1000``, not the spin count alone:
libgomp cuts its spins to 100 ("throttled") whenever a process holds more OpenMP threads than cores, and an
edge does (the embedder and the SLM run on two threads of their own, each with its own OpenMP team, in one
libgomp), so llama.cpp's threads slept at nearly every barrier of a decode step. ACTIVE lifts the throttled
count to 1000, and the explicit spin count bounds the spinning as before. Measured on 2 cores: twelve
generations with the embedder on another thread took 33.6 s with the spin count alone (8,966 sleeps a
second) and 23.3 s with both settings (617), as fast as with no embedder thread; the edge's local answer p50
in a 4-edge simulation fell from 3.2 to 1.9 s. OpenMP reads these settings once, when the runtime library
loads; so they are set in the environment (children inherit them too) before llama_cpp or torch is first
imported. A value the user put in the environment is kept.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from shared.core.errors import ConfigError

WAIT_POLICIES = ("short", "passive", "active")
DEFAULT_WAIT_POLICY = "short"
SHORT_SPIN_COUNT = 1000
"""Spins (a few microseconds) before an idle OpenMP thread sleeps under the ``short`` policy."""
WAIT_ENV = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "DGRAG_WAIT_POLICY")
_POLICY_ENV = "DGRAG_WAIT_POLICY"


def wait_environment(policy: str) -> dict[str, str]:
    """The environment that gives OpenMP (libgomp) the wait ``policy``."""
    if policy == "short":  # ACTIVE keeps libgomp from throttling the spins to 100 (see the module's docstring)
        return {_POLICY_ENV: policy, "OMP_WAIT_POLICY": "ACTIVE", "GOMP_SPINCOUNT": str(SHORT_SPIN_COUNT)}
    if policy in ("passive", "active"):
        return {_POLICY_ENV: policy, "OMP_WAIT_POLICY": policy.upper()}
    raise ConfigError(f"wait policy {policy!r} is not one of {list(WAIT_POLICIES)}")


@dataclass(frozen=True)
class CpuSettings:
    """What this process runs its model kernels with (recorded beside every figure)."""

    threads: int
    """Threads per model call."""
    wait_policy: str
    """OpenMP wait policy in effect (PASSIVE: idle threads sleep)."""
    cores: int
    """Cores this process may run on."""


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def resolve_threads(threads: int) -> int:
    """``threads`` when set, else every core this process may use."""
    if threads < 0:
        raise ConfigError(f"n_threads = {threads} is negative; use 0 (all cores) or a positive count")
    return threads or available_cores()


def prepare_cpu(threads: int = 0) -> CpuSettings:
    """Settle the OpenMP environment for this process and its children; call before loading a model.

    The wait policy is ``DGRAG_WAIT_POLICY`` (short, passive or active) when set, else ``short``; an
    ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` the user set is kept. ``OMP_NUM_THREADS`` is set to
    ``threads`` (0 = all cores) unless already set, so libraries that size their own pools from it (PyTorch,
    OpenBLAS) do not start more threads than the cores they may use."""
    count = resolve_threads(threads)
    policy = os.environ.get(_POLICY_ENV, "").strip().lower() or DEFAULT_WAIT_POLICY
    if policy not in WAIT_POLICIES:
        raise ConfigError(f"{_POLICY_ENV}={os.environ[_POLICY_ENV]!r} is not one of {list(WAIT_POLICIES)}")
    if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
        os.environ.update(wait_environment(policy))
    os.environ.setdefault("OMP_NUM_THREADS", str(count))
    return CpuSettings(threads=count, wait_policy=policy, cores=available_cores())
