"""The cloud's model as several servers behind Ray Serve: ``dgrag models serve --replicas N``.

Each replica is a Ray Serve deployment replica that runs one llama.cpp server (``llama-server``, else
llama-cpp-python's ``python -m llama_cpp.server``) on a loopback port of its own and relays the OpenAI-compatible
requests Ray Serve routes to it. Ray Serve does what a balancer does: it spreads requests over the replicas, checks
each replica's health (a replica whose server exited is unhealthy) and starts another in its place. The cloud points
``[llm] base_url`` at Serve's address. A request that fails because its replica stopped is retried by the cloud's
openai client, and Serve sends the retry to a replica that is up. The model file is checked against its sha256 by
each replica before its server loads it, and the server reads the descriptor that was checked.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from shared.config import ModelConfig
from shared.core.errors import ModelError
from shared.models.verified_file import open_verified
from shared.models.weights import model_file

READY_S = 180.0
"""Seconds a replica's server has to load its model and answer its health check."""
ALIAS = "cloud-llm"
"""The model name the replicas serve (``[llm] model`` in the cloud's config)."""


@dataclass(frozen=True)
class ServerSettings:
    """How each replica runs its model server."""

    model: ModelConfig
    """Which model (``packaged``, or ``model_path``; empty: the bundled SLM)."""
    threads: int = 1
    slots: int = 1
    """Requests one replica's server decodes at once (llama.cpp's parallel slots)."""
    n_ctx: int = 4096
    """Context cells of each slot."""
    alias: str = ALIAS


def server_command(settings: ServerSettings, model_path: str, port: int, host: str = "127.0.0.1") -> list[str]:
    """The command that serves ``model_path`` on ``host:port``: llama.cpp's own server where it is installed beside
    this Python (scripts/build_llama_server.sh) or on the PATH, else llama-cpp-python's."""
    native = Path(sys.executable).with_name("llama-server")
    binary = str(native) if native.is_file() else shutil.which("llama-server")
    ctx = settings.n_ctx * settings.slots
    where = ["--host", host, "--port", str(port)]
    if binary:
        sizes = ["--threads", str(settings.threads), "--parallel", str(settings.slots), "--ctx-size", str(ctx)]
        return [binary, "-m", model_path, "--alias", settings.alias, *where, *sizes]
    sizes = ["--n_threads", str(settings.threads), "--n_ctx", str(ctx)]
    return [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        model_path,
        "--model_alias",
        settings.alias,
        *where,
        *sizes,
    ]


Serving = tuple[list[str], tuple[int, ...]]
"""A server's command and the descriptors it inherits."""


@contextmanager
def _serving(settings: ServerSettings, port: int, host: str = "127.0.0.1") -> Iterator[Serving]:
    """The command that serves the model on ``host:port``, and the descriptors the server must inherit: the model
    file opened and checked against its sha256, which the server reads (none for a ``model_path`` of one's own)."""
    path, expected = model_file(settings.model)
    if expected is None:
        yield server_command(settings, str(path), port, host), ()
        return
    with open_verified(path, expected) as opened:
        yield server_command(settings, opened.load_path, port, host), (opened.fd,)


def exec_server(settings: ServerSettings, host: str, port: int) -> NoReturn:
    """Become one model server on ``host:port`` (``--replicas 1``: no Ray), loading the descriptor that was checked
    against the model's sha256."""
    with _serving(settings, port, host) as (command, fds):
        for fd in fds:
            os.set_inheritable(fd, True)  # the server this process becomes reads it as its model file
        os.execv(command[0], command)
    raise AssertionError("unreachable: os.execv returns only by raising")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def start_server(settings: ServerSettings) -> tuple[subprocess.Popen[bytes], int]:
    """A model server on a free loopback port, once its health check answers; its process and port."""
    port = free_port()
    with _serving(settings, port) as (command, fds):
        proc = subprocess.Popen(command, pass_fds=fds)
    deadline = time.monotonic() + READY_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ModelError(f"the model server exited with {proc.returncode} before it was ready")
        if healthy(port):
            return proc, port
        time.sleep(0.5)
    proc.kill()
    raise ModelError(f"the model server was not ready after {READY_S:.0f} s")


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


class ModelReplica:
    """One replica: a model server of its own, and the requests Serve routes to it relayed there."""

    def __init__(self, settings: ServerSettings) -> None:
        import httpx

        self._proc, port = start_server(settings)
        self._client = httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=None)

    async def __call__(self, request: Any) -> Any:
        import httpx
        from starlette.responses import Response, StreamingResponse

        headers = {"content-type": request.headers.get("content-type", "application/json")}
        upstream = self._client.build_request(
            request.method, request.url.path, params=request.query_params, content=await request.body(), headers=headers
        )
        try:
            reply = await self._client.send(upstream, stream=True)
        except httpx.TransportError:
            if self._proc.poll() is not None:  # the server is gone: so is this replica, and Serve routes the
                os._exit(1)  # client's retry to one that is up while it starts another in its place
            raise
        kind = reply.headers.get("content-type", "application/json")
        if kind.startswith("text/event-stream"):
            return StreamingResponse(reply.aiter_raw(), status_code=reply.status_code, media_type=kind)
        body = await reply.aread()
        await reply.aclose()
        return Response(body, status_code=reply.status_code, media_type=kind)

    def check_health(self) -> None:
        """Serve calls this periodically: a replica whose server exited is replaced."""
        if self._proc.poll() is not None:
            raise ModelError(f"the replica's model server exited with {self._proc.returncode}")

    def __del__(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.poll() is None:
            proc.terminate()


def serve_replicas(settings: ServerSettings, replicas: int, host: str, port: int) -> str:
    """Start Ray (joining a cluster started with ``ray start``, else on this machine alone) and Serve with
    ``replicas`` model servers behind ``host:port``; the base URL the cloud's ``[llm] base_url`` takes. Returns
    once every replica is ready; Serve keeps running in Ray."""
    import ray
    from ray import serve

    if not ray.is_initialized():
        try:
            ray.init(address="auto", log_to_driver=False)  # a cluster started with `ray start`
        except ConnectionError:
            ray.init(include_dashboard=False, log_to_driver=False)  # else Ray on this machine alone
    serve.start(http_options={"host": host, "port": port})
    deployment = serve.deployment(
        name="model",
        num_replicas=replicas,
        max_ongoing_requests=max(settings.slots * 4, 8),
        health_check_period_s=2,
        health_check_timeout_s=10,
        ray_actor_options={"num_cpus": 0},
    )(ModelReplica)
    serve.run(deployment.bind(settings), name="cloud-llm", route_prefix="/", blocking=False)
    return f"http://{host}:{port}/v1"
