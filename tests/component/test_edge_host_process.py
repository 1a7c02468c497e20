"""An edge host: three edges in one process, one shared (scripted) model, each with its own API and session."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from cloud_server.api import CloudClient
from edge_node.api import Document, Edge, EdgeClient, EdgeModels, read_api_token
from edge_node.ingest.readers import RawDocument
from shared.core.errors import ConfigError
from shared.transport.secret_file import write_secret
from simulation.edge_host import HostedEdge, read_host_spec, serve_host
from simulation.fakes import HashEmbedder, RegexTokenizer, ScriptedGenerator
from simulation.model_pool import ModelPool
from tests.support.grpc_harness import APP_ID, DIM, answer_from_context, edge_config, start_network, token_of

CORPORA = {
    "h1": [RawDocument("d1", "Acme", "Acme Robotics is led by Dana Smith. Acme Robotics builds arms.", "t")],
    "h2": [RawDocument("d2", "Oslo", "The Oslo Plant opened in 2021. The Oslo Plant supplies Nordic Steel.", "t")],
    "h3": [RawDocument("d3", "Lyon", "Marie Curie Labs sits in Lyon. Marie Curie Labs studies batteries.", "t")],
}


def test_three_edges_share_one_model_and_keep_their_own_api_and_session(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {}, extra_edges=list(CORPORA))
        hosted = []
        for edge_id, docs in CORPORA.items():
            write_secret(tmp_path / f"{edge_id}.token", token_of(edge_id))
            config = edge_config(edge_id, net.cloud_port, tmp_path / f"{edge_id}.token")
            models = EdgeModels(ScriptedGenerator(answer_from_context), HashEmbedder(DIM), RegexTokenizer())

            def build(edge_id: str = edge_id, config=config, models=models, docs=docs) -> None:  # type: ignore[no-untyped-def]
                with Edge.open(tmp_path / edge_id, config, models=models) as edge:
                    edge.insert([Document(d.doc_id, d.title, d.text) for d in docs])

            await asyncio.to_thread(build)  # the synchronous API runs its own loop: not inside this one
            hosted.append(HostedEdge(tmp_path / edge_id, config, tmp_path / f"{edge_id}.port"))
        pool = ModelPool(ScriptedGenerator(answer_from_context), HashEmbedder(DIM))
        stop = asyncio.Event()
        ports: dict[str, int] = {}
        host = asyncio.create_task(
            serve_host(hosted, pool, stop, lambda e, p: ports.__setitem__(e.config.edge_id, p), RegexTokenizer())
        )
        try:
            await net.wait_for(lambda: all(net.cloud.index.count(e) > 0 for e in CORPORA), timeout=15)
            assert len(set(ports.values())) == 3, "each edge has its own API port"
            for edge_id in CORPORA:
                token = read_api_token(tmp_path / edge_id / "api.token")
                async with EdgeClient(f"127.0.0.1:{ports[edge_id]}", token, timeout_s=30) as client:
                    reply = await client.query("Who leads Acme Robotics?", mode="local")
                    assert reply.decision in ("local", "escalate")
                    assert (await client.stats()).edge_id == edge_id
            other = read_api_token(tmp_path / "h2" / "api.token")
            async with EdgeClient(f"127.0.0.1:{ports['h1']}", other, timeout_s=10) as wrong:
                with pytest.raises(Exception, match="UNAUTHENTICATED"):
                    await wrong.query("x", mode="local")
            async with CloudClient(f"127.0.0.1:{net.cloud_port}", APP_ID, token_of(APP_ID)) as cloud:
                answer = await cloud.global_query("Where does Marie Curie Labs sit?", top_k=1)
                assert answer.edges_replied, "the cloud reached a hosted edge over its session"
            assert set(pool.slm_queue.stats().calls) == set(CORPORA), "every edge's calls went through the pool"
        finally:
            stop.set()
            await host
            pool.close()
            await net.close()

    asyncio.run(main())


def test_host_spec_errors_name_the_entry(tmp_path: Path) -> None:
    spec = tmp_path / "host.json"
    spec.write_text(
        json.dumps(
            {
                "edges": [
                    {"data_dir": "a", "settings": {"DGRAG__EDGE_ID": "x"}},
                    {"data_dir": "b", "settings": {"DGRAG__EDGE_ID": "x"}},
                ]
            }
        )
    )
    with pytest.raises(ConfigError, match="appear twice"):
        read_host_spec(spec, environ={})
    spec.write_text(json.dumps({"edges": [{"dir": "a"}]}))
    with pytest.raises(ConfigError, match="edge #0"):
        read_host_spec(spec, environ={})
    spec.write_text("{}")
    with pytest.raises(ConfigError, match="host spec"):
        read_host_spec(spec, environ={})
    two = [
        {"data_dir": "a", "settings": {"DGRAG__EDGE_ID": "a"}},
        {"data_dir": "b", "settings": {"DGRAG__EDGE_ID": "b", "DGRAG__SLM__WEIGHTS": "bundled"}},
    ]
    spec.write_text(json.dumps({"edges": two}))
    with pytest.raises(ConfigError, match="must agree"):
        read_host_spec(spec, environ={})
    two[1]["settings"] = {"DGRAG__EDGE_ID": "b", "DGRAG__PRIVACY__SHARE_CHUNKS": "false"}
    spec.write_text(json.dumps({"edges": two}))
    edges = read_host_spec(spec, environ={})  # each edge keeps its own policy
    assert [e.config.privacy.share_chunks for e in edges] == [True, False]
