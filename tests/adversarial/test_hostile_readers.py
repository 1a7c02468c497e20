"""Every reader failure refuses one file with a line naming it, never the batch; a file built to cost time or memory
is refused within the sandbox's limits (edge_node.ingest.reader_sandbox). The kinds of the trust review: zip
members marked encrypted or packed with an unknown method, a PDF with an unknown stream filter or a form drawn
many times, malformed mail headers, a punycode attachment name, and random bytes under every supported name."""

from __future__ import annotations

import io
import random
import threading
import time
import zipfile
from pathlib import Path

import pytest

from edge_node.ingest.reader_sandbox import ReaderSandbox
from edge_node.ingest.readers import RawDocument, read_paths
from shared.core.constants import SUPPORTED_SUFFIXES
from shared.core.errors import InputDocumentError
from tests.support.fakes_edge import make_service


def _docx(flag_bits: int = 0, method: int | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr(
            "word/document.xml",
            "<w:document xmlns:w='w'><w:body><w:p><w:r><w:t>x</w:t></w:r></w:p></w:body></w:document>",
        )
    raw = bytearray(out.getvalue())
    for marker, flags_at, method_at in ((b"PK\x03\x04", 6, 8), (b"PK\x01\x02", 8, 10)):
        at = raw.find(marker)
        while at >= 0:
            raw[at + flags_at] |= flag_bits
            if method is not None:
                raw[at + method_at : at + method_at + 2] = method.to_bytes(2, "little")
            at = raw.find(marker, at + 4)
    return bytes(raw)


def _pdf(stream: bytes, filters: str = "", calls: int = 0) -> bytes:
    form = b"BT /F1 12 Tf (form text) Tj ET"
    content = stream + b"/F Do " * calls
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /F 4 0 R >>"
        b" /Font << /F1 5 0 R >> >> /Contents 6 0 R >>",
        b"<< /Type /XObject /Subtype /Form /BBox [0 0 9 9] /Resources << /Font << /F1 5 0 R >> >> /Length %d >>\n"
        b"stream\n%s\nendstream" % (len(form), form),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< %s /Length %d >>\nstream\n%s\nendstream" % (filters.encode(), len(content), content),
    ]
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 7\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    return out + b"trailer << /Size 7 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref


def _mail(header: str) -> bytes:
    return f"{header}\nSubject: notes\n\nThe seal of pump 3 is worn.\n".encode()


HOSTILE = {
    "encrypted.docx": _docx(flag_bits=1),
    "unknown-method.docx": _docx(method=99),
    "filter.pdf": _pdf(b"BT (x) Tj ET", "/Filter /NoSuchDecode"),
    "from-angle.eml": _mail("From: <"),
    "from-quote.eml": _mail('From: "'),
    "to-bracket.eml": _mail("To: a@["),
    "punycode.eml": (
        b"From: a@b.c\nSubject: s\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n--B\n"
        b"Content-Type: text/plain\n\nbody text\n--B\nContent-Type: text/plain\n"
        b"Content-Disposition: attachment; filename*=punycode''%FF%FE.txt\n\nattached\n--B--\n"
    ),
}


def test_each_hostile_file_is_one_refusal_and_the_good_files_of_the_batch_are_stored(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, data in HOSTILE.items():
        (folder / name).write_bytes(data)
    (folder / "good-1.txt").write_text("Dana Smith runs the Oslo lab.", encoding="utf-8")
    (folder / "good-2.md").write_text("The Oslo lab builds welding arms.", encoding="utf-8")
    results = list(read_paths([folder], 10_000_000))
    read = {r.doc_id for r in results if isinstance(r, RawDocument)}
    assert {"docs/good-1.txt", "docs/good-2.md"} <= read
    for result in results:
        assert isinstance(result, RawDocument | InputDocumentError)
    ingest, _ = make_service(tmp_path / "edge")
    try:
        report = ingest.ingest(results)
        assert {"docs/good-1.txt", "docs/good-2.md"} <= set(report.added)
        assert all(reason.strip() and "\n" not in reason for _, reason in report.failed)
    finally:
        ingest._kb.close()


def test_a_file_built_to_cost_time_is_refused_within_the_limit() -> None:
    sandbox = ReaderSandbox(seconds=1.0)
    try:
        started = time.monotonic()
        with pytest.raises(InputDocumentError, match="took more than 1 s"):
            sandbox.read(_pdf(b"", calls=40_000), ".pdf", "forms.pdf", 10_000_000)
        assert time.monotonic() - started < 3.0
        assert sandbox.read(b"still reading", ".txt", "after.txt", 100) == ("", "still reading")
    finally:
        sandbox.close()


def test_a_reader_that_dies_mid_read_refuses_that_file_saying_so_and_the_next_read_goes_on() -> None:
    sandbox = ReaderSandbox(seconds=20.0)
    try:
        sandbox.read(b"warm", ".txt", "warm.txt", 100)
        child = sandbox._child
        assert child is not None
        threading.Timer(0.5, child.kill).start()  # as a reader's crash (a signal) would end it
        with pytest.raises(InputDocumentError, match="ended while reading it"):
            sandbox.read(_pdf(b"", calls=40_000), ".pdf", "forms.pdf", 10_000_000)
        assert sandbox.read(b"next", ".txt", "next.txt", 100) == ("", "next")
    finally:
        sandbox.close()


def test_a_file_that_needs_more_memory_than_the_ceiling_is_refused() -> None:
    sandbox = ReaderSandbox(memory_bytes=160 * 2**20)
    try:
        with pytest.raises(InputDocumentError, match=r"MB|too large"):
            sandbox.read(b"word " * 30_000_000, ".txt", "huge.txt", 10**9)
        assert sandbox.read(b"small", ".txt", "small.txt", 100) == ("", "small")
    finally:
        sandbox.close()


@pytest.mark.parametrize("suffix", SUPPORTED_SUFFIXES)
def test_random_bytes_under_any_supported_name_are_read_or_refused_never_raised(suffix: str) -> None:
    rng = random.Random(suffix)
    sandbox = ReaderSandbox()
    try:
        for size in (1, 64, 4096):
            data = bytes(rng.randrange(256) for _ in range(size))
            try:
                sandbox.read(data, suffix, f"fuzz{suffix}", 100_000)
            except InputDocumentError as exc:
                assert exc.reason
    finally:
        sandbox.close()
