"""Documents the owner uploads through the page: one file, several, or a whole folder (the browser sends each
file's path within it). Each is kept under the data directory's ``uploads`` folder, its path made safe (no
``..``, letters, marks and digits of any script kept, any other odd character a ``_``, at most :data:`MAX_DEPTH`
folders). A name changed to be safe carries a digest of the name as sent, so two names made alike stay apart
(in one upload or two) and the same name sent again replaces its file. All are ingested as one batch. A file
that replaces a kept one moves the kept copy aside until the new one is read: a replacement that fails leaves
the copy of the version still indexed in place."""

from __future__ import annotations

import asyncio
import hashlib
import os
import time
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path, PurePosixPath

from starlette.datastructures import UploadFile

from edge_node.ingest.readers import ReadResult, read_paths
from edge_node.ingest.service import IngestReport
from shared.core.constants import SUPPORTED_SUFFIXES

UPLOAD_SUFFIXES = tuple(s for s in SUPPORTED_SUFFIXES if s != ".jsonl")
MAX_FILES = 500
"""Files one upload may carry."""
UPLOAD_FACTOR = 8
"""A whole upload may be this many times ingest.max_file_bytes (each file at most once)."""
MAX_DEPTH = 6
_KEPT = "._ -()"
"""Characters kept in a name besides letters, marks and digits."""
MAX_PART = 120
DIGEST_CHARS = 8
"""Hex digits of the digest a name made safe carries (of the name as sent)."""
Ingest = Callable[[list[Path], Path], Awaitable[IngestReport]]


def safe_path(filename: str) -> PurePosixPath | None:
    """``filename`` (a name, or a path within a chosen folder) as a safe relative path; None when nothing is left."""
    parts = [_safe_part(p) for p in unicodedata.normalize("NFC", filename).replace("\\", "/").split("/")]
    kept = [p for p in parts if p and p not in (".", "..")][-(MAX_DEPTH + 1) :]
    return PurePosixPath(*kept) if kept else None


def _safe_part(part: str) -> str:
    """One folder or file name: letters, marks and digits of any script and :data:`_KEPT` as they are, anything
    else (control, format, symbol and path characters) a ``_``; no leading or trailing dot or space. A name this
    changed gets ``-DIGEST`` before its suffix: 😀.txt and 🎉.txt are not both ``_.txt``."""
    kept = "".join(c if c.isalnum() or unicodedata.category(c)[0] == "M" or c in _KEPT else "_" for c in part)
    kept = kept.strip(" .")
    if (kept == part and len(kept) <= MAX_PART) or not kept:
        return kept
    suffix = PurePosixPath(kept).suffix
    suffix = suffix if suffix.lower() in UPLOAD_SUFFIXES else ""
    stem = kept.removesuffix(suffix)[: MAX_PART - DIGEST_CHARS - 1 - len(suffix)]
    return f"{stem}-{hashlib.sha256(part.encode()).hexdigest()[:DIGEST_CHARS]}{suffix}"


def _distinct(path: Path, used: set[Path]) -> Path:
    """``path``, or ``name (2).txt``, ``name (3).txt``... when another file of the same upload took it."""
    chosen, n = path, 1
    while chosen in used:
        n += 1
        chosen = path.with_name(f"{path.stem} ({n}){path.suffix}")
    used.add(chosen)
    return chosen


async def store_uploads(files: Sequence[UploadFile], uploads: Path, max_bytes: int, ingest: Ingest) -> str:
    """Save ``files`` under ``uploads`` and ingest them; what happened, in words."""
    saved: list[Path] = []
    skipped: list[str] = []
    used: set[Path] = set()
    kept: dict[Path, Path] = {}
    """A replaced file's path -> where its earlier copy waits until the new one is read."""
    for file in files[:MAX_FILES]:
        relative = safe_path(file.filename or "")
        if relative is None or relative.suffix.lower() not in UPLOAD_SUFFIXES:
            skipped.append(f"{file.filename} (no reader for its type)")
            continue
        data = await file.read(max_bytes + 1)
        if len(data) > max_bytes:
            skipped.append(f"{relative} (over the {max_bytes // 1024:,} KiB limit, ingest.max_file_bytes)")
            continue
        path = _distinct(uploads.joinpath(*relative.parts), used)
        try:
            await asyncio.to_thread(_write, path, data, uploads, kept)
        except OSError as exc:  # e.g. a file where a folder of the same name is needed
            skipped.append(f"{relative} (cannot be kept: {exc.strerror or exc})")
            continue
        saved.append(path)
    if len(files) > MAX_FILES:
        skipped.append(f"{len(files) - MAX_FILES} more files (at most {MAX_FILES} an upload)")
    if not saved:
        return "Not added: " + "; ".join(skipped[:5]) if skipped else "Choose a file to add."
    started = time.perf_counter()
    try:
        report = await ingest(saved, uploads)
    except BaseException:
        await asyncio.to_thread(_settle, saved, set(saved), kept)
        raise
    await asyncio.to_thread(_settle, saved, {Path(failed) for failed, _ in report.failed}, kept)
    return _said(report, skipped, time.perf_counter() - started, uploads)


def _write(path: Path, data: bytes, uploads: Path, kept: dict[Path, Path]) -> None:
    uploads.mkdir(mode=0o700, exist_ok=True)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.is_file():
        aside = path.with_name(f".{path.name}.kept")
        os.replace(path, aside)
        kept[path] = aside
    path.write_bytes(data)


def _settle(saved: list[Path], failed: set[Path], kept: dict[Path, Path]) -> None:
    """After the ingest: a file that failed is removed, and the copy it replaced (the version still indexed) is put
    back; a file that was read lets its earlier copy go."""
    for path in saved:
        aside = kept.get(path)
        if path in failed:
            if aside is not None:
                os.replace(aside, path)
            else:
                path.unlink(missing_ok=True)
        elif aside is not None:
            aside.unlink(missing_ok=True)


def _said(report: IngestReport, skipped: list[str], seconds: float, uploads: Path) -> str:
    done = [
        f"{', '.join(ids[:5])}{' and more' if len(ids) > 5 else ''} {what}"
        for ids, what in ((report.added, "added"), (report.updated, "replaced"), (report.unchanged, "unchanged"))
        if ids
    ]
    text = "; ".join(done) + f" in {seconds:.1f} s" if done else ""
    if report.failed:
        failed = [f"{_shown_path(p, uploads)}: {r}" for p, r in report.failed[:5]]
        text += ("; " if text else "") + "not added: " + "; ".join(failed)
    if skipped:
        text += ("; " if text else "") + "not read: " + "; ".join(skipped[:5])
    return text + ("; they can be asked about now." if done else ".")


def _shown_path(path: str, uploads: Path) -> str:
    """A failed file as the owner named it: its path within the uploads folder (never the server's own path)."""
    return Path(path).relative_to(uploads).as_posix() if Path(path).is_relative_to(uploads) else Path(path).name


def ingest_with(run: Callable[[list[ReadResult]], Awaitable[IngestReport]], max_bytes: int) -> Ingest:
    """The page's ingest: read ``paths`` (ids relative to the uploads folder) and hand them to ``run``."""

    async def ingest(paths: list[Path], uploads: Path) -> IngestReport:
        items = await asyncio.to_thread(lambda: list(read_paths(paths, max_bytes, root=uploads)))
        return await run(list(items))

    return ingest


def forget_upload(uploads: Path, doc_id: str) -> None:
    """Remove the kept copy of an uploaded document that was deleted (ids of uploads are their paths there)."""
    relative = safe_path(doc_id)
    if relative is not None and relative.as_posix() == doc_id:
        uploads.joinpath(*relative.parts).unlink(missing_ok=True)
