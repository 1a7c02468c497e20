"""Turn paths given to ``dgrag edge ingest`` into documents: .txt/.md, .pdf, .jsonl bundles, directories.

Every problem with one input becomes an :class:`InputDocumentError` naming it, yielded in place of the
document, so a batch goes on past bad files.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from edge_node.ingest.confined_open import open_confined
from edge_node.ingest.document_formats import human_bytes
from edge_node.ingest.reader_sandbox import sandbox
from shared.core.constants import SUPPORTED_SUFFIXES
from shared.core.errors import InputDocumentError, NoReaderError

MAX_DOC_ID_CHARS = 512


@dataclass(frozen=True)
class RawDocument:
    """A document as read, before chunking."""

    doc_id: str
    title: str
    text: str
    source: str
    """Where it came from (file path, or path:line for bundle rows)."""
    former_id: str | None = None
    """The id earlier versions gave this file (its absolute path), so an ingest can rename it in place."""


ReadResult = RawDocument | InputDocumentError


def read_paths(
    paths: list[Path],
    max_bytes: int,
    bundle_edge: str | None = None,
    root: Path | None = None,
    confine: tuple[Path, ...] = (),
) -> Iterator[ReadResult]:
    """Documents from files and directories (recursively, in sorted order), or errors naming the bad ones.

    A file's id is its path relative to ``root`` with ``/`` separators, so it stays the same when the folder
    moves to another place or machine. Without ``root``, each path given is taken relative to the folder it
    lies in: a directory ``notes/`` yields ``notes/a.txt``, ``notes/2024/b.md``; a file alone is known by its
    name. ``bundle_edge`` keeps only rows of .jsonl bundles whose ``edge_id`` matches it. A second document
    with an id another one of the same call already has is refused (it would silently replace the first).
    Each file is opened once and what was opened is checked: a directory's files must lie in it, and with
    ``confine`` (resolved folders) every file must lie in one of them (edge_node.ingest.confined_open).
    """
    seen: dict[str, str] = {}
    for result in _read_all(paths, max_bytes, bundle_edge, root, confine):
        first = seen.setdefault(result.doc_id, result.source) if isinstance(result, RawDocument) else None
        if isinstance(result, RawDocument) and first != result.source:
            yield InputDocumentError(
                result.source,
                f"would have the id {result.doc_id!r}, which {first} already has in this ingest (one would "
                "replace the other); give --root a folder holding both, so that their ids differ",
            )
            continue
        yield result


def _read_all(
    paths: list[Path], max_bytes: int, bundle_edge: str | None, root: Path | None, confine: tuple[Path, ...]
) -> Iterator[ReadResult]:
    for path in paths:
        base = _absolute(root) if root is not None else _absolute(path).parent
        if path.is_dir():
            files, unread = _walk(path)
            if not files:
                yield InputDocumentError(str(path), f"directory holds no {'/'.join(SUPPORTED_SUFFIXES)} files")
            for file in unread:
                yield NoReaderError(str(file), f"no reader takes {file.suffix.lower() or 'files without a suffix'}")
            real_root = path.resolve()
            for file in files:
                if not _inside(file, real_root):
                    yield InputDocumentError(str(file), f"is a symlink leading out of {path}; not read")
                    continue
                inside = tuple(r for r in confine if real_root.is_relative_to(r)) or (real_root,)
                yield from _read_file(file, max_bytes, bundle_edge, base, inside)
        else:
            yield from _read_file(path, max_bytes, bundle_edge, base, confine)


def relative_doc_id(file: Path, base: Path) -> str | None:
    """``file``'s path from ``base`` with ``/`` separators, or None when it does not lie under ``base`` (both
    made absolute with ``..`` folded, symlinks kept)."""
    absolute, base = _absolute(file), _absolute(base)
    if not absolute.is_relative_to(base):
        return None
    relative = absolute.relative_to(base)
    return PurePosixPath(*relative.parts).as_posix() if relative.parts else None


def _absolute(path: Path) -> Path:
    """``path`` made absolute with ``..`` folded, symlinks kept (a file is known by where it was named)."""
    return Path(os.path.normpath(path.expanduser().absolute()))


def _inside(file: Path, root: Path) -> bool:
    """Whether ``file``, symlinks resolved, lies under ``root`` (a symlink loop does not)."""
    try:
        return file.resolve().is_relative_to(root)
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python 3.11)
        return False


def _walk(root: Path) -> tuple[list[Path], list[Path]]:
    """(supported, unsupported) non-hidden files under ``root``, sorted; symlinked directories are not entered
    (no loops, no walking out of ``root``); symlinked files are listed and checked by the caller."""
    out: list[Path] = []
    unread: list[Path] = []
    for folder, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            file = Path(folder) / name
            if not name.startswith("."):
                (out if file.suffix.lower() in SUPPORTED_SUFFIXES else unread).append(file)
    return sorted(out), sorted(unread)


def _read_file(
    path: Path, max_bytes: int, bundle_edge: str | None, base: Path, within: tuple[Path, ...] = ()
) -> Iterator[ReadResult]:
    name = str(path)
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES and not path.is_dir():
        yield InputDocumentError(
            name, f"unsupported file type {suffix or '(none)'}; supported: {', '.join(SUPPORTED_SUFFIXES)}"
        )
        return
    try:
        handle = open_confined(path, within)  # opened once: what is checked is what is read
    except (InputDocumentError, OSError) as exc:
        yield _read_error(name, exc)
        return
    with handle:
        if suffix == ".jsonl":
            yield from _read_bundle(handle, name, max_bytes, bundle_edge)
            return
        yield from _read_document(handle, path, max_bytes, base)


def _read_document(handle: BinaryIO, path: Path, max_bytes: int, base: Path) -> Iterator[ReadResult]:
    name = str(path)
    size = os.fstat(handle.fileno()).st_size
    if size > max_bytes:
        yield InputDocumentError(
            name, f"is {human_bytes(size)}, over the {human_bytes(max_bytes)} limit (ingest.max_file_bytes); split it"
        )
        return
    if size == 0:
        yield InputDocumentError(name, "is empty")
        return
    try:
        data = handle.read(max_bytes + 1)
        title, text = sandbox().read(data, path.suffix.lower(), name, max_bytes)
    except (InputDocumentError, OSError) as exc:
        yield _read_error(name, exc)
        return
    if not text.strip():
        yield InputDocumentError(name, "contains no text")
        return
    doc_id = relative_doc_id(path, base)
    if doc_id is None:
        yield InputDocumentError(name, f"lies outside the ingest root {base}; give a --root that holds it")
        return
    yield RawDocument(doc_id=doc_id, title=title or path.stem, text=text, source=name, former_id=str(path.resolve()))


def _read_error(name: str, exc: InputDocumentError | OSError) -> InputDocumentError:
    """The one-line error a failed open or read of ``name`` is reported as."""
    if isinstance(exc, InputDocumentError):
        return exc
    if isinstance(exc, FileNotFoundError):
        return InputDocumentError(name, "no such file or directory")
    return InputDocumentError(name, f"cannot be read: {exc.strerror or exc}")


def _read_bundle(handle: BinaryIO, path: str, max_bytes: int, bundle_edge: str | None) -> Iterator[ReadResult]:
    found = False
    for number, raw in enumerate(_lines(handle, max_bytes), start=1):
        where = f"{path}:{number}"
        if raw is None:
            yield InputDocumentError(where, f"row is over the {human_bytes(max_bytes)} limit (ingest.max_file_bytes)")
            continue
        if not raw.strip():
            continue
        try:
            row = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            yield InputDocumentError(where, "row is not valid UTF-8")
            continue
        except json.JSONDecodeError as exc:
            yield InputDocumentError(where, f"row is not valid JSON: {exc.msg}")
            continue
        if not isinstance(row, dict) or not isinstance(row.get("doc_id"), str) or not isinstance(row.get("text"), str):
            yield InputDocumentError(where, 'row needs string fields "doc_id" and "text"')
            continue
        if bundle_edge is not None and row.get("edge_id") != bundle_edge:
            continue
        if not valid_doc_id(row["doc_id"]):
            yield InputDocumentError(
                where, f"doc_id must be 1-{MAX_DOC_ID_CHARS} printable characters, not {row['doc_id'][:40]!r}"
            )
            continue
        found = True
        if _unpaired_surrogates(row["doc_id"], row["text"], row.get("title")):
            yield InputDocumentError(where, "row holds an unpaired surrogate escape (\\ud800-\\udfff)")
            continue
        if not row["text"].strip():
            yield InputDocumentError(where, f"document {row['doc_id']} has no text")
            continue
        title = row["title"] if isinstance(row.get("title"), str) else row["doc_id"]
        # Bundles scraped from the web carry HTML entities (&#039;); index the characters they stand for.
        yield RawDocument(
            doc_id=row["doc_id"], title=html.unescape(title), text=html.unescape(row["text"]), source=where
        )
    if bundle_edge is not None and not found:
        yield InputDocumentError(str(path), f"bundle has no documents for edge {bundle_edge!r}")


def _lines(handle: BinaryIO, max_bytes: int) -> Iterator[bytes | None]:
    """The file's lines, never reading more than ``max_bytes`` + 1 of one into memory: an overlong line
    comes out as None (and is skipped to its end)."""
    while True:
        line = handle.readline(max_bytes + 1)
        if not line:
            return
        if len(line) > max_bytes and not line.endswith(b"\n"):
            while (rest := handle.readline(1 << 20)) and not rest.endswith(b"\n"):
                pass
            yield None
            continue
        yield line


def valid_doc_id(doc_id: str) -> bool:
    """1 to MAX_DOC_ID_CHARS printable characters, not all spaces: no newline, escape or other control character
    that could forge a line of a log or a terminal."""
    return 0 < len(doc_id) <= MAX_DOC_ID_CHARS and doc_id.isprintable() and bool(doc_id.strip())


def _unpaired_surrogates(*values: object) -> bool:
    for value in values:
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return True
    return False
