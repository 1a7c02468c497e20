"""`dgrag models serve`: two replicas of a model behind Ray Serve on loopback, in a process of their own. One
replica's model server is killed while questions are being read, and every question is still answered (Serve
routes the retries to the replica that is up, and starts another)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from importlib.util import find_spec
from pathlib import Path

import pytest

from shared.config import ModelConfig
from shared.models.openai_backend import OpenAIGenerator
from shared.models.replicas import free_port
from shared.models.weights import CACHE_ENV, model_cache
from shared.reading.answer_format import Sampling
from shared.reading.read import read_passages
from shared.reading.span_reader import Passage

pytestmark = [
    pytest.mark.integration,
    # found, not imported: Ray Serve imported into the test process changes how later tests' Ray authenticates
    pytest.mark.skipif(
        find_spec("ray") is None or find_spec("grpc_reflection") is None,
        reason="Ray Serve is not installed: pip install -e '.[dev]'",
    ),
]

PASSAGE = Passage(1, "Acme Robotics builds welding arms in its Berlin plant. Dana Smith has run it since 2019.", "a")
QUESTIONS = [
    "Where does Acme Robotics build welding arms?",
    "Who runs the Berlin plant?",
    "Since when has Dana Smith run the plant?",
    "What does Acme Robotics build?",
    "Does Acme Robotics build welding arms?",
    "Which company has a plant in Berlin?",
]
ALIAS = f"replica-test-{uuid.uuid4().hex[:8]}"
"""The served model's name, also how this test finds its servers among the machine's processes."""


def _servers() -> list[int]:
    """The process ids of this test's model servers."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            line = (entry / "cmdline").read_bytes() if entry.name.isdigit() else b""
            if ALIAS.encode() in line and (b"llama-server" in line or b"llama_cpp.server" in line):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.fixture(scope="module")
def replicas() -> Iterator[str]:
    port = free_port()
    home = Path(tempfile.mkdtemp(prefix="replicas-"))  # short: Ray's socket paths must fit in 107 bytes
    log = home / "serve.log"
    command = [sys.executable, "-m", "dgrag", "models", "serve", "--replicas", "2", "--port", str(port)]
    # a Ray of its own: its session files and the auth token Ray writes under HOME stay away from other tests' Ray
    env = {**os.environ, "HOME": str(home), "RAY_TMPDIR": str(home / "ray"), CACHE_ENV: str(model_cache())}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [*command, "--alias", ALIAS], stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=env
        )
    try:
        deadline = time.monotonic() + 240
        while b"replicas ready" not in log.read_bytes():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"dgrag models serve did not get ready:\n{log.read_text()[-3000:]}")
            time.sleep(1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        shutil.rmtree(home, ignore_errors=True)
        for pid in _servers():  # a server its replica did not outlive
            os.kill(pid, signal.SIGKILL)


def test_a_replica_stopped_mid_run_loses_no_question(replicas: str) -> None:
    generator = OpenAIGenerator(ModelConfig(backend="openai", model=ALIAS, base_url=replicas, timeout_s=120))

    def ask(question: str) -> str:
        return read_passages(question, [PASSAGE], generator, Sampling(1, 16, 0.0, None)).completion.texts[0]

    servers = _servers()
    assert len(servers) == 2, "each replica runs its own model server"
    with ThreadPoolExecutor(len(QUESTIONS)) as pool:
        asked = [pool.submit(ask, q) for q in QUESTIONS]
        wait(asked, return_when=FIRST_COMPLETED)  # one slot per replica: the others are still being read
        pending = sum(not f.done() for f in asked)
        os.kill(servers[0], signal.SIGKILL)
        answers = [f.result(timeout=300) for f in asked]
    assert pending >= 2, "a server was stopped while questions were being read"
    assert len(answers) == len(QUESTIONS) and all(a.strip() for a in answers), answers
    deadline = time.monotonic() + 120
    while len(_servers()) < 2 and time.monotonic() < deadline:  # Serve replaces the replica whose server died
        time.sleep(1)
    assert servers[0] not in _servers() and len(_servers()) == 2
    assert ask(QUESTIONS[0]).strip(), "and the deployment still answers"
