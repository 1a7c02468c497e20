"""The owner's page as an ASGI app (Starlette), served by uvicorn in a thread of its own. Its handlers run the
edge's work on the edge's own event loop (:class:`EdgeLoop`), so the page shares the running edge's models,
store and cloud session and adds no second copy of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders, UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from edge_node.runtime.edge_runtime import EdgeRuntime
from edge_node.transport.page import views
from edge_node.transport.page.sessions import COOKIE, SESSION_S, PageSessions, Session
from edge_node.transport.page.uploads import (
    MAX_FILES,
    UPLOAD_FACTOR,
    UPLOAD_SUFFIXES,
    forget_upload,
    ingest_with,
    store_uploads,
)
from shared.core.addresses import host_is_loopback, host_of
from shared.core.errors import ConfigError, DgragError
from shared.core.model_api import TextSink
from shared.core.trace import AnswerTrace
from shared.transport.http_server import HttpServer

log = logging.getLogger(__name__)
T = TypeVar("T")
STATIC = Path(__file__).with_name("static")
MAX_QUESTION_CHARS = 2000
MAX_LOGIN_BODY = 4096
"""The login form's largest body: a token and a CSRF value."""
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # no-referrer would make the browser send Origin: null on our own forms
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


class EdgeLoop:
    """Runs coroutines on the edge's event loop from the page's thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self._loop))


class PageContext:
    """What the page's handlers reach: the runtime on its loop, the sessions, the cloud session's state."""

    def __init__(
        self,
        runtime: EdgeRuntime,
        edge_loop: EdgeLoop,
        sessions: PageSessions,
        link_state: Callable[[], tuple[bool, str]],
        escalator: Any,
    ) -> None:
        self.runtime = runtime
        self.edge = edge_loop
        self.sessions = sessions
        self.link_state = link_state
        self.escalator = escalator
        self.uploads = runtime.data_dir / "uploads"


Handler = Callable[[Request, Session], Awaitable[Response]]


def guarded(ctx: PageContext, handler: Handler, post: bool = False) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        session = ctx.sessions.of(request.cookies.get(COOKIE, ""))
        if session is None:
            return RedirectResponse("/login", 303) if not post else _plain("log in first", 401)
        if post:
            if not _same_origin(request):
                return _plain("cross-site request refused", 403)
            given = request.headers.get("x-csrf-token", "")
            if not given and request.headers.get("content-type", "").startswith(
                ("application/x-www-form-urlencoded", "multipart/form-data")
            ):
                given = str((await request.form()).get("csrf", ""))
            if not ctx.sessions.csrf_ok(session, given):
                return _plain("the form is stale or not this page's (CSRF token); reload the page", 403)
        return await handler(request, session)

    return endpoint


class PageHandlers:
    """The page's views and actions; each takes the request (and the session, where one is needed)."""

    def __init__(self, ctx: PageContext) -> None:
        self.ctx = ctx

    async def login_form(self, request: Request) -> Response:
        return HTMLResponse(views.login_page(self.ctx.sessions.login_csrf))

    async def login(self, request: Request) -> Response:
        client = request.client.host if request.client else "?"
        if not _same_origin(request):
            return _plain("cross-site request refused", 403)
        form = await request.form(max_files=0, max_fields=4)
        if str(form.get("csrf", "")) != self.ctx.sessions.login_csrf:
            return HTMLResponse(views.login_page(self.ctx.sessions.login_csrf, "Reload the page."), 403)
        # while the address is throttled no token is checked: the reply is the same for the right one and a wrong one
        if (wait := self.ctx.sessions.throttled(client)) > 0:
            return _plain("too many failed logins; wait a minute", 429, {"Retry-After": str(int(wait) + 1)})
        session_id = self.ctx.sessions.login(client, str(form.get("token", "")))
        if session_id is None:
            failed = views.login_page(self.ctx.sessions.login_csrf, "That is not this edge's API token.")
            return HTMLResponse(failed, 401)
        response = RedirectResponse("/", 303)
        response.set_cookie(COOKIE, session_id, max_age=int(SESSION_S), httponly=True, samesite="strict")
        return response

    async def logout(self, request: Request, session: Session) -> Response:
        self.ctx.sessions.logout(request.cookies.get(COOKIE, ""))
        response = RedirectResponse("/login", 303)
        response.delete_cookie(COOKIE)
        return response

    async def ask_page(self, request: Request, session: Session) -> Response:
        return HTMLResponse(views.layout("Ask this device", views.ask_form(), session.csrf, "/"))

    async def ask(self, request: Request, session: Session) -> Response:
        """The answer without script: the whole page once the answer is read."""
        question = _question(str((await request.form()).get("question", "")))
        body = views.ask_form(question) + await _answer_html(self.ctx, question, None)
        return HTMLResponse(views.layout("Ask this device", body, session.csrf, "/"))

    async def ask_stream(self, request: Request, session: Session) -> Response:
        """The answer as it is read: JSON lines of draft text, then the answer's HTML."""
        try:
            question = _question(str((await request.json()).get("question", "")))
        except (ValueError, AttributeError):
            return _plain("send a JSON object with a question", 400)
        return StreamingResponse(_streamed(self.ctx, question), media_type="application/x-ndjson")

    async def left(self, request: Request, session: Session) -> Response:
        entries = await asyncio.to_thread(self.ctx.runtime.audit.entries)
        body = views.left_page(entries, self.ctx.runtime.config.privacy.answers)
        return HTMLResponse(views.layout("What left this device", body, session.csrf, "/left"))

    async def documents(self, request: Request, session: Session, message: str = "") -> Response:
        view = await self.ctx.edge.run(self.ctx.runtime.owner_view())
        max_bytes = self.ctx.runtime.config.ingest.max_file_bytes
        wanted = request.query_params.get("q", "")[:200] if request.method == "GET" else ""
        body = views.documents_page(view, session.csrf, message, UPLOAD_SUFFIXES, max_bytes, wanted)
        return HTMLResponse(views.layout("Documents", body, session.csrf, "/documents"))

    async def document(self, request: Request, session: Session) -> Response:
        doc_id = request.query_params.get("id", "")
        text = await self.ctx.edge.run(self.ctx.runtime.document_text(doc_id)) if doc_id else None
        if text is None:
            return _plain("no such document on this device", 404)
        return HTMLResponse(views.layout("Document", views.document_page(doc_id, text), session.csrf, "/documents"))

    async def upload(self, request: Request, session: Session) -> Response:
        form = await request.form(max_files=MAX_FILES, max_fields=4)
        files = [f for f in form.getlist("file") if isinstance(f, UploadFile) and f.filename]
        runtime = self.ctx.runtime
        max_bytes = runtime.config.ingest.max_file_bytes
        ingest = ingest_with(lambda items: self.ctx.edge.run(runtime.ingest(items)), max_bytes)
        message = await store_uploads(files, self.ctx.uploads, max_bytes, ingest)
        return await self.documents(request, session, message)

    async def delete(self, request: Request, session: Session) -> Response:
        doc_id = str((await request.form()).get("doc_id", ""))
        try:
            await self.ctx.edge.run(self.ctx.runtime.delete([doc_id]))
        except DgragError as exc:
            return await self.documents(request, session, f"Not deleted: {exc}")
        forget_upload(self.ctx.uploads, doc_id)
        return await self.documents(request, session, f"Deleted {doc_id}; the cloud's summaries follow.")

    async def link(self, request: Request, session: Session) -> Response:
        connected, last_error = self.ctx.link_state()
        syncs = [x.ts for x in await asyncio.to_thread(self.ctx.runtime.audit.entries) if x.is_construction]
        body = views.link_page(self.ctx.runtime.config.cloud.address, connected, last_error, max(syncs, default=None))
        return HTMLResponse(views.layout("Cloud link", body, session.csrf, "/link"))


def owner_app(ctx: PageContext) -> Starlette:
    """The page's routes; every one but the login and the static files needs a session."""
    h = PageHandlers(ctx)
    routes = [
        Route("/login", h.login_form, methods=["GET"]),
        Route("/login", h.login, methods=["POST"]),
        Route("/logout", guarded(ctx, h.logout, post=True), methods=["POST"]),
        Route("/", guarded(ctx, h.ask_page), methods=["GET"]),
        Route("/ask", guarded(ctx, h.ask, post=True), methods=["POST"]),
        Route("/ask/stream", guarded(ctx, h.ask_stream, post=True), methods=["POST"]),
        Route("/left", guarded(ctx, h.left), methods=["GET"]),
        Route("/documents", guarded(ctx, h.documents), methods=["GET"]),
        Route("/documents/view", guarded(ctx, h.document), methods=["GET"]),
        Route("/documents/upload", guarded(ctx, h.upload, post=True), methods=["POST"]),
        Route("/documents/delete", guarded(ctx, h.delete, post=True), methods=["POST"]),
        Route("/link", guarded(ctx, h.link), methods=["GET"]),
        Route("/favicon.ico", lambda request: Response(status_code=204), methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)


async def _answer_html(ctx: PageContext, question: str, sink: TextSink | None) -> str:
    try:
        answer = await ctx.edge.run(ctx.runtime.query(question, "full", ctx.escalator, sink))
    except DgragError as exc:
        return f"<p role=alert class=error>{views.e(exc)}</p>"
    trace = answer.trace()
    return views.answer_block(trace, await _own_passages(ctx, trace), ctx.runtime.edge_id)


async def _own_passages(ctx: PageContext, trace: AnswerTrace) -> dict[int, views.Passage]:
    mine = [s.chunk_id for s in trace.sources if views.is_own(s, ctx.runtime.edge_id)]
    found = await ctx.edge.run(ctx.runtime.passages(mine)) if mine else {}
    return {i: views.Passage(doc, text) for i, (doc, text) in found.items()}


async def _streamed(ctx: PageContext, question: str) -> AsyncIterator[bytes]:
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    page_loop = asyncio.get_running_loop()

    def sink(piece: str) -> None:  # called on the edge's loop
        page_loop.call_soon_threadsafe(queue.put_nowait, piece)

    async def answer() -> str:
        try:
            return await _answer_html(ctx, question, sink)
        finally:
            queue.put_nowait(None)

    task = asyncio.create_task(answer())
    while (piece := await queue.get()) is not None:
        yield (json.dumps({"draft": piece}) + "\n").encode()
    yield (json.dumps({"html": await task}) + "\n").encode()


def _question(text: str) -> str:
    return " ".join(text.split())[:MAX_QUESTION_CHARS]


def _same_origin(request: Request) -> bool:
    """A state-changing request must come from this page: an Origin header, when sent, names this host."""
    origin = request.headers.get("origin")
    return origin is None or origin == f"{request.url.scheme}://{request.headers.get('host', '')}"


def _plain(text: str, status: int, headers: dict[str, str] | None = None) -> Response:
    return PlainTextResponse(text, status, headers)


class BodyTooLarge(Exception):
    pass


def hardened(app: ASGIApp, max_body: int, hosts: frozenset[str] | None) -> ASGIApp:
    """``app`` with the security headers on every response. A request naming a host not in ``hosts`` is refused:
    a web page that rebinds its own name to 127.0.0.1 cannot reach the page (None: any host, page_insecure). A
    request body over ``max_body`` bytes (over :data:`MAX_LOGIN_BODY` for the login) gets 413 before it is read
    whole, however it is sent."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        if hosts is not None and host_of(headers.get(b"host", b"").decode("latin-1")) not in hosts:
            await PlainTextResponse("unknown host", 421, SECURITY_HEADERS)(scope, receive, send)
            return
        limit = MAX_LOGIN_BODY if scope.get("path") == "/login" else max_body
        declared = headers.get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > limit:
            await PlainTextResponse("the request is too large", 413, SECURITY_HEADERS)(scope, receive, send)
            return
        received = 0
        state = {"started": False, "refused": False}

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > limit:
                if not state["started"]:
                    await PlainTextResponse("the request is too large", 413, SECURITY_HEADERS)(scope, receive, send)
                    state["started"] = state["refused"] = True
                raise BodyTooLarge
            return message

        async def sending(message: Message) -> None:
            if state["refused"]:
                return  # the 413 went out; what the app sends after it is dropped
            if message["type"] == "http.response.start":
                state["started"] = True
                MutableHeaders(scope=message).update(SECURITY_HEADERS)
            await send(message)

        with contextlib.suppress(BodyTooLarge):
            await app(scope, counted, sending)

    return wrapped


def serve_owner_page(
    runtime: EdgeRuntime,
    api_token: str,
    token_file: Path,
    escalator: Any,
    link_state: Callable[[], tuple[bool, str]],
) -> HttpServer | None:
    """Serve the page at server.page_host:page_port (called on the edge's event loop); None when it is off or
    cannot listen (the edge serves its API without it, and says so)."""
    served = runtime.config.server
    if served.page_port < 0:
        return None
    if not host_is_loopback(served.page_host) and not served.page_insecure:
        raise ConfigError(
            f"page_host = {served.page_host!r} would send the page's login in the clear over the network: keep it "
            "on 127.0.0.1 and reach the page through an SSH tunnel, or set server.page_insecure = true"
        )
    ctx = PageContext(runtime, EdgeLoop(asyncio.get_running_loop()), PageSessions(api_token), link_state, escalator)
    loopback = frozenset({"127.0.0.1", "localhost", "[::1]", served.page_host, f"[{served.page_host}]"})
    hosts = None if served.page_insecure else loopback
    app = hardened(owner_app(ctx), UPLOAD_FACTOR * runtime.config.ingest.max_file_bytes + 64 * 1024, hosts)
    try:
        server = HttpServer(app, served.page_host, served.page_port, "owner's page")
    except ConfigError as exc:
        log.warning("the owner's page is not served: %s (server.page_port)", exc)
        return None
    log.info(
        "the owner's page: http://%s:%d/ (log in with the token in %s)",
        served.page_host,
        server.port,
        token_file,
    )
    return server
