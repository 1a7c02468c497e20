"""A simulation whose edge dies mid-run (its host process, Ray actor or node gone) stops with a sentence naming
the edge and how to resume, not a gRPC traceback."""

from __future__ import annotations

import socket

import pytest

from simulation.asking import Asker, EdgeEndpoint, EdgeLostError


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_asking_an_edge_whose_host_is_gone_names_it_and_says_how_to_resume() -> None:
    gone = EdgeEndpoint(f"127.0.0.1:{_closed_port()}", "token")
    asker = Asker({"e07": gone}, None, f"127.0.0.1:{_closed_port()}", "sim", "token")
    try:
        with pytest.raises(EdgeLostError, match=r"edge e07 cannot be reached.*run the same command again to resume"):
            asker._query("e07", "Who won?", "full")
    finally:
        asker.close()
