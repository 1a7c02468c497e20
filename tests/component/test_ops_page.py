"""The operators' page: served by a running cloud, to admin credentials only, with its edges and latest questions."""

from __future__ import annotations

from pathlib import Path

from tests.support.ops_page_view import operators_page


def test_the_page_shows_edges_and_questions_to_operators_only(tmp_path: Path) -> None:
    seen = operators_page(tmp_path)
    assert seen["app"][0] == 401 and seen["wrong"][0] == 401
    status, page = seen["ops"]
    assert status == 200 and "<td>edge-a</td><td>yes</td>" in page and "<td>edge-b</td>" in page
    assert "Zephyr Medical" in page and "<b>Zephyr" not in page, "questions are shown escaped"
    assert "<td>global_query</td><td>app-1</td>" in page


def test_the_page_throttles_failed_logins_bounds_idle_connections_and_stays_on_loopback() -> None:
    import socket
    import time

    import pytest

    from cloud_server.sessions.tokens import TokenBook
    from cloud_server.transport.ops_page import RecentQuestions
    from cloud_server.transport.ops_server import ops_app, serve_ops_page
    from shared.core.errors import ConfigError
    from shared.transport.http_server import IDLE_S, HttpServer
    from tests.support.ops_page_view import _get

    class Parts:
        def edge_statuses(self) -> list[object]:
            return []

    tokens = TokenBook.parse("admin ops the-operators-token-0123456789abcdefghij\n", Path("tokens"))
    with pytest.raises(ConfigError, match="SSH tunnel"):
        serve_ops_page(Parts(), RecentQuestions(), tokens, "0.0.0.0", 0)  # type: ignore[arg-type]
    server = HttpServer(ops_app(Parts(), RecentQuestions(), tokens), "127.0.0.1", 0, "page")  # type: ignore[arg-type]
    try:
        url = f"http://127.0.0.1:{server.port}/"
        assert _get(url, "ops", "the-operators-token-0123456789abcdefghij")[0] == 200
        codes = [_get(url, "ops", f"guess-{i}")[0] for i in range(7)]
        assert codes[:5] == [401] * 5 and codes[5:] == [429, 429], codes
        assert _get(url, "ops", "the-operators-token-0123456789abcdefghij")[0] == 429, (
            "a throttled address waits, right token or not"
        )
        idle = socket.create_connection(("127.0.0.1", server.port))
        idle.settimeout(IDLE_S + 5)
        started = time.monotonic()
        assert idle.recv(1) == b"", "an idle connection is closed"
        assert time.monotonic() - started < IDLE_S + 5
    finally:
        server.shutdown()
