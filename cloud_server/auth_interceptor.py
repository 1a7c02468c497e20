"""Server interceptor: every call but health checks must carry a known edge id and its token."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from cloud_server.tokens import TokenBook
from shared.constants import AUTHORIZATION_HEADER, EDGE_ID_HEADER

OPEN_SERVICES = ("/grpc.health.v1.Health/",)


def caller_identity(metadata: Any) -> tuple[str, str]:
    """(edge id, bearer token) from call metadata; empty strings where absent."""
    values = {k.lower(): v for k, v in (metadata or ()) if isinstance(v, str)}
    token = values.get(AUTHORIZATION_HEADER, "")
    token = token[len("Bearer ") :].strip() if token.startswith("Bearer ") else ""
    return values.get(EDGE_ID_HEADER, "").strip(), token


class TokenAuthInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Refuses calls without a valid (edge id, token) pair with UNAUTHENTICATED."""

    def __init__(self, tokens: TokenBook) -> None:
        self._tokens = tokens

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None or details.method.startswith(OPEN_SERVICES):
            return handler
        edge_id, token = caller_identity(details.invocation_metadata)
        if edge_id and token and self._tokens.check(edge_id, token):
            return handler
        why = (
            "missing x-dgrag-edge-id or authorization metadata"
            if not (edge_id and token)
            else f"the token is not valid for edge {edge_id!r}"
        )
        return _refusal(handler, f"unauthenticated: {why}; configure this edge's token (cloud.token_env)")


def _refusal(handler: grpc.RpcMethodHandler, message: str) -> grpc.RpcMethodHandler:
    async def deny(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)

    async def deny_stream(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)
        yield  # pragma: no cover - abort raises

    kwargs = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }
    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(deny_stream, **kwargs)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(deny, **kwargs)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(deny_stream, **kwargs)
    return grpc.unary_unary_rpc_method_handler(deny, **kwargs)
