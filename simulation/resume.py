"""Resume an interrupted `dgrag sim run`.

Asking writes each answered ask to OUT/answers.partial.jsonl as it goes. A later run into the same OUT with
the same setup (bench, modes, ablations, sample, edges, indexes, the answering code and the effective
settings: the fingerprint in OUT/run/setup.json) keeps the asks whose every mode is there and asks only the
rest, so a long run can be finished in several sittings. A partial file from another setup is never mixed
in or deleted: the run stops and says what differs.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from shared.core.errors import DgragError

PARTIAL_ANSWERS = "answers.partial.jsonl"
SETUP_FILE = "setup.json"

AskKey = tuple[str, str]  # qid, asked-at edge


ANSWERING_CODE = ("edge_node", "cloud_server", "shared", "simulation.asking", "simulation.bundle")
"""The code an answer depends on (how reports are computed is not: `dgrag sim report` redoes them)."""


def code_digest(modules: Sequence[str] = ANSWERING_CODE) -> str:
    """A digest of the source of ``modules`` (a package counts with every .py file under it)."""
    digest = hashlib.sha256()
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise DgragError(f"cannot find the source of {name}; reinstall dgrag")
        origin = Path(spec.origin)
        base, files = (
            (origin.parent.parent, sorted(origin.parent.rglob("*.py")))
            if origin.name == "__init__.py"
            else (origin.parent, [origin])
        )
        for file in files:
            digest.update(file.relative_to(base).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def settings_digest(*settings: Any) -> str:
    """A digest of effective settings (dataclasses): defaults changed between sittings count too."""
    payload = json.dumps([dataclasses.asdict(s) for s in settings], sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def earlier_rows(out: Path, setup: dict[str, Any], modes: Iterable[str]) -> dict[AskKey, list[dict[str, Any]]]:
    """Rows of the asks an interrupted run with this ``setup`` finished in every mode of ``modes``
    (after :func:`claim_setup`)."""
    claim_setup(out, setup)
    return finished_asks(out / PARTIAL_ANSWERS, modes)


def claim_setup(out: Path, setup: dict[str, Any]) -> None:
    """Record ``setup`` in OUT/run/setup.json for the next resume; refuses when OUT holds an interrupted run
    of another setup (its rows would not be comparable)."""
    partial, setup_file = out / PARTIAL_ANSWERS, out / "run" / SETUP_FILE
    if partial.is_file() and partial.stat().st_size > 0:
        earlier = json.loads(setup_file.read_text(encoding="utf-8")) if setup_file.is_file() else {}
        if earlier != setup:
            differs = sorted(k for k in set(setup) | set(earlier) if setup.get(k) != earlier.get(k))
            raise DgragError(
                f"{out} holds an interrupted run with another setup (differs in: {', '.join(differs)}; 'code' and "
                "'settings' are the answering code and the effective edge/cloud settings): its rows would not be "
                f"comparable with new ones. Use another --out, or delete {partial} to start over"
            )
    setup_file.parent.mkdir(parents=True, exist_ok=True)
    setup_file.write_text(json.dumps(setup, indent=2, sort_keys=True), encoding="utf-8")


def finished_asks(partial: Path, modes: Iterable[str]) -> dict[AskKey, list[dict[str, Any]]]:
    """The rows in ``modes`` of the asks of ``partial`` that have a row in every one of them (a line cut short is
    skipped)."""
    if not partial.is_file():
        return {}
    wanted = set(modes)
    by_ask: dict[AskKey, dict[str, dict[str, Any]]] = {}
    for line in partial.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue  # the line an interruption cut short
        if isinstance(row, dict) and {"qid", "asked_at", "mode"} <= set(row):
            by_ask.setdefault((str(row["qid"]), str(row["asked_at"])), {})[str(row["mode"])] = row
    return {key: [r for m, r in rows.items() if m in wanted] for key, rows in by_ask.items() if wanted <= set(rows)}


def open_for_append(path: Path) -> Any:
    """The partial file, ready to take more rows after whatever an interruption left at its end."""
    cut_short = path.is_file() and path.stat().st_size > 0 and not path.read_bytes().endswith(b"\n")
    handle = path.open("a", encoding="utf-8")
    if cut_short:
        handle.write("\n")
    return handle
