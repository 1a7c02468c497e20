"""Where the cloud keeps what it learned about edges' claims across restarts (``query.trust_file``).

One JSON object: per edge id, its average over-claim and how many replies were checked. Never text, never a
score of a question. Written whole to a temporary file and renamed over the old one, so a crash leaves the
previous state; a file that does not hold what this writes is refused with its name, not half-read.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

from shared.core.errors import ConfigError

MAX_EDGES = 100_000


def load_trust(path: Path) -> dict[str, tuple[float, int]]:
    """Per edge id: (average over-claim, observations), as :func:`save_trust` wrote them; {} when there is no file."""
    if not path.is_file():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        records = {str(e): (float(r["over_claim"]), int(r["checked"])) for e, r in raw["edges"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        wrong = f"query.trust_file {path} is not a trust file this cloud wrote ({exc}); move it away"
        raise ConfigError(wrong) from exc
    if len(records) > MAX_EDGES or any(not (math.isfinite(o) and 0 <= o <= 1 and n >= 0) for o, n in records.values()):
        raise ConfigError(f"query.trust_file {path} holds values out of range; move it away to start afresh")
    return records


def save_trust(path: Path, records: dict[str, tuple[float, int]]) -> None:
    """Write ``records`` to ``path`` in one step."""
    body = {"edges": {e: {"over_claim": round(o, 6), "checked": n} for e, (o, n) in sorted(records.items())}}
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(body, out, indent=1)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
