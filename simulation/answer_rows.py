"""Read a simulation's answer rows (answers.jsonl, or answers.jsonl.gz as committed under docs/results)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from shared.core.errors import DgragError


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Every JSON row of ``path``; a clear error naming the line when one is not a JSON object."""
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise DgragError(f"{path} does not exist; pass a simulation's answers.jsonl(.gz)") from exc
    try:
        text = gzip.decompress(data).decode("utf-8") if path.suffix == ".gz" else data.decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise DgragError(f"{path} is not UTF-8 JSON lines (gzipped when it ends in .gz): {exc}") from exc
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise DgragError(f"{path}:{number}: not a JSON row ({exc})") from exc
        if not isinstance(row, dict):
            raise DgragError(f"{path}:{number}: a row must be a JSON object")
        rows.append(row)
    return rows


def write_rows(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """Write ``rows`` as JSON lines (gzipped when ``path`` ends in .gz), replacing the file in one step."""
    data = "".join(json.dumps(row) + "\n" for row in rows).encode("utf-8")
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)
    temporary.replace(path)


def find_answers(run_dir: Path) -> Path:
    """answers.jsonl or answers.jsonl.gz of a run directory."""
    for name in ("answers.jsonl", "answers.jsonl.gz"):
        if (run_dir / name).is_file():
            return run_dir / name
    raise DgragError(f"{run_dir} has no answers.jsonl(.gz); pass the --out directory of a finished `dgrag sim run`")
