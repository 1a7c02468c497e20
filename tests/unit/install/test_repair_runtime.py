"""scripts/repair_runtime.sh, the install's fallback, where a crash cannot be reproduced: the real self-test parent
runs a child that dies by SIGILL, and the script must rebuild llama.cpp with portable flags and test again.

The interpreter the script runs (DGRAG_PYTHON) is a stand-in: it runs shared.models.runtime_check's real parent
with a child that dies by SIGILL until the rebuild happened, and records the pip command instead of building."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support.paths import REPO

STAND_IN = textwrap.dedent(
    """\
    #!{python}
    import json, os, sys
    from pathlib import Path

    sys.path.insert(0, {repo!r})
    work = Path({work!r})
    args = sys.argv[1:]
    with (work / "calls.log").open("a") as log:
        log.write(" ".join(args) + "\\n")
    if args[:2] == ["-m", "pip"]:
        (work / "rebuilt").write_text(os.environ.get("CMAKE_ARGS", ""))
        sys.exit(0)
    from shared.models import runtime_check

    if args[2:] == ["--fallback-cmake-args"]:
        sys.exit(runtime_check.main(args[2:]))
    steps = "import json; print(json.dumps({{'step': 'embed and generate in turn in one worker thread'}}), flush=True)"
    crash = steps + "; import os, signal; os.kill(os.getpid(), signal.SIGILL)"
    works = steps + "; print(json.dumps({{'generated': 'blue'}}))"
    healthy = (work / "rebuilt").exists() and not (work / "still-crashes").exists()
    real_run_check = runtime_check.run_check
    runtime_check.run_check = lambda command: real_run_check([sys.executable, "-c", works if healthy else crash])
    sys.exit(runtime_check.main([]))
    """
)


def run_repair(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    python = tmp_path / "python"
    python.write_text(STAND_IN.format(python=sys.executable, repo=str(REPO), work=str(tmp_path)))
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    env = {**os.environ, "DGRAG_PYTHON": str(python)}
    return subprocess.run(
        ["bash", str(REPO / "scripts" / "repair_runtime.sh"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def calls(tmp_path: Path) -> list[str]:
    return (tmp_path / "calls.log").read_text().splitlines()


def test_a_sigill_in_the_self_test_rebuilds_portably_and_tests_again(tmp_path: Path) -> None:
    done = run_repair(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "SIGILL (illegal instruction) in the step 'embed and generate in turn in one worker thread'" in done.stderr
    assert "falling back to a portable build" in done.stdout
    log = calls(tmp_path)
    assert log[0] == "-m shared.models.runtime_check"
    assert log[1] == "-m shared.models.runtime_check --fallback-cmake-args"
    assert log[2].startswith("-m pip install") and re.search(r"--no-binary llama-cpp-python llama.cpp.python==", log[2])
    assert log[3] == "-m shared.models.runtime_check", "the rebuilt runtime must be tested again"
    assert "-DGGML_AMX_INT8=OFF" in (tmp_path / "rebuilt").read_text()
    assert "self-test generated: blue" in done.stdout


def test_a_rebuild_that_still_crashes_stops_the_install(tmp_path: Path) -> None:
    (tmp_path / "still-crashes").touch()
    done = run_repair(tmp_path)
    assert done.returncode == 1
    assert len([c for c in calls(tmp_path) if c == "-m shared.models.runtime_check"]) == 2
    assert "the model runtime does not work on this machine" in done.stderr


def test_portable_builds_first_and_tests_once(tmp_path: Path) -> None:
    done = run_repair(tmp_path, "--portable")
    assert done.returncode == 0, done.stderr
    log = calls(tmp_path)
    assert log[0].endswith("--fallback-cmake-args") and log[1].startswith("-m pip install")
    assert log[2:] == ["-m shared.models.runtime_check"]
