"""Typed exceptions. Messages say what was wrong and what to do about it."""

from __future__ import annotations


class DgragError(Exception):
    """Base class of every error dgrag raises on purpose."""


class ConfigError(DgragError):
    """The configuration is invalid or incomplete."""


class ModelError(DgragError):
    """A model runtime could not be loaded or failed to answer."""


class ModelNotInstalledError(ModelError):
    """An optional model backend or model file is missing."""


class InputDocumentError(DgragError):
    """A document could not be read or is not acceptable for ingestion.

    ``path`` names the offending file (or bundle line) so batch ingest can report it and go on.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class NoReaderError(InputDocumentError):
    """A file of a folder that no reader takes (its type): counted and named in an ingest's report, not a failure."""


class StoreError(DgragError):
    """The edge store is unusable (wrong data directory, schema mismatch, corruption)."""


class DocumentNotFoundError(DgragError):
    """A document id that the store does not hold."""


class InvalidRequestError(DgragError):
    """A request that is malformed or out of bounds (maps to INVALID_ARGUMENT)."""


class ResourceExhaustedError(DgragError):
    """A caller asked for more than its share (a per-edge cap, too many queries at once); retry later or less."""


class PermissionDeniedError(DgragError):
    """The caller is authenticated but may not do this (maps to PERMISSION_DENIED)."""


class CloudUnavailableError(DgragError):
    """The cloud could not be reached or did not answer in time."""
