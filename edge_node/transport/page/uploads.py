"""Documents the owner uploads through the page: one file, several, or a whole folder (the browser sends each
file's path within it). Each is kept under the data directory's ``uploads`` folder, its path made safe (no
``..``, no odd characters, at most :data:`MAX_DEPTH` folders), and all are ingested as one batch."""

from __future__ import annotations

import asyncio
import re
import time
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
_SAFE = re.compile(r"[^A-Za-z0-9._ -]+")
Ingest = Callable[[list[Path], Path], Awaitable[IngestReport]]


def safe_path(filename: str) -> PurePosixPath | None:
    """``filename`` (a name, or a path within a chosen folder) as a safe relative path; None when nothing is left."""
    parts = [_SAFE.sub("_", p).strip(" .")[:120] for p in filename.replace("\\", "/").split("/")]
    kept = [p for p in parts if p and p not in (".", "..")][-(MAX_DEPTH + 1) :]
    return PurePosixPath(*kept) if kept else None


async def store_uploads(files: Sequence[UploadFile], uploads: Path, max_bytes: int, ingest: Ingest) -> str:
    """Save ``files`` under ``uploads`` and ingest them; what happened, in words."""
    saved: list[Path] = []
    skipped: list[str] = []
    for file in files[:MAX_FILES]:
        relative = safe_path(file.filename or "")
        if relative is None or relative.suffix.lower() not in UPLOAD_SUFFIXES:
            skipped.append(f"{file.filename} (no reader for its type)")
            continue
        data = await file.read(max_bytes + 1)
        if len(data) > max_bytes:
            skipped.append(f"{relative} (over the {max_bytes // 1024:,} KiB limit, ingest.max_file_bytes)")
            continue
        path = uploads.joinpath(*relative.parts)
        try:
            await asyncio.to_thread(_write, path, data, uploads)
        except OSError as exc:  # e.g. a file where a folder of the same name is needed
            skipped.append(f"{relative} (cannot be kept: {exc.strerror or exc})")
            continue
        saved.append(path)
    if len(files) > MAX_FILES:
        skipped.append(f"{len(files) - MAX_FILES} more files (at most {MAX_FILES} an upload)")
    if not saved:
        return "Not added: " + "; ".join(skipped[:5]) if skipped else "Choose a file to add."
    started = time.perf_counter()
    report = await ingest(saved, uploads)
    for failed, _ in report.failed:
        Path(failed).unlink(missing_ok=True)
    return _said(report, skipped, time.perf_counter() - started)


def _write(path: Path, data: bytes, uploads: Path) -> None:
    uploads.mkdir(mode=0o700, exist_ok=True)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.write_bytes(data)


def _said(report: IngestReport, skipped: list[str], seconds: float) -> str:
    done = [
        f"{', '.join(ids[:5])}{' and more' if len(ids) > 5 else ''} {what}"
        for ids, what in ((report.added, "added"), (report.updated, "replaced"), (report.unchanged, "unchanged"))
        if ids
    ]
    text = "; ".join(done) + f" in {seconds:.1f} s" if done else ""
    if report.failed:
        text += ("; " if text else "") + "not added: " + "; ".join(f"{p}: {r}" for p, r in report.failed[:5])
    if skipped:
        text += ("; " if text else "") + "not read: " + "; ".join(skipped[:5])
    return text + ("; they can be asked about now." if done else ".")


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
