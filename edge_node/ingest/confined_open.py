"""Open a document once, and check what was opened, not the path before it.

Checking a path and opening it later lets a symlink swapped in between lead the read anywhere (a time-of-check
to time-of-use race). A document is opened once; the opened file must be a regular file (a FIFO or a device is
refused without blocking on it), and where the read is confined to folders (a directory walk, the edge API's
``server.ingest_roots``), the opened file's own path, as the kernel knows it, must lie under one of them.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from shared.core.errors import InputDocumentError

_FLAGS = os.O_RDONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_NONBLOCK", 0)


def open_confined(path: Path, within: Sequence[Path] = ()) -> BinaryIO:
    """``path`` opened for reading in binary; InputDocumentError when it is not a regular file or, with
    ``within`` (resolved folders), when the opened file lies outside all of them. OSError as ``os.open`` raises."""
    fd = os.open(path, _FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputDocumentError(str(path), "not a regular file")
        if within:
            real = _opened_path(fd, path)
            if not any(real == root or real.is_relative_to(root) for root in within):
                folders = ", ".join(str(r) for r in within)
                raise InputDocumentError(str(path), f"leads out of {folders} once opened (a symlink?); not read")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _opened_path(fd: int, path: Path) -> Path:
    """The path of the file open on ``fd`` (Linux: /proc/self/fd; elsewhere the path resolved now)."""
    try:
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        return path.resolve()
