"""The text of one document by its type: plain text (.txt, .md), PDF (pypdf), Word and OpenDocument
(office_formats), web pages, mail and tables (web_formats). Every reader refuses bad input with an
:class:`InputDocumentError` giving the reason; none runs anything the document holds.
"""

from __future__ import annotations

import io
import logging
import zlib
from pathlib import PurePath

from edge_node.ingest.office_formats import read_docx, read_odt
from edge_node.ingest.text_budget import TextBudget, over_budget
from edge_node.ingest.web_formats import read_csv, read_eml, read_html
from shared.core.errors import InputDocumentError

BINARY_SNIFF_BYTES = 8192
MAX_PDF_PAGES = 2000
"""PDFs with more pages are refused (split them); their text may also not exceed ingest.max_file_bytes."""
MAX_PDF_PAGE_CONTENT_BYTES = 8 * 1024 * 1024
"""A page whose content stream unpacks to more than this is refused before its text is parsed."""
TEXT_SUFFIXES = (".txt", ".md", ".markdown")
ATTACHMENT_SUFFIXES = (*TEXT_SUFFIXES, ".pdf", ".docx", ".odt", ".html", ".htm", ".csv")
"""What a mail's attachments are read as (a mail inside a mail is a nested part, not an attachment file)."""


def human_bytes(n: int) -> str:
    """``n`` bytes in the largest binary unit that keeps it >= 1 (e.g. "20.0 MiB", "2000 B")."""
    value = float(n)
    for unit in ("B", "KiB", "MiB"):
        if value < 1024:
            return f"{value:.0f} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def read_document(data: bytes, suffix: str, name: str, max_chars: int) -> tuple[str, str]:
    """(title, text) of a document of type ``suffix`` (the title "" where the format has none); its text may not
    exceed ``max_chars`` (a small file may unpack to far more)."""
    try:
        title, text = _read_by_type(data, suffix, name, max_chars)
    except (RecursionError, MemoryError) as exc:  # a nesting or size no reader bounds by itself
        raise InputDocumentError(
            name, f"is nested too deep or unpacks too large to read ({type(exc).__name__})"
        ) from exc
    if len(text) > max_chars:
        raise over_budget(name, max_chars)
    return title, text


def _read_by_type(data: bytes, suffix: str, name: str, max_chars: int) -> tuple[str, str]:
    if suffix == ".pdf":
        return "", read_pdf(data, name, max_chars)
    if suffix == ".docx":
        return read_docx(data, name, max_chars)
    if suffix == ".odt":
        return read_odt(data, name, max_chars)
    if suffix in (".html", ".htm"):
        _refuse_binary(data, name)
        return read_html(data, name)
    if suffix == ".eml":
        _refuse_binary(data, name)
        left = [max_chars]  # the mail's attachments share its one budget of text

        def attachment(payload: bytes, filename: str) -> str | None:
            text = _attachment(payload, filename, left[0])
            left[0] -= len(text or "")
            return text

        return read_eml(data, name, attachment)
    if suffix == ".csv":
        return read_csv(decode_text(data, name), name, max_chars)
    return "", decode_text(data, name)


def _attachment(data: bytes, filename: str, max_chars: int) -> str | None:
    """An attachment's text (at most ``max_chars``), None where no reader takes its type, or a line saying why it
    was not read (the mail itself is kept)."""
    suffix = PurePath(filename).suffix.lower()
    if suffix not in ATTACHMENT_SUFFIXES:
        return None
    if max_chars <= 0:
        return "(not read: the mail's attachments already hold as much text as a file may)"
    try:
        return read_document(data, suffix, filename, max_chars)[1]
    except InputDocumentError as exc:
        return f"(not read: {exc.reason})"


def _refuse_binary(data: bytes, name: str) -> None:
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise InputDocumentError(name, "looks binary (contains NUL bytes); only text is accepted")


def decode_text(data: bytes, name: str) -> str:
    _refuse_binary(data, name)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputDocumentError(
            name, f"is not valid UTF-8 (byte {exc.start}); convert it, e.g. iconv -t UTF-8"
        ) from exc


def read_pdf(data: bytes, name: str, max_chars: int) -> str:
    try:
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError
    except ImportError as exc:
        raise InputDocumentError(name, "reading PDFs needs pypdf; run: pip install pypdf") from exc
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # a broken PDF is reported once, as an input error
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise InputDocumentError(name, "is an encrypted PDF; decrypt it first")
        if len(reader.pages) > MAX_PDF_PAGES:
            raise InputDocumentError(name, f"has {len(reader.pages)} pages, over {MAX_PDF_PAGES}; split it")
        pages: list[str] = []
        budget = TextBudget(name, max_chars)
        for number, page in enumerate(reader.pages, start=1):
            contents = page.get_contents()
            size = len(contents.get_data()) if contents is not None else 0
            if size > MAX_PDF_PAGE_CONTENT_BYTES:
                raise InputDocumentError(
                    name,
                    f"page {number} unpacks to {human_bytes(size)} of content (a decompression bomb?); "
                    f"at most {human_bytes(MAX_PDF_PAGE_CONTENT_BYTES)} per page",
                )
            pages.append(budget.take(page.extract_text() or ""))
    except InputDocumentError:
        raise
    except (
        PyPdfError,
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
        IndexError,
        zlib.error,
        RecursionError,
        MemoryError,
        OSError,
    ) as exc:
        raise InputDocumentError(name, f"cannot be read as a PDF: {type(exc).__name__}: {exc}") from exc
    text = "\n\n".join(p.strip() for p in pages if p.strip())
    if not text:
        raise InputDocumentError(name, "PDF has no extractable text (scanned images need OCR first)")
    return text
