"""OpenTelemetry traces of questions across edge -> cloud -> edges (off unless ``[tracing]`` says where to).

One question is one trace: the asking edge's ``edge.query`` span is its root; the cloud's ``cloud.global_query``
(or ``cloud.check_evidence``) continues it from the W3C ``traceparent`` in the call's gRPC metadata; each edge
the cloud probes or asks continues it from the ``traceparent`` field of the request message (the cloud's
requests travel on the edge's own session stream, where per-call metadata does not exist). The phases a reply's
``timings`` reports are spans of the same names.

Only ``traceparent`` crosses a process (random ids and a sampled flag, at most 128 characters read): no
``tracestate`` or baggage, so one participant cannot pass data to another through the cloud. Spans carry ids,
decisions, edge ids and sizes, never the text of a question or a document.

Tracing is per process: :func:`start_tracing` at a server's start, :meth:`Tracing.shutdown` at its end. Without
it every span is OpenTelemetry's no-op, which costs next to nothing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from shared.config.tracing import TracingConfig
from shared.core.errors import ConfigError

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider

TRACEPARENT = "traceparent"
MAX_TRACEPARENT_CHARS = 128
TRACER_NAME = "dgrag"

_PROPAGATOR = TraceContextTextMapPropagator()
_PROVIDERS: list[TracerProvider] = []


@dataclass
class Tracing:
    """This process's tracing, as :func:`start_tracing` set it up."""

    provider: TracerProvider
    file: IO[str] | None

    def shutdown(self) -> None:
        """Export what is pending and stop (spans after this are no-ops)."""
        self.provider.shutdown()
        if self.file is not None:
            self.file.close()
        if _PROVIDERS and _PROVIDERS[0] is self.provider:
            _PROVIDERS.clear()


def start_tracing(config: TracingConfig, service: str, **attributes: str) -> Tracing | None:
    """Record this process's spans as ``config`` says, as ``service`` (e.g. dgrag-cloud); None when off."""
    if not config.enabled:
        return None
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor
        from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased
    except ImportError as exc:
        raise ConfigError(
            "[tracing] is on but the OpenTelemetry SDK is not installed; run: pip install 'dgrag[otel]'"
        ) from exc
    resource = Resource.create({"service.name": service, **{f"dgrag.{k}": v for k, v in attributes.items()}})
    provider = TracerProvider(resource=resource, sampler=ParentBased(TraceIdRatioBased(config.sample_ratio)))
    handle = None
    if config.file:
        try:
            handle = os.fdopen(os.open(config.file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "a")
        except OSError as exc:
            raise ConfigError(f"tracing.file {config.file} cannot be written ({exc.strerror}); fix the path") from exc
        exporter = ConsoleSpanExporter(out=handle, formatter=_json_line)
        provider.add_span_processor(SimpleSpanProcessor(exporter))  # on disk as each span ends
    if config.otlp_endpoint:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=config.otlp_endpoint)))
    _PROVIDERS[:] = [provider]
    return Tracing(provider, handle)


@contextmanager
def traced_process(config: TracingConfig, service: str, **attributes: str) -> Iterator[Tracing | None]:
    """This process traced as ``config`` says for the block (what is pending is exported at its end)."""
    tracing = start_tracing(config, service, **attributes)
    try:
        yield tracing
    finally:
        if tracing is not None:
            tracing.shutdown()


def _json_line(span: ReadableSpan) -> str:
    return str(span.to_json(indent=None)) + "\n"


def tracer() -> trace.Tracer:
    """The tracer of this process's tracing (a no-op one when tracing is off)."""
    return _PROVIDERS[0].get_tracer(TRACER_NAME) if _PROVIDERS else trace.NoOpTracer()


@contextmanager
def span(name: str, kind: SpanKind = SpanKind.INTERNAL, **attributes: Any) -> Iterator[Span]:
    """A span around the block, child of the current one."""
    with tracer().start_as_current_span(name, kind=kind, attributes=attributes) as current:
        yield current


@contextmanager
def client_span(name: str, **attributes: Any) -> Iterator[Span]:
    """A span around a request to another process (whose trace context goes with the request)."""
    with span(name, SpanKind.CLIENT, **attributes) as current:
        yield current


@contextmanager
def phase(timings: dict[str, float], name: str, **attributes: Any) -> Iterator[Span]:
    """A span named ``name`` around the block, whose seconds are also recorded in ``timings[name]``."""
    started = time.perf_counter()
    try:
        with span(name, **attributes) as current:
            yield current
    finally:
        timings[name] = time.perf_counter() - started


@contextmanager
def continued(name: str, traceparent: str, **attributes: Any) -> Iterator[Span]:
    """A server span continuing the trace another process named in ``traceparent`` (a new trace when it names
    none or is malformed; anything but the traceparent is ignored)."""
    parent = None
    if traceparent and len(traceparent) <= MAX_TRACEPARENT_CHARS:
        parent = _PROPAGATOR.extract({TRACEPARENT: traceparent})
    with tracer().start_as_current_span(name, context=parent, kind=SpanKind.SERVER, attributes=attributes) as current:
        yield current


@contextmanager
def linked(name: str, traceparent: str, **attributes: Any) -> Iterator[Span]:
    """A server span starting a trace of this process's own, linked to the caller's (for calls from another
    participant): the caller's trace id goes no further than the link, so it cannot hand an id through this
    process to the ones it calls, and whether to sample is decided here, not by the caller's sampled flag."""
    links = []
    if traceparent and len(traceparent) <= MAX_TRACEPARENT_CHARS:
        remote = trace.get_current_span(_PROPAGATOR.extract({TRACEPARENT: traceparent})).get_span_context()
        if remote.is_valid:
            links.append(trace.Link(remote))
    root = trace.set_span_in_context(trace.INVALID_SPAN)
    with tracer().start_as_current_span(
        name, context=root, kind=SpanKind.SERVER, links=links, attributes=attributes
    ) as current:
        yield current


def current_traceparent() -> str:
    """The W3C traceparent of the current span ("" when nothing is traced)."""
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier)
    return carrier.get(TRACEPARENT, "")


def traceparent_of(metadata: Sequence[tuple[str, str | bytes]] | None) -> str:
    """The traceparent a call's metadata carries ("" when none)."""
    for key, value in metadata or ():
        if key == TRACEPARENT and isinstance(value, str):
            return value
    return ""


def with_traceparent(metadata: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """``metadata`` plus the current span's traceparent, when one is traced."""
    parent = current_traceparent()
    return (*metadata, (TRACEPARENT, parent)) if parent else tuple(metadata)
