"""A model endpoint off the machine: its API key and an edge's texts never cross the network in plaintext, and an
edge's documents reach a remote model only when its owner allows it. Against a real HTTP server on this machine's
network address (not loopback)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from edge_node.policy.model_endpoints import check_model_endpoints
from edge_node.runtime.edge_runtime import EdgeModels
from shared.config import EdgeConfig, EmbedderConfig, ModelConfig, PrivacyConfig
from shared.core.errors import ConfigError
from shared.models.openai_embedder import OpenAIEmbedder


def _network_address() -> str:
    """This machine's address on its network (what another host would dial), or skip where it has none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))  # no packet is sent: this only picks the outbound interface
            address = str(s.getsockname()[0])
        except OSError:
            address = "127.0.0.1"
    if address.startswith("127."):
        pytest.skip("this machine has no network address besides loopback")
    return address


class _Endpoint(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, str]]] = []

    def do_POST(self) -> None:  # an OpenAI-compatible /v1/embeddings
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"authorization": self.headers.get("Authorization", ""), "input": json.dumps(body)})
        reply = {
            "object": "list",
            "model": "m",
            "data": [
                {"object": "embedding", "index": i, "embedding": [1.0, 0.0, 0.0]} for i in range(len(body["input"]))
            ],
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture
def endpoint() -> Iterator[str]:
    _Endpoint.seen = []
    server = ThreadingHTTPServer((_network_address(), 0), _Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host}:{port}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_a_plaintext_endpoint_off_the_machine_gets_neither_the_key_nor_a_text(
    endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DGRAG_EMBEDDER_API_KEY", "sk-secret-key-of-the-owner")
    with pytest.raises(ConfigError, match="refusing to send its API key and texts in plaintext"):
        OpenAIEmbedder(EmbedderConfig(backend="openai", base_url=endpoint)).embed(["a chunk of a private document"])
    assert _Endpoint.seen == [], "nothing reached the endpoint"
    # said in so many words, the owner's choice is honoured (and shows that the endpoint does answer)
    allowed = OpenAIEmbedder(EmbedderConfig(backend="openai", base_url=endpoint, insecure=True))
    assert allowed.embed(["a chunk"]).shape == (1, 3)
    assert _Endpoint.seen and "sk-secret-key-of-the-owner" in _Endpoint.seen[0]["authorization"]


def test_an_edge_refuses_models_that_would_read_its_documents_off_the_device(endpoint: str) -> None:
    remote = EdgeConfig(embedder=EmbedderConfig(backend="openai", base_url=endpoint.replace("http:", "https:")))
    with pytest.raises(ConfigError, match=r"privacy\.remote_models"):
        EdgeModels.from_config(remote)  # refused before any model is loaded or any text is sent
    slm = EdgeConfig(slm=ModelConfig(backend="openai", base_url=endpoint.replace("http:", "https:")))
    with pytest.raises(ConfigError, match="off this device"):
        check_model_endpoints(slm)
    check_model_endpoints(EdgeConfig(privacy=PrivacyConfig(remote_models=True), embedder=remote.embedder))
    check_model_endpoints(EdgeConfig(embedder=EmbedderConfig(backend="openai", base_url="http://127.0.0.1:8081/v1")))
    assert _Endpoint.seen == []
