"""Documents are read in a child process with a time limit and a memory ceiling, so a file built to cost minutes of
CPU or gigabytes of memory is refused in seconds, and a reader's own bug refuses one file, not the batch.

One child (``python -m edge_node.ingest.reader_child``: a fresh interpreter holding none of the edge's models, keys
or open stores) reads every document of an ingest in turn, under an address-space limit. A read that takes longer
than its time limit kills the child; the next read starts another. The child answers in JSON, never pickle, so
even a child a document took over cannot make the edge run anything. Whatever goes wrong becomes an
:class:`InputDocumentError` naming the file: the reader's own refusal, a time or memory limit, or an exception no
reader expected (a damaged zip member, an unknown PDF filter, a malformed mail header).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time

from shared.core.errors import InputDocumentError

READ_SECONDS = 5.0
"""The longest one document may take to read."""
READ_MEMORY_BYTES = 448 * 1024 * 1024
"""The child's address-space ceiling (470 MB): a fresh Python with the readers maps under 100 MB of it."""
START_SECONDS = 30.0
"""The longest the child may take to start (import the readers) before a read counts."""
MAX_ANSWER_BYTES = 64 * 1024 * 1024
"""The longest answer line taken from the child (the text is bounded by ingest.max_file_bytes before that)."""


class ReaderSandbox:
    """Reads documents in one child process at a time, each within ``seconds`` and ``memory_bytes``. Thread-safe:
    reads queue for the one child."""

    def __init__(self, seconds: float = READ_SECONDS, memory_bytes: int = READ_MEMORY_BYTES) -> None:
        self.seconds = seconds
        self.memory_bytes = memory_bytes
        self._lock = threading.Lock()
        self._child: subprocess.Popen[bytes] | None = None

    def read(self, data: bytes, suffix: str, name: str, max_chars: int) -> tuple[str, str]:
        """(title, text) of the document, or InputDocumentError saying why it was refused."""
        with self._lock:
            child = self._started(name)
            header = json.dumps({"suffix": suffix, "name": name, "max_chars": max_chars, "size": len(data)})
            try:
                assert child.stdin is not None
                child.stdin.write(header.encode() + b"\n" + data)
                child.stdin.flush()
                line = self._answer(child, time.monotonic() + self.seconds)
            except (OSError, ValueError):  # the child died: past its memory, or killed
                line = b""
            if line is None:
                self._stop()
                remedy = "if it is only long: split it, or save it as text"
                raise InputDocumentError(name, f"took more than {self.seconds:g} s to read; refused ({remedy})")
            if not line:
                self._stop()
                why = f"needed more than {self.memory_bytes // 2**20} MB, or a reader crashed on it"
                raise InputDocumentError(name, f"the document reader ended while reading it ({why}); refused")
        return _parsed(line, name)

    def _answer(self, child: subprocess.Popen[bytes], deadline: float) -> bytes | None:
        """The child's answer line; None when the deadline passes first, b"" when the child ends first."""
        assert child.stdout is not None
        fd = child.stdout.fileno()
        got = bytearray()
        while not got.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            piece = os.read(fd, 1 << 20)
            if not piece or len(got) + len(piece) > MAX_ANSWER_BYTES:
                return b""
            got += piece
        return bytes(got)

    def _started(self, name: str) -> subprocess.Popen[bytes]:
        if self._child is not None and self._child.poll() is None:
            return self._child
        self._stop()
        command = [sys.executable, "-m", "edge_node.ingest.reader_child", str(self.memory_bytes)]
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._child = child
        if self._answer(child, time.monotonic() + START_SECONDS) != b"ready\n":
            self._stop()
            raise InputDocumentError(name, "was not read: the document reader did not start")
        return child

    def _stop(self) -> None:
        if self._child is not None:
            self._child.kill()
            self._child.wait(5)
            for pipe in (self._child.stdin, self._child.stdout):
                if pipe is not None:
                    pipe.close()
        self._child = None

    def close(self) -> None:
        with self._lock:
            self._stop()


def _parsed(line: bytes, name: str) -> tuple[str, str]:
    """The (title, text) of a child's answer, checked; InputDocumentError for a refusal or a malformed answer."""
    try:
        answer = json.loads(line)
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        raise InputDocumentError(name, "the document reader gave a malformed answer; refused")
    if "refused" in answer:
        raise InputDocumentError(name, str(answer["refused"])[:300])
    title, text = answer.get("title"), answer.get("text")
    if not isinstance(title, str) or not isinstance(text, str):
        raise InputDocumentError(name, "the document reader gave a malformed answer; refused")
    return title, text


_SHARED: ReaderSandbox | None = None
_SHARED_LOCK = threading.Lock()


def sandbox() -> ReaderSandbox:
    """The process's one reader sandbox (its child starts at the first read)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = ReaderSandbox()
        return _SHARED
