"""A cloud and edges over real gRPC on loopback (port 0), in one event loop, with scripted models.

The transport, auth, sessions, summary index and fan-out are the real ones; only the models are fakes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from cloud_server.api import CloudParts, RoutingStrategy, build_cloud, serve_cloud
from cloud_server.sessions.tokens import TokenBook
from edge_node.api import EdgeModels, EdgeRuntime, build_edge
from edge_node.ingest.readers import RawDocument
from edge_node.store.knowledge_base import EdgeKnowledgeBase
from edge_node.transport.api_token import API_TOKEN_FILE, read_api_token
from edge_node.transport.server import serve_edge
from shared.config import (
    ChunkingConfig,
    CloudConfig,
    CloudLinkConfig,
    CloudQueryConfig,
    EdgeConfig,
    EdgeServerConfig,
    GateConfig,
    PartitionConfig,
    PrivacyConfig,
)
from shared.core.model_api import GenerationRequest
from shared.proto.dgrag.v1 import edge_pb2, edge_pb2_grpc
from shared.transport.grpc_auth import bearer_metadata
from shared.transport.grpc_transport import ClientTls
from shared.transport.secret_file import write_secret
from simulation.fakes import HashEmbedder, RegexTokenizer, ScriptedGenerator
from tests.support.fakes_edge import scripted_slm

DIM = 64


def answer_from_context(request: GenerationRequest) -> str:
    """Where the first passage shares a capitalised name with the question: "Yes" to a yes/no question, else the
    first run of capitalised words of that passage the question does not name, a full name first (a span);
    else refuse."""
    if "Question:" in request.prompt and "Context:" in request.prompt:
        context, question = request.prompt.split("Question:", 1)
        names = set(re.findall(r"\b[A-Z][a-z]+\b", question)) - {"Who", "What", "Which", "Where", "When"}
        lines = [line for line in context.replace("Context:", "", 1).strip().splitlines() if line.strip()]
        fact = lines[0] if lines and any(n in lines[0] for n in names) else ""
        if fact and re.match(r"\s*(?:Does|Is|Can|Did|Are)\b", question):
            return "Yes"
        asked = set(re.findall(r"\b[A-Z][a-z]+\b", question))
        runs = [r for r in re.findall(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*", fact) if not set(r.split()) & asked]
        runs.sort(key=lambda r: " " not in r)  # a full name (two words or more) first
        return runs[0] if runs else fact.split(". ")[0] if fact else "Insufficient information."
    return scripted_slm(request)


APP_ID = "app-1"
"""An application's credential in every test network's tokens file (GlobalQuery, MatchSummaries)."""
ADMIN_ID = "ops"
"""An operator's credential (also ListEdges)."""


async def status_of(call: object) -> grpc.StatusCode:
    """The status code a gRPC call ends with (OK when it succeeds)."""
    try:
        await call  # type: ignore[misc]
    except grpc.aio.AioRpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


def token_of(edge_id: str) -> str:
    return f"token-of-{edge_id}-0123456789abcdefghijklmnopqrstuvwxyz"


@dataclass
class Network:
    cloud_port: int
    cloud: CloudParts
    edge_ports: dict[str, int]
    runtimes: dict[str, EdgeRuntime]
    stops: dict[str, asyncio.Event]
    tasks: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    data_dirs: dict[str, Path] = field(default_factory=dict)

    async def wait_for(self, condition, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
        deadline = asyncio.get_running_loop().time() + timeout
        while not condition():
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError("condition not reached in time")
            await asyncio.sleep(0.05)

    def edge_metadata(self, edge_id: str) -> tuple[tuple[str, str], ...]:
        """What a local app of ``edge_id`` sends to its API: the token the edge wrote into its data directory."""
        return bearer_metadata(read_api_token(self.data_dirs[edge_id] / API_TOKEN_FILE))

    async def stop_edge(self, edge_id: str) -> None:
        self.stops[edge_id].set()
        await self.tasks[edge_id]

    async def close(self) -> None:
        for stop in self.stops.values():
            stop.set()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)


def edge_config(edge_id: str, cloud_port: int, token_file: Path) -> EdgeConfig:
    return EdgeConfig(
        edge_id=edge_id,
        chunking=ChunkingConfig(chunk_tokens=60, overlap_tokens=8),
        partition=PartitionConfig(min_size=2, max_size=12),
        server=EdgeServerConfig(port=0, page_port=-1),
        privacy=PrivacyConfig(doc_ids="names"),  # the fixtures' ids are public; a test reads them in replies
        cloud=CloudLinkConfig(
            address=f"127.0.0.1:{cloud_port}",
            token_file=str(token_file),
            publish_interval_s=0.1,
            heartbeat_interval_s=0.5,
            backoff_initial_s=0.05,
            backoff_max_s=0.2,
            query_deadline_s=10.0,
        ),
    )


async def start_network(
    tmp: Path,
    corpora: dict[str, Sequence[RawDocument]],
    deadline_s: float = 2.0,
    extra_edges: Sequence[str] = (),
    hello_timeout_s: float = 10.0,
    query: CloudQueryConfig | None = None,
    cloud_llm: ScriptedGenerator | None = None,
    askers_see_routing: bool = True,
    strategy: RoutingStrategy | None = None,
    **cloud_settings: float | str,
) -> Network:
    """The cloud and one edge per corpus on loopback. Askers see the routing (build_cloud's lab setting) unless
    told otherwise: most tests of the wire check it."""
    tokens_file = tmp / "tokens"
    edge_ids = [*corpora, *extra_edges]
    write_secret(
        tokens_file,
        "".join(f"edge {e} {token_of(e)}\n" for e in edge_ids)
        + f"app {APP_ID} {token_of(APP_ID)}\nadmin {ADMIN_ID} {token_of(ADMIN_ID)}\n",
    )
    cloud_config = CloudConfig(
        port=0,
        heartbeat_interval_s=0.5,
        hello_timeout_s=hello_timeout_s,
        query=query or CloudQueryConfig(deadline_s=deadline_s),
    )
    cloud_config = dataclasses.replace(cloud_config, **cloud_settings)
    llm = cloud_llm or ScriptedGenerator(answer_from_context)
    parts = build_cloud(
        cloud_config, HashEmbedder(DIM), llm, RegexTokenizer(), strategy, askers_see_routing=askers_see_routing
    )
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    stops = {"cloud": asyncio.Event()}
    tasks = {
        "cloud": asyncio.create_task(
            serve_cloud(cloud_config, parts, TokenBook.load(tokens_file), ready.set_result, stops["cloud"])
        )
    }
    cloud_port = await ready
    net = Network(cloud_port, parts, {}, {}, stops, tasks)
    for edge_id, docs in corpora.items():
        await start_edge(net, tmp, edge_id, docs)
    return net


async def start_edge(
    net: Network,
    tmp: Path,
    edge_id: str,
    docs: Sequence[RawDocument],
    gate: GateConfig | None = None,
    tls: ClientTls | None = None,
    metrics_port: int = 0,
    page_port: int = -1,
    read_first: bool = True,
    **privacy: bool | str,
) -> None:
    """``page_port``: serve the owner's page there (-1: no page). ``read_first``: the edge's model reads before the
    cloud is asked (gate.read_first; on here, since most tests are of the gate's path)."""
    token_file = tmp / f"{edge_id}.token"
    write_secret(token_file, token_of(edge_id))
    config = edge_config(edge_id, net.cloud_port, token_file)
    config = dataclasses.replace(config, gate=dataclasses.replace(gate or config.gate, read_first=read_first))
    if metrics_port:
        config = dataclasses.replace(config, server=dataclasses.replace(config.server, metrics_port=metrics_port))
    if page_port >= 0:
        config = dataclasses.replace(config, server=dataclasses.replace(config.server, page_port=page_port))
    if tls is not None:
        link = dataclasses.replace(
            config.cloud, tls_ca=tls.ca, tls_server_name=tls.server_name, tls_cert=tls.cert, tls_key=tls.key
        )
        config = dataclasses.replace(config, cloud=link)
    if privacy:
        config = dataclasses.replace(config, privacy=dataclasses.replace(config.privacy, **privacy))
    kb = EdgeKnowledgeBase(tmp / edge_id)
    net.data_dirs[edge_id] = tmp / edge_id
    runtime = build_edge(
        kb, config, EdgeModels(ScriptedGenerator(answer_from_context), HashEmbedder(DIM), RegexTokenizer())
    )
    if docs:
        await runtime.ingest(list(docs))
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    net.stops[edge_id] = asyncio.Event()

    async def run() -> None:
        try:
            await serve_edge(config, runtime, ready.set_result, net.stops[edge_id])
        finally:
            kb.close()

    net.tasks[edge_id] = asyncio.create_task(run())
    net.edge_ports[edge_id] = await ready
    net.runtimes[edge_id] = runtime


# --- the sample network every test of the wire uses -----------------------------------------------------

ACME = [
    RawDocument("acme-1", "Acme", "Acme Robotics builds welding arms in Berlin. Jane Doe leads Acme Robotics.", "a"),
    RawDocument("acme-2", "Acme plant", "The Acme Robotics plant in Berlin opened in 2019 with Jane Doe.", "a"),
]
ZEPHYR = [
    RawDocument(
        "zeph-1",
        "Zephyr",
        "Zephyr Medical was founded by Omar Haddad in Lisbon. Zephyr Medical makes insulin pumps.",
        "z",
    ),
    RawDocument(
        "zeph-2", "Zephyr clinic", "Omar Haddad opened the Zephyr Medical clinic in Porto with Lena Fischer.", "z"
    ),
]


def run(coro):  # type: ignore[no-untyped-def]
    """Run a test's coroutine, failing it after 60 s."""
    return asyncio.run(asyncio.wait_for(coro, timeout=60))


async def ask(net: Network, edge_id: str, question: str, mode: str = "full") -> edge_pb2.QueryReply:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{net.edge_ports[edge_id]}") as channel:
        reply: edge_pb2.QueryReply = await edge_pb2_grpc.EdgeStub(channel).Query(
            edge_pb2.QueryRequest(question=question, mode=mode), metadata=net.edge_metadata(edge_id), timeout=30
        )
    return reply


async def connected(net: Network, *edges: str) -> None:
    await net.wait_for(lambda: all(net.cloud.index.count(e) > 0 and net.cloud.registry.connected(e) for e in edges))


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
