"""Server interceptor: every call but health checks must carry a known id, its token and a role allowed the method.

Wrong or missing credentials get UNAUTHENTICATED; a valid credential whose role may not call the method gets
PERMISSION_DENIED (an edge cannot list edges or match summaries; an app cannot open an edge session).
"""

from __future__ import annotations

import logging
import time
from typing import Any

import grpc

from cloud_server.sessions.tokens import Role, TokenBook
from shared.core.constants import EDGE_ID_HEADER
from shared.transport.call_limits import CallBuckets
from shared.transport.grpc_auth import CredentialInterceptor, PeerCheck, Refusal, bearer_token

CLOUD_METHODS: dict[str, frozenset[Role]] = {
    "/dgrag.v1.Cloud/Session": frozenset({"edge"}),
    "/dgrag.v1.Cloud/GlobalQuery": frozenset({"edge", "app", "admin"}),
    "/dgrag.v1.Cloud/GlobalQueryStream": frozenset({"edge", "app", "admin"}),
    "/dgrag.v1.Cloud/MatchSummaries": frozenset({"app", "admin"}),
    "/dgrag.v1.Cloud/ListEdges": frozenset({"admin"}),
    "/dgrag.v1.Cloud/CheckEvidence": frozenset({"edge"}),
}
"""Which roles may call each method; a method not listed is refused to everybody."""


LOG_EVERY_S = 60.0
MAX_LOGGED_IDS = 10_000
log = logging.getLogger("dgrag.cloud")


def caller_identity(metadata: Any) -> tuple[str, str]:
    """(caller id, bearer token) from call metadata; empty strings where absent."""
    values = {k.lower(): v for k, v in (metadata or ()) if isinstance(v, str)}
    return values.get(EDGE_ID_HEADER, "").strip(), bearer_token(metadata)


class TokenAuthInterceptor(CredentialInterceptor):
    """Refuses calls without a valid (id, token) pair, or from a role the method does not admit."""

    def __init__(
        self,
        tokens: TokenBook,
        methods: dict[str, frozenset[Role]] | None = None,
        buckets: CallBuckets | None = None,
        certified: bool = False,
    ) -> None:
        self._tokens = tokens
        self._methods = CLOUD_METHODS if methods is None else methods
        self._buckets = buckets
        self._certified = certified
        self._logged: dict[str, float] = {}
        """Mutual TLS: the client certificate's common name must be the id the caller claims."""

    def peer_check(self, metadata: Any) -> PeerCheck | None:
        if not self._certified:
            return None
        caller_id, _ = caller_identity(metadata)

        def certificate_names_caller(context: grpc.aio.ServicerContext) -> Refusal | None:
            names = [n.decode(errors="replace") for n in context.auth_context().get("x509_common_name", [])]
            if caller_id in names:
                return self._spend(caller_id)  # only a call the certificate admits spends the caller's budget
            return Refusal(
                grpc.StatusCode.UNAUTHENTICATED,
                f"unauthenticated: the client certificate names {names or 'nobody'}, not {caller_id!r}; each caller"
                " uses its own certificate (dgrag certs)",
            )

        return certificate_names_caller

    def check(self, method: str, metadata: Any) -> Refusal | None:
        caller_id, token = caller_identity(metadata)
        if not (caller_id and token):
            return Refusal(
                grpc.StatusCode.UNAUTHENTICATED,
                "unauthenticated: missing x-dgrag-edge-id or authorization metadata; configure a token",
            )
        credential = self._tokens.check(caller_id, token)
        if credential is None:
            self._log_refusal(caller_id)
            return Refusal(
                grpc.StatusCode.UNAUTHENTICATED,
                f"unauthenticated: the token is not valid for {caller_id!r}; check the tokens file",
            )
        allowed = self._methods.get(method, frozenset())
        if credential.role not in allowed:
            who = ", ".join(sorted(allowed)) or "nobody"
            return Refusal(
                grpc.StatusCode.PERMISSION_DENIED,
                f"permission denied: {caller_id!r} is an {credential.role} credential; {method} is for: {who}",
            )
        return None if self._certified else self._spend(caller_id)

    def _log_refusal(self, caller_id: str) -> None:
        """Say in the cloud's log that ``caller_id`` was refused, once a minute per id (a flood of guesses does not
        flood the log)."""
        now = time.monotonic()
        if now - self._logged.get(caller_id[:64], -LOG_EVERY_S) >= LOG_EVERY_S:
            if len(self._logged) > MAX_LOGGED_IDS:
                self._logged.clear()
            self._logged[caller_id[:64]] = now
            known = (
                "a known id with a wrong token" if self._tokens.role_of(caller_id) else "an id not in the tokens file"
            )
            log.warning(
                "refused a call from %r: %s (the caller's token settings or this tokens file)", caller_id[:64], known
            )

    def _spend(self, caller_id: str) -> Refusal | None:
        if self._buckets is not None and (wait := self._buckets.take(caller_id)) > 0:
            message = self._buckets.refusal_message(caller_id, wait)
            return Refusal(grpc.StatusCode.RESOURCE_EXHAUSTED, message, retry_after_s=wait)
        return None
