"""One mapping from dgrag's typed errors to gRPC status codes, for every servicer."""

from __future__ import annotations

import grpc

from shared.core.errors import (
    DgragError,
    DocumentNotFoundError,
    InvalidRequestError,
    ModelError,
    PermissionDeniedError,
    ResourceExhaustedError,
    StoreError,
)


def status_for(exc: DgragError) -> grpc.StatusCode:
    """The status a caller gets for ``exc``; errors without a more specific meaning are the caller's input."""
    if isinstance(exc, DocumentNotFoundError):
        return grpc.StatusCode.NOT_FOUND
    if isinstance(exc, PermissionDeniedError):
        return grpc.StatusCode.PERMISSION_DENIED
    if isinstance(exc, ResourceExhaustedError):
        return grpc.StatusCode.RESOURCE_EXHAUSTED
    if isinstance(exc, ModelError):
        return grpc.StatusCode.UNAVAILABLE
    if isinstance(exc, StoreError):
        return grpc.StatusCode.FAILED_PRECONDITION
    if isinstance(exc, InvalidRequestError):
        return grpc.StatusCode.INVALID_ARGUMENT
    return grpc.StatusCode.INVALID_ARGUMENT
