"""The device owner's page on a real edge (scripted models) and a real cloud on loopback, attacked as a stranger
on the machine would: no session, a wrong token, a forged form, a hostile document and question, an oversized or
foreign upload. And used as its owner would: ask, read the answer and its sources, see what left, add and delete
a document."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import httpx
import pytest

from edge_node.cli import _print_answer
from edge_node.ingest.readers import RawDocument
from edge_node.transport.api_client import EdgeReply
from edge_node.transport.api_token import API_TOKEN_FILE, read_api_token
from edge_node.transport.page.sessions import COOKIE
from shared.core.shown import AnsweredBy
from tests.support.grpc_harness import ACME, ZEPHYR, Network, ask, connected, free_port, start_edge, start_network

HOSTILE = RawDocument("hostile", "Hostile", "Acme Robotics ships <script>alert('owned')</script> robots to Oslo.", "h")


class Page:
    def __init__(self, net: Network, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.token = read_api_token(net.data_dirs["edge-a"] / API_TOKEN_FILE)
        self.net = net

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.base, follow_redirects=False, timeout=30)

    async def logged_in(self, client: httpx.AsyncClient) -> str:
        """Log ``client`` in; the session's CSRF token."""
        login = await client.get("/login")
        csrf = _csrf(login.text)
        done = await client.post("/login", data={"csrf": csrf, "token": self.token})
        assert done.status_code == 303, done.text
        return _csrf((await client.get("/")).text)


def _csrf(page: str) -> str:
    found = re.search(r'name=csrf value="([^"]+)"', page) or re.search(r'data-csrf="([^"]+)"', page)
    assert found, page[:500]
    return found.group(1)


def with_page(tmp_path: Path, scenario: Callable[[Page], Awaitable[None]]) -> None:
    """Run ``scenario`` against the page of edge-a (ACME and a hostile document) beside edge-b (ZEPHYR)."""

    async def main() -> None:
        net = await start_network(tmp_path, {"edge-b": ZEPHYR}, extra_edges=("edge-a",))
        port = free_port()
        try:
            await start_edge(net, tmp_path, "edge-a", [*ACME, HOSTILE], page_port=port)
            await connected(net, "edge-a", "edge-b")
            await scenario(Page(net, port))
        finally:
            await net.close()

    asyncio.run(asyncio.wait_for(main(), 120))


def test_a_stranger_gets_nothing_without_the_token(tmp_path: Path) -> None:
    async def scenario(page: Page) -> None:
        async with page.client() as client:
            assert (await client.get("/")).status_code == 303, "sent to the login"
            assert (await client.post("/ask", data={"question": "x"})).status_code == 401
            assert (await client.get("/left")).headers["location"] == "/login"
            csrf = _csrf((await client.get("/login")).text)
            statuses = [
                (await client.post("/login", data={"csrf": csrf, "token": "wrong"})).status_code for _ in range(7)
            ]
            assert statuses[0] == 401 and statuses[-1] == 429, statuses

    with_page(tmp_path, scenario)


def test_every_response_forbids_inline_script_and_framing(tmp_path: Path) -> None:
    async def scenario(page: Page) -> None:
        async with page.client() as client:
            await page.logged_in(client)
            for path in ("/", "/left", "/documents", "/link", "/login", "/static/page.js"):
                response = await client.get(path)
                policy = response.headers["content-security-policy"]
                assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, path
                assert response.headers["x-content-type-options"] == "nosniff"
                assert not re.search(r"<script(?![^>]*\bsrc=)", response.text) or path.endswith(".js"), path

    with_page(tmp_path, scenario)


def test_a_forged_form_is_refused(tmp_path: Path) -> None:
    async def scenario(page: Page) -> None:
        async with page.client() as client:
            csrf = await page.logged_in(client)
            assert (await client.post("/ask", data={"question": "Who leads Acme?"})).status_code == 403, "no token"
            wrong = await client.post("/ask", data={"question": "Who leads Acme?", "csrf": "x" * 43})
            assert wrong.status_code == 403
            other_site = await client.post(
                "/documents/delete", data={"csrf": csrf, "doc_id": "acme-1"}, headers={"Origin": "http://evil.example"}
            )
            assert other_site.status_code == 403
            assert "acme-1" in (await client.get("/documents")).text, "nothing was deleted"

    with_page(tmp_path, scenario)


def test_an_answer_shows_its_sources_and_escapes_what_it_quotes(tmp_path: Path) -> None:
    async def scenario(page: Page) -> None:
        async with page.client() as client:
            csrf = await page.logged_in(client)
            question = "Where does Acme Robotics ship robots? <img src=x onerror=alert(1)>"
            response = await client.post("/ask", data={"question": question, "csrf": csrf})
            assert response.status_code == 200
            body = response.text
            assert "<img src=x" not in body and "&lt;img src=x onerror=alert(1)&gt;" in body
            assert "<script>alert" not in body
            assert "How sure:" in body and "Answered by:" in body and "Sources" in body
            assert "/documents/view?id=" in body, "a link to the whole document on this device"

    with_page(tmp_path, scenario)


def test_the_answer_streams_as_json_lines_ending_with_its_html(tmp_path: Path) -> None:
    async def scenario(page: Page) -> None:
        async with page.client() as client:
            csrf = await page.logged_in(client)
            async with client.stream(
                "POST", "/ask/stream", json={"question": "Who founded Zephyr Medical?"}, headers={"X-CSRF-Token": csrf}
            ) as response:
                lines = [json.loads(line) async for line in response.aiter_lines() if line]
            assert response.status_code == 200
            assert "html" in lines[-1] and all("draft" in x for x in lines[:-1])

    with_page(tmp_path, scenario)


def test_what_left_lists_the_escalation_in_plain_words(tmp_path: Path) -> None:
    async def scenario(page: Page) -> None:
        async with page.client() as client:
            csrf = await page.logged_in(client)
            await client.post("/ask", data={"question": "Who founded Zephyr Medical in Lisbon?", "csrf": csrf})
            left = (await client.get("/left")).text
            assert "summaries of this device" in left or "changes to this device" in left
            assert "privacy level" in left

    with_page(tmp_path, scenario)


def test_uploads_are_bounded_typed_and_become_answerable_then_deletable(tmp_path: Path) -> None:
    async def scenario(page: Page) -> None:
        async with page.client() as client:
            csrf = await page.logged_in(client)
            assert await _declared_too_large(page.base, client.cookies[COOKIE], csrf) == 413
            big = await client.post(
                "/documents/upload", data={"csrf": csrf}, files={"file": ("big.txt", b"x" * (21 * 1024 * 1024))}
            )
            assert "over the" in big.text and "big.txt</a>" not in big.text
            exe = await client.post("/documents/upload", data={"csrf": csrf}, files={"file": ("tool.exe", b"MZ")})
            assert "Not added" in exe.text and "no reader for its type" in exe.text
            text = b"The Kestrel Observatory is directed by Ingrid Berg in Tromso."
            folder = [
                ("file", ("../../etc/kestrel.txt", text)),
                ("file", ("notes/sub/shift.md", b"Shift B starts at 14:00 in hall 3.")),
                ("file", ("notes/photo.jpg", b"\xff\xd8")),
            ]
            added = await client.post("/documents/upload", data={"csrf": csrf}, files=folder)
            assert "etc/kestrel.txt, notes/sub/shift.md added" in added.text, added.text[-800:]
            assert "notes/photo.jpg (no reader for its type)" in added.text
            assert not (tmp_path / "etc").exists(), "no path climbs out of the uploads folder"
            answer = await client.post("/ask", data={"question": "Who directs the Kestrel Observatory?", "csrf": csrf})
            assert "kestrel.txt" in answer.text
            gone = await client.post("/documents/delete", data={"csrf": csrf, "doc_id": "etc/kestrel.txt"})
            assert "Deleted etc/kestrel.txt" in gone.text
            assert "etc/kestrel.txt</a>" not in gone.text

    with_page(tmp_path, scenario)


def test_uploads_keep_every_document_unicode_names_collisions_and_a_failed_replacement(tmp_path: Path) -> None:
    async def scenario(page: Page) -> None:
        async with page.client() as client:
            csrf = await page.logged_in(client)
            chinese = [
                ("file", ("报告.txt", "报告：Kestrel 预算为三百万。".encode())),
                ("file", ("笔记.txt", "笔记：Oslo 实验室。".encode())),
            ]
            added = await client.post("/documents/upload", data={"csrf": csrf}, files=chinese)
            assert "报告.txt, 笔记.txt added" in added.text, added.text[-600:]
            names = [
                ("Ольга.txt", "Olga runs hall 1."),
                ("Мария.txt", "Maria runs hall 2."),
                ("Анна.txt", "Anna runs hall 3."),
            ]
            russian = [("file", (n, t.encode())) for n, t in names]
            added = await client.post("/documents/upload", data={"csrf": csrf}, files=russian)
            assert "Ольга.txt, Мария.txt, Анна.txt added" in added.text, added.text[-600:]
            clash = [("file", ("a?.txt", b"First of two.")), ("file", ("a*.txt", b"Second of two."))]
            added = await client.post("/documents/upload", data={"csrf": csrf}, files=clash)
            assert re.search(r"a_-[0-9a-f]{8}\.txt, a_-[0-9a-f]{8}\.txt added", added.text), added.text[-600:]
            for emoji in ("😀.txt", "🎉.txt"):  # one upload each: names made alike stay apart across uploads too
                added = await client.post(
                    "/documents/upload", data={"csrf": csrf}, files={"file": (emoji, f"Note {emoji}".encode())}
                )
                assert "added" in added.text and "replaced" not in added.text, added.text[-600:]
            hindi = await client.post(
                "/documents/upload", data={"csrf": csrf}, files={"file": ("हिन्दी.txt", "हिन्दी पाठ।".encode())}
            )
            assert "हिन्दी.txt added" in hindi.text, "combining marks are part of a name"
            uploads = page.net.data_dirs["edge-a"] / "uploads"
            before = (uploads / "笔记.txt").read_bytes()
            broken = await client.post(
                "/documents/upload", data={"csrf": csrf}, files={"file": ("笔记.txt", b"\x00\x01")}
            )
            assert "not added" in broken.text and "笔记.txt" in broken.text
            assert str(uploads) not in broken.text, "the refusal names the file as sent, never the server's path"
            assert (uploads / "笔记.txt").read_bytes() == before, "the copy of the version still indexed is kept"
            assert not list(uploads.glob(".*.kept")), "nothing is left aside"
            listing = (await client.get("/documents")).text
            for name in ("报告.txt", "笔记.txt", "Ольга.txt", "Мария.txt", "Анна.txt", "हिन्दी.txt"):
                assert f"{name}</a>" in listing, name
            assert len(re.findall(r"_-[0-9a-f]{8}\.txt</a>", listing)) == 4, "a?, a*, 😀 and 🎉 are four documents"

    with_page(tmp_path, scenario)


async def _declared_too_large(base: str, session: str, csrf: str) -> int:
    """The status of an upload declaring a body of 10 GB (and sending a few bytes): refused before it is read."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(
        f"POST /documents/upload HTTP/1.1\r\nHost: {host}:{port}\r\nCookie: {COOKIE}={session}\r\n"
        f"X-CSRF-Token: {csrf}\r\nContent-Type: multipart/form-data; boundary=b\r\n"
        "Content-Length: 10000000000\r\n\r\n--b\r\n".encode()
    )
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    writer.close()
    return status


def test_a_document_link_shows_only_this_devices_documents(tmp_path: Path) -> None:
    async def scenario(page: Page) -> None:
        async with page.client() as client:
            await page.logged_in(client)
            listing = (await client.get("/documents")).text
            assert re.search(
                r"acme-1</a> <span class=meta>added \d{4}-\d\d-\d\d \d\d:\d\d; [\d,]+ characters; "
                r"in a summary sent to the cloud",
                listing,
            ), listing[-1500:]
            assert "<b>Hostile</b>" in listing, "a document is listed by its title beside its file name"
            found = (await client.get("/documents", params={"q": "HOST"})).text
            assert "(1 holding HOST)" in found and "hostile</a>" in found and "acme-1</a>" not in found
            mine = await client.get("/documents/view", params={"id": "hostile"})
            assert mine.status_code == 200 and "&lt;script&gt;" in mine.text and "<script>alert" not in mine.text
            assert (await client.get("/documents/view", params={"id": "zeph-1"})).status_code == 404

    with_page(tmp_path, scenario)


def test_a_rebound_host_a_lockout_and_oversized_bodies_are_refused(tmp_path: Path) -> None:
    """A page on another site that rebinds its name to 127.0.0.1 is refused by the Host it sends; while wrong tokens
    have the address throttled, no token is checked and the right one's reply is a wrong one's, until the wait is
    over; a chunked body or a login body over its limit gets 413."""

    async def scenario(page: Page) -> None:
        async with page.client() as client:
            rebound = await client.get("/login", headers={"Host": "evil.example:8765"})
            assert rebound.status_code == 421
            csrf = _csrf((await client.get("/login")).text)
            for _ in range(8):
                await client.post("/login", data={"csrf": csrf, "token": "wrong"})
            right = await client.post("/login", data={"csrf": csrf, "token": page.token})
            wrong = await client.post("/login", data={"csrf": csrf, "token": "wrong"})
            assert right.status_code == wrong.status_code == 429 and right.text == wrong.text, "a guess tells nothing"
            await asyncio.sleep(int(right.headers["retry-after"]))
            owner = await client.post("/login", data={"csrf": csrf, "token": page.token})
            assert owner.status_code == 303, "once the wait is over the right token logs in"
            big_login = await client.post("/login", data={"csrf": csrf, "token": "x" * 10_000})
            assert big_login.status_code == 413
            session_csrf = _csrf((await client.get("/")).text)

            async def chunks() -> AsyncIterator[bytes]:
                for _ in range(200):
                    yield b"x" * (1024 * 1024)

            chunked = await client.post(
                "/ask/stream",
                content=chunks(),
                headers={"X-CSRF-Token": session_csrf, "Content-Type": "application/json"},
            )
            assert chunked.status_code == 413

    with_page(tmp_path, scenario)


def test_an_escalated_answer_shows_the_clouds_short_answer_on_the_page_the_api_and_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cloud reads "Omar Haddad" from edge-b: every surface shows the cloud's short answer, and only it."""

    async def scenario(page: Page) -> None:
        question = "Who founded Zephyr Medical in Lisbon?"
        async with page.client() as client:
            csrf = await page.logged_in(client)
            body = (await client.post("/ask", data={"question": question, "csrf": csrf})).text
        reply = EdgeReply.from_proto(await ask(page.net, "edge-a", question))
        trace = json.loads(reply.trace_json)
        local_short = trace["reading"].get("short", "")
        assert reply.decision == "cloud" and reply.shown.answered_by == AnsweredBy.CLOUD
        assert reply.shown.short == trace["cloud"]["short"] == "Omar Haddad" != local_short
        assert "<span class=short>Omar Haddad</span>" in body and body.count("<span class=short>") == 1
        _print_answer(reply.shown, reply.decision, reply.verified, reply.note, reply.sources)
        printed = capsys.readouterr().out
        assert "short answer: Omar Haddad" in printed and "answered by: the cloud's model" in printed

    with_page(tmp_path, scenario)
