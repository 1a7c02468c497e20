"""What a model process that died by a signal tells its user: the signal in words, its likely cause, the repair.

A model runtime (llama.cpp, PyTorch) that meets a CPU it was not built for kills its process with a signal
(SIGILL: an instruction the CPU does not have; SIGSEGV). Whoever started that process (the ``dgrag`` command's
supervisor, the simulation, the demo, the install's self-test) explains the death with :func:`death_message`.
"""

from __future__ import annotations

import signal
from pathlib import Path

_REPAIR_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "repair_runtime.sh"
_CAUSES: dict[int, str] = {
    signal.SIGILL: "the CPU met an instruction it does not have: the llama.cpp build does not suit this CPU",
    signal.SIGSEGV: "a native library touched memory it does not own, most often a model runtime built for another CPU",
    signal.SIGBUS: "a native library touched memory it does not own, most often a model runtime built for another CPU",
    signal.SIGFPE: "a native library made an arithmetic fault",
    signal.SIGABRT: "a native library gave up (its own message is in the output above)",
}
_OUTSIDE: dict[int, str] = {
    signal.SIGKILL: "something outside killed it, most often the kernel when memory ran out (see `dmesg`)",
    signal.SIGTERM: "it was asked to stop",
    signal.SIGINT: "it was interrupted",
    signal.SIGHUP: "its terminal went away",
}


def repair_advice() -> str:
    """The command that repairs the model runtime, and what it does."""
    if _REPAIR_SCRIPT.is_file():
        return (
            f"`bash {_REPAIR_SCRIPT}` (it self-tests the model runtime and rebuilds llama.cpp with portable flags "
            "where it crashes)"
        )
    return (
        '`CMAKE_ARGS="$(python -m shared.models.runtime_check --fallback-cmake-args)" python -m pip install '
        "--force-reinstall --no-deps --no-binary llama-cpp-python llama-cpp-python` (llama.cpp built with portable "
        "flags), then test it with `python -m shared.models.runtime_check`"
    )


def signal_words(number: int) -> str:
    """``SIGILL (illegal instruction)``: the signal's name and what it means."""
    try:
        sig = signal.Signals(number)
    except ValueError:
        return f"signal {number}"
    meaning = signal.strsignal(sig) or ""
    return f"{sig.name} ({meaning.lower()})" if meaning else sig.name


def signal_of(returncode: int) -> int | None:
    """The signal a child's return code (negative from subprocess, 128+N from a shell) says ended it, or None."""
    if returncode < 0:
        return -returncode
    return returncode - 128 if 128 < returncode < 128 + signal.NSIG else None


def death_message(returncode: int, what: str) -> str:
    """One paragraph on how ``what`` (e.g. ``indexing the business edge``) ended with ``returncode``; the exit
    code itself when no signal ended it. A crash names the repair; committed work is kept either way."""
    number = signal_of(returncode)
    if number is None:
        return f"{what} failed (exit code {returncode})"
    words = f"{what} died of {signal_words(number)}"
    if number in _OUTSIDE:
        return f"{words}: {_OUTSIDE[number]}"
    cause = _CAUSES.get(number, "a native library crashed")
    return (
        f"{words}: {cause}. Repair the model runtime with {repair_advice()}, then run the command again; work "
        "committed before the crash is kept"
    )
