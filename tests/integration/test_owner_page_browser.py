"""The device owner's page in a real browser (headless Chromium and its driver, from Debian's packages; .ci/run
installs them): log in, ask with the keyboard alone and read the streamed answer, upload a document and ask
about it, delete it, and read what left the device. The edge and the cloud are real servers on loopback with
scripted models. DGRAG_SCREENSHOTS=DIR keeps a screenshot of each view (docs/owner-page-*.png were made so)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from edge_node.transport.api_token import API_TOKEN_FILE, read_api_token
from tests.support.background_network import serving
from tests.support.browser import chromium, screenshot
from tests.support.grpc_harness import ACME, ZEPHYR, Network, connected, free_port, start_edge, start_network

pytestmark = pytest.mark.integration
WAIT_S = 60


@dataclass(frozen=True)
class Served:
    base: str
    token: str


def _owner_network(tmp_path: Path) -> Callable[[], Awaitable[tuple[Served, Network]]]:
    """A cloud, edge-b (ZEPHYR) and edge-a (ACME) serving its page."""

    async def start() -> tuple[Served, Network]:
        net = await start_network(tmp_path, {"edge-b": ZEPHYR}, extra_edges=("edge-a",))
        port = free_port()
        await start_edge(net, tmp_path, "edge-a", ACME, page_port=port)
        await connected(net, "edge-a", "edge-b")
        token = read_api_token(net.data_dirs["edge-a"] / API_TOKEN_FILE)
        return Served(f"http://127.0.0.1:{port}", token), net

    return start


def test_the_owner_asks_uploads_deletes_and_sees_what_left_in_chromium(tmp_path: Path) -> None:
    with serving(_owner_network(tmp_path)) as served, chromium() as browser:
        _use_the_page(browser, served, tmp_path)


def _use_the_page(browser: Any, served: Served, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, WAIT_S)

    def shot(name: str) -> None:
        screenshot(browser, f"owner-page-{name}")

    browser.get(served.base + "/")
    assert browser.current_url.endswith("/login")
    token = browser.find_element(By.ID, "token")
    assert browser.switch_to.active_element == token, "the login field has the focus"
    token.send_keys(served.token, Keys.ENTER)
    wait.until(ec.presence_of_element_located((By.ID, "question")))

    # keyboard alone: the question box, Tab to the Ask button, Enter
    question = browser.find_element(By.ID, "question")
    question.click()
    question.send_keys("Who founded Zephyr Medical in Lisbon?")
    question.send_keys(Keys.TAB)
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    answer = wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#result .answer")))
    assert "Omar Haddad" in answer.text and "How sure:" in answer.text and "Answered by:" in answer.text
    shot("ask")

    browser.get(served.base + "/documents")
    document = tmp_path / "kestrel.txt"
    document.write_text("The Kestrel Observatory is directed by Ingrid Berg in Tromso.", encoding="utf-8")
    browser.find_element(By.ID, "file").send_keys(str(document))
    browser.find_element(By.CSS_SELECTOR, "#upload button").click()
    wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, ".notice"), "kestrel.txt added"))
    shot("documents")

    browser.get(served.base + "/")
    box = wait.until(ec.presence_of_element_located((By.ID, "question")))
    box.send_keys("Who directs the Kestrel Observatory?")
    browser.find_element(By.CSS_SELECTOR, "#ask button").click()
    answer = wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#result .answer")))
    assert "Ingrid Berg" in answer.text and "kestrel.txt" in answer.text

    browser.get(served.base + "/documents")
    _delete_by_keyboard(browser, "kestrel.txt")
    wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, ".notice"), "Deleted kestrel.txt"))
    assert "kestrel.txt" not in browser.find_element(By.CSS_SELECTOR, "ul.docs").text

    left = browser.find_element(By.LINK_TEXT, "What left this device")
    left.send_keys(Keys.ENTER)  # a link followed with the keyboard
    wait.until(ec.url_contains("/left"))
    rows = browser.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert rows and any("question, escalated" in r.text or "summaries" in r.text for r in rows)
    shot("left")
    browser.get(served.base + "/link")
    assert "connected" in browser.find_element(By.TAG_NAME, "main").text
    shot("link")
    assert not [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"], "no script error"


def _delete_by_keyboard(browser: Any, doc_id: str) -> None:
    """Keyboard alone: Tab from the page's start until the document's Delete button has the focus, then Enter."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    delete = browser.find_element(By.CSS_SELECTOR, f"button[aria-label='Delete {doc_id}']")
    browser.find_element(By.TAG_NAME, "body").click()
    for _ in range(40):
        ActionChains(browser).send_keys(Keys.TAB).perform()
        if browser.switch_to.active_element == delete:
            break
    assert browser.switch_to.active_element == delete, "the Delete button is reachable with Tab"
    ActionChains(browser).send_keys(Keys.ENTER).perform()
