"""Bearer-token checks both servers share: a refusing handler of the right shape, and the edge API's interceptor."""

from __future__ import annotations

import hmac
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from shared.core.addresses import address_block
from shared.core.constants import AUTHORIZATION_HEADER
from shared.transport.call_limits import RETRY_PUSHBACK, CallBuckets, peer_host

OPEN_SERVICES = ("/grpc.health.v1.Health/",)
"""Methods anyone may call (health checks tell nothing about the data)."""


def bearer_token(metadata: Any) -> str:
    """The token of an ``authorization: Bearer <token>`` entry, or ""."""
    values = {k.lower(): v for k, v in (metadata or ()) if isinstance(v, str)}
    return bearer_of(values.get(AUTHORIZATION_HEADER, ""))


def bearer_of(header: str) -> str:
    """The token of an ``Authorization: Bearer <token>`` header value, or ""."""
    return header[len("Bearer ") :].strip() if header.startswith("Bearer ") else ""


def bearer_metadata(token: str) -> tuple[tuple[str, str], ...]:
    return ((AUTHORIZATION_HEADER, f"Bearer {token}"),)


@dataclass(frozen=True)
class Refusal:
    """Why a call is refused: its status code and a message that says what to do."""

    code: grpc.StatusCode
    message: str
    retry_after_s: float = 0.0
    """When the caller may try again (sent as the grpc-retry-pushback-ms trailer); 0: not a matter of time."""


PeerCheck = Callable[[grpc.aio.ServicerContext], Refusal | None]
FAILED_AUTH_BURST = 10
"""Failed authentications one address may have at once before failed_auth_per_minute paces it."""


class CredentialInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Admits a call when :meth:`check` finds its credentials good; health checks are open; an admitted
    unary request that does not parse is refused as INVALID_ARGUMENT. Subclasses say what a good credential is.
    ``on_refusal`` (when set) hears the status of every refused call (the metrics count them)."""

    on_refusal: Callable[[str], None] | None = None
    failed_auth: CallBuckets | None = None
    """Failed authentications each peer address may have a minute; past them every call from that address, with
    good credentials or not, is refused for a while (a guessed token is never judged). None: no limit."""

    def check(self, method: str, metadata: Any) -> Refusal | None:
        """None to admit a call to ``method`` with ``metadata``, else why it is refused."""
        raise NotImplementedError

    def peer_check(self, metadata: Any) -> PeerCheck | None:
        """A check of the admitted call's connection (e.g. its TLS client certificate), run when it starts."""
        return None

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None or details.method.startswith(OPEN_SERVICES):
            return handler
        refused = self.check(details.method, details.invocation_metadata)
        if refused is not None:
            if self.on_refusal is not None:
                self.on_refusal(refused.code.name)
            if refused.code == grpc.StatusCode.UNAUTHENTICATED and self.failed_auth is not None:
                return checked(refusal(handler, refused), self._count_failure(refused))
            return refusal(handler, refused)
        handler = reject_malformed(handler)
        if self.failed_auth is not None:
            handler = checked(handler, self._blocked)
        peer = self.peer_check(details.invocation_metadata)
        return handler if peer is None else checked(handler, peer)

    def _count_failure(self, refused: Refusal) -> PeerCheck:
        def count(context: grpc.aio.ServicerContext) -> Refusal:
            host = address_block(peer_host(context.peer() or ""))
            assert self.failed_auth is not None
            if (wait := self.failed_auth.take(host)) > 0:
                return _too_many_failures(host, wait)
            return refused

        return count

    def _blocked(self, context: grpc.aio.ServicerContext) -> Refusal | None:
        host = address_block(peer_host(context.peer() or ""))
        assert self.failed_auth is not None
        wait = self.failed_auth.waiting(host)
        return _too_many_failures(host, wait) if wait > 0 else None


def _too_many_failures(host: str, wait: float) -> Refusal:
    return Refusal(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        f"too many failed authentications from {host}; every call from it is refused for {math.ceil(wait)} s "
        "(failed_auth_per_minute)",
        retry_after_s=wait,
    )


class ApiTokenInterceptor(CredentialInterceptor):
    """Admits a call only with the one API token (the edge's local API: apps on the device hold the token)."""

    def __init__(self, token: str, what: str) -> None:
        self._token = token.encode()
        self._what = what

    def check(self, method: str, metadata: Any) -> Refusal | None:
        token = bearer_token(metadata)
        if token and hmac.compare_digest(token.encode(), self._token):
            return None
        why = "no authorization metadata" if not token else "a wrong token"
        return Refusal(
            grpc.StatusCode.UNAUTHENTICATED,
            f"unauthenticated: {why}; send `authorization: Bearer <token>` with {self._what}",
        )


class _Malformed:
    """Stands in for a request whose bytes did not parse."""


def reject_malformed(handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
    """``handler`` with undecodable unary requests refused as INVALID_ARGUMENT (gRPC's own answer is UNKNOWN)."""
    if handler is None or handler.request_streaming or handler.request_deserializer is None:
        return handler
    parse = handler.request_deserializer

    def deserialize(data: bytes) -> Any:
        try:
            return parse(data)
        except DecodeError:
            return _Malformed()

    inner = handler.unary_unary or handler.unary_stream

    async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
        if isinstance(request, _Malformed):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the request is not a valid protobuf message")
        return await inner(request, context)

    async def streaming(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        if isinstance(request, _Malformed):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the request is not a valid protobuf message")
        async for item in inner(request, context):
            yield item

    kwargs = {"request_deserializer": deserialize, "response_serializer": handler.response_serializer}
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(streaming, **kwargs)
    return grpc.unary_unary_rpc_method_handler(unary, **kwargs)


def refusal(handler: grpc.RpcMethodHandler, refused: Refusal) -> grpc.RpcMethodHandler:
    """A handler of the same shape as ``handler`` that aborts every call as ``refused`` says, without parsing its
    request (the bytes stay bytes: a refused caller's message costs no protobuf decoding, whatever its size)."""
    trailer = ((RETRY_PUSHBACK, str(math.ceil(refused.retry_after_s * 1000))),) if refused.retry_after_s else ()

    async def deny(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(refused.code, refused.message, trailing_metadata=trailer)

    async def deny_stream(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        await context.abort(refused.code, refused.message, trailing_metadata=trailer)
        yield  # pragma: no cover - abort raises

    kwargs = {"request_deserializer": None, "response_serializer": handler.response_serializer}
    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(deny_stream, **kwargs)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(deny, **kwargs)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(deny_stream, **kwargs)
    return grpc.unary_unary_rpc_method_handler(deny, **kwargs)


def checked(handler: grpc.RpcMethodHandler, check: PeerCheck) -> grpc.RpcMethodHandler:
    """``handler`` that first runs ``check`` on the call's context and aborts the call as it says."""

    async def guard(context: grpc.aio.ServicerContext) -> None:
        refused = check(context)
        if refused is not None:
            wait = refused.retry_after_s
            trailer = ((RETRY_PUSHBACK, str(math.ceil(wait * 1000))),) if wait else ()
            await context.abort(refused.code, refused.message, trailing_metadata=trailer)

    kwargs = {"request_deserializer": handler.request_deserializer, "response_serializer": handler.response_serializer}
    if handler.request_streaming and handler.response_streaming:
        inner_ss = handler.stream_stream

        async def stream_stream(requests: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            await guard(context)
            async for item in inner_ss(requests, context):
                yield item

        return grpc.stream_stream_rpc_method_handler(stream_stream, **kwargs)
    if handler.response_streaming:
        inner_us = handler.unary_stream

        async def unary_stream(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            await guard(context)
            async for item in inner_us(request, context):
                yield item

        return grpc.unary_stream_rpc_method_handler(unary_stream, **kwargs)
    inner = handler.stream_unary if handler.request_streaming else handler.unary_unary

    async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await guard(context)
        return await inner(request, context)

    make = grpc.stream_unary_rpc_method_handler if handler.request_streaming else grpc.unary_unary_rpc_method_handler
    return make(unary, **kwargs)
