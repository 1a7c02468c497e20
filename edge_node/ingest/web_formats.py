"""Web pages (.html/.htm, parsed with selectolax's lexbor engine), e-mail (.eml, the standard library's parser)
and tables (.csv).

A page keeps its title and its structure as lines (headings as ``#`` lines, list items as ``- `` lines, table
rows as cells joined by `` | ``); scripts, styles and other code are dropped unread, never indexed. A mail keeps
its subject as title, its sender, recipients and date, its body (plain text, else its HTML) and the text of
each attachment a reader takes (``attachment``), up to :data:`MAX_MIME_DEPTH` levels of nesting and
:data:`MAX_MIME_PARTS` parts. A table keeps its header, each row as ``column: value`` pairs, up to
:data:`MAX_CSV_ROWS` rows.
"""

from __future__ import annotations

import codecs
import csv
import email
import email.policy
import io
import re
from collections.abc import Callable
from email.message import EmailMessage, Message, MIMEPart
from html.parser import HTMLParser

from edge_node.ingest.text_budget import TextBudget
from shared.core.errors import InputDocumentError

MAX_MIME_DEPTH = 8
MAX_MIME_PARTS = 200
MAX_CSV_ROWS = 100_000
MAX_COLUMN_NAME = 200
"""Characters of a column's name kept (every row repeats it)."""
TEXT_ENCODINGS = frozenset(
    "ascii utf-8 utf-16 utf-16-le utf-16-be latin-1 iso8859-2 iso8859-3 iso8859-4 iso8859-5 iso8859-6 iso8859-7 "
    "iso8859-8 iso8859-9 iso8859-10 iso8859-13 iso8859-14 iso8859-15 cp1250 cp1251 cp1252 cp1253 cp1254 cp1255 "
    "cp1256 cp1257 cp1258 koi8-r koi8-u shift_jis euc_jp iso2022_jp gb2312 gbk gb18030 big5 euc_kr".split()
)
"""The text encodings a page or a mail may declare (by Python's codec name); any other, such as punycode, whose
decoder takes time growing with the square of the text, is read as UTF-8 instead."""
DROPPED = "script, style, noscript, template, iframe, object, embed, svg, canvas, head"
BLOCKS = {"p", "div", "section", "article", "main", "header", "footer", "aside", "nav", "blockquote", "pre"}
BLOCKS |= {"ul", "ol", "dl", "dt", "dd", "figure", "figcaption", "table", "thead", "tbody", "caption", "br", "hr"}
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
MAX_HTML_DEPTH = 1000
"""Block elements nested deeper than this are refused: the parser's time grows with the square of such nesting
(100,000 nested divs took 10 s), and no page a person keeps nests more than a few hundred."""
NESTING_TAGS = frozenset(
    "div section article aside nav main header footer blockquote ul ol dl form fieldset details figure".split()
)
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_-]+)""", re.IGNORECASE)
Attachment = Callable[[bytes, str], str | None]
"""Reads an attachment's bytes by its file name: its text, or None where no reader takes that type."""


def read_html(data: bytes, name: str) -> tuple[str, str]:
    """(title, text) of a web page."""
    try:
        from selectolax.lexbor import LexborHTMLParser
    except ImportError as exc:
        raise InputDocumentError(name, "reading web pages needs selectolax; run: pip install selectolax") from exc
    text = _decoded(data)
    _check_depth(text, name)
    tree = LexborHTMLParser(text)
    title_node = tree.css_first("title")
    title = " ".join(title_node.text().split()) if title_node is not None else ""
    tree.strip_tags([t.strip() for t in DROPPED.split(",")])
    root = tree.body or tree.root
    lines = _html_lines(root) if root is not None else []
    if not title:
        title = next((line.lstrip("#").strip() for line in lines if line.startswith("#")), "")
    return title, "\n".join(lines)


def _check_depth(text: str, name: str) -> None:
    """Refuse a page whose block elements nest deeper than :data:`MAX_HTML_DEPTH`, counted by the standard
    library's tokenizer (comments and attribute values are not tags), in time linear in the page."""
    counter = _DepthCounter()
    try:
        counter.feed(text)
    except _TooDeep:
        raise InputDocumentError(name, f"nests its elements over {MAX_HTML_DEPTH} deep; not read") from None


class _TooDeep(Exception):
    pass


class _DepthCounter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in NESTING_TAGS:
            self.depth += 1
            if self.depth > MAX_HTML_DEPTH:
                raise _TooDeep

    def handle_endtag(self, tag: str) -> None:
        if tag in NESTING_TAGS:
            self.depth = max(self.depth - 1, 0)


def text_encoding(label: str) -> str | None:
    """Python's codec for the charset ``label`` when it is a text encoding of :data:`TEXT_ENCODINGS`, else None."""
    try:
        codec = codecs.lookup(label).name
    except LookupError:
        return None
    return codec if codec in TEXT_ENCODINGS else None


def _decoded(data: bytes) -> str:
    """A page's text in the charset its ``<meta>`` or BOM declares, else UTF-8, else Windows-1252."""
    declared = _CHARSET.search(data[:4096])
    named = text_encoding(declared.group(1).decode("ascii")) if declared else None
    for encoding in ([named] if named else []) + ["utf-8-sig", "cp1252"]:
        try:
            return data.decode(encoding)
        except (LookupError, UnicodeDecodeError):
            continue
    return data.decode("utf-8", errors="replace")


def _html_lines(root: object) -> list[str]:
    """The page's lines in document order, walked without recursion (a page nested 100,000 deep is read too)."""
    lines: list[str] = []
    current: list[str] = []

    def flush(prefix: str = "") -> None:
        text = " ".join("".join(current).split())
        if text:
            lines.append(prefix + text)
        current.clear()

    stack: list[tuple[object, bool]] = [(root, False)]
    while stack:
        node, closing = stack.pop()
        tag = getattr(node, "tag", "")
        if closing:
            if tag in HEADINGS:
                flush("#" * HEADINGS[tag] + " ")
            elif tag == "li":
                flush("- ")
            elif tag in ("td", "th"):
                current.append(" | ")
            elif tag == "tr" or tag in BLOCKS:
                flush()
            continue
        if tag == "-text":
            current.append(getattr(node, "text_content", "") or "")
            continue
        if tag in HEADINGS or tag in ("li", "tr") or tag in BLOCKS:
            flush()
        stack.append((node, True))
        children = list(node.iter(include_text=True))  # type: ignore[attr-defined]
        stack.extend((child, False) for child in reversed(children))
    flush()
    return [line.removesuffix(" |") for line in lines]


def read_eml(data: bytes, name: str, attachment: Attachment) -> tuple[str, str]:
    """(subject, text) of a mail, its attachments read by ``attachment``."""
    if data.lower().count(b"content-type:") > MAX_MIME_PARTS:
        raise InputDocumentError(name, f"mail has over {MAX_MIME_PARTS} parts; not read")
    message = email.message_from_bytes(data, policy=email.policy.default)
    _check_nesting(message, name)
    assert isinstance(message, EmailMessage)
    subject = " ".join(str(message.get("subject", "")).split())
    lines = [f"{h}: {' '.join(str(message[h]).split())}" for h in ("From", "To", "Cc", "Date", "Subject") if message[h]]
    body = message.get_body(preferencelist=("plain", "html"))
    if body is not None:
        content = _content(body, name)
        lines += ["", read_html(content.encode(), name)[1] if body.get_content_type() == "text/html" else content]
    for part in message.iter_attachments():
        filename = part.get_filename() or ""
        payload = part.get_payload(decode=True)
        if not filename or not isinstance(payload, bytes):
            continue
        text = attachment(payload, filename)
        if text:
            lines += ["", f"## Attachment: {filename}", text]
    return subject, "\n".join(lines).strip()


def _content(part: MIMEPart, name: str) -> str:
    """A body part's text; a charset that is not a known text encoding is read as UTF-8, bad bytes replaced."""
    charset = part.get_content_charset()
    if charset is None or text_encoding(charset):
        try:
            return str(part.get_content())
        except (LookupError, UnicodeError):
            pass
        except ValueError as exc:
            raise InputDocumentError(name, f"mail body cannot be decoded: {exc}") from exc
    payload = part.get_payload(decode=True)
    return payload.decode("utf-8", errors="replace") if isinstance(payload, bytes) else ""


def _check_nesting(message: Message, name: str) -> None:
    """Refuse a mail nested deeper than :data:`MAX_MIME_DEPTH` or of more than :data:`MAX_MIME_PARTS` parts."""
    stack, parts = [(message, 1)], 0
    while stack:
        part, depth = stack.pop()
        parts += 1
        if depth > MAX_MIME_DEPTH:
            raise InputDocumentError(name, f"mail is nested over {MAX_MIME_DEPTH} levels deep; not read")
        if parts > MAX_MIME_PARTS:
            raise InputDocumentError(name, f"mail has over {MAX_MIME_PARTS} parts; not read")
        if part.is_multipart():
            payload = part.get_payload()
            stack.extend((p, depth + 1) for p in payload if isinstance(p, Message))


def read_csv(text: str, name: str, max_chars: int) -> tuple[str, str]:
    """(title, text) of a table: its header line, then each row as ``column: value`` pairs, at most ``max_chars``
    (each row repeats the header's names, so a header of long names would multiply a small file)."""
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows = csv.reader(io.StringIO(text), dialect)
    lines: list[str] = []
    try:
        budget = TextBudget(name, max_chars)
        header = [" ".join(h.split())[:MAX_COLUMN_NAME] for h in next(rows, [])]
        lines.append(budget.take(" | ".join(header)))
        for number, row in enumerate(rows, start=1):
            if number > MAX_CSV_ROWS:
                raise InputDocumentError(name, f"has over {MAX_CSV_ROWS:,} rows; split it")
            cells = zip(header, row, strict=False)  # a row longer than the header keeps its named cells
            pairs = [f"{h or f'column {i + 1}'}: {' '.join(v.split())}" for i, (h, v) in enumerate(cells)]
            lines.append(budget.take("; ".join(p for p in pairs if not p.endswith(": "))))
    except csv.Error as exc:
        raise InputDocumentError(name, f"cannot be read as CSV: {exc}") from exc
    return "", "\n".join(line for line in lines if line)
