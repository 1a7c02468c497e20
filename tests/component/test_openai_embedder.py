"""The openai embedder against an OpenAI-compatible /v1/embeddings endpoint on loopback (a small stdlib server
standing in for llama.cpp's or vLLM's): rows come back in the texts' order, L2-normalised, batched, and a reply
of the wrong size is an error."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from shared.config import EmbedderConfig
from shared.core.errors import ModelError
from shared.models.factory import build_embedder

CALLS: list[list[str]] = []
DROP_ONE = {"on": False}


class _Endpoint(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        texts = body["input"]
        CALLS.append(texts)
        data = [
            {"index": i, "object": "embedding", "embedding": [float(len(t)), 3.0, 4.0]} for i, t in enumerate(texts)
        ]
        data.reverse()  # servers need not answer in order
        if DROP_ONE["on"]:
            data = data[1:]
        reply = json.dumps({"object": "list", "data": data, "model": body["model"], "usage": {}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    CALLS.clear()
    DROP_ONE["on"] = False
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def test_vectors_come_back_in_order_normalised_and_batched(endpoint: str) -> None:
    embedder = build_embedder(EmbedderConfig(backend="openai", base_url=endpoint, batch_size=2))
    texts = ["a", "bb", "ccc", "dddd", "eeeee"]
    matrix = embedder.embed(texts)
    assert matrix.shape == (5, 3) and matrix.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, rtol=1e-6)
    expected = np.array([[len(t), 3.0, 4.0] for t in texts])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(matrix, expected, rtol=1e-6)
    assert [len(c) for c in CALLS] == [2, 2, 1]
    assert embedder.dim == 3 and embedder.name == "openai:all-MiniLM-L6-v2"


def test_a_reply_missing_a_vector_is_an_error(endpoint: str) -> None:
    DROP_ONE["on"] = True
    embedder = build_embedder(EmbedderConfig(backend="openai", base_url=endpoint))
    with pytest.raises(ModelError, match="returned 1 vectors for 2 texts"):
        embedder.embed(["one", "two"])


def test_an_unreachable_endpoint_says_which() -> None:
    embedder = build_embedder(EmbedderConfig(backend="openai", base_url="http://127.0.0.1:9/v1", timeout_s=2))
    with pytest.raises(ModelError, match=r"127\.0\.0\.1:9/v1"):
        embedder.embed(["x"])
