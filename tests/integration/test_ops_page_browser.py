"""The operators' page in a real browser (headless Chromium and its driver; scripts/install_browser.sh), served by
a real cloud with two edges on loopback after one question: an operator logs in (HTTP basic authentication) and
reads the edges and the question, shown as text. DGRAG_SCREENSHOTS=DIR keeps docs/ops-page.png's source."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from tests.support.background_network import serving
from tests.support.browser import chromium, screenshot
from tests.support.grpc_harness import (
    ACME,
    ADMIN_ID,
    APP_ID,
    ZEPHYR,
    Network,
    connected,
    free_port,
    start_network,
    token_of,
)
from tests.support.ops_page_view import QUESTION

pytestmark = pytest.mark.integration


def _cloud_after_one_question(tmp_path: Path) -> Callable[[], Awaitable[tuple[int, Network]]]:
    async def start() -> tuple[int, Network]:
        port = free_port()
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR}, ops_port=port)
        await connected(net, "edge-a", "edge-b")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
            ask = cloud_pb2.GlobalQueryRequest(question=QUESTION, top_k=1)
            await cloud_pb2_grpc.CloudStub(channel).GlobalQuery(ask, metadata=auth_metadata(APP_ID, token_of(APP_ID)))
        return port, net

    return start


def test_an_operator_reads_the_edges_and_the_questions_in_chromium(tmp_path: Path) -> None:
    with serving(_cloud_after_one_question(tmp_path)) as port, chromium(1100, 520) as browser:
        _read_the_page(browser, port)


def _read_the_page(browser: Any, port: int) -> None:
    from selenium.webdriver.common.by import By

    browser.get(f"http://{ADMIN_ID}:{token_of(ADMIN_ID)}@127.0.0.1:{port}/")
    text = browser.find_element(By.TAG_NAME, "body").text
    assert "edge-a" in text and "edge-b" in text, text[:500]
    assert "Who founded <b>Zephyr Medical</b> in Lisbon?" in text, "the question is shown as text, markup and all"
    assert not browser.find_elements(By.CSS_SELECTOR, "td b"), "no markup from a question reaches the page"
    screenshot(browser, "ops-page")
    browser.get(f"http://{ADMIN_ID}:not-the-token-0123456789@127.0.0.1:{port}/")
    assert "edge-a" not in browser.find_element(By.TAG_NAME, "body").text, "a wrong token sees nothing"
