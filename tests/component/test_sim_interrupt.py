"""A simulation stopped by SIGTERM behaves like Ctrl-C: its child processes are stopped, not orphaned."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from simulation import processes
from simulation.processes import sigterm_as_interrupt


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _wait_for(path: Path, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.is_file() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


def test_sigterm_raises_keyboard_interrupt_inside_and_restores_the_handler() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), sigterm_as_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler interrupts this
    assert signal.getsignal(signal.SIGTERM) == before


def test_interrupted_run_to_end_stops_its_child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pid_file = tmp_path / "child.pid"
    child = (
        f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); print('up', flush=True); "
        "time.sleep(120)"
    )
    monkeypatch.setattr(processes, "dgrag_command", lambda: [sys.executable, "-c", child])

    def send_sigterm_once_child_is_up() -> None:
        _wait_for(pid_file)
        os.kill(os.getpid(), signal.SIGTERM)

    sender = threading.Thread(target=send_sigterm_once_child_is_up, daemon=True)
    sender.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt), sigterm_as_interrupt():
        processes.run_to_end([], tmp_path / "child.log", dict(os.environ))
    sender.join(timeout=5)
    pid = int(_wait_for(pid_file))
    assert time.monotonic() - started < 60, "run_to_end waited for the child instead of stopping it"
    assert not _alive(pid), "the child outlived the interrupted run_to_end"
    assert b"up" in (tmp_path / "child.log").read_bytes()


class _Stoppable:
    def __init__(self, interrupt: bool) -> None:
        self.interrupt = interrupt
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True
        if self.interrupt:
            raise KeyboardInterrupt  # a second Ctrl-C or SIGTERM arriving while this server stops


def test_stop_all_stops_every_server_even_when_one_stop_is_interrupted() -> None:
    servers = [_Stoppable(False), _Stoppable(True), _Stoppable(False)]
    with pytest.raises(KeyboardInterrupt):
        processes.stop_all(servers)  # type: ignore[arg-type]
    assert all(s.stopped for s in servers)
