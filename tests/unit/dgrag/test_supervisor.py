"""The ``dgrag`` command's supervisor: model commands run in a child whose death by a signal is explained."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dgrag.supervisor import runs_models, supervise


@pytest.mark.parametrize(
    ("args", "supervised"),
    [
        (["edge", "ingest", "--data-dir", "d", "docs"], True),
        (["edge", "serve", "--data-dir", "d"], True),
        (["cloud", "serve"], True),
        (["sim", "run", "--bench", "b"], True),
        (["edge", "ask", "--server", "a", "q"], False),
        (["edge", "ingest", "--help"], False),
        (["models", "fetch", "x"], False),
        ([], False),
    ],
)
def test_which_commands_run_in_a_child(args: list[str], supervised: bool) -> None:
    assert runs_models(args) is supervised


def test_a_child_dying_of_sigill_is_named_in_words_with_the_repair(capsys: pytest.CaptureFixture[str]) -> None:
    code = supervise(
        [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGILL)"], "dgrag edge ingest"
    )
    assert code == 128 + 4
    said = capsys.readouterr().err
    assert said.startswith("dgrag: dgrag edge ingest died of SIGILL (illegal instruction)")
    assert "repair_runtime.sh" in said and "exit -4" not in said


def test_an_exit_code_passes_through_without_a_word(capsys: pytest.CaptureFixture[str]) -> None:
    assert supervise([sys.executable, "-c", "import sys; sys.exit(3)"], "x") == 3
    assert capsys.readouterr().err == ""


def test_a_stop_on_purpose_needs_no_explanation(capsys: pytest.CaptureFixture[str]) -> None:
    code = supervise([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"], "x")
    assert code == 128 + 15 and capsys.readouterr().err == ""


def test_sigterm_to_the_parent_reaches_the_child_which_stops_gracefully() -> None:
    child = (
        "import signal, sys, time; signal.signal(signal.SIGTERM, lambda *a: sys.exit(7)); "
        "print('ready', flush=True); time.sleep(60)"
    )
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import sys; from dgrag.supervisor import supervise; "
            f"sys.exit(supervise([sys.executable, '-c', {child!r}], 'x'))",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None and parent.stdout.readline().strip() == "ready"
    parent.terminate()
    assert parent.wait(timeout=30) == 7
