"""The edges a cloud knows, as ``dgrag cloud edges`` prints them."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Sequence

from cloud_server.sessions.edge_registry import EdgeStatus


def edges_table(edges: Sequence[EdgeStatus], as_json: bool = False, now: float | None = None) -> str:
    if as_json:
        return "\n".join(json.dumps(dataclasses.asdict(e)) for e in edges)
    if not edges:
        return "no edge has connected since the cloud started"
    at = time.time() if now is None else now
    rows = [("edge", "live", "last heard", "summaries", "trust", "over-claim", "checked", "")]
    for e in edges:
        heard = f"{at - e.last_heartbeat:.0f} s ago" if e.last_heartbeat else "never"
        flag = "FLAGGED: claims more than it returns" if e.flagged else ""
        live = "yes" if e.connected else "no"
        rows.append(
            (e.edge_id, live, heard, str(e.summaries), f"{e.trust:.2f}", f"{e.over_claim:.2f}", str(e.checked), flag)
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in rows)
