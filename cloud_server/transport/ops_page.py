"""The operators' view: a small read-only web page the cloud serves (off unless ``ops_port`` is set) with its
edges (live, last heard, summaries, trust, flags) and the latest questions it routed (who asked, where they went,
what was withheld, how long it took).

Only an ``admin`` credential of the tokens file opens it (HTTP basic authentication: the credential's id and
token). It listens on ``ops_host`` (loopback by default: reach it through an SSH tunnel; basic authentication
over plain HTTP on a network sends the token in the clear). This module renders it; cloud_server.transport.
ops_server serves it.
"""

from __future__ import annotations

import html
import logging
import threading
import time
from collections import deque
from dataclasses import dataclass

from cloud_server.parts import CloudParts
from shared.core.knowledge import CloudAnswer

log = logging.getLogger(__name__)
KEPT = 100
"""Questions the page remembers (in memory only)."""


@dataclass(frozen=True)
class Routed:
    ts: float
    call: str
    asker: str
    question: str
    asked: tuple[str, ...]
    replied: tuple[str, ...]
    withheld: int
    seconds: float


class RecentQuestions:
    """The latest questions the cloud answered or checked, newest last."""

    def __init__(self) -> None:
        self._items: deque[Routed] = deque(maxlen=KEPT)
        self._lock = threading.Lock()

    def add(self, call: str, asker: str, question: str, answer: CloudAnswer | None) -> None:
        asked = tuple(answer.edges_asked) if answer else ()
        replied = tuple(answer.edges_replied) if answer else ()
        withheld = answer.withheld_words if answer else 0
        seconds = answer.timings.get("total", 0.0) if answer else 0.0
        item = Routed(time.time(), call, asker, question[:160], asked, replied, withheld, seconds)
        with self._lock:
            self._items.append(item)

    def latest(self) -> list[Routed]:
        with self._lock:
            return list(reversed(self._items))


def render(parts: CloudParts, recent: RecentQuestions, now: float) -> str:
    edge_rows = []
    for s in parts.edge_statuses():
        heard = f"{now - s.last_heartbeat:.0f} s ago" if s.last_heartbeat else "never"
        flag = "claims more than it returns" if s.flagged else ""
        cells = [s.edge_id, "yes" if s.connected else "no", heard, str(s.summaries), f"{s.trust:.2f}"]
        edge_rows.append(_row([*cells, str(s.checked), flag], "flagged" if flag else ""))
    question_rows = [_question_row(r) for r in recent.latest()]
    return PAGE.format(
        when=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(now)),
        edges="\n".join(edge_rows) or _row(["no edge has connected yet"], ""),
        questions="\n".join(question_rows) or _row(["no question yet"], ""),
    )


def _question_row(r: Routed) -> str:
    when = time.strftime("%H:%M:%S", time.gmtime(r.ts))
    route = [", ".join(r.asked) or "—", ", ".join(r.replied) or "—"]
    return _row([when, r.call, r.asker, r.question, *route, str(r.withheld), f"{r.seconds:.2f} s"])


def _row(cells: list[str], css: str = "") -> str:
    tds = "".join(f"<td>{html.escape(c)}</td>" for c in cells)
    return f'<tr class="{css}">{tds}</tr>' if css else f"<tr>{tds}</tr>"


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="10">
<title>dgrag cloud</title>
<style>
body {{ font: 14px system-ui, sans-serif; margin: 24px; color: #222; }}
table {{ border-collapse: collapse; margin-bottom: 28px; }}
th, td {{ border-bottom: 1px solid #ddd; padding: 5px 10px; text-align: left; }}
th {{ background: #f3f3f3; }} tr.flagged td {{ background: #fde2e1; }}
</style></head><body>
<h1>dgrag cloud</h1><p>{when}, refreshed every 10 s</p>
<h2>Edges</h2>
<table><tr><th>edge</th><th>live</th><th>last heard</th><th>summaries</th><th>trust</th><th>checked</th>
<th>flag</th></tr>
{edges}
</table>
<h2>Latest questions</h2>
<table><tr><th>time (UTC)</th><th>call</th><th>asker</th><th>question</th><th>edges asked</th><th>replied</th>
<th>words withheld</th><th>total</th></tr>
{questions}
</table></body></html>
"""
