"""Fixtures every test directory shares: the model fakes (a scripted SLM that answers each prompt kind, and
hash-seeded embeddings, plain or counting) and a free loopback port. Fakes are for fast tests only; integration
tests use the real models. Helpers live in tests/support, never in a test directory."""

from __future__ import annotations

import pytest

from edge_node.api import EdgeModels
from simulation.fakes import HashEmbedder, RegexTokenizer, ScriptedGenerator
from tests.support.docker_files import DOCKERFILES, Dockerfile, parse_dockerfile
from tests.support.fakes import CountingEmbedder
from tests.support.fakes_edge import EMBED_DIM, scripted_slm
from tests.support.grpc_harness import free_port


@pytest.fixture
def hash_embedder() -> HashEmbedder:
    """Hash-seeded embeddings of the edges' fakes' width."""
    return HashEmbedder(EMBED_DIM)


@pytest.fixture
def edge_models() -> EdgeModels:
    """An edge's models as fakes: the scripted SLM, hash embeddings and the regex tokenizer."""
    return EdgeModels(ScriptedGenerator(scripted_slm), HashEmbedder(EMBED_DIM), RegexTokenizer())


@pytest.fixture
def counting_embedder() -> CountingEmbedder:
    """Hash embeddings that remember what they were asked to embed."""
    return CountingEmbedder()


@pytest.fixture
def loopback_port() -> int:
    """A TCP port free on loopback."""
    return free_port()


@pytest.fixture(scope="module", params=sorted(DOCKERFILES))
def image(request: pytest.FixtureRequest) -> tuple[str, Dockerfile]:
    """Each of the project's Dockerfiles, parsed, with its role (edge, cloud, ...)."""
    role = str(request.param)
    return role, parse_dockerfile(DOCKERFILES[role])
