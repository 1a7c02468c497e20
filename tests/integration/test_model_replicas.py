"""Two replicas of a model behind Ray Serve on loopback; one's server is stopped while questions are being read,
and every question is still answered (Serve routes the retries to the replica that is up and starts another)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

import pytest

from shared.config import ModelConfig
from shared.models.openai_backend import OpenAIGenerator
from shared.reading.answer_format import Sampling
from shared.reading.read import read_passages
from shared.reading.span_reader import Passage

serve = pytest.importorskip("ray.serve", reason="Ray Serve is not installed: pip install -e '.[dev]'")
pytestmark = pytest.mark.integration

PASSAGE = Passage(1, "Acme Robotics builds welding arms in its Berlin plant. Dana Smith has run it since 2019.", "a")
QUESTIONS = [
    "Where does Acme Robotics build welding arms?",
    "Who runs the Berlin plant?",
    "Since when has Dana Smith run the plant?",
    "What does Acme Robotics build?",
    "Does Acme Robotics build welding arms?",
    "Which company has a plant in Berlin?",
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def replicas() -> Iterator[str]:
    import ray

    from shared.models.replicas import ServerSettings, serve_replicas

    url = serve_replicas(ServerSettings(ModelConfig(), threads=1, slots=1, n_ctx=1024), 2, "127.0.0.1", _free_port())
    try:
        yield url
    finally:
        serve.shutdown()
        ray.shutdown()


def test_a_replica_stopped_mid_run_loses_no_question(replicas: str) -> None:
    from shared.models.replicas import ALIAS

    generator = OpenAIGenerator(ModelConfig(backend="openai", model=ALIAS, base_url=replicas, timeout_s=120))
    handle = serve.get_deployment_handle("model", app_name="cloud-llm")

    def ask(question: str) -> str:
        return read_passages(question, [PASSAGE], generator, Sampling(1, 16, 0.0, None)).completion.texts[0]

    with ThreadPoolExecutor(len(QUESTIONS)) as pool:
        asked = [pool.submit(ask, q) for q in QUESTIONS]
        wait(asked, return_when=FIRST_COMPLETED)  # one slot per replica: the others are still being read
        pending = sum(not f.done() for f in asked)
        stopped = handle.stop_server.remote().result(timeout_s=60)
        answers = [f.result(timeout=300) for f in asked]
    assert stopped > 0 and pending >= 2, "a server was stopped while questions were being read"
    assert len(answers) == len(QUESTIONS) and all(a.strip() for a in answers), answers
    after = ask(QUESTIONS[0])  # and the deployment still answers once the stopped replica is replaced
    assert after.strip()
