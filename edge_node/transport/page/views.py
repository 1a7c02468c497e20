"""The owner's page as HTML: every value from a document, a question, an answer or the audit log is escaped
(``html.escape``) where it is put into the page. No inline script or style: page.js and page.css are the only ones.
"""

from __future__ import annotations

import html
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from edge_node.policy.audit import AuditEntry
from edge_node.runtime.owner_view import DocumentState, OwnerView
from shared.core.shown import shown_of
from shared.core.trace import AnswerTrace, Decision, Source

WHAT_LEFT = {
    "summary_sync": "summaries of this device's documents (all of them, after a new connection)",
    "summary_delta": "changes to this device's summaries",
    "global_query": "a question, escalated to the cloud",
    "evidence_check": "a question, to check whether another device knows more",
    "retrieval_reply": "passages (or their ids) for a question the cloud asked",
    "probe_reply": "retrieval scores for a question the cloud asked (numbers, no text)",
    "withheld": "nothing: something was withheld by this device's policy",
}
"""What each kind of audit entry sent, in plain words."""
NAV = (("/", "Ask"), ("/left", "What left this device"), ("/documents", "Documents"), ("/link", "Cloud link"))


def e(value: object) -> str:
    return html.escape(str(value), quote=True)


def layout(title: str, body: str, csrf: str, here: str) -> str:
    nav = " ".join(
        f'<a href="{href}"{" aria-current=page" if href == here else ""}>{e(name)}</a>' for href, name in NAV
    )
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f'<title>{e(title)} · dgrag</title><link rel=stylesheet href="/static/page.css">'
        '<script src="/static/page.js" defer></script></head>'
        f'<body data-csrf="{e(csrf)}"><header><nav aria-label="Sections">{nav}</nav>'
        f'<form method=post action="/logout"><input type=hidden name=csrf value="{e(csrf)}">'
        "<button>Log out</button></form></header>"
        f"<main><h1>{e(title)}</h1>{body}</main></body></html>"
    )


def login_page(csrf: str, failed: str = "") -> str:
    message = f"<p role=alert class=error>{e(failed)}</p>" if failed else ""
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Log in · dgrag</title>"
        '<link rel=stylesheet href="/static/page.css"></head><body><main><h1>This device\'s dgrag</h1>'
        f'{message}<form method=post action=/login><input type=hidden name=csrf value="{e(csrf)}">'
        "<label for=token>The edge's API token (the file api.token in its data directory)</label>"
        "<input id=token name=token type=password autocomplete=current-password required autofocus>"
        "<button>Log in</button></form></main></body></html>"
    )


def ask_form(question: str = "") -> str:
    return (
        '<form id=ask method=post action="/ask"><label for=question>Your question</label>'
        f"<textarea id=question name=question rows=3 required maxlength=2000>{e(question)}</textarea>"
        "<button>Ask</button></form>"
        "<section id=draft aria-live=polite hidden><h2>Reading…</h2><p class=draft></p></section>"
        "<section id=result aria-live=polite></section>"
    )


@dataclass(frozen=True)
class Passage:
    doc_id: str
    text: str


def answer_block(trace: AnswerTrace, own: Mapping[int, Passage], edge_id: str) -> str:
    """An answer as the page shows it: the text, the short answer, how sure, who answered, and each source with
    the passage that supports it (this device's own) and a link to the whole document."""
    shown = shown_of(trace)
    if trace.decision == Decision.CLOUD and trace.cloud is not None:
        cited = sorted({"this device" if is_own(s, edge_id) else str(s.edge_id) for s in trace.sources})
        who = "the cloud's model" + (f", citing {e(', '.join(cited))}" if cited else "")
    elif trace.decision == Decision.LOCAL:
        who = "this device's own model"
    else:
        who = "this device (unverified: the cloud could not answer)" if not trace.verified else "this device"
    parts = [
        f"<div class=answer><p class=text>{e(shown.text)}</p>",
        f"<p><strong>Short answer:</strong> <span class=short>{e(shown.short)}</span></p>" if shown.short else "",
        f"<p><strong>How sure:</strong> {e(shown.sureness)} ({shown.probability:.0%})</p>",
        f"<p><strong>Answered by:</strong> {who}</p>",
        f"<p class=note>{e(trace.note)}</p>" if trace.note else "",
        "<h2>Sources</h2>",
        _sources(trace, own, edge_id),
        "</div>",
    ]
    return "".join(parts)


def is_own(source: Source, edge_id: str) -> bool:
    """Whether ``source`` is one of this device's chunks (an answer's own sources carry no edge id)."""
    return source.edge_id in (None, "", edge_id)


def _sources(trace: AnswerTrace, own: Mapping[int, Passage], edge_id: str) -> str:
    if not trace.sources:
        return "<p>None.</p>"
    items = []
    for s in trace.sources:
        passage = own.get(s.chunk_id) if is_own(s, edge_id) else None
        if passage is not None:  # linked by this device's own id (the cloud cites it by an opaque one)
            link = f'<a href="/documents/view?id={quote(passage.doc_id, safe="")}">{e(passage.doc_id)}</a>'
            items.append(f"<li>{link} (this device)<blockquote>{e(passage.text)}</blockquote></li>")
        else:
            where = e(s.edge_id) if s.edge_id else "another device"
            items.append(f"<li>{e(s.doc_id)} on {where} (its text stays on that device)</li>")
    return f"<ul class=sources>{''.join(items)}</ul>"


def left_page(entries: Sequence[AuditEntry], level: str) -> str:
    rows = []
    for entry in reversed(entries[-200:]):
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.ts))
        said = WHAT_LEFT.get(entry.what, entry.what)
        detail = "; ".join(f"{k}: {_short(v)}" for k, v in entry.detail.items())
        rows.append(
            f"<tr><td>{e(when)}</td><td>{e(said)}</td><td>{e(entry.to)}</td><td>{entry.bytes:,}</td>"
            f"<td>{e(detail)}</td></tr>"
        )
    table = (
        "<table><caption>Newest first (the last 200)</caption><thead><tr><th scope=col>When</th>"
        "<th scope=col>What left</th><th scope=col>To</th><th scope=col>Bytes</th><th scope=col>What it carried"
        f"</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        if rows
        else "<p>Nothing has left this device yet.</p>"
    )
    sent = sum(x.bytes for x in entries)
    return (
        f"<p>This device answers under the privacy level <strong>{e(level)}</strong>. In all, {len(entries):,} "
        f"messages left it ({sent:,} bytes). Each is listed here as this device's audit log records it.</p>{table}"
    )


def _short(value: object, limit: int = 160) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    text = ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _document_item(d: DocumentState, csrf: str, sent: str) -> str:
    """One document: its title, its file name (its id here), when it was added, its size, whether a summary covers
    it, and its delete button."""
    added = time.strftime("%Y-%m-%d %H:%M", time.localtime(d.stored_at)) if d.stored_at else "?"
    title = f"<b>{e(d.title)}</b> " if d.title and d.title != d.doc_id else ""
    return (
        f'<li>{title}<a href="/documents/view?id={quote(d.doc_id, safe="")}">{e(d.doc_id)}</a> '
        f"<span class=meta>added {added}; {d.chars:,} characters; "
        f"{e('in a summary ' + sent if d.summarised else 'in no summary yet')}</span>"
        f'<form method=post action="/documents/delete" class=inline><input type=hidden name=csrf value="{e(csrf)}">'
        f'<input type=hidden name=doc_id value="{e(d.doc_id)}">'
        f'<button aria-label="Delete {e(d.doc_id)}">Delete</button></form></li>'
    )


def documents_page(
    view: OwnerView, csrf: str, message: str, allowed: Sequence[str], max_bytes: int, wanted: str = ""
) -> str:
    """The documents (those whose title or file name holds ``wanted``, any case, where it is set), the upload form
    and what the cloud holds."""
    notice = f"<p role=status class=notice>{e(message)}</p>" if message else ""
    state = ("summaries are being refreshed" if view.summaries_pending else "summarised") + (
        "; " + f"{view.publications_pending} change(s) wait for the cloud" if view.publications_pending else ""
    )
    sent = "sent to the cloud" if not view.publications_pending else "waiting to be sent to the cloud"
    key = wanted.strip().casefold()
    shown = [d for d in view.documents if key in d.doc_id.casefold() or key in d.title.casefold()]
    docs = "".join(_document_item(d, csrf, sent) for d in shown)
    filtered = f" ({len(shown)} holding {e(wanted.strip())})" if key else ""
    search = (
        '<form method=get action="/documents" role=search><label for=q>Find by title or file name</label>'
        f'<input id=q name=q value="{e(wanted)}" maxlength=200><button>Find</button></form>'
    )
    summaries = "".join(
        f"<li><p>{e(s.text)}</p><p class=meta>{e(s.id)} v{s.version}: {e(', '.join(s.top_entities))}</p></li>"
        for s in view.summaries
    )
    return (
        f"{notice}<p>{len(view.documents)} document(s), {view.chunks} passage(s): indexed and {e(state)}.</p>"
        f'<form id=upload method=post action="/documents/upload" enctype="multipart/form-data">'
        f'<input type=hidden name=csrf value="{e(csrf)}"><label for=file>Add or replace documents '
        f"({e(' '.join(allowed))}, at most {max_bytes // 1024:,} KiB each)</label>"
        "<input id=file name=file type=file multiple>"
        "<label for=folder>Or every document of a folder</label>"
        "<input id=folder name=file type=file webkitdirectory multiple>"
        "<button>Add</button><progress id=progress max=100 value=0 hidden></progress></form>"
        f"<h2>Documents on this device{filtered}</h2>{search}<ul class=docs>{docs or '<li>None.</li>'}</ul>"
        "<h2>What the cloud holds about this device</h2><p>The cloud keeps only these summaries. Passages it is sent "
        "for a question are listed under What left this device.</p>"
        f"<ul class=summaries>{summaries or '<li>No summary yet.</li>'}</ul>"
    )


def document_page(doc_id: str, text: str) -> str:
    return f'<p><a href="/documents">Back to the documents</a></p><h2>{e(doc_id)}</h2><pre class=doc>{e(text)}</pre>'


def link_page(address: str, connected: bool, last_error: str, last_sync: float | None) -> str:
    if not address:
        return "<p>No cloud is configured: every question is answered on this device.</p>"
    synced = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(last_sync)) if last_sync else "never"
    state = "connected" if connected else "not connected"
    error = f"<p>Last problem: {e(last_error)}</p>" if last_error and not connected else ""
    return (
        f"<p>Cloud: <strong>{e(address)}</strong>, {state}.</p><p>Last summaries sent: {e(synced)}.</p>{error}"
        "<p>Trust: the cloud does not report to a device how far it believes it; its operators see it with "
        "<code>dgrag cloud edges</code>.</p>"
    )
