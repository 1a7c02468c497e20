"""Hostile and broken documents of the types people keep: ten each of .docx, .odt, .html, .eml and .csv.

``bad_documents(folder)`` writes them and returns, for each, what reading it must give: a refusal whose reason
holds ``reason`` (one line naming the file), or a document whose text holds ``keeps`` and never ``never`` (a
script's text, an entity's expansion). Nothing here is large on disk: the bombs are small compressed members.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

import docx

SECRET = "SECRET-4711"
"""Text that must never reach a document: what a script prints, what an external entity would read."""
ODF_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
)


@dataclass(frozen=True)
class Case:
    name: str
    reason: str = ""
    """A fragment of the refusal's reason (empty: the file is read)."""
    keeps: str = ""
    never: str = SECRET


def _zip(members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


def _docx(text: str = "The pump in hall 3 was serviced.") -> bytes:
    document = docx.Document()
    document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _with_member(archive: bytes, name: str, data: bytes) -> bytes:
    """``archive`` with member ``name`` replaced by ``data``."""
    source = zipfile.ZipFile(io.BytesIO(archive))
    members = {m: source.read(m) for m in source.namelist() if m != name}
    return _zip({**members, name: data})


def _odt(body: str, meta: bytes = b"") -> bytes:
    content = f'<?xml version="1.0"?><office:document-content {ODF_NS}><office:body><office:text>{body}'
    content += "</office:text></office:body></office:document-content>"
    members = {"mimetype": b"application/vnd.oasis.opendocument.text", "content.xml": content.encode()}
    return _zip({**members, **({"meta.xml": meta} if meta else {})})


BOMB = b"\0" * (4 * 1024 * 1024)
"""Four MiB of zeros: packed about 4 KiB, a ratio of about 1,000."""
XXE = f'<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/hostname">]><w>&x;{SECRET}</w>'
LAUGHS = '<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">' + "".join(
    f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8)
)


def _docx_cases(write: Callable[[str, bytes], None]) -> list[Case]:
    good = _docx()
    write("bomb.docx", _zip({"[Content_Types].xml": b"<x/>", "word/document.xml": BOMB}))
    write("many.docx", _zip({f"m{i}.xml": b"" for i in range(2500)}, zipfile.ZIP_STORED))
    write("notzip.docx", b"this is not a zip archive at all")
    write("truncated.docx", good[: len(good) // 2])
    write("nodocument.docx", _zip({"[Content_Types].xml": b"<Types/>"}))
    write("xxe.docx", _with_member(good, "word/document.xml", XXE.encode()))
    write("laughs.docx", _with_member(good, "word/document.xml", (LAUGHS + "]><w:document>&i;</w:document>").encode()))
    write("broken.docx", _with_member(good, "word/document.xml", b"<w:document><unclosed>"))
    write("empty.docx", _docx(""))
    write("ole.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512)  # an encrypted Word file is OLE, not zip
    return [
        Case("bomb.docx", "zip bomb"),
        Case("many.docx", "archive members"),
        Case("notzip.docx", "not a zip"),
        Case("truncated.docx", "not a zip"),
        Case("nodocument.docx", "cannot be read as a Word document"),
        Case("xxe.docx", "cannot be read as a Word document"),
        Case("laughs.docx", "cannot be read as a Word document"),
        Case("broken.docx", "cannot be read as a Word document"),
        Case("empty.docx", "contains no text"),
        Case("ole.docx", "not a zip"),
    ]


def _odt_cases(write: Callable[[str, bytes], None]) -> list[Case]:
    paragraph = "<text:p>The boiler runs at 80 degrees.</text:p>"
    write("bomb.odt", _zip({"mimetype": b"x", "content.xml": BOMB}))
    write("many.odt", _zip({f"m{i}.xml": b"" for i in range(2500)}, zipfile.ZIP_STORED))
    write("notzip.odt", b"plain text pretending to be a document")
    write("nocontent.odt", _zip({"mimetype": b"application/vnd.oasis.opendocument.text"}))
    write("xxe.odt", _zip({"content.xml": XXE.encode()}))
    write("laughs.odt", _zip({"content.xml": (LAUGHS + "]><r>&i;</r>").encode()}))
    write("broken.odt", _zip({"content.xml": b"<office:document-content><unclosed>"}))
    write("nobody.odt", _zip({"content.xml": f"<office:document-content {ODF_NS}/>".encode()}))
    write("empty.odt", _odt(""))
    meta = f'<!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/hostname">]><m>&x;{SECRET}</m>'.encode()
    write("xxe-meta.odt", _odt(paragraph, meta))
    return [
        Case("bomb.odt", "zip bomb"),
        Case("many.odt", "archive members"),
        Case("notzip.odt", "not a zip"),
        Case("nocontent.odt", "no content.xml"),
        Case("xxe.odt", "cannot be read as an OpenDocument"),
        Case("laughs.odt", "cannot be read as an OpenDocument"),
        Case("broken.odt", "cannot be read as an OpenDocument"),
        Case("nobody.odt", "no text body"),
        Case("empty.odt", "contains no text"),
        Case("xxe-meta.odt", "cannot be read as an OpenDocument"),
    ]


def _html_cases(write: Callable[[str, bytes], None]) -> list[Case]:
    script = f"<script>document.write('{SECRET}')</script>"
    write("scripts.html", f"<html><head>{script}</head><body><p>Valve V-7 is red.</p>{script}</body></html>".encode())
    write("only-script.html", f"<html><body>{script}<style>p{{color:red}}</style></body></html>".encode())
    write(
        "handlers.htm", f'<body onload="{SECRET}"><p>Gate 4 <a href="javascript:{SECRET}">opens</a> at 6.</p>'.encode()
    )
    write("iframe.html", f'<p>Shift B starts at 14:00.</p><iframe srcdoc="{SECRET}"><p>{SECRET}</p></iframe>'.encode())
    write("deep.html", b"<div>" * 100_000 + b"Deep text." + b"</div>" * 100_000)
    write("binary.html", b"<p>\x00\x01\x02 binary</p>")
    write("unclosed.html", b"<p>Line <b>one <i>never closed <table><tr><td>cell text")
    write("svg.html", f"<p>Logo below.</p><svg><text>{SECRET}</text><script>{SECRET}</script></svg>".encode())
    write("noscript.html", f"<p>Plain page.</p><noscript>{SECRET}</noscript><template>{SECRET}</template>".encode())
    write("latin1.html", '<meta charset="iso-8859-1"><p>Caf\xe9 opens at 7.</p>'.encode("latin-1"))
    return [
        Case("scripts.html", keeps="Valve V-7 is red."),
        Case("only-script.html", "contains no text"),
        Case("handlers.htm", keeps="Gate 4 opens at 6."),
        Case("iframe.html", keeps="Shift B starts at 14:00."),
        Case("deep.html", "nests its elements over"),
        Case("binary.html", "looks binary"),
        Case("unclosed.html", keeps="cell text"),
        Case("svg.html", keeps="Logo below."),
        Case("noscript.html", keeps="Plain page."),
        Case("latin1.html", keeps="Café opens at 7."),
    ]


def _mail(body: str = "The seal of pump 3 is worn.") -> EmailMessage:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "karin@plant.example", "omar@plant.example", "Pump 3"
    message.set_content(body)
    return message


def _nested(depth: int) -> bytes:
    inner = "Content-Type: text/plain\r\n\r\ndeep\r\n"
    for level in range(depth):
        inner = f'Content-Type: multipart/mixed; boundary="b{level}"\r\n\r\n--b{level}\r\n{inner}\r\n--b{level}--\r\n'
    return f"From: a@x.example\r\nSubject: nest\r\nMIME-Version: 1.0\r\n{inner}".encode()


def _eml_cases(write: Callable[[str, bytes], None]) -> list[Case]:
    write("deep.eml", _nested(50))
    parts = "".join(f"--b\r\nContent-Type: text/plain\r\n\r\npart {i}\r\n" for i in range(500))
    write("parts.eml", f'Subject: many\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n{parts}--b--\r\n'.encode())
    bomb = _mail()
    bomb.add_attachment(_zip({"word/document.xml": BOMB}), "application", "octet-stream", filename="bomb.docx")
    write("bomb-attachment.eml", bytes(bomb))
    html = _mail()
    html.add_alternative(f"<p>Pump 3 is fine.</p><script>{SECRET}</script>", subtype="html")
    write("html-body.eml", bytes(html))
    write("binary.eml", b"Subject: x\r\n\r\n\x00\x00\x00")
    write("charset.eml", b"Subject: odd\r\nContent-Type: text/plain; charset=x-no-such-charset\r\n\r\nstill text")
    write("empty-body.eml", b"Subject: nothing\r\n\r\n")
    exe = _mail("Invoice attached.")
    exe.add_attachment(f"MZ {SECRET}".encode(), "application", "octet-stream", filename="invoice.exe")
    write("exe-attachment.eml", bytes(exe))
    write("headers.eml", f"Subject: a\r\nX-Injected: {SECRET}\r\n\r\nBody line.".encode())
    write("base64.eml", b"Subject: b\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!not base64 at all???")
    return [
        Case("deep.eml", "nested over"),
        Case("parts.eml", "parts; not read"),
        Case("bomb-attachment.eml", keeps="not read:"),
        Case("html-body.eml", keeps="Pump 3"),
        Case("binary.eml", "looks binary"),
        Case("charset.eml", keeps="still text"),
        Case("empty-body.eml", keeps="Subject: nothing"),
        Case("exe-attachment.eml", keeps="Invoice attached."),
        Case("headers.eml", keeps="Body line."),
        Case("base64.eml", keeps="Subject: b"),
    ]


def _csv_cases(write: Callable[[str, bytes], None]) -> list[Case]:
    write("rows.csv", b"a,b\n" + b"1,2\n" * 100_001)
    write("field.csv", b'a,b\n"' + b"x" * 200_000 + b'",2\n')
    write("nul.csv", b"a,b\n1,\x00\n")
    write("cp1252.csv", "name\nCaf\xe9".encode("cp1252"))
    write("formula.csv", b'name,cmd\nKarin,=HYPERLINK("http://x")\n')
    write("ragged.csv", b"name,role\nKarin Vogt,technician,extra\nOmar\n")
    write("header-only.csv", b"name,role\n")
    write("quotes.csv", b'name,note\nKarin,"unterminated\n')
    write("semicolon.csv", b"name;site\nIngrid Berg;Oslo\n")
    write("blank.csv", b"\n\n\n")
    return [
        Case("rows.csv", "rows; split it"),
        Case("field.csv", "cannot be read as CSV"),
        Case("nul.csv", "looks binary"),
        Case("cp1252.csv", "not valid UTF-8"),
        Case("formula.csv", keeps='cmd: =HYPERLINK("http://x")'),
        Case("ragged.csv", keeps="name: Karin Vogt; role: technician"),
        Case("header-only.csv", keeps="name | role"),
        Case("quotes.csv", keeps="name: Karin"),
        Case("semicolon.csv", keeps="name: Ingrid Berg; site: Oslo"),
        Case("blank.csv", "contains no text"),
    ]


def _span_docx(span: int, rows: int) -> bytes:
    """A table whose one cell spans ``span`` columns, continued (vMerge) over ``rows`` rows."""
    cell = f'<w:tc><w:tcPr><w:gridSpan w:val="{span}"/><w:vMerge w:val="restart"/></w:tcPr><w:p><w:r><w:t>'
    cell += "Boiler B-12 " * 200 + "</w:t></w:r></w:p></w:tc>"
    more = f'<w:tr><w:tc><w:tcPr><w:gridSpan w:val="{span}"/><w:vMerge/></w:tcPr><w:p/></w:tc></w:tr>' * rows
    table = f"<w:tbl><w:tr>{cell}</w:tr>{more}</w:tbl>"
    source = zipfile.ZipFile(io.BytesIO(_docx()))
    body = source.read("word/document.xml").decode()
    return _with_member(_docx(), "word/document.xml", body.replace("<w:body>", "<w:body>" + table, 1).encode())


def _styled_docx(styles: int, paragraphs: int) -> bytes:
    """A document of many styles and many paragraphs using the last one (a style lookup per paragraph)."""
    archive = _docx()
    source = zipfile.ZipFile(io.BytesIO(archive))
    xml = source.read("word/styles.xml").decode()
    extra = "".join(
        f'<w:style w:type="paragraph" w:styleId="S{i}"><w:name w:val="S {i}"/></w:style>' for i in range(styles)
    )
    xml = xml.replace("</w:styles>", extra + "</w:styles>")
    body = source.read("word/document.xml").decode()
    para = f'<w:p><w:pPr><w:pStyle w:val="S{styles - 1}"/></w:pPr><w:r><w:t>Line.</w:t></w:r></w:p>' * paragraphs
    return _with_member(
        _with_member(archive, "word/styles.xml", xml.encode()),
        "word/document.xml",
        body.replace("<w:body>", "<w:body>" + para, 1).encode(),
    )


def _amplification_cases(write: Callable[[str, bytes], None]) -> list[Case]:
    """Small files that once unpacked to gigabytes or took minutes (a security review's findings)."""
    write("span.docx", _span_docx(1_000_000, 1500))
    write("styles.docx", _styled_docx(3000, 3000))
    write("header.csv", b",".join(b"h" * 100_000 for _ in range(10)) + b"\n" + b"x,x,x,x,x,x,x,x,x,x\n" * 1000)
    mail = _mail("Many attachments.")
    report = _docx("Valve report. " * 64_000)  # 900,000 characters, packed to a few KiB
    for i in range(12):
        mail.add_attachment(report, "application", "octet-stream", filename=f"r{i}.docx")
    write("attachments.eml", bytes(mail))
    write("punycode.html", b'<meta charset="punycode"><p>' + b"a" * 300_000 + b"</p>")
    write("punycode.eml", b"Subject: p\r\nContent-Type: text/plain; charset=punycode\r\n\r\n" + b"a" * 300_000)
    write("comments.html", b"<div><!--</div-->" * 40_000 + b"x")
    write("sections.odt", _odt("<text:section>" * 1500 + "<text:p>Deep text.</text:p>" + "</text:section>" * 1500))
    write("nested.eml", _nested(3000))
    return [
        Case("span.docx", keeps="Boiler B-12"),
        Case("styles.docx", keeps="Line."),
        Case("header.csv", keeps="h" * 200 + ": x"),  # names cut to 200 characters: read, not multiplied
        Case("attachments.eml", keeps="(not read: expands to over"),
        Case("punycode.html", keeps="aaaa"),
        Case("punycode.eml", keeps="aaaa"),
        Case("comments.html", "nests its elements over"),
        Case("sections.odt", keeps="Deep text."),
        Case("nested.eml", "parts; not read"),  # 3,000 levels: refused before it is parsed
    ]


def bad_documents(folder: Path) -> list[Case]:
    """Write the catalogue into ``folder``; what reading each file must give."""
    folder.mkdir(parents=True, exist_ok=True)

    def write(name: str, data: bytes) -> None:
        (folder / name).write_bytes(data)

    makers = (_docx_cases, _odt_cases, _html_cases, _eml_cases, _csv_cases, _amplification_cases)
    return [c for make in makers for c in make(write)]
