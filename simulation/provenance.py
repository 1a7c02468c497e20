"""What a stranger needs to rerun a figure: the commit (and whether the tree had changes), the date, the command."""

from __future__ import annotations

import datetime
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _git(*args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def provenance(argv: list[str] | None = None) -> dict[str, Any]:
    """commit, dirty (uncommitted changes to tracked files), date (UTC) and the command line that ran."""
    words = list(sys.argv if argv is None else argv)
    if words and words[0].endswith(("dgrag", "__main__.py", "dgrag/cli.py")):
        words[0] = "dgrag"
    return {
        "commit": _git("rev-parse", "HEAD") or "unknown",
        "dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": shlex.join(words),
    }


def provenance_markdown(facts: dict[str, Any] | None) -> str:
    """Lines for a report's header ('' for a report made before provenance was recorded)."""
    if not facts:
        return ""
    dirty = " (with uncommitted changes)" if facts.get("dirty") else ""
    return f"- commit: `{facts.get('commit')}`{dirty}\n- date: {facts.get('date')}\n- command: `{facts.get('command')}`"
