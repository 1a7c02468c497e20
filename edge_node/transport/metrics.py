"""An edge's Prometheus metrics (off unless ``server.metrics_port`` is set): questions by mode and decision,
the phases of its answers, the bytes that left it by kind and recipient (as its audit log records them) and,
at each scrape, its model calls waiting or running."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from edge_node.policy.audit import AuditEntry, AuditLog
from shared.transport.metrics_http import model_queue

PHASE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class EdgeMetrics:
    def __init__(self, audit: AuditLog, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self.questions = Counter(
            "dgrag_edge_questions", "Questions answered, by decision", ["mode", "decision"], registry=r
        )
        self.phases = Histogram(
            "dgrag_edge_phase_seconds", "Time of each phase of an answer", ["phase"], buckets=PHASE_BUCKETS, registry=r
        )
        self.bytes_out = Counter("dgrag_edge_bytes_out", "Bytes that left the edge", ["what", "to"], registry=r)
        audit.observers.append(self.left)
        r.register(_ModelQueue())

    def answered(self, mode: str, decision: str, timings: dict[str, float]) -> None:
        self.questions.labels(mode=mode, decision=decision).inc()
        for phase, seconds in timings.items():
            self.phases.labels(phase=phase).observe(seconds)

    def left(self, entry: AuditEntry) -> None:
        self.bytes_out.labels(what=entry.what, to=entry.to).inc(entry.bytes)


class _ModelQueue(Collector):
    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield model_queue("dgrag_edge")
