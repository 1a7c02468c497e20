"""Office documents: Word (.docx, with python-docx) and OpenDocument text (.odt, its content.xml read with
defusedxml). Both are zip archives, so each is checked before it is opened: at most :data:`MAX_ENTRIES` members,
:data:`MAX_UNZIPPED_BYTES` unpacked in all and a ratio of at most :data:`MAX_RATIO` for a large member (a zip
bomb is refused by what its directory declares; Python's zipfile never unpacks more than a member declares).

Each keeps the document's title (its properties, else its first heading) and its structure as lines: headings as
``#`` lines, list items as ``- `` lines and table rows as cells joined by `` | ``.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from typing import Any

from edge_node.ingest.text_budget import TextBudget
from shared.core.errors import InputDocumentError

MAX_ENTRIES = 2000
MAX_UNZIPPED_BYTES = 128 * 1024 * 1024
MAX_RATIO = 200
"""A member over 1 MiB unpacked may be at most this many times its packed size."""
_RATIO_FROM_BYTES = 1024 * 1024
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_ODF = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
}


def checked_zip(data: bytes, name: str, kind: str) -> zipfile.ZipFile:
    """``data`` opened as a zip archive once its directory passes the limits."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise InputDocumentError(name, f"is not a {kind} file (not a zip archive: {exc})") from exc
    members = archive.infolist()
    if len(members) > MAX_ENTRIES:
        raise InputDocumentError(name, f"holds {len(members)} archive members, over {MAX_ENTRIES}; not read")
    total = sum(m.file_size for m in members)
    if total > MAX_UNZIPPED_BYTES:
        raise InputDocumentError(
            name, f"unpacks to {total:,} bytes, over {MAX_UNZIPPED_BYTES:,} (a zip bomb?); not read"
        )
    for m in members:
        if m.file_size > _RATIO_FROM_BYTES and m.file_size > MAX_RATIO * max(m.compress_size, 1):
            raise InputDocumentError(
                name, f"member {m.filename} unpacks {m.file_size // max(m.compress_size, 1)}x its size (a zip bomb?)"
            )
    return archive


def read_docx(data: bytes, name: str, max_chars: int) -> tuple[str, str]:
    """(title, text) of a Word document, at most ``max_chars`` of text. Its XML is walked once: each paragraph and
    each table cell is read as it is stored (python-docx's cell view repeats a merged cell once per column it
    spans, so a small file could unpack to gigabytes)."""
    checked_zip(data, name, "Word (.docx)").close()
    try:
        import docx
    except ImportError as exc:
        raise InputDocumentError(name, "reading .docx needs python-docx; run: pip install python-docx") from exc
    try:
        document = docx.Document(io.BytesIO(data))
        styles = _style_names(document.styles.element)
        lines = _docx_lines(document.element.body, styles, TextBudget(name, max_chars))
        title = document.core_properties.title or ""
    except (KeyError, ValueError, TypeError, AttributeError, zipfile.BadZipFile, SyntaxError) as exc:
        raise InputDocumentError(name, f"cannot be read as a Word document: {type(exc).__name__}: {exc}") from exc
    return title or _first_heading(lines), "\n".join(line for line in lines if line)


def _style_names(styles: Any) -> dict[str, str]:
    """styleId -> style name, read once (python-docx looks a paragraph's style up by scanning every style)."""
    out: dict[str, str] = {}
    for style in styles.iterchildren(_W + "style"):
        named = style.find(_W + "name")
        out[style.get(_W + "styleId", "")] = named.get(_W + "val", "") if named is not None else ""
    return out


def _docx_lines(body: Any, styles: dict[str, str], budget: TextBudget) -> list[str]:
    lines: list[str] = []
    for block in body.iterchildren(_W + "p", _W + "tbl"):
        if block.tag == _W + "p":
            lines.append(budget.take(_paragraph_line(block, styles)))
            continue
        for row in block.iter(_W + "tr"):
            cells = [" ".join(_w_text(cell).split()) for cell in row.iterchildren(_W + "tc")]
            lines.append(budget.take(" | ".join(cells)))
    return lines


def _w_text(element: Any) -> str:
    return "".join(t.text or "" if t.tag == _W + "t" else " " for t in element.iter(_W + "t", _W + "tab", _W + "br"))


def _paragraph_line(paragraph: Any, styles: dict[str, str]) -> str:
    text = " ".join(_w_text(paragraph).split())
    styled = paragraph.find(f"{_W}pPr/{_W}pStyle")
    style = styles.get(styled.get(_W + "val", ""), "") if styled is not None else ""
    if not text:
        return ""
    if style == "Title":
        return f"# {text}"
    if style.startswith("Heading"):
        level = style.removeprefix("Heading").strip()
        return f"{'#' * (int(level) + 1 if level.isdigit() else 2)} {text}"
    if style.startswith("List"):
        return f"- {text}"
    return text


def read_odt(data: bytes, name: str, max_chars: int) -> tuple[str, str]:
    """(title, text) of an OpenDocument text, at most ``max_chars`` of text."""
    from defusedxml import ElementTree
    from defusedxml.common import DefusedXmlException

    with checked_zip(data, name, "OpenDocument (.odt)") as archive:
        try:
            content = ElementTree.fromstring(archive.read("content.xml"))
            meta = ElementTree.fromstring(archive.read("meta.xml")) if "meta.xml" in archive.namelist() else None
        except KeyError as exc:
            raise InputDocumentError(name, "is not an OpenDocument text (no content.xml)") from exc
        except (ElementTree.ParseError, DefusedXmlException, zipfile.BadZipFile, ValueError) as exc:
            raise InputDocumentError(name, f"cannot be read as an OpenDocument text: {exc}") from exc
    body = content.find("office:body/office:text", _ODF)
    if body is None:
        raise InputDocumentError(name, "is not an OpenDocument text (no text body)")
    budget = TextBudget(name, max_chars)
    lines = [budget.take(line) for line in _odt_lines(body)]
    title_node = meta.find(".//dc:title", _ODF) if meta is not None else None
    title = " ".join((title_node.text or "").split()) if title_node is not None else ""
    return title or _first_heading(lines), "\n".join(line for line in lines if line)


def _odt_lines(body: Any) -> Iterator[str]:
    """The body's lines in order, walked without recursion (sections may nest deep)."""
    stack = list(reversed(list(body)))
    while stack:
        child = stack.pop()
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "h":
            level = child.get(f"{{{_ODF['text']}}}outline-level") or "1"
            yield f"{'#' * (int(level) if level.isdigit() and int(level) < 10 else 1)} {_odt_text(child)}"
        elif tag == "p":
            yield _odt_text(child)
        elif tag == "list":
            for item in child.iter(f"{{{_ODF['text']}}}list-item"):
                yield f"- {' '.join(_odt_text(p) for p in item if p.tag.endswith(('}p', '}h')))}"
        elif tag == "table":
            for row in child.iter(f"{{{_ODF['table']}}}table-row"):
                yield " | ".join(_odt_text(cell) for cell in row)
        elif tag == "section":
            stack.extend(reversed(list(child)))


def _odt_text(element: Any) -> str:
    return " ".join("".join(element.itertext()).split())


def _first_heading(lines: list[str]) -> str:
    return next((line.lstrip("#").strip() for line in lines if line.startswith("#")), "")
