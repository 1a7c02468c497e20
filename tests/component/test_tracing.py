"""OpenTelemetry traces: one escalated question is one trace through the asking edge, the cloud and the edge
it asks (real gRPC on loopback, scripted models), and what crosses between processes is bounded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shared.config.tracing import TracingConfig
from shared.transport.tracing import continued, current_traceparent, linked, span, traced_process
from tests.support.grpc_harness import ACME, ZEPHYR, ask, connected, run, start_network

QUESTION = "Who founded Zephyr Medical in Lisbon?"


def _spans(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_an_escalated_question_is_one_trace_with_its_phases_as_spans(tmp_path: Path) -> None:
    file = tmp_path / "spans.jsonl"

    async def main() -> str:
        net = await start_network(tmp_path, {"edge-a": ACME, "edge-b": ZEPHYR})
        try:
            await connected(net, "edge-a", "edge-b")
            reply = await ask(net, "edge-a", QUESTION)
            return reply.decision
        finally:
            await net.close()

    with traced_process(TracingConfig(file=str(file)), "dgrag-test"):
        assert run(main()) == "cloud"
    spans = _spans(file)
    by_id = {s["context"]["span_id"]: s for s in spans}
    (root,) = [s for s in spans if s["name"] == "edge.query"]
    assert root["parent_id"] is None and root["attributes"]["decision"] == "cloud"
    # the evidence check comes first: edge-b is stronger, so the cloud answers in the check's call
    (served,) = [s for s in spans if s["name"] in ("cloud.global_query", "cloud.check_evidence")]
    (asking,) = [s for s in spans if s["name"] == "edge.ask_cloud"]
    assert served["parent_id"] is None, "the cloud starts a trace of its own for a participant's call"
    assert served["context"]["trace_id"] != root["context"]["trace_id"]
    assert [link["context"]["span_id"] for link in served["links"]] == [asking["context"]["span_id"]], "linked"
    trace_ids = {root["context"]["trace_id"], served["context"]["trace_id"]}
    question = [s for s in spans if s["context"]["trace_id"] in trace_ids]
    names = {s["name"] for s in question}
    assert "generation" not in names and "gate" not in names, "edge-a's model did not read: the check came first"
    assert names >= {
        "edge.query",
        "retrieval",
        "edge.ask_cloud",
        "summary_match",
        "fan_out",
        "cloud.ask_edge",
        "edge.retrieval_request",
        "rescore",
        "merge",
        "cloud_generation",
    }, names

    def parent(s: dict[str, Any]) -> dict[str, Any]:
        return by_id[s["parent_id"]]

    answered = [s for s in question if s["name"] == "edge.retrieval_request"]
    assert answered and all(parent(s)["name"] == "cloud.ask_edge" for s in answered), "edges continue the request"
    assert {parent(s)["attributes"]["edge"] for s in answered} == {"edge-a", "edge-b"}
    assert "Zephyr" not in file.read_text() and "Lisbon" not in file.read_text(), "no question text in spans"
    assert oct(file.stat().st_mode & 0o777) == "0o600"


def test_a_traceparent_from_another_process_is_bounded_and_nothing_else_is_taken(tmp_path: Path) -> None:
    file = tmp_path / "spans.jsonl"
    good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    with traced_process(TracingConfig(file=str(file)), "dgrag-test"):
        with continued("served", good):
            carried = current_traceparent()
        with continued("overlong", "00-" + "a" * 200 + "-00f067aa0ba902b7-01"):
            pass
        with continued("malformed", "not a traceparent"):
            pass
        with span("alone"):
            pass
    spans = {s["name"]: s for s in _spans(file)}
    assert spans["served"]["context"]["trace_id"] == "0x4bf92f3577b34da6a3ce929d0e0e4736"
    assert spans["served"]["parent_id"] == "0x00f067aa0ba902b7"
    assert carried.startswith("00-4bf92f3577b34da6a3ce929d0e0e4736-") and "tracestate" not in carried
    for name in ("overlong", "malformed"):
        assert spans[name]["parent_id"] is None, f"a {name} traceparent starts a new trace"


def test_a_callers_trace_is_linked_not_continued_and_its_sampled_flag_is_not_obeyed(tmp_path: Path) -> None:
    file = tmp_path / "spans.jsonl"
    unsampled = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"
    with traced_process(TracingConfig(file=str(file)), "dgrag-test"), linked("served", unsampled):
        carried = current_traceparent()
    (served,) = _spans(file)
    assert served["parent_id"] is None and served["context"]["trace_id"] != "0x4bf92f3577b34da6a3ce929d0e0e4736"
    assert served["links"][0]["context"]["trace_id"] == "0x4bf92f3577b34da6a3ce929d0e0e4736"
    assert "4bf92f3577b34da6a3ce929d0e0e4736" not in carried, "the caller's id goes no further"


def test_tracing_off_costs_no_file_and_carries_nothing(tmp_path: Path) -> None:
    with traced_process(TracingConfig(), "dgrag-test") as tracing, span("x"):
        assert current_traceparent() == ""
    assert tracing is None and not list(tmp_path.iterdir())


def test_spans_reach_an_otlp_collector_over_http() -> None:
    import http.server
    import threading

    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    received: list[ExportTraceServiceRequest] = []

    class Collector(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append(ExportTraceServiceRequest.FromString(body))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        endpoint = f"http://127.0.0.1:{server.server_port}/v1/traces"
        config = TracingConfig(otlp_endpoint=endpoint)
        with traced_process(config, "dgrag-test", edge="edge-a"), span("outer"), span("inner"):
            pass
    finally:
        server.shutdown()
    spans = [s for r in received for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans]
    assert sorted(s.name for s in spans) == ["inner", "outer"]
    attributes = {
        a.key: a.value.string_value for r in received for rs in r.resource_spans for a in rs.resource.attributes
    }
    assert attributes["service.name"] == "dgrag-test" and attributes["dgrag.edge"] == "edge-a"
