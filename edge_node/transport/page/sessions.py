"""Who may use the owner's page: a login with the edge's API token opens a session (an HttpOnly, SameSite=Strict
cookie); each session has its own CSRF token, which every form and script request must send back. Failed logins
are throttled per address; sessions expire."""

from __future__ import annotations

import hmac
import secrets
import time
from dataclasses import dataclass

from shared.core.addresses import address_block
from shared.transport.call_limits import CallBuckets

COOKIE = "dgrag_owner"
SESSION_S = 12 * 3600.0
"""A session lasts this long without a new login."""
MAX_SESSIONS = 64
FAILED_LOGINS_PER_MINUTE, FAILED_LOGIN_BURST = 10.0, 5


@dataclass(frozen=True)
class Session:
    csrf: str
    expires: float


class PageSessions:
    """The page's sessions, in memory (a restart logs everyone out)."""

    def __init__(self, token: str) -> None:
        self._token = token
        self._sessions: dict[str, Session] = {}
        self._failures = CallBuckets(FAILED_LOGINS_PER_MINUTE, FAILED_LOGIN_BURST)
        self._login_csrf = secrets.token_urlsafe(24)
        """The CSRF token of the login form itself (the same for every visitor: it only proves the form is ours)."""

    @property
    def login_csrf(self) -> str:
        return self._login_csrf

    def throttled(self, client: str) -> float:
        """Seconds ``client`` must wait before trying to log in again (0: it may)."""
        return self._failures.waiting(address_block(client))

    def login(self, client: str, token: str) -> str | None:
        """A new session id when ``token`` is the edge's API token; a failure counts against ``client``. While
        ``client`` is throttled no token is checked, the right one neither: a guess then tells nothing."""
        if self.throttled(client):
            return None
        if not hmac.compare_digest(token.strip().encode(), self._token.encode()):
            self._failures.take(address_block(client))
            return None
        now = time.time()
        self._sessions = {k: s for k, s in self._sessions.items() if s.expires > now}
        while len(self._sessions) >= MAX_SESSIONS:
            self._sessions.pop(min(self._sessions, key=lambda k: self._sessions[k].expires))
        session_id = secrets.token_urlsafe(32)
        self._sessions[session_id] = Session(secrets.token_urlsafe(32), now + SESSION_S)
        return session_id

    def logout(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)

    def of(self, session_id: str) -> Session | None:
        """The live session ``session_id`` names, if any."""
        session = self._sessions.get(session_id)
        if session is None or session.expires <= time.time():
            return None
        return session

    @staticmethod
    def csrf_ok(session: Session, given: str) -> bool:
        return bool(given) and hmac.compare_digest(given.encode(), session.csrf.encode())
