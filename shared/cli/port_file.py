"""Tell a parent process which port a server bound (port 0 picks a free one)."""

from __future__ import annotations

import os
from pathlib import Path


def write_port_file(path: Path | None, port: int) -> None:
    """Write ``port`` to ``path`` atomically (readers never see a half-written file)."""
    if path is None:
        return
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(f"{port}\n", encoding="utf-8")
    os.replace(tmp, path)
