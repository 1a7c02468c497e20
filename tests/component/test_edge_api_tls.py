"""The edge API over TLS (server.tls_cert/tls_key) for apps on other hosts: `edge ask --tls-ca` gets an
answer; a plaintext client gets none. Needs the openssl command to make a throwaway certificate."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest

from edge_node.api import EdgeModels, build_edge
from edge_node.store.knowledge_base import EdgeKnowledgeBase
from edge_node.transport.api_client import ask_edge
from edge_node.transport.api_token import API_TOKEN_FILE, read_api_token
from edge_node.transport.server import serve_edge
from shared.config import EdgeConfig, EdgeServerConfig
from shared.core.errors import DgragError
from shared.transport.grpc_transport import ClientTls
from simulation.fakes import HashEmbedder, RegexTokenizer, ScriptedGenerator
from tests.support.grpc_harness import ACME, answer_from_context


def _certificate(tmp: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    cert, key = tmp / "edge.pem", tmp / "edge.key"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_the_edge_api_serves_tls_to_apps_holding_the_ca(tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path)
    config = EdgeConfig(
        edge_id="edge-a", server=EdgeServerConfig(port=0, page_port=-1, tls_cert=str(cert), tls_key=str(key))
    )

    async def main() -> None:
        kb = EdgeKnowledgeBase(tmp_path / "edge-a")
        runtime = build_edge(
            kb, config, EdgeModels(ScriptedGenerator(answer_from_context), HashEmbedder(64), RegexTokenizer())
        )
        await runtime.ingest(ACME)
        ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        stop = asyncio.Event()
        task = asyncio.create_task(serve_edge(config, runtime, ready.set_result, stop))
        port = await ready
        try:
            token = read_api_token(tmp_path / "edge-a" / API_TOKEN_FILE)
            reply = await ask_edge(
                f"localhost:{port}", token, "Who leads Acme Robotics?", "local", 30, ClientTls(str(cert))
            )
            assert "Jane Doe" in reply.answer
            with pytest.raises(DgragError, match="UNAVAILABLE"):
                await ask_edge(f"localhost:{port}", token, "Who leads Acme Robotics?", "local", 5)
        finally:
            stop.set()
            await task
            kb.close()

    asyncio.run(asyncio.wait_for(main(), 60))
