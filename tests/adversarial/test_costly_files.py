"""Small files built to cost minutes of CPU or gigabytes of memory, read at the shipped limits (5 s, 448 MB): each
is read or refused within the time limit and a margin, never raising anything else. The kinds of the fourth trust
review: punycode encoded words in a mail's Subject (quadratic to decode), office XML of millions of tiny elements,
and a mail of thousands of parts without a Content-Type."""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Callable

import pytest

from edge_node.ingest.reader_sandbox import READ_SECONDS, ReaderSandbox
from shared.core.errors import InputDocumentError

MARGIN_S = 2.0
"""Starting the child again and a loaded machine: a refusal may come this long after the limit."""


def _punycode_subject(kb: int) -> bytes:
    """One encoded word of ``kb`` KB in the punycode charset: decoding it takes time quadratic in its length."""
    return f"From: a@b.c\nSubject: =?punycode?q?{'ab' * (kb * 512)}?=\n\nbody\n".encode()


def _tiny_elements(target: int, paragraph: str) -> str:
    """About ``target`` characters of tiny XML elements, with a little variety so the zip ratio stays ordinary."""
    parts, total, n = [], 0, 0
    while total < target:
        chunk = paragraph * 40 + f"<!-- {n:08X} -->"
        parts.append(chunk)
        total += len(chunk)
        n += 1
    return "".join(parts)


def _zipped(members: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return out.getvalue()


def _large_docx() -> bytes:
    body = _tiny_elements(60_000_000, "<w:p><w:r><w:t>x</w:t></w:r></w:p>")
    package = "http://schemas.openxmlformats.org/package/2006"
    main = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
    document = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
    ns = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    return _zipped(
        {
            "[Content_Types].xml": f'<Types xmlns="{package}/content-types"><Default Extension="xml" '
            f'ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="{main}"/></Types>',
            "_rels/.rels": f'<Relationships xmlns="{package}/relationships"><Relationship Id="r1" '
            f'Type="{document}" Target="word/document.xml"/></Relationships>',
            "word/document.xml": f'<w:document xmlns:w="{ns}"><w:body>{body}</w:body></w:document>',
        }
    )


def _large_odt() -> bytes:
    body = _tiny_elements(60_000_000, "<text:p>x</text:p>")
    office = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    text = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    content = (
        f'<office:document-content xmlns:office="{office}" xmlns:text="{text}"><office:body><office:text>'
        f"{body}</office:text></office:body></office:document-content>"
    )
    return _zipped({"mimetype": "application/vnd.oasis.opendocument.text", "content.xml": content})


def _untyped_parts(parts: int, size: int) -> bytes:
    body = "".join(f"--B\n\n{'word ' * (size // 5)}\n" for _ in range(parts))
    return f"From: a@b.c\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n{body}--B--\n".encode()


COSTLY: dict[str, tuple[Callable[[], bytes], str]] = {
    "punycode-subject.eml": (lambda: _punycode_subject(320), ".eml"),
    "large-xml.docx": (_large_docx, ".docx"),
    "large-xml.odt": (_large_odt, ".odt"),
    "untyped-parts.eml": (lambda: _untyped_parts(5_000, 3_000), ".eml"),
}


@pytest.mark.parametrize("name", sorted(COSTLY))
def test_a_costly_file_is_read_or_refused_within_the_shipped_limit(
    name: str, record_property: Callable[[str, object], None]
) -> None:
    build, suffix = COSTLY[name]
    data = build()
    sandbox = ReaderSandbox()
    try:
        sandbox.read(b"warm", ".txt", "warm.txt", 100)  # the child's start is not the file's cost
        started = time.monotonic()
        try:
            sandbox.read(data, suffix, name, 10_000_000)
            outcome = "read"
        except InputDocumentError as exc:
            outcome = "refused"
            assert name in str(exc) and "\n" not in str(exc)
        seconds = time.monotonic() - started
        record_property("figure", f"{len(data) // 1024:,} KB {outcome} in {seconds:.1f} s")
        assert seconds < READ_SECONDS + MARGIN_S
        assert sandbox.read(b"next", ".txt", "next.txt", 100) == ("", "next"), "the next file is read"
    finally:
        sandbox.close()
