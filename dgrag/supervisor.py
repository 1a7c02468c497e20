"""The ``dgrag`` command's entry point: a command that runs models runs them in a child process, so a crash in
a native model runtime is explained instead of ending the command with a bare "Illegal instruction".

A model runtime that meets a CPU it was not built for kills its whole process with a signal (SIGILL, SIGSEGV),
and a process cannot explain its own death. So ``dgrag edge ingest|summarize|query|serve``, ``dgrag cloud
serve`` and ``dgrag sim ...`` start ``python -m dgrag.cli`` with the same arguments and wait for it. When it dies
by a signal, this parent names the signal in words and the command that repairs the runtime
(shared.models.crash). The child shares the terminal: Ctrl-C reaches it directly; SIGTERM and SIGHUP sent to this
parent (docker stop, systemd, kill) are passed on, so it stops gracefully and keeps its committed work. Every
other command runs in this process.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Sequence
from types import FrameType

from shared.models.crash import death_message

MODEL_COMMANDS = {
    "edge": {"ingest", "summarize", "query", "serve"},
    "cloud": {"serve"},
    "sim": None,  # every sub-command
}
"""Commands that load a model runtime in their own process (None: all of the role's commands)."""
PASSED_ON = (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
QUIET = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
"""Signals that end a command on purpose: the child's death by one of them needs no explanation."""


def runs_models(args: Sequence[str]) -> bool:
    """Whether ``dgrag args...`` loads a model runtime in its own process (help never does)."""
    if not args or any(a in ("-h", "--help") for a in args):
        return False
    commands = MODEL_COMMANDS.get(args[0], set())
    return commands is None or (len(args) > 1 and args[1] in commands)


def supervise(command: Sequence[str], what: str) -> int:
    """Run ``command`` as a child sharing this terminal; its exit code, or 128 + the signal that ended it, after
    saying why on stderr when that signal was a crash."""
    child = subprocess.Popen(list(command))

    def pass_on(signum: int, frame: FrameType | None) -> None:
        child.send_signal(signum)

    previous = {sig: signal.signal(sig, pass_on) for sig in PASSED_ON}
    interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the terminal's Ctrl-C reaches the child itself
    try:
        returncode = child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        signal.signal(signal.SIGINT, interrupt)
    if returncode >= 0:
        return returncode
    if -returncode not in QUIET:
        print(f"dgrag: {death_message(returncode, what)}", file=sys.stderr, flush=True)
    return 128 - returncode


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if runs_models(args):
        return supervise([sys.executable, "-m", "dgrag.cli", *args], "dgrag " + " ".join(args[:2]))
    from dgrag.cli import main as run_here

    return run_here(args)
