"""A thread of its own for every PyTorch computation, so PyTorch and llama.cpp never share an OS thread.

On CPUs with AMX (Intel Xeon since Sapphire Rapids) both libraries run matrix kernels on AMX tiles, and a tile
configuration belongs to one OS thread:

- ggml configures a thread's tiles once, on its first AMX kernel, and never again: ``ggml_tile_config_init`` in
  ggml-cpu/amx/mmq.cpp keeps a ``thread_local bool is_first_time``.
- PyTorch's bfloat16 kernels (oneDNN's primitives and the brgemm micro-kernels of its attention) release the
  tiles after use: ``at::native::cpublas::brgemm_release`` calls oneDNN's ``dnnl_brgemm_release_hw_context``.

So a thread that embeds (PyTorch, bfloat16) and then generates (llama.cpp) meets an unconfigured tile: the CPU
raises an invalid-opcode fault on ``tileloadd`` and the process dies with SIGILL. OpenMP worker threads belong to
the thread that starts a parallel region (libgomp keeps a pool per master thread), so when every PyTorch call
starts on one thread that never runs llama.cpp, their thread sets stay apart, workers included. This keeps AMX
for both (llama.cpp's prompt reading is about 2.9 times the portable build's there) at the cost of one handoff
per call (tens of microseconds). The install's self-test (shared.models.self_test) checks that the threads stay
apart on the user's machine.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class TorchThread:
    """One OS thread that runs every PyTorch call of its owner (the embedder)."""

    def __init__(self, name: str) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"torch-{name}")

    def run(self, call: Callable[[], T]) -> T:
        """``call()`` on this thread; its result or its exception."""
        return self._pool.submit(call).result()

    def close(self) -> None:
        self._pool.shutdown(wait=True)
