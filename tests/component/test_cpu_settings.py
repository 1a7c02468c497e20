"""CPU settings of model processes: wait policy and threads before a runtime loads; the machine-wide lock."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from shared.core.errors import ConfigError
from shared.models import machine_lock as lock_module
from shared.models.cpu import SHORT_SPIN_COUNT, prepare_cpu


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for key in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "DGRAG_WAIT_POLICY", "OMP_NUM_THREADS"):
        monkeypatch.delenv(key, raising=False)
    return monkeypatch


def test_default_is_short_spins_and_the_thread_count(clean_env: pytest.MonkeyPatch) -> None:
    import os

    settings = prepare_cpu(1)
    assert settings.wait_policy == "short" and settings.threads == 1
    # ACTIVE with a bounded spin count: libgomp would otherwise throttle the spins to 100 in a process with two
    # OpenMP teams (the embedder's and the SLM's threads), and llama.cpp's threads would sleep at every barrier
    assert os.environ["GOMP_SPINCOUNT"] == str(SHORT_SPIN_COUNT) and os.environ["OMP_WAIT_POLICY"] == "ACTIVE"
    assert os.environ["OMP_NUM_THREADS"] == "1"


def test_a_policy_the_user_set_is_kept(clean_env: pytest.MonkeyPatch) -> None:
    import os

    clean_env.setenv("OMP_WAIT_POLICY", "ACTIVE")
    prepare_cpu()
    assert os.environ["OMP_WAIT_POLICY"] == "ACTIVE" and "GOMP_SPINCOUNT" not in os.environ


def test_passive_policy_by_name(clean_env: pytest.MonkeyPatch) -> None:
    import os

    clean_env.setenv("DGRAG_WAIT_POLICY", "passive")
    assert prepare_cpu().wait_policy == "passive" and os.environ["OMP_WAIT_POLICY"] == "PASSIVE"


def test_bad_settings_are_refused(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("DGRAG_WAIT_POLICY", "spin-forever")
    with pytest.raises(ConfigError, match="DGRAG_WAIT_POLICY"):
        prepare_cpu()
    with pytest.raises(ConfigError, match="negative"):
        prepare_cpu(-1)


def test_the_model_lock_makes_another_process_wait(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "models.lock"
    monkeypatch.setenv(lock_module.LOCK_ENV, str(path))
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom shared.models.machine_lock import machine_lock\n"
            "with machine_lock().held():\n    print('held', flush=True)\n    time.sleep(1.0)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**__import__("os").environ},
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    started = time.monotonic()
    with lock_module.machine_lock().held(), lock_module.machine_lock().held():  # re-entrant in one process
        waited = time.monotonic() - started
    holder.wait(timeout=10)
    assert waited > 0.5


def test_the_lock_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(lock_module.LOCK_ENV, "off")
    lock = lock_module.machine_lock()
    assert lock.path is None
    with lock.held():
        pass
