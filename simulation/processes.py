"""Real dgrag processes for simulations: run a command to completion with its peak RSS, or keep a server
up (port from a port file), read its peak RSS and stop it gracefully."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from shared.core.errors import DgragError
from shared.models.crash import death_message

START_TIMEOUT_S = 600.0


def dgrag_command() -> list[str]:
    """The ``dgrag`` command of this interpreter (and of this source tree when it comes first on the path), run
    without the command's supervisor: the simulation watches its processes itself (a crash is explained by
    shared.models.crash, and a process's peak memory is its own)."""
    return [sys.executable, "-m", "dgrag.cli"]


@dataclass(frozen=True)
class Finished:
    returncode: int
    seconds: float
    peak_rss_bytes: int


def run_to_end(args: list[str], log: Path, env: dict[str, str], echo: bool = False) -> Finished:
    """Run ``dgrag args...`` with output to ``log`` (and to our stderr when ``echo``, so its progress bars
    show); returns its exit code, wall time and peak RSS."""
    started = time.perf_counter()
    with log.open("wb") as out:
        proc = subprocess.Popen([*dgrag_command(), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        assert proc.stdout is not None
        try:
            while block := os.read(proc.stdout.fileno(), 4096):
                out.write(block)
                if echo:
                    sys.stderr.buffer.write(block)
                    sys.stderr.buffer.flush()
        except BaseException:
            _stop(proc)  # interrupted: don't leave the child running on its own
            raise
        proc.stdout.close()
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Finished(proc.returncode, time.perf_counter() - started, int(usage.ru_maxrss) * 1024)


class Server:
    """A dgrag server process (``dgrag edge serve`` or ``dgrag cloud serve``)."""

    node = "local"
    """Where the process runs (simulation processes run on the driver's machine)."""

    def __init__(
        self,
        name: str,
        args: list[str],
        workdir: Path,
        env: dict[str, str],
        host: str = "127.0.0.1",
        command: list[str] | None = None,
    ) -> None:
        """``command``: what runs ``args`` (default: this interpreter's ``dgrag``)."""
        self.name = name
        self.host = host
        self.log = workdir / f"{name}.log"
        self._port_file = workdir / f"{name}.port"
        self._port_file.unlink(missing_ok=True)
        self._proc = subprocess.Popen(
            [*(command or dgrag_command()), *args, "--port-file", str(self._port_file)],
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            env=env,
        )
        self.port = 0

    @property
    def address(self) -> str:
        if not self.port:
            raise DgragError(f"{self.name} has no port yet; call wait_ready() first")
        return f"{self.host}:{self.port}"

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._port_file.is_file():
                self.port = int(self._port_file.read_text().strip())
                return self.port
            if self._proc.poll() is not None:
                ended = death_message(self._proc.returncode, self.name)
                raise DgragError(f"the log of {self.name} ends:\n{self.tail().rstrip()}\n{ended}")
            time.sleep(0.1)
        raise DgragError(f"{self.name} did not start within {timeout:.0f} s; its log:\n{self.tail()}")

    def peak_rss_bytes(self) -> int:
        """The process's peak resident set size so far (VmHWM), 0 when it has exited."""
        try:
            for line in Path(f"/proc/{self._proc.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    @property
    def pid(self) -> int:
        return int(self._proc.pid)

    def alive(self) -> bool:
        return self._proc.poll() is None

    def tail(self, chars: int = 3000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self, timeout: float = 20.0) -> None:
        _stop(self._proc, timeout)


def stop_all(servers: Iterable[Server]) -> None:
    """Stop every server, even when stopping one is interrupted (the interruption is raised after the rest)."""
    pending: BaseException | None = None
    for server in servers:
        try:
            server.stop()
        except BaseException as exc:  # a second Ctrl-C or SIGTERM must not orphan the other servers
            pending = pending or exc
    if pending is not None:
        raise pending


def _stop(proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """SIGTERM (the servers stop gracefully on it; an ingest just ends, and its index is rebuilt), then SIGKILL
    after ``timeout`` seconds, or at once when the wait itself is interrupted."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        except BaseException:
            proc.kill()
            proc.wait()
            raise


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block SIGTERM acts as Ctrl-C (KeyboardInterrupt), so a long command stopped by ``kill``,
    systemd or a batch scheduler still runs its cleanup: child processes stopped, partial results kept."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
