"""A simulation's process that dies by a signal is explained in words, with the repair, after its log."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from shared.core.errors import DgragError
from simulation.processes import Server

SIGILL_CHILD = "import os, signal; print('loading the model', flush=True); os.kill(os.getpid(), signal.SIGILL)"


def test_a_server_dying_of_sigill_names_the_signal_and_the_repair(tmp_path: Path) -> None:
    server = Server("edge-business", [], tmp_path, dict(os.environ), command=[sys.executable, "-c", SIGILL_CHILD])
    with pytest.raises(DgragError) as caught:
        server.wait_ready(timeout=60)
    said = str(caught.value)
    assert said.startswith("the log of edge-business ends:\nloading the model\n")
    assert said.splitlines()[-1].startswith("edge-business died of SIGILL (illegal instruction)")
    assert "repair_runtime.sh" in said and "-4" not in said
