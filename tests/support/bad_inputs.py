"""A catalogue of hostile and broken input files for `dgrag edge ingest` (the adversarial suite).

``make_bad_inputs(root)`` writes them under ``root`` and returns what each should produce: the path (or
``path:line`` of a bundle row) that must be named in exactly one ``dgrag: skipped`` line. Nothing here is
large on disk: the 1 GiB file is sparse, the bombs are small compressed streams.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

GOOD_TEXT = "Acme Robotics builds welding arms in Berlin. Jane Doe leads Acme Robotics and its Berlin plant."


@dataclass(frozen=True)
class BadInput:
    kind: str
    where: str
    """The path, or path:line, the error must name."""


def _pdf(objects: list[bytes]) -> bytes:
    body = b"%PDF-1.4\n"
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(len(body))
        body += b"%d 0 obj\n" % number + obj + b"\nendobj\n"
    xref = len(body)
    body += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    body += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    body += b"trailer\n<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return body


def _page_pdf(stream: bytes, extra: bytes = b"") -> bytes:
    return _pdf(
        [
            b"<</Type/Catalog/Pages 2 0 R>>",
            b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R" + extra + b">>",
            b"<</Length %d/Filter/FlateDecode>>\nstream\n" % len(stream) + stream + b"\nendstream",
        ]
    )


def make_bad_inputs(root: Path, max_file_bytes: int) -> tuple[list[Path], list[BadInput]]:
    """Write the catalogue under ``root``: (paths to pass to ingest, what each bad one must produce)."""
    inbox = root / "inbox"
    outside = root / "outside"
    inbox.mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("The vault code is 4711 and nobody else may read it.")
    (inbox / "good.txt").write_text(GOOD_TEXT)
    bad: list[BadInput] = []

    def file(name: str, data: bytes, kind: str) -> None:
        (inbox / name).write_bytes(data)
        bad.append(BadInput(kind, str(inbox / name)))

    _encodings(file)
    given = _unsupported(root, bad)
    _odd_files(root, inbox, outside, max_file_bytes, file, bad)
    _pdfs(file)
    _bundle_rows(inbox, max_file_bytes, bad)
    empty_bundle = inbox / "nothing.jsonl"
    empty_bundle.write_bytes(b"")
    (root / "empty-dir.txt").mkdir()
    bad.append(BadInput("directory without documents", str(root / "empty-dir.txt")))
    bad.append(BadInput("missing path", str(root / "missing.txt")))
    return [inbox, *given, root / "empty-dir.txt", root / "missing.txt"], bad


def _encodings(file: Callable[[str, bytes, str], None]) -> None:
    """Empty, blank, binary and wrongly encoded text files."""
    for i in range(3):
        file(f"empty-{i}.txt", b"", "empty file")
    file("blank.md", b" \n\t\n  ", "whitespace only")
    file("nul.txt", b"text\x00with\x00nul", "binary (NUL bytes)")
    file("random.txt", os.urandom(4096), "random bytes")
    file("latin1.txt", "caf\xe9 cr\xe8me br\xfbl\xe9e".encode("latin-1"), "latin-1, not UTF-8")
    file("utf16.txt", "hello world".encode("utf-16"), "UTF-16")
    file("mixed.md", b"ok line\n" + "caf\xe9".encode("cp1252") + b"\n", "mixed encodings")
    file("cp1252.markdown", "\u201cquoted\u201d".encode("cp1252"), "cp1252")


def _unsupported(root: Path, bad: list[BadInput]) -> list[Path]:
    """Files of types ingest does not read, named directly (a directory walk names them as not read)."""
    given: list[Path] = []
    for suffix in (".xlsx", ".exe", ".png", ".pptx", ".zip", ""):
        path = root / f"unsupported{suffix or '-no-suffix'}"
        path.write_bytes(b"PK\x03\x04 not text")
        given.append(path)
        bad.append(BadInput(f"unsupported type {suffix or 'none'}", str(path)))
    return given


def _odd_files(
    root: Path,
    inbox: Path,
    outside: Path,
    max_file_bytes: int,
    file: Callable[[str, bytes, str], None],
    bad: list[BadInput],
) -> None:
    """Other encodings, sizes, special files, links and names."""
    for codec in ("utf-32", "shift_jis", "gb2312", "koi8-r"):
        file(f"{codec}.txt", "日本 中文 рус".encode(codec, "ignore") + b"\xff", codec)
    file("bom-only.txt", b"\xef\xbb\xbf", "a byte-order mark and nothing else")
    file("late-nul.txt", b"fine text " * 10 + b"\x00" + b"more", "NUL after some text")
    with (inbox / "sparse-1gib.txt").open("wb") as f:
        f.truncate(1 << 30)
    bad.append(BadInput("1 GiB sparse file", str(inbox / "sparse-1gib.txt")))
    file("just-over.txt", b"a" * (max_file_bytes + 1), "one byte over the limit")
    os.mkfifo(inbox / "fifo.txt")
    bad.append(BadInput("fifo", str(inbox / "fifo.txt")))
    (inbox / "device.txt").symlink_to("/dev/zero")
    bad.append(BadInput("symlink to a device", str(inbox / "device.txt")))
    (inbox / "escape.txt").symlink_to(outside / "secret.txt")
    bad.append(BadInput("symlink out of the directory", str(inbox / "escape.txt")))
    (inbox / "dangling.txt").symlink_to(root / "nowhere.txt")
    bad.append(BadInput("dangling symlink", str(inbox / "dangling.txt")))
    (inbox / "loop-a.txt").symlink_to(inbox / "loop-b.txt")
    (inbox / "loop-b.txt").symlink_to(inbox / "loop-a.txt")
    bad += [BadInput("symlink loop", str(inbox / "loop-a.txt")), BadInput("symlink loop", str(inbox / "loop-b.txt"))]
    (inbox / "dir-loop").symlink_to(inbox, target_is_directory=True)  # never entered: no error, no hang
    (inbox / "dir-out").symlink_to(outside, target_is_directory=True)  # never entered
    file("new\nline.txt", b"", "newline in the file name")
    file("x" * 200 + ".txt", b"", "long file name")


def _pdfs(file: Callable[[str, bytes, str], None]) -> None:
    """Broken, empty, hostile and huge PDFs."""
    file("not-a.pdf", b"just text pretending", "not a PDF")
    file("truncated.pdf", _page_pdf(zlib.compress(b"BT (Hi) Tj ET"))[:120], "truncated PDF")
    file("broken-zlib.pdf", _page_pdf(b"this is not zlib data"), "broken zlib stream")
    file("no-text.pdf", _page_pdf(zlib.compress(b"0 0 m 10 10 l S")), "PDF without text")
    nested = b"[" * 20000 + b"]" * 20000
    file("nested.pdf", _page_pdf(zlib.compress(b"BT (x) Tj ET"), b"/Deep " + nested), "deeply nested PDF")
    bomb = zlib.compress(b"0" * (64 << 20), 9)  # 64 MiB of zeros in ~64 KiB
    file("bomb.pdf", _page_pdf(bomb), "decompression bomb")
    pages = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[%s]/Count 3000>>" % b" ".join(b"%d 0 R" % (i + 3) for i in range(3000)),
    ]
    pages += [b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 9 9]>>"] * 3000
    file("many-pages.pdf", _pdf(pages), "3,000 pages")
    file(
        "encrypted.pdf",
        _pdf([b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[]/Count 0>>"]).replace(
            b"/Root 1 0 R", b"/Root 1 0 R/Encrypt<</Filter/Standard/V 1/R 2/O (x)/U (y)/P -4>>"
        ),
        "encrypted PDF",
    )
    file("gzip.txt", zlib.compress(b"A" * 1_000_000), "compressed bytes named .txt")


def _bundle_rows(inbox: Path, max_file_bytes: int, bad: list[BadInput]) -> None:
    """A bundle whose every row but one is bad."""
    rows = [
        b'{"doc_id": "good-row", "text": "' + GOOD_TEXT.encode() + b'"}',
        b"{not json",
        b'["a", "list"]',
        b'{"doc_id": 7, "text": "id is a number"}',
        b'{"doc_id": "no-text"}',
        b'{"doc_id": "empty", "text": "   "}',
        b'{"doc_id": "surrogate", "text": "half \\ud800 pair"}',
        b'{"doc_id": "latin", "text": "caf\xe9"}',
        b'{"doc_id": "big", "text": "' + b"x" * (max_file_bytes + 10) + b'"}',
        b"null",
        b'{"doc_id": "',
        b'{"doc_id": "", "text": "no id"}',
        b'{"doc_id": "n", "text": 5}',
        b'{"doc_id": "l", "text": ["a", "list"]}',
        b'{"doc_id": "z", "text": null}',
        b"true",
        b'"a string"',
        b"{}",
        b'{"doc_id": "' + b"i" * 1000 + b'", "text": "id too long"}',
        b'{"doc_id": "new\\nline", "text": "control character in the id"}',
    ]
    bundle = inbox / "rows.jsonl"
    bundle.write_bytes(b"\n".join(rows) + b"\n")
    bad += [BadInput("bad bundle row", f"{bundle}:{n}") for n in range(2, len(rows) + 1)]
