"""The cloud's Prometheus metrics (off unless ``metrics_port`` is set): questions by who asked, answer phases,
knowledge and probe bytes, words withheld from answers, calls refused, and at each scrape the edges' sessions,
summaries and trust, the questions in flight and the model calls waiting or running.

Every metric lives in the cloud's own registry (nothing at import time, nothing global), served over HTTP on
``metrics_host:metrics_port`` at ``/metrics``.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from cloud_server.parts import CloudParts
from shared.core.knowledge import CloudAnswer
from shared.transport.metrics_http import model_queue

PHASE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class CloudMetrics:
    """What the servicer and the auth interceptor record, and what a scrape reads from the services."""

    def __init__(self, parts: CloudParts, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self.questions = Counter(
            "dgrag_cloud_questions", "Questions the cloud answered or checked", ["call", "asker"], registry=r
        )
        self.stronger = Counter(
            "dgrag_cloud_checks_stronger", "Evidence checks that found another edge stronger", registry=r
        )
        self.phases = Histogram(
            "dgrag_cloud_phase_seconds",
            "Time of each phase of a cloud answer",
            ["phase"],
            buckets=PHASE_BUCKETS,
            registry=r,
        )
        self.knowledge_bytes = Counter("dgrag_cloud_knowledge_bytes", "Knowledge bytes edges sent", registry=r)
        self.probe_bytes = Counter("dgrag_cloud_probe_bytes", "Probe reply bytes edges sent", registry=r)
        self.withheld = Counter(
            "dgrag_cloud_answer_words_withheld", "Words removed from answers: they copied an edge's text", registry=r
        )
        self.refusals = Counter("dgrag_cloud_refusals", "Calls refused, by status", ["code"], registry=r)
        r.register(_StateCollector(parts))

    def answered(self, call: str, asker: str, answer: CloudAnswer | None) -> None:
        self.questions.labels(call=call, asker=asker).inc()
        if answer is None:
            return
        for phase, seconds in answer.timings.items():
            self.phases.labels(phase=phase).observe(seconds)
        self.knowledge_bytes.inc(answer.bytes_received)
        self.probe_bytes.inc(answer.probe_bytes)
        self.withheld.inc(answer.withheld_words)

    def refused(self, code: str) -> None:
        self.refusals.labels(code=code).inc()


class _StateCollector(Collector):
    """The services' state, read at each scrape."""

    def __init__(self, parts: CloudParts) -> None:
        self._parts = parts

    def collect(self) -> Iterator[Metric]:
        statuses = self._parts.edge_statuses()
        connected = GaugeMetricFamily("dgrag_cloud_edges_connected", "Edges with a live session")
        connected.add_metric([], sum(s.connected for s in statuses))
        summaries = GaugeMetricFamily("dgrag_cloud_summaries", "Summaries held per edge", labels=["edge"])
        trusted = GaugeMetricFamily("dgrag_cloud_edge_trust", "How far the edge's claims are believed", labels=["edge"])
        # the metrics page needs no credential: an edge whose policy keeps it unnamed (summaries_only) is counted,
        # never named there (its id beside its summaries would say what it knows)
        unnamed = self._parts.registry.unnamed
        for s in statuses:
            if s.edge_id not in unnamed:
                summaries.add_metric([s.edge_id], s.summaries)
                trusted.add_metric([s.edge_id], s.trust)
        hidden = GaugeMetricFamily("dgrag_cloud_edges_unnamed", "Edges whose policy keeps them out of these metrics")
        hidden.add_metric([], sum(1 for s in statuses if s.edge_id in unnamed))
        in_flight = GaugeMetricFamily("dgrag_cloud_queries_in_flight", "Questions and checks being answered")
        in_flight.add_metric([], self._parts.queries.in_flight)
        embedded = CounterMetricFamily(
            "dgrag_cloud_summaries_embedded", "Summaries the cloud embedded since it started"
        )
        embedded.add_metric([], self._parts.index.embedded)
        waiting = GaugeMetricFamily("dgrag_cloud_summaries_waiting", "Summaries held, routable by words, not embedded")
        waiting.add_metric([], self._parts.index.waiting())
        yield from (connected, summaries, trusted, hidden, in_flight, embedded, waiting, model_queue("dgrag_cloud"))
