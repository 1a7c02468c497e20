"""The install scripts' own lines run against the checked-in constraints: a pin they cannot find stops CI at once."""

from __future__ import annotations

import re
import subprocess

from tests.support.paths import REPO

ROOT = REPO


def _script_line(script: str, prefix: str) -> str:
    for line in (ROOT / "scripts" / script).read_text(encoding="utf-8").splitlines():
        if line.startswith(prefix):
            return line
    raise AssertionError(f"{script} has no line starting with {prefix!r}")


def test_the_llama_pin_the_portable_rebuild_reads_is_the_one_pyproject_requires() -> None:
    line = _script_line("repair_runtime.sh", "LLAMA_PIN=")
    out = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", f'{line}; echo "$LLAMA_PIN"'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    match = re.fullmatch(r"llama[-_]cpp[-_]python==(\S+)", out, flags=re.IGNORECASE)
    assert match, f"repair_runtime.sh read {out!r} from constraints.txt"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'"llama-cpp-python=={match.group(1)}"' in pyproject


def test_torch_is_pinned_to_the_cpu_build_on_disk_everywhere() -> None:
    constraints = (ROOT / "constraints.txt").read_text(encoding="utf-8")
    assert re.search(r"^torch==2\.13\.0$", constraints, flags=re.MULTILINE)
    assert "pip install -q torch==2.13.0" in (ROOT / "scripts" / "install.sh").read_text(encoding="utf-8")
