"""A real cloud and real edge processes on loopback with the embedded models: escalation and routing,
a document change reaching the cloud as a delta, an edge killed mid-query, a wrong token refused."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from edge_node.transport.api_token import read_api_token
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc, edge_pb2, edge_pb2_grpc
from shared.transport.grpc_auth import bearer_metadata
from shared.transport.grpc_transport import auth_metadata
from shared.transport.secret_file import write_secret
from simulation.processes import dgrag_command

pytestmark = pytest.mark.integration

START_TIMEOUT_S = 300.0
DEADLINE_S = 4.0
A_TEXT = (
    "The Harbor Bakery in Bristol is owned by Alice Morgan. Alice Morgan bakes sourdough bread every morning. "
    "The Harbor Bakery sells rye loaves and cinnamon buns to cafes in Bristol.\n"
)
B_TEXT = (
    "The Kestrel Observatory stands on Mount Aragats in Armenia. Astronomer Tigran Petrosyan directs the "
    "Kestrel Observatory. In 2021 Tigran Petrosyan discovered the comet Petrosyan-3 with its telescope.\n"
)
B_CHANGED = (
    "The Kestrel Observatory moved its telescope to La Palma in Spain. Astronomer Lucia Navarro now directs "
    "the Kestrel Observatory on La Palma and studies exoplanets.\n"
)
EDGES = ("edge-a", "edge-b")
ADMIN = "ops"


def token(edge_id: str) -> str:
    return f"integration-token-{edge_id}-0123456789"


def _wait_port(path: Path, proc: subprocess.Popen[str], log: Path) -> int:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if path.exists():
            return int(path.read_text().strip())
        if proc.poll() is not None:
            raise AssertionError(f"process exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)
    raise AssertionError(f"no port after {START_TIMEOUT_S} s:\n{log.read_text()[-3000:]}")


@dataclass
class Cluster:
    tmp: Path
    cloud_port: int
    edge_ports: dict[str, int]
    procs: dict[str, subprocess.Popen[str]]

    def cloud_stub(self, channel: grpc.aio.Channel) -> cloud_pb2_grpc.CloudStub:
        return cloud_pb2_grpc.CloudStub(channel)

    async def match(self, question: str, m: int = 5) -> list[cloud_pb2.SummaryMatch]:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{self.cloud_port}") as channel:
            reply = await self.cloud_stub(channel).MatchSummaries(
                cloud_pb2.MatchSummariesRequest(question=question, top_m=m),
                metadata=auth_metadata(ADMIN, token(ADMIN)),
            )
        return list(reply.summaries)

    async def edges(self) -> dict[str, cloud_pb2.EdgeInfo]:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{self.cloud_port}") as channel:
            reply = await self.cloud_stub(channel).ListEdges(
                cloud_pb2.ListEdgesRequest(), metadata=auth_metadata(ADMIN, token(ADMIN))
            )
        return {e.edge_id: e for e in reply.edges}

    def api_token_file(self, edge_id: str) -> Path:
        return self.tmp / edge_id / "api.token"


def _start(cmd: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(cmd, stdout=log.open("w"), stderr=subprocess.STDOUT, text=True, env=env)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    tmp = tmp_path_factory.mktemp("network")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "DGRAG__SUMMARY__MAX_TOKENS": "64"}
    _ingest_edges(tmp, env)
    procs: dict[str, subprocess.Popen[str]] = {}
    try:
        cloud_port = _start_cloud(tmp, env, procs)
        ports = _start_edges(tmp, env, cloud_port, procs)
        c = Cluster(tmp, cloud_port, ports, procs)
        asyncio.run(_synced(c, tmp))
        yield c
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs.values():
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()


def _ingest_edges(tmp: Path, env: dict[str, str]) -> None:
    for edge_id, text in zip(EDGES, (A_TEXT, B_TEXT), strict=True):
        (tmp / f"{edge_id}.txt").write_text(text)
        done = subprocess.run(
            [
                *dgrag_command(),
                "edge",
                "ingest",
                "--data-dir",
                str(tmp / edge_id),
                "--edge-id",
                edge_id,
                str(tmp / f"{edge_id}.txt"),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=START_TIMEOUT_S,
            check=False,
        )
        assert done.returncode == 0, done.stderr


def _start_cloud(tmp: Path, env: dict[str, str], procs: dict[str, subprocess.Popen[str]]) -> int:
    write_secret((tmp / "tokens"), "".join(f"edge {e} {token(e)}\n" for e in EDGES) + f"admin {ADMIN} {token(ADMIN)}\n")
    (tmp / "cloud.toml").write_text(
        f'port = 0\ntokens_file = "{tmp / "tokens"}"\nheartbeat_interval_s = 1.0\n'
        f"[query]\ndeadline_s = {DEADLINE_S}\nmax_tokens = 48\nmax_top_m = 100\n"
        f'[tracing]\nfile = "{tmp / "cloud.spans.jsonl"}"\n'
    )
    procs["cloud"] = _start(
        [  # the simulation's cloud: these tests check the routing an asker sees under the lab setting
            sys.executable,
            "-m",
            "simulation.cloud_process",
            "--routing-shown",
            "--config",
            str(tmp / "cloud.toml"),
            "--port-file",
            str(tmp / "cloud.port"),
        ],
        tmp / "cloud.log",
        {k: v for k, v in env.items() if not k.startswith("DGRAG__")},  # edge-only settings
    )
    return _wait_port(tmp / "cloud.port", procs["cloud"], tmp / "cloud.log")


def _start_edges(
    tmp: Path, env: dict[str, str], cloud_port: int, procs: dict[str, subprocess.Popen[str]]
) -> dict[str, int]:
    for edge_id in EDGES:
        (tmp / f"{edge_id}.toml").write_text(
            f'edge_id = "{edge_id}"\n[server]\nport = 0\ningest_roots = "{tmp}"\n'
            f'[cloud]\naddress = "127.0.0.1:{cloud_port}"\npublish_interval_s = 0.5\nheartbeat_interval_s = 1.0\n'
            f'[tracing]\nfile = "{tmp / f"{edge_id}.spans.jsonl"}"\n'
        )
        procs[edge_id] = _start(
            [
                *dgrag_command(),
                "edge",
                "serve",
                "--data-dir",
                str(tmp / edge_id),
                "--config",
                str(tmp / f"{edge_id}.toml"),
                "--port-file",
                str(tmp / f"{edge_id}.port"),
            ],
            tmp / f"{edge_id}.log",
            {**env, "DGRAG_EDGE_TOKEN": token(edge_id)},
        )
    return {e: _wait_port(tmp / f"{e}.port", procs[e], tmp / f"{e}.log") for e in EDGES}


async def _synced(c: Cluster, tmp: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        edges = await c.edges()
        if all(e in edges and edges[e].connected and edges[e].summaries > 0 for e in EDGES):
            return
        await asyncio.sleep(0.5)
    raise AssertionError(f"edges did not sync: {(tmp / 'cloud.log').read_text()[-3000:]}")


def test_a_question_about_b_asked_at_a_is_escalated_routed_to_b_and_answered_from_b(cluster: Cluster) -> None:
    done = subprocess.run(
        [
            *dgrag_command(),
            "edge",
            "ask",
            "--server",
            f"127.0.0.1:{cluster.edge_ports['edge-a']}",
            "--token-file",
            str(cluster.api_token_file("edge-a")),
            "--json",
            "Who directs the Kestrel Observatory in Armenia?",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    trace = json.loads(done.stdout)
    assert trace["local_decision"] == "escalate", trace["gate"]
    assert trace["decision"] == "cloud"
    assert trace["cloud"]["edges_asked"] == ["edge-b"]
    assert trace["cloud"]["edges_replied"] == ["edge-b", "edge-a"], "the asker's own evidence joins edge-b's"
    assert trace["sources"] and "edge-b" in {s["edge_id"] for s in trace["sources"]}
    theirs = {s["doc_id"] for s in trace["sources"] if s["edge_id"] == "edge-b"}
    assert len(theirs) == 1 and next(iter(theirs)).startswith("doc-"), theirs  # opaque: not its path, nor its name
    assert trace["answer"].strip()
    for edge in ("edge-a", "edge-b"):  # each edge's reply left under its own policy, audited
        audit = [json.loads(x) for x in (cluster.tmp / edge / "audit.jsonl").read_text().splitlines()]
        assert any(e["what"] == "retrieval_reply" and e["to"] == "cloud" and e["bytes"] > 0 for e in audit), edge
    _linked_traces_across_three_processes(cluster.tmp)


def _linked_traces_across_three_processes(tmp: Path) -> None:
    """The question's spans, written by edge-a, the cloud and edge-b to their own files: edge-a's trace, and the
    cloud's own trace (with edge-b's spans in it) linked to edge-a's call, never continuing it."""
    spans = {
        name: [json.loads(x) for x in (tmp / f"{name}.spans.jsonl").read_text().splitlines()]
        for name in ("edge-a", "cloud", "edge-b")
    }
    (root,) = [s for s in spans["edge-a"] if s["name"] == "edge.query"]
    asking = {s["context"]["span_id"] for s in spans["edge-a"] if s["name"] == "edge.ask_cloud"}
    names = {s["name"] for s in spans["edge-a"] if s["context"]["trace_id"] == root["context"]["trace_id"]}
    assert names >= {"edge.query", "retrieval", "edge.ask_cloud"}
    assert "generation" not in names, "the evidence check came first: edge-a's model did not read the question"
    served = [
        s
        for s in spans["cloud"]
        if s["name"] in ("cloud.global_query", "cloud.check_evidence")
        and any(link["context"]["span_id"] in asking for link in s.get("links", []))
    ]
    assert served, "the cloud's trace is linked to edge-a's call"
    cloud_trace = served[-1]["context"]["trace_id"]
    assert cloud_trace != root["context"]["trace_id"], "a caller's trace id goes no further than the cloud"
    cloud_names = {s["name"] for s in spans["cloud"] if s["context"]["trace_id"] == cloud_trace}
    assert cloud_names >= {"summary_match", "fan_out", "cloud.ask_edge", "rescore", "merge", "cloud_generation"}
    theirs = {s["name"] for s in spans["edge-b"] if s["context"]["trace_id"] == cloud_trace}
    assert "edge.retrieval_request" in theirs, "edge-b continues the cloud's trace"
    asked = {s["context"]["span_id"] for s in spans["cloud"] if s["name"] == "cloud.ask_edge"}
    answered = [s for s in spans["edge-b"] if s["context"]["trace_id"] == cloud_trace]
    assert all(s["parent_id"] in asked for s in answered if s["name"] == "edge.retrieval_request"), "continued"


def test_a_wrong_token_is_refused(cluster: Cluster) -> None:
    async def call() -> grpc.StatusCode:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{cluster.cloud_port}") as channel:
            try:
                await cluster.cloud_stub(channel).ListEdges(
                    cloud_pb2.ListEdgesRequest(), metadata=auth_metadata("edge-a", token("edge-b"))
                )
            except grpc.aio.AioRpcError as exc:
                return exc.code()
        return grpc.StatusCode.OK

    assert asyncio.run(call()) == grpc.StatusCode.UNAUTHENTICATED


def test_a_changed_document_at_b_reaches_the_cloud_as_a_delta(cluster: Cluster) -> None:
    before = {(m.summary_id, m.version) for m in asyncio.run(cluster.match("Kestrel Observatory", 50))}

    async def change() -> None:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{cluster.edge_ports['edge-b']}") as channel:
            reply = await edge_pb2_grpc.EdgeStub(channel).Ingest(
                edge_pb2.IngestRequest(paths=[str(cluster.tmp / "edge-b.txt")]),
                metadata=bearer_metadata(read_api_token(cluster.api_token_file("edge-b"))),
                timeout=300,
            )
            assert list(reply.updated) == ["edge-b.txt"], reply

    (cluster.tmp / "edge-b.txt").write_text(B_CHANGED)
    asyncio.run(change())
    deadline = time.monotonic() + 30
    after = before
    while time.monotonic() < deadline and after == before:
        time.sleep(0.5)
        after = {(m.summary_id, m.version) for m in asyncio.run(cluster.match("Kestrel Observatory", 50))}
    assert after != before, "the cloud's summaries of edge-b did not change"
    audit = [json.loads(x) for x in (cluster.tmp / "edge-b" / "audit.jsonl").read_text().splitlines()]
    assert any(e["what"] == "summary_delta" for e in audit)


def test_an_edge_killed_mid_query_yields_a_partial_answer_within_the_deadline(cluster: Cluster) -> None:
    victim = cluster.procs["edge-b"]
    victim.send_signal(signal.SIGSTOP)  # hangs: the cloud's request to it is in flight when it dies
    threading.Timer(1.0, victim.kill).start()

    async def ask() -> tuple[cloud_pb2.GlobalQueryReply, float]:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{cluster.cloud_port}") as channel:
            started = time.monotonic()
            reply = await cluster.cloud_stub(channel).GlobalQuery(
                cloud_pb2.GlobalQueryRequest(
                    question="Alice Morgan bakery and the Kestrel Observatory", top_m=5, top_k=2
                ),
                metadata=auth_metadata("edge-a", token("edge-a")),
                timeout=120,
            )
            return reply, time.monotonic() - started

    reply, _ = asyncio.run(ask())
    assert list(reply.edges_failed) == ["edge-b"]
    assert list(reply.edges_replied) == ["edge-a"]
    assert reply.timings.seconds["fan_out"] <= DEADLINE_S + 0.5
    assert reply.answer.strip()
