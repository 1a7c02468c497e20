"""Where a process sends its OpenTelemetry traces (the cloud's and each edge's ``[tracing]`` table)."""

from __future__ import annotations

from dataclasses import dataclass

from shared.core.errors import ConfigError


@dataclass(frozen=True)
class TracingConfig:
    """OpenTelemetry traces of questions: off unless a file or an OTLP endpoint is set. Spans carry ids,
    decisions, edge ids and sizes, never a question's or a document's text."""

    file: str = ""
    """Append each finished span to this file (mode 0600), one OpenTelemetry span JSON per line; "" = off."""
    otlp_endpoint: str = ""
    """Send spans over OTLP/HTTP to this collector URL, e.g. http://127.0.0.1:4318/v1/traces; "" = off."""
    sample_ratio: float = 1.0
    """Share of the traces begun here that are recorded (a question traced upstream is traced here too)."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.sample_ratio <= 1.0:
            raise ConfigError(f"tracing.sample_ratio = {self.sample_ratio}; use a share between 0 and 1")

    @property
    def enabled(self) -> bool:
        return bool(self.file or self.otlp_endpoint)
