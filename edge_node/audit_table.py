"""An edge's audit log as ``dgrag edge audit`` prints it: the latest messages that left, and the totals."""

from __future__ import annotations

import dataclasses
import json
import time
from collections import Counter
from collections.abc import Sequence

from edge_node.policy.audit import AuditEntry


def audit_table(entries: Sequence[AuditEntry], last: int, as_json: bool = False) -> str:
    shown = list(entries)[-last:] if last > 0 else list(entries)
    if as_json:
        return "\n".join(json.dumps(dataclasses.asdict(e)) for e in shown)
    if not entries:
        return "nothing has left this edge yet"
    lines = [f"{'when (UTC)':19}  {'what':18}  {'to':10}  {'bytes':>9}  detail"]
    for e in shown:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(e.ts))
        lines.append(f"{when:19}  {e.what:18.18}  {e.to:10.10}  {e.bytes:>9}  {_detail(e)}")
    totals: Counter[tuple[str, str]] = Counter()
    sizes: Counter[tuple[str, str]] = Counter()
    for e in entries:
        totals[(e.what, e.to)] += 1
        sizes[(e.what, e.to)] += e.bytes
    lines += ["", f"all {len(entries)} messages, by kind and recipient:"]
    lines += [f"  {what} to {to}: {n} ({sizes[(what, to)]} bytes)" for (what, to), n in sorted(totals.items())]
    return "\n".join(lines)


def _detail(e: AuditEntry) -> str:
    parts = []
    if question := e.detail.get("question"):
        parts.append(f"question {str(question)[:60]!r}")
    if chunks := e.detail.get("chunks"):
        parts.append(f"{len(chunks)} chunk(s)")
    if withheld := e.detail.get("withheld"):
        parts.append(f"{withheld} withheld")
    return ", ".join(parts)
