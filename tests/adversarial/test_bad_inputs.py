"""62 hostile or broken inputs through the real `dgrag edge ingest` (real models): each is named on one line,
nothing crashes or hangs, the good documents go in, and a second run loses nothing."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from shared.cli.console import one_line
from shared.core.errors import ConfigError
from simulation.processes import dgrag_command
from tests.support.bad_inputs import make_bad_inputs

MAX_FILE_BYTES = 1 << 20
RUN_TIMEOUT_S = 600

pytestmark = pytest.mark.integration


def _dgrag(*args: str) -> subprocess.CompletedProcess[str]:
    command = dgrag_command()
    env = {**os.environ, "DGRAG__INGEST__MAX_FILE_BYTES": str(MAX_FILE_BYTES), "DGRAG__SUMMARY__MAX_TOKENS": "48"}
    return subprocess.run(
        [*command, "edge", *args], capture_output=True, text=True, env=env, timeout=RUN_TIMEOUT_S, check=False
    )


def _stats(data_dir: Path) -> dict[str, Any]:
    done = _dgrag("stats", "--data-dir", str(data_dir), "--json")
    assert done.returncode == 0, done.stderr
    stats: dict[str, Any] = json.loads(done.stdout)
    return stats


def test_every_bad_input_is_one_clear_line_and_nothing_is_lost(tmp_path: Path) -> None:
    paths, bad = make_bad_inputs(tmp_path / "in", MAX_FILE_BYTES)
    assert len(bad) >= 60
    data_dir = tmp_path / "edge"
    done = _dgrag("ingest", "--data-dir", str(data_dir), *map(str, paths))
    assert done.returncode == 1, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    skipped = [line for line in done.stderr.splitlines() if line.startswith("dgrag: skipped ")]
    for item in bad:
        named = [line for line in skipped if line.startswith(f"dgrag: skipped {one_line(item.where)}: ")]
        assert len(named) == 1, f"{item.kind}: {item.where!r} named {len(named)} times"
    assert len(skipped) == len(bad), "an input that should have been read was skipped"
    assert "4711" not in done.stderr  # the secret behind the escaping symlink was never read
    first = _stats(data_dir)
    assert first["documents"] == 2 and first["summaries"] >= 1
    again = _dgrag("ingest", "--data-dir", str(data_dir), *map(str, paths))
    assert again.returncode == 1 and "Traceback" not in again.stderr
    assert "2 unchanged" in again.stdout
    assert _stats(data_dir) == first


def test_dgrag_certs_never_writes_through_a_planted_symlink_nor_takes_a_dangling_ca_for_none(tmp_path: Path) -> None:
    """Trust round 3, finding 8: a certificate file planted as a symlink is replaced, its target untouched; a
    dangling ca.pem symlink is a CA already there (reissuing would orphan what was handed out)."""
    from shared.transport.certs import make_certs

    target = tmp_path / "precious.txt"
    target.write_text("the owner's file")
    out = tmp_path / "tls"
    out.mkdir()
    (out / "cloud.pem").symlink_to(target)
    make_certs(out, ["cloud.example.org"], ["edge-1"])
    assert target.read_text() == "the owner's file"
    assert not (out / "cloud.pem").is_symlink() and b"BEGIN CERTIFICATE" in (out / "cloud.pem").read_bytes()
    dangling = tmp_path / "tls2"
    dangling.mkdir()
    (dangling / "ca.pem").symlink_to(tmp_path / "nowhere.pem")
    with pytest.raises(ConfigError, match="already holds a CA"):
        make_certs(dangling, ["cloud.example.org"], ["edge-1"])
